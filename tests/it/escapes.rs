//! Terminal control sequences (F9) through the real binary: what a hook writes (a
//! reason quoting the model's command with OSC 52, CSI and CR in it) is shown escaped in
//! text output (`pre-tool-use`, `prompt`, `log show`, `eval`, start-up warnings from
//! `check`) and exact in `--json`.

use crate::support::{Scene, hook, sh_hook, text};

/// The review's payload: set the clipboard (OSC 52 … BEL), erase the line, return to
/// its start and print a green "allowed".
const PAYLOAD: &str = "\u{1b}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u{7}\u{1b}[2K\r\u{1b}[32mallowed";
/// The payload as text output shows it.
const SHOWN: &str = "\\u{1b}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u{7}\\u{1b}[2K\\u{d}\\u{1b}[32mallowed";

/// No byte a terminal would act on (C0 other than newline and tab, DEL, C1).
fn assert_inert(what: &str, s: &str) {
    let bad: Vec<char> = s
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert!(bad.is_empty(), "{what} holds raw controls {bad:?}: {s:?}");
}

/// A scene with a PreToolUse hook that quotes the command in its reason (exit 2) and a
/// prompt hook that quotes the prompt in its context.
fn quoting_scene() -> Scene {
    let scene = Scene::new();
    let gate = scene.script(
        "quote.sh",
        "python3 -c 'import json,sys; print(\"refused: \" + json.load(sys.stdin)[\"tool_input\"][\"command\"], file=sys.stderr)'; exit 2",
    );
    let context = scene.script(
        "context.sh",
        "python3 -c 'import json,sys; print(\"you said: \" + json.load(sys.stdin)[\"prompt\"])'",
    );
    scene.write_config(&format!(
        "{}{}",
        sh_hook("quote", &gate, "tools = [\"bash\"]"),
        hook(
            "context",
            "UserPromptSubmit",
            &["/bin/sh", context.to_str().unwrap()],
            ""
        )
    ));
    scene
}

fn input() -> String {
    serde_json::json!({ "command": format!("rm -rf b {PAYLOAD}") }).to_string()
}

#[test]
fn a_reason_with_controls_is_escaped_in_text_and_exact_in_json() {
    let scene = quoting_scene();
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "pre-tool-use", "--tool", "bash", "--input"])
        .arg(input())
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stdout,
        format!("blocked by the user's hook \"quote\": refused: rm -rf b {SHOWN}\n")
    );
    assert_inert("stdout", &stdout);
    assert_inert("stderr", &stderr);

    let (code, v) = scene.gate(&["--no-sandbox"], "bash", &input());
    assert_eq!(code, 1);
    assert_eq!(
        v["message"],
        format!("blocked by the user's hook \"quote\": refused: rm -rf b {PAYLOAD}")
    );
}

#[test]
fn prompt_escapes_hook_text_but_echoes_the_prompt_exactly() {
    let scene = quoting_scene();
    let prompt = format!("look {PAYLOAD}");
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "prompt"])
        .arg(&prompt)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The prompt is the caller's own text, given back as is; the context block is the
    // hook's, escaped.
    assert_eq!(
        stdout,
        format!("{prompt}\n\nContext from the user's hook \"context\":\nyou said: look {SHOWN}\n")
    );
    let (_, v) = scene.prompt(&["--no-sandbox"], &prompt);
    assert_eq!(v["context"][0]["text"], format!("you said: look {PAYLOAD}"));

    // A prompt hook that blocks: the message on stderr is escaped.
    let blocker = scene.script(
        "pblock.sh",
        "python3 -c 'import json,sys; print(\"no: \" + json.load(sys.stdin)[\"prompt\"], file=sys.stderr)'; exit 2",
    );
    scene.write_config(&hook(
        "pblock",
        "UserPromptSubmit",
        &["/bin/sh", blocker.to_str().unwrap()],
        "",
    ));
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "prompt"])
        .arg(&prompt)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stdout, "");
    assert!(
        stderr.contains(&format!(
            "✗ prompt blocked by hook \"pblock\": no: look {SHOWN}\n"
        )),
        "{stderr}"
    );
    assert_inert("stderr", &stderr);
}

#[test]
fn log_show_escapes_what_the_record_holds() {
    let scene = quoting_scene();
    let log = scene.root.path().join("state/session.jsonl");
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "--log"])
        .arg(&log)
        .args(["pre-tool-use", "--tool", "bash", "--input"])
        .arg(input())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    // The record itself is exact.
    let record = std::fs::read_to_string(&log).unwrap();
    assert!(record.contains("\\u001b]52;c;"), "{record}");

    let out = scene
        .hookhost()
        .args(["log", "show"])
        .arg(&log)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains(&format!(
            "blocked by the user's hook \"quote\": refused: rm -rf b {SHOWN}\n"
        )),
        "{stdout}"
    );
    assert_inert("log show", &stdout);

    let out = scene.hookhost().arg("replay").arg(&log).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_inert("replay", &stdout);
}

