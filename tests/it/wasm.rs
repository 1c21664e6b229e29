//! The WASM executor on real hooks: the fixtures and plugins built by `plugins/build.sh`
//! into `target/wasm/` (built once per test run, see [`wasm_dir`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::support::{lossy, wasm_dir};
use hookhost::executor::wasm::{EngineMode, WasmEngine, WasmError, WasmExecutor, WasmSettings};
use hookhost::executor::{
    CancellationToken, Executor, ExitStatus, Failure, OUTPUT_CAP, RawOutput, Stream,
};

fn wasm(name: &str) -> PathBuf {
    wasm_dir().join(name)
}

/// One engine for the whole test binary, as in a real process (no disk cache).
fn engine() -> &'static WasmEngine {
    static ENGINE: OnceLock<WasmEngine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        WasmEngine::new(&WasmSettings::default(), EngineMode::OneShot).expect("engine")
    })
}

/// A project folder: `file`, `sub/inner`, and `link` → `/etc/passwd` (outside).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("file"), "hello from the project\n").expect("write");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("sub/inner"), "inner\n").expect("write");
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("link")).expect("symlink");
    std::os::unix::fs::symlink("/etc", dir.path().join("etc-dir")).expect("symlink");
    dir
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

struct Run {
    outcome: Result<RawOutput, Failure>,
    took: Duration,
}

/// `file` with `args`, prepared by the shared engine to run in `project`.
fn prepared(file: &str, args: &[&str], project: &Path, timeout: Duration) -> WasmExecutor {
    engine()
        .prepare(&wasm(file), &strings(args), project, timeout)
        .expect("prepare")
}

async fn run_in(file: &str, args: &[&str], stdin: &[u8], timeout: Duration, project: &Path) -> Run {
    let exec = prepared(file, args, project, timeout);
    let cancel = CancellationToken::new();
    let began = Instant::now();
    let outcome = exec.run(Arc::from(stdin), &cancel).await;
    Run {
        outcome,
        took: began.elapsed(),
    }
}

async fn run(file: &str, args: &[&str], stdin: &[u8]) -> Result<RawOutput, Failure> {
    let project = project();
    run_in(file, args, stdin, Duration::from_secs(10), project.path())
        .await
        .outcome
}

fn ok(outcome: Result<RawOutput, Failure>) -> RawOutput {
    match outcome {
        Ok(out) => out,
        Err(failure) => panic!("expected a completed run, got {failure:?}"),
    }
}

const BOTH: [&str; 2] = ["fixture-p1.wasm", "fixture-p2.wasm"];

