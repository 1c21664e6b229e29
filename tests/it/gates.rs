//! PreToolUse and UserPromptSubmit gates end to end through the real binary: envelopes,
//! answers in Claude Code's formats, dispatch order, failures and their messages.

use crate::support;
use crate::support::{Prerequisite, Scene, hook, message, sh_hook};
use serde_json::json;

const NO_SANDBOX: &[&str] = &["--no-sandbox"];

#[test]
fn pre_tool_use_envelope_is_the_spec_line_with_relative_paths() {
    let scene = Scene::new();
    let echo = scene.script("echo.sh", "cat >&2; exit 2");
    scene.write_config(&sh_hook("echo", &echo, ""));
    let project = scene.project.display().to_string();
    let input = json!({"path": format!("{project}/src/main.rs"), "other": "/etc/hosts", "n": 1});
    let (code, v) = scene.gate(
        &[
            "--no-sandbox",
            "--session-id",
            "01M",
            "--permission-mode",
            "plan",
        ],
        "write_file",
        &format!("{input} --tool-use-id 7EX").replace(" --tool-use-id 7EX", ""),
    );
    assert_eq!(code, 1);
    let expected = format!(
        "{{\"session_id\":\"01M\",\"hook_event_name\":\"PreToolUse\",\"cwd\":\"{project}\",\"permission_mode\":\"plan\",\"tool_name\":\"write_file\",\"tool_input\":{{\"path\":\"src/main.rs\",\"other\":\"/etc/hosts\",\"n\":1}},\"tool_use_id\":\""
    );
    assert!(
        message(&v).starts_with(&format!(
            "blocked by the user's hook \"echo\": {expected}toolu_"
        )),
        "{}",
        message(&v)
    );

    let out = scene
        .hookhost()
        .args([
            "--no-sandbox",
            "--session-id",
            "01M",
            "pre-tool-use",
            "--json",
            "--tool",
            "bash",
        ])
        .args(["--input", "{\"command\":\"ls\"}", "--tool-use-id", "7EX"])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    assert!(
        message(&v).ends_with(",\"tool_use_id\":\"7EX\"}"),
        "{}",
        message(&v)
    );
}

#[test]
fn prompt_envelope_has_no_turn_id() {
    let scene = Scene::new();
    let echo = scene.script("echo.sh", "cat >&2; exit 2");
    scene.write_config(&hook(
        "echo",
        "UserPromptSubmit",
        &["/bin/sh", echo.to_str().unwrap()],
        "",
    ));
    let project = scene.project.display().to_string();
    let (code, v) = scene.prompt(
        &["--no-sandbox", "--session-id", "01M"],
        "ooo seed my requirements",
    );
    assert_eq!(code, 1);
    assert_eq!(
        message(&v),
        format!(
            "✗ prompt blocked by hook \"echo\": {{\"session_id\":\"01M\",\"hook_event_name\":\"UserPromptSubmit\",\"cwd\":\"{project}\",\"permission_mode\":\"auto\",\"prompt\":\"ooo seed my requirements\"}}"
        )
    );
}

