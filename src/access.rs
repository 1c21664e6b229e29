//! Why a path cannot be used: missing, not a folder, or not allowed.
//!
//! `Path::is_dir` and friends answer `false` for all three, and a user told "is not a
//! folder" about a folder they cannot enter looks in the wrong place. These helpers ask
//! the file system once more and name the part of the path at fault: the first component
//! that does not exist, or the folder this user may not enter.

use std::io;
use std::path::{Path, PathBuf};

/// What is wrong with `path` as a folder to use, or `None` when it is one this process
/// can enter. The text reads after the path: "does not exist", "is not a folder",
/// "permission denied (…)".
pub fn folder_problem(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_dir() => Some("is not a folder".into()),
        // A folder that can be looked at but not entered (no search permission).
        Ok(_) => match std::fs::metadata(path.join(".")) {
            Ok(_) => None,
            Err(e) => Some(explain(path, &e)),
        },
        Err(e) => Some(explain(path, &e)),
    }
}

/// The reason an operation on `path` failed with `err`, in words that name the part of
/// the path at fault where the error is about the path rather than the file itself.
pub fn explain(path: &Path, err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::PermissionDenied => match closed_folder(path) {
            Some(folder) if folder != path => format!(
                "permission denied ({} cannot be entered by this user)",
                folder.display()
            ),
            Some(_) => "permission denied (this user cannot enter it)".into(),
            None => "permission denied".into(),
        },
        io::ErrorKind::NotFound => match first_missing(path) {
            Some(missing) if missing != path => {
                format!("does not exist ({} is missing)", missing.display())
            }
            _ => "does not exist".into(),
        },
        io::ErrorKind::NotADirectory => "a part of the path is not a folder".into(),
        _ => err.to_string(),
    }
}

/// The first folder on the way to `path` (or `path` itself) that exists but cannot be
/// entered, if any.
fn closed_folder(path: &Path) -> Option<PathBuf> {
    let ancestors: Vec<&Path> = path.ancestors().collect();
    ancestors.into_iter().rev().find_map(|prefix| {
        let looked_at = std::fs::symlink_metadata(prefix).is_ok();
        let entered = std::fs::metadata(prefix.join(".")).is_ok();
        let is_folder = std::fs::metadata(prefix).map(|m| m.is_dir());
        (looked_at && !entered && !matches!(is_folder, Ok(false))).then(|| prefix.to_path_buf())
    })
}

/// The shortest prefix of `path` that does not exist, when its parent can be entered
/// (otherwise the answer is "not allowed", not "missing").
fn first_missing(path: &Path) -> Option<PathBuf> {
    let ancestors: Vec<&Path> = path.ancestors().collect();
    ancestors
        .into_iter()
        .rev()
        .find_map(|prefix| match std::fs::symlink_metadata(prefix) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Some(prefix.to_path_buf()),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_usable_folder_has_no_problem() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(folder_problem(dir.path()), None);
    }

    #[test]
    fn missing_names_the_first_missing_part() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c");
        assert_eq!(
            folder_problem(&path).unwrap(),
            format!(
                "does not exist ({} is missing)",
                dir.path().join("a").display()
            )
        );
        assert_eq!(
            folder_problem(&dir.path().join("a")).unwrap(),
            "does not exist"
        );
    }

    #[test]
    fn a_file_is_not_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        assert_eq!(folder_problem(&file).unwrap(), "is not a folder");
        assert_eq!(
            folder_problem(&file.join("x")).unwrap(),
            "a part of the path is not a folder"
        );
    }
}