#[test]
fn eval_escapes_case_names_and_messages() {
    let scene = quoting_scene();
    let cases = scene.root.path().join("cases.toml");
    std::fs::write(
        &cases,
        format!(
            "[[case]]\nname = {name}\ntool = \"bash\"\ninput = {{ command = {cmd} }}\nexpect.outcome.in = [\"completed\"]\n",
            // JSON's string escapes are TOML's too.
            name = serde_json::json!(format!("case \u{1b}[2J{PAYLOAD}")),
            cmd = serde_json::json!(format!("rm -rf b {PAYLOAD}")),
        ),
    )
    .unwrap();
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "eval"])
        .arg(&cases)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "FAIL case \\u{{1b}}[2J{SHOWN}: outcome blocked, expected one of [completed] (blocked by the user's hook \"quote\": refused: rm -rf b {SHOWN})\n"
        )),
        "{stdout}"
    );
    assert_inert("eval", &stdout);
}

/// F23's note: values from the config echoed in start-up warnings (an unknown tool name)
/// are escaped too.
#[test]
fn start_up_warnings_are_escaped() {
    let scene = Scene::new();
    let script = scene.script("ok.sh", "exit 0");
    scene.write_config(&sh_hook(
        "odd",
        &script,
        "tools = [\"\\u001b]0;pwned\\u0007\"]",
    ));
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "check"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("\\u{1b}]0;pwned\\u{7}"), "{stderr}");
    assert_inert("check's stderr", &stderr);
    assert_inert("check's banner", &stdout);
}

/// N17: behind the bridge every output path (stdout, stderr; the deny reason the model
/// reads, prompt context, warnings) shows a hook's control characters escaped, for every
/// agent: a JSON answer's decoded text as much as a plain one.
#[test]
fn every_bridge_output_shows_controls_escaped_for_every_agent() {
    let scene = quoting_scene();
    let p = scene.project.to_str().unwrap().to_string();
    let command = format!("rm -rf b {PAYLOAD}");
    let calls: [(&str, serde_json::Value); 8] = [
        (
            "claude-code",
            serde_json::json!({"session_id": "e1", "transcript_path": null, "cwd": p, "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t"}),
        ),
        (
            "codex",
            serde_json::json!({"session_id": "e2", "turn_id": "t", "transcript_path": null, "cwd": p, "hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "c"}),
        ),
        (
            "gemini",
            serde_json::json!({"session_id": "e3", "transcript_path": "/t", "cwd": p, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": command}}),
        ),
        (
            "cursor",
            serde_json::json!({"conversation_id": "e4", "hook_event_name": "beforeShellExecution", "workspace_roots": [p], "command": command, "cwd": p}),
        ),
        (
            "copilot",
            serde_json::json!({"sessionId": "e5", "timestamp": 1, "cwd": p, "toolName": "bash", "toolArgs": {"command": command}}),
        ),
        (
            "qwen-code",
            serde_json::json!({"session_id": "e6", "transcript_path": null, "cwd": p, "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "run_shell_command", "tool_input": {"command": command}, "tool_use_id": "q"}),
        ),
        (
            "kimi-code",
            serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "e7", "cwd": p, "tool_name": "Bash", "tool_input": {"command": command}, "tool_call_id": "k"}),
        ),
        (
            "kiro",
            serde_json::json!({"hook_event_name": "preToolUse", "cwd": p, "tool_name": "execute_bash", "tool_input": {"command": command}}),
        ),
    ];
    let prompt = format!("hi {PAYLOAD}");
    for (agent, call) in calls {
        let (_, stdout, stderr) = crate::support::run_with_stdin(
            scene
                .hookhost()
                .args(["--no-sandbox", "bridge", "--agent", agent]),
            call.to_string().as_bytes(),
        );
        assert_inert(&format!("{agent} stdout"), &stdout);
        assert_inert(&format!("{agent} stderr"), &stderr);
        // Decoded, the reason the agent shows and the model reads holds the escapes.
        let decoded = match serde_json::from_str::<serde_json::Value>(&stdout) {
            Ok(json) => json.to_string().replace("\\\\", "\\"),
            Err(_) => format!("{stdout}{stderr}"),
        };
        assert!(decoded.contains(SHOWN), "{agent}: {stdout} {stderr}");
    }
    for (agent, payload) in [
        (
            "claude-code",
            serde_json::json!({"session_id": "e8", "transcript_path": null, "cwd": p, "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt}),
        ),
        (
            "kimi-code",
            serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": "e9", "cwd": p, "prompt": prompt}),
        ),
        (
            "copilot",
            serde_json::json!({"sessionId": "e10", "timestamp": 1, "cwd": p, "prompt": prompt}),
        ),
    ] {
        let (_, stdout, stderr) = crate::support::run_with_stdin(
            scene
                .hookhost()
                .args(["--no-sandbox", "bridge", "--agent", agent]),
            payload.to_string().as_bytes(),
        );
        assert_inert(&format!("{agent} prompt stdout"), &stdout);
        assert_inert(&format!("{agent} prompt stderr"), &stderr);
        let decoded = match serde_json::from_str::<serde_json::Value>(&stdout) {
            Ok(json) => json.to_string().replace("\\\\", "\\"),
            Err(_) => stdout.clone(),
        };
        assert!(decoded.contains(SHOWN), "{agent}: {stdout} {stderr}");
    }
}