#[test]
fn answers_in_claude_code_formats() {
    let scene = Scene::new();
    let cases = [
        (
            "echo 'no force' >&2; exit 2",
            1,
            Some("blocked by the user's hook \"h\": no force"),
        ),
        (
            "exit 2",
            1,
            Some("blocked by the user's hook \"h\": no reason given"),
        ),
        (
            r#"echo '{"decision":"block","reason":"  r1  "}'"#,
            1,
            Some("blocked by the user's hook \"h\": r1"),
        ),
        (
            r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r2"}}'"#,
            1,
            Some("blocked by the user's hook \"h\": r2"),
        ),
        (
            r#"echo '{"continue":false,"stopReason":"r3"}'"#,
            1,
            Some("blocked by the user's hook \"h\": r3"),
        ),
        (
            r#"echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'"#,
            0,
            None,
        ),
        (
            r#"echo '{"hookSpecificOutput":{"permissionDecision":"ask"},"systemMessage":"x","additionalContext":"y"}'"#,
            0,
            None,
        ),
        ("exit 0", 0, None),
        (r#"echo '{"unknown":1}'"#, 0, None),
    ];
    for (body, expected_code, expected_message) in cases {
        let script = scene.script("h.sh", body);
        scene.write_config(&sh_hook("h", &script, ""));
        let (code, v) = scene.gate(NO_SANDBOX, "bash", "{\"command\":\"ls\"}");
        assert_eq!(code, expected_code, "{body}: {v}");
        assert_eq!(v["message"].as_str(), expected_message, "{body}");
    }
}

#[test]
fn output_that_is_not_hook_json_is_a_failure_on_pre_tool_use() {
    let scene = Scene::new();
    for body in [
        "echo 'plain text'",
        "echo '{broken'",
        "echo '[1,2]'",
        r#"echo '{"decision":7}'"#,
    ] {
        let script = scene.script("h.sh", body);
        scene.write_config(&sh_hook("h", &script, ""));
        let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
        assert_eq!(code, 1, "{body}");
        assert_eq!(
            message(&v),
            "the user's hook \"h\" failed (printed output that is not hook JSON), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing.",
            "{body}"
        );
        assert_eq!(
            v["warnings"],
            json!([
                "⚠ hook h is failing (printed output that is not hook JSON), so the calls it covers are blocked. Fix it, set on_failure = \"continue\", or restart with --no-hooks."
            ])
        );
    }
}

#[test]
fn failure_kinds_and_on_failure() {
    let scene = Scene::new();
    let not_executable = scene.hooks.join("plain.txt");
    std::fs::write(&not_executable, "not a program").unwrap();
    let cases: Vec<(String, &str)> = vec![
        ("exit 3".into(), "exited with code 3"),
        ("kill -9 $$".into(), "was killed by a signal"),
        (
            "head -c 1100000 /dev/zero".into(),
            "printed more than 1 MiB on stdout",
        ),
        (
            "head -c 1100000 /dev/zero >&2".into(),
            "printed more than 1 MiB on stderr",
        ),
    ];
    for (body, kind) in &cases {
        let script = scene.script("h.sh", body);
        scene.write_config(&sh_hook("h", &script, ""));
        let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
        assert_eq!(code, 1, "{body}: {v}");
        assert_eq!(
            message(&v),
            format!(
                "the user's hook \"h\" failed ({kind}), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing."
            )
        );
        // on_failure = "continue": the call goes ahead, with the other warning.
        scene.write_config(&sh_hook("h", &script, "on_failure = \"continue\""));
        let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
        assert_eq!(code, 0, "{body}: {v}");
        assert_eq!(
            v["warnings"],
            json!([format!(
                "⚠ hook h failed ({kind}); on_failure = \"continue\" let the call through."
            )])
        );
    }
    // could not start
    scene.write_config(&hook(
        "h",
        "PreToolUse",
        &[not_executable.to_str().unwrap()],
        "",
    ));
    let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
    assert_eq!(code, 1);
    assert!(
        message(&v).starts_with("the user's hook \"h\" failed (could not start: "),
        "{}",
        message(&v)
    );
}

#[test]
fn timeout_kills_the_hook_and_says_so() {
    let scene = Scene::new();
    let script = scene.script("slow.sh", "sleep 97.531");
    scene.write_config(&sh_hook("slow", &script, "timeout = 1"));
    let started = std::time::Instant::now();
    let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
    assert_eq!(code, 1);
    assert!(message(&v).contains("failed (timed out after 1 s), so this call was blocked"));
    // A hang check, not a speed target: the hook would sleep for 97 s.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(
        !support::process_alive("sleep 97.531"),
        "the timed-out hook survived"
    );
}

