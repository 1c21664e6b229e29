//! A tool hookhost has no name for, through the real binary: a hook with `tools = [...]`
//! follows its `unknown_tools` (docs/contract.md#unknown_tools), `check` and `doctor`
//! name each agent's tools that have none on purpose (docs/agents.md#tools-with-no-hookhost-name).

use serde_json::{Value, json};

use crate::bridge::{as_sent, assert_no_objection, bridge_json, deny_reason, sample};
use crate::support::Scene;

/// Gemini's payload for a call of `tool` with `input`, in `session`.
fn gemini_call(scene: &Scene, session: &str, tool: &str, input: Value) -> Value {
    let mut payload = sample(scene, "gemini/BeforeTool.json");
    payload["session_id"] = json!(session);
    payload["tool_name"] = json!(tool);
    payload["original_request_name"] = json!(tool);
    payload["tool_input"] = input;
    payload
}

/// A config of `top` (top-level keys) and one hook `guard` on `bash` that blocks every
/// call it sees, with `extra` keys.
fn guard_config(scene: &Scene, top: &str, extra: &str) {
    let guard = scene.script(
        "guard.sh",
        "cat >/dev/null; echo 'guard saw it' >&2; exit 2",
    );
    let hook = crate::support::hook(
        "guard",
        "PreToolUse",
        &["/bin/sh", guard.to_str().unwrap()],
        &format!("tools = [\"bash\"]\n{extra}"),
    );
    scene.write_config(&format!("{top}{hook}"));
}

/// The message a blocked call of Gemini's unknown `tool` gets.
fn blocked_message(tool: &str) -> String {
    format!(
        "hookhost has no name for Gemini CLI's tool \"{tool}\", so the user's hook \"guard\" (tools = [\"bash\"]) cannot tell whether this call is one it guards, and the call was blocked (unknown_tools = \"block\"). This is not a judgement of the call: tell the user, who can let such calls through with unknown_tools = \"allow\" in that hook or at the top of their hookhost config."
    )
}

