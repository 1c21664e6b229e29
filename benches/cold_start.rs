//! Cold start: a fresh `hookhost pre-tool-use` process answering its first (and only)
//! call, timed from spawn to exit by this process.
//!
//! - the process floor: no hooks configured, and `--no-hooks`;
//! - one WASM hook with a warm compile cache (the second and later runs);
//! - one WASM hook without a cache (a fresh, empty `XDG_CACHE_HOME` every run);
//! - `hookhost bridge` answering one Claude Code payload with one WASM hook and a warm
//!   cache (a fresh agent session each run, and calls 21 to 320 of one session), against
//!   a plain python Claude Code hook with the same policy, run as Claude Code runs it,
//!   interleaved;
//! - the same call handed to `hookhost warm` (by the bridge and by `hookhost-client`),
//!   against `/bin/true` and the python hook; and a `/bin/sh` hook on the host and in the
//!   box through the warm server, against the same script run bare (issue 28's targets,
//!   each printed as a `TARGET` line);
//! - compile time against module size: `WasmEngine::prepare` (compile + pre-link, no
//!   cache) in this process, for every plugin in `target/wasm`, next to the time to
//!   load the same program from the cache.
//!
//!     cargo bench --bench cold_start

mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Stats;
use hookhost::executor::wasm::{EngineMode, WasmEngine, WasmSettings};
use support::Scene;

const INPUT: &str = r#"{"command":"git status --short","description":"Show status"}"#;

fn gate(scene: &Scene, config: &Path, cache: &Path, extra: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("--config")
        .arg(config)
        .arg("--project")
        .arg(&scene.project)
        .args(extra)
        .args(["pre-tool-use", "--tool", "bash", "--input", INPUT])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("XDG_CACHE_HOME", cache)
        .stdin(Stdio::null())
        .output()
        .expect("run hookhost");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "hookhost pre-tool-use: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn timed(n: usize, warmup: usize, mut f: impl FnMut() -> Duration) -> Stats {
    for _ in 0..warmup {
        f();
    }
    Stats::of((0..n).map(|_| f()).collect())
}

