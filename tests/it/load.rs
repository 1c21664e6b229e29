//! Load changes nothing but latency (issue 18): a burst of `serve` calls gets exactly the
//! verdicts the same calls get one by one. Tested with `on_failure = "continue"`, where a
//! failure caused by load alone would be a let-through.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{SLOW_COMPILE_OK, Scene, Server, component_or_skip, hook, wasm_dir};

/// A burst of 150 calls, each holding a WASM instance for a second, against a pool of 64:
/// every one is still blocked, none "crashed" for want of a slot, and none timed out
/// waiting for one (a hook's timeout counts its own run).
#[test]
fn a_burst_past_the_wasm_pool_gets_the_verdicts_of_one_call() {
    let scene = Scene::new();
    let fixture = wasm_dir().join("fixture-p1.wasm");
    let fixture = fixture.to_str().unwrap();
    scene.write_config(&format!(
        "{}{}",
        hook(
            "slow",
            "PreToolUse",
            &[fixture, "sleep", "1"],
            "on_failure = \"continue\"\ntimeout = 3"
        ),
        hook(
            "guard",
            "PreToolUse",
            &[fixture, "block"],
            "on_failure = \"continue\"\ntimeout = 3"
        ),
    ));
    let mut cmd = scene.hookhost();
    cmd.arg("--no-sandbox").arg("serve");
    let mut server = Server::ready(cmd);
    const CALLS: usize = 150;
    for id in 0..CALLS {
        server.send(&json!({
            "id": id, "type": "pre_tool_use", "tool_name": "bash",
            "tool_input": {"command": "git push --force"},
        }));
    }
    let answers = server.recv_answers(CALLS);
    // "slow" prints `slept 1`, not hook JSON: a failure of its own, warned once per turn,
    // as one call alone gets it. Load adds no failure: no crash, no timeout.
    let by_load = |a: &Value| {
        a["warnings"].as_array().is_some_and(|w| {
            w.iter().any(|w| {
                let w = w.as_str().unwrap_or_default();
                !w.contains("printed output that is not hook JSON")
            })
        })
    };
    let let_through: Vec<&Value> = answers
        .values()
        .filter(|a| a["outcome"] != "block" || by_load(a))
        .collect();
    assert!(
        let_through.is_empty(),
        "{} of {CALLS} calls were not simply blocked, e.g. {}",
        let_through.len(),
        let_through[0]
    );
}

/// A burst of 160 process-hook calls, each a second long, under a low open-file limit (256, soft and hard,
/// as `ulimit -n` sets it): hook processes wait for a slot instead of failing with
/// "too many open files", so every force push is still blocked.
#[test]
fn a_burst_of_process_hooks_under_a_low_fd_limit_gets_the_verdicts_of_one_call() {
    let scene = Scene::new();
    let guard = scene.script(
        "guard.sh",
        "cat >/dev/null; sleep 1; echo 'force-push is not allowed here' >&2; exit 2",
    );
    scene.write_config(&hook(
        "guard",
        "PreToolUse",
        &["/bin/sh", guard.to_str().unwrap()],
        "on_failure = \"continue\"\ntimeout = 20",
    ));
    let hookhost = scene.hookhost();
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("ulimit -n 256 && exec \"$0\" \"$@\"")
        .arg(hookhost.get_program())
        .args(hookhost.get_args())
        .args(["--no-sandbox", "serve"]);
    for (key, value) in hookhost.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    let mut server = Server::ready(cmd);
    const CALLS: usize = 160;
    for id in 0..CALLS {
        server.send(&json!({
            "id": id, "type": "pre_tool_use", "tool_name": "bash",
            "tool_input": {"command": "git push --force"},
        }));
    }
    let answers = server.recv_answers(CALLS);
    let not_blocked: Vec<&Value> = answers
        .values()
        .filter(|a| {
            a["outcome"] != "block" || a["warnings"].as_array().is_some_and(|w| !w.is_empty())
        })
        .collect();
    assert!(
        not_blocked.is_empty(),
        "{} of {CALLS} calls were not simply blocked, e.g. {}",
        not_blocked.len(),
        not_blocked[0]
    );
}

