//! WASM hooks in the languages hooks are written in: the Python and
//! JavaScript components of `plugins/python` and `plugins/js` (componentize-py,
//! componentize-js) through the real binary, one-shot and in `serve`; which toolchains
//! deliver exit status 2; the network they import, linked and denied; and CPython for
//! WASI (`python.wasm`) reading the project by relative path.
//!
//! The components need their toolchains: where one is missing, `plugins/build.sh` skips
//! it and these tests print a SKIPPED line naming themselves (`.ci/run` installs both
//! and sets `HOOKHOST_REQUIRE_COMPONENTS`, so that there a missing one fails).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hookhost::executor::wasm::{EngineMode, WasmEngine, WasmSettings};
use hookhost::executor::{CancellationToken, Executor, ExitStatus, Failure, RawOutput};
use serde_json::json;

use crate::support::{
    SLOW_COMPILE_OK, Scene, Server, component_or_skip, hook, lossy, message, plugin,
    python_wasm_or_skip, test_root,
};

/// The two guards: the protect-paths and keywords policies, in Python and JavaScript.
const GUARDS: [&str; 2] = ["guard-py.wasm", "guard-js.wasm"];

/// A config with `file` as a PreToolUse hook protecting `.env` and `.git/`, and as a
/// UserPromptSubmit hook.
fn guard_config(scene: &Scene, file: &str) -> String {
    let path = plugin(scene, file);
    let path = path.to_str().unwrap();
    format!(
        "{SLOW_COMPILE_OK}{}{}",
        hook(
            "guard",
            "PreToolUse",
            &[path, ".env", ".git/"],
            "timeout = 60\ntools = [\"write_file\", \"edit_file\"]"
        ),
        hook("ooo", "UserPromptSubmit", &[path], "timeout = 60"),
    )
}

