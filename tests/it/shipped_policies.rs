//! The policies hookhost ships (`no-force-push.wasm`, `protect-paths.wasm`, and the
//! Python and JavaScript guards), configured exactly as the README and the demo show
//! them (`tools = [...]`, no `envelope` key), judge every agent's calls through the real
//! binary's bridge as they judge `pre-tool-use`: a force push and a write of `.env` or
//! `secrets/…` are denied in each agent's own form, a harmless call is not.
//!
//! The rule that makes this hold is `HookDef::input_shape` (docs/envelopes.md): a WASM
//! hook reads the spec's envelope under every front end. The helpers hook authors copy
//! (the hookhost-hook crate, `hookhost_hook.py`, `hookhost_hook.js`) also read Claude
//! Code's input in hookhost's vocabulary, which the tests with `envelope = "claude-code"`
//! and with the native `python3 guard.py` (an argv hook, handed Claude Code's input
//! behind the bridge) show.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::bridge::{assert_no_objection, bridge_json, deny_reason};
use crate::support::{SLOW_COMPILE_OK, Scene, component_or_skip, hook, plugin, run_with_stdin};

/// What a call does, in hookhost's terms.
#[derive(Clone, Copy, Debug)]
enum Call<'a> {
    Shell(&'a str),
    Write(&'a str),
    Edit(&'a str),
}

/// The agents whose calls are judged: each one's flag.
const AGENTS: [&str; 8] = [
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "copilot",
    "qwen-code",
    "kimi-code",
    "kiro",
];

/// `agent`'s own PreToolUse payload for `call` in `project` (its tool names and fields, as
/// examples/agents/ shows them), or `None` when the agent has no such tool (Codex writes
/// files only with `apply_patch`).
fn payload(agent: &str, project: &Path, session: &str, call: Call<'_>) -> Option<Value> {
    let cwd = project.to_str().unwrap();
    let abs = |rel: &str| project.join(rel).to_str().unwrap().to_string();
    let (tool, input): (&str, Value) = match (agent, call) {
        ("claude-code" | "codex" | "kimi-code", Call::Shell(c)) => ("Bash", json!({"command": c})),
        ("claude-code", Call::Write(p)) => {
            ("Write", json!({"file_path": abs(p), "content": "K=1"}))
        }
        ("claude-code", Call::Edit(p)) => (
            "Edit",
            json!({"file_path": abs(p), "old_string": "a", "new_string": "b"}),
        ),
        ("codex", _) => return None,
        ("gemini" | "qwen-code", Call::Shell(c)) => ("run_shell_command", json!({"command": c})),
        ("gemini" | "qwen-code", Call::Write(p)) => {
            ("write_file", json!({"file_path": abs(p), "content": "K=1"}))
        }
        ("gemini", Call::Edit(p)) => (
            "replace",
            json!({"file_path": abs(p), "old_string": "a", "new_string": "b"}),
        ),
        ("qwen-code", Call::Edit(p)) => (
            "edit",
            json!({"file_path": abs(p), "old_string": "a", "new_string": "b"}),
        ),
        ("cursor", Call::Shell(c)) => ("Shell", json!({"command": c, "working_directory": cwd})),
        ("cursor", Call::Write(p) | Call::Edit(p)) => {
            ("Write", json!({"path": abs(p), "contents": "K=1"}))
        }
        ("copilot", Call::Shell(c)) => ("bash", json!({"command": c})),
        ("copilot", Call::Write(p)) => ("create", json!({"path": abs(p), "file_text": "K=1"})),
        ("copilot", Call::Edit(p)) => (
            "edit",
            json!({"path": abs(p), "old_str": "a", "new_str": "b"}),
        ),
        ("kimi-code", Call::Write(p)) => ("WriteFile", json!({"path": abs(p), "content": "K=1"})),
        ("kimi-code", Call::Edit(p)) => (
            "StrReplaceFile",
            json!({"path": abs(p), "old": "a", "new": "b"}),
        ),
        ("kiro", Call::Shell(c)) => ("execute_bash", json!({"command": c})),
        ("kiro", Call::Write(p)) => (
            "fs_write",
            json!({"command": "create", "path": abs(p), "file_text": "K=1"}),
        ),
        ("kiro", Call::Edit(p)) => (
            "fs_write",
            json!({"command": "str_replace", "path": abs(p), "old_str": "a", "new_str": "b"}),
        ),
        (other, _) => panic!("no payload for {other}"),
    };
    Some(match agent {
        "claude-code" | "codex" | "qwen-code" => json!({
            "session_id": session, "transcript_path": null, "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1",
        }),
        "gemini" => json!({
            "session_id": session, "transcript_path": "/t/s.jsonl", "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "2026-12-01T10:00:00.000Z",
            "tool_name": tool, "tool_input": input,
        }),
        "cursor" => json!({
            "conversation_id": session, "generation_id": "g", "hook_event_name": "preToolUse",
            "cursor_version": "2.1.0", "workspace_roots": [cwd], "transcript_path": null,
            "tool_name": tool, "tool_input": input, "tool_use_id": "t1", "cwd": cwd,
        }),
        "copilot" => json!({
            "sessionId": session, "timestamp": 1764496800000u64, "cwd": cwd,
            "toolName": tool, "toolArgs": input,
        }),
        "kimi-code" => json!({
            "hook_event_name": "PreToolUse", "session_id": session, "cwd": cwd,
            "tool_name": tool, "tool_input": input, "tool_call_id": "call_k1",
        }),
        "kiro" => {
            json!({"hook_event_name": "preToolUse", "cwd": cwd, "tool_name": tool, "tool_input": input})
        }
        other => panic!("no envelope for {other}"),
    })
}

/// The forbidden calls of each policy and one harmless call of the same kind.
fn shell_calls() -> (Vec<Call<'static>>, Vec<Call<'static>>) {
    (
        vec![
            Call::Shell("git push --force origin main"),
            Call::Shell("git push origin +main"),
        ],
        vec![Call::Shell("git push origin main")],
    )
}

fn file_calls() -> (Vec<Call<'static>>, Vec<Call<'static>>) {
    (
        vec![
            Call::Write(".env"),
            Call::Edit("secrets/k.pem"),
            Call::Write("deploy/.env"),
            // Without case (P2): on macOS and Windows these are the files above.
            Call::Write(".ENV"),
            Call::Edit("SECRETS/k.pem"),
        ],
        vec![Call::Write("src/main.rs"), Call::Edit("README.md")],
    )
}

/// Runs every agent's forbidden and harmless calls against the scene's config: each
/// forbidden one is denied with a reason holding `reason`, each harmless one is not.
fn judge_every_agent(scene: &Scene, calls: (Vec<Call<'_>>, Vec<Call<'_>>), reason: &str) {
    let (forbidden, harmless) = calls;
    let mut judged = 0;
    for agent in AGENTS {
        for (n, call) in forbidden.iter().enumerate() {
            let Some(payload) = payload(agent, &scene.project, &format!("{agent}-f{n}"), *call)
            else {
                continue;
            };
            let reply = bridge_json(scene, agent, &payload);
            let denied = deny_reason(agent, &reply);
            assert!(
                denied.as_deref().is_some_and(|r| r.contains(reason)),
                "{agent} {call:?}: not denied with {reason:?}: {reply:?}"
            );
            judged += 1;
        }
        for (n, call) in harmless.iter().enumerate() {
            let Some(payload) = payload(agent, &scene.project, &format!("{agent}-h{n}"), *call)
            else {
                continue;
            };
            assert_no_objection(agent, &bridge_json(scene, agent, &payload));
            judged += 1;
        }
    }
    assert!(judged >= 8 * 2, "only {judged} calls were judged");
}

fn pre_tool_use(name: &str, command: &[&str], tools: &str, extra: &str) -> String {
    hook(
        name,
        "PreToolUse",
        command,
        &format!("tools = {tools}\n{extra}"),
    )
}

const FILE_TOOLS: &str = "[\"write_file\", \"edit_file\"]";
const PATTERNS: [&str; 2] = [".env", "secrets/"];

fn file_policy(name: &str, wasm: &Path, extra: &str) -> String {
    let mut command = vec![wasm.to_str().unwrap()];
    command.extend(PATTERNS);
    pre_tool_use(name, &command, FILE_TOOLS, extra)
}

#[test]
fn no_force_push_denies_every_agents_force_push_as_the_readme_configures_it() {
    for extra in ["", "envelope = \"claude-code\""] {
        let scene = Scene::new();
        let wasm = plugin(&scene, "no-force-push.wasm");
        scene.write_config(&pre_tool_use(
            "no-force-push",
            &[wasm.to_str().unwrap()],
            "[\"bash\", \"exec\"]",
            extra,
        ));
        judge_every_agent(&scene, shell_calls(), "force-push is not allowed here");
        // The same hook, the same call, through hookhost's own front end.
        let (code, verdict) = scene.gate(&[], "bash", r#"{"command":"git push origin +main"}"#);
        assert_eq!(
            (code, verdict["outcome"].as_str()),
            (1, Some("block")),
            "{verdict}"
        );
    }
}

#[test]
fn protect_paths_denies_every_agents_secret_writes_as_the_readme_configures_it() {
    for extra in ["", "envelope = \"claude-code\""] {
        let scene = Scene::new();
        let wasm = plugin(&scene, "protect-paths.wasm");
        scene.write_config(&file_policy("protect-paths", &wasm, extra));
        judge_every_agent(
            &scene,
            file_calls(),
            "is not allowed: the path is protected",
        );
    }
}

/// A component built by another toolchain, copied outside the project.
fn component(scene: &Scene, test: &str, name: &str) -> Option<PathBuf> {
    let built = component_or_skip(test, name)?;
    let to = scene.hooks.join(name);
    std::fs::copy(&built, &to).unwrap();
    Some(to)
}

#[test]
fn the_python_and_javascript_guards_deny_every_agents_secret_writes() {
    for name in ["guard-py.wasm", "guard-js.wasm"] {
        for extra in ["", "envelope = \"claude-code\""] {
            let scene = Scene::new();
            let Some(wasm) = component(&scene, "shipped_policies::guards", name) else {
                return;
            };
            scene.write_config(&format!(
                "{SLOW_COMPILE_OK}{}",
                file_policy("guard", &wasm, extra)
            ));
            judge_every_agent(
                &scene,
                file_calls(),
                "is not allowed: the path is protected",
            );
        }
    }
}

/// `guard.py` run natively is an argv hook: behind the bridge it is handed Claude Code's
/// input (`Write`, an absolute `file_path`), which its helper reads as hookhost's.
#[test]
fn the_native_python_guard_reads_claude_codes_input_through_its_helper() {
    let scene = Scene::new();
    let plugins = Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins/python");
    for file in ["guard.py", "hookhost_hook.py"] {
        std::fs::copy(plugins.join(file), scene.hooks.join(file)).unwrap();
    }
    let guard = scene.hooks.join("guard.py");
    // The path guard checks an argv hook's path-shaped arguments (`secrets/`) against the
    // project, so this one names the file instead.
    let command = ["python3", guard.to_str().unwrap(), ".env", "k.pem"];
    scene.write_config(&pre_tool_use(
        "guard",
        &command,
        FILE_TOOLS,
        "sandbox = false",
    ));
    let (code, stdout, stderr) = scene.run(&["check"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Claude Code's input behind `hookhost bridge`"),
        "{stdout}"
    );
    judge_every_agent(
        &scene,
        file_calls(),
        "is not allowed: the path is protected",
    );
}

/// `check` says which shape each hook reads, here and behind the bridge.
#[test]
fn check_shows_the_shape_each_hook_reads() {
    let scene = Scene::new();
    let wasm = plugin(&scene, "no-force-push.wasm");
    let script = scene.script("a.sh", "exit 0");
    let w = wasm.to_str().unwrap();
    let s = script.to_str().unwrap();
    scene.write_config(
        &[
            pre_tool_use("wasm", &[w], "[\"bash\"]", ""),
            pre_tool_use("argv", &["/bin/sh", s], "[\"bash\"]", ""),
            pre_tool_use(
                "wasm-claude",
                &[w],
                "[\"bash\"]",
                "envelope = \"claude-code\"",
            ),
            pre_tool_use(
                "argv-spec",
                &["/bin/sh", s],
                "[\"bash\"]",
                "envelope = \"spec\"",
            ),
        ]
        .concat(),
    );
    let (code, stdout, stderr) = scene.run(&["check"]);
    assert_eq!(code, 0, "{stderr}");
    for expected in [
        "hook wasm reads the spec's envelope everywhere (a WASM hook)",
        "hook argv reads the spec's envelope here and Claude Code's input behind `hookhost bridge` (an argv hook without envelope)",
        "hook wasm-claude reads Claude Code's input everywhere (envelope = \"claude-code\")",
        "hook argv-spec reads the spec's envelope everywhere (envelope = \"spec\")",
    ] {
        assert!(
            stdout.lines().any(|l| l == expected),
            "{expected:?} not in:\n{stdout}"
        );
    }
}

/// Every file a call touches reaches the path policies: a patch's files
/// (Codex's and Copilot's `apply_patch`, and Codex's shell running `apply_patch`), each
/// file of a multi-file read (Gemini's and Qwen's `read_many_files`, Kiro's `fs_read`
/// with several operations), Cursor's `Delete`; and input typed into Copilot's running
/// shell (`write_bash`) reaches shell policies.
#[test]
fn every_file_a_call_touches_reaches_the_path_policies() {
    let scene = Scene::new();
    let protect = plugin(&scene, "protect-paths.wasm");
    let no_force = plugin(&scene, "no-force-push.wasm");
    // A Claude Code hook for reads, as people write them: the basename of `file_path`.
    let reads = scene.script(
        "no-env-reads.sh",
        "python3 -c 'import json,os,sys; d=json.load(sys.stdin); p=d[\"tool_input\"].get(\"file_path\",\"\"); sys.exit(0) if os.path.basename(p)!=\".env\" else (print(\"no reading .env\", file=sys.stderr), sys.exit(2))'",
    );
    scene.write_config(
        &[
            file_policy("protect-paths", &protect, ""),
            pre_tool_use(
                "no-force-push",
                &[no_force.to_str().unwrap()],
                "[\"bash\", \"exec\"]",
                "",
            ),
            pre_tool_use(
                "no-env-reads",
                &["/bin/sh", reads.to_str().unwrap()],
                "[\"read_file\"]",
                "sandbox = false",
            ),
        ]
        .concat(),
    );
    let p = scene.project.to_str().unwrap();
    let add_env = "*** Begin Patch\n*** Add File: src/ok.rs\n+fn ok() {}\n*** Add File: .env\n+SECRET=1\n*** End Patch\n";
    let update = "*** Begin Patch\n*** Update File: secrets/k.pem\n@@\n-a\n+b\n*** End Patch\n";
    let moved = "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: deploy/.env\n@@\n-a\n+b\n*** End Patch\n";
    let delete = "*** Begin Patch\n*** Delete File: .env\n*** End Patch\n";
    let harmless = "*** Begin Patch\n*** Add File: src/new.rs\n+fn f() {}\n*** Update File: README.md\n@@\n-a\n+b\n*** End Patch\n";
    let codex = |session: &str, tool: &str, input: Value| {
        json!({"session_id": session, "turn_id": "t", "transcript_path": null, "cwd": p,
               "hook_event_name": "PreToolUse", "model": "gpt-5.5", "permission_mode": "default",
               "tool_name": tool, "tool_input": input, "tool_use_id": "call_1"})
    };
    let copilot = |session: &str, tool: &str, input: Value| json!({"sessionId": session, "timestamp": 1, "cwd": p, "toolName": tool, "toolArgs": input});
    let gemini = |session: &str, tool: &str, input: Value| {
        json!({"session_id": session, "transcript_path": "/t/s.jsonl", "cwd": p,
               "hook_event_name": "BeforeTool", "timestamp": "2026-12-01T10:00:00.000Z",
               "tool_name": tool, "tool_input": input})
    };
    let denied = [
        (
            "codex",
            codex("c1", "apply_patch", json!({"command": add_env})),
            "protect-paths",
        ),
        (
            "codex",
            codex("c2", "apply_patch", json!({"command": update})),
            "protect-paths",
        ),
        (
            "codex",
            codex("c3", "apply_patch", json!({"command": moved})),
            "protect-paths",
        ),
        (
            "codex",
            codex("c4", "apply_patch", json!({"command": delete})),
            "protect-paths",
        ),
        (
            "codex",
            codex(
                "c5",
                "Bash",
                json!({"command": format!("apply_patch <<'EOF'\n{add_env}EOF\n")}),
            ),
            "protect-paths",
        ),
        (
            "copilot",
            // As Copilot CLI 1.0.102 sends it (captured): `toolArgs` is the patch.
            copilot("p1", "apply_patch", json!(update)),
            "protect-paths",
        ),
        (
            "copilot",
            copilot(
                "p2",
                "write_bash",
                json!({"shellId": "1", "input": "git push --force origin main\n"}),
            ),
            "no-force-push",
        ),
        (
            "copilot",
            copilot(
                "p3",
                "write_powershell",
                json!({"shellId": "1", "input": "git push origin +main\n"}),
            ),
            "no-force-push",
        ),
        // Hand-written: Gemini CLI 0.61.0 never offers read_many_files to the model, so
        // no real payload exists (docs/agents.md, "Gemini CLI", "In the tests").
        (
            "gemini",
            gemini(
                "g1",
                "read_many_files",
                json!({"include": ["README.md", ".env"]}),
            ),
            "no-env-reads",
        ),
        (
            "qwen-code",
            json!({"session_id": "q1", "transcript_path": null, "cwd": p, "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "read_many_files",
                   "tool_input": {"paths": [".env"]}, "tool_use_id": "toolu_q"}),
            "no-env-reads",
        ),
        (
            "kiro",
            json!({"hook_event_name": "preToolUse", "cwd": p, "tool_name": "fs_read",
                   "tool_input": {"operations": [{"mode": "Line", "path": format!("{p}/README.md")},
                                                 {"mode": "Line", "path": format!("{p}/.env")}]}}),
            "no-env-reads",
        ),
        (
            "claude-code",
            json!({"session_id": "n1", "transcript_path": "/t/n.jsonl", "cwd": p, "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "NotebookEdit",
                   "tool_input": {"notebook_path": format!("{p}/secrets/train.ipynb"), "cell_id": "c1",
                                  "new_source": "import os", "edit_mode": "replace"},
                   "tool_use_id": "toolu_n"}),
            "protect-paths",
        ),
        (
            "qwen-code",
            json!({"session_id": "n2", "transcript_path": null, "cwd": p, "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "notebook_edit",
                   "tool_input": {"notebook_path": "secrets/train.ipynb", "new_source": "x"},
                   "tool_use_id": "toolu_n2"}),
            "protect-paths",
        ),
        // An MCP server's file arguments, whatever its tools are called.
        (
            "claude-code",
            json!({"session_id": "m1", "transcript_path": "/t/m.jsonl", "cwd": p, "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "mcp__filesystem__write_file",
                   "tool_input": {"path": format!("{p}/.env"), "content": "K=1"},
                   "tool_use_id": "toolu_m"}),
            "protect-paths",
        ),
        (
            "gemini",
            gemini(
                "m2",
                "mcp_filesystem_move_file",
                json!({"source": "notes.txt", "destination": "secrets/k.pem"}),
            ),
            "protect-paths",
        ),
        // A field of Claude Code's name beside the agent's own is not what the agent runs.
        (
            "copilot",
            copilot(
                "d1",
                "write_bash",
                json!({"shellId": "1", "input": "git push --force origin main\n", "command": "git status"}),
            ),
            "no-force-push",
        ),
        (
            "cursor",
            json!({"conversation_id": "u1", "generation_id": "g", "hook_event_name": "preToolUse",
                   "workspace_roots": [p], "transcript_path": null, "tool_name": "Delete",
                   "tool_input": {"file_path": format!("{p}/.env")}, "tool_use_id": "t1", "cwd": p}),
            "protect-paths",
        ),
    ];
    for (agent, payload, hook) in denied {
        let reply = bridge_json(&scene, agent, &payload);
        let reason = deny_reason(agent, &reply);
        assert!(
            reason
                .as_deref()
                .is_some_and(|r| r.contains(&format!("hook \"{hook}\""))),
            "{agent} {payload}: not denied by {hook}: {reply:?}"
        );
    }
    for (agent, payload) in [
        (
            "codex",
            codex("h1", "apply_patch", json!({"command": harmless})),
        ),
        (
            "copilot",
            copilot(
                "h2",
                "write_bash",
                json!({"shellId": "1", "input": "git push origin main\n"}),
            ),
        ),
        (
            "gemini",
            gemini(
                "h3",
                "read_many_files",
                json!({"include": ["README.md", "src/*.rs"]}),
            ),
        ),
    ] {
        assert_no_objection(agent, &bridge_json(&scene, agent, &payload));
    }
}

/// This file's table of agents is every agent the bridge answers, in its order, so that a
/// new agent cannot be left out of these tests.
#[test]
fn the_agents_table_is_every_agent() {
    let flags: Vec<&str> = hookhost::bridge::AgentKind::ALL
        .iter()
        .map(|a| a.flag_name())
        .collect();
    assert_eq!(AGENTS.to_vec(), flags);
}

/// A Claude Code call as the bridge gets it: `tool` with `input`, in `cwd`.
fn claude_call(session: &str, cwd: &Path, tool: &str, input: Value) -> Value {
    json!({
        "session_id": session, "transcript_path": null, "cwd": cwd,
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input, "tool_use_id": format!("toolu_{session}"),
    })
}

/// The project is the one the agent's session started in: after the model's `cd secrets`
/// (Claude Code's next payload says `"cwd": ".../secrets"`), a write of `secrets/k.pem`
/// is still `secrets/k.pem` to `protect-paths`, not `k.pem` (docs/agents.md#the-project).
#[test]
fn the_project_stays_where_the_agents_session_started_when_the_model_moves() {
    let scene = Scene::new();
    let wasm = plugin(&scene, "protect-paths.wasm");
    scene.write_config(&file_policy("protect-paths", &wasm, ""));
    let secrets = scene.project.join("secrets");
    std::fs::create_dir_all(&secrets).unwrap();
    let write = json!({"file_path": secrets.join("k.pem"), "content": "x"});

    // The session's first call, in the project; then the model moved into secrets/.
    let first = claude_call("moved-1", &scene.project, "Bash", json!({"command": "ls"}));
    assert_no_objection("claude-code", &bridge_json(&scene, "claude-code", &first));
    let moved = claude_call("moved-1", &secrets, "Write", write.clone());
    let denied = deny_reason("claude-code", &bridge_json(&scene, "claude-code", &moved));
    assert!(
        denied
            .as_deref()
            .is_some_and(|r| r.contains("secrets/k.pem is not allowed: the path is protected")),
        "{denied:?}"
    );

    // A session whose first call is already in secrets/: Claude Code's CLAUDE_PROJECT_DIR
    // names the project's root, and it is the project.
    let stated = claude_call("stated-1", &secrets, "Write", write);
    let reply = run_with_stdin(
        scene
            .hookhost()
            .env("CLAUDE_PROJECT_DIR", &scene.project)
            .args(["--no-sandbox", "bridge", "--agent", "claude-code"]),
        stated.to_string().as_bytes(),
    );
    let denied = deny_reason("claude-code", &reply);
    assert!(
        denied
            .as_deref()
            .is_some_and(|r| r.contains("secrets/k.pem is not allowed: the path is protected")),
        "{denied:?}"
    );
}
