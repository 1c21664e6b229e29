//! Codex's registration: `~/.codex/config.toml` (or `$CODEX_HOME/config.toml`; user) or
//! `.codex/config.toml` (project; Codex reads it once the project is trusted): a
//! `[[hooks.PreToolUse]]` group matching every tool and a `[[hooks.UserPromptSubmit]]` group,
//! each with one `[[…hooks]]` command handler whose `timeout` is in seconds (research 1.2).
//!
//! Codex asks the user to trust a hook again when its command or timeout changes (the trust
//! is a hash of them), so both stay stable from one install to the next.

use super::{Event, Registration};

/// The bridge's default budget for a Codex call: well below Codex's default timeout (600 s),
/// and above a hook's default timeout (30 s) so that a slow hook meets its own first.
pub const DEFAULT_BUDGET_MS: u64 = 50_000;

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

/// What Codex does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Codex lets the call through if hookhost is missing, crashes or outlives the timeout \
     (it has no fail-closed setting; openai/codex#41979 asks for one); hookhost answers \
     within its budget, below that timeout.";

/// The handler's keys and values, in order.
pub(super) fn handler(registration: &Registration) -> Vec<(&'static str, toml_edit::Value)> {
    vec![
        ("type", "command".into()),
        ("command", registration.command_line.as_str().into()),
        (
            "timeout",
            i64::try_from(registration.timeout)
                .unwrap_or(i64::MAX)
                .into(),
        ),
    ]
}
