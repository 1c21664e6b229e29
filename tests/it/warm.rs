//! `hookhost warm` and the bridge's hand-over to it (docs/contract.md#the-warm-server),
//! through the real binary: the server answers every agent byte for byte as a bridge
//! process does, a bridge hands its call only to a server it can vouch for, and a server
//! that fails, stops or outlives its binary never lets a call through unjudged. Each
//! holds for both bridges that hand calls over: `hookhost bridge` itself and
//! `hookhost-client`, the small program `install --warm` registers, which runs the
//! hookhost beside it when no server answers.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::bridge::{
    bridge_json_with, deny_reason, is_late_start_deny, sample, with_command, with_session,
};
use crate::support::{Scene, run_with_stdin, wait_until};

/// A running `hookhost -v warm`, its stderr collected.
struct Warm {
    child: Child,
    socket: PathBuf,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Warm {
    /// The server of the binary under test, at a socket in `scene`'s private folder.
    fn in_scene(scene: &Scene) -> Warm {
        Warm::start(
            Path::new(env!("CARGO_BIN_EXE_hookhost")),
            &private_folder(scene).join("w.sock"),
        )
    }

    /// Starts the server of `binary` at `socket` and waits until it listens.
    fn start(binary: &Path, socket: &Path) -> Warm {
        let mut child = Command::new(binary)
            .args(["-v", "warm", "--warm-socket"])
            .arg(socket)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hookhost warm");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let seen = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                seen.lock().unwrap().push(line);
            }
        });
        let warm = Warm {
            child,
            socket: socket.to_path_buf(),
            lines,
        };
        assert!(
            wait_until(|| warm.said("answering bridged calls")),
            "hookhost warm did not start: {:?}",
            warm.lines.lock().unwrap()
        );
        warm
    }

    /// Whether a line of its stderr contains `text`.
    fn said(&self, text: &str) -> bool {
        self.lines.lock().unwrap().iter().any(|l| l.contains(text))
    }

    /// How many calls it has answered.
    fn answered(&self) -> usize {
        let lines = self.lines.lock().unwrap();
        lines
            .iter()
            .filter(|l| l.contains("a bridged call answered"))
            .count()
    }

    /// The bridge's arguments that name this server.
    fn flag(&self) -> [&str; 2] {
        ["--warm-socket", self.socket.to_str().unwrap()]
    }
}

impl Drop for Warm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A folder for the server's socket: the user's alone, as the bridge requires.
fn private_folder(scene: &Scene) -> PathBuf {
    let dir = scene.root.path().join("run");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

/// The two programs a registration hands its calls over with: hookhost itself, and
/// `hookhost-client`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Bridge {
    Hookhost,
    Client,
}

const BRIDGES: [Bridge; 2] = [Bridge::Hookhost, Bridge::Client];

impl Bridge {
    /// Its path.
    fn program(self) -> &'static str {
        match self {
            Bridge::Hookhost => env!("CARGO_BIN_EXE_hookhost"),
            Bridge::Client => env!("CARGO_BIN_EXE_hookhost-client"),
        }
    }

    /// `PROGRAM --config … --project … --no-sandbox bridge --agent AGENT EXTRA` in
    /// `scene` with `payload` on stdin.
    fn json_with(
        self,
        scene: &Scene,
        agent: &str,
        payload: &Value,
        extra: &[&str],
    ) -> (i32, String, String) {
        let mut command = match self {
            Bridge::Hookhost => scene.hookhost(),
            Bridge::Client => scene.client(),
        };
        command
            .args(["--no-sandbox", "bridge", "--agent", agent])
            .args(extra);
        run_with_stdin(&mut command, payload.to_string().as_bytes())
    }
}

/// Makes `scene`'s one hook, `slow`, a host `sh` script of `body`. Paths in it are
/// quoted by the caller: CI's checkout lives in a folder with a blank in its name.
fn slow_hook(scene: &Scene, body: &str) {
    let slow = scene.script("slow.sh", body);
    scene.write_config(&crate::support::hook(
        "slow",
        "PreToolUse",
        &["/bin/sh", slow.to_str().unwrap()],
        "",
    ));
}

