//! Hooks written for Claude Code, run behind the bridge for every agent: unchanged, reading Claude Code's shape by default and the spec's envelope on request.

use super::*;

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
