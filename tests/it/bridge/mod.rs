//! `hookhost bridge`, `hookhost install` and `hookhost uninstall` through the real binary:
//! each agent's sample payload (`examples/agents/`) answered in that agent's own form
//! (stdout, stderr, exit status), hooks written for Claude Code run behind the bridge,
//! records shared by the calls of one agent session, the time budget, and the settings
//! files `install` edits.
//!
//! Each agent's answers are here; Claude Code's hooks behind the bridge, sessions and the
//! budget, install, and the defences against the agent have modules of their own.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Scene, process_alive, run, run_with_stdin};

/// The agents: flag name, pre-tool sample, prompt sample.
const AGENTS: [(&str, &str, &str); 8] = [
    (
        "claude-code",
        "claude-code/PreToolUse.json",
        "claude-code/UserPromptSubmit.json",
    ),
    (
        "codex",
        "codex/PreToolUse.json",
        "codex/UserPromptSubmit.json",
    ),
    (
        "gemini",
        "gemini/BeforeTool.json",
        "gemini/BeforeAgent.json",
    ),
    (
        "cursor",
        "cursor/beforeShellExecution.json",
        "cursor/beforeSubmitPrompt.json",
    ),
    (
        "copilot",
        "copilot/preToolUse.json",
        "copilot/userPromptSubmitted.json",
    ),
    (
        "qwen-code",
        "qwen-code/PreToolUse.json",
        "qwen-code/UserPromptSubmit.json",
    ),
    (
        "kimi-code",
        "kimi-code/PreToolUse.json",
        "kimi-code/UserPromptSubmit.json",
    ),
    ("kiro", "kiro/preToolUse.json", "kiro/userPromptSubmit.json"),
];

/// A sample payload from `examples/agents/`, its folders moved to `scene`'s project.
pub(crate) fn sample(scene: &Scene, file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/agents")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut payload: Value = serde_json::from_str(&text).unwrap();
    let project = scene.project.to_str().unwrap();
    if payload.get("cwd").is_some() {
        payload["cwd"] = json!(project);
    }
    if payload.get("workspace_roots").is_some() {
        payload["workspace_roots"] = json!([project]);
    }
    payload
}

/// The payload with its shell command set to `command` (each agent keeps it elsewhere).
pub(crate) fn with_command(mut payload: Value, command: &str) -> Value {
    if payload.get("tool_input").is_some_and(Value::is_object) {
        payload["tool_input"]["command"] = json!(command);
    } else if let Some(args) = payload.get("toolArgs").and_then(Value::as_str) {
        let mut args: Value = serde_json::from_str(args).unwrap();
        args["command"] = json!(command);
        payload["toolArgs"] = json!(args.to_string());
    } else {
        payload["command"] = json!(command);
    }
    payload
}

/// The payload with its session id set to `id` (each agent names it differently).
pub(crate) fn with_session(mut payload: Value, id: &str) -> Value {
    for key in ["session_id", "sessionId", "conversation_id"] {
        if payload.get(key).is_some() {
            payload[key] = json!(id);
        }
    }
    payload
}

/// `hookhost [--no-sandbox] bridge ARGS` with `payload` on stdin: (code, stdout, stderr).
fn bridge(scene: &Scene, args: &[&str], payload: &str) -> (i32, String, String) {
    run_with_stdin(
        scene
            .hookhost()
            .arg("--no-sandbox")
            .arg("bridge")
            .args(args),
        payload.as_bytes(),
    )
}

pub(crate) fn bridge_json(scene: &Scene, agent: &str, payload: &Value) -> (i32, String, String) {
    bridge(scene, &["--agent", agent], &payload.to_string())
}

/// [`bridge_json`] with `extra` arguments after the agent's.
pub(crate) fn bridge_json_with(
    scene: &Scene,
    agent: &str,
    payload: &Value,
    extra: &[&str],
) -> (i32, String, String) {
    let mut args = vec!["--agent", agent];
    args.extend(extra);
    bridge(scene, &args, &payload.to_string())
}

/// The deny reason of a pre-tool answer in `agent`'s form, or `None` when it is not a deny.
pub(crate) fn deny_reason(
    agent: &str,
    (code, stdout, stderr): &(i32, String, String),
) -> Option<String> {
    if agent == "codex" || agent == "kimi-code" || agent == "kiro" {
        return (*code == 2).then(|| stderr.lines().next().unwrap_or_default().to_string());
    }
    assert_eq!(*code, 0, "{agent}: {stdout} {stderr}");
    let answer: Value = serde_json::from_str(stdout).ok()?;
    let reason = match agent {
        "claude-code" | "qwen-code" => (answer["hookSpecificOutput"]["permissionDecision"]
            == "deny")
            .then(|| answer["hookSpecificOutput"]["permissionDecisionReason"].clone()),
        "gemini" => (answer["decision"] == "deny").then(|| answer["reason"].clone()),
        "cursor" => (answer["permission"] == "deny").then(|| answer["agent_message"].clone()),
        "copilot" => (answer["permissionDecision"] == "deny")
            .then(|| answer["permissionDecisionReason"].clone()),
        other => panic!("unknown agent {other}"),
    }?;
    Some(reason.as_str().unwrap_or_default().to_string())
}

