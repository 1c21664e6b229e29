//! The bridge's own tests: events read, answers written, across the agents.
use super::*;
use crate::dispatch::{ContextBlock, HookOwner, Outcome as GateOutcome};

#[test]
fn every_agent_is_named_once_by_its_flag() {
    for kind in AgentKind::ALL {
        assert_eq!(kind.protocol().kind(), kind);
        assert_eq!(AgentKind::from_flag(kind.flag_name()), Some(kind));
    }
    assert_eq!(AgentKind::from_flag("claude"), None);
}

fn verdict(outcome: GateOutcome, message: Option<&str>) -> Verdict {
    Verdict {
        outcome,
        message: message.map(str::to_string),
        hook: message.map(|_| "h".to_string()),
        context: Vec::new(),
        warnings: Vec::new(),
    }
}

#[test]
fn a_verdict_becomes_an_outcome() {
    assert_eq!(
        Ruling::from_verdict(&Verdict::allow(), HookOwner::User),
        Ruling::no_objection()
    );
    let blocked = verdict(
        GateOutcome::Block,
        Some("blocked by the user's hook \"h\": no"),
    );
    assert_eq!(
        Ruling::from_verdict(&blocked, HookOwner::User)
            .block
            .as_deref(),
        Some("blocked by the user's hook \"h\": no")
    );
    let interrupted = verdict(GateOutcome::Interrupted, Some("interrupted"));
    assert_eq!(
        Ruling::from_verdict(&interrupted, HookOwner::User)
            .block
            .as_deref(),
        Some("interrupted")
    );
    let mut with_context = Verdict::allow();
    with_context.context = vec![
        ContextBlock {
            hook: "a".into(),
            text: "one".into(),
            owner: HookOwner::User,
        },
        ContextBlock {
            hook: "b".into(),
            text: "two".into(),
            owner: HookOwner::User,
        },
    ];
    with_context.warnings = vec!["⚠ w".into()];
    let outcome = Ruling::from_verdict(&with_context, HookOwner::User);
    assert_eq!(
        outcome.context.as_deref(),
        Some(
            "Context from the user's hook \"a\":\none\n\nContext from the user's hook \"b\":\ntwo"
        )
    );
    assert_eq!(outcome.context_hooks, ["a", "b"]);
    assert_eq!(outcome.warning_text().as_deref(), Some("⚠ w"));
    // A system session's context names the administrator in its frame.
    with_context.context[0].owner = HookOwner::Administrator;
    assert_eq!(
        Ruling::from_verdict(&with_context, HookOwner::User)
            .context
            .as_deref(),
        Some(
            "Context from the administrator's hook \"a\":\none\n\nContext from the user's hook \"b\":\ntwo"
        )
    );
}

/// A block that came without a message names whose hook it was, as every message does;
/// a message of its own is kept whoever's hook it was.
#[test]
fn a_block_without_a_message_names_whose_hook_it_is() {
    let own = "blocked by the user's hook \"h\": no";
    for (outcome, message, owner, want) in [
        (
            GateOutcome::Block,
            None,
            HookOwner::User,
            "blocked by the user's hook",
        ),
        (
            GateOutcome::Block,
            None,
            HookOwner::Administrator,
            "blocked by the administrator's hook",
        ),
        (
            GateOutcome::Interrupted,
            None,
            HookOwner::Administrator,
            "blocked by the administrator's hook",
        ),
        (GateOutcome::Block, Some(own), HookOwner::Administrator, own),
    ] {
        let ruling = Ruling::from_verdict(&verdict(outcome, message), owner);
        assert_eq!(ruling.block.as_deref(), Some(want), "{owner:?}");
    }
}

#[test]
fn a_refusal_is_a_block_with_its_text() {
    let refusal = "hook no-force-push: /p/hooks/check.sh is in the project, so the agent could change it. Move it outside (for example ~/.local/share/harness/hooks/), or start with --no-hooks.\n";
    assert_eq!(
        Ruling::refused(refusal).block.as_deref(),
        Some(refusal.trim_end())
    );
}

#[test]
fn a_session_record_is_keyed_by_agent_and_a_safe_id() {
    let env = crate::env::Environment::from_vars(vec![("XDG_STATE_HOME".into(), "/s".into())]);
    let path = |id: &str| record_path(&env, AgentKind::Codex, id).unwrap();
    assert_eq!(
        path("abc-1.2_3"),
        std::path::Path::new("/s/hookhost/codex/abc-1.2_3.jsonl")
    );
    let hashed = path("../../etc/x");
    assert_eq!(
        hashed.parent(),
        Some(std::path::Path::new("/s/hookhost/codex"))
    );
    let name = hashed.file_name().unwrap().to_str().unwrap();
    assert_eq!(name.len(), "sha256=".len() + 64 + ".jsonl".len());
    assert_ne!(path(".."), path("."));
    assert_eq!(record_path(&env, AgentKind::Codex, ""), None);
}

#[test]
fn notes_are_one_line() {
    let note = other_event_note(AgentKind::Gemini, "After\nTool");
    assert_eq!(
        note,
        "hookhost: Gemini CLI event \"After Tool\" has no hookhost hooks; no objection."
    );
    assert_eq!(
        Reply::silent().with_note("a\n").with_note("b").stderr,
        "a\nb\n"
    );
}