/// The scene of `bridge`'s own answers test: a blocking hook (`rm -rf`) and a failing one
/// (`crash`), each an argv hook on the host, and the shipped Rust policy against force
/// pushes as a WASM hook.
fn policy_scene() -> Scene {
    let scene = Scene::new();
    let blocker = scene.script(
        "no-force.sh",
        "grep -q 'rm -rf' && { echo 'rm -rf is not allowed here' >&2; exit 2; }; exit 0",
    );
    let broken = scene.script("broken.sh", "grep -q 'crash' || exit 0; exit 7");
    let wasm = crate::support::wasm_dir().join("no-force-push.wasm");
    scene.write_config(&format!(
        "{}{}{}",
        crate::support::hook(
            "no-force",
            "PreToolUse",
            &["/bin/sh", blocker.to_str().unwrap()],
            ""
        ),
        crate::support::hook(
            "broken",
            "PreToolUse",
            &["/bin/sh", broken.to_str().unwrap()],
            "on_failure = \"block\""
        ),
        crate::support::hook(
            "no-force-push",
            "PreToolUse",
            &[wasm.to_str().unwrap()],
            "envelope = \"spec\""
        ),
    ));
    scene
}

const AGENTS: [(&str, &str); 8] = [
    ("claude-code", "claude-code/PreToolUse.json"),
    ("codex", "codex/PreToolUse.json"),
    ("gemini", "gemini/BeforeTool.json"),
    ("cursor", "cursor/beforeShellExecution.json"),
    ("copilot", "copilot/preToolUse.json"),
    ("qwen-code", "qwen-code/PreToolUse.json"),
    ("kimi-code", "kimi-code/PreToolUse.json"),
    ("kiro", "kiro/preToolUse.json"),
];

#[test]
fn the_warm_server_answers_every_agent_as_a_bridge_process_does() {
    let scene = policy_scene();
    let warm = Warm::in_scene(&scene);
    let mut handed = 0;
    for (agent, pre) in AGENTS {
        for command in ["ls", "rm -rf /", "git push --force", "crash now"] {
            // Each call a session of its own: a failure's warning is shown once per turn of
            // a session, so the second call of one would differ from the first.
            let payload = with_command(sample(&scene, pre), command);
            let alone = bridge_json_with(
                &scene,
                agent,
                &with_session(payload.clone(), &format!("alone-{agent}-{handed}")),
                &[],
            );
            for bridge in BRIDGES {
                let served = bridge.json_with(
                    &scene,
                    agent,
                    &with_session(
                        payload.clone(),
                        &format!("served-{agent}-{handed}-{bridge:?}"),
                    ),
                    &warm.flag(),
                );
                assert_eq!(served, alone, "{agent}, `{command}`, {bridge:?}");
            }
            handed += 2;
            let served = alone;
            let reason = deny_reason(agent, &served);
            match command {
                "ls" => assert_eq!(reason, None, "{agent}: {served:?}"),
                _ => assert!(reason.is_some(), "{agent}, `{command}`: {served:?}"),
            }
        }
        // A payload the bridge cannot read is refused alike.
        let alone = run_with_stdin(
            scene
                .hookhost()
                .args(["--no-sandbox", "bridge", "--agent", agent]),
            b"not json",
        );
        for mut command in [scene.hookhost(), scene.client()] {
            let served = run_with_stdin(
                command
                    .args(["--no-sandbox", "bridge", "--agent", agent])
                    .args(warm.flag()),
                b"not json",
            );
            handed += 1;
            assert_eq!(served, alone, "{agent}: unreadable payload");
        }
    }
    assert!(
        wait_until(|| warm.answered() == handed),
        "the server answered {} of {handed} calls",
        warm.answered()
    );
}

#[test]
fn a_call_with_a_relative_config_is_the_bridges_own() {
    let scene = policy_scene();
    let warm = Warm::in_scene(&scene);
    let config = scene.config.file_name().unwrap().to_str().unwrap();
    let folder = scene.config.parent().unwrap();
    let mut payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force",
    );
    payload["cwd"] = Value::from("");
    let call = |program: &str, extra: &[&str]| {
        run_with_stdin(
            Command::new(program)
                .current_dir(folder)
                .args([
                    "--no-sandbox",
                    "--config",
                    config,
                    "bridge",
                    "--agent",
                    "claude-code",
                ])
                .args(extra)
                .env("XDG_STATE_HOME", scene.state()),
            payload.to_string().as_bytes(),
        )
    };
    let alone = call(Bridge::Hookhost.program(), &[]);
    for bridge in BRIDGES {
        let served = call(bridge.program(), &warm.flag());
        assert_eq!(served, alone, "{bridge:?}");
        assert!(deny_reason("claude-code", &served).is_some(), "{served:?}");
    }
    // The server declined it: the relative path names a file from the bridge's folder,
    // and the messages name it as given.
    assert!(wait_until(|| warm.said("declined (a relative path")));
    assert_eq!(warm.answered(), 0);

    // A relative HOME, likewise: it would name the bridge's folders from its own.
    let home_call = |program: &str, extra: &[&str]| {
        run_with_stdin(
            Command::new(program)
                .current_dir(folder)
                .arg("--no-sandbox")
                .arg("--config")
                .arg(&scene.config)
                .args(["bridge", "--agent", "claude-code"])
                .args(extra)
                .env("HOME", "home")
                .env("XDG_STATE_HOME", scene.state())
                .env("XDG_CACHE_HOME", crate::support::test_root().join("cache")),
            payload.to_string().as_bytes(),
        )
    };
    let alone = home_call(Bridge::Hookhost.program(), &[]);
    for bridge in BRIDGES {
        let served = home_call(bridge.program(), &warm.flag());
        assert_eq!(served, alone, "{bridge:?}");
        assert!(deny_reason("claude-code", &served).is_some(), "{served:?}");
        assert!(
            served.1.contains("hookhost bridge ignores HOME=home"),
            "{served:?}"
        );
    }
    assert!(wait_until(|| warm.said("declined (a relative HOME)")));
    assert_eq!(warm.answered(), 0);
}

