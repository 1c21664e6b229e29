//! `hookhost serve` over pipes: the release binary as a subprocess, driven by this
//! process with JSON lines, exactly as an embedding agent in another language would.
//!
//! - latency: one request at a time (write a line, read the answer), median and p99;
//! - throughput: N requests in flight (a writer thread keeps the window full, a reader
//!   thread reads answers), calls per second over many requests;
//! - memory: the serve process's `VmHWM` (peak RSS) and `VmRSS` from `/proc/PID/status`
//!   after the run.
//!
//!     cargo bench --bench serve_throughput
//!
//! The client runs on the same 2 cores as the server, so throughput figures include the
//! client's share of the CPU (writing, reading and parsing every line).

mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use support::Scene;

const REQUEST: &str = r#""type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"git status --short","description":"Show status"},"tool_use_id":"toolu_01Bench"}"#;

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(scene: &Scene, config: &Path, recorded: bool) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        cmd.arg("--config")
            .arg(config)
            .arg("--project")
            .arg(&scene.project)
            .arg("serve")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("XDG_CACHE_HOME", common::cache(scene))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if recorded {
            cmd.env("XDG_STATE_HOME", scene.state());
        }
        let mut child = cmd.spawn().expect("start hookhost serve");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut ready = String::new();
        stdout.read_line(&mut ready).unwrap();
        assert!(ready.contains("\"ready\""), "serve did not start: {ready}");
        Server {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    fn request(&mut self) -> String {
        self.next_id += 1;
        format!("{{\"id\":{},{REQUEST}\n", self.next_id)
    }

    /// One request, one answer.
    fn call(&mut self, answer: &mut String) {
        let line = self.request();
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
        answer.clear();
        self.stdout.read_line(answer).unwrap();
        assert!(answer.contains("\"outcome\":\"allow\""), "{answer}");
    }

    /// `total` requests with at most `window` in flight; returns calls per second.
    fn throughput(&mut self, window: usize, total: usize) -> f64 {
        let lines: Vec<String> = (0..total).map(|_| self.request()).collect();
        let (permit, permits) = mpsc::sync_channel::<()>(window);
        for _ in 0..window {
            permit.send(()).unwrap();
        }
        let start = Instant::now();
        std::thread::scope(|s| {
            let stdin = &mut self.stdin;
            s.spawn(move || {
                for line in &lines {
                    permits.recv().unwrap();
                    stdin.write_all(line.as_bytes()).unwrap();
                    stdin.flush().unwrap();
                }
            });
            let stdout = &mut self.stdout;
            let mut answer = String::new();
            for _ in 0..total {
                answer.clear();
                stdout.read_line(&mut answer).unwrap();
                assert!(answer.contains("\"outcome\":\"allow\""), "{answer}");
                let _ = permit.try_send(());
            }
        });
        total as f64 / start.elapsed().as_secs_f64()
    }

    /// `total` requests written at once, none waiting for an answer: the time to the last
    /// answer, and the most fds the server held meanwhile (sampled every millisecond).
    fn burst(&mut self, total: usize) -> (std::time::Duration, usize) {
        let lines: String = (0..total).map(|_| self.request()).collect();
        let pid = self.child.id();
        let done = std::sync::atomic::AtomicBool::new(false);
        let start = Instant::now();
        let mut most_fds = 0;
        std::thread::scope(|s| {
            let stdin = &mut self.stdin;
            s.spawn(move || {
                stdin.write_all(lines.as_bytes()).unwrap();
                stdin.flush().unwrap();
            });
            let fds = s.spawn(|| {
                let mut most = 0;
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let open =
                        std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count());
                    most = most.max(open);
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                most
            });
            let mut answer = String::new();
            for _ in 0..total {
                answer.clear();
                self.stdout.read_line(&mut answer).unwrap();
                assert!(answer.contains("\"outcome\":\"allow\""), "{answer}");
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            most_fds = fds.join().unwrap();
        });
        (start.elapsed(), most_fds)
    }

    /// `total` `write_file` calls written at once, every other one on `.env` (which the
    /// hooks block) and the rest on `src/lib.rs` (which they allow): the time to the last
    /// answer. Every answer must be what the call gets alone: blocked or allowed, with no
    /// warning (a hook that failed under load, even one `on_failure = "continue"` let
    /// through, would say so).
    fn burst_of_writes(&mut self, total: usize) -> std::time::Duration {
        let first = self.next_id + 1;
        let lines: String = (0..total)
            .map(|i| {
                self.next_id += 1;
                let path = if i % 2 == 0 { ".env" } else { "src/lib.rs" };
                format!(
                    "{{\"id\":{},\"type\":\"pre_tool_use\",\"tool_name\":\"write_file\",\"tool_input\":{{\"path\":\"{path}\",\"content\":\"x\"}}}}\n",
                    self.next_id
                )
            })
            .collect();
        let start = Instant::now();
        std::thread::scope(|s| {
            let stdin = &mut self.stdin;
            s.spawn(move || {
                stdin.write_all(lines.as_bytes()).unwrap();
                stdin.flush().unwrap();
            });
            let mut answer = String::new();
            for _ in 0..total {
                answer.clear();
                self.stdout.read_line(&mut answer).unwrap();
                let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
                let id = v["id"].as_u64().unwrap();
                let want = if (id - first).is_multiple_of(2) {
                    "block"
                } else {
                    "allow"
                };
                assert_eq!(v["outcome"], want, "{answer}");
                assert_eq!(v["warnings"], serde_json::json!([]), "{answer}");
            }
        });
        start.elapsed()
    }

    fn memory(&self) -> (u64, u64) {
        common::memory_kib(self.child.id())
    }

    fn stop(mut self) {
        drop(self.stdin);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "serve exited with {status}");
    }
}

