//! The TOML settings of Kimi Code's shape: a `[[hooks]]` table per handler, each naming
//! its `event` (`event`, `matcher`, `command`, `timeout`), edited with `toml_edit` so that
//! comments and other keys survive.

use toml_edit::{ArrayOfTables, Item, Table};

use super::toml::{is_ours, parse, unexpected};
use super::{Action, Edit, Edited, InstallError, Ours, RegisteredEvent};
use crate::bridge::FlatTomlHandler;

/// Edits `config.toml` at `path`, whose text is `existing`.
pub(super) fn edit(edit: &Edit, handler: FlatTomlHandler) -> Result<Edited, InstallError> {
    let Edit {
        path,
        existing,
        settings,
        registration,
        action,
        ours,
        lock_down,
    } = *edit;
    let mut doc = parse(path, existing.unwrap_or(""))?;
    let original = doc.to_string();
    let root = doc.as_table_mut();
    if action == Action::Install && !root.contains_key("hooks") {
        root.insert("hooks", Item::ArrayOfTables(ArrayOfTables::new()));
    }
    let mut found = false;
    let mut now_empty = false;
    if let Some(item) = root.get_mut("hooks") {
        let hooks = item
            .as_array_of_tables_mut()
            .ok_or_else(|| unexpected(path, "hooks".into(), "[[hooks]] tables"))?;
        found = hooks.iter().any(|t| is_ours(ours, t));
        match action {
            Action::Install => {
                for event in settings.events {
                    install_event(hooks, event, handler(event, registration), ours);
                }
            }
            Action::Uninstall => hooks.retain(|t| !is_ours(ours, t)),
        }
        now_empty = hooks.is_empty();
    }
    if action == Action::Uninstall && now_empty {
        root.remove("hooks");
    }
    super::system::lock_down_toml(doc.as_table_mut(), lock_down, action);
    let text = doc.to_string();
    let changed = text != original;
    let text = match action {
        Action::Uninstall if found && text.trim().is_empty() => None,
        _ => Some(text),
    };
    Ok(Edited {
        text,
        changed,
        found,
    })
}

/// Makes hookhost's `[[hooks]]` table for `event` what `registration` says: updates the
/// first one in place (its comments stay), drops any more, or adds one at the end.
fn install_event(
    hooks: &mut ArrayOfTables,
    event: &RegisteredEvent,
    desired: Vec<(&'static str, toml_edit::Value)>,
    ours: &Ours,
) {
    let is_this =
        |t: &Table| is_ours(ours, t) && t.get("event").and_then(Item::as_str) == Some(event.name);
    let mut seen = false;
    hooks.retain(|t| {
        if !is_this(t) {
            return true;
        }
        let first = !seen;
        seen = true;
        first
    });
    let position = hooks.iter().position(is_this);
    match position.and_then(|i| hooks.get_mut(i)) {
        Some(table) => {
            for (key, value) in &desired {
                let same = table
                    .get(key)
                    .and_then(Item::as_value)
                    .is_some_and(|v| v.to_string().trim() == value.to_string().trim());
                if !same {
                    table.insert(key, Item::Value(value.clone()));
                }
            }
            // A key hookhost does not write (a `matcher` on the prompt event) goes.
            let extra: Vec<String> = table
                .iter()
                .map(|(k, _)| k.to_string())
                .filter(|k| !desired.iter().any(|(d, _)| d == k))
                .collect();
            for key in extra {
                table.remove(&key);
            }
        }
        None => {
            let mut table = Table::new();
            for (key, value) in desired {
                table.insert(key, Item::Value(value));
            }
            hooks.push(table);
        }
    }
}