fn main() {
    let wasm = support::wasm_dir();
    let scene = Scene::new();
    let warm_cache = common::cache(&scene);
    // `cargo bench --bench cold_start -- warm` (or `bridge`, or `languages`) runs only that
    // part.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.as_deref() == Some("warm") {
        warm_server(&scene, &warm_cache);
        return;
    }
    if filter.as_deref() == Some("bridge") {
        bridge_against_python(&scene, &warm_cache);
        return;
    }
    if filter.as_deref() == Some("languages") {
        languages(&scene, wasm, &warm_cache);
        return;
    }
    let fixture = wasm.join("fixture-p1.wasm");

    // The process floor.
    let empty = scene.config_file("none.toml", "");
    let s = timed(300, 20, || gate(&scene, &empty, &warm_cache, &[]));
    common::report("process, no hooks configured", &s);
    let s = timed(300, 20, || {
        gate(&scene, &empty, &warm_cache, &["--no-hooks"])
    });
    common::report("process, --no-hooks", &s);

    // One WASM hook, warm cache: the first run fills it, the timed runs load from it.
    for (label, file) in [
        ("fixture-p1 allow", &fixture),
        ("no-force-push", &wasm.join("no-force-push.wasm")),
        ("fixture-p2 allow", &wasm.join("fixture-p2.wasm")),
    ] {
        let args: &[&str] = if label.contains("fixture") {
            &["allow"]
        } else {
            &[]
        };
        let mut argv = vec![file.to_str().unwrap()];
        argv.extend(args);
        let config = scene.config_file(
            &format!("{}.toml", label.replace(' ', "-")),
            &common::hook("one", &argv, ""),
        );
        gate(&scene, &config, &warm_cache, &[]);
        let s = timed(300, 20, || gate(&scene, &config, &warm_cache, &[]));
        common::report(&format!("1 wasm ({label}), warm cache"), &s);
        if label == "fixture-p1 allow" {
            common::target(
                "cold start with a warm cache (median)",
                s.median.as_secs_f64() * 1e3,
                5.0,
                " ms",
            );
            let s = timed(300, 20, || {
                gate(&scene, &config, &warm_cache, &["--no-sandbox"])
            });
            common::report(&format!("1 wasm ({label}), warm cache, --no-sandbox"), &s);
        }
        let mut run = 0;
        let s = timed(20, 2, || {
            run += 1;
            let cache = scene.root.path().join(format!("empty-cache-{label}-{run}"));
            let took = gate(&scene, &config, &cache, &[]);
            let _ = std::fs::remove_dir_all(&cache);
            took
        });
        common::report(&format!("1 wasm ({label}), no cache"), &s);
    }

    bridge_against_python(&scene, &warm_cache);
    warm_server(&scene, &warm_cache);
    languages(&scene, wasm, &warm_cache);

    // Compile time against module size, in process (no subprocess, no cache), and the
    // time to load the same artifact from a warm cache.
    println!();
    println!("COMPILE module                 size KiB   compile+link median   from cache median");
    let project = &scene.project;
    let mut files: Vec<_> = std::fs::read_dir(wasm)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        // The test probes are the guards' runtimes again.
        .filter(|p| !p.to_string_lossy().contains("probe-"))
        .collect();
    files.sort();
    let cached = WasmSettings {
        cache_dir: Some(scene.root.path().join("compile-cache")),
        ..WasmSettings::default()
    };
    for file in files {
        let size = std::fs::metadata(&file).unwrap().len();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let prepare = |settings: &WasmSettings| {
            let engine = WasmEngine::new(settings, EngineMode::OneShot).unwrap();
            let start = Instant::now();
            let result = engine.prepare(&file, &[], project, Duration::from_secs(30));
            (start.elapsed(), result.map(|_| ()))
        };
        if let (_, Err(e)) = prepare(&WasmSettings::default()) {
            println!(
                "COMPILE {name:<24} {:>7.1}   not prepared: {e}",
                size as f64 / 1024.0
            );
            continue;
        }
        let compile = timed(5, 0, || prepare(&WasmSettings::default()).0);
        let _ = prepare(&cached); // fills the cache
        let load = timed(50, 5, || prepare(&cached).0);
        println!(
            "COMPILE {name:<24} {:>7.1}   {:>19}   {:>17}",
            size as f64 / 1024.0,
            format!("{:.0} ms", compile.median.as_secs_f64() * 1e3),
            common::us(load.median),
        );
    }
}

/// The guard policy as a fresh process with a warm compile cache: the native
/// `python3 guard.py` against the Python and JavaScript components (and the Rust one);
/// then each component's first start (compile, no cache) and the size of its cache file.
fn languages(scene: &Scene, wasm: &Path, warm_cache: &Path) {
    for case in common::guard_cases(wasm) {
        let name = case.name;
        let config = scene.config_file(
            &format!("lang-{}.toml", name.replace([' ', '(', ')'], "-")),
            &case.hooks,
        );
        gate(scene, &config, warm_cache, &[]);
        let s = timed(50, 5, || gate(scene, &config, warm_cache, &[]));
        common::report(&format!("fresh process, {name}, warm cache"), &s);
        if let Some(file) = &case.wasm {
            let cache = scene
                .root
                .path()
                .join(format!("first-start-{}", name.len()));
            let s = timed(3, 0, || {
                let _ = std::fs::remove_dir_all(&cache);
                gate(scene, &config, &cache, &[])
            });
            let bytes: u64 = walk_sizes(&cache);
            common::report(
                &format!("fresh process, {name}, first start (compiles)"),
                &s,
            );
            println!(
                "CACHE {name:<28} {:>8.1} MiB compiled, for {:.1} MiB of wasm",
                bytes as f64 / (1 << 20) as f64,
                std::fs::metadata(file).unwrap().len() as f64 / (1 << 20) as f64
            );
            let _ = std::fs::remove_dir_all(&cache);
        }
    }
}