/// What a case measured for the issue's targets.
struct Measured {
    /// Calls per second one at a time: one over the sequential calls' mean.
    one_at_a_time: f64,
    /// Calls per second with the most requests in flight.
    best_rate: f64,
    /// VmHWM (KiB) after the sequential calls, and after all the throughput runs.
    early_hwm: u64,
    late_hwm: u64,
    calls_between: usize,
}

fn case(
    scene: &Scene,
    name: &str,
    hooks: &str,
    recorded: bool,
    windows: &[usize],
    total: usize,
) -> Measured {
    let config = scene.config_file(&format!("{name}.toml"), hooks);
    let mut server = Server::start(scene, &config, recorded);
    let mut answer = String::new();
    let (n, warmup) = if total >= 20_000 {
        (20_000, 2_000)
    } else {
        (5_000, 500)
    };
    let stats = common::sample(warmup, n, || server.call(&mut answer));
    common::report(&format!("serve {name} sequential"), &stats);
    let (early_hwm, _) = server.memory();
    let mut best_rate = 0.0;
    let mut calls_between = 0;
    for &window in windows {
        server.throughput(window, total / 10); // warm-up
        let rate = server.throughput(window, total);
        calls_between += total + total / 10;
        if window == windows[windows.len() - 1] {
            best_rate = rate;
        }
        println!(
            "THROUGHPUT serve {name:<28} in-flight {window:>3}: {rate:>9.0} calls/s ({total} calls)"
        );
    }
    let (hwm, rss) = server.memory();
    println!(
        "MEMORY serve {name:<28} VmHWM {:.1} MiB, VmRSS {:.1} MiB",
        hwm as f64 / 1024.0,
        rss as f64 / 1024.0
    );
    server.stop();
    Measured {
        one_at_a_time: 1.0 / stats.mean.as_secs_f64(),
        best_rate,
        early_hwm: hwm.min(early_hwm),
        late_hwm: hwm,
        calls_between,
    }
}

/// A process hook through serve: one request at a time (an agent's usual pattern),
/// then four in flight.
fn process_case(scene: &Scene, name: &str, hooks: &str) {
    let config = scene.config_file(&format!("{name}.toml"), &common::with_default_hidden(hooks));
    let mut server = Server::start(scene, &config, false);
    let mut answer = String::new();
    let stats = common::sample(30, 300, || server.call(&mut answer));
    common::report(&format!("serve {name} sequential"), &stats);
    server.throughput(4, 40); // warm-up
    let rate = server.throughput(4, 400);
    println!("THROUGHPUT serve {name:<28} in-flight   4: {rate:>9.0} calls/s (400 calls)");
    server.stop();
}

