//! Kimi Code's registration: `~/.kimi-code/config.toml` (or `$KIMI_CODE_HOME/config.toml`),
//! a `[[hooks]]` table per event (`event`, `matcher`, `command`, `timeout` in whole
//! seconds, 1 to 600), edited with `toml_edit` so that comments and other keys survive.
//! Kimi Code refuses a config with a key it does not know, so nothing else is written (no
//! `fail_mode`, which only newer versions document). Kimi Code has no project settings
//! file: `--scope project` is refused.

use std::path::Path;

use toml_edit::{ArrayOfTables, Item, Table, Value};

use super::toml::{is_ours, parse, unexpected};
use super::{Action, Edited, Event, InstallError, Layout, Ours, Registration};

/// The bridge's default budget for a Kimi Code call: below Kimi's default hook timeout
/// (30 s).
pub const DEFAULT_BUDGET_MS: u64 = 25_000;

pub(super) const EVENTS: &[Event] = &[
    // An empty matcher is every tool (a JavaScript regex over the tool's name).
    Event {
        name: "PreToolUse",
        matcher: Some(""),
    },
    // On this event the matcher would match the prompt's text: none is written.
    Event {
        name: "UserPromptSubmit",
        matcher: None,
    },
];

/// What Kimi Code does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Kimi Code lets the call through if hookhost is missing, crashes or outlives the \
     timeout (its hooks fail open, and it refuses keys it does not know, so no fail-closed \
     setting is written); hookhost answers within its budget, below that timeout.";

/// Edits `config.toml` at `path`, whose text is `existing`.
pub(super) fn edit(
    path: &Path,
    existing: Option<&str>,
    layout: &Layout,
    registration: &Registration,
    action: Action,
    ours: &Ours,
) -> Result<Edited, InstallError> {
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
                for event in layout.events {
                    install_event(hooks, event, registration, ours);
                }
            }
            Action::Uninstall => hooks.retain(|t| !is_ours(ours, t)),
        }
        now_empty = hooks.is_empty();
    }
    if action == Action::Uninstall && now_empty {
        root.remove("hooks");
    }
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
    event: &Event,
    registration: &Registration,
    ours: &Ours,
) {
    let is_this =
        |t: &Table| is_ours(ours, t) && t.get("event").and_then(Item::as_str) == Some(event.name);
    let desired = desired(event, registration);
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

/// The keys of hookhost's table for `event`, in order.
fn desired(event: &Event, registration: &Registration) -> Vec<(&'static str, Value)> {
    let mut keys = vec![("event", Value::from(event.name))];
    if let Some(matcher) = event.matcher {
        keys.push(("matcher", Value::from(matcher)));
    }
    keys.push(("command", Value::from(registration.command_line.as_str())));
    keys.push((
        "timeout",
        Value::from(i64::try_from(registration.timeout.min(600)).unwrap_or(600)),
    ));
    keys
}