/// A FIFO or a device where hookhost expects a file (config, `.wasm`, cases file,
/// record) is refused at once, named, rather than hanging the start or reading forever
/// (security review F18).
/// The serve process's thread count (`Threads:` in `/proc/PID/status`).
fn threads(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("a Threads: line")
}

/// F2: a WASM hook that opens a FIFO in the project (any agent can make one) blocks in
/// `open`; its run times out, and the thread it blocked comes back instead of staying
/// stuck for good (before: one thread per call, until `serve` answered nothing).
#[test]
fn a_project_fifo_opened_by_wasm_hooks_leaks_no_thread() {
    let scene = Scene::new();
    let fifo = scene.project.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let fixture = wasm_dir().join("fixture-p2.wasm");
    let fixture = fixture.to_str().unwrap();
    let script = scene.script("allow.sh", "cat >/dev/null; exit 0");
    scene.write_config(&format!(
        "{}{}",
        hook(
            "reader",
            "PreToolUse",
            &[fixture, "read", "/project/fifo"],
            "tools = [\"read_file\"]\non_failure = \"continue\"\ntimeout = 1"
        ),
        hook(
            "argv",
            "PreToolUse",
            &["/bin/sh", script.to_str().unwrap()],
            "tools = [\"bash\"]\nsandbox = false"
        ),
    ));
    let mut cmd = scene.hookhost();
    cmd.arg("--no-sandbox").arg("serve");
    let mut server = Server::ready(cmd);
    let pid = server.child.id();
    let baseline = threads(pid);
    const CALLS: usize = 40;
    for id in 0..CALLS {
        server.send(&json!({
            "id": id, "type": "pre_tool_use", "tool_name": "read_file",
            "tool_input": {"path": "fifo"},
        }));
    }
    let answers = server.recv_answers(CALLS);
    // Every call let through (on_failure = "continue"), the failure warned once a turn.
    assert!(
        answers.values().all(|a| a["outcome"] == "allow"),
        "{answers:?}"
    );
    assert!(
        answers
            .values()
            .any(|a| a["warnings"].to_string().contains("timed out after 1 s")),
        "{answers:?}"
    );
    // The pool's threads come back, then end once idle; stuck, there would be 40 more.
    let settled = crate::support::wait_until(|| threads(pid) <= baseline + 4);
    assert!(
        settled,
        "serve has {} threads, {baseline} before the calls",
        threads(pid)
    );
    // And an argv hook still answers.
    server.send(&json!({"id": "argv", "type": "pre_tool_use", "tool_name": "bash", "tool_input": {"command": "ls"}}));
    assert_eq!(server.recv()["outcome"], "allow");
    server.close_stdin();
}

