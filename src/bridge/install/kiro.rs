//! Kiro CLI's registration: an agent file of hookhost's own, `~/.kiro/agents/hookhost.json`
//! (user) or `.kiro/agents/hookhost.json` (project), `{"name", "description", "tools",
//! "hooks": {EVENT: [HANDLER]}}`, each handler with `command`, `timeout_ms` and
//! `cache_ttl_seconds: 0` (a cached answer would be reused for a later call with other
//! arguments: the cache key is the hook, not the call). No `matcher`: every tool.
//!
//! Kiro runs an agent file's hooks only while that agent is the one chatting, so
//! `install` says how to make it so (`kiro-cli chat --agent hookhost`, or the default).
//! Amazon Q Developer CLI, Kiro CLI's predecessor, reads the same file from
//! `~/.aws/amazonq/cli-agents/`: copying it there registers the bridge for it too.

use super::{Event, Registration};
use serde_json::{Map, Value};

/// The bridge's default budget for a Kiro CLI call: below the 10 s default hook timeout
/// of Kiro's newer engine (30 s in the older one), in case `timeout_ms` is removed.
pub const DEFAULT_BUDGET_MS: u64 = 8_000;

pub(super) const EVENTS: &[Event] = &[
    Event {
        name: "preToolUse",
        matcher: None,
    },
    Event {
        name: "userPromptSubmit",
        matcher: None,
    },
];

/// What Kiro CLI does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Kiro CLI lets the call through if hookhost is missing, crashes or outlives timeout_ms \
     (its hooks fail open, and it has no fail-closed setting); hookhost answers within its \
     budget, below that timeout. The hooks run while the agent \"hookhost\" chats: \
     `kiro-cli chat --agent hookhost`, or make it the default with \
     `kiro-cli settings chat.defaultAgent hookhost`.";

/// The agent file's own keys, for a file hookhost creates.
pub(super) fn new_agent_file() -> Map<String, Value> {
    let mut agent = Map::new();
    agent.insert("name".into(), "hookhost".into());
    agent.insert(
        "description".into(),
        "The default tools, with the user's hooks run by hookhost before every call and on every prompt"
            .into(),
    );
    agent.insert("tools".into(), Value::Array(vec!["*".into()]));
    agent
}

/// The handler object.
pub(super) fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout_ms".into(), registration.timeout.into());
    handler.insert("cache_ttl_seconds".into(), 0.into());
    handler
}