// ---- I/O, arguments, environment, exit status -------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn echo_returns_stdin_on_both_kinds() {
    let input = br#"{"hook_event_name":"PreToolUse","tool_name":"bash"}"#;
    for f in BOTH {
        let out = ok(run(f, &["echo"], input).await);
        assert_eq!(out.status, ExitStatus::Code(0), "{f}");
        assert_eq!(out.stdout, input, "{f}");
        assert!(out.stderr.is_empty(), "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn args_are_the_file_name_then_the_hook_arguments() {
    for f in BOTH {
        let out = ok(run(f, &["args", "--flag", "two words"], b"").await);
        let argv: Vec<String> = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(argv, [f, "args", "--flag", "two words"], "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_environment_is_empty() {
    for f in BOTH {
        let out = ok(run(f, &["env"], b"").await);
        assert_eq!(lossy(&out.stdout), "{}\n", "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn allow_exits_zero_silently() {
    for f in BOTH {
        let out = ok(run(f, &["allow"], b"{}").await);
        assert_eq!(out.status, ExitStatus::Code(0), "{f}");
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn block_is_exit_two_with_stderr_on_p1() {
    let out = ok(run("fixture-p1.wasm", &["block"], b"{}").await);
    assert_eq!(out.status, ExitStatus::Code(2));
    assert_eq!(lossy(&out.stderr), "blocked by fixture\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn block_on_p2_arrives_as_a_failure_exit() {
    // wasip2's std::process::exit(2) goes through wasi:cli/exit.exit(err): code 1.
    let out = ok(run("fixture-p2.wasm", &["block"], b"{}").await);
    assert_eq!(out.status, ExitStatus::Code(1));
    assert_eq!(lossy(&out.stderr), "blocked by fixture\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn block_json_is_printed_on_stdout() {
    for f in BOTH {
        let out = ok(run(f, &["block-json"], b"{}").await);
        assert_eq!(out.status, ExitStatus::Code(0), "{f}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["decision"], "block", "{f}");
        assert_eq!(v["reason"], "blocked by fixture json", "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn exit_codes_are_kept_on_p1_even_above_125() {
    for code in [0, 1, 3, 125, 126, 200, 255] {
        let out = ok(run("fixture-p1.wasm", &["exit", &code.to_string()], b"").await);
        assert_eq!(out.status, ExitStatus::Code(code), "exit {code}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn exit_codes_on_p2_are_zero_or_one() {
    for (code, expected) in [(0, 0), (1, 1), (3, 1), (200, 1)] {
        let out = ok(run("fixture-p2.wasm", &["exit", &code.to_string()], b"").await);
        assert_eq!(out.status, ExitStatus::Code(expected), "exit {code}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_utf8_comes_back_as_raw_bytes() {
    for f in BOTH {
        let out = ok(run(f, &["invalid-utf8"], b"").await);
        assert_eq!(out.stdout, [0xff, 0xfe, 0x0a], "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hook_that_never_reads_a_big_stdin_does_not_hang() {
    let input = vec![b'{'; 2 << 20];
    for f in BOTH {
        let project = project();
        let r = run_in(
            f,
            &["no-read"],
            &input,
            Duration::from_secs(5),
            project.path(),
        )
        .await;
        assert_eq!(ok(r.outcome).status, ExitStatus::Code(0), "{f}");
        assert!(r.took < Duration::from_secs(2), "{f} took {:?}", r.took);
    }
}

// ---- Output caps --------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn too_much_stdout_or_stderr_is_a_failure() {
    let two_mib = (2 << 20).to_string();
    for f in BOTH {
        let r = run(f, &["big-stdout", &two_mib], b"").await;
        assert_eq!(r, Err(Failure::OutputTooLarge(Stream::Stdout)), "{f}");
        let r = run(f, &["big-stderr", &two_mib], b"").await;
        assert_eq!(r, Err(Failure::OutputTooLarge(Stream::Stderr)), "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn exactly_the_cap_is_fine() {
    for f in BOTH {
        let out = ok(run(f, &["big-stdout", &OUTPUT_CAP.to_string()], b"").await);
        assert_eq!(out.stdout.len(), OUTPUT_CAP, "{f}");
    }
}

// ---- Time: fuel, wall clock, cancellation -----------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn a_busy_loop_times_out_on_time() {
    for f in BOTH {
        let project = project();
        let r = run_in(f, &["loop"], b"", Duration::from_secs(1), project.path()).await;
        eprintln!("{f}: loop with a 1 s timeout ended after {:?}", r.took);
        assert_eq!(
            r.outcome,
            Err(Failure::TimedOut(Duration::from_secs(1))),
            "{f}"
        );
        assert!(
            r.took < Duration::from_millis(1600),
            "{f} took {:?}",
            r.took
        );
        assert!(r.took > Duration::from_millis(300), "{f} took {:?}", r.took);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_guest_blocked_in_sleep_times_out_on_time() {
    for f in BOTH {
        let project = project();
        let r = run_in(
            f,
            &["sleep", "100"],
            b"",
            Duration::from_secs(1),
            project.path(),
        )
        .await;
        eprintln!("{f}: sleep 100 with a 1 s timeout ended after {:?}", r.took);
        assert_eq!(
            r.outcome,
            Err(Failure::TimedOut(Duration::from_secs(1))),
            "{f}"
        );
        assert!(
            r.took < Duration::from_millis(1600),
            "{f} took {:?}",
            r.took
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_short_sleep_completes() {
    let project = project();
    let r = run_in(
        "fixture-p1.wasm",
        &["sleep", "1"],
        b"",
        Duration::from_secs(5),
        project.path(),
    )
    .await;
    assert_eq!(lossy(&ok(r.outcome).stdout), "slept 1\n");
}

/// Fuel decides, deterministically: with a small rate, the loop runs out of fuel long
/// before any wall-clock limit, every time, while a quick hook passes every time.
#[tokio::test(flavor = "multi_thread")]
async fn fuel_is_deterministic() {
    let settings = WasmSettings {
        fuel_per_second: 5_000_000,
        ..WasmSettings::default()
    };
    let engine = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
    let project = project();
    let timeout = Duration::from_secs(10);
    for f in BOTH {
        let looping = engine
            .prepare(&wasm(f), &strings(&["loop"]), project.path(), timeout)
            .expect("prepare");
        let quick = engine
            .prepare(&wasm(f), &strings(&["echo"]), project.path(), timeout)
            .expect("prepare");
        let cancel = CancellationToken::new();
        for _ in 0..2 {
            let began = Instant::now();
            let r = looping.run(Arc::from(&b"x"[..]), &cancel).await;
            assert_eq!(r, Err(Failure::TimedOut(timeout)), "{f}");
            // 50 M fuel is gone in well under a second; the wall clock allows 12.5 s.
            assert!(began.elapsed() < Duration::from_secs(3), "{f}");
            let r = quick.run(Arc::from(&b"x"[..]), &cancel).await;
            assert_eq!(ok(r).stdout, b"x", "{f}");
        }
    }
}

/// The same loop with the same (default) settings fails the same way twice.
#[tokio::test(flavor = "multi_thread")]
async fn the_same_loop_fails_the_same_way_twice() {
    let project = project();
    let exec = prepared(
        "fixture-p1.wasm",
        &["loop"],
        project.path(),
        Duration::from_secs(1),
    );
    let cancel = CancellationToken::new();
    let first = exec.run(Arc::from(&b""[..]), &cancel).await;
    let second = exec.run(Arc::from(&b""[..]), &cancel).await;
    assert_eq!(first, Err(Failure::TimedOut(Duration::from_secs(1))));
    assert_eq!(first, second);
}

async fn cancel_after(
    file: &str,
    args: &[&str],
    after: Duration,
) -> (Result<RawOutput, Failure>, Duration) {
    let project = project();
    let exec = prepared(file, args, project.path(), Duration::from_secs(30));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        trigger.cancel();
    });
    let began = Instant::now();
    let r = exec.run(Arc::from(&b""[..]), &cancel).await;
    (r, began.elapsed())
}

/// On both fixtures: `args` cancelled at 300 ms ends as interrupted within 600 ms.
async fn assert_cancel_is_prompt(args: &[&str]) {
    for f in BOTH {
        let (r, took) = cancel_after(f, args, Duration::from_millis(300)).await;
        eprintln!("{f}: {} cancelled at 300 ms ended after {took:?}", args[0]);
        assert_eq!(r, Err(Failure::Interrupted), "{f}");
        assert!(took < Duration::from_millis(600), "{f} took {took:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_stops_a_busy_loop_promptly() {
    assert_cancel_is_prompt(&["loop"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_stops_a_sleep_promptly() {
    assert_cancel_is_prompt(&["sleep", "100"]).await;
}

/// On a current-thread runtime too (the guest yields at every epoch tick, so the timer
/// and the canceller get to run).
#[tokio::test(flavor = "current_thread")]
async fn timeouts_and_cancel_work_on_a_current_thread_runtime() {
    let project = project();
    let r = run_in(
        "fixture-p2.wasm",
        &["loop"],
        b"",
        Duration::from_secs(1),
        project.path(),
    )
    .await;
    assert_eq!(r.outcome, Err(Failure::TimedOut(Duration::from_secs(1))));
    assert!(r.took < Duration::from_millis(1600), "took {:?}", r.took);
    let r = run_in(
        "fixture-p1.wasm",
        &["sleep", "100"],
        b"",
        Duration::from_secs(1),
        project.path(),
    )
    .await;
    assert_eq!(r.outcome, Err(Failure::TimedOut(Duration::from_secs(1))));
    assert!(r.took < Duration::from_millis(1600), "took {:?}", r.took);
    for f in BOTH {
        let (r, took) = cancel_after(f, &["loop"], Duration::from_millis(200)).await;
        assert_eq!(r, Err(Failure::Interrupted), "{f}");
        assert!(took < Duration::from_millis(500), "{f} took {took:?}");
    }
    let out = ok(run("fixture-p1.wasm", &["read", "/project/file"], b"").await);
    assert_eq!(lossy(&out.stdout), "hello from the project\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_already_cancelled_token_runs_nothing() {
    let project = project();
    let exec = prepared(
        "fixture-p1.wasm",
        &["echo"],
        project.path(),
        Duration::from_secs(5),
    );
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert_eq!(
        exec.run(Arc::from(&b""[..]), &cancel).await,
        Err(Failure::Interrupted)
    );
}

// ---- Memory and traps ---------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn allocating_without_end_fails_cleanly_at_the_memory_limit() {
    for f in BOTH {
        let began = Instant::now();
        match run(f, &["alloc"], b"").await {
            Err(Failure::Trapped(why)) => {
                assert!(
                    why.starts_with("memory limit of 64 MiB reached"),
                    "{f}: {why}"
                )
            }
            other => panic!("{f}: {other:?}"),
        }
        assert!(began.elapsed() < Duration::from_secs(5), "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_panic_is_a_trap_with_the_message_on_stderr() {
    for f in BOTH {
        let project = project();
        let exec = prepared(f, &["panic"], project.path(), Duration::from_secs(5));
        let r = exec
            .run(Arc::from(&b""[..]), &CancellationToken::new())
            .await;
        match r {
            // The trap, and the panic's message, which the guest wrote on stderr.
            Err(Failure::Trapped(why)) => {
                assert!(why.contains("unreachable"), "{f}: {why}");
                assert!(why.contains("; stderr: "), "{f}: {why}");
                assert!(why.contains("fixture panic"), "{f}: {why}");
            }
            other => panic!("{f}: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn unreachable_and_out_of_bounds_are_named_traps() {
    for f in BOTH {
        match run(f, &["unreachable"], b"").await {
            Err(Failure::Trapped(why)) => {
                assert!(why.starts_with("wasm trap: "), "{f}: {why}");
                assert!(why.contains("unreachable"), "{f}: {why}");
            }
            other => panic!("{f}: {other:?}"),
        }
        match run(f, &["oob"], b"").await {
            Err(Failure::Trapped(why)) => assert!(why.contains("out of bounds"), "{f}: {why}"),
            other => panic!("{f}: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn failures_read_as_the_spec_says() {
    let r = run("fixture-p1.wasm", &["unreachable"], b"").await;
    let shown = r.expect_err("a trap").to_string();
    assert_eq!(
        shown,
        "crashed: wasm trap: wasm `unreachable` instruction executed"
    );
}

// ---- Filesystem sandbox ------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn the_project_is_readable_at_slash_project() {
    for f in BOTH {
        let out = ok(run(f, &["read", "/project/file"], b"").await);
        assert_eq!(lossy(&out.stdout), "hello from the project\n", "{f}");
        let out = ok(run(f, &["read", "/project/sub/inner"], b"").await);
        assert_eq!(lossy(&out.stdout), "inner\n", "{f}");
        let out = ok(run(f, &["ls", "/project"], b"").await);
        assert_eq!(lossy(&out.stdout), "etc-dir\nfile\nlink\nsub\n", "{f}");
    }
}

/// A relative path reads the project too, as it would for an argv hook run from the
/// project (the project is also preopened as `.`), in modules and components.
#[tokio::test(flavor = "multi_thread")]
async fn relative_paths_read_the_project() {
    for f in BOTH {
        for path in ["file", "./file", "sub/../file"] {
            let out = ok(run(f, &["read", path], b"").await);
            assert_eq!(lossy(&out.stdout), "hello from the project\n", "{f} {path}");
        }
        let out = ok(run(f, &["read", "sub/inner"], b"").await);
        assert_eq!(lossy(&out.stdout), "inner\n", "{f}");
        let out = ok(run(f, &["ls", "."], b"").await);
        assert_eq!(lossy(&out.stdout), "etc-dir\nfile\nlink\nsub\n", "{f}");
        let out = ok(run(f, &["write", "new"], b"").await);
        assert!(
            lossy(&out.stdout).starts_with("ERR: "),
            "{f}: a relative write"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_project_cannot_be_written() {
    for f in BOTH {
        let project = project();
        for target in ["/project/new", "/project/file"] {
            let r = run_in(
                f,
                &["write", target],
                b"",
                Duration::from_secs(5),
                project.path(),
            )
            .await;
            let said = lossy(&ok(r.outcome).stdout);
            assert!(said.starts_with("ERR: "), "{f} {target}: {said}");
        }
        assert!(!project.path().join("new").exists(), "{f}");
        let file = std::fs::read_to_string(project.path().join("file")).expect("read");
        assert_eq!(file, "hello from the project\n", "{f}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_outside_the_project_is_visible() {
    for f in BOTH {
        for path in [
            "/project/../../../../etc/passwd",
            "/etc/passwd",
            "/project/link",
            "/project/etc-dir/passwd",
            "../etc/passwd",
        ] {
            let out = ok(run(f, &["read", path], b"").await);
            let said = lossy(&out.stdout);
            assert!(said.starts_with("ERR: "), "{f} read {path}: {said}");
            assert!(!said.contains("root:"), "{f} read {path}");
        }
        let out = ok(run(f, &["ls", "/"], b"").await);
        let said = lossy(&out.stdout);
        assert!(!said.contains("etc\n"), "{f}: ls / = {said}");
    }
}

// ---- Network -----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn a_p1_hook_cannot_connect_to_a_listening_socket() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    listener.set_nonblocking(true).expect("nonblocking");
    let out = ok(run("net-probe-p1.wasm", &[&addr], b"").await);
    let said = lossy(&out.stdout);
    assert!(said.starts_with("ERR: "), "{said}");
    assert!(listener.accept().is_err(), "the hook reached the listener");
}

/// A component that imports `wasi:sockets` (as toolchains' standard libraries do) runs,
/// and every network use fails with an ordinary error: a connect to a listening socket on
/// this machine, and a name lookup.
#[tokio::test(flavor = "multi_thread")]
async fn a_p2_hook_that_imports_sockets_runs_and_reaches_nothing() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    listener.set_nonblocking(true).expect("nonblocking");
    for target in [addr.as_str(), "localhost:80", "example.com:443"] {
        let out = ok(run("net-probe-p2.wasm", &[target], b"").await);
        let said = lossy(&out.stdout);
        assert!(said.starts_with("ERR: "), "{target}: {said}");
    }
    assert!(listener.accept().is_err(), "the hook reached the listener");
}

// ---- Prepare-time errors ---------------------------------------------------------------

#[test]
fn corrupt_missing_and_unlinkable_programs_fail_at_prepare() {
    let project = project();
    let dir = tempfile::tempdir().expect("tempdir");
    let timeout = Duration::from_secs(5);

    let missing = dir.path().join("missing.wasm");
    let err = engine()
        .prepare(&missing, &[], project.path(), timeout)
        .expect_err("missing");
    assert!(matches!(err, WasmError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains("missing.wasm"), "{err}");

    let text_file = dir.path().join("script.wasm");
    std::fs::write(&text_file, "#!/bin/sh\necho hi\n").expect("write");
    let err = engine()
        .prepare(&text_file, &[], project.path(), timeout)
        .expect_err("not wasm");
    assert!(matches!(err, WasmError::NotWasm { .. }), "{err:?}");

    // A real module, truncated: the header is fine, the body is not.
    let good = std::fs::read(wasm("fixture-p1.wasm")).expect("read");
    let corrupt = dir.path().join("corrupt.wasm");
    std::fs::write(&corrupt, &good[..good.len() / 2]).expect("write");
    let err = engine()
        .prepare(&corrupt, &[], project.path(), timeout)
        .expect_err("corrupt");
    assert!(matches!(err, WasmError::Compile { .. }), "{err:?}");
    assert!(
        err.to_string().contains("corrupt.wasm does not compile"),
        "{err}"
    );

    // Same for a component.
    let good = std::fs::read(wasm("fixture-p2.wasm")).expect("read");
    let corrupt = dir.path().join("corrupt2.wasm");
    std::fs::write(&corrupt, &good[..good.len() / 2]).expect("write");
    let err = engine()
        .prepare(&corrupt, &[], project.path(), timeout)
        .expect_err("corrupt");
    assert!(matches!(err, WasmError::Compile { .. }), "{err:?}");

    // A module importing something the host does not provide:
    // (module (import "env" "launch_missiles" (func)) (func (export "_start")))
    let foreign: &[u8] = &[
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
        0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type 0: [] -> []
        0x02, 0x17, 0x01, 0x03, b'e', b'n', b'v', 0x0f, b'l', b'a', b'u', b'n', b'c', b'h', b'_',
        b'm', b'i', b's', b's', b'i', b'l', b'e', b's', 0x00, 0x00, // import
        0x03, 0x02, 0x01, 0x00, // one func of type 0
        0x07, 0x0a, 0x01, 0x06, b'_', b's', b't', b'a', b'r', b't', 0x00, 0x01, // export
        0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code: empty body
    ];
    let foreign_file = dir.path().join("foreign.wasm");
    std::fs::write(&foreign_file, foreign).expect("write");
    let err = engine()
        .prepare(&foreign_file, &[], project.path(), timeout)
        .expect_err("foreign");
    assert!(matches!(err, WasmError::UnknownImport { .. }), "{err:?}");
    assert!(err.to_string().contains("env::launch_missiles"), "{err}");

    // A project that is not a folder.
    let err = engine()
        .prepare(&wasm("fixture-p1.wasm"), &[], &missing, timeout)
        .expect_err("no project");
    assert!(matches!(err, WasmError::Project { .. }), "{err:?}");
}

/// A component importing an interface the host does not link is refused at prepare,
/// naming it. (Made by renaming `terminal-input` in the real fixture, same length.)
#[test]
fn a_component_importing_an_unknown_interface_is_refused_at_prepare() {
    let project = project();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = std::fs::read(wasm("fixture-p2.wasm")).expect("read");
    let (from, to) = (b"terminal-input", b"terminal-inpuz");
    let mut renamed = 0;
    for i in 0..bytes.len().saturating_sub(from.len()) {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            renamed += 1;
        }
    }
    assert!(renamed > 0);
    let file = dir.path().join("odd.wasm");
    std::fs::write(&file, bytes).expect("write");
    let err = engine()
        .prepare(&file, &[], project.path(), Duration::from_secs(5))
        .expect_err("refused");
    assert!(matches!(err, WasmError::UnknownImport { .. }), "{err:?}");
    let shown = err.to_string();
    assert!(
        shown.contains("imports wasi:cli/terminal-inpuz@0.2."),
        "{shown}"
    );
    assert!(shown.contains("which the host does not provide"), "{shown}");
}

/// WASM bytes by hand: `n` as unsigned LEB128.
fn leb(mut n: usize, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A section: its id, its length, its contents.
fn section(id: u8, contents: &[u8], out: &mut Vec<u8>) {
    out.push(id);
    leb(contents.len(), out);
    out.extend_from_slice(contents);
}

/// A name: its length, its bytes.
fn name(text: &str, out: &mut Vec<u8>) {
    leb(text.len(), out);
    out.extend_from_slice(text.as_bytes());
}

/// A core module with `_start` and a big body that takes seconds to compile (20,000
/// functions of 40 instructions, 1.2 MB: 5.3 s in a debug build here, alone or in a
/// component), importing `import` (module, name) if given.
pub(crate) fn big_module(import: Option<(&str, &str)>) -> Vec<u8> {
    const FUNCTIONS: usize = 20_000;
    let mut m = b"\0asm\x01\0\0\0".to_vec();
    section(1, &[1, 0x60, 0, 0], &mut m); // type 0: [] -> []
    if let Some((module, field)) = import {
        let mut imports = vec![1];
        name(module, &mut imports);
        name(field, &mut imports);
        imports.extend_from_slice(&[0x00, 0x00]); // a function of type 0
        section(2, &imports, &mut m);
    }
    let mut functions = Vec::new();
    leb(FUNCTIONS, &mut functions);
    functions.resize(functions.len() + FUNCTIONS, 0x00);
    section(3, &functions, &mut m);
    let mut exports = vec![1];
    name("_start", &mut exports);
    exports.push(0x00);
    leb(usize::from(import.is_some()), &mut exports);
    section(7, &exports, &mut m);
    let mut body = vec![0x00]; // no locals
    for _ in 0..20 {
        body.extend_from_slice(&[0x41, 0x01, 0x1a]); // i32.const 1; drop
    }
    body.push(0x0b);
    let mut code = Vec::new();
    leb(FUNCTIONS, &mut code);
    for _ in 0..FUNCTIONS {
        leb(body.len(), &mut code);
        code.extend_from_slice(&body);
    }
    section(10, &code, &mut m);
    m
}

/// A component holding [`big_module`] (no imports) that imports `import`, a type.
pub(crate) fn big_component(import: &str) -> Vec<u8> {
    let mut c = b"\0asm\x0d\0\x01\0".to_vec();
    let mut imports = vec![1, 0x00];
    name(import, &mut imports);
    imports.extend_from_slice(&[0x03, 0x01]); // (type (sub resource))
    section(10, &imports, &mut c);
    section(1, &big_module(None), &mut c); // a core module
    c
}

/// A program importing what the host does not provide is refused before it is compiled,
/// with the refusal it got after compiling (ruby.wasm imports `rb-js-abi-host`; CPython
/// built for another host, its own imports): at once, however big its body, for a core
/// module and for a component alike.
#[test]
fn an_unknown_import_is_refused_before_compiling() {
    let project = project();
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "module.wasm",
            big_module(Some(("rb-js-abi-host", "foo"))),
            "module.wasm imports `rb-js-abi-host::foo`, which the host does not provide",
        ),
        (
            "component.wasm",
            big_component("rb-js-abi-host"),
            "component.wasm imports rb-js-abi-host, which the host does not provide",
        ),
    ];
    for (file, bytes, said) in cases {
        let path = dir.path().join(file);
        std::fs::write(&path, bytes).expect("write");
        // An engine of its own: nothing compiled or cached before.
        let engine =
            WasmEngine::new(&WasmSettings::default(), EngineMode::OneShot).expect("engine");
        let began = Instant::now();
        let err = engine
            .prepare(&path, &[], project.path(), Duration::from_secs(5))
            .expect_err("refused");
        let took = began.elapsed();
        assert!(matches!(err, WasmError::UnknownImport { .. }), "{err:?}");
        assert!(err.to_string().contains(said), "{err}");
        assert!(took < Duration::from_millis(500), "{file}: took {took:?}");
    }
}

// ---- Cache -----------------------------------------------------------------------------

/// Default settings with the compile cache in `dir`.
fn cached_in(dir: &Path) -> WasmSettings {
    WasmSettings {
        cache_dir: Some(dir.to_path_buf()),
        ..WasmSettings::default()
    }
}

#[test]
fn a_second_engine_loads_the_compiled_artifact_from_the_cache() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().expect("tempdir");
    let cache = base.path().join("cache/hookhost");
    let settings = cached_in(&cache);
    let project = project();
    let timeout = Duration::from_secs(5);
    for f in BOTH {
        let first = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
        let began = Instant::now();
        let cold = first
            .prepare(&wasm(f), &[], project.path(), timeout)
            .expect("prepare");
        let compile = began.elapsed();
        assert!(!cold.from_cache(), "{f}");
        let file = cold.cache_file().expect("a cache file").to_path_buf();
        assert!(file.is_file(), "{f}: {}", file.display());
        assert!(file.starts_with(&cache));
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{f}");
        let mode = std::fs::metadata(&cache)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700, "{f}");

        let second = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
        let began = Instant::now();
        let warm = second
            .prepare(&wasm(f), &[], project.path(), timeout)
            .expect("prepare");
        let load = began.elapsed();
        assert!(warm.from_cache(), "{f}");
        assert_eq!(warm.cache_file(), Some(file.as_path()), "{f}");
        eprintln!("{f}: compile {compile:?}, cached load {load:?}");
    }
    // No temporary files are left behind.
    let names: Vec<String> = std::fs::read_dir(&cache)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_cache_file_is_replaced() {
    let base = tempfile::tempdir().expect("tempdir");
    let settings = cached_in(&base.path().join("c"));
    let project = project();
    let timeout = Duration::from_secs(5);
    // A fresh engine each time, as a fresh process would be: an engine compiles or loads
    // each program once and shares it afterwards.
    let prepare = || {
        WasmEngine::new(&settings, EngineMode::OneShot)
            .expect("engine")
            .prepare(
                &wasm("fixture-p1.wasm"),
                &strings(&["echo"]),
                project.path(),
                timeout,
            )
            .expect("prepare")
    };
    let first = prepare();
    let file = first.cache_file().expect("cache file").to_path_buf();
    std::fs::write(&file, b"garbage").expect("write");
    let again = prepare();
    assert!(!again.from_cache());
    let out = ok(again
        .run(Arc::from(&b"hi"[..]), &CancellationToken::new())
        .await);
    assert_eq!(out.stdout, b"hi");
    assert!(prepare().from_cache());
}

#[tokio::test(flavor = "multi_thread")]
async fn hooks_running_the_same_program_share_it() {
    let base = tempfile::tempdir().expect("tempdir");
    let settings = cached_in(&base.path().join("c"));
    let project = project();
    let timeout = Duration::from_secs(5);
    let engine = WasmEngine::new(&settings, EngineMode::Serve).expect("engine");
    let echo = engine
        .prepare(
            &wasm("fixture-p1.wasm"),
            &strings(&["echo"]),
            project.path(),
            timeout,
        )
        .expect("prepare");
    let file = echo.cache_file().expect("cache file").to_path_buf();
    // The same bytes under another name, with other arguments: not compiled, not even
    // looked up in the cache again (its file is gone), yet each runs with its own
    // arguments.
    std::fs::remove_file(&file).expect("remove");
    let copy = base.path().join("copy.wasm");
    std::fs::copy(wasm("fixture-p1.wasm"), &copy).expect("copy");
    let exit = engine
        .prepare(&copy, &strings(&["exit", "3"]), project.path(), timeout)
        .expect("prepare");
    assert!(
        !file.exists(),
        "the second prepare compiled the program again"
    );
    assert_eq!(exit.argv()[0], "copy.wasm");
    let out = ok(echo
        .run(Arc::from(&b"hi"[..]), &CancellationToken::new())
        .await);
    assert_eq!(out.stdout, b"hi");
    let out = ok(exit
        .run(Arc::from(&b"hi"[..]), &CancellationToken::new())
        .await);
    assert_eq!(out.status, ExitStatus::Code(3));
}

// ---- Serve mode and per-call cost ---------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn a_pooled_instance_starts_with_fresh_memory() {
    // The pooling allocator reuses memory slots and resets the pages a run wrote by
    // copying the image back (up to a threshold, then `madvise`): nothing one run wrote,
    // in the data segment or in memory grown far past the threshold, may reach the
    // next run, which gets the same slot.
    let project = project();
    let cancel = CancellationToken::new();
    for f in BOTH {
        let engine = WasmEngine::new(&WasmSettings::default(), EngineMode::Serve).expect("engine");
        eprintln!(
            "{f}: memory reset by page scan: {}",
            engine.resets_memory_by_page_scan()
        );
        let exec = engine
            .prepare(
                &wasm(f),
                &strings(&["scribble"]),
                project.path(),
                Duration::from_secs(5),
            )
            .expect("prepare");
        let mut slots_after_first = None;
        for run in 0..5 {
            let out = ok(exec.run(Arc::from(&b"{}"[..]), &cancel).await);
            assert_eq!(
                lossy(&out.stdout),
                "data 7, grown memory clean\n",
                "{f}, run {run}"
            );
            let warm = engine.warm_memory_slots().expect("a pooling engine");
            assert!(warm > 0, "{f}: no slot was used");
            // Later runs took the slots the first one left warm, not new ones.
            assert_eq!(
                *slots_after_first.get_or_insert(warm),
                warm,
                "{f}, run {run}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_pooling_engine_runs_hooks_many_times() {
    let engine = WasmEngine::new(&WasmSettings::default(), EngineMode::Serve).expect("engine");
    let project = project();
    for f in BOTH {
        let exec = engine
            .prepare(
                &wasm(f),
                &strings(&["echo"]),
                project.path(),
                Duration::from_secs(5),
            )
            .expect("prepare");
        let cancel = CancellationToken::new();
        let n = 200;
        let began = Instant::now();
        for i in 0..n {
            let input = format!("{{\"n\":{i}}}");
            let out = ok(exec.run(Arc::from(input.as_bytes()), &cancel).await);
            assert_eq!(out.stdout, input.as_bytes());
        }
        eprintln!("{f}: {:?} per call (pooling)", began.elapsed() / n);
        // The memory limit holds in the pool too.
        let alloc = engine
            .prepare(
                &wasm(f),
                &strings(&["alloc"]),
                project.path(),
                Duration::from_secs(5),
            )
            .expect("prepare");
        let r = alloc.run(Arc::from(&b""[..]), &cancel).await;
        assert!(
            matches!(&r, Err(Failure::Trapped(w)) if w.contains("memory limit")),
            "{f}: {r:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_on_demand_engine_runs_a_hook_many_times() {
    // Speed is the benchmarks' business (benches/hook_latency.rs); this checks that each
    // call of the on-demand allocator gets a fresh instance that answers in full.
    let project = project();
    for f in BOTH {
        let exec = prepared(f, &["echo"], project.path(), Duration::from_secs(5));
        let cancel = CancellationToken::new();
        for i in 0..100 {
            let line = format!("{{\"call\":{i}}}");
            let out = ok(exec.run(Arc::from(line.as_bytes()), &cancel).await);
            assert_eq!(out.stdout, line.as_bytes(), "{f}, call {i}");
        }
    }
}

// ---- The real plugins ----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn the_plugins_decide() {
    let push = br#"{"hook_event_name":"PreToolUse","tool_name":"bash","tool_input":{"command":"git push --force origin main"}}"#;
    let out = ok(run("no-force-push.wasm", &[], push).await);
    assert_eq!(out.status, ExitStatus::Code(2));
    assert!(lossy(&out.stderr).contains("force-push is not allowed"));
    let fine = br#"{"hook_event_name":"PreToolUse","tool_name":"bash","tool_input":{"command":"git push origin main"}}"#;
    let out = ok(run("no-force-push.wasm", &[], fine).await);
    assert_eq!(out.status, ExitStatus::Code(0));

    let write = br#"{"hook_event_name":"PreToolUse","tool_name":"write_file","tool_input":{"path":".env"}}"#;
    let out = ok(run("protect-paths.wasm", &[".env"], write).await);
    assert_eq!(out.status, ExitStatus::Code(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["decision"], "block");

    let prompt = br#"{"hook_event_name":"UserPromptSubmit","prompt":"ooo seed my requirements"}"#;
    let out = ok(run("keywords.wasm", &[], prompt).await);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|c| c.contains("/ouroboros:seed"))
    );
}

/// F16: compiling has a deadline (`WasmSettings::compile_deadline`, 120 s by default,
/// `[wasm] compile_timeout` in a config), so
/// a module built to be slow to compile is refused, with a message that names it, rather
/// than holding the start for a minute (here: a deadline no compile can meet).
#[test]
fn a_compile_past_the_deadline_is_refused_naming_the_file() {
    let settings = WasmSettings {
        compile_deadline: Duration::from_nanos(1),
        ..WasmSettings::default()
    };
    let engine = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
    let project = project();
    let err = engine
        .prepare(
            &wasm("no-force-push.wasm"),
            &[],
            project.path(),
            Duration::from_secs(5),
        )
        .expect_err("past the deadline");
    assert!(matches!(err, WasmError::CompileTooSlow { .. }), "{err:?}");
    let said = err.to_string();
    assert!(
        said.contains("no-force-push.wasm did not compile within 0 s"),
        "{said}"
    );
    // The default leaves real hooks, the largest included, well inside it.
    assert_eq!(
        WasmSettings::default().compile_deadline,
        Duration::from_secs(120)
    );
}