#[test]
fn python_and_javascript_hooks_judge_calls_and_prompts() {
    let test = "python_and_javascript_hooks_judge_calls_and_prompts";
    for file in GUARDS {
        if component_or_skip(test, file).is_none() {
            continue;
        }
        let scene = Scene::new();
        scene.write_config(&guard_config(&scene, file));
        let out = scene.hookhost().arg("check").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{file}: {out:?}");
        assert_eq!(
            crate::support::banner_of(&lossy(&out.stdout)),
            "hooks: guard (write_file, edit_file, wasm) · ooo (prompts, wasm)\n",
            "{file}"
        );

        let (code, v) = scene.gate(&[], "write_file", r#"{"path":"deploy/.env","content":""}"#);
        assert_eq!(code, 1, "{file}: {v}");
        assert_eq!(
            message(&v),
            "blocked by the user's hook \"guard\": write_file on deploy/.env is not allowed: \
             the path is protected (pattern .env)",
            "{file}"
        );
        // An absolute path in the project is made relative by hookhost, then matched.
        let git = scene.project.join(".git/config");
        let input = json!({"path": git, "content": ""}).to_string();
        let (code, v) = scene.gate(&[], "edit_file", &input);
        assert_eq!(code, 1, "{file}: {v}");
        assert!(message(&v).contains("(pattern .git/)"), "{file}: {v}");
        let (code, v) = scene.gate(&[], "write_file", r#"{"path":"src/main.rs","content":""}"#);
        assert_eq!((code, &v["outcome"]), (0, &json!("allow")), "{file}: {v}");

        let (code, v) = scene.prompt(&[], "ooo seed my requirements");
        assert_eq!(code, 0, "{file}: {v}");
        assert_eq!(
            v["context"],
            json!([{"hook": "ooo", "text": "<skill-suggestion>The user typed the Ouroboros shortcut \"ooo seed\". Use the skill /ouroboros:seed with the arguments: my requirements</skill-suggestion>"}]),
            "{file}"
        );
        let (code, v) = scene.prompt(&[], "what does this repo do?");
        assert_eq!((code, &v["context"]), (0, &json!([])), "{file}: {v}");
    }
}

#[test]
fn python_and_javascript_hooks_answer_in_serve() {
    let test = "python_and_javascript_hooks_answer_in_serve";
    if GUARDS.iter().any(|f| component_or_skip(test, f).is_none()) {
        return;
    }
    let scene = Scene::new();
    let py = plugin(&scene, "guard-py.wasm");
    let js = plugin(&scene, "guard-js.wasm");
    let (py, js) = (py.to_str().unwrap(), js.to_str().unwrap());
    scene.write_config(&format!(
        "{SLOW_COMPILE_OK}{}{}{}",
        hook("py", "PreToolUse", &[py, ".env"], "timeout = 60"),
        hook("js", "PreToolUse", &[js, "secrets/*.pem"], "timeout = 60"),
        hook("ooo", "UserPromptSubmit", &[js], "timeout = 60"),
    ));
    let mut serve = scene.hookhost();
    serve.arg("serve");
    let mut server = Server::spawn(serve);
    // `serve` compiles both runtimes at start when the cache does not have them yet.
    let ready = server.recv_within(Duration::from_secs(300));
    assert_eq!(ready["type"], "ready", "{ready}");
    let write = |id: u32, path: &str| json!({"id": id, "type": "pre_tool_use", "tool_name": "write_file", "tool_input": {"path": path, "content": ""}});
    // Sent together, answered in any order.
    server.send(&write(1, ".env"));
    server.send(&write(2, "secrets/server.pem"));
    server.send(&write(3, "src/lib.rs"));
    server.send(&json!({"id": 4, "type": "user_prompt_submit", "prompt": "ooo run"}));
    // By id: 1 .env, 2 the .pem, 3 src/lib.rs, 4 the prompt.
    let answers = server.recv_answers(4);
    assert_eq!(answers["1"]["hook"], "py", "{answers:?}");
    assert_eq!(answers["1"]["outcome"], "block");
    assert_eq!(answers["2"]["hook"], "js", "{answers:?}");
    assert_eq!(
        answers["2"]["message"],
        "blocked by the user's hook \"js\": write_file on secrets/server.pem is not allowed: \
         the path is protected (pattern secrets/*.pem)"
    );
    assert_eq!(answers["3"]["outcome"], "allow", "{answers:?}");
    assert_eq!(answers["4"]["outcome"], "allow", "{answers:?}");
    assert!(
        answers["4"]["context"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("/ouroboros:run.")),
        "{answers:?}"
    );
    server.close_stdin();
}

/// Which toolchains deliver exit status 2 (documented in README "Writing a WASM hook"):
/// `wasi:cli/exit.exit-with-code(2)` does, from Python and JavaScript alike; Python's
/// `sys.exit(2)` and Rust's `std::process::exit(2)` on wasip2 arrive as 1, a failure.
#[test]
fn exit_status_two_by_toolchain() {
    let test = "exit_status_two_by_toolchain";
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "probe-py.wasm",
            &["exit-with-code", "2"],
            "blocked by the user's hook \"h\": reason from python",
        ),
        (
            "probe-js.wasm",
            &["exit-with-code", "2"],
            "blocked by the user's hook \"h\": reason from js",
        ),
        (
            "probe-py.wasm",
            &["sys-exit", "2"],
            "the user's hook \"h\" failed (exited with code 1), so this call was blocked.",
        ),
        (
            "probe-js.wasm",
            &["throw"],
            "the user's hook \"h\" failed (exited with code 1), so this call was blocked.",
        ),
        (
            "fixture-p2.wasm",
            &["exit", "2"],
            "the user's hook \"h\" failed (exited with code 1), so this call was blocked.",
        ),
    ];
    for (file, args, expected) in cases {
        if component_or_skip(test, file).is_none() {
            continue;
        }
        let scene = Scene::new();
        let path = plugin(&scene, file);
        let mut command = vec![path.to_str().unwrap()];
        command.extend_from_slice(args);
        scene.write_config(&format!(
            "{SLOW_COMPILE_OK}{}",
            hook("h", "PreToolUse", &command, "timeout = 60")
        ));
        let (code, v) = scene.gate(&[], "bash", r#"{"command":"ls"}"#);
        assert_eq!(code, 1, "{file} {args:?}: {v}");
        assert!(
            message(&v).starts_with(expected),
            "{file} {args:?}: {}",
            message(&v)
        );
    }
}

/// An engine with the tests' shared compile cache: the Python runtime takes seconds to
/// compile, once.
fn cached_engine() -> WasmEngine {
    let settings = WasmSettings {
        cache_dir: Some(test_root().join("cache/hookhost/wasm")),
        compile_deadline: Duration::from_secs(600),
        ..WasmSettings::default()
    };
    WasmEngine::new(&settings, EngineMode::OneShot).expect("engine")
}

async fn run_file(wasm: &Path, args: &[&str], project: &Path) -> RawOutput {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let exec = cached_engine()
        .prepare(wasm, &args, project, Duration::from_secs(60))
        .expect("prepare");
    exec.run(Arc::from(&b"{}\n"[..]), &CancellationToken::new())
        .await
        .unwrap_or_else(|f| panic!("{}: {f:?}", wasm.display()))
}

/// The network a Python or JavaScript component imports (`wasi:sockets`, `wasi:http`)
/// is linked and denied: a connection to a socket listening on this machine and an HTTP
/// request to it fail inside the guest with an ordinary error it reports.
#[tokio::test(flavor = "multi_thread")]
async fn python_sockets_and_javascript_fetch_reach_nothing() {
    let test = "python_sockets_and_javascript_fetch_reach_nothing";
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port().to_string();
    listener.set_nonblocking(true).expect("nonblocking");
    let project = tempfile::tempdir().expect("tempdir");
    if let Some(py) = component_or_skip(test, "probe-py.wasm") {
        let out = run_file(&py, &["connect", "127.0.0.1", &port], project.path()).await;
        let said = lossy(&out.stdout);
        assert!(said.starts_with("ERR: "), "python: {said}");
        assert_eq!(out.status, ExitStatus::Code(0));
    }
    if let Some(js) = component_or_skip(test, "probe-js.wasm") {
        let url = format!("http://127.0.0.1:{port}/");
        let out = run_file(&js, &["fetch", &url], project.path()).await;
        let said = lossy(&out.stdout);
        assert!(said.starts_with("ERR: "), "javascript: {said}");
        assert_eq!(out.status, ExitStatus::Code(0));
    }
    assert!(listener.accept().is_err(), "a hook reached the listener");
}

/// A Python component and CPython for WASI read project files by relative path, as an
/// argv hook run from the project would, and by `/project/…`.
#[tokio::test(flavor = "multi_thread")]
async fn python_reads_the_project_by_relative_path() {
    let test = "python_reads_the_project_by_relative_path";
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("notes.txt"), "from the project\n").expect("write");
    std::fs::create_dir(project.path().join("sub")).expect("mkdir");
    std::fs::write(project.path().join("sub/inner"), "inner\n").expect("write");
    if let Some(py) = component_or_skip(test, "probe-py.wasm") {
        for path in [
            "notes.txt",
            "./notes.txt",
            "sub/../notes.txt",
            "/project/notes.txt",
        ] {
            let out = run_file(&py, &["read", path], project.path()).await;
            assert_eq!(lossy(&out.stdout), "from the project\n", "{path}");
        }
        let out = run_file(&py, &["read", "../outside"], project.path()).await;
        assert!(lossy(&out.stdout).starts_with("ERR: "), "a path outside");
    }
    if let Some(python) = python_wasm_or_skip(test) {
        let script = "import json, sys\n\
                      print(open('notes.txt').read().strip(), open('sub/inner').read().strip())\n\
                      print(open('/project/notes.txt').read().strip())\n\
                      print(sorted(__import__('os').listdir('.')))\n";
        let out = run_file(&python, &["-c", script], project.path()).await;
        assert_eq!(
            lossy(&out.stdout),
            "from the project inner\nfrom the project\n['notes.txt', 'sub']\n",
            "stderr: {}",
            lossy(&out.stderr)
        );
        let out = run_file(
            &python,
            &["-c", "open('new.txt', 'w').write('x')"],
            project.path(),
        )
        .await;
        assert_eq!(out.status, ExitStatus::Code(1), "a write must fail");
        assert!(!project.path().join("new.txt").exists());
    }
}

