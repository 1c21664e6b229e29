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
const WORDS: usize = 256;

/// The state of each file a handler's `words` (its command line, or its program and
/// arguments) name that lies in `project` or in the home folder, one line each, for the
/// hook's digest: the file's SHA-256 (or its size and modification time past [`HASHED`]
/// bytes, or that it is not there), and where its links lead. A relative path is taken
/// from `project`, from the handler's `cwd` in it, and from each folder the command `cd`s
/// to; `$…_PROJECT_DIR`, `${…_PROJECT_DIR:-…}`, `$(git rev-parse --show-toplevel)` and an
/// extension's `${extensionPath}` or `${CLAUDE_PLUGIN_ROOT}` are `project`; `~/`, `$HOME`
/// the home. A redirection's target (`>> hook.log`) is the hook's output, not what it
/// runs. Empty when it names none.
pub(super) fn named_files(
    words: &[&str],
    cwd: Option<&str>,
    project: Option<&Path>,
    home: Option<&Path>,
) -> String {
    let mut bases: Vec<PathBuf> = project.into_iter().map(Path::to_path_buf).collect();
    if let (Some(project), Some(cwd)) = (project, cwd) {
        bases.push(crate::paths::lexical(&project.join(cwd)));
    }
    let mut lines = String::new();
    let mut after_cd = false;
    let all = words.iter().flat_map(|line| split(line, project));
    for word in all.take(WORDS) {
        let word = expanded(&word, project, home);
        if after_cd {
            after_cd = false;
            if let Some(project) = project {
                bases.push(crate::paths::lexical(&project.join(&word)));
            }
            continue;
        }
        if word == "cd" || word == "pushd" {
            after_cd = true;
            continue;
        }
        // `--script=path`
        let word = word
            .rsplit_once('=')
            .map_or(word.as_str(), |(_, path)| path);
        if !word.contains('/') {
            continue;
        }
        let path = Path::new(word);
        let candidates: Vec<PathBuf> = if path.is_absolute() {
            vec![crate::paths::lexical(path)]
        } else {
            bases
                .iter()
                .map(|b| crate::paths::lexical(&b.join(path)))
                .collect()
        };
        for path in candidates {
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

/// The words of a command line: split at blanks and the shell's operators, quotes
/// dropped, a redirection's target left out; `$(git rev-parse --show-toplevel)` read as
/// `project` first.
fn split(line: &str, project: Option<&Path>) -> Vec<String> {
    let line = match project {
        Some(project) => line.replace(
            "$(git rev-parse --show-toplevel)",
            &project.display().to_string(),
        ),
        None => line.to_string(),
    };
    let mut words = Vec::new();
    let (mut word, mut redirected, mut skip_next) = (String::new(), false, false);
    for c in line.chars() {
        if c.is_whitespace() || ";&|()<>`".contains(c) {
            if !word.is_empty() {
                if !skip_next {
                    words.push(std::mem::take(&mut word));
                }
                word.clear();
                skip_next = false;
            }
            if c == '>' || c == '<' {
                redirected = true;
            }
            continue;
        }
        if redirected {
            // The word after `>`, `>>`, `2>`, `<` is a file the shell opens.
            skip_next = true;
            redirected = false;
        }
        if c != '"' && c != '\'' {
            word.push(c);
        }
    }
    if !word.is_empty() && !skip_next {
        words.push(word);
    }
    words
}

/// `word` with the agents' variables read: a leading `$NAME`, `${NAME}` or
/// `${NAME:-…}` with `NAME` ending in `_PROJECT_DIR` (or an extension's `extensionPath`,
/// `CLAUDE_PLUGIN_ROOT`, `PLUGIN_ROOT`) as `project`, `HOME` and `~` as `home`; `${/}` and
/// `${pathSeparator}` as `/`. A variable with no folder to read it as stays as written.
fn expanded(word: &str, project: Option<&Path>, home: Option<&Path>) -> String {
    let word = word.replace("${/}", "/").replace("${pathSeparator}", "/");
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
            Some((inner, after)) => (inner.split(":-").next().unwrap_or(inner), after),
            None => return word,
        },
        None => rest.split_at(rest.find('/').unwrap_or(rest.len())),
    };
    let folder = if name.ends_with("_PROJECT_DIR")
        || matches!(name, "extensionPath" | "CLAUDE_PLUGIN_ROOT" | "PLUGIN_ROOT")
    {
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
fn state(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    let Ok(meta) = std::fs::metadata(path) else {
        return "absent".into();
    };
    if !meta.is_file() {
        return "not a file".into();
    }
    if meta.len() > HASHED {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        return format!("{} bytes, modified {modified}", meta.len());
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
        let project = dir.path().join("p");
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