/// The total size of the files under `dir`.
fn walk_sizes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .map(|e| match e.file_type() {
                Ok(t) if t.is_dir() => walk_sizes(&e.path()),
                _ => e.metadata().map_or(0, |m| m.len()),
            })
            .sum()
    })
}

/// A python hook as people write them for Claude Code: the payload on stdin, a deny
/// answer on stdout for a force push. The same policy, by regular expression.
const PYTHON_CLAUDE_HOOK: &str = r#"import json, re, sys
payload = json.load(sys.stdin)
command = payload.get("tool_input", {}).get("command", "")
if payload.get("tool_name") == "Bash" and re.search(r"\bgit\s+push\b.*\s(--force|-f)\b", command):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "force-push is not allowed"}}))
"#;

/// One Claude Code PreToolUse payload (`examples/agents/`), its `cwd` the scene's project.
fn claude_payload(scene: &Scene, session_id: &str) -> String {
    let path = common::repo().join("examples/agents/claude-code/PreToolUse.json");
    let mut payload: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    payload["cwd"] = serde_json::json!(scene.project);
    payload["session_id"] = serde_json::json!(session_id);
    payload.to_string()
}

/// Spawns `command` with `payload` on stdin, times it to exit, and asserts it allowed.
fn answer(mut command: Command, payload: &str) -> Duration {
    let start = Instant::now();
    let (code, stdout, stderr) = support::run_with_stdin(&mut command, payload.as_bytes());
    let took = start.elapsed();
    assert!(code == 0 && stdout.is_empty(), "{code}\n{stdout}{stderr}");
    took
}

/// The plain python Claude Code hook with the policy of `no-force-push.wasm`, written into
/// `scene`: each call runs it once with a Claude Code payload and times it.
fn plain_python_hook(scene: &Scene) -> impl Fn() -> Duration {
    let hook = scene.root.path().join("no_force_push.py");
    std::fs::write(&hook, PYTHON_CLAUDE_HOOK).unwrap();
    let payload = claude_payload(scene, "python");
    let python = common::python3();
    move || {
        let mut command = Command::new(&python);
        command.arg(&hook);
        answer(command, &payload)
    }
}

