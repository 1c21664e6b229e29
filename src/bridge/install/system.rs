//! `--scope system`: hookhost's registration in an agent's administrator-managed settings
//! file, the one its users cannot write and that it reads over theirs
//! (docs/system-scope.md).
//!
//! What differs from the other scopes is declared per agent ([`SystemScope`]): the file per
//! OS, the lock-down keys written beside the registration (a switch that the agent takes
//! from the system file over the user's, set to "hooks on"), what a user can still write
//! that weakens it (for `doctor`), or why the agent has no system scope at all. The file is
//! edited by the same editors as the user's; only an administrator may run it
//! ([`require_administrator`]).

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use super::{Action, InstallError};
use crate::env::FolderStyle;

/// An agent's administrator-managed settings, or why it has none.
#[derive(Debug, Clone, Copy)]
pub enum SystemScope {
    /// The agent reads hooks from an administrator-managed file.
    Managed(SystemFile),
    /// It reads none (or none hookhost could confirm): `install --scope system` refuses,
    /// saying this.
    None(&'static str),
}

/// An agent's administrator-managed settings file, where it holds hooks.
#[derive(Debug, Clone, Copy)]
pub struct SystemFile {
    /// Its path on Linux.
    pub linux: &'static str,
    /// Its path on macOS, where known.
    pub macos: Option<&'static str>,
    /// Its path on Windows, where known.
    pub windows: Option<&'static str>,
    /// The keys written with the registration so that a user's or a project's setting
    /// cannot switch the managed hooks off (the agent takes them from this file first).
    pub lock_down: &'static [LockDown],
    /// The environment variable that makes the agent read another file instead, if it has
    /// one: whoever sets it (the user, in their own shell) leaves this file unread.
    pub moved_by: Option<&'static str>,
    /// What a user or a project can still write that weakens the managed registration, in
    /// the agent's words, for `doctor`.
    pub weakened_by: &'static [&'static str],
    /// The switch-offs, as [`super::pin::switches_hooks_off`] names them, that the agent
    /// still takes from a user's or a project's file over this one (seen in the real
    /// program: docs/system-scope.md); `doctor` reports each one it finds.
    pub user_switch_offs: &'static [&'static str],
}

/// Why `--scope system` is refused for an agent whose system file is known elsewhere but
/// not on the running OS.
pub const NOT_ON_THIS_OS: &str =
    "hookhost does not know where it keeps its administrator-managed settings on this OS";

/// One key set to a boolean in the system file (`hooksConfig.enabled = true`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockDown {
    /// The key's path, outermost first.
    pub path: &'static [&'static str],
    /// Its value.
    pub value: bool,
}

impl LockDown {
    /// The key as a dotted path (`hooksConfig.enabled`).
    pub fn key(&self) -> String {
        self.path.join(".")
    }
}

impl SystemFile {
    /// The file's path on an OS whose folders follow `style`; `None` where hookhost does
    /// not know it.
    pub fn path(&self, style: FolderStyle) -> Option<&'static str> {
        match style {
            FolderStyle::Xdg => Some(self.linux),
            FolderStyle::MacOs => self.macos,
            FolderStyle::Windows => self.windows,
        }
    }
}

/// `file` (an absolute path) under `root`, a folder standing for the file system's root
/// (tests), or `file` itself without one.
pub fn under_root(root: Option<&Path>, file: &str) -> PathBuf {
    let Some(root) = root else {
        return PathBuf::from(file);
    };
    let mut path = root.to_path_buf();
    for part in Path::new(file).components() {
        if let Component::Normal(part) = part {
            path.push(part);
        }
    }
    path
}

/// Refuses a system-scope install or uninstall by anyone but an administrator: the file
/// must end up owned by the administrator, which a user's write would not be.
pub fn require_administrator() -> Result<(), InstallError> {
    if crate::platform::sys::ownership::is_administrator() {
        Ok(())
    } else {
        Err(InstallError::NotAdministrator)
    }
}

/// Sets (install) or removes (uninstall, where it holds the value install writes) each
/// lock-down key in a JSON settings object. Returns nothing: the caller compares texts.
pub(super) fn lock_down_json(root: &mut Map<String, Value>, locks: &[LockDown], action: Action) {
    for lock in locks {
        let Some((last, outer)) = lock.path.split_last() else {
            continue;
        };
        match action {
            Action::Install => {
                let mut at = &mut *root;
                for key in outer {
                    let entry = at
                        .entry(key.to_string())
                        .or_insert_with(|| Value::Object(Map::new()));
                    // Anything but an object there is no setting the agent reads (it would
                    // refuse or ignore it), so the lock-down takes its place.
                    if !entry.is_object() {
                        *entry = Value::Object(Map::new());
                    }
                    let Value::Object(next) = entry else {
                        return;
                    };
                    at = next;
                }
                at.insert(last.to_string(), Value::Bool(lock.value));
            }
            Action::Uninstall => remove_json(root, lock.path, lock.value),
        }
    }
}

/// Removes `path` when it holds `value`, and the objects that removing it left empty.
fn remove_json(at: &mut Map<String, Value>, path: &[&str], value: bool) {
    match path {
        [] => {}
        [last] => {
            if at.get(*last) == Some(&Value::Bool(value)) {
                at.shift_remove(*last);
            }
        }
        [first, rest @ ..] => {
            if let Some(Value::Object(inner)) = at.get_mut(*first) {
                remove_json(inner, rest, value);
                if inner.is_empty() {
                    at.shift_remove(*first);
                }
            }
        }
    }
}

/// [`lock_down_json`] for a TOML document's root table (`[features] hooks = true`).
pub(super) fn lock_down_toml(root: &mut toml_edit::Table, locks: &[LockDown], action: Action) {
    for lock in locks {
        match action {
            Action::Install => {
                let Some((last, outer)) = lock.path.split_last() else {
                    continue;
                };
                let mut at = &mut *root;
                for key in outer {
                    let entry = at
                        .entry(key)
                        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
                    // As for JSON: a non-table there is no setting Codex reads.
                    if !entry.is_table() {
                        *entry = toml_edit::Item::Table(toml_edit::Table::new());
                    }
                    let Some(next) = entry.as_table_mut() else {
                        return;
                    };
                    at = next;
                }
                at.insert(last, toml_edit::value(lock.value));
            }
            Action::Uninstall => remove_toml(root, lock.path, lock.value),
        }
    }
}

/// Removes `path` when it holds `value`, and the tables that removing it left empty.
fn remove_toml(at: &mut toml_edit::Table, path: &[&str], value: bool) {
    match path {
        [] => {}
        [last] => {
            if at.get(last).and_then(toml_edit::Item::as_bool) == Some(value) {
                at.remove(last);
            }
        }
        [first, rest @ ..] => {
            if let Some(inner) = at.get_mut(first).and_then(toml_edit::Item::as_table_mut) {
                remove_toml(inner, rest, value);
                if inner.is_empty() {
                    at.remove(first);
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "system_tests.rs"]
mod tests;