/// Whether Claude Code's `reply` is the deny of a session start that outlived a budget of
/// `budget_ms` (docs/threats.md#n6), which says how to fill the compile cache.
pub(crate) fn is_late_start_deny(reply: &(i32, String, String), budget_ms: u64) -> bool {
    let start = format!(
        "hookhost could not start its hooks within {budget_ms} ms, the bridge's budget for one call"
    );
    deny_reason("claude-code", reply).is_some_and(|r| r.starts_with(&start))
}

/// A deny reason as the bridge sends it to `agent`: Codex adds a period after the reason
/// itself (`Command blocked by PreToolUse hook: <reason>. Command: …`), so it gets the
/// message without its last one.
pub(crate) fn as_sent<'a>(agent: &str, message: &'a str) -> &'a str {
    match agent {
        "codex" => message.strip_suffix('.').unwrap_or(message),
        _ => message,
    }
}

/// Asserts the exact "no objection" answer to a tool call for `agent`.
pub(crate) fn assert_no_objection(agent: &str, reply: &(i32, String, String)) {
    let (code, stdout, _) = reply;
    assert_eq!(*code, 0, "{agent}: {reply:?}");
    let expected = if agent == "cursor" {
        "{\"permission\":\"allow\"}\n"
    } else {
        ""
    };
    assert_eq!(stdout, expected, "{agent}: {reply:?}");
}

fn config(scene: &Scene, hooks: &[String]) {
    scene.write_config(&hooks.concat());
}

fn pre_hook(name: &str, command: &[&str], extra: &str) -> String {
    crate::support::hook(name, "PreToolUse", command, extra)
}

mod claude_hooks;
mod defences;
mod install;
mod sessions;

#[test]
fn bridge_answers_every_agent_for_allow_block_and_failure() {
    let scene = Scene::new();
    let blocker = scene.script(
        "no-force.sh",
        "grep -q 'push --force' && { echo 'force-push is not allowed here' >&2; exit 2; }; exit 0",
    );
    let broken = scene.script("broken.sh", "grep -q 'crash' || exit 0; exit 7");
    config(
        &scene,
        &[
            pre_hook("no-force", &["/bin/sh", blocker.to_str().unwrap()], ""),
            pre_hook(
                "broken",
                &["/bin/sh", broken.to_str().unwrap()],
                "on_failure = \"block\"",
            ),
        ],
    );
    for (agent, pre, _) in AGENTS {
        let allowed = bridge_json(&scene, agent, &with_command(sample(&scene, pre), "ls"));
        assert_no_objection(agent, &allowed);

        let blocked = bridge_json(
            &scene,
            agent,
            &with_command(sample(&scene, pre), "git push --force"),
        );
        assert_eq!(
            deny_reason(agent, &blocked).as_deref(),
            Some("blocked by the user's hook \"no-force\": force-push is not allowed here"),
            "{agent}: {blocked:?}"
        );

        let failed = bridge_json(&scene, agent, &with_command(sample(&scene, pre), "crash"));
        let message = "the user's hook \"broken\" failed (exited with code 7), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing.";
        assert_eq!(
            deny_reason(agent, &failed).as_deref(),
            Some(as_sent(agent, message)),
            "{agent}: {failed:?}"
        );
    }
}

