//! The files a hook's command names, as part of what `install` accepts of a hook that may
//! rewrite a call ([`super::rewriting`]; docs/threats.md#r14). A team's hook is usually a
//! script in the project (`python3 .claude/hooks/fmt.py`, `"$CLAUDE_PROJECT_DIR"/hooks/x.sh`),
//! which the agent can rewrite as easily as the settings file: with only the command
//! accepted, a rewritten script could answer with another call. So the state of each file
//! the command names in the project or the home joins the hook's digest, and a changed
//! script is a hook `install` did not see.
//!
//! A command is read as words, not run through a shell: a file reached otherwise (a name
//! built at run time, a script another script runs, a package's entry point) is not seen.

use std::path::{Path, PathBuf};

/// The most bytes of one named file that are hashed; a larger one is known by its size
/// and modification time (a hook's script is small; a program the command names in the
/// home need not be read whole at every call). A bundled script of a few MiB is hashed.
const HASHED: u64 = 8 << 20;

/// How many words of one handler are looked at as paths (a command is one line; one of
/// megabytes must not cost a lookup per word at every call).
const WORDS: usize = 4096;

/// How many folders a relative path is taken from (the project, the handler's `cwd`, the
/// folders the command `cd`s to), and how many files one hook's digest covers: a command
/// of `cd .` repeated, naming a big file again and again, took seconds a call.
const BASES: usize = 8;
const FILES: usize = 64;

/// What `split` puts for a spelling of the project's folder, which `expanded` reads.
const PROJECT_MARK: &str = "\u{1}project\u{1}";

/// The programs whose next words are files they write, not run (`tee -a audit.log`).
const WRITERS: &[&str] = &["tee"];

/// The state of each file a handler's `words` (its command line, or its program and
/// arguments) name that lies in `project` or in the home folder, one line each, for the
/// hook's digest: the file's SHA-256 (or its size and change time past [`HASHED`]
/// bytes, or that it is not there), and where its links lead. A relative path is taken
/// from `project`, from the handler's `cwd` in it, and from each folder the command `cd`s
/// to (a word without `/` only when such a file is there: a program found on `PATH` is
/// not the project's); `$…_PROJECT_DIR`, `${…_PROJECT_DIR:-…}`, `$PWD`, `$(pwd)`,
/// `$(git rev-parse --show-toplevel)` and an extension's `${extensionPath}` or
/// `${CLAUDE_PLUGIN_ROOT}` are `project`; `~/`, `$HOME` the home. What the hook writes is
/// not what it runs: an output redirection's target (`>> hook.log`), `tee`'s files, `-o
/// FILE`. Empty when it names none.
pub(super) fn named_files(
    words: &[&str],
    cwd: Option<&str>,
    project: Option<&Path>,
    home: Option<&Path>,
) -> String {
    let mut bases: Vec<PathBuf> = project.into_iter().map(Path::to_path_buf).collect();
    let mut current = project.map(Path::to_path_buf);
    if let (Some(project), Some(cwd)) = (project, cwd) {
        let folder = crate::paths::lexical(&project.join(cwd));
        current = Some(folder.clone());
        bases.push(folder);
    }
    let mut seen = std::collections::HashSet::new();
    let mut lines = String::new();
    let (mut after_cd, mut writes) = (false, false);
    let all = words.iter().flat_map(|line| split(line, project));
    for word in all.take(WORDS) {
        if word == "&&" || word == ";" || word == "|" {
            (after_cd, writes) = (false, false);
            continue;
        }
        if after_cd {
            if word.starts_with('-') {
                continue;
            }
            after_cd = false;
            let word = expanded(&word, project, home);
            if let Some(from) = &current {
                let folder = crate::paths::lexical(&from.join(&word));
                current = Some(folder.clone());
                if bases.len() < BASES && !bases.contains(&folder) {
                    bases.push(folder);
                }
            }
            continue;
        }
        if word == "cd" || word == "pushd" {
            after_cd = true;
            continue;
        }
        if WRITERS.contains(&word.as_str()) {
            writes = true;
            continue;
        }
        if writes {
            continue;
        }
        // `--script=path`
        let word = word
            .rsplit_once('=')
            .map_or(word.as_str(), |(_, path)| path);
        let word = expanded(word, project, home);
        let path = Path::new(&word);
        let bare = !word.contains('/');
        let candidates: Vec<PathBuf> = if path.is_absolute() {
            vec![crate::paths::lexical(path)]
        } else {
            bases
                .iter()
                .map(|b| crate::paths::lexical(&b.join(path)))
                .collect()
        };
        for path in candidates {
            if bare && !path.is_file() {
                continue;
            }
            if !seen.insert(path.clone()) {
                continue;
            }
            if seen.len() > FILES {
                lines.push_str("more files than hookhost follows\n");
                return lines;
            }
            // Where it is written and where its links lead: a link in the project to a
            // program elsewhere counts, and so does where it points.
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            let inside = |p: &Path| {
                [project, home]
                    .into_iter()
                    .flatten()
                    .any(|f| p.starts_with(f))
            };
            if !inside(&path) && !inside(&real) {
                continue;
            }
            lines.push_str(&format!(
                "{} -> {}={}\n",
                path.display(),
                real.display(),
                state(&real)
            ));
        }
    }
    lines
}

