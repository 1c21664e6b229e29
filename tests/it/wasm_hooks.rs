//! WASM hooks end to end through the real binary: real plugins built from `plugins/`
//! judging calls and prompts, the banner, start-up refusals, failures, the compile
//! cache, SIGINT, `serve` cancellation, and records with replay.

use crate::support;
use std::process::Stdio;
use std::time::Duration;

use crate::support::{Scene, Server, hook, message, plugin};
use serde_json::json;

fn wasm_hook(scene: &Scene, name: &str, file: &str, args: &[&str], extra: &str) -> String {
    let path = plugin(scene, file);
    let mut command = vec![path.to_str().unwrap().to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    let command: Vec<&str> = command.iter().map(String::as_str).collect();
    hook(name, "PreToolUse", &command, extra)
}

#[test]
fn real_plugins_judge_calls_and_prompts() {
    let scene = Scene::new();
    let keywords = plugin(&scene, "keywords.wasm");
    scene.write_config(&format!(
        "{}{}{}",
        wasm_hook(
            &scene,
            "no-force-push",
            "no-force-push.wasm",
            &[],
            "tools = [\"bash\", \"exec\"]"
        ),
        // Arguments of a WASM hook are the guest's, not host paths: ".git/" is a pattern.
        wasm_hook(
            &scene,
            "protect-paths",
            "protect-paths.wasm",
            &[".env", ".git/"],
            "tools = [\"write_file\"]"
        ),
        hook(
            "keywords",
            "UserPromptSubmit",
            &[keywords.to_str().unwrap()],
            ""
        ),
    ));
    let (code, v) = scene.gate(&[], "bash", r#"{"command":"git push origin +main"}"#);
    assert_eq!(code, 1);
    assert_eq!(
        message(&v),
        "blocked by the user's hook \"no-force-push\": force-push is not allowed here (git push +main)"
    );
    let (code, _) = scene.gate(&[], "bash", r#"{"command":"git status"}"#);
    assert_eq!(code, 0);
    let env_path = scene.project.join(".git/config");
    let (code, v) = scene.gate(
        &[],
        "write_file",
        &json!({"path": env_path, "content": ""}).to_string(),
    );
    assert_eq!(code, 1, "{v}");
    assert!(
        message(&v).starts_with("blocked by the user's hook \"protect-paths\": "),
        "{v}"
    );
    let (code, v) = scene.prompt(&[], "ooo seed my requirements");
    assert_eq!(code, 0);
    assert_eq!(v["context"][0]["hook"], "keywords");
    assert!(
        v["context"][0]["text"]
            .as_str()
            .unwrap()
            .contains("/ouroboros:seed")
    );
}

#[test]
fn the_banner_marks_wasm_hooks_and_sandbox_has_no_effect_on_them() {
    let scene = Scene::new();
    scene.write_config(&format!(
        "{}{}",
        wasm_hook(
            &scene,
            "a",
            "fixture-p1.wasm",
            &["allow"],
            "tools = [\"bash\"]"
        ),
        wasm_hook(
            &scene,
            "b",
            "fixture-p2.wasm",
            &["allow"],
            "sandbox = false"
        ),
    ));
    for flags in [&[][..], &["--no-sandbox"][..]] {
        let out = scene.hookhost().args(flags).arg("check").output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The banner, each hook's shape, then (for hook a's `tools`) what it does with a
        // tool hookhost has no name for, and one line per agent naming those it knows.
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            lines[..4],
            [
                "hooks: a (bash, wasm) · b (every tool, wasm)",
                "hook a reads the spec's envelope everywhere (a WASM hook)",
                "hook b reads the spec's envelope everywhere (a WASM hook)",
                "hook a: behind `hookhost bridge`, a call of a tool hookhost has no name for is blocked (unknown_tools = \"block\")",
            ],
            "{stdout}"
        );
        assert_eq!(
            lines.len(),
            4 + hookhost::bridge::AgentKind::ALL.len(),
            "{stdout}"
        );
        assert!(
            lines[4].starts_with("Claude Code: no hookhost name for "),
            "{stdout}"
        );
    }
}

#[test]
fn exit_codes_json_answers_and_failures() {
    let scene = Scene::new();
    let cases: &[(&str, &[&str], i32, &str)] = &[
        (
            "fixture-p1.wasm",
            &["block"],
            1,
            "blocked by the user's hook \"h\": blocked by fixture",
        ),
        (
            "fixture-p2.wasm",
            &["block-json"],
            1,
            "blocked by the user's hook \"h\": blocked by fixture json",
        ),
        ("fixture-p1.wasm", &["allow"], 0, ""),
        (
            "fixture-p1.wasm",
            &["exit", "3"],
            1,
            "the user's hook \"h\" failed (exited with code 3), so this call was blocked.",
        ),
        (
            "fixture-p1.wasm",
            &["loop"],
            1,
            "the user's hook \"h\" failed (timed out after 1 s), so this call was blocked.",
        ),
        (
            "fixture-p1.wasm",
            &["big-stdout", "2000000"],
            1,
            "the user's hook \"h\" failed (printed more than 1 MiB on stdout)",
        ),
        (
            "fixture-p1.wasm",
            &["alloc"],
            1,
            "the user's hook \"h\" failed (crashed: memory limit of 64 MiB reached",
        ),
        (
            "fixture-p2.wasm",
            &["unreachable"],
            1,
            "the user's hook \"h\" failed (crashed: wasm trap: wasm `unreachable` instruction executed)",
        ),
        (
            "fixture-p1.wasm",
            &["big-stdout", "10"],
            1,
            "the user's hook \"h\" failed (printed output that is not hook JSON)",
        ),
    ];
    for (file, args, code, expected) in cases {
        scene.write_config(&wasm_hook(&scene, "h", file, args, "timeout = 1"));
        let (got, v) = scene.gate(&[], "bash", "{}");
        assert_eq!(got, *code, "{file} {args:?}: {v}");
        assert!(
            message(&v).starts_with(expected),
            "{file} {args:?}: {}",
            message(&v)
        );
    }
}

/// A component that imports `wasi:sockets` starts; `check` says it gets no network.
#[test]
fn a_network_import_starts_and_check_says_it_gets_no_network() {
    let scene = Scene::new();
    scene.write_config(&wasm_hook(
        &scene,
        "net",
        "net-probe-p2.wasm",
        &["127.0.0.1:1"],
        "",
    ));
    let out = scene.hookhost().arg("check").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "note: hook net imports network interfaces (wasi:sockets or wasi:http); it gets no network"
        ),
        "{stderr}"
    );
}

