//! The WASM executor on real hooks: the fixtures and plugins built by `plugins/build.sh`
//! into `target/wasm/` (built once per test run, see [`wasm_dir`]).
//!
//! The executor's basics are here (I/O, output caps, memory and traps, the file system
//! sandbox, the network, the real plugins); time, prepare-time errors, the cache and
//! serve mode have modules of their own.

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

mod cache;
mod prepare;

pub(crate) use prepare::{big_component, big_module};

mod serve_mode;
mod time;

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
