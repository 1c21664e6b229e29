//! Where a session's record lives: the default path, the file name for a session id,
//! and the warning for a record that other users can open.

use std::path::{Path, PathBuf};

/// The warning for a record that users other than its owner may read or write (`mode`
/// has group or other bits): records hold prompts and tool inputs. `None` when it is
/// private.
pub fn exposure_warning(path: &Path, mode: u32) -> Option<String> {
    let open = mode & 0o077;
    if open == 0 {
        return None;
    }
    let path = path.display();
    Some(format!(
        "⚠ the session record {path} is open to other users (mode {:04o}), and it holds prompts and tool inputs. Make it private: chmod 600 {path}",
        mode & 0o7777
    ))
}

/// The [`exposure_warning`] for the record at `path`, if it can be read at all.
pub fn exposure_warning_of(path: &Path) -> Option<String> {
    let mode = crate::platform::sys::files::mode_bits(&std::fs::metadata(path).ok()?);
    exposure_warning(path, mode)
}

/// The default record for a session: [`file_name_for`] in `env`'s record folder
/// ([`crate::env::Environment::record_dir`]: `$XDG_STATE_HOME/hookhost`, else
/// `~/.local/state/hookhost`); `None` with neither variable set, or for an empty id.
pub fn default_path(env: &crate::env::Environment, session_id: &str) -> Option<PathBuf> {
    Some(env.record_dir()?.join(file_name_for(session_id)?))
}

/// The record's file name for `session_id`, one to one (docs/threats.md#n18): an id made
/// only of `[A-Za-z0-9._-]`, at most 128 of them and not `.` or `..`, is the name as is
/// (`<id>.jsonl`); any other id is `sha256=<hex of the id>.jsonl`, which no plain id
/// spells (`=` is not in the set), so no id names a path elsewhere (`../x`) and no two
/// ids share a file. An empty id has no record (`None`): it names no session, and every
/// empty id would otherwise share one.
pub fn file_name_for(session_id: &str) -> Option<String> {
    if session_id.is_empty() {
        return None;
    }
    let plain = session_id.len() <= 128
        && session_id != "."
        && session_id != ".."
        && session_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    Some(if plain {
        format!("{session_id}.jsonl")
    } else {
        use sha2::Digest;
        format!(
            "sha256={}.jsonl",
            hex::encode(sha2::Sha256::digest(session_id.as_bytes()))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// N18: no two ids share a record, and an empty id has none.
    #[test]
    fn record_names_are_one_to_one() {
        use sha2::Digest;
        let name = |id: &str| file_name_for(id).unwrap();
        assert_eq!(name("abc-1.2_3"), "abc-1.2_3.jsonl");
        let other = "session one";
        let hex = hex::encode(sha2::Sha256::digest(other.as_bytes()));
        // An id that spells another id's digest is a name of its own.
        assert_ne!(name(&hex), name(other));
        assert_eq!(name(other), format!("sha256={hex}.jsonl"));
        assert_ne!(name("a b"), name("a_b"));
        assert_ne!(name(".."), name("."));
        assert!(name("../../etc/x").starts_with("sha256="));
        assert_eq!(file_name_for(""), None);
    }
}
