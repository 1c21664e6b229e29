//! `hookhost bridge`, `hookhost install` and `hookhost uninstall` through the real binary:
//! each agent's sample payload (`examples/agents/`) answered in that agent's own form
//! (stdout, stderr, exit status), hooks written for Claude Code run behind the bridge,
//! records shared by the calls of one agent session, the time budget, and the settings
//! files `install` edits.

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
fn with_command(mut payload: Value, command: &str) -> Value {
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
fn with_session(mut payload: Value, id: &str) -> Value {
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

/// The hooks people have for Claude Code today, run behind the bridge from every agent.
#[test]
fn bridge_runs_claude_code_hooks_unchanged_for_every_agent() {
    let scene = Scene::new();
    let python = scene.executable(
        "guard.py",
        "#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\n\
         if d['tool_name'] == 'Bash' and 'rm -rf' in d['tool_input'].get('command', ''):\n\
         \x20   print('python: no rm -rf', file=sys.stderr)\n    sys.exit(2)\n",
    );
    let legacy = scene.script(
        "legacy.sh",
        "if grep -q 'DROP TABLE'; then echo '{\"decision\":\"block\",\"reason\":\"legacy: no drops\"}'; else echo '{\"decision\":\"approve\"}'; fi",
    );
    let has_jq = Command::new("sh")
        .args(["-c", "command -v jq"])
        .output()
        .is_ok_and(|o| o.status.success());
    let mut hooks = vec![
        pre_hook("py", &["python3", python.to_str().unwrap()], ""),
        pre_hook("legacy", &["/bin/sh", legacy.to_str().unwrap()], ""),
    ];
    if has_jq {
        let jq = scene.script(
            "jq.sh",
            "cmd=$(jq -r '.tool_input.command // empty')\ncase \"$cmd\" in *shutdown*) echo 'jq: no shutdown' >&2; exit 2;; esac\nexit 0",
        );
        hooks.push(pre_hook("jq", &["/bin/bash", jq.to_str().unwrap()], ""));
    } else {
        println!("SKIPPED the jq hook: no jq");
    }
    config(&scene, &hooks);
    for (agent, pre, _) in AGENTS {
        let run =
            |command: &str| bridge_json(&scene, agent, &with_command(sample(&scene, pre), command));
        assert_no_objection(agent, &run("ls"));
        assert_eq!(
            deny_reason(agent, &run("rm -rf /")).as_deref(),
            Some("blocked by the user's hook \"py\": python: no rm -rf"),
            "{agent}"
        );
        assert_eq!(
            deny_reason(agent, &run("psql -c 'DROP TABLE x'")).as_deref(),
            Some("blocked by the user's hook \"legacy\": legacy: no drops"),
            "{agent}"
        );
        if has_jq {
            assert_eq!(
                deny_reason(agent, &run("shutdown now")).as_deref(),
                Some("blocked by the user's hook \"jq\": jq: no shutdown"),
                "{agent}"
            );
        }
    }
}

#[test]
fn bridge_hooks_read_claude_codes_shape_by_default_and_the_spec_envelope_on_request() {
    let scene = Scene::new();
    let dump = |name: &str| {
        let out = scene.root.path().join(format!("{name}.json"));
        let script = scene.script(name, &format!("cat > '{}'", out.display()));
        (script, out)
    };
    let (claude, claude_out) = dump("claude.sh");
    let (spec, spec_out) = dump("spec.sh");
    config(
        &scene,
        &[
            pre_hook(
                "claude",
                &["/bin/sh", claude.to_str().unwrap()],
                "tools = [\"write_file\"]",
            ),
            pre_hook(
                "spec",
                &["/bin/sh", spec.to_str().unwrap()],
                "tools = [\"write_file\"]\nenvelope = \"spec\"",
            ),
        ],
    );
    let file = scene.project.join("src/main.rs");
    let payload = json!({
        "session_id": "shape-1",
        "transcript_path": "/t/x.jsonl",
        "cwd": scene.project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": file, "content": "x"},
        "tool_use_id": "toolu_1",
    });
    let reply = bridge_json(&scene, "claude-code", &payload);
    assert_no_objection("claude-code", &reply);
    let read =
        |p: &Path| -> Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    let claude = read(&claude_out);
    assert_eq!(claude["tool_name"], "Write");
    assert_eq!(claude["tool_input"]["file_path"], json!(file));
    assert_eq!(claude["transcript_path"], "/t/x.jsonl");
    assert_eq!(claude["session_id"], "shape-1");
    assert_eq!(claude["permission_mode"], "default");
    let spec = read(&spec_out);
    assert_eq!(spec["tool_name"], "write_file");
    assert_eq!(spec["tool_input"]["path"], "src/main.rs");
    assert!(spec.get("transcript_path").is_none());

    // `check` says which shape each reads (shipped_policies has every case).
    let (code, stdout, _) = scene.run(&["check"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("hook spec reads the spec's envelope everywhere (envelope = \"spec\")"),
        "{stdout}"
    );
    assert!(
        stdout.contains("hook claude reads the spec's envelope here and Claude Code's input behind `hookhost bridge`"),
        "{stdout}"
    );

    // A tool with no hookhost name on purpose reaches only hooks without `tools`.
    std::fs::remove_file(&claude_out).unwrap();
    let call_of = |tool: &str| {
        json!({
            "session_id": "shape-1", "transcript_path": null, "cwd": scene.project,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": {}, "tool_use_id": "toolu_2",
        })
    };
    assert_no_objection(
        "claude-code",
        &bridge_json(&scene, "claude-code", &call_of("TodoWrite")),
    );
    assert!(!claude_out.exists());
    // One hookhost does not know at all is blocked for a hook with `tools`, unrun
    // (tests/it/unknown_tools.rs has the rest).
    let reply = bridge_json(&scene, "claude-code", &call_of("SomeNewTool"));
    assert!(
        deny_reason("claude-code", &reply).is_some_and(
            |r| r.starts_with("hookhost has no name for Claude Code's tool \"SomeNewTool\"")
        ),
        "{reply:?}"
    );
    assert!(!claude_out.exists());
}

/// The records of one agent session: one file, every call appended, one warning per hook
/// per turn across processes.
#[test]
fn bridge_calls_of_one_session_share_one_record_and_warn_once_per_turn() {
    let scene = Scene::new();
    let failing = scene.script("audit.sh", "cat >/dev/null; exit 1");
    config(
        &scene,
        &[pre_hook(
            "audit",
            &["/bin/sh", failing.to_str().unwrap()],
            "on_failure = \"continue\"",
        )],
    );
    let call = with_session(sample(&scene, "claude-code/PreToolUse.json"), "turns-1");
    let prompt = with_session(
        sample(&scene, "claude-code/UserPromptSubmit.json"),
        "turns-1",
    );
    let warned = |reply: &(i32, String, String)| {
        assert_eq!(reply.0, 0, "{reply:?}");
        reply.1.contains("hook audit failed (exited with code 1)")
    };
    assert!(warned(&bridge_json(&scene, "claude-code", &call)));
    assert!(!warned(&bridge_json(&scene, "claude-code", &call)));
    let _ = bridge_json(&scene, "claude-code", &prompt);
    assert!(warned(&bridge_json(&scene, "claude-code", &call)));

    let record = scene.state().join("hookhost/claude-code/turns-1.jsonl");
    let text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(text.matches("\"type\":\"turn.ended\"").count(), 1, "{text}");
    let (code, stdout, stderr) = scene.run(&["log", "show", record.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.is_empty());
    // Replay rebuilds each hook's Claude Code input and serves it from the record.
    let (code, stdout, stderr) = scene.run(&["replay", record.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("3 of 3 verdicts matched"), "{stdout}");
}

/// An `envelope = "claude-code"` hook outside the bridge reads Claude Code's names and
/// absolute paths, and replay rebuilds that input from the record.
#[test]
fn claude_code_envelope_hooks_outside_the_bridge_are_replayed() {
    let scene = Scene::new();
    let dump = scene.root.path().join("seen.json");
    let script = scene.script("seen.sh", &format!("cat > '{}'", dump.display()));
    config(
        &scene,
        &[pre_hook(
            "seen",
            &["/bin/sh", script.to_str().unwrap()],
            "tools = [\"write_file\"]\nenvelope = \"claude-code\"",
        )],
    );
    let file = scene.project.join("src/lib.rs");
    let input = json!({"path": file, "content": "x"}).to_string();
    let log = scene.root.path().join("plain.jsonl");
    let (code, _, stderr) = scene.run(&[
        "--no-sandbox",
        "--log",
        log.to_str().unwrap(),
        "pre-tool-use",
        "--tool",
        "write_file",
        "--input",
        &input,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    assert_eq!(seen["tool_name"], "Write");
    assert_eq!(seen["tool_input"]["path"], json!(file));
    std::fs::remove_file(&dump).unwrap();
    let (code, stdout, stderr) = scene.run(&["replay", log.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("1 of 1 verdicts matched"), "{stdout}");
    assert!(!dump.exists(), "replay ran the hook");
}

#[test]
fn bridge_concurrent_calls_of_one_session_all_answer_and_are_all_recorded() {
    let scene = Scene::new();
    let slow = scene.script("slow.sh", "cat >/dev/null; sleep 0.05; exit 0");
    config(
        &scene,
        &[pre_hook("slow", &["/bin/sh", slow.to_str().unwrap()], "")],
    );
    let payload = with_session(sample(&scene, "codex/PreToolUse.json"), "many-1").to_string();
    let children: Vec<_> = (0..8)
        .map(|_| {
            let mut child = scene
                .hookhost()
                .args(["--no-sandbox", "bridge", "--agent", "codex"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.as_bytes())
                .unwrap();
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
    let record = scene.state().join("hookhost/codex/many-1.jsonl");
    let text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        text.matches("\"type\":\"gate.verdict\"").count(),
        8,
        "{text}"
    );
    let (code, _, stderr) = scene.run(&["log", "show", record.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = scene.run(&["replay", record.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

#[test]
fn bridge_budget_denies_a_hook_that_outlives_it() {
    let scene = Scene::new();
    // The sleep's own argv is the marker: it is the process that must not outlive the call.
    let marker = format!("sleep 5.0{}7", std::process::id());
    let slow = scene.script("slow.sh", &format!("cat >/dev/null; {marker}"));
    config(
        &scene,
        &[pre_hook("slow", &["/bin/sh", slow.to_str().unwrap()], "")],
    );
    for (agent, pre, _) in AGENTS {
        let started = Instant::now();
        let reply = bridge(
            &scene,
            &["--agent", agent, "--budget-ms", "500"],
            &sample(&scene, pre).to_string(),
        );
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "{agent}: took {took:?}");
        assert_eq!(
            deny_reason(agent, &reply).as_deref(),
            Some(as_sent(
                agent,
                "the user's hook \"slow\" failed (timed out after 500 ms, the bridge's budget for one call), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing."
            )),
            "{agent}: {reply:?}"
        );
        assert!(
            crate::support::wait_until(|| !process_alive(&marker)),
            "{agent}: the hook outlived the bridge"
        );
    }
}

/// A HOME of its own, and `hookhost install/uninstall ARGS` run in it.
fn install(scene: &Scene, home: &Path, args: &[&str]) -> (i32, String, String) {
    run(Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .env("HOME", home)
        // Pins stay in the scene, whatever the runner's environment says.
        .env("XDG_STATE_HOME", scene.state())
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .arg("--project")
        .arg(&scene.project)
        .args(args))
}

#[test]
fn install_is_idempotent_keeps_other_hooks_and_round_trips() {
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/usr/local/bin/my-hook\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    std::fs::write(&settings, original).unwrap();

    let (code, stdout, stderr) = install(&scene, &home, &["install", "claude-code", "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("Dry run: nothing is written."),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);

    let (code, stdout, stderr) = install(&scene, &home, &["install", "claude-code"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("hookhost is registered with Claude Code"),
        "{stdout}"
    );
    let installed = std::fs::read_to_string(&settings).unwrap();
    assert!(installed.contains("/usr/local/bin/my-hook"));
    assert!(installed.contains("\"model\": \"opus\""));
    assert!(
        installed.contains("bridge --agent claude-code"),
        "{installed}"
    );

    let (code, stdout, _) = install(&scene, &home, &["install", "claude-code"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("already installed"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), installed);

    let (code, stdout, _) = install(&scene, &home, &["uninstall", "claude-code"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("is removed from"), "{stdout}");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let before: Value = serde_json::from_str(original).unwrap();
    assert_eq!(after, before);
}

#[test]
fn install_with_a_budget_and_in_codex_toml_keeps_comments() {
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    let config = home.join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "# my settings\nmodel = \"gpt-5-codex\" # the model\n",
    )
    .unwrap();
    let (code, _, stderr) = install(&scene, &home, &["install", "codex", "--budget-ms", "7000"]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.starts_with("# my settings\nmodel = \"gpt-5-codex\" # the model\n"),
        "{text}"
    );
    assert!(text.contains("--budget-ms 7000"), "{text}");

    let (code, _, _) = install(&scene, &home, &["install", "cursor", "--scope", "project"]);
    assert_eq!(code, 0);
    assert!(scene.project.join(".cursor/hooks.json").exists());

    // Qwen Code: Claude Code's shape, its timeout in milliseconds (at least 1000, which
    // old and new Qwen Code both read as milliseconds).
    let (code, stdout, stderr) = install(&scene, &home, &["install", "qwen-code"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Qwen Code lets the call through"),
        "{stdout}"
    );
    let qwen: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".qwen/settings.json")).unwrap())
            .unwrap();
    let handler = &qwen["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(handler["timeout"], 30000, "{qwen}");
    assert!(
        handler["command"]
            .as_str()
            .unwrap()
            .ends_with("bridge --agent qwen-code"),
        "{qwen}"
    );

    // Kimi Code: `[[hooks]]` tables with only the keys it knows, its comments kept,
    // idempotent, and removed whole by uninstall; it has no project scope.
    let kimi = home.join(".kimi-code/config.toml");
    std::fs::create_dir_all(kimi.parent().unwrap()).unwrap();
    let original = "# my kimi settings\ndefault_model = \"kimi-k2\" # fast\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify-send done\"\n";
    std::fs::write(&kimi, original).unwrap();
    let (code, _, stderr) = install(&scene, &home, &["install", "kimi-code"]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&kimi).unwrap();
    assert!(text.starts_with(original), "{text}");
    let parsed: toml::Table = text.parse().unwrap();
    let hooks = parsed["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 3, "{text}");
    for (table, event) in hooks[1..].iter().zip(["PreToolUse", "UserPromptSubmit"]) {
        let table = table.as_table().unwrap();
        assert_eq!(table["event"].as_str(), Some(event));
        assert_eq!(table["timeout"].as_integer(), Some(30));
        assert!(
            table
                .keys()
                .all(|k| ["event", "matcher", "command", "timeout"].contains(&k.as_str())),
            "{text}"
        );
    }
    let (_, stdout, _) = install(&scene, &home, &["install", "kimi-code"]);
    assert!(stdout.contains("already installed"), "{stdout}");
    let (code, _, _) = install(&scene, &home, &["uninstall", "kimi-code"]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&kimi).unwrap(), original);
    let (code, _, stderr) = install(
        &scene,
        &home,
        &["install", "kimi-code", "--scope", "project"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("Kimi Code has no project settings file"),
        "{stderr}"
    );
}

#[test]
fn install_refuses_a_broken_settings_file_and_leaves_it_untouched() {
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    let settings = home.join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let broken = "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n}\n";
    std::fs::write(&settings, broken).unwrap();
    let (code, stdout, stderr) = install(&scene, &home, &["install", "gemini"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(stderr.contains(settings.to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("line "), "{stderr}");
    assert_eq!(std::fs::read(&settings).unwrap(), broken.as_bytes());
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

/// N3: a link planted at a session's record path (dangling, or to a file elsewhere) is
/// refused, never followed, and the call is denied at once, not after looping past the
/// budget (which most agents read as "go ahead").
#[test]
fn bridge_refuses_a_link_at_the_record_path_at_once() {
    let scene = Scene::new();
    let marker = scene.script("marker.sh", "grep -q FORBIDDEN && exit 2; exit 0");
    config(
        &scene,
        &[pre_hook(
            "marker",
            &["/bin/sh", marker.to_str().unwrap()],
            "",
        )],
    );
    let dir = scene.state().join("hookhost/codex");
    std::fs::create_dir_all(&dir).unwrap();
    let elsewhere = scene.root.path().join("elsewhere.jsonl");
    std::fs::write(&elsewhere, "").unwrap();
    for (session, target) in [
        ("victim", scene.root.path().join("nonexistent/elsewhere")),
        ("victim-2", elsewhere.clone()),
    ] {
        let record = dir.join(format!("{session}.jsonl"));
        std::os::unix::fs::symlink(&target, &record).unwrap();
        let payload = with_session(
            with_command(sample(&scene, "codex/PreToolUse.json"), "echo ok"),
            session,
        );
        let started = Instant::now();
        let reply = bridge(
            &scene,
            &["--agent", "codex", "--budget-ms", "2000"],
            &payload.to_string(),
        );
        assert!(started.elapsed() < Duration::from_secs(2), "{reply:?}");
        let reason = deny_reason("codex", &reply).unwrap_or_default();
        assert!(
            reason.contains("is a symbolic link, which hookhost never follows"),
            "{session}: {reply:?}"
        );
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "");
    }
    // An empty session id is recorded nowhere, and shares nothing.
    let payload = with_session(
        with_command(sample(&scene, "codex/PreToolUse.json"), "echo ok"),
        "",
    );
    let reply = bridge(&scene, &["--agent", "codex"], &payload.to_string());
    assert_eq!(reply.0, 0, "{reply:?}");
    assert!(!dir.join(".jsonl").exists());
}

/// R12: the text Codex, Kimi Code and Kiro CLI hand the model (a deny's stderr) is the
/// spec's failure message for the model, never the user's warning with its
/// `--no-hooks` advice; Codex's own `. Command: …` follows it without a doubled period.
#[test]
fn bridge_the_model_reads_no_user_advice_from_an_exit_2_agent() {
    let scene = Scene::new();
    let slow = scene.script("slow.sh", "cat >/dev/null; sleep 10");
    config(
        &scene,
        &[pre_hook(
            "slow",
            &["/bin/sh", slow.to_str().unwrap()],
            "timeout = 1",
        )],
    );
    for (agent, pre, _) in AGENTS
        .iter()
        .filter(|(a, _, _)| matches!(*a, "codex" | "kimi-code" | "kiro"))
    {
        let (code, stdout, stderr) = bridge_json(&scene, agent, &sample(&scene, pre));
        assert_eq!((code, stdout.as_str()), (2, ""), "{agent}: {stderr}");
        assert!(!stderr.contains("--no-hooks"), "{agent}: {stderr}");
        assert!(
            stderr.starts_with(
                "the user's hook \"slow\" failed (timed out after 1 s), so this call was blocked."
            ),
            "{agent}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{agent}: {stderr}");
        if *agent == "codex" {
            assert!(
                stderr.ends_with("Tell the user their hook is failing\n"),
                "{stderr}"
            );
        }
    }
}

/// R4/N7: a project settings file that switches the agent's hooks off (for its next
/// session) makes every call of this session a deny naming the file and the key.
#[test]
fn bridge_denies_while_a_project_file_switches_the_agents_hooks_off() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    config(
        &scene,
        &[pre_hook("ok", &["/bin/sh", ok.to_str().unwrap()], "")],
    );
    let payload = |file: &str| sample(&scene, file).to_string();
    let cases = [
        (
            "claude-code",
            "claude-code/PreToolUse.json",
            ".claude/settings.local.json",
            "{\"disableAllHooks\": true}",
        ),
        (
            "qwen-code",
            "qwen-code/PreToolUse.json",
            ".qwen/settings.json",
            "{\"disableAllHooks\": true}",
        ),
        (
            "gemini",
            "gemini/BeforeTool.json",
            ".gemini/settings.json",
            "{\"hooksConfig\": {\"enabled\": false}}",
        ),
        (
            "codex",
            "codex/PreToolUse.json",
            ".codex/config.toml",
            "[features]\nhooks = false\n",
        ),
    ];
    for (agent, sample_file, settings, text) in cases {
        assert_no_objection(
            agent,
            &bridge(&scene, &["--agent", agent], &payload(sample_file)),
        );
        let file = scene.project.join(settings);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        let reply = bridge(&scene, &["--agent", agent], &payload(sample_file));
        let reason = deny_reason(agent, &reply).unwrap_or_default();
        assert!(
            reason.contains(&format!("{} sets", file.display())),
            "{agent}: {reply:?}"
        );
        std::fs::remove_file(&file).unwrap();
    }
}

/// N11: an environment the agent's settings can set does not steer the bridge: a box
/// program (`HOOKHOST_BWRAP`) is ignored, and `HARNESS_HOME`/`XDG_STATE_HOME` inside the
/// project are ignored, each with a warning naming it; the user's own config still runs.
#[test]
fn bridge_takes_no_steering_from_the_agents_environment() {
    let scene = Scene::new();
    let marker = scene.script(
        "marker.sh",
        "grep -q FORBIDDEN && { echo no >&2; exit 2; }; exit 0",
    );
    config(
        &scene,
        &[pre_hook(
            "marker",
            &["/bin/sh", marker.to_str().unwrap()],
            "",
        )],
    );
    // What an agent would plant: an empty config and a "box" that runs anything on the host.
    let planted = scene.project.join(".agent");
    std::fs::create_dir_all(&planted).unwrap();
    std::fs::write(planted.join("config.toml"), "").unwrap();
    let fake_box = planted.join("bwrap");
    std::fs::write(&fake_box, "#!/bin/sh\ntouch \"$0.ran\"\nexit 0\n").unwrap();
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "echo FORBIDDEN",
    );
    let out = crate::support::run_with_stdin(
        scene
            .hookhost()
            .env("HARNESS_HOME", &planted)
            .env("XDG_STATE_HOME", planted.join("state"))
            // The state the ignored XDG_STATE_HOME falls back to is this test's own.
            .env("HOME", scene.root.path().join("home"))
            .env("HOOKHOST_BWRAP", &fake_box)
            .args(["bridge", "--agent", "claude-code"]),
        payload.to_string().as_bytes(),
    );
    let reason = deny_reason("claude-code", &out);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("blocked by the user's hook \"marker\"")),
        "{out:?}"
    );
    for name in ["HOOKHOST_BWRAP", "HARNESS_HOME", "XDG_STATE_HOME"] {
        assert!(
            out.1.contains(&format!("hookhost bridge ignores {name}=")),
            "{name}: {out:?}"
        );
    }
    assert!(!planted.join("bwrap.ran").exists());
    assert!(!planted.join("state").exists());
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

/// A start that cannot finish within the budget (a WASM hook compiled into an empty
/// compile cache) is a deny within the budget that says how to fill the cache, not a
/// bridge that outlives the agent's timeout (docs/threats.md#n6); once `hookhost check`
/// has filled the cache, the same call is judged by the hook.
#[test]
fn a_start_that_outlives_the_budget_is_a_deny_in_time_and_check_fills_the_cache() {
    let scene = Scene::new();
    let wasm = crate::support::plugin(&scene, "no-force-push.wasm");
    config(
        &scene,
        &[pre_hook(
            "no-force-push",
            &[wasm.to_str().unwrap()],
            "tools = [\"bash\"]",
        )],
    );
    let cold = scene.root.path().join("cold-cache");
    std::fs::create_dir_all(&cold).unwrap();
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force origin main",
    );
    let call = |budget: &str| {
        let started = std::time::Instant::now();
        let out = crate::support::run_with_stdin(
            scene.hookhost().env("XDG_CACHE_HOME", &cold).args([
                "--no-sandbox",
                "bridge",
                "--agent",
                "claude-code",
                "--budget-ms",
                budget,
            ]),
            payload.to_string().as_bytes(),
        );
        (out, started.elapsed())
    };
    let (out, took) = call("20");
    let reason = deny_reason("claude-code", &out);
    assert!(
        reason.as_deref().is_some_and(|r| r.starts_with(
            "hookhost could not start its hooks within 20 ms, the bridge's budget for one call"
        )),
        "{out:?}"
    );
    // In time: the answer does not wait for the compile (a debug build's process start and
    // this machine's load are the rest).
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");

    let (code, _, stderr) = run(scene.hookhost().env("XDG_CACHE_HOME", &cold).arg("check"));
    assert_eq!(code, 0, "{stderr}");
    let (out, _) = call("20000");
    let reason = deny_reason("claude-code", &out);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("blocked by the user's hook \"no-force-push\"")),
        "{out:?}"
    );
}

/// `install` compiles the config's WASM hooks into the cache itself, so that the agent's
/// first call after it never meets a cold cache (docs/threats.md#n6), and says so.
#[test]
fn install_compiles_the_wasm_hooks_so_the_first_call_meets_a_warm_cache() {
    let scene = Scene::new();
    let wasm = crate::support::plugin(&scene, "no-force-push.wasm");
    config(
        &scene,
        &[pre_hook(
            "no-force-push",
            &[wasm.to_str().unwrap()],
            "tools = [\"bash\"]",
        )],
    );
    let home = scene.root.path().join("home");
    let cold = scene.root.path().join("cold-cache");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&cold).unwrap();
    let hookhost = || {
        let mut cmd = scene.hookhost();
        cmd.env("XDG_CACHE_HOME", &cold)
            .env("HOME", &home)
            .env("PATH", "/usr/bin:/bin");
        cmd
    };
    let (code, stdout, stderr) = run(hookhost().args(["--no-sandbox", "install", "claude-code"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("hookhost's 1 WASM hook(s) are compiled into the cache (")
            && stdout.contains("so the agent's first call starts within its budget."),
        "{stdout}"
    );
    assert!(
        std::fs::read_dir(cold.join("hookhost")).is_ok_and(|mut entries| entries.next().is_some()),
        "the cache is empty after install"
    );
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force origin main",
    );
    let out = crate::support::run_with_stdin(
        hookhost().args(["--no-sandbox", "bridge", "--agent", "claude-code"]),
        payload.to_string().as_bytes(),
    );
    let reason = deny_reason("claude-code", &out);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("blocked by the user's hook \"no-force-push\"")),
        "{out:?}"
    );
}