#[test]
fn first_block_ends_the_run_and_hooks_run_in_file_order() {
    let scene = Scene::new();
    let marker = scene.root.path().join("second-ran");
    let first = scene.script("first.sh", "echo first >&2; exit 2");
    let second = scene.script(
        "second.sh",
        &format!("touch '{}'; exit 2", marker.display()),
    );
    scene.write_config(&format!(
        "{}{}",
        sh_hook("first", &first, ""),
        sh_hook("second", &second, "")
    ));
    let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
    assert_eq!(code, 1);
    assert_eq!(v["hook"], "first");
    assert!(!marker.exists(), "a hook after the first block ran");

    // A hook that covers other tools does not run.
    scene.write_config(&format!(
        "{}{}",
        sh_hook("first", &first, "tools = [\"write_file\"]"),
        sh_hook("second", &second, "")
    ));
    let (_, v) = scene.gate(NO_SANDBOX, "bash", "{}");
    assert_eq!(v["hook"], "second");
    assert!(marker.exists());
}

#[test]
fn a_hook_never_reading_a_large_input_does_not_deadlock() {
    let scene = Scene::new();
    let script = scene.script(
        "lazy.sh",
        "sleep 0.2; echo done-without-reading >&2; exit 2",
    );
    scene.write_config(&sh_hook("lazy", &script, "timeout = 20"));
    let big = json!({ "command": "x".repeat(2 * 1024 * 1024) }).to_string();
    let mut child = scene
        .hookhost()
        .args(["--no-sandbox", "pre-tool-use", "--json", "--tool", "bash"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(big.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = support::verdict(&out);
    assert_eq!(
        message(&v),
        "blocked by the user's hook \"lazy\": done-without-reading"
    );
}

#[test]
fn hooks_run_from_root_without_provider_keys() {
    let scene = Scene::new();
    let script = scene.script(
        "env.sh",
        r#"printf '%s|%s|%s|%s' "$(pwd)" "${ANTHROPIC_API_KEY-unset}" "${MY_SERVICE_API_KEY-unset}" "${KEEP_ME-unset}" >&2; exit 2"#,
    );
    scene.write_config(&sh_hook("env", &script, ""));
    let out = scene
        .hookhost()
        .env("ANTHROPIC_API_KEY", "sk-ant-secret")
        .env("MY_SERVICE_API_KEY", "secret2")
        .env("KEEP_ME", "kept")
        .args([
            "--no-sandbox",
            "pre-tool-use",
            "--json",
            "--tool",
            "bash",
            "--input",
            "{}",
        ])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    assert_eq!(
        message(&v),
        "blocked by the user's hook \"env\": /|unset|unset|kept"
    );
}

#[test]
fn invalid_utf8_is_decoded_lossily() {
    let scene = Scene::new();
    let script = scene.script("bytes.sh", r"printf 'bad \377\376 bytes' >&2; exit 2");
    scene.write_config(&sh_hook("bytes", &script, ""));
    let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
    assert_eq!(code, 1);
    assert_eq!(
        message(&v),
        "blocked by the user's hook \"bytes\": bad \u{fffd}\u{fffd} bytes"
    );
}

#[test]
fn a_background_child_holding_stdout_is_killed_and_the_hook_returns() {
    let scene = Scene::new();
    let script = scene.script(
        "bg.sh",
        "sleep 86.421 &\necho '{\"decision\":\"block\",\"reason\":\"bg\"}'\nexit 0",
    );
    scene.write_config(&sh_hook("bg", &script, "timeout = 60"));
    let started = std::time::Instant::now();
    let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
    assert_eq!(code, 1, "{v}");
    assert_eq!(message(&v), "blocked by the user's hook \"bg\": bg");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "waited for the background child"
    );
    assert!(
        !support::process_alive("sleep 86.421"),
        "the background child survived"
    );
}

#[test]
fn a_setsid_grandchild_does_not_outlive_the_hook() {
    let scene = Scene::new();
    let script = scene.script(
        "daemon.sh",
        "setsid sh -c 'sleep 75.309' </dev/null >/dev/null 2>&1 &\nsleep 0.3\nexit 0",
    );
    scene.write_config(&sh_hook("daemon", &script, "timeout = 60"));
    let (code, v) = scene.gate(NO_SANDBOX, "bash", "{}");
    assert_eq!(code, 0, "{v}");
    assert!(
        !support::process_alive("sleep 75.309"),
        "the setsid grandchild survived"
    );
}

#[test]
fn prompt_context_is_framed_and_a_block_drops_it() {
    let scene = Scene::new();
    let json_ctx = scene.script(
        "ctx.sh",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"use /ouroboros:seed"}}'"#,
    );
    let plain = scene.script(
        "plain.sh",
        "cat; echo '<skill-suggestion>seed</skill-suggestion>'",
    );
    let ctx = json_ctx.to_str().unwrap();
    let plain_s = plain.to_str().unwrap();
    scene.write_config(&format!(
        "{}{}",
        hook("keywords", "UserPromptSubmit", &["/bin/sh", ctx], ""),
        hook("echoer", "UserPromptSubmit", &["/bin/sh", plain_s], ""),
    ));
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "--session-id", "S", "prompt", "ooo seed"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let project = scene.project.display();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "ooo seed\n\nContext from the user's hook \"keywords\":\nuse /ouroboros:seed\n\nContext from the user's hook \"echoer\":\n{{\"session_id\":\"S\",\"hook_event_name\":\"UserPromptSubmit\",\"cwd\":\"{project}\",\"permission_mode\":\"auto\",\"prompt\":\"ooo seed\"}}\n<skill-suggestion>seed</skill-suggestion>\n"
        )
    );

    let blocker = scene.script("block.sh", "echo 'not today' >&2; exit 2");
    scene.write_config(&format!(
        "{}{}",
        hook("keywords", "UserPromptSubmit", &["/bin/sh", ctx], ""),
        hook(
            "gate",
            "UserPromptSubmit",
            &["/bin/sh", blocker.to_str().unwrap()],
            ""
        ),
    ));
    let (code, v) = scene.prompt(NO_SANDBOX, "hello");
    assert_eq!(code, 1);
    assert_eq!(message(&v), "✗ prompt blocked by hook \"gate\": not today");
    assert_eq!(v["context"], json!([]));
}

