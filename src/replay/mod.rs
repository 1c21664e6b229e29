//! Replay, a front end beside `eval`: re-run a record's calls and prompts with every
//! hook's effect served from the record ([`served::ReplayExecutor`]), starting nothing,
//! and compare each verdict with the recorded one.
//!
//! Each session segment (`session.started`, each `session.resumed`) is replayed by a
//! host over the hooks it recorded, with the recorded `session_id`, `cwd` and
//! `permission_mode`, so the hooks' stdin is rebuilt byte for byte; `turn.ended` starts
//! a new turn as it did live. A verdict matches when its `--json` form is equal.

use std::sync::Arc;

use serde_json::Value;

pub mod served;

use served::{ReplayExecutor, ReplayStore};

use crate::call::{CallerFacts, ToolCall};
use crate::dispatch::{LoadedHook, Placement};
use crate::envelope::SessionInfo;
use crate::executor::CancellationToken;
use crate::record::{Body, Reading};
use crate::session::Session;

/// What a replay found.
#[derive(Debug, Clone, Default)]
pub struct ReplayReport {
    /// One row per gate (`✓ …` or `✗ …`).
    pub rows: Vec<String>,
    /// Gates replayed.
    pub gates: usize,
    /// Gates whose verdict matched.
    pub matched: usize,
    /// Runs served from the record.
    pub served: usize,
    /// Inputs not in the record, effects that cannot be served exactly, gates before
    /// any session.
    pub problems: Vec<String>,
}

impl ReplayReport {
    /// Every verdict matched and every run was served.
    pub fn all_matched(&self) -> bool {
        self.problems.is_empty() && self.matched == self.gates
    }

    /// The last line: how many matched.
    pub fn summary(&self) -> String {
        format!(
            "replay: {} of {} verdicts matched; {} hook runs served from the record, none started",
            self.matched, self.gates, self.served
        )
    }
}

/// Replays `reading`.
pub async fn replay(reading: &Reading) -> ReplayReport {
    let store = Arc::new(ReplayStore::new(reading.records.iter().filter_map(
        |r| match &r.body {
            Body::Effect(e) => Some(e.clone()),
            _ => None,
        },
    )));
    let cancel = CancellationToken::new();
    let mut report = ReplayReport::default();
    let mut replayed: Option<Session> = None;
    for (index, record) in reading.records.iter().enumerate() {
        match &record.body {
            Body::Started(s) | Body::Resumed(s) => {
                let hooks = s
                    .hooks
                    .iter()
                    .map(|def| LoadedHook {
                        def: def.clone(),
                        placement: Placement::Host,
                        executor: Arc::new(ReplayExecutor::new(&def.name, store.clone())),
                    })
                    .collect();
                let session = SessionInfo {
                    session_id: record.session_id.clone(),
                    cwd: s.cwd.clone(),
                    permission_mode: s.permission_mode.clone(),
                };
                let mut session = Session::with_hooks(session, hooks);
                // The messages name whose hooks these are, as the live session did.
                session.set_owner(s.owner);
                // A resume within a turn remembers which hooks already warned in it, as
                // the live resumed session did (`ResumePlan::warned_this_turn`).
                if matches!(record.body, Body::Resumed(_)) {
                    session.seed_turn(crate::record::resume::warned_this_turn(
                        &reading.records[..index],
                    ));
                }
                replayed = Some(session);
            }
            Body::Cut(c) => report
                .rows
                .push(crate::record::transcript::cut_row(&c.reason)),
            Body::TurnEnded => {
                if let Some(h) = &replayed {
                    h.end_turn();
                }
            }
            Body::Verdict(v) => {
                if replayed.is_none() {
                    report.problems.push(format!(
                        "line {}: a gate.verdict before any session record; not replayed",
                        record.line
                    ));
                    continue;
                }
                report.gates += 1;
                // A bridged gate whose hooks read Claude Code's shape is rebuilt from
                // what that input was made of, as the bridge ran it.
                if let Some(bridged) = &v.bridged
                    && let Some(h) = replayed.as_mut()
                {
                    h.set_default_envelope(bridged.default_envelope);
                }
                let Some(h) = &replayed else { continue };
                let caller = CallerFacts {
                    transcript_path: v.bridged.as_ref().and_then(|b| b.transcript_path.clone()),
                };
                let bridged_call = v.bridged.as_ref().and_then(|b| {
                    let tool = b.tool_name.clone()?;
                    let input = b.tool_input.clone().unwrap_or(Value::Null);
                    let mut call = ToolCall::claude(tool, input, v.gate.tool_use_id.clone());
                    call.unknown_to = b.unknown_to.clone();
                    Some(call)
                });
                let (what, verdict) = match (&v.gate.tool, bridged_call) {
                    (Some(tool), Some(call)) => {
                        let what = format!("{tool} {}", call.tool_use_id.as_deref().unwrap_or(""));
                        (what, h.pre_tool_use_call(&call, &caller, &cancel).await)
                    }
                    (None, _) if v.bridged.is_some() => {
                        let prompt = v.gate.prompt.as_deref().unwrap_or("");
                        (
                            format!("prompt {prompt:?}"),
                            h.prompt_from(prompt, &caller, &cancel).await,
                        )
                    }
                    (Some(tool), None) => {
                        // A call whose hooks read Claude Code's shape kept its arguments
                        // as given (paths absolute); the others, the spec's.
                        let input = v
                            .bridged
                            .as_ref()
                            .and_then(|b| b.tool_input.clone())
                            .or_else(|| v.tool_input.clone())
                            .unwrap_or(Value::Object(Default::default()));
                        let id = v.gate.tool_use_id.as_deref();
                        let what = format!("{tool} {}", id.unwrap_or(""));
                        (what, h.pre_tool_use(tool, input, id, &cancel).await)
                    }
                    (None, _) => {
                        let prompt = v.gate.prompt.as_deref().unwrap_or("");
                        (
                            format!("prompt {prompt:?}"),
                            h.prompt(prompt, &cancel).await,
                        )
                    }
                };
                let replayed = serde_json::to_value(&verdict).unwrap_or(Value::Null);
                if replayed == v.verdict {
                    report.matched += 1;
                    report
                        .rows
                        .push(format!("✓ {what}: {}", outcome(&replayed)));
                } else {
                    report.rows.push(format!(
                        "✗ {what}: recorded {}, replayed {}",
                        describe(&v.verdict),
                        describe(&replayed)
                    ));
                }
            }
            _ => {}
        }
    }
    report.served = store.served();
    report.problems.extend(store.problems());
    report
}