#[test]
fn a_corrupt_module_fails_with_could_not_start_and_follows_on_failure() {
    let scene = Scene::new();
    let bad = scene.hooks.join("bad.wasm");
    std::fs::write(&bad, b"\0asm\x01\0\0\0garbage").unwrap();
    scene.write_config(&hook("bad", "PreToolUse", &[bad.to_str().unwrap()], ""));
    let out = scene.hookhost().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("⚠ hook bad could not start: "), "{stderr}");
    let (code, v) = scene.gate(&[], "bash", "{}");
    assert_eq!(code, 1);
    assert!(
        message(&v).starts_with("the user's hook \"bad\" failed (could not start: "),
        "{v}"
    );
    scene.write_config(&hook(
        "bad",
        "PreToolUse",
        &[bad.to_str().unwrap()],
        "on_failure = \"continue\"",
    ));
    let (code, v) = scene.gate(&[], "bash", "{}");
    assert_eq!(code, 0);
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("on_failure = \"continue\" let the call through.")
    );
}

#[test]
fn a_module_in_the_project_and_an_agent_writable_cache_are_refused() {
    let scene = Scene::new();
    let inside = scene.project.join("hook.wasm");
    std::fs::copy(support::wasm_dir().join("fixture-p1.wasm"), &inside).unwrap();
    scene.write_config(&hook(
        "inside",
        "PreToolUse",
        &[inside.to_str().unwrap(), "allow"],
        "",
    ));
    let out = scene.hookhost().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!(
        "hook inside: {} is in the project, so the agent could change it.",
        inside.display()
    )));

    let cache = scene.project.join("cache");
    scene.write_config(&format!(
        "[wasm]\ncache_dir = {:?}\n\n{}",
        cache.to_str().unwrap(),
        wasm_hook(&scene, "ok", "fixture-p1.wasm", &["allow"], "")
    ));
    let out = scene.hookhost().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "[wasm] cache_dir {} is in the project",
            cache.display()
        )),
        "{stderr}"
    );
}