#[test]
fn a_bridge_hands_its_call_only_to_a_server_it_can_vouch_for() {
    let scene = policy_scene();
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force",
    );
    // A folder others may enter: the bridge does not connect.
    let open = scene.root.path().join("open");
    std::fs::create_dir_all(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o700)).unwrap();
    let warm = Warm::start(
        Path::new(env!("CARGO_BIN_EXE_hookhost")),
        &open.join("w.sock"),
    );
    // The bridge judges the call itself (the force push is denied), and the server never
    // sees it.
    let judged_alone = |warm: &Warm, flags: &[&str], what: &str| {
        let reply = bridge_json_with(&scene, "claude-code", &payload, flags);
        assert!(deny_reason("claude-code", &reply).is_some(), "{reply:?}");
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(warm.answered(), 0, "a bridge handed its call to {what}");
    };
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
    judged_alone(&warm, &warm.flag(), "a socket in an open folder");
    drop(warm);

    // A server of another hookhost binary (another file, the same bytes): not this one.
    let copy = scene.root.path().join("hookhost-copy");
    crate::support::copy_program(env!("CARGO_BIN_EXE_hookhost"), &copy);
    let warm = Warm::start(&copy, &private_folder(&scene).join("copy.sock"));
    judged_alone(&warm, &warm.flag(), "another binary");

    // A relative socket is never used.
    judged_alone(
        &warm,
        &["--warm-socket", "run/copy.sock"],
        "a relative socket",
    );
}

#[test]
fn a_stopped_or_dead_server_never_lets_a_call_through_unjudged() {
    let scene = policy_scene();
    let mut warm = Warm::in_scene(&scene);
    let pid = warm.child.id().to_string();
    let signal = |sig: &str| {
        assert!(
            Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        );
    };
    let allowed = with_command(sample(&scene, "claude-code/PreToolUse.json"), "ls");
    let blocked = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force",
    );
    // Stopped before it greets: the bridge judges the call itself.
    signal("-STOP");
    for bridge in BRIDGES {
        let reply = bridge.json_with(&scene, "claude-code", &blocked, &warm.flag());
        assert!(deny_reason("claude-code", &reply).is_some(), "{reply:?}");
        let reply = bridge.json_with(&scene, "claude-code", &allowed, &warm.flag());
        assert_eq!(deny_reason("claude-code", &reply), None, "{reply:?}");
    }
    signal("-CONT");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(warm.answered(), 0);

    // Killed: its socket is left behind, and the bridge judges the call itself.
    warm.child.kill().unwrap();
    warm.child.wait().unwrap();
    assert!(warm.socket.exists());
    for bridge in BRIDGES {
        let reply = bridge.json_with(&scene, "claude-code", &blocked, &warm.flag());
        assert!(deny_reason("claude-code", &reply).is_some(), "{reply:?}");
        let reply = bridge.json_with(&scene, "claude-code", &allowed, &warm.flag());
        assert_eq!(deny_reason("claude-code", &reply), None, "{reply:?}");
    }
    // No socket at all: the client starts hookhost without reading the call.
    std::fs::remove_file(&warm.socket).unwrap();
    for (payload, denied) in [(&blocked, true), (&allowed, false)] {
        let reply = Bridge::Client.json_with(&scene, "claude-code", payload, &warm.flag());
        assert_eq!(
            deny_reason("claude-code", &reply).is_some(),
            denied,
            "{reply:?}"
        );
    }
}

#[test]
fn a_client_with_no_hookhost_beside_it_blocks_the_call() {
    let scene = policy_scene();
    let alone = scene.root.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    let client = alone.join("hookhost-client");
    crate::support::copy_program(Bridge::Client.program(), &client);
    let allowed = with_command(sample(&scene, "claude-code/PreToolUse.json"), "ls");
    let reply = run_with_stdin(
        Command::new(&client).args(["bridge", "--agent", "claude-code"]),
        allowed.to_string().as_bytes(),
    );
    let (code, stdout, stderr) = &reply;
    assert_eq!((*code, stdout.as_str()), (2, ""), "{reply:?}");
    assert!(
        stderr.starts_with(&format!(
            "hookhost-client: cannot start hookhost at {}: ",
            alone.join("hookhost").display()
        )) && stderr.contains("so this call was blocked"),
        "{stderr}"
    );
}

