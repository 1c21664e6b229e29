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
/// home need not be read whole at every call).
const HASHED: u64 = 1 << 20;

/// How many words of one command are looked at as paths (a command is one line; one of
/// megabytes must not cost a lookup per word at every call).
const WORDS: usize = 64;

/// The state of each file `command` names that lies in `project` (its relative paths and
/// `$…_PROJECT_DIR` taken from there) or in the home folder (both as their links lead),
/// one line each, for the hook's digest: the file's SHA-256, or its size and modification
/// time past [`HASHED`] bytes, or that it is not there. Empty when it names none.
pub(super) fn named_files(command: &str, project: Option<&Path>, home: Option<&Path>) -> String {
    let mut lines = String::new();
    for word in words(command).take(WORDS) {
        let Some(path) = resolve(&word, project) else {
            continue;
        };
        // As its links lead, as `project` and `home` are given.
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let inside = |folder: Option<&Path>| folder.is_some_and(|f| path.starts_with(f));
        if !inside(project) && !inside(home) {
            continue;
        }
        lines.push_str(&format!("{}={}\n", path.display(), state(&path)));
    }
    lines
}

/// The words of a command line: split at blanks and the shell's operators, quotes dropped.
fn words(command: &str) -> impl Iterator<Item = String> + '_ {
    command
        .split(|c: char| c.is_whitespace() || ";&|()<>`".contains(c))
        .map(|word| word.replace(['"', '\''], ""))
        .filter(|word| !word.is_empty())
}

/// The path a word names: absolute, or relative to `project` (a word with a `/`, so that a
/// program found on `PATH` is not taken for a project file), with `$…_PROJECT_DIR` and
/// `${…_PROJECT_DIR}` (the agents' project variables) read as `project`.
fn resolve(word: &str, project: Option<&Path>) -> Option<PathBuf> {
    let word = project_variable_expanded(word, project)?;
    if !word.contains('/') {
        return None;
    }
    let path = Path::new(&word);
    if path.is_absolute() {
        return Some(crate::paths::lexical(path));
    }
    project.map(|p| crate::paths::lexical(&p.join(path)))
}

/// `word` with a leading `$NAME` or `${NAME}`, `NAME` ending in `_PROJECT_DIR`, read as
/// `project`; `None` for such a word with no project. Other words as they are.
fn project_variable_expanded(word: &str, project: Option<&Path>) -> Option<String> {
    let Some(rest) = word.strip_prefix('$') else {
        return Some(word.to_string());
    };
    let (name, after) = match rest.strip_prefix('{') {
        Some(braced) => braced.split_once('}')?,
        None => rest.split_at(rest.find('/').unwrap_or(rest.len())),
    };
    if !name.ends_with("_PROJECT_DIR") {
        return Some(word.to_string());
    }
    Some(format!("{}{after}", project?.display()))
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
        let of = |command: &str| named_files(command, Some(&project), Some(&home));
        let spellings = [
            "bash .claude/hooks/fmt.sh",
            "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/fmt.sh --fast",
            "cd x && bash ${GEMINI_PROJECT_DIR}/.claude/hooks/fmt.sh",
            &format!("bash '{}/.claude/hooks/fmt.sh'", project.display()),
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
        assert_eq!(of("/usr/bin/env python3 -m fmt"), "");
        assert!(of("bash gone/x.sh").ends_with("x.sh=absent\n"));
        // Without a project, a relative path or the project variable names nothing.
        assert_eq!(
            named_files("bash $CLAUDE_PROJECT_DIR/x.sh", None, Some(&home)),
            ""
        );
    }
}