#[test]
fn fifos_and_devices_given_as_files_are_refused_at_once() {
    use std::time::{Duration, Instant};
    let scene = Scene::new();
    let fifo = scene.root.path().join("a.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let fifo_arg = fifo.to_str().unwrap();
    let not_a_file = "is not a regular file";
    let timed = |args: &[&str]| {
        let started = Instant::now();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .args(args)
            .env("XDG_STATE_HOME", scene.state())
            .output()
            .unwrap();
        assert!(started.elapsed() < Duration::from_secs(10), "{args:?} hung");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let project = scene.project.to_str().unwrap();
    for config in [fifo_arg, "/dev/zero"] {
        let (code, stderr) = timed(&["--config", config, "--project", project, "check"]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains(config) && stderr.contains(not_a_file),
            "{stderr}"
        );
    }
    let wasm_fifo = scene.hooks.join("h.wasm");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&wasm_fifo)
            .status()
            .unwrap()
            .success()
    );
    scene.write_config(&hook("w", "PreToolUse", &[wasm_fifo.to_str().unwrap()], ""));
    let config = scene.config.to_str().unwrap();
    // A hook that cannot start is a start-up warning (its calls fail closed), as for
    // any unreadable `.wasm`: what matters is that it is said at once.
    let (_, stderr) = timed(&["--config", config, "--project", project, "check"]);
    assert!(
        stderr.contains("hook w could not start") && stderr.contains(not_a_file),
        "{stderr}"
    );
    scene.write_config("");
    let (code, stderr) = timed(&["--config", config, "--project", project, "eval", fifo_arg]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(not_a_file), "{stderr}");
    for args in [
        vec!["log", "show", fifo_arg],
        vec!["log", "verify", fifo_arg],
        vec!["replay", fifo_arg],
    ] {
        let (code, stderr) = timed(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(not_a_file), "{args:?}: {stderr}");
    }
    let (code, stderr) = timed(&[
        "--config",
        config,
        "--project",
        project,
        "--no-sandbox",
        "prompt",
        "--resume",
        fifo_arg,
        "hello",
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(not_a_file), "{stderr}");
}

/// A client that stops reading its answers stops being served: `serve` reads no more
/// input once 4,096 answers wait unwritten, so its memory stays bounded; once the client
/// reads again, every request is answered (security review F11).
#[test]
fn a_client_that_stops_reading_is_not_answered_into_memory() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let scene = Scene::new();
    scene.write_config("");
    let mut child = scene
        .hookhost()
        .args(["--no-sandbox", "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    const REQUESTS: usize = 200_000;
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut batch = String::new();
        for id in 0..REQUESTS {
            batch.push_str(&format!(
                "{{\"id\":{id},\"type\":\"user_prompt_submit\",\"prompt\":\"a prompt of some length to answer\"}}\n"
            ));
            if batch.len() > 1 << 16 {
                stdin.write_all(batch.as_bytes()).unwrap();
                batch.clear();
            }
        }
        stdin.write_all(batch.as_bytes()).unwrap();
    });
    // Nobody reads stdout for a while: the writer must be held back.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !writer.is_finished(),
        "serve read all its input without writing the answers"
    );
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss_kib: u64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(rss_kib < 128 * 1024, "serve holds {rss_kib} KiB");
    // Reading again: every request is answered.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let started = Instant::now();
    let mut answers = 0;
    while answers <= REQUESTS {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        answers += 1;
        if answers == REQUESTS + 1 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "too slow");
    }
    writer.join().unwrap();
    // The ready line, then one answer per request.
    assert_eq!(answers, REQUESTS + 1);
    let _ = child.kill();
    let _ = child.wait();
}

/// A hook that leaves a 41-deep chain of `setsid` daemons behind (each link a new
/// session, so no process group holds them): none of them outlives the call (security
/// review F17).
#[test]
fn a_deep_chain_of_setsid_daemons_is_swept() {
    let scene = Scene::new();
    let marker = format!("71.{}", std::process::id());
    let chain = scene.script(
        "chain.sh",
        "d=$1\nif [ \"$d\" -gt 0 ]; then setsid /bin/sh \"$0\" $((d-1)) \"$2\" & fi\nexec sleep \"$2\"",
    );
    let hook_script = scene.script(
        "leave.sh",
        &format!(
            "cat >/dev/null\n/bin/sh {} 41 {marker} &\nsleep 1\nexit 0",
            chain.display()
        ),
    );
    scene.write_config(&crate::support::sh_hook("leave", &hook_script, ""));
    let (code, verdict) = scene.gate(&["--no-sandbox"], "bash", "{}");
    assert_eq!(code, 0, "{verdict}");
    assert!(
        crate::support::wait_until(|| !crate::support::process_alive(&format!("sleep {marker}"))),
        "a link of the chain outlived the call"
    );
}

/// The `.env` guards of each language: protect-paths (Rust, wasip2), and the
/// protect-paths policy of `plugins/python` and `plugins/js` (componentize-py,
/// componentize-js).
const RUST_GUARD: &str = "protect-paths.wasm";
const PYTHON_GUARD: &str = "guard-py.wasm";
const JS_GUARD: &str = "guard-js.wasm";