/// `[wasm] compile_timeout` tightens the compile deadline (F16): a Python component that
/// cannot compile within 1 s cannot start, and the warning names the file and the
/// setting's effect; 0 is a load error.
#[test]
fn compile_timeout_refuses_a_slow_compile_by_name() {
    let test = "compile_timeout_refuses_a_slow_compile_by_name";
    if component_or_skip(test, "guard-py.wasm").is_none() {
        return;
    }
    let scene = Scene::new();
    let py = plugin(&scene, "guard-py.wasm");
    scene.write_config(&format!(
        "[wasm]\ncompile_timeout = 1\n\n{}",
        hook("guard", "PreToolUse", &[py.to_str().unwrap()], "")
    ));
    // A cache of its own: a cached program would load within the second.
    let out = scene
        .hookhost()
        .env("XDG_CACHE_HOME", scene.root.path().join("cache"))
        .arg("check")
        .output()
        .unwrap();
    let stderr = lossy(&out.stderr);
    assert!(
        stderr.contains("⚠ hook guard could not start: ")
            && stderr.contains("guard-py.wasm did not compile within 1 s"),
        "{stderr}"
    );
    scene.write_config("[wasm]\ncompile_timeout = 0\n");
    let (code, _, stderr) = scene.run(&["check"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("[wasm] compile_timeout must be a whole number above 0"),
        "{stderr}"
    );
}

/// A Python component that crashes says why (issue "Robust and private, round three"):
/// `probe.py import-late` imports, inside a function, a module nothing imported at build
/// time, which componentize-py therefore did not bundle; the runtime prints the
/// `ModuleNotFoundError` traceback on stderr and traps. The failure shows that stderr, in
/// the warning, the blocked call's message, the operator log and `hookhost eval`.
#[test]
fn a_python_crash_shows_what_it_wrote_on_stderr() {
    let test = "a_python_crash_shows_what_it_wrote_on_stderr";
    if component_or_skip(test, "probe-py.wasm").is_none() {
        return;
    }
    let scene = Scene::new();
    let path = plugin(&scene, "probe-py.wasm");
    scene.write_config(&format!(
        "{SLOW_COMPILE_OK}{}",
        hook(
            "probe",
            "PreToolUse",
            &[path.to_str().unwrap(), "import-late"],
            "timeout = 60"
        )
    ));
    let crashed = "crashed: wasm trap: wasm `unreachable` instruction executed; stderr: \
                   Traceback (most recent call last):";
    let missing = "ModuleNotFoundError: No module named 'csv'";
    let out = scene
        .hookhost()
        .env("HOOKHOST_LOG", "hookhost=debug")
        .args(["pre-tool-use", "--json", "--tool", "bash"])
        .args(["--input", r#"{"command":"ls"}"#])
        .output()
        .unwrap();
    let v = crate::support::verdict(&out);
    let said = message(&v);
    assert!(
        said.starts_with(&format!("the user's hook \"probe\" failed ({crashed}"))
            && said.contains(missing)
            && said.ends_with(
                "), so this call was blocked. This is not a policy decision: retrying or \
                 rephrasing the call will not help. Tell the user their hook is failing."
            ),
        "{said}"
    );
    let warning = v["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with(&format!("⚠ hook probe is failing ({crashed}"))
            && warning.contains(missing)
            && warning.ends_with(
                "), so the calls it covers are blocked. Fix it, set on_failure = \
                 \"continue\", or restart with --no-hooks."
            ),
        "{warning}"
    );
    // The operator log: the hook span's failure field (escaped, one line).
    let log = lossy(&out.stderr);
    assert!(
        log.lines()
            .any(|l| l.contains("failure=\"crashed: wasm trap: ") && l.contains(missing)),
        "{log}"
    );

    // `hookhost eval` catches it: the allowed call is blocked, and the warning says why.
    let cases = scene.root.path().join("cases.toml");
    std::fs::write(
        &cases,
        "[[case]]\nname = \"ls is fine\"\ntool = \"bash\"\ninput = { command = \"ls\" }\n\
         expect.outcome.in = [\"completed\"]\n",
    )
    .unwrap();
    let (code, stdout, stderr) = scene.run(&["eval", cases.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.starts_with("FAIL ls is fine: outcome blocked, expected one of [completed]"),
        "{stdout}"
    );
    assert!(stdout.contains(crashed), "{stdout}");
    assert!(
        stderr.contains(&format!("⚠ hook probe is failing ({crashed}")) && stderr.contains(missing),
        "{stderr}"
    );
}

/// A program importing what the host does not provide (ruby.wasm's `rb-js-abi-host`) is
/// refused at session start before it is compiled: at once, naming the hook and the
/// import, for a core module and a component (bodies that take seconds to compile).
#[test]
fn a_foreign_runtime_is_refused_at_start_before_compiling() {
    let cases = [
        (
            "ruby.wasm",
            crate::wasm::big_module(Some(("rb-js-abi-host", "foo"))),
            "ruby.wasm imports `rb-js-abi-host::foo`, which the host does not provide",
        ),
        (
            "ruby-component.wasm",
            crate::wasm::big_component("rb-js-abi-host"),
            "ruby-component.wasm imports rb-js-abi-host, which the host does not provide",
        ),
    ];
    for (file, bytes, refusal) in cases {
        let scene = Scene::new();
        let path = scene.hooks.join(file);
        std::fs::write(&path, bytes).unwrap();
        scene.write_config(&hook("ruby", "PreToolUse", &[path.to_str().unwrap()], ""));
        let began = std::time::Instant::now();
        let (_, _, stderr) = scene.run(&["check"]);
        let took = began.elapsed();
        assert!(
            stderr.contains("⚠ hook ruby could not start: ") && stderr.contains(refusal),
            "{file}: {stderr}"
        );
        // Compiling either body takes about 5 s in a debug build.
        assert!(took < Duration::from_secs(2), "{file}: took {took:?}");
    }
}

/// A crash's stderr is trimmed and cut like a reason, to 2,000 characters, keeping its
/// end (what went wrong), with "…" where it was cut.
#[tokio::test(flavor = "multi_thread")]
async fn a_crash_keeps_the_end_of_a_long_stderr() {
    let test = "a_crash_keeps_the_end_of_a_long_stderr";
    let Some(py) = component_or_skip(test, "probe-py.wasm") else {
        return;
    };
    let project = tempfile::tempdir().expect("tempdir");
    let engine = cached_engine();
    for (xs, cut) in [("10", false), ("5000", true)] {
        let args = vec!["raise-after".to_string(), xs.to_string()];
        let exec = engine
            .prepare(&py, &args, project.path(), Duration::from_secs(60))
            .expect("prepare");
        let failure = exec
            .run(Arc::from(&b"{}\n"[..]), &CancellationToken::new())
            .await
            .expect_err("a crash");
        let Failure::Trapped(why) = failure else {
            panic!("{failure:?}");
        };
        let (trap, stderr) = why.split_once("; stderr: ").expect(&why);
        assert_eq!(trap, "wasm trap: wasm `unreachable` instruction executed");
        assert!(
            stderr.contains("RuntimeError: raised on purpose"),
            "{stderr}"
        );
        assert_eq!(stderr, stderr.trim(), "trimmed");
        if cut {
            assert!(stderr.starts_with('…'), "{stderr}");
            assert!(stderr.chars().count() <= 2001, "{}", stderr.chars().count());
        } else {
            assert!(stderr.starts_with("xxxxxxxxxx\nTraceback"), "{stderr}");
        }
    }
}