/// A start that outlives the budget in the server (a WASM hook compiled into an empty
/// compile cache) is the same deny in time as in a bridge process (docs/threats.md#n6),
/// though the server starts the session on the call's own thread: its keeper of
/// deadlines answers while the compile goes on, and the compile then fills the cache for
/// the next call.
#[test]
fn a_start_that_outlives_the_budget_in_the_server_is_the_same_deny_in_time() {
    let scene = Scene::new();
    let wasm = crate::support::plugin(&scene, "no-force-push.wasm");
    scene.write_config(&crate::support::hook(
        "no-force-push",
        "PreToolUse",
        &[wasm.to_str().unwrap()],
        "tools = [\"bash\"]",
    ));
    let warm = Warm::in_scene(&scene);
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force origin main",
    );
    for bridge in BRIDGES {
        // A cache of its own per bridge: the server keeps what it compiled for one.
        let cold = scene.root.path().join(format!("cold-{bridge:?}"));
        std::fs::create_dir_all(&cold).unwrap();
        let call = |budget: &str| {
            let mut command = match bridge {
                Bridge::Hookhost => scene.hookhost(),
                Bridge::Client => scene.client(),
            };
            command
                .env("XDG_CACHE_HOME", &cold)
                .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
                .args(["--budget-ms", budget])
                .args(warm.flag());
            let started = Instant::now();
            let out = run_with_stdin(&mut command, payload.to_string().as_bytes());
            (out, started.elapsed())
        };
        let (out, took) = call("20");
        assert!(is_late_start_deny(&out, 20), "{bridge:?}: {out:?}");
        assert!(took < Duration::from_secs(5), "{bridge:?}: {took:?}");
        // Judged by the server, not by the bridge after it.
        assert!(
            wait_until(|| warm.said("answered at its deadline, its start still running")),
            "{bridge:?}: {:?}",
            warm.lines.lock().unwrap()
        );
        let (out, _) = call("20000");
        let reason = deny_reason("claude-code", &out);
        assert!(
            reason
                .as_deref()
                .is_some_and(|r| r.contains("blocked by the user's hook \"no-force-push\"")),
            "{bridge:?}: {out:?}"
        );
        assert!(
            std::fs::read_dir(cold.join("hookhost/wasm")).is_ok_and(|d| d.count() > 0),
            "{bridge:?}: the compile filled no cache"
        );
        warm.lines.lock().unwrap().clear();
    }
}

#[test]
fn a_server_that_stops_with_the_call_is_a_deny_in_time() {
    let scene = Scene::new();
    let marker = scene.root.path().join("hook-started");
    slow_hook(
        &scene,
        &format!("cat >/dev/null; touch '{}'; sleep 30", marker.display()),
    );
    let warm = Warm::in_scene(&scene);
    let allowed = with_command(sample(&scene, "claude-code/PreToolUse.json"), "ls");
    for bridge in BRIDGES {
        let _ = std::fs::remove_file(&marker);
        let pid = warm.child.id().to_string();
        // The server is stopped once its hook runs: it holds the call and answers nothing.
        let stopper = std::thread::spawn({
            let marker = marker.clone();
            move || {
                assert!(wait_until(|| marker.exists()), "the hook never ran");
                assert!(
                    Command::new("kill")
                        .args(["-STOP", &pid])
                        .status()
                        .unwrap()
                        .success()
                );
            }
        });
        let started = Instant::now();
        // A budget that a loaded CI machine's hook start fits in (the server's own budget
        // deny would otherwise answer before the hook runs, and nothing would be stopped).
        let mut flags = vec!["--budget-ms", "6000"];
        flags.extend(warm.flag());
        let reply = bridge.json_with(&scene, "claude-code", &allowed, &flags);
        let took = started.elapsed();
        stopper.join().unwrap();
        assert!(
            Command::new("kill")
                .args(["-CONT", &warm.child.id().to_string()])
                .status()
                .unwrap()
                .success()
        );
        // The bridge's refusal, in the form a hook's block of this tool call takes
        // (docs/threats.md#b11): `hookhost-client` has the hookhost beside it say it.
        let reason =
            deny_reason("claude-code", &reply).unwrap_or_else(|| panic!("{bridge:?}: {reply:?}"));
        assert!(
            reason.contains(
                "hookhost's warm server took this call and did not answer within 6000 ms"
            ),
            "{bridge:?}: {reason}"
        );
        // The budget and a second's grace for the server's own answer: inside the agent's
        // timeout (the budget plus five seconds), with room for this process's start.
        assert!(
            took < Duration::from_millis(6_000 + 1_000 + 2_500),
            "{bridge:?}: {took:?}"
        );
    }
}