#[test]
fn an_unknown_gemini_tool_is_blocked_by_default_and_allowed_by_the_key() {
    // `discovered_tool_*`: a tool Gemini CLI found with the user's discovery command,
    // which hookhost cannot know.
    let tool = "discovered_tool_deploy";
    let input = json!({"target": "prod"});

    let scene = Scene::new();
    guard_config(&scene, "", "");
    let reply = bridge_json(
        &scene,
        "gemini",
        &gemini_call(&scene, "u1", tool, input.clone()),
    );
    assert_eq!(
        deny_reason("gemini", &reply).as_deref(),
        Some(as_sent("gemini", &blocked_message(tool))),
        "{reply:?}"
    );
    // A tool without a hookhost name on purpose goes on, as before: the guard is not run.
    let listed = gemini_call(&scene, "u1", "list_directory", json!({"dir_path": "."}));
    assert_no_objection("gemini", &bridge_json(&scene, "gemini", &listed));
    // A named tool reaches the guard, which answers for itself.
    let shell = gemini_call(&scene, "u1", "run_shell_command", json!({"command": "ls"}));
    assert_eq!(
        deny_reason("gemini", &bridge_json(&scene, "gemini", &shell)).as_deref(),
        Some("blocked by the user's hook \"guard\": guard saw it")
    );
    // The block is recorded, and replay blocks it again.
    let record = scene.state().join("hookhost/gemini/u1.jsonl");
    let (code, stdout, stderr) = scene.run(&["replay", record.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("2 of 2 verdicts matched"), "{stdout}");
    let (code, stdout, stderr) = scene.run(&["log", "show", record.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&format!("blocked by the user's hook \"guard\": Gemini CLI's tool \"{tool}\" has no hookhost name (unknown_tools = \"block\")")),
        "{stdout}"
    );

    // The hook's own key lets it through, the guard unrun.
    let scene = Scene::new();
    guard_config(&scene, "", "unknown_tools = \"allow\"");
    let reply = bridge_json(
        &scene,
        "gemini",
        &gemini_call(&scene, "u2", tool, input.clone()),
    );
    assert_no_objection("gemini", &reply);

    // So does the file's default, and a hook's own `block` wins over it.
    let scene = Scene::new();
    guard_config(&scene, "unknown_tools = \"allow\"\n", "");
    let reply = bridge_json(
        &scene,
        "gemini",
        &gemini_call(&scene, "u3", tool, input.clone()),
    );
    assert_no_objection("gemini", &reply);
    let scene = Scene::new();
    guard_config(
        &scene,
        "unknown_tools = \"allow\"\n",
        "unknown_tools = \"block\"",
    );
    let reply = bridge_json(&scene, "gemini", &gemini_call(&scene, "u4", tool, input));
    assert_eq!(
        deny_reason("gemini", &reply).as_deref(),
        Some(as_sent("gemini", &blocked_message(tool)))
    );
}

#[test]
fn an_unknown_tool_of_every_agent_is_blocked_naming_it_and_the_agent() {
    let scene = Scene::new();
    guard_config(&scene, "", "");
    for (agent, file, display) in [
        ("claude-code", "claude-code/PreToolUse.json", "Claude Code"),
        ("codex", "codex/PreToolUse.json", "Codex"),
        ("qwen-code", "qwen-code/PreToolUse.json", "Qwen Code"),
        ("kimi-code", "kimi-code/PreToolUse.json", "Kimi Code"),
    ] {
        let mut payload = sample(&scene, file);
        payload["tool_name"] = json!("BrandNewTool");
        let reply = bridge_json(&scene, agent, &payload);
        let message = format!(
            "hookhost has no name for {display}'s tool \"BrandNewTool\", so the user's hook \"guard\" (tools = [\"bash\"]) cannot tell whether this call is one it guards, and the call was blocked (unknown_tools = \"block\"). This is not a judgement of the call: tell the user, who can let such calls through with unknown_tools = \"allow\" in that hook or at the top of their hookhost config."
        );
        assert_eq!(
            deny_reason(agent, &reply).as_deref(),
            Some(as_sent(agent, &message)),
            "{agent}: {reply:?}"
        );
    }
    // An MCP tool is `mcp`, not unknown: a `bash` hook lets it be.
    let mut payload = sample(&scene, "claude-code/PreToolUse.json");
    payload["tool_name"] = json!("mcp__github__create_issue");
    assert_no_objection("claude-code", &bridge_json(&scene, "claude-code", &payload));
}

#[test]
fn a_bad_unknown_tools_is_a_load_error_naming_the_file_and_the_field() {
    let scene = Scene::new();
    guard_config(&scene, "unknown_tools = \"maybe\"\n", "");
    let (code, _, stderr) = scene.run(&["--no-sandbox", "check"]);
    assert_eq!(code, 2, "{stderr}");
    let file = &scene.config;
    assert!(
        stderr.contains(&format!(
            "{}: unknown_tools \"maybe\" is not valid: use \"block\" (a hook with tools = [...] blocks a call of a tool hookhost has no name for) or \"allow\" (such a call goes on without the hook)",
            file.display()
        )),
        "{stderr}"
    );
}

#[test]
fn check_and_doctor_name_each_agents_tools_without_a_hookhost_name() {
    let scene = Scene::new();
    guard_config(&scene, "", "");
    let (code, stdout, stderr) = scene.run(&["--no-sandbox", "check"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("hook guard: behind `hookhost bridge`, a call of a tool hookhost has no name for is blocked (unknown_tools = \"block\")\n"),
        "{stdout}"
    );
    let gemini = "Gemini CLI: no hookhost name for read_many_files, list_directory, ";
    for agent in [
        "Claude Code",
        "Codex",
        "Gemini CLI",
        "Cursor",
        "Copilot CLI",
        "Qwen Code",
        "Kimi Code",
        "Kiro CLI",
    ] {
        assert_eq!(
            stdout
                .lines()
                .filter(|l| l.starts_with(&format!("{agent}: no hookhost name for ")))
                .count(),
            1,
            "{agent}: {stdout}"
        );
    }
    assert!(stdout.contains(gemini), "{stdout}");

    let (_, stdout, stderr) = scene.run(&["doctor"]);
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("- tools: "))
            .count(),
        8,
        "{stdout}{stderr}"
    );
    assert!(stdout.contains(&format!("- tools: {gemini}")), "{stdout}");
}
