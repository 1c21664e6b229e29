//! Gemini CLI's registration: `~/.gemini/settings.json` (user) or `.gemini/settings.json`
//! (project); a `BeforeTool` group matching every tool and a `BeforeAgent` group (the prompt
//! event), each with one named `command` handler whose `timeout` is in milliseconds
//! (docs/agents.md#gemini-cli). Gemini fingerprints project hooks by `name:command`, so both stay stable.

use super::{Event, Registration};
use serde_json::{Map, Value};

/// The bridge's default budget for a Gemini CLI call: below Gemini's default timeout
/// (60 000 ms).
pub const DEFAULT_BUDGET_MS: u64 = 50_000;

pub(super) const EVENTS: &[Event] = &[
    Event {
        name: "BeforeTool",
        matcher: Some("*"),
    },
    Event {
        name: "BeforeAgent",
        matcher: None,
    },
];

/// What Gemini CLI does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Gemini CLI lets the call through if hookhost crashes silently or outlives the \
     timeout (it has no fail-closed setting); a hookhost that is missing (exit 127 with a \
     message on stderr) is a deny. hookhost answers within its budget, below that timeout.";

/// The name of hookhost's handler (`hooksConfig.disabled` switches a hook off by it).
pub(super) const HANDLER_NAME: &str = "hookhost";

/// The handler object.
pub(super) fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("name".into(), HANDLER_NAME.into());
    handler.insert("type".into(), "command".into());
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout".into(), registration.timeout.into());
    handler
}