#[test]
fn long_context_is_cut_with_a_warning() {
    let scene = Scene::new();
    let script = scene.script("long.sh", "head -c 12000 /dev/zero | tr '\\0' 'a'");
    scene.write_config(&hook(
        "long",
        "UserPromptSubmit",
        &["/bin/sh", script.to_str().unwrap()],
        "",
    ));
    let (code, v) = scene.prompt(NO_SANDBOX, "hi");
    assert_eq!(code, 0);
    assert_eq!(v["context"][0]["text"].as_str().unwrap().len(), 10_000);
    assert_eq!(
        v["warnings"],
        json!(["⚠ hook long added 12000 characters of context; only the first 10,000 are kept."])
    );
}

#[test]
fn prompt_failures_use_the_prompt_wording() {
    let scene = Scene::new();
    let script = scene.script("slow.sh", "sleep 30");
    let s = script.to_str().unwrap();
    scene.write_config(&hook(
        "keywords",
        "UserPromptSubmit",
        &["/bin/sh", s],
        "timeout = 1",
    ));
    let (code, v) = scene.prompt(NO_SANDBOX, "hi");
    assert_eq!(code, 1);
    assert_eq!(
        message(&v),
        "✗ prompt blocked: hook \"keywords\" failed (timed out after 1 s)"
    );
    assert_eq!(
        v["warnings"],
        json!([
            "⚠ hook keywords is failing (timed out after 1 s), so your prompts are blocked. Fix it, set on_failure = \"continue\", or restart with --no-hooks."
        ])
    );
    scene.write_config(&hook(
        "keywords",
        "UserPromptSubmit",
        &["/bin/sh", s],
        "timeout = 1\non_failure = \"continue\"",
    ));
    let (code, v) = scene.prompt(NO_SANDBOX, "hi");
    assert_eq!(code, 0);
    assert_eq!(
        v["warnings"],
        json!([
            "⚠ hook keywords failed (timed out after 1 s); on_failure = \"continue\" let the prompt through."
        ])
    );
}