fn bridge_against_python(scene: &Scene, warm_cache: &Path) {
    let wasm = support::wasm_dir().join("no-force-push.wasm");
    let config = scene.config_file(
        "bridge.toml",
        &common::hook(
            "no-force-push",
            &[wasm.to_str().unwrap()],
            "envelope = \"spec\"",
        ),
    );
    let state = scene.root.path().join("state");
    let bridge = |session: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        command
            .arg("--config")
            .arg(&config)
            .args(["bridge", "--agent", "claude-code"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("XDG_CACHE_HOME", warm_cache)
            .env("XDG_STATE_HOME", &state);
        answer(command, &claude_payload(scene, session))
    };
    bridge("fill-the-cache");
    let python_hook = plain_python_hook(scene);
    // Interleaved, as issue 28's ratios ask: a new session, the same long session (its
    // calls 21 to 320 timed), and the python hook every third round.
    let (mut fresh, mut long, mut plain) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..320 {
        let new = bridge(&format!("fresh-{round}"));
        let same = bridge("one-long-session");
        if round >= 20 {
            fresh.push(new);
            long.push(same);
        }
        if round % 3 == 0 {
            let took = python_hook();
            if round >= 20 {
                plain.push(took);
            }
        }
    }
    // Call 300 against call 1: the long session's calls 281-320 against the new
    // sessions' calls of the same rounds.
    let late = fresh.len().saturating_sub(40);
    let call_300 = Stats::of(long[late..].to_vec()).median.as_secs_f64()
        / Stats::of(fresh[late..].to_vec()).median.as_secs_f64();
    let [fresh, long, plain] = [fresh, long, plain].map(Stats::of);
    common::report("bridge: 1 wasm, warm cache, a new agent session", &fresh);
    common::report(
        "bridge: 1 wasm, warm cache, calls 21-320 of one session",
        &long,
    );
    common::report("plain python Claude Code hook, same policy", &plain);
    pin_and_chain_cost(scene, &state);
    common::target(
        "bridged wasm hook (median)",
        fresh.median.as_secs_f64() * 1e3,
        5.0,
        " ms",
    );
    common::target(
        "bridged wasm hook / python hook (median)",
        fresh.median.as_secs_f64() / plain.median.as_secs_f64(),
        0.1,
        "",
    );
    // A long session's call writes to files it has; a new session's creates two, so
    // the long one may well be faster: the limit is on its being slower.
    common::target(
        "bridged wasm hook, calls 281-320 of one session / a new session's call in the same rounds (median; at most 5 % slower)",
        call_300,
        1.05,
        "",
    );
}

/// A child process killed and reaped when dropped, by a panic's unwinding too: a bench
/// that fails half-way (its message on stderr) leaves no `hookhost warm` running.
struct KilledOnDrop(std::process::Child);

impl Drop for KilledOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The bridge handing its call to `hookhost warm` (docs/contract.md#the-warm-server),
/// from `hookhost bridge` itself and from `hookhost-client` (what `install --warm`
/// registers), interleaved with the process floor, the bridge judging the call itself,
/// and the plain python hook; then, in a second interleaved run, a `/bin/sh` hook on the
/// host and in the box through the client against the same script run bare: one of each
/// per round, a new agent session per call, 150 rounds after 10; medians, their ratios
/// and differences.
/// `cargo bench --bench cold_start -- warm` runs only this.
fn warm_server(scene: &Scene, warm_cache: &Path) {
    let wasm = support::wasm_dir().join("no-force-push.wasm");
    let config = scene.config_file(
        "warm.toml",
        &common::hook(
            "no-force-push",
            &[wasm.to_str().unwrap()],
            "envelope = \"spec\"",
        ),
    );
    // Issue 28's argv hooks: the same script on the host and in the box, and bare.
    let sh = scene.executable("warm-allow.sh", "#!/bin/sh\ninput=$(cat)\nexit 0\n");
    let sh_command = ["/bin/sh", sh.to_str().unwrap()];
    let sh_payload = claude_payload(scene, "sh");
    let host_config = scene.config_file(
        "warm-host.toml",
        &common::hook("sh", &sh_command, "sandbox = false"),
    );
    let boxed_config = match support::bwrap_available() {
        Ok(()) => Some(scene.config_file(
            "warm-boxed.toml",
            &common::with_default_hidden(&common::hook("sh-box", &sh_command, "sandbox = true")),
        )),
        Err(why) => {
            // Fails instead where HOOKHOST_REQUIRE_BOX says the box must run.
            support::skip_or_fail(
                "cold_start warm server, the boxed sh hook",
                support::Prerequisite::Bubblewrap,
                &why,
            );
            None
        }
    };
    // Its own state folder: `pin_and_chain_cost` pins a registration in the shared one,
    // whose pins would refuse these calls' configs.
    let state = scene.root.path().join("warm-state");
    let run = scene.root.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let socket = run.join("warm.sock");
    // `-v`: a line per call answered, counted below (a call the server did not answer
    // would be timed as one, run in the bridge's own process).
    let log = scene.root.path().join("warm.log");
    let server = KilledOnDrop(
        Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .args(["-v", "warm", "--warm-socket"])
            .arg(&socket)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("the server's log"))
            .spawn()
            .expect("start hookhost warm"),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !socket.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut calls = 0;
    let mut bridge = |program: &str, config: &Path, warm: bool| {
        calls += 1;
        let mut command = Command::new(program);
        command
            .arg("--config")
            .arg(config)
            .args(["bridge", "--agent", "claude-code"]);
        if warm {
            command.arg("--warm-socket").arg(&socket);
        }
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("XDG_CACHE_HOME", warm_cache)
            .env("XDG_STATE_HOME", &state);
        answer(
            command,
            &claude_payload(scene, &format!("warm-bench-{calls}")),
        )
    };
    let python_hook = plain_python_hook(scene);
    let hookhost = env!("CARGO_BIN_EXE_hookhost");
    let hookhost_client = env!("CARGO_BIN_EXE_hookhost-client");
    let mut times: [Vec<Duration>; 8] = Default::default();
    let rounds = 160;
    // Two interleaved runs, each target's cases in one.
    for round in 0..rounds {
        let took = [
            {
                let start = Instant::now();
                let status = Command::new("/bin/true").status().expect("run /bin/true");
                assert!(status.success());
                start.elapsed()
            },
            bridge(hookhost, &config, false),
            bridge(hookhost, &config, true),
            bridge(hookhost_client, &config, true),
            python_hook(),
        ];
        if round >= 10 {
            for (all, one) in times.iter_mut().zip(took) {
                all.push(one);
            }
        }
    }
    for round in 0..rounds {
        // The order turns each round, so that what one case leaves the kernel to do
        // (a box's namespaces torn down) does not always land on the same next case.
        let mut took = [Duration::ZERO; 3];
        for turn in 0..3 {
            let case = (round + turn) % 3;
            took[case] = match case {
                0 => {
                    let mut command = Command::new(sh_command[0]);
                    command.arg(sh_command[1]);
                    answer(command, &sh_payload)
                }
                1 => bridge(hookhost_client, &host_config, true),
                _ => match &boxed_config {
                    Some(boxed) => bridge(hookhost_client, boxed, true),
                    None => Duration::ZERO,
                },
            };
        }
        if round >= 10 {
            for (all, one) in times[5..].iter_mut().zip(took) {
                all.push(one);
            }
        }
    }
    drop(server);
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    let answered = log.matches("a bridged call answered").count();
    let per_round = 3 + usize::from(boxed_config.is_some());
    if answered != per_round * rounds {
        let said: Vec<&str> = log
            .lines()
            .filter(|l| !l.contains("a bridged call answered") && !l.contains("DEBUG gate"))
            .take(20)
            .collect();
        panic!(
            "the warm server answered {answered} calls of {}; it said:\n{}",
            per_round * rounds,
            said.join("\n")
        );
    }
    let [
        floor,
        fresh,
        warm,
        client,
        plain,
        sh_bare,
        sh_host,
        sh_boxed,
    ] = times.map(Stats::of);
    common::report("interleaved: /bin/true", &floor);
    common::report("interleaved: bridge, 1 wasm, in its process", &fresh);
    common::report("interleaved: bridge, 1 wasm, warm server", &warm);
    common::report("interleaved: hookhost-client, 1 wasm, warm server", &client);
    common::report("interleaved: plain python hook", &plain);
    common::report("interleaved: /bin/sh hook script, bare", &sh_bare);
    common::report(
        "interleaved: hookhost-client, sh hook on the host, warm server",
        &sh_host,
    );
    if boxed_config.is_some() {
        common::report(
            "interleaved: hookhost-client, sh hook in the box, warm server",
            &sh_boxed,
        );
    }
    let ratio = |a: &Stats, b: &Stats| a.median.as_secs_f64() / b.median.as_secs_f64();
    let over = |a: &Stats, b: &Stats| (a.median.as_secs_f64() - b.median.as_secs_f64()) * 1e3;
    // Issue 28's 2.5× `true` is met through the warm server (`install --warm`); a bridge
    // that judges the call in its own process is printed for comparison.
    println!(
        "RATIO bridge judging the call in its own process / /bin/true (median): {:.3}",
        ratio(&fresh, &floor)
    );
    println!(
        "RATIO warm server / bridge in its process (median): {:.3}",
        ratio(&warm, &fresh)
    );
    println!(
        "RATIO hookhost-client / hookhost bridge, both warm (median): {:.3}",
        ratio(&client, &warm)
    );
    common::target(
        "bridged wasm hook through hookhost-client and the warm server / /bin/true (median)",
        ratio(&client, &floor),
        2.5,
        "",
    );
    common::target(
        "bridged wasm hook through hookhost-client and the warm server / python hook (median)",
        ratio(&client, &plain),
        0.1,
        "",
    );
    common::target(
        "sh hook on the host through hookhost-client and the warm server, over the script run bare (median)",
        over(&sh_host, &sh_bare),
        1.0,
        " ms",
    );
    if boxed_config.is_some() {
        common::target(
            "sh hook in the box through hookhost-client and the warm server, over the script run bare (median)",
            over(&sh_boxed, &sh_bare),
            3.0,
            " ms",
        );
    }
}

/// What the bridge's hardening adds to each call, in process: the pin check of one
/// pinned Claude Code registration (unchanged: a read and a digest of its settings
/// file, of the config, and a look for unpinned registrations in the project), and the hash chain's work for one call (a resume checks the lines it reads,
/// about six, and the call writes about five, each digested).
fn pin_and_chain_cost(scene: &Scene, state: &Path) {
    use hookhost::bridge::AgentKind;
    use hookhost::bridge::install::{self, Action, Options, Places, Request, Scope, pin};
    use hookhost::record::chain;

    let home = scene.root.path().join("pin-home");
    let env = hookhost::env::Environment::from_vars(vec![
        ("HOME".into(), home.clone().into()),
        ("XDG_STATE_HOME".into(), state.into()),
    ]);
    let request = Request {
        action: Action::Install,
        agent: AgentKind::ClaudeCode,
        scope: Scope::User,
        places: Places::new(&home, &scene.project),
        hookhost: "/usr/local/bin/hookhost".into(),
        options: Options::default(),
    };
    let report = install::run(&request, false).expect("install into the bench's home");
    let pins = pin::pins_path(&env).unwrap();
    let config = pin::ConfigPin::now(&scene.config, &env).unwrap();
    pin::pin(
        &pins,
        pin::Pin::of(&report.change, &request).with_own_files(Some(config)),
    )
    .unwrap();
    let hookhost = std::path::Path::new("/usr/local/bin/hookhost");
    let check = timed(3000, 100, || {
        let start = Instant::now();
        let drift = pin::refused_call(
            &env,
            AgentKind::ClaudeCode,
            Some(&scene.project),
            (Some("Bash"), None),
            Some(&scene.config),
            hookhost,
        );
        let took = start.elapsed();
        assert!(drift.is_empty(), "{drift:?}");
        took
    });
    common::report(
        "pin check: 1 pinned registration and the config, unchanged; no unpinned one",
        &check,
    );

    // A real bridged session's record: the last call's lines.
    let record = std::fs::read_dir(state.join("hookhost/claude-code"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("one-long-session"))
        .expect("the long session's record");
    let bytes = std::fs::read(&record).unwrap();
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let last_call: Vec<u8> = lines[lines.len() - 6..].join(&b'\n');
    let chain_work = timed(3000, 100, || {
        let start = Instant::now();
        chain::verify(&last_call, 0).expect("an intact chain");
        for line in &lines[lines.len() - 5..] {
            std::hint::black_box(chain::digest(line));
        }
        start.elapsed()
    });
    common::report(
        "hash chain: one call (check 6 lines, digest 5)",
        &chain_work,
    );
    common::target(
        "pin check + hash chain per bridged call (median)",
        (check.median + chain_work.median).as_secs_f64() * 1e6,
        100.0,
        " µs",
    );
}