/// A server that dies in the middle of a call leaves it to the bridge, which judges it
/// within what is left of the call's budget, counted from the bridge's own start: for
/// `hookhost-client`, the hookhost it starts counts the time the client waited, so the
/// call is not given a fresh budget past the agent's timeout.
#[test]
fn a_server_that_dies_mid_call_leaves_the_rest_of_the_budget_not_a_new_one() {
    let scene = Scene::new();
    let marker = scene.root.path().join("hook-started");
    slow_hook(
        &scene,
        &format!("cat >/dev/null; touch '{}'; sleep 30", marker.display()),
    );
    let mut warm = Warm::in_scene(&scene);
    let pid = warm.child.id();
    // Killed two seconds into its hook's run.
    let killer = std::thread::spawn({
        let marker = marker.clone();
        move || {
            assert!(wait_until(|| marker.exists()), "the hook never ran");
            std::thread::sleep(Duration::from_secs(2));
            // SAFETY: kill has no preconditions; the pid is the test's own child.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    });
    let allowed = with_command(sample(&scene, "claude-code/PreToolUse.json"), "ls");
    let mut flags = vec!["--budget-ms", "4000"];
    flags.extend(warm.flag());
    let started = Instant::now();
    let reply = Bridge::Client.json_with(&scene, "claude-code", &allowed, &flags);
    let took = started.elapsed();
    killer.join().unwrap();
    let _ = warm.child.wait();
    // The hook ran again in the bridge's own process and outlived what was left: a deny.
    assert!(deny_reason("claude-code", &reply).is_some(), "{reply:?}");
    // Within the budget from the client's start (plus the process starts), not two
    // seconds more, as a fresh budget would give.
    assert!(
        took < Duration::from_millis(4_000 + 1_500),
        "{took:?}: {reply:?}"
    );
}

/// What `hookhost-client` tells the hookhost it starts is read only by a bridge whose
/// registration hands its calls over: in a plain registration's environment (a project's
/// file can set one), it neither blocks the call nor shortens its budget.
#[test]
fn a_plain_bridge_reads_nothing_the_client_would_set() {
    let scene = policy_scene();
    let allowed = with_command(sample(&scene, "claude-code/PreToolUse.json"), "ls");
    let reply = run_with_stdin(
        scene
            .hookhost()
            .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
            .env("HOOKHOST_WARM_DONE", "forged: the server gave no answer")
            .env("HOOKHOST_WARM_WAITED_US", "999999999999"),
        allowed.to_string().as_bytes(),
    );
    assert_eq!(deny_reason("claude-code", &reply), None, "{reply:?}");
    // The same variables with a registration that hands its calls over: the forged
    // reason blocks the call (all an agent gains by setting them is its own call blocked).
    let reply = run_with_stdin(
        scene
            .hookhost()
            .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
            .args(["--warm-socket", "/run/nonexistent/w.sock"])
            .env("HOOKHOST_WARM_DONE", "forged: the server gave no answer"),
        allowed.to_string().as_bytes(),
    );
    let reason = deny_reason("claude-code", &reply).unwrap_or_else(|| panic!("{reply:?}"));
    assert_eq!(reason, "forged: the server gave no answer");
}

#[test]
fn a_server_whose_binary_is_replaced_stops_answering() {
    let scene = policy_scene();
    let binary = scene.root.path().join("hookhost");
    crate::support::copy_program(env!("CARGO_BIN_EXE_hookhost"), &binary);
    let mut warm = Warm::start(&binary, &private_folder(&scene).join("w.sock"));
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force",
    );
    let call = |warm: &Warm| {
        let mut cmd = Command::new(&binary);
        cmd.args(["--config"])
            .arg(&scene.config)
            .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
            .args(warm.flag())
            .env("XDG_STATE_HOME", scene.state())
            .env("XDG_CACHE_HOME", crate::support::test_root().join("cache"));
        run_with_stdin(&mut cmd, payload.to_string().as_bytes())
    };
    let reply = call(&warm);
    assert!(deny_reason("claude-code", &reply).is_some(), "{reply:?}");
    assert!(wait_until(|| warm.answered() == 1));
    // An upgrade: a new file renamed over the old one.
    let next = scene.root.path().join("hookhost.new");
    crate::support::copy_program(env!("CARGO_BIN_EXE_hookhost"), &next);
    std::fs::rename(&next, &binary).unwrap();
    let reply = call(&warm);
    assert!(deny_reason("claude-code", &reply).is_some(), "{reply:?}");
    assert!(
        wait_until(|| matches!(warm.child.try_wait(), Ok(Some(_)))),
        "the server of a replaced binary kept running"
    );
    assert!(
        warm.said("its binary was replaced"),
        "{:?}",
        warm.lines.lock().unwrap()
    );
    assert_eq!(warm.answered(), 1);
    assert!(!warm.socket.exists(), "its socket was left behind");
}

#[test]
fn the_callers_temp_folder_decides_what_steering_is_ignored() {
    // The agent's own temp folder (its `$TMPDIR`) is one it writes: a variable that puts
    // hookhost's folders there is ignored, whichever process judges the call.
    let scene = policy_scene();
    let warm = Warm::in_scene(&scene);
    let agent_tmp = scene.root.path().join("agent-tmp");
    std::fs::create_dir_all(agent_tmp.join("cache")).unwrap();
    let payload = with_command(sample(&scene, "claude-code/PreToolUse.json"), "ls");
    let call = |session: &str, extra: &[&str]| {
        run_with_stdin(
            scene
                .hookhost()
                .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
                .args(extra)
                .env("TMPDIR", &agent_tmp)
                .env("XDG_CACHE_HOME", agent_tmp.join("cache")),
            with_session(payload.clone(), session)
                .to_string()
                .as_bytes(),
        )
    };
    let alone = call("tmp-alone", &[]);
    let served = call("tmp-served", &warm.flag());
    assert_eq!(served, alone);
    assert!(
        served.1.contains("hookhost bridge ignores XDG_CACHE_HOME="),
        "{served:?}"
    );
    assert!(wait_until(|| warm.answered() == 1));
}

#[test]
fn a_caller_confined_otherwise_than_the_server_runs_its_call_itself() {
    // A sandboxed agent can reach the server's socket; the server would run the hooks it
    // names outside the sandbox. A caller with no-new-privileges set (as bubblewrap,
    // Landlock and seccomp sandboxes set it) is refused, and its bridge judges the call
    // in its own process, with the same answer.
    use std::os::unix::process::CommandExt;
    let scene = policy_scene();
    let warm = Warm::in_scene(&scene);
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force",
    );
    let call = |session: &str, confined: bool| {
        let mut cmd = scene.hookhost();
        cmd.args(["--no-sandbox", "bridge", "--agent", "claude-code"])
            .args(warm.flag());
        if confined {
            // SAFETY: prctl is async-signal-safe and touches only the child.
            unsafe {
                cmd.pre_exec(|| {
                    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        run_with_stdin(
            &mut cmd,
            with_session(payload.clone(), session)
                .to_string()
                .as_bytes(),
        )
    };
    let served = call("confined-served", false);
    assert!(wait_until(|| warm.answered() == 1));
    let confined = call("confined-alone", true);
    assert_eq!(confined, served);
    assert!(
        deny_reason("claude-code", &confined).is_some(),
        "{confined:?}"
    );
    assert!(
        wait_until(|| warm.said("is confined otherwise than this server: NoNewPrivs 1")),
        "{:?}",
        warm.lines.lock().unwrap()
    );
    assert_eq!(warm.answered(), 1, "the confined caller's call was served");
}

#[test]
fn warm_refuses_a_socket_in_a_temp_folder() {
    let socket = PathBuf::from(format!("/tmp/hookhost-warm-{}/w.sock", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["warm", "--warm-socket"])
        .arg(&socket)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run hookhost warm");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{} lies in /tmp", socket.display())),
        "{stderr}"
    );
    assert!(!socket.parent().unwrap().exists(), "it made the folder");
}

#[test]
fn a_call_that_trickles_in_is_dropped_at_its_deadline() {
    // A caller that claims a large frame and sends a byte now and then holds a server's
    // thread only until the call's deadline (a second), not for as long as it trickles.
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    let scene = policy_scene();
    let warm = Warm::in_scene(&scene);
    let mut stream = UnixStream::connect(&warm.socket).expect("connect");
    let mut length = [0u8; 4];
    stream
        .read_exact(&mut length)
        .expect("the greeting's length");
    let mut greeting = vec![0u8; u32::from_le_bytes(length) as usize];
    stream.read_exact(&mut greeting).expect("the greeting");
    stream
        .write_all(&(200u32 << 20).to_le_bytes())
        .expect("a frame's length");
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let started = Instant::now();
    let closed = loop {
        if started.elapsed() > Duration::from_secs(10) {
            break false;
        }
        if stream.write_all(b"x").is_err() {
            break true;
        }
        let mut byte = [0u8; 1];
        match stream.read(&mut byte) {
            Ok(0) => break true,
            Err(e) if e.kind() != std::io::ErrorKind::WouldBlock => break true,
            _ => {}
        }
    };
    assert!(closed, "the server still held the connection after 10 s");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert!(
        wait_until(|| warm.said("the call did not arrive in time")),
        "{:?}",
        warm.lines.lock().unwrap()
    );
}

#[test]
fn calls_made_at_once_are_each_answered_by_the_server() {
    // Each call is answered on the thread that took its connection, and the last thread
    // waiting starts another: a burst of calls is served, none left to its bridge.
    let scene = policy_scene();
    let warm = Warm::in_scene(&scene);
    let calls: Vec<_> = (0..12)
        .map(|i| {
            let command = if i % 2 == 0 { "ls" } else { "git push --force" };
            let payload = with_session(
                with_command(sample(&scene, "claude-code/PreToolUse.json"), command),
                &format!("burst-{i}"),
            );
            let mut cmd = scene.hookhost();
            cmd.args(["--no-sandbox", "bridge", "--agent", "claude-code"])
                .args(warm.flag());
            std::thread::spawn(move || {
                (i, run_with_stdin(&mut cmd, payload.to_string().as_bytes()))
            })
        })
        .collect();
    for call in calls {
        let (i, reply) = call.join().unwrap();
        let reason = deny_reason("claude-code", &reply);
        assert_eq!(reason.is_some(), i % 2 == 1, "call {i}: {reply:?}");
    }
    assert!(
        wait_until(|| warm.answered() == 12),
        "the server answered {} of 12 calls: {:?}",
        warm.answered(),
        warm.lines.lock().unwrap()
    );
}

#[test]
fn a_bridge_that_gives_up_stops_its_call_in_the_server() {
    // The agent's timeout, or a signal, ends the bridge: the server sees its connection
    // close and stops the call's hooks, as a bridge process's own end would.
    let scene = Scene::new();
    let started = scene.root.path().join("hook-started");
    let finished = scene.root.path().join("hook-finished");
    slow_hook(
        &scene,
        &format!(
            "cat >/dev/null; touch '{}'; sleep 3; touch '{}'",
            started.display(),
            finished.display()
        ),
    );
    let warm = Warm::in_scene(&scene);
    let payload = with_command(sample(&scene, "claude-code/PreToolUse.json"), "ls");
    let mut bridge = scene
        .hookhost()
        .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
        .args(warm.flag())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = bridge.stdin.take().unwrap();
        stdin.write_all(payload.to_string().as_bytes()).unwrap();
    }
    assert!(wait_until(|| started.exists()), "the hook never ran");
    bridge.kill().unwrap();
    bridge.wait().unwrap();
    std::thread::sleep(Duration::from_secs(4));
    assert!(
        !finished.exists(),
        "the hook ran on after its bridge was gone"
    );
    // And the server takes the next call.
    std::fs::remove_file(&started).unwrap();
    let reply = bridge_json_with(&scene, "claude-code", &payload, &warm.flag());
    assert_eq!(reply.0, 0, "{reply:?}");
    assert!(started.exists());
}

/// Whether the ELF executable at `path` names a program interpreter (a dynamic loader):
/// a `PT_INTERP` among its program headers.
fn names_a_loader(path: &Path) -> bool {
    const PT_INTERP: u32 = 3;
    let elf = std::fs::read(path).unwrap();
    assert_eq!(
        &elf[..5],
        b"\x7fELF\x02",
        "{} is no 64-bit ELF file",
        path.display()
    );
    let u16_at = |at: usize| u16::from_le_bytes([elf[at], elf[at + 1]]) as usize;
    let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize;
    let (size, count) = (u16_at(0x36), u16_at(0x38));
    (0..count).any(|n| {
        let at = phoff + n * size;
        u32::from_le_bytes(elf[at..at + 4].try_into().unwrap()) == PT_INTERP
    })
}

#[test]
fn a_statically_linked_client_hands_its_calls_over_as_the_usual_one_does() {
    let test = "warm::a_statically_linked_client_hands_its_calls_over_as_the_usual_one_does";
    // scripts/static-client.sh --copy-to leaves it beside the target's debug folder.
    let debug = Path::new(env!("CARGO_BIN_EXE_hookhost")).parent().unwrap();
    let built = debug
        .parent()
        .unwrap()
        .join("static-client/hookhost-client");
    if !built.exists() {
        crate::support::skip_or_fail(
            test,
            crate::support::Prerequisite::StaticClient,
            &format!(
                "no statically linked client at {} (`bash scripts/static-client.sh --copy-to {}` makes one)",
                built.display(),
                built.parent().unwrap().display()
            ),
        );
        return;
    }
    assert!(
        !names_a_loader(&built),
        "{} names a dynamic loader",
        built.display()
    );
    assert!(names_a_loader(Path::new(env!(
        "CARGO_BIN_EXE_hookhost-client"
    ))));
    // Laid out as `install --warm` finds them: the client beside the hookhost it runs
    // when no server answers, and whose server it hands its calls to.
    let scene = policy_scene();
    let bin = scene.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    crate::support::copy_program(env!("CARGO_BIN_EXE_hookhost"), bin.join("hookhost"));
    crate::support::copy_program(&built, bin.join("hookhost-client"));
    let warm = Warm::start(
        &bin.join("hookhost"),
        &private_folder(&scene).join("s.sock"),
    );
    let client = |payload: &Value, extra: &[&str]| {
        let usual = scene.client();
        let mut cmd = Command::new(bin.join("hookhost-client"));
        cmd.args(usual.get_args())
            .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
            .args(extra);
        for (name, value) in usual.get_envs() {
            match value {
                Some(value) => cmd.env(name, value),
                None => cmd.env_remove(name),
            };
        }
        run_with_stdin(&mut cmd, payload.to_string().as_bytes())
    };
    for (n, command) in ["ls", "git push --force", "crash now"]
        .into_iter()
        .enumerate()
    {
        let payload = with_command(sample(&scene, "claude-code/PreToolUse.json"), command);
        let alone = bridge_json_with(
            &scene,
            "claude-code",
            &with_session(payload.clone(), &format!("alone-{n}")),
            &[],
        );
        let served = client(
            &with_session(payload.clone(), &format!("static-{n}")),
            &warm.flag(),
        );
        assert_eq!(served, alone, "`{command}` through the static client");
        assert_eq!(
            deny_reason("claude-code", &served).is_none(),
            command == "ls",
            "`{command}`: {served:?}"
        );
    }
    assert!(
        wait_until(|| warm.answered() == 3),
        "the server answered {} of 3 calls",
        warm.answered()
    );
    // With no server, it runs the hookhost beside it, as the usual client does.
    drop(warm);
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force",
    );
    let gone = scene.root.path().join("run/s.sock");
    let alone = client(
        &with_session(payload, "static-alone"),
        &["--warm-socket", gone.to_str().unwrap()],
    );
    assert!(deny_reason("claude-code", &alone).is_some(), "{alone:?}");
}

/// The server keeps a host hook's namespace ready ahead of its call
/// (src/platform/linux/pid_namespace/ready.rs): a later call's hook starts in one, and
/// sees, gets and answers exactly what the hook of a bridge process does (its PID 1
/// aside, which is how the hook tells).
#[test]
fn the_servers_host_hooks_start_in_namespaces_made_ahead_as_a_bridges_do() {
    let test = "the_servers_host_hooks_start_in_namespaces_made_ahead_as_a_bridges_do";
    if let Err(why) = hookhost::process::HookNamespace::for_this_process() {
        crate::support::skip_or_fail(test, crate::support::Prerequisite::Root, &why.to_string());
        return;
    }
    let scene = Scene::new();
    let view = scene.script(
        "view.sh",
        r#"{ case "$(tr '\0' ' ' </proc/1/cmdline)" in *__hookhost-namespace-keeper*) echo pid1=ready;; *) echo pid1=at-call;; esac
echo "pid $$, $(ls /proc | grep -c '^[0-9]') processes"
grep -E '^(SigIgn|SigBlk|Uid)' /proc/self/status
ls /proc/self/fd; pwd; env | sort | cksum; grep -c . ; } | tr '\n\t' '  ' >&2
exit 2"#,
    );
    scene.write_config(&crate::support::hook(
        "view",
        "PreToolUse",
        &["/bin/sh", view.to_str().unwrap()],
        "",
    ));
    let warm = Warm::in_scene(&scene);
    let payload = sample(&scene, "claude-code/PreToolUse.json");
    let alone = bridge_json_with(
        &scene,
        "claude-code",
        &with_session(payload.clone(), "alone"),
        &[],
    );
    let alone = deny_reason("claude-code", &alone).expect("the view hook denies");
    assert!(alone.contains("pid1=at-call pid 2, "), "{alone}");
    // The first call starts the server's pool; a later one finds a keeper ready.
    let mut served = None;
    for call in 0..100 {
        let answer = Bridge::Client.json_with(
            &scene,
            "claude-code",
            &with_session(payload.clone(), &format!("served-{call}")),
            &warm.flag(),
        );
        let reason = deny_reason("claude-code", &answer).expect("the view hook denies");
        if reason.contains("pid1=ready") {
            served = Some(reason);
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let served = served.expect("no call ran its host hook in a namespace made ahead");
    assert_eq!(served.replacen("pid1=ready", "pid1=at-call", 1), alone);
}
