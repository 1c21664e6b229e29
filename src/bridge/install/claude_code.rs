//! Claude Code's registration: `~/.claude/settings.json` (user) or `.claude/settings.json`
//! (project); a `PreToolUse` group matching every tool and a `UserPromptSubmit` group, each
//! with one `command` handler whose `timeout` is in seconds (docs/agents.md#claude-code).
//!
//! The command is a shell line (`sh -c`), not the `command` + `args` exec form, which needs
//! Claude Code 2.1.139 or later. `onFailure: "block"` (fail closed) is written only when
//! [`super::Options::claude_on_failure_block`] asks: the research found it only in a third
//! party's code (for Claude Code 2.1.295 and later), not in Claude Code's documentation up to
//! 2.1.240, so it is unverified and left out by default.

use super::{Event, Registration};
use serde_json::{Map, Value};

/// The bridge's default budget for a Claude Code call: below Claude Code's shortest default
/// timeout (30 s for `UserPromptSubmit`; 600 s for tools).
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
    // So that a change to this registration is seen while Claude Code runs (pin.rs).
    Event {
        name: "ConfigChange",
        matcher: None,
    },
];

/// What Claude Code does when hookhost cannot answer, without `onFailure`.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Claude Code lets the call through if hookhost is missing, crashes or outlives \
     the timeout (its documented hooks fail open); hookhost answers within its budget, \
     below that timeout.";

/// The first Claude Code with `onFailure` (docs/agents.md#claude-code).
pub const ON_FAILURE_SINCE: (u64, u64, u64) = (2, 1, 295);

/// Whether `claude --version`'s output names a Claude Code with `onFailure`; `None` when
/// it names no version.
pub fn supports_on_failure(version_output: &str) -> Option<bool> {
    let version = version_output.split_whitespace().find_map(|word| {
        let mut parts = word.split('.').map(|p| p.parse::<u64>().ok());
        match (parts.next()??, parts.next()??, parts.next()??) {
            (major, minor, patch) if parts.next().is_none() => Some((major, minor, patch)),
            _ => None,
        }
    })?;
    Some(version >= ON_FAILURE_SINCE)
}

/// What Claude Code does when hookhost cannot answer, with `onFailure: "block"`.
pub const WHEN_HOOKHOST_CANNOT_ANSWER_BLOCKING: &str = "Claude Code blocks the call if hookhost is missing, crashes or outlives the \
     timeout (onFailure: \"block\", Claude Code 2.1.295 and later; an older one ignores it \
     and lets the call through).";

/// The handler object.
pub(super) fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("type".into(), "command".into());
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout".into(), registration.timeout.into());
    if let Some(setting) = registration.fail_closed {
        handler.insert(setting.key().into(), setting.value());
    }
    handler
}