/// How many calls a language's burst sends: half of them `.env` writes, half harmless.
const BURST: usize = 200;

/// A `write_file` call on `path`.
fn write_call(id: impl Into<Value>, path: &str) -> Value {
    json!({
        "id": id.into(), "type": "pre_tool_use", "tool_name": "write_file",
        "tool_input": {"path": path, "content": "x"},
    })
}

/// An answer without its `id`: what one call and the same call in a burst must share.
fn without_id(answer: &Value) -> Value {
    let mut answer = answer.clone();
    if let Some(fields) = answer.as_object_mut() {
        fields.remove("id");
    }
    answer
}

/// N2 (security review, turn 3): `serve` with `guards` (file names in `target/wasm`),
/// each a hook protecting `.env` under `on_failure`, gets [`BURST`] calls at once, half
/// `.env` writes and half harmless; each answer must be exactly the answer the same call
/// got alone, before the burst: every `.env` write blocked, every other write allowed,
/// no warning. A pool exhausted by load is a wait, never a failure of the hook (which
/// `continue` would turn into a let-through, and `block` into a refusal). Where a
/// component is not built, nothing is run and `test` prints a SKIPPED line (or fails,
/// with `HOOKHOST_REQUIRE_COMPONENTS`).
fn burst_gets_the_verdicts_of_one_call(test: &str, guards: &[&str], on_failure: &str) {
    let mut paths = Vec::new();
    for file in guards {
        let path = if *file == RUST_GUARD {
            wasm_dir().join(file)
        } else {
            match component_or_skip(test, file) {
                Some(path) => path,
                None => return,
            }
        };
        paths.push(path);
    }
    let scene = Scene::new();
    let hooks: String = paths
        .iter()
        .zip(guards)
        .map(|(path, file)| {
            let name = file.trim_end_matches(".wasm");
            hook(
                name,
                "PreToolUse",
                &[path.to_str().unwrap(), ".env"],
                &format!("tools = [\"write_file\"]\non_failure = \"{on_failure}\"\ntimeout = 30"),
            )
        })
        .collect();
    scene.write_config(&format!("{SLOW_COMPILE_OK}{hooks}"));
    let mut cmd = scene.hookhost();
    cmd.arg("serve");
    let mut server = Server::spawn(cmd);
    let ready = server.recv_within(Duration::from_secs(300));
    assert_eq!(ready["type"], "ready", "{guards:?}: {ready}");
    assert!(
        ready["warnings"].as_array().is_none_or(|w| w.is_empty()),
        "{guards:?}: {ready}"
    );

    // One by one first: what each kind of call gets alone.
    let paths = [".env", "src/lib.rs"];
    let alone: Vec<Value> = paths
        .iter()
        .map(|path| {
            server.send(&write_call(format!("alone {path}"), path));
            without_id(&server.recv())
        })
        .collect();
    let label = format!("{guards:?}, on_failure = {on_failure}");
    assert_eq!(alone[0]["outcome"], "block", "{label}: {}", alone[0]);
    assert_eq!(alone[1]["outcome"], "allow", "{label}: {}", alone[1]);
    for answer in &alone {
        assert!(
            answer["warnings"].as_array().is_none_or(|w| w.is_empty()),
            "{label}: {answer}"
        );
    }

    let started = Instant::now();
    for id in 0..BURST {
        server.send(&write_call(id, paths[id % 2]));
    }
    let answers = server.recv_answers(BURST);
    let elapsed = started.elapsed();
    let mut wrong = Vec::new();
    for id in 0..BURST {
        let answer = &answers[&id.to_string()];
        if without_id(answer) != alone[id % 2] {
            wrong.push(answer);
        }
    }
    let let_through = wrong.iter().filter(|a| a["outcome"] == "allow").count();
    assert!(
        wrong.is_empty(),
        "{label}: {} of {BURST} answers differ from the same call alone ({let_through} \
         let through), e.g. {}\nalone: {}",
        wrong.len(),
        wrong[0],
        alone[wrong[0]["id"].as_u64().unwrap_or(0) as usize % 2]
    );
    eprintln!("{label}: {BURST} calls in {elapsed:.2?}");
    server.close_stdin();
}