/// The guard policy (protect-paths + keywords) as a native `python3 guard.py` hook on the
/// host, and as components: Rust (protect-paths.wasm), Python (guard-py.wasm, the same
/// guard.py), JavaScript (guard-js.wasm). Each runs on every call (no `tools` filter),
/// reads the event and lets the `bash` call through. Target: a warm Python-component
/// call costs under a fifth of the native Python hook's.
fn languages(scene: &Scene, wasm: &Path) {
    let cases = common::guard_cases(wasm);
    let mut medians = Vec::new();
    for common::GuardCase { name, hooks, .. } in cases {
        let config = scene.config_file(&format!("{}.toml", name.replace(' ', "-")), &hooks);
        let mut server = Server::start(scene, &config, false);
        let mut answer = String::new();
        let stats = common::sample(20, 200, || server.call(&mut answer));
        common::report(&format!("serve {name} sequential"), &stats);
        let rate = server.throughput(4, 200);
        println!("THROUGHPUT serve {name:<28} in-flight   4: {rate:>9.0} calls/s (200 calls)");
        let (hwm, _) = server.memory();
        println!(
            "MEMORY serve {name:<28} VmHWM {:.1} MiB",
            hwm as f64 / 1024.0
        );
        server.stop();
        medians.push((name, stats.median));
    }
    let median = |n: &str| medians.iter().find(|(m, _)| *m == n).map(|(_, d)| *d);
    if let (Some(native), Some(component)) = (
        median("guard python3 (native)"),
        median("guard python (wasm)"),
    ) {
        let ratio = component.as_secs_f64() / native.as_secs_f64();
        println!(
            "TARGET {} serve python component against native python3: {ratio:.3} (limit 0.2)",
            if ratio < 0.2 { "PASS" } else { "MISS" }
        );
    }
}

/// Issue 28's serve targets, with one WASM hook and records on: at least 25,000 calls a
/// second one at a time (the sequential calls: a client in another process writes a
/// request and reads its answer) and 60,000 at 64 in flight; and memory that does not
/// grow with the number of calls (VmHWM after the throughput runs within 4 MiB of what
/// it was after the sequential calls). Without records the rates are context, not
/// targets.
fn check(name: &str, m: &Measured, recorded: bool) {
    let verdict = |ok: bool| if ok { "PASS" } else { "MISS" };
    if recorded {
        println!(
            "TARGET {} serve {name} one at a time: {:.0} calls/s (limit 25000)",
            verdict(m.one_at_a_time >= 25_000.0),
            m.one_at_a_time
        );
        println!(
            "TARGET {} serve {name} at 64 in flight: {:.0} calls/s (limit 60000)",
            verdict(m.best_rate >= 60_000.0),
            m.best_rate
        );
    } else {
        println!(
            "RATE serve {name} (no record): {:.0} calls/s one at a time, {:.0} at 64 in flight",
            m.one_at_a_time, m.best_rate
        );
    }
    println!(
        "TARGET {} serve {name} memory bounded: VmHWM {:.1} MiB after the sequential calls, {:.1} MiB after {} more (limit +4 MiB)",
        verdict(m.late_hwm <= m.early_hwm + 4 * 1024),
        m.early_hwm as f64 / 1024.0,
        m.late_hwm as f64 / 1024.0,
        m.calls_between
    );
}

