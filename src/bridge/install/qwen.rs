//! Qwen Code's registration: `~/.qwen/settings.json` (user) or `.qwen/settings.json`
//! (project; Qwen Code runs project hooks in trusted folders only), Claude Code's shape: a
//! `PreToolUse` group matching every tool and a `UserPromptSubmit` group, each with one
//! `command` handler.
//!
//! The `timeout` is written in milliseconds and at least 1000: older Qwen Code reads it
//! in milliseconds, newer in seconds except that a value of 1000 or more is still taken as
//! milliseconds (`hook-timeout.ts`), so such a value means the same to both. Newer Qwen
//! Code has a per-hook `failMode: "closed"`; it is not written, since how an older one
//! treats the key is not known.

use super::{Event, Registration};
use serde_json::{Map, Value};

/// The bridge's default budget for a Qwen Code call: below Qwen Code's default timeout
/// (60 s in older versions; 600 s in newer ones).
pub const DEFAULT_BUDGET_MS: u64 = 25_000;

pub(super) const EVENTS: &[Event] = &[
    Event {
        name: "PreToolUse",
        matcher: Some("*"),
    },
    Event {
        name: "UserPromptSubmit",
        matcher: None,
    },
];

/// What Qwen Code does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Qwen Code lets the call through if hookhost is missing, crashes or outlives the \
     timeout (its hooks fail open; the failMode: \"closed\" of newer versions is not \
     written, since older ones may not take it); hookhost answers within its budget, below \
     that timeout.";

/// The handler object.
pub(super) fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("type".into(), "command".into());
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout".into(), registration.timeout.into());
    handler
}