#[test]
fn a_burst_of_rust_component_hooks_gets_the_verdicts_of_one_call() {
    let test = "a_burst_of_rust_component_hooks_gets_the_verdicts_of_one_call";
    for on_failure in ["continue", "block"] {
        burst_gets_the_verdicts_of_one_call(test, &[RUST_GUARD], on_failure);
    }
}

#[test]
fn a_burst_of_python_hooks_gets_the_verdicts_of_one_call() {
    let test = "a_burst_of_python_hooks_gets_the_verdicts_of_one_call";
    for on_failure in ["continue", "block"] {
        burst_gets_the_verdicts_of_one_call(test, &[PYTHON_GUARD], on_failure);
    }
}

#[test]
fn a_burst_of_javascript_hooks_gets_the_verdicts_of_one_call() {
    let test = "a_burst_of_javascript_hooks_gets_the_verdicts_of_one_call";
    for on_failure in ["continue", "block"] {
        burst_gets_the_verdicts_of_one_call(test, &[JS_GUARD], on_failure);
    }
}

/// Each call runs the three languages' hooks at once, so the pool holds a mix.
#[test]
fn a_burst_of_rust_python_and_javascript_hooks_gets_the_verdicts_of_one_call() {
    let test = "a_burst_of_rust_python_and_javascript_hooks_gets_the_verdicts_of_one_call";
    for on_failure in ["continue", "block"] {
        burst_gets_the_verdicts_of_one_call(
            test,
            &[RUST_GUARD, PYTHON_GUARD, JS_GUARD],
            on_failure,
        );
    }
}

/// A core module with `memories` memories (of no pages) and an empty `_start`, encoded
/// by hand.
fn module_with_memories(memories: u8) -> Vec<u8> {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    bytes.extend([0x01, 0x04, 0x01, 0x60, 0x00, 0x00]); // type: [] -> []
    bytes.extend([0x03, 0x02, 0x01, 0x00]); // one function of type 0
    let mut section = vec![memories];
    for _ in 0..memories {
        section.extend([0x00, 0x00]); // min 0, no max
    }
    bytes.extend([0x05, u8::try_from(section.len()).unwrap()]);
    bytes.extend(section);
    bytes.extend([0x07, 0x0a, 0x01, 0x06]);
    bytes.extend(b"_start");
    bytes.extend([0x00, 0x00]); // export func 0
    bytes.extend([0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b]); // code: no locals, end
    bytes
}

/// A program one run of which needs more than a run may ever have (17 memories, past
/// the 16 of a run) is refused when it is prepared, with a message naming the hook and
/// the limit; before, it was prepared and then failed on every call.
#[test]
fn a_program_too_large_for_any_run_is_refused_at_start() {
    let scene = Scene::new();
    let big = scene.hooks.join("big.wasm");
    std::fs::write(&big, module_with_memories(17)).unwrap();
    scene.write_config(&hook("big", "PreToolUse", &[big.to_str().unwrap()], ""));
    // Twice: compiled, then loaded from the compile cache, where it runs in place from the
    // cache file's mapping (dropping the refused program after that mapping crashed).
    for _ in 0..2 {
        let out = scene.hookhost().arg("check").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("hook big could not start")
                && stderr.contains(
                    "big.wasm needs 17 memories per run, more than the 16 one run may have"
                ),
            "{:?}: {stderr}",
            out.status
        );
    }
    // 16 is within it.
    std::fs::write(&big, module_with_memories(16)).unwrap();
    let (code, verdict) = scene.gate(&[], "bash", r#"{"command":"ls"}"#);
    assert_eq!(
        (code, &verdict["outcome"]),
        (0, &json!("allow")),
        "{verdict}"
    );
}