#[test]
fn bridge_prompt_context_reaches_the_agents_that_take_it() {
    let scene = Scene::new();
    let context = scene.script("ctx.sh", "cat >/dev/null; echo 'use the staging db'");
    config(
        &scene,
        &[crate::support::hook(
            "ctx",
            "UserPromptSubmit",
            &["/bin/sh", context.to_str().unwrap()],
            "",
        )],
    );
    let framed = "Context from the user's hook \"ctx\":\nuse the staging db";
    for (agent, _, prompt) in AGENTS {
        let (code, stdout, stderr) = bridge_json(&scene, agent, &sample(&scene, prompt));
        assert_eq!(code, 0, "{agent}: {stdout} {stderr}");
        match agent {
            "claude-code" | "codex" | "gemini" | "qwen-code" => {
                let answer: Value = serde_json::from_str(&stdout).unwrap();
                assert_eq!(
                    answer["hookSpecificOutput"]["additionalContext"], framed,
                    "{agent}: {stdout}"
                );
            }
            // Kimi Code and Kiro CLI take a prompt hook's plain stdout as context.
            "kimi-code" | "kiro" => assert_eq!(stdout, format!("{framed}\n"), "{stderr}"),
            "cursor" => {
                assert_eq!(stdout, "{\"continue\":true}\n");
                assert!(stderr.contains("cannot add context"), "{stderr}");
                assert!(stderr.contains("hook ctx"), "{stderr}");
            }
            // Copilot CLI 1.0.102 takes a top-level `additionalContext`.
            "copilot" => {
                let answer: Value = serde_json::from_str(&stdout).unwrap();
                assert_eq!(answer["additionalContext"], framed, "{agent}: {stdout}");
                assert_eq!(stderr, "");
            }
            other => panic!("no expectation for {other}"),
        }
    }
    // `check` says it too, naming the hook, before any agent calls.
    let (code, _, stderr) = scene.run(&["check"]);
    assert_eq!(code, 0);
    assert_eq!(
        stderr,
        "note: behind `hookhost bridge`, Cursor cannot add context to a prompt; the context of UserPromptSubmit hook ctx reaches the other agents only.\n"
    );
}

#[test]
fn bridge_refusal_at_start_is_a_deny_with_the_refusal_text() {
    let scene = Scene::new();
    let inside = scene.project.join("check.sh");
    std::fs::write(&inside, "#!/bin/sh\nexit 0\n").unwrap();
    config(
        &scene,
        &[pre_hook(
            "inside",
            &["/bin/sh", inside.to_str().unwrap()],
            "",
        )],
    );
    for (agent, pre, _) in AGENTS {
        let reply = bridge_json(&scene, agent, &sample(&scene, pre));
        let reason = deny_reason(agent, &reply).unwrap_or_else(|| panic!("{agent}: {reply:?}"));
        assert!(
            reason.starts_with("hook inside: ") && reason.contains("is in the project"),
            "{agent}: {reason}"
        );
    }
}

/// A bridge that cannot set itself up (here: an operator log filter that does not parse,
/// in the environment the agent passes on) refuses each call in the form that blocks its
/// event, the form a hook's block of it takes: exit 2 alone only warns on Copilot CLI's
/// prompt, which it then sends.
#[test]
fn a_bridge_that_cannot_start_refuses_each_event_as_a_block_of_it() {
    let scene = Scene::new();
    let hush = scene.script("hush.sh", "echo 'not today' >&2; exit 2");
    let no = scene.script("no.sh", "echo 'not today' >&2; exit 2");
    config(
        &scene,
        &[
            crate::support::hook(
                "hush",
                "UserPromptSubmit",
                &["/bin/sh", hush.to_str().unwrap()],
                "",
            ),
            pre_hook("no", &["/bin/sh", no.to_str().unwrap()], ""),
        ],
    );
    let unstarted = |agent: &str, payload: &Value| {
        run_with_stdin(
            scene.hookhost().env("HOOKHOST_LOG", "hookhost=[").args([
                "--no-sandbox",
                "bridge",
                "--agent",
                agent,
            ]),
            payload.to_string().as_bytes(),
        )
    };
    let why = "hookhost could not start (HOOKHOST_LOG=\"hookhost=[\" is not a log filter";
    for (agent, pre, prompt) in AGENTS {
        let payload = with_command(sample(&scene, pre), "ls");
        let refused = unstarted(agent, &payload);
        let reason = deny_reason(agent, &refused).unwrap_or_else(|| panic!("{agent}: {refused:?}"));
        assert!(reason.starts_with(why), "{agent}: {reason}");
        if agent == "kiro" {
            // Kiro CLI cannot block a prompt from a command hook (docs/agents.md).
            continue;
        }
        let payload = sample(&scene, prompt);
        let (code, stdout, stderr) = unstarted(agent, &payload);
        let (block_code, block_stdout, _) = bridge_json(&scene, agent, &payload);
        assert_eq!(code, block_code, "{agent}: {stdout} {stderr}");
        let keys = |text: &str| {
            serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|v| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()))
        };
        assert_eq!(keys(&stdout), keys(&block_stdout), "{agent}: {stdout}");
        assert!(
            stdout.contains("hookhost could not start") || stderr.contains(why),
            "{agent}: {stdout} {stderr}"
        );
    }
}