fn main() {
    let wasm = support::wasm_dir();
    let scene = Scene::new();
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let windows = [1, 4, 16, 64];

    if run("none-matching") {
        let other = common::hook(
            "other-tool",
            &[wasm.join("fixture-p1.wasm").to_str().unwrap(), "allow"],
            "",
        )
        .replace("tools = [\"bash\"]", "tools = [\"exec\"]");
        case(&scene, "none-matching", &other, false, &windows, 40_000);
    }
    if run("wasm-1") {
        let one = common::wasm_hooks(wasm, 1);
        let m = case(&scene, "wasm-1", &one, false, &windows, 40_000);
        check("wasm-1", &m, false);
    }
    if run("wasm-1-recorded") {
        let one = common::wasm_hooks(wasm, 1);
        let m = case(&scene, "wasm-1-recorded", &one, true, &windows, 40_000);
        check("wasm-1-recorded", &m, true);
    }
    if run("burst") {
        // One WASM hook, 100 and 1,000 calls written at once against the same calls one
        // by one: a burst waits for the pool's slots, and costs only latency.
        let one = common::wasm_hooks(wasm, 1);
        let config = scene.config_file("burst.toml", &one);
        for total in [100, 1_000] {
            let mut server = Server::start(&scene, &config, false);
            let mut answer = String::new();
            let start = Instant::now();
            for _ in 0..total {
                server.call(&mut answer);
            }
            let one_by_one = start.elapsed();
            let (burst, fds) = server.burst(total);
            let (hwm, _) = server.memory();
            println!(
                "BURST {total:>5} calls: one by one {:>8.1} ms, all at once {:>8.1} ms to the last answer; peak fds {fds}; VmHWM {:.1} MiB",
                one_by_one.as_secs_f64() * 1e3,
                burst.as_secs_f64() * 1e3,
                hwm as f64 / 1024.0
            );
            server.stop();
        }
    }
    if run("burst-languages") {
        // N2 (security review, turn 3): 2,000 write_file calls at once, half on `.env`,
        // through each language's `.env` guard and all three together, under `continue`
        // (where a hook failing for want of room in the pool would let a `.env` write
        // through). Every answer is checked; the time is to the last answer.
        let guard = |name: &str, file: &str| {
            let path = wasm.join(file);
            path.is_file().then(|| {
                support::hook(
                    name,
                    "PreToolUse",
                    &[path.to_str().unwrap(), ".env"],
                    "tools = [\"write_file\"]\non_failure = \"continue\"\ntimeout = 60",
                )
            })
        };
        let rust = guard("rust", "protect-paths.wasm");
        let python = guard("python", "guard-py.wasm");
        let js = guard("js", "guard-js.wasm");
        let all = [&rust, &python, &js]
            .iter()
            .map(|h| h.as_deref())
            .collect::<Option<String>>();
        for (name, hooks) in [
            ("rust", rust.clone()),
            ("python", python.clone()),
            ("javascript", js.clone()),
            ("rust+python+javascript", all),
        ] {
            let Some(hooks) = hooks else {
                println!("SKIPPED: burst-languages {name}: a component was not built");
                continue;
            };
            let config =
                scene.config_file(&format!("burst-{}.toml", name.replace('+', "-")), &hooks);
            let mut server = Server::start(&scene, &config, false);
            server.burst_of_writes(20); // warm-up
            let took = server.burst_of_writes(2_000);
            let (hwm, _) = server.memory();
            println!(
                "BURST serve {name:<24} 2000 writes at once: {:>8.1} ms to the last answer ({:.0} calls/s), every verdict as alone; VmHWM {:.1} MiB",
                took.as_secs_f64() * 1e3,
                2_000.0 / took.as_secs_f64(),
                hwm as f64 / 1024.0
            );
            server.stop();
        }
    }
    if run("wasm-10") {
        let ten = common::wasm_hooks(wasm, 10);
        case(&scene, "wasm-10", &ten, false, &windows, 10_000);
    }
    if run("languages") {
        languages(&scene, wasm);
    }
    // 3.–5. Process hooks (native on the host and in bubblewrap, sh, python).
    let process_cases = ["native-host", "native-bwrap", "sh-host", "python-host"];
    if process_cases.iter().any(|name| run(name)) {
        let native = common::native_hook();
        for (name, hooks) in common::process_hooks(&scene, &native) {
            if run(name) {
                process_case(&scene, name, &hooks);
            }
        }
    }
}
