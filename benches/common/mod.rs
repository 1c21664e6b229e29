//! What only the benches share: a native hook binary, the hooks of the process cases,
//! and a sampler that reports median and p99 from individually timed iterations. The
//! scene and the WASM plugins are the tests' own (`tests/support`, as `crate::support`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{self, Scene, bwrap_available};

/// The repository root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A compile cache of `scene`'s own, empty at first (the tests' [`Scene::hookhost`]
/// shares one between scenes).
pub fn cache(scene: &Scene) -> PathBuf {
    scene.root.path().join("cache")
}

/// The cargo target folder the benches were built into.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
}

/// The native hook: a tiny Rust program that reads stdin to its end and exits 0,
/// compiled once with `rustc -O` into the target folder.
pub fn native_hook() -> PathBuf {
    let dir = target_dir().join("bench-fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("allow-native");
    let src = dir.join("allow-native.rs");
    let code = "use std::io::Read;\nfn main() {\n    let mut input = Vec::new();\n    \
                std::io::stdin().read_to_end(&mut input).unwrap();\n}\n";
    let fresh = std::fs::read_to_string(&src).is_ok_and(|s| s == code) && bin.exists();
    if !fresh {
        std::fs::write(&src, code).unwrap();
        let status = Command::new("rustc")
            .args(["-O", "--edition", "2021", "-o"])
            .arg(&bin)
            .arg(&src)
            .status()
            .expect("run rustc");
        assert!(status.success(), "rustc failed to build the native hook");
    }
    bin
}

/// `hooks` behind a `[sandbox]` table that hides a real user's default credential
/// folders, so that a sandboxed hook runs in the real box.
pub fn with_default_hidden(hooks: &str) -> String {
    let hide: Vec<String> = hookhost::sandbox::default_hidden(Path::new("/root"))
        .iter()
        .map(|p| format!("{:?}", p.to_str().unwrap()))
        .collect();
    format!("[sandbox]\nhide = [{}]\n\n{hooks}", hide.join(", "))
}

/// The real python3 interpreter (not a version manager's shim script on PATH).
pub fn python3() -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The hooks of cases 3–5 (native on the host, native in bubblewrap when it runs here,
/// `sh`, python), by case name; the scripts are written into `scene`.
pub fn process_hooks(scene: &Scene, native: &Path) -> Vec<(&'static str, String)> {
    let native = native.to_str().unwrap();
    let mut cases = vec![("native-host", hook("native", &[native], "sandbox = false"))];
    match bwrap_available() {
        Ok(()) => cases.push((
            "native-bwrap",
            hook("native-box", &[native], "sandbox = true"),
        )),
        Err(why) => println!("SKIPPED: native-bwrap: bubblewrap cannot run here: {why}"),
    }
    let sh = scene.executable("allow.sh", "#!/bin/sh\ninput=$(cat)\nexit 0\n");
    cases.push((
        "sh-host",
        hook("sh", &["/bin/sh", sh.to_str().unwrap()], "sandbox = false"),
    ));
    let py = scene.executable(
        "allow.py",
        "import json, sys\nevent = json.load(sys.stdin)\nsys.exit(0)\n",
    );
    let python = python3();
    cases.push((
        "python-host",
        hook(
            "python",
            &[python.as_str(), py.to_str().unwrap()],
            "sandbox = false",
        ),
    ));
    cases
}

/// One build of the guard policy (protect-paths + keywords) for the language benches.
pub struct GuardCase {
    /// The case's name (`guard python (wasm)`).
    pub name: &'static str,
    /// Its `[[hooks]]` table: a PreToolUse hook named `guard` on every tool.
    pub hooks: String,
    /// The `.wasm` file, for a component.
    pub wasm: Option<PathBuf>,
}

/// The guard policy four ways: `python3 plugins/python/guard.py` on the host, and the
/// Rust, Python and JavaScript components built into `wasm` (a component not built is
/// skipped with a line that says so).
pub fn guard_cases(wasm: &Path) -> Vec<GuardCase> {
    let table = |command: &[&str], extra: &str| {
        support::hook(
            "guard",
            "PreToolUse",
            command,
            &format!("timeout = 60\n{extra}"),
        )
    };
    let guard_py = repo().join("plugins/python/guard.py");
    let python = python3();
    let mut cases = vec![GuardCase {
        name: "guard python3 (native)",
        hooks: table(
            &[&python, guard_py.to_str().unwrap(), ".env"],
            "sandbox = false",
        ),
        wasm: None,
    }];
    for (name, file) in [
        ("guard rust (wasm)", "protect-paths.wasm"),
        ("guard python (wasm)", "guard-py.wasm"),
        ("guard javascript (wasm)", "guard-js.wasm"),
    ] {
        let path = wasm.join(file);
        if !path.is_file() {
            println!("SKIPPED: {name}: target/wasm/{file} was not built");
            continue;
        }
        cases.push(GuardCase {
            name,
            hooks: table(&[path.to_str().unwrap(), ".env"], ""),
            wasm: Some(path),
        });
    }
    cases
}

/// A `[[hooks]]` table for PreToolUse on `bash`.
pub fn hook(name: &str, command: &[&str], extra: &str) -> String {
    support::hook(
        name,
        "PreToolUse",
        command,
        &format!("tools = [\"bash\"]\n{extra}"),
    )
}

/// `n` trivial WASM hooks (`fixture-p1.wasm allow`) on `bash`.
pub fn wasm_hooks(wasm: &Path, n: usize) -> String {
    let fixture = wasm.join("fixture-p1.wasm");
    (0..n)
        .map(|i| {
            hook(
                &format!("wasm-{i}"),
                &[fixture.to_str().unwrap(), "allow"],
                "",
            )
        })
        .collect()
}

/// Median, p99 and friends of individually timed iterations.
#[derive(Debug, Clone)]
pub struct Stats {
    pub n: usize,
    pub median: Duration,
    pub p99: Duration,
    pub mean: Duration,
    pub min: Duration,
}

impl Stats {
    pub fn of(mut samples: Vec<Duration>) -> Stats {
        samples.sort();
        let n = samples.len();
        let at = |q: f64| samples[((n as f64 * q).ceil() as usize).clamp(1, n) - 1];
        Stats {
            n,
            median: at(0.5),
            p99: at(0.99),
            mean: samples.iter().sum::<Duration>() / n as u32,
            min: samples[0],
        }
    }
}

/// Runs `f` `warmup` times untimed, then `n` times, timing each call.
pub fn sample(warmup: usize, n: usize, mut f: impl FnMut()) -> Stats {
    for _ in 0..warmup {
        f();
    }
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        f();
        samples.push(start.elapsed());
    }
    Stats::of(samples)
}

/// A duration in µs with a sensible number of decimals.
pub fn us(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 100.0 {
        format!("{us:.1} µs")
    } else {
        format!("{us:.0} µs")
    }
}

/// Prints one result line in a fixed format (grep `^RESULT`).
pub fn report(case: &str, s: &Stats) {
    println!(
        "RESULT {case:<44} median {:>10}  p99 {:>10}  mean {:>10}  min {:>10}  (n={})",
        us(s.median),
        us(s.p99),
        us(s.mean),
        us(s.min),
        s.n
    );
}

/// Prints a target line: PASS when `measured <= limit`.
pub fn target(what: &str, measured: f64, limit: f64, unit: &str) {
    let verdict = if measured <= limit { "PASS" } else { "MISS" };
    println!("TARGET {verdict} {what}: {measured:.3}{unit} (limit {limit}{unit})");
}

/// `VmHWM` (peak RSS) and `VmRSS` of a process, in KiB.
pub fn memory_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}