fn outcome(v: &Value) -> String {
    v["outcome"].as_str().unwrap_or("?").to_string()
}

fn describe(v: &Value) -> String {
    match v["message"].as_str() {
        Some(m) => format!("{} ({m})", outcome(v)),
        None => outcome(v),
    }
}

#[cfg(test)]
mod tests {
    //! A replay names whose hooks they are as the live session did: the session line's
    //! `owner`, and the user's for a record without one (every older record).
    use super::*;
    use crate::dispatch::{self, HookOwner};
    use crate::record::read::read_str;
    use serde_json::json;

    /// A bridged session of Claude Code whose one hook (`x`, `tools = ["bash"]`) blocked a
    /// call of a tool hookhost has no name for; the session line with `owner` (or none),
    /// the verdict with the message `recorded` names.
    fn record(owner: Option<&str>, recorded: HookOwner) -> String {
        let tools = ["bash".to_string()];
        let verdict =
            dispatch::unknown_tool_verdict(recorded, "x", &tools, "Claude Code", "Frobnicate");
        let mut started = json!({
            "type": "session.started", "at": "2026-01-01T00:00:00.000Z", "session_id": "s",
            "cwd": "/p", "permission_mode": "default", "no_hooks": false,
            "hooks": [{"name": "x", "event": "PreToolUse", "command": ["/hooks/x"],
                       "tools": ["bash"], "timeout": 10, "sandbox": false, "on_failure": "block"}],
            "banner": "hooks: x (bash)", "version": "test",
        });
        if let Some(owner) = owner {
            started["owner"] = json!(owner);
        }
        let decided = json!({
            "type": "hook.decided", "at": "2026-01-01T00:00:00.001Z", "session_id": "s",
            "hook": "x", "tool": "Frobnicate", "tool_use_id": "t1", "decision": "block",
            "reason": "no",
        });
        let gate = json!({
            "type": "gate.verdict", "at": "2026-01-01T00:00:00.002Z", "session_id": "s",
            "tool": "Frobnicate", "tool_use_id": "t1",
            "verdict": serde_json::to_value(&verdict).unwrap(),
            "bridged": {"default_envelope": "claude-code", "tool_name": "Frobnicate",
                        "tool_input": {}, "unknown_to": "Claude Code"},
        });
        format!("{started}\n{decided}\n{gate}\n")
    }

    async fn matched(text: &str) -> usize {
        let report = replay(&read_str(text)).await;
        assert_eq!(report.gates, 1, "{:?}", report.rows);
        report.matched
    }

    #[tokio::test]
    async fn a_system_session_replays_with_the_administrators_wording() {
        let system = record(Some("administrator"), HookOwner::Administrator);
        assert_eq!(matched(&system).await, 1);
        let rows = crate::record::transcript::rows(&read_str(&system));
        assert!(
            rows.contains(&"blocked by the administrator's hook \"x\": no".to_string()),
            "{rows:?}"
        );
        // The administrator's wording is not what a user's session says.
        let told_wrong = record(None, HookOwner::Administrator);
        assert_eq!(matched(&told_wrong).await, 0);
    }

    #[tokio::test]
    async fn a_record_without_an_owner_replays_as_the_users() {
        let old = record(None, HookOwner::User);
        assert_eq!(matched(&old).await, 1);
        let rows = crate::record::transcript::rows(&read_str(&old));
        assert!(
            rows.contains(&"blocked by the user's hook \"x\": no".to_string()),
            "{rows:?}"
        );
    }

    #[test]
    fn the_owner_is_written_only_for_the_administrator() {
        let text = record(Some("administrator"), HookOwner::Administrator);
        let reading = read_str(&text);
        let Body::Started(s) = &reading.records[0].body else {
            panic!("no session line")
        };
        assert_eq!(s.owner, HookOwner::Administrator);
        let written = serde_json::to_value(s).unwrap();
        assert_eq!(written["owner"], "administrator");
        let user = crate::record::SessionBody {
            owner: HookOwner::User,
            ..s.clone()
        };
        assert!(serde_json::to_value(&user).unwrap().get("owner").is_none());
    }
}