#[test]
fn compiled_modules_are_cached_on_disk() {
    let scene = Scene::new();
    let cache = scene.root.path().join("wasm-cache");
    scene.write_config(&format!(
        "[wasm]\ncache_dir = {:?}\n\n{}",
        cache.to_str().unwrap(),
        wasm_hook(&scene, "ok", "no-force-push.wasm", &[], "")
    ));
    let (code, _) = scene.gate(&[], "bash", r#"{"command":"ls"}"#);
    assert_eq!(code, 0);
    assert_eq!(
        support::cache_artifacts(&cache).len(),
        1,
        "one compiled artifact"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let (code, v) = scene.gate(&[], "bash", r#"{"command":"git push -f"}"#);
    assert_eq!(code, 1, "{v}");
}

#[test]
fn sigint_stops_a_running_wasm_hook() {
    let scene = Scene::new();
    scene.write_config(&wasm_hook(
        &scene,
        "spin",
        "fixture-p1.wasm",
        &["loop"],
        "timeout = 60",
    ));
    let child = scene
        .hookhost()
        .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    // SAFETY: kill with a plain pid and signal number.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert_eq!(support::verdict(&out)["outcome"], "interrupted");
}

#[test]
fn serve_cancels_a_running_wasm_hook_and_answers_the_others() {
    let scene = Scene::new();
    scene.write_config(&format!(
        "{}{}",
        wasm_hook(
            &scene,
            "spin",
            "fixture-p1.wasm",
            &["loop"],
            "timeout = 60\ntools = [\"exec\"]"
        ),
        wasm_hook(
            &scene,
            "nf",
            "no-force-push.wasm",
            &[],
            "tools = [\"bash\"]"
        ),
    ));
    let mut serve = scene.hookhost();
    serve.arg("serve");
    let mut server = Server::ready(serve);
    server.send_line(r#"{"id":"spin","type":"pre_tool_use","tool_name":"exec","tool_input":{}}"#);
    server.send_line(r#"{"id":1,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"git push -f"}}"#);
    let first = server.recv();
    assert_eq!(first["id"], 1);
    assert_eq!(first["outcome"], "block");
    std::thread::sleep(Duration::from_millis(300));
    server.send_line(r#"{"type":"cancel","id":"spin"}"#);
    let cancelled = server.recv();
    assert_eq!(cancelled["id"], "spin");
    assert_eq!(cancelled["outcome"], "interrupted");
    server.close_stdin();
    assert_eq!(server.wait_exit(), 0);
}

#[test]
fn wasm_runs_are_recorded_and_replayed_without_running_anything() {
    let scene = Scene::new();
    scene.write_config(&wasm_hook(&scene, "nf", "no-force-push.wasm", &[], ""));
    let log = scene.root.path().join("session.jsonl");
    let out = scene
        .hookhost()
        .arg("--log")
        .arg(&log)
        .args([
            "--session-id",
            "W1",
            "pre-tool-use",
            "--tool",
            "bash",
            "--input",
            r#"{"command":"git push -f"}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("\"type\":\"effect\""), "{text}");
    assert!(text.contains("force-push is not allowed here"), "{text}");
    // Replay serves the effect from the record: the module may be gone.
    std::fs::remove_file(scene.hooks.join("no-force-push.wasm")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("replay")
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A session of WASM hooks only starts without probing bubblewrap and, like a session
/// without a sandbox, counts the system temp folders as agent-writable.
#[test]
fn a_wasm_only_session_counts_tmp_as_agent_writable() {
    let scene = Scene::new();
    let dir = tempfile::Builder::new()
        .prefix("hookhost-wasm-")
        .tempdir_in("/tmp")
        .unwrap();
    let module = dir.path().join("allow.wasm");
    std::fs::copy(support::wasm_dir().join("fixture-p1.wasm"), &module).unwrap();
    scene.write_config(&hook(
        "tmp",
        "PreToolUse",
        &[module.to_str().unwrap(), "allow"],
        "",
    ));
    let out = scene.hookhost().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("hook tmp: {} is in a folder the agent can write (/tmp, a system temp folder, in a session without a sandbox)", module.display())),
        "{stderr}"
    );
}

/// F5: a write spelled through `..` from the project's own path, or climbing out of the
/// project and back in, is the protected path it names (host and plugin both resolve `..`).
#[test]
fn protect_paths_sees_through_dot_dot_spellings() {
    let scene = Scene::new();
    scene.write_config(&wasm_hook(
        &scene,
        "protect-paths",
        "protect-paths.wasm",
        &["secrets/*.pem", "config/keys/"],
        "tools = [\"write_file\"]",
    ));
    let project = scene.project.to_str().unwrap();
    let name = scene.project.file_name().unwrap().to_str().unwrap();
    let blocked = [
        "secrets/k.pem".to_string(),
        format!("{project}/secrets/k.pem"),
        format!("{project}/../{name}/secrets/k.pem"),
        format!("{project}/../{name}/config/keys/id"),
        format!("{project}//./secrets/../secrets/k.pem"),
        format!("../{name}/secrets/k.pem"),
    ];
    for path in &blocked {
        let input = json!({"path": path, "content": "k"}).to_string();
        let (code, v) = scene.gate(&[], "write_file", &input);
        assert_eq!(code, 1, "{path}: {v}");
        assert!(
            message(&v).starts_with("blocked by the user's hook \"protect-paths\": write_file on "),
            "{path}: {v}"
        );
    }
    let allowed = [
        "src/k.pem".to_string(),
        format!("{project}/../other/secrets/k.pem"),
        "../other/secrets/k.pem".to_string(),
    ];
    for path in &allowed {
        let input = json!({"path": path, "content": "k"}).to_string();
        let (code, v) = scene.gate(&[], "write_file", &input);
        assert_eq!(code, 0, "{path}: {v}");
    }
}

/// P1: the review's bypasses of no-force-push, through the real binary and the built plugin.
#[test]
fn no_force_push_catches_the_reviews_bypasses() {
    let scene = Scene::new();
    scene.write_config(&wasm_hook(
        &scene,
        "no-force-push",
        "no-force-push.wasm",
        &[],
        "tools = [\"bash\", \"exec\"]",
    ));
    let blocked = [
        ("git -c alias.p='push --force' p origin main", "--force"),
        ("git push --force-w origin main", "--force-w"),
        (
            "git push --no-verify --force-with-l origin main",
            "--force-with-l",
        ),
        ("git push --mirror", "--mirror"),
        ("git${IFS}push${IFS}-f", "-f"),
        ("$(echo git) push -f", "-f"),
        ("x=git; $x push -f", "-f"),
        ("echo origin | xargs git push -f", "-f"),
        ("git push --delete origin main", "--delete"),
        ("git push origin main 2>&1 --force", "--force"),
    ];
    for (command, finding) in blocked {
        let (code, v) = scene.gate(&[], "bash", &json!({ "command": command }).to_string());
        assert_eq!(code, 1, "{command}: {v}");
        assert_eq!(
            message(&v),
            format!(
                "blocked by the user's hook \"no-force-push\": force-push is not allowed here (git push {finding})"
            ),
            "{command}"
        );
    }
    let (code, v) = scene.gate(
        &[],
        "exec",
        &json!({"argv": ["git", "-c", "alias.p=push -f", "p"]}).to_string(),
    );
    assert_eq!(code, 1, "{v}");
    for command in [
        "git push origin main",
        "git push -u origin feature",
        "echo git push -f",
        "$EDITOR notes.txt",
        "git push origin \"$branch\"",
    ] {
        let (code, v) = scene.gate(&[], "bash", &json!({ "command": command }).to_string());
        assert_eq!(code, 0, "{command}: {v}");
    }
}
