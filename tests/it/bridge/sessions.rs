//! One agent session across bridged calls: a shared record, replay, concurrent calls, and the time budget (a hook or a start that outlives it).

use super::*;

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
    assert!(super::is_late_start_deny(&out, 20), "{out:?}");
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