#[test]
fn sigint_interrupts_the_hook_group_and_exits_130() {
    let scene = Scene::new();
    let script = scene.script("slow.sh", "sleep 64.2 & sleep 64.3; wait");
    scene.write_config(&sh_hook("slow", &script, "timeout = 120"));
    let child = scene
        .hookhost()
        .args([
            "--no-sandbox",
            "pre-tool-use",
            "--json",
            "--tool",
            "bash",
            "--input",
            "{}",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    assert!(support::wait_until(|| support::process_alive("sleep 64.3")));
    // SAFETY: kill with a plain pid and signal number.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let v = support::verdict(&out);
    assert_eq!(v["outcome"], "interrupted");
    assert_eq!(v["hook"], "slow");
    assert!(!support::process_alive("sleep 64.2"));
    assert!(!support::process_alive("sleep 64.3"));
}

/// SIGTERM ends a one-shot command as SIGINT does (its hooks ended, the box's private
/// temp folder removed), with the shell's status for it, 143 (docs/threats.md#f17).
#[test]
fn sigterm_ends_the_hooks_removes_the_temp_folder_and_exits_143() {
    let scene = Scene::new();
    let script = scene.script("slow.sh", "sleep 65.2 & sleep 65.3; wait");
    scene.write_config(&sh_hook("slow", &script, "timeout = 120\nsandbox = true"));
    let session = format!("term{}", std::process::id());
    let child = scene
        .hookhost()
        .args([
            "--session-id",
            &session,
            "pre-tool-use",
            "--json",
            "--tool",
            "bash",
        ])
        .args(["--input", "{}"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    assert!(support::wait_until(|| support::process_alive("sleep 65.3")));
    let private_tmps = || {
        std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("hookhost-{session}-"))
            })
            .count()
    };
    let boxed = private_tmps() == 1;
    // SAFETY: kill with a plain pid and signal number.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(support::verdict(&out)["outcome"], "interrupted");
    assert!(!support::process_alive("sleep 65.2"));
    assert!(!support::process_alive("sleep 65.3"));
    if boxed {
        assert_eq!(private_tmps(), 0, "the box's temp folder was left behind");
    } else {
        support::skip_or_fail(
            "sigterm_ends_the_hooks_removes_the_temp_folder_and_exits_143 (the temp folder)",
            Prerequisite::Bubblewrap,
            "no box's temp folder was made to check (bubblewrap cannot run here?)",
        );
    }
}

#[test]
fn text_mode_exit_codes_and_stdout() {
    let scene = Scene::new();
    let script = scene.script("b.sh", "echo nope >&2; exit 2");
    scene.write_config(&sh_hook("b", &script, "tools = [\"bash\"]"));
    let out = scene
        .hookhost()
        .args([
            "--no-sandbox",
            "pre-tool-use",
            "--tool",
            "bash",
            "--input",
            "{}",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "blocked by the user's hook \"b\": nope\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("hooks: b (bash, on the host)"));
    // tool_input from stdin; a tool the hook does not cover goes ahead.
    let mut child = scene
        .hookhost()
        .args(["--no-sandbox", "pre-tool-use", "--tool", "read_file"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"path\":\"x\"}")
        .unwrap();
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(0));
    // Bad input JSON: could not run.
    let out = scene
        .hookhost()
        .args([
            "--no-sandbox",
            "pre-tool-use",
            "--tool",
            "bash",
            "--input",
            "{nope",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A closed stderr (its reader gone) changes no exit status: a block is still 1, never
/// a panic's 101 (docs/threats.md#f20).
#[test]
fn a_broken_stderr_pipe_changes_no_exit_status() {
    let scene = Scene::new();
    let script = scene.script("b.sh", "cat >/dev/null; echo nope >&2; exit 2");
    scene.write_config(&sh_hook("b", &script, "tools = [\"bash\"]"));
    for sandbox in [&["--no-sandbox"][..], &[][..]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = scene
            .hookhost()
            .args(sandbox)
            .args(["pre-tool-use", "--tool", "bash", "--input", "{}"])
            .stderr(writer)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{sandbox:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "blocked by the user's hook \"b\": nope\n"
        );
    }
}