#[test]
fn every_agent_refuses_unreadable_payloads_and_never_answers_allow_for_no_objection() {
    use crate::bridge::test_support as outcomes;

    /// Every `(key, string value)` in a JSON answer, at any depth; `continue: false`
    /// as `("continue", "false")`.
    fn strings<'a>(key: &'a str, v: &'a Value, out: &mut Vec<(&'a str, &'a str)>) {
        match v {
            Value::String(s) => out.push((key, s)),
            Value::Bool(false) if key == "continue" => out.push((key, "false")),
            Value::Array(items) => items.iter().for_each(|i| strings(key, i, out)),
            Value::Object(map) => map.iter().for_each(|(k, v)| strings(k, v, out)),
            _ => {}
        }
    }
    /// The answer's stdout as JSON (`Null` when empty or plain text, as Kimi's and
    /// Kiro's prompt context is).
    /// The answer's JSON: on stdout, or on stderr where the agent reads it there (Qwen
    /// Code's refusal).
    fn json_of(reply: &Reply) -> Value {
        let text = match reply.stderr_is_json {
            true => &reply.stderr,
            false => &reply.stdout,
        };
        serde_json::from_str(text).unwrap_or(Value::Null)
    }
    /// The decisions the answer's JSON states: `decision`, `permissionDecision`,
    /// `permission`, and `continue: false`.
    fn decisions(json: &Value) -> Vec<String> {
        let mut found = Vec::new();
        strings("", json, &mut found);
        found
            .into_iter()
            .filter(|(k, _)| {
                matches!(
                    *k,
                    "decision" | "permissionDecision" | "permission" | "continue"
                )
            })
            .map(|(_, v)| v.to_string())
            .collect()
    }

    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agents");
    for kind in AgentKind::ALL {
        let agent = kind.protocol();
        // Unreadable: whatever is not one JSON object is refused, and the refusal
        // denies (exit 2 with the reason on stderr, or a JSON deny carrying it; Copilot
        // CLI's, a tool call's deny and a prompt's block in one; Qwen Code's, exit 2 with
        // such a JSON on stderr).
        for payload in [
            Value::String("x".into()),
            Value::Null,
            Value::from(7),
            Value::Bool(true),
            serde_json::json!([{"hook_event_name": "PreToolUse"}]),
        ] {
            let error = agent.parse(&payload).expect_err("not an object");
            assert_eq!(error, BridgeError::NotAnObject { agent: kind }, "{payload}");
            let reason = unreadable_message(&error);
            let refused = agent.refuse(&reason);
            let json = json_of(&refused);
            let mut said = Vec::new();
            strings("", &json, &mut said);
            let by_exit = refused.exit_code == 2
                && refused.stdout.is_empty()
                && refused.stderr == format!("{reason}\n");
            let by_json = (refused.exit_code == 0 || refused.stderr_is_json)
                && !decisions(&json).is_empty()
                && decisions(&json)
                    .iter()
                    .all(|d| d == "deny" || d == "block" || d == "false")
                && said.iter().any(|(_, s)| *s == reason);
            assert!(by_exit || by_json, "{kind:?} does not deny: {refused:?}");
            assert!(
                !said.iter().any(|(_, s)| s.eq_ignore_ascii_case("allow")),
                "{kind:?}: {refused:?}"
            );
        }

        // No objection (bare, with a warning, with context) on every event of the
        // agent's samples and on an event the bridge has no hooks for: never `allow`,
        // and never a deny. The one exception is Cursor's permission events, where
        // `allow` is the only answer that is not a deny (a `failClosed` hook).
        let folder = samples.join(kind.flag_name());
        let mut events: Vec<(String, Event)> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .map(|entry| {
                let path = entry.unwrap().path();
                let text = std::fs::read_to_string(&path).unwrap();
                let event = agent
                    .parse(&outcomes::payload(&text))
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                (path.display().to_string(), event)
            })
            .collect();
        let has = |is: fn(&Event) -> bool| events.iter().any(|(_, e)| is(e));
        assert!(
            has(|e| matches!(e, Event::PreToolUse { .. })),
            "{}: no sample of a tool call",
            folder.display()
        );
        assert!(
            has(|e| matches!(e, Event::Prompt { .. })),
            "{}: no sample of a prompt",
            folder.display()
        );
        events.push((
            "an event with no hooks".into(),
            Event::Other {
                event_name: "SessionStart".into(),
            },
        ));
        for (sample, event) in &events {
            let permission_event =
                kind == AgentKind::Cursor && matches!(event, Event::PreToolUse { .. });
            if permission_event {
                assert!(
                    cursor::PERMISSION_EVENTS.contains(&event.event_name()),
                    "{sample}"
                );
            }
            for outcome in [
                Ruling::no_objection(),
                outcomes::continued_call(),
                outcomes::context(),
            ] {
                let reply = agent.answer(event, &outcome);
                let json = json_of(&reply);
                let mut said = Vec::new();
                strings("", &json, &mut said);
                let at = format!("{kind:?}, {sample}, {outcome:?}: {reply:?}");
                assert_eq!(reply.exit_code, 0, "{at}");
                if permission_event {
                    assert_eq!(json, serde_json::json!({"permission": "allow"}), "{at}");
                    continue;
                }
                assert!(decisions(&json).is_empty(), "{at}");
                assert!(
                    !said.iter().any(|(_, s)| s.eq_ignore_ascii_case("allow")),
                    "{at}"
                );
                assert!(!reply.stdout.trim().eq_ignore_ascii_case("allow"), "{at}");
            }
        }
    }
}
