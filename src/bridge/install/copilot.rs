//! Copilot CLI's registration: hookhost's own file `~/.copilot/hooks/hookhost.json` (or
//! `$COPILOT_HOME/hooks/`; user) or `.github/hooks/hookhost.json` (project),
//! `{"version": 1, "hooks": {EVENT: [HANDLER]}}` with the camelCase events `preToolUse` and
//! `userPromptSubmitted`; each handler runs the binary with no shell (`exec` + `args`) and
//! has `timeoutSec` (docs/agents.md#copilot-cli).
//!
//! Copilot CLI 1.0.102 obeys a command hook's top-level `{"decision":"block"}` and
//! `{"additionalContext"}` on `userPromptSubmitted`, so prompt hooks act there too.

use super::{Event, Registration};
use serde_json::{Map, Value};

/// The bridge's default budget for a Copilot CLI call: below Copilot's default timeout
/// (30 s).
pub const DEFAULT_BUDGET_MS: u64 = 25_000;

pub(super) const EVENTS: &[Event] = &[
    Event {
        name: "preToolUse",
        matcher: None,
    },
    Event {
        name: "userPromptSubmitted",
        matcher: None,
    },
];

/// What Copilot CLI does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Copilot CLI denies a tool call if hookhost is missing or crashes (newer versions; \
     older ones skip the hook), and lets it through if hookhost outlives the timeout (it has \
     no fail-closed setting).";

/// The handler object.
pub(super) fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("type".into(), "command".into());
    handler.insert(
        "exec".into(),
        registration.program.to_string_lossy().into_owned().into(),
    );
    handler.insert(
        "args".into(),
        Value::Array(registration.args.iter().cloned().map(Value::from).collect()),
    );
    handler.insert("timeoutSec".into(), registration.timeout.into());
    handler
}