#[test]
fn bridge_unknown_events_and_unreadable_payloads() {
    let scene = Scene::new();
    config(&scene, &[]);
    let (code, stdout, stderr) = bridge(
        &scene,
        &["--agent", "claude-code"],
        r#"{"session_id":"s","hook_event_name":"PostToolUse","cwd":"/"}"#,
    );
    assert_eq!((code, stdout.as_str()), (0, ""));
    assert_eq!(
        stderr,
        "hookhost: Claude Code event \"PostToolUse\" has no hookhost hooks; no objection.\n"
    );
    // Not JSON: the flag's agent denies, fail closed.
    let (code, stdout, stderr) = bridge(&scene, &["--agent", "codex"], "not json");
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.starts_with("hookhost could not read this call"),
        "{stderr}"
    );
}

#[test]
fn bridge_answers_a_cursor_payload_sent_through_a_claude_registration_as_cursor() {
    let scene = Scene::new();
    let blocker = scene.script(
        "no-force.sh",
        "grep -q 'push --force' && { echo 'no' >&2; exit 2; }; exit 0",
    );
    config(
        &scene,
        &[pre_hook(
            "no-force",
            &["/bin/sh", blocker.to_str().unwrap()],
            "",
        )],
    );
    let payload = sample(&scene, "cursor/beforeShellExecution.json");
    let reply = bridge_json(&scene, "claude-code", &payload);
    let (code, stdout, stderr) = &reply;
    assert_eq!(*code, 0);
    assert!(stdout.contains("\"permission\":\"deny\""), "{stdout}");
    assert!(
        stderr
            .contains("run as `hookhost bridge --agent claude-code`, but this is a Cursor payload"),
        "{stderr}"
    );
}

/// Copilot CLI stops a prompt on a top-level `{"decision":"block","reason"}` with exit 0
/// (seen in Copilot CLI 1.0.102), for both of its event spellings.
#[test]
fn bridge_blocks_a_copilot_prompt_with_top_level_json() {
    let scene = Scene::new();
    let hush = scene.script(
        "hush.sh",
        "grep -q hush-marker && { echo 'not today' >&2; exit 2; }; exit 0",
    );
    config(
        &scene,
        &[crate::support::hook(
            "hush",
            "UserPromptSubmit",
            &["/bin/sh", hush.to_str().unwrap()],
            "",
        )],
    );
    for sample_file in [
        "copilot/userPromptSubmitted.json",
        "copilot/PascalCase-UserPromptSubmit.json",
    ] {
        let mut payload = sample(&scene, sample_file);
        payload["prompt"] = json!("hush-marker please");
        let (code, stdout, stderr) = bridge_json(&scene, "copilot", &payload);
        assert_eq!((code, stderr.as_str()), (0, ""), "{sample_file}: {stdout}");
        let answer: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(answer["decision"], "block", "{sample_file}: {stdout}");
        assert_eq!(
            answer["reason"], "✗ prompt blocked by hook \"hush\": not today",
            "{sample_file}"
        );
        payload["prompt"] = json!("fine");
        assert_eq!(
            bridge_json(&scene, "copilot", &payload),
            (0, String::new(), String::new())
        );
    }
}

/// Qwen Code fires `UserPromptSubmit` after every tool result with `"prompt": ""` and no
/// `submitted_prompt`: the bridge runs no prompt hook for it, so context is added once per
/// real prompt (docs/threats.md#r8).
#[test]
fn bridge_a_qwen_tool_result_send_is_not_a_prompt() {
    let scene = Scene::new();
    let context = scene.script("ctx.sh", "cat >/dev/null; echo 'CTX-TOKEN-93c1'");
    config(
        &scene,
        &[crate::support::hook(
            "context",
            "UserPromptSubmit",
            &["/bin/sh", context.to_str().unwrap()],
            "",
        )],
    );
    let prompt = sample(&scene, "qwen-code/UserPromptSubmit.json");
    let (code, stdout, _) = bridge_json(&scene, "qwen-code", &prompt);
    assert_eq!(code, 0);
    assert!(stdout.contains("CTX-TOKEN-93c1"), "{stdout}");
    let mut send = prompt.clone();
    send["prompt"] = json!("");
    send.as_object_mut().unwrap().remove("submitted_prompt");
    assert_eq!(
        bridge_json(&scene, "qwen-code", &send),
        (0, String::new(), String::new())
    );
}

/// This file's table of agents is every agent the bridge answers, in its order, so that a
/// new agent cannot be left out of these tests.
#[test]
fn the_agents_table_is_every_agent() {
    let flags: Vec<&str> = hookhost::bridge::AgentKind::ALL
        .iter()
        .map(|a| a.flag_name())
        .collect();
    assert_eq!(
        AGENTS.iter().map(|(flag, _, _)| *flag).collect::<Vec<_>>(),
        flags
    );
}