/// The words of a command line as a shell splits them: at blanks outside quotes, with
/// `;`, `&&`, `|` as words of their own; quotes dropped; an output redirection's target
/// (and `-o FILE`) left out; `$(git rev-parse --show-toplevel)`, `$(pwd)` and `` `pwd` ``
/// read as `project` first.
fn split(line: &str, project: Option<&Path>) -> Vec<String> {
    // Marked, and read as the project once split: its path may hold a blank.
    let mut line = line.to_string();
    if project.is_some() {
        for spelling in ["$(git rev-parse --show-toplevel)", "$(pwd)", "`pwd`"] {
            line = line.replace(spelling, PROJECT_MARK);
        }
    }
    let mut words = Vec::new();
    let mut word = String::new();
    // A word was started (`''` is an empty word); the next word is an output's target.
    let (mut started, mut target, mut quote) = (false, false, None::<char>);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                end_word(&mut words, &mut word, &mut started, &mut target)
            }
            (None, '>') => {
                end_word(&mut words, &mut word, &mut started, &mut target);
                target = true;
                // `>>`, `>&`, `>|`
                while chars.peek().is_some_and(|n| matches!(n, '>' | '&' | '|')) {
                    chars.next();
                }
            }
            (None, ';' | '&' | '|' | '(' | ')' | '<' | '`') => {
                end_word(&mut words, &mut word, &mut started, &mut target);
                let separator = if c == '|' || c == '&' {
                    c.to_string()
                } else {
                    ";".into()
                };
                if matches!(c, ';' | '&' | '|') {
                    // `&&`, `||` are one separator.
                    if chars.peek() == Some(&c) {
                        chars.next();
                    }
                    words.push(if c == '&' { "&&".into() } else { separator });
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    end_word(&mut words, &mut word, &mut started, &mut target);
    // `-o FILE`, `--output FILE`: written.
    let mut kept = Vec::with_capacity(words.len());
    let mut skip = false;
    for word in words {
        if std::mem::take(&mut skip) {
            continue;
        }
        skip = word == "-o" || word == "--output";
        kept.push(word);
    }
    kept
}

/// Ends the word being read: kept in `words`, unless it is an output's `target`.
fn end_word(words: &mut Vec<String>, word: &mut String, started: &mut bool, target: &mut bool) {
    if *started {
        if !std::mem::take(target) {
            words.push(std::mem::take(word));
        }
        word.clear();
        *started = false;
    }
}

/// `word` with the agents' variables read: a leading `$NAME`, `${NAME}` or
/// `${NAME:-…}` (or `-`, `:?`, `=` forms) with `NAME` ending in `_PROJECT_DIR` (or
/// `PWD`, an extension's `extensionPath`, `CLAUDE_PLUGIN_ROOT`, `PLUGIN_ROOT`) as
/// `project`, `HOME` and `~` as `home`; `${/}` and `${pathSeparator}` as `/`. A variable
/// with no folder to read it as stays as written.
fn expanded(word: &str, project: Option<&Path>, home: Option<&Path>) -> String {
    let mut word = word.replace("${/}", "/").replace("${pathSeparator}", "/");
    if let Some(project) = project {
        word = word.replace(PROJECT_MARK, &project.display().to_string());
    }
    if let (Some(rest), Some(home)) = (word.strip_prefix('~'), home)
        && (rest.is_empty() || rest.starts_with('/'))
    {
        return format!("{}{rest}", home.display());
    }
    let Some(rest) = word.strip_prefix('$') else {
        return word;
    };
    let (name, after) = match rest.strip_prefix('{') {
        Some(braced) => match braced.split_once('}') {
            Some((inner, after)) => (
                inner
                    .split([':', '-', '?', '=', '+'])
                    .next()
                    .unwrap_or(inner),
                after,
            ),
            None => return word,
        },
        None => rest.split_at(rest.find('/').unwrap_or(rest.len())),
    };
    let folder = if name.ends_with("_PROJECT_DIR")
        || matches!(
            name,
            "PWD" | "extensionPath" | "CLAUDE_PLUGIN_ROOT" | "PLUGIN_ROOT"
        ) {
        project
    } else if name == "HOME" {
        home
    } else {
        None
    };
    match folder {
        Some(folder) => format!("{}{after}", folder.display()),
        None => word,
    }
}

/// A file's state for the digest.
pub(super) fn state(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    let Ok(meta) = std::fs::metadata(path) else {
        return "absent".into();
    };
    if !meta.is_file() {
        return "not a file".into();
    }
    if meta.len() > HASHED {
        // Its change time, which its owner cannot set back as it can the modification
        // time: an edit that keeps its size and time is seen.
        let stamp = crate::platform::sys::files::change_stamp(&meta);
        return format!("{} bytes, changed {stamp:?}", meta.len());
    }
    match crate::access::read_capped(path, HASHED) {
        Ok(bytes) => format!("sha256:{}", hex::encode(Sha256::digest(bytes))),
        Err(e) => format!("unreadable ({})", e.kind()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_a_command_names_in_the_project_or_the_home_are_known_by_their_content() {
        let dir = tempfile::tempdir().unwrap();
        // A space in the project's path, as in a folder named by a user.
        let project = dir.path().join("my p");
        let home = dir.path().join("home");
        std::fs::create_dir_all(project.join(".claude/hooks")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(project.join(".claude/hooks/fmt.sh"), "echo one").unwrap();
        std::fs::write(home.join("lint.py"), "print(1)").unwrap();
        let (project, home) = (
            project.canonicalize().unwrap(),
            home.canonicalize().unwrap(),
        );
        let of = |command: &str| named_files(&[command], None, Some(&project), Some(&home));
        let spellings = [
            "bash .claude/hooks/fmt.sh",
            "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/fmt.sh --fast",
            "cd x && bash ${GEMINI_PROJECT_DIR}/.claude/hooks/fmt.sh",
            &format!("bash '{}/.claude/hooks/fmt.sh'", project.display()),
            "bash \"$(git rev-parse --show-toplevel)/.claude/hooks/fmt.sh\"",
            "cd .claude/hooks && ./fmt.sh",
            "bash ${CLAUDE_PROJECT_DIR:-.}/.claude/hooks/fmt.sh",
            "runner --script=.claude/hooks/fmt.sh",
            "bash ${extensionPath}${/}.claude/hooks/fmt.sh",
            "bash < .claude/hooks/fmt.sh",
            "printf '>'; .claude/hooks/fmt.sh",
            "true >''; .claude/hooks/fmt.sh",
            "cd .claude && cd hooks && ./fmt.sh",
            "cd -- .claude/hooks && bash fmt.sh",
            "bash $PWD/.claude/hooks/fmt.sh",
            "bash $(pwd)/.claude/hooks/fmt.sh",
            "bash ${CLAUDE_PROJECT_DIR:?}/.claude/hooks/fmt.sh",
            "runner --script=$CLAUDE_PROJECT_DIR/.claude/hooks/fmt.sh",
            &format!("{} .claude/hooks/fmt.sh", "x ".repeat(300)),
        ];
        let before: Vec<String> = spellings.iter().map(|c| of(c)).collect();
        for (command, state) in spellings.iter().zip(&before) {
            assert!(state.contains("fmt.sh=sha256:"), "{command}: {state}");
        }
        let user = of(&format!("python3 {}/lint.py", home.display()));
        assert!(user.contains("lint.py=sha256:"), "{user}");
        // A rewritten script is another state; a program outside both folders, or found
        // on PATH, is not looked at.
        std::fs::write(project.join(".claude/hooks/fmt.sh"), "echo two").unwrap();
        for (command, state) in spellings.iter().zip(&before) {
            assert_ne!(&of(command), state, "{command}");
        }
        for command in ["python3 ~/lint.py", "python3 $HOME/lint.py"] {
            assert!(of(command).contains("lint.py=sha256:"), "{command}");
        }
        // Its output is not what it runs; a handler's `cwd` is a folder its paths start in.
        assert_eq!(of("bash x >> .claude/hooks.log 2>>/tmp/e.log"), "");
        assert_eq!(of("bash x | tee -a .claude/audit.log"), "");
        assert!(!of("curl -o .claude/out.json http://x/y").contains("out.json"));
        // Bounded: folders to take a path from, and files per hook.
        let many = format!("{}{}", "cd . && ".repeat(100), "cat ./a/b ".repeat(100));
        assert_eq!(of(&many).lines().count(), 1);
        let files: String = (0..100).map(|i| format!("cat ./f{i}/x ")).collect();
        assert!(of(&files).ends_with("more files than hookhost follows\n"));
        let with_cwd = named_files(&["./fmt.sh"], Some(".claude/hooks"), Some(&project), None);
        assert!(with_cwd.contains("fmt.sh=sha256:"), "{with_cwd}");
        assert_eq!(of("/usr/bin/env python3 -m fmt"), "");
        assert!(of("bash gone/x.sh").ends_with("x.sh=absent\n"));
        // Without a project, a relative path or the project variable names nothing.
        assert_eq!(
            named_files(&["bash $CLAUDE_PROJECT_DIR/x.sh"], None, None, Some(&home)),
            ""
        );
    }
}
