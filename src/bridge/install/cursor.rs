//! Cursor's registration: `~/.cursor/hooks.json` (user) or `.cursor/hooks.json` (project),
//! `{"version": 1, "hooks": {EVENT: [HANDLER]}}`; every pre-tool event (`preToolUse`,
//! `beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`) and the prompt event
//! (`beforeSubmitPrompt`), each handler with a `timeout` in seconds and `failClosed: true`
//! (docs/agents.md#cursor).
//!
//! With `failClosed`, Cursor counts an empty answer as a failure (docs/agents.md#cursor, second-hand),
//! so the bridge prints an answer to every Cursor event.

use super::{Event, Registration};
use serde_json::{Map, Value};

/// The bridge's default budget for a Cursor call. Cursor's default timeout is not
/// documented ("platform default"), so this is the same as for the 30 s agents.
pub const DEFAULT_BUDGET_MS: u64 = 25_000;

pub(super) const EVENTS: &[Event] = &[
    Event {
        name: "preToolUse",
        matcher: None,
    },
    Event {
        name: "beforeShellExecution",
        matcher: None,
    },
    Event {
        name: "beforeMCPExecution",
        matcher: None,
    },
    Event {
        name: "beforeReadFile",
        matcher: None,
    },
    Event {
        name: "beforeSubmitPrompt",
        matcher: None,
    },
];

/// What Cursor does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Cursor blocks the call if hookhost is missing, crashes, outlives the timeout or \
     answers something that is not JSON (failClosed: true).";

/// The handler object.
pub(super) fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout".into(), registration.timeout.into());
    if let Some(setting) = registration.fail_closed {
        handler.insert(setting.key().into(), setting.value());
    }
    handler
}
