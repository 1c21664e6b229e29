//! Faults caused for real, through the real binary: a session killed with SIGKILL (its
//! private temp folder), a full disk under the session record, a compile cache that
//! cannot be written or is truncated, a hook's program deleted or replaced under
//! `serve`, bubblewrap removed after start, a client that closes `serve`'s stdout, and
//! SIGTERM while `serve` records a stream of calls.
//!
//! For each: what the user sees, that no verdict is silently wrong (a call a blocking
//! hook would block is never let through because of the fault), and that the record
//! stays readable by `log show` and `replay`. Disk faults need root (a small tmpfs);
//! without it the test prints a `SKIPPED` line and returns, or fails where
//! `HOOKHOST_REQUIRE_ROOT` is set ([`support::skip_or_fail`]; bubblewrap and the
//! unprivileged user likewise).
//!
//! The compile cache, the hook programs and bubblewrap changed under a session, and
//! `serve`'s stdout and SIGTERM are here; temp folders and the disk have modules of their
//! own.

use crate::support;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{
    Prerequisite, READ_TIMEOUT, Scene, Server, bwrap_or_skip, hook, plugin, process_alive,
    root_or_skip, skip_or_fail, wait_until,
};
use serde_json::{Value, json};

/// A tmpfs mounted on a folder for the length of a test (unmounted on drop).
struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs with `options` (`size=32k`, `ro`, …) on `dir`; `None` when not
    /// root or the mount fails (root cannot do here what it does on a machine of its
    /// own): [`skip_or_fail`] with [`Prerequisite::Root`].
    fn mount(test: &str, dir: &Path, options: &str) -> Option<Tmpfs> {
        if !root_or_skip(test, "not root, so no tmpfs can be mounted") {
            return None;
        }
        std::fs::create_dir_all(dir).expect("create the mount point");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir)
            .output();
        match out {
            Ok(out) if out.status.success() => Some(Tmpfs {
                dir: dir.to_path_buf(),
            }),
            Ok(out) => {
                let why = String::from_utf8_lossy(&out.stderr);
                skip_or_fail(
                    test,
                    Prerequisite::Root,
                    &format!("mount -t tmpfs failed: {}", why.trim()),
                );
                None
            }
            Err(e) => {
                skip_or_fail(test, Prerequisite::Root, &format!("cannot run mount: {e}"));
                None
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

fn call(id: &str, tool: &str, command: &str) -> Value {
    json!({"id": id, "type": "pre_tool_use", "tool_name": tool, "tool_input": {"command": command}})
}

/// A hook script: blocks any input that mentions "danger", sleeps on "sleep-N" for N
/// seconds (as `sleep N.5`, a marker to find it by), allows the rest.
fn policy_script(scene: &Scene, name: &str) -> PathBuf {
    scene.script(
        name,
        r#"input=$(cat)
case "$input" in
  *danger*) echo "no danger here" >&2; exit 2 ;;
  *sleep-*) n=${input#*sleep-}; n=${n%%[!0-9]*}; sleep "$n.5" ;;
esac
exit 0"#,
    )
}

/// `[[hooks]]` running `script` directly (no interpreter in front, so that a missing
/// file is the exec's failure), for `tools`.
fn direct_hook(name: &str, script: &Path, tools: &str, extra: &str) -> String {
    hook(
        name,
        "PreToolUse",
        &[script.to_str().expect("utf-8 path")],
        &format!("tools = [{tools}]\n{extra}"),
    )
}

/// Checks that a record reads back whole: every line is a JSON object, `log show`
/// exits 0 and does not claim a kill, and `replay` matches every recorded verdict.
/// Returns `log show`'s stdout.
fn record_reads_back(scene: &Scene, record: &Path) -> String {
    let text = std::fs::read_to_string(record).expect("read the record");
    for (i, line) in text.lines().enumerate() {
        let value: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {} of the record is not whole ({e}): {line}", i + 1));
        assert!(value.is_object(), "{line}");
    }
    assert!(text.is_empty() || text.ends_with('\n'), "a torn last line");
    let path = record.to_str().expect("utf-8 path");
    let (code, shown, notes) = scene.run(&["log", "show", path]);
    assert_eq!(code, 0, "log show: {shown}{notes}");
    assert!(
        !shown.contains("was killed") && !notes.contains("torn"),
        "log show reads a kill or a torn line into it:\n{shown}{notes}"
    );
    let (code, replayed, notes) = scene.run(&["replay", path]);
    assert_eq!(code, 0, "replay: {replayed}{notes}");
    assert!(replayed.contains("verdicts matched"), "{replayed}");
    shown
}

mod disk;
mod temp_folders;

/// The `[wasm] cache_dir` config with the no-force-push plugin as a hook.
/// A text-mode `pre-tool-use` of bash running `command`: its exit code and stderr.
fn text_gate(scene: &Scene, command: &str) -> (i32, String) {
    let input = json!({ "command": command }).to_string();
    let out = scene
        .hookhost()
        .args(["pre-tool-use", "--tool", "bash", "--input", &input])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn cached_wasm_config(scene: &Scene, cache: &Path) -> String {
    let wasm = plugin(scene, "no-force-push.wasm");
    format!(
        "[wasm]\ncache_dir = {:?}\n\n{}",
        cache.to_str().unwrap(),
        hook(
            "no-force-push",
            "PreToolUse",
            &[wasm.to_str().unwrap()],
            "tools = [\"bash\"]"
        )
    )
}

/// Item 6b: the compile cache cannot be written (a read-only disk), or a cache file is
/// truncated. The hook is compiled anew and judges as before. (What the user is told
/// about the cache is another branch's: its warnings went to `tracing`, unseen, here.)
#[test]
fn an_unwritable_or_truncated_compile_cache_changes_no_verdict() {
    let test = "an_unwritable_or_truncated_compile_cache_changes_no_verdict";
    let scene = Scene::new();
    let gate = |command: &str| text_gate(&scene, command);

    // Truncated: the file is replaced by a good one.
    let cache = scene.root.path().join("cache");
    scene.write_config(&cached_wasm_config(&scene, &cache));
    assert_eq!(gate("git push --force origin main").0, 1);
    let files = support::cache_artifacts(&cache);
    assert_eq!(files.len(), 1, "{files:?}");
    let full = std::fs::metadata(&files[0]).unwrap().len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&files[0])
        .unwrap();
    f.set_len(full / 2).unwrap();
    drop(f);
    let (code, stderr) = gate("git push --force origin main");
    assert_eq!(
        code, 1,
        "a truncated cache file changed the verdict: {stderr}"
    );
    assert_eq!(gate("git status").0, 0);
    assert_eq!(
        std::fs::metadata(&files[0]).unwrap().len(),
        full,
        "the truncated cache file was not replaced"
    );

    // Unwritable: a read-only disk.
    let Some(disk) = Tmpfs::mount(test, &scene.root.path().join("ro-cache"), "ro,size=64k") else {
        return;
    };
    scene.write_config(&cached_wasm_config(&scene, &disk.dir.join("wasm")));
    let (code, stderr) = gate("git push --force origin main");
    assert_eq!(code, 1, "an unwritable cache changed the verdict: {stderr}");
    let (code, stderr) = gate("git status");
    assert_eq!(code, 0, "{stderr}");
}

/// A compile cache on a `noexec` mount: wasmtime cannot run code from its mapping of a
/// cache file there, so a start copies the checked artifact instead (the fallback of
/// `cache::load_file`), with or without the memo of an earlier check. The hook is
/// compiled once, loaded from the cache after, and judges as anywhere else, with
/// nothing to warn about.
#[test]
fn a_compile_cache_on_a_noexec_mount_is_loaded_by_copy_and_judges_as_anywhere() {
    let test = "a_compile_cache_on_a_noexec_mount_is_loaded_by_copy_and_judges_as_anywhere";
    let scene = Scene::new();
    let Some(disk) = Tmpfs::mount(
        test,
        &scene.root.path().join("noexec-cache"),
        "noexec,size=64m,mode=0700",
    ) else {
        return;
    };
    let cache = disk.dir.join("wasm");
    scene.write_config(&cached_wasm_config(&scene, &cache));
    let gate = |command: &str| text_gate(&scene, command);
    for round in [
        "compiled",
        "from the cache",
        "from the cache, checked before",
    ] {
        let (code, stderr) = gate("git push --force origin main");
        assert_eq!(code, 1, "{round}: {stderr}");
        assert!(!stderr.contains("cache"), "{round}: {stderr}");
        let (code, stderr) = gate("git status");
        assert_eq!(code, 0, "{round}: {stderr}");
    }
    assert_eq!(support::cache_artifacts(&cache).len(), 1);
}

/// Item 6c: a hook's program is deleted, then replaced, while `serve` runs. An argv
/// hook's program is run by path at each call: deleted, it fails (on_failure decides:
/// `block` blocks with the failure message, `continue` lets the call through with the
/// warning); replaced, the new program answers. A WASM hook was compiled at start: it
/// judges as before, whatever becomes of its file.
#[test]
fn a_hook_program_deleted_or_replaced_under_serve() {
    let scene = Scene::new();
    let blocking = policy_script(&scene, "blocking.sh");
    let lenient = policy_script(&scene, "lenient.sh");
    let wasm = plugin(&scene, "no-force-push.wasm");
    scene.write_config(&format!(
        "{}{}{}",
        direct_hook("blocking", &blocking, "\"edit\"", ""),
        direct_hook("lenient", &lenient, "\"exec\"", "on_failure = \"continue\""),
        hook(
            "no-force-push",
            "PreToolUse",
            &[wasm.to_str().unwrap()],
            "tools = [\"bash\"]"
        ),
    ));
    let mut cmd = scene.hookhost();
    cmd.args(["--no-sandbox", "serve"]);
    let mut server = Server::ready(cmd);
    assert_eq!(server.call("a", "edit", "danger")["outcome"], "block");
    assert_eq!(server.call("b", "exec", "danger")["outcome"], "block");
    assert_eq!(server.call("c", "bash", "git push -f")["outcome"], "block");

    std::fs::remove_file(&blocking).unwrap();
    std::fs::remove_file(&lenient).unwrap();
    std::fs::remove_file(&wasm).unwrap();
    let answer = server.call("d", "edit", "fine");
    assert_eq!(answer["outcome"], "block", "{answer}");
    let message = answer["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("\"blocking\" failed (could not start:")
            && message.contains(blocking.to_str().unwrap()),
        "{answer}"
    );
    let answer = server.call("e", "exec", "danger");
    assert_eq!(answer["outcome"], "allow", "{answer}");
    assert!(
        answer["warnings"][0].as_str().is_some_and(
            |w| w.contains("hook lenient failed") && w.contains("let the call through")
        ),
        "{answer}"
    );
    assert_eq!(server.call("f", "bash", "git push -f")["outcome"], "block");

    // Replaced: the new program is what runs.
    scene.script(
        "blocking.sh",
        "cat >/dev/null; echo 'the new program' >&2; exit 2",
    );
    std::fs::write(&wasm, b"not wasm at all").unwrap();
    let answer = server.call("g", "edit", "fine");
    assert_eq!(answer["outcome"], "block");
    assert!(
        answer["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("the new program")),
        "{answer}"
    );
    assert_eq!(server.call("h", "bash", "git push -f")["outcome"], "block");
    assert_eq!(server.call("i", "bash", "git status")["outcome"], "allow");
    let (code, stderr) = server.finish();
    assert_eq!(code, 0, "{stderr}");
}

/// Item 6d: bubblewrap disappears after start. A sandboxed hook never runs on the host
/// instead: the run fails, `on_failure` decides, and the message names bwrap, not the
/// hook's program.
#[test]
fn bubblewrap_gone_after_start_fails_the_sandboxed_hooks_and_says_why() {
    let test = "bubblewrap_gone_after_start_fails_the_sandboxed_hooks_and_says_why";
    if !bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let installed = hookhost::sandbox::probe(
        None,
        std::env::var_os("PATH").as_deref(),
        Path::new("/nonexistent-project"),
    )
    .expect("bwrap runs")
    .path;
    let bin = scene.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let bwrap = bin.join("bwrap");
    crate::support::copy_program(&installed, &bwrap);
    std::fs::set_permissions(&bwrap, std::fs::Permissions::from_mode(0o755)).unwrap();
    // On the host this would leave a file outside every writable folder; in the box it
    // cannot.
    let escaped = scene.root.path().join("ran-on-the-host");
    let body = format!(
        "cat >/dev/null; touch {} 2>/dev/null; echo boxed >&2; exit 2",
        escaped.display()
    );
    let blocking = scene.script("blocking.sh", &body);
    let lenient = scene.script("lenient.sh", &body);
    scene.write_config(&format!(
        "{}{}",
        direct_hook("blocking", &blocking, "\"bash\"", ""),
        direct_hook("lenient", &lenient, "\"exec\"", "on_failure = \"continue\""),
    ));
    let mut cmd = scene.hookhost();
    cmd.env("HOOKHOST_BWRAP", &bwrap).arg("serve");
    let mut server = Server::ready(cmd);
    let answer = server.call("a", "bash", "x");
    assert_eq!(answer["outcome"], "block", "{answer}");
    assert!(
        answer["message"].as_str().unwrap().ends_with("boxed"),
        "{answer}"
    );

    std::fs::remove_file(&bwrap).unwrap();
    let answer = server.call("b", "bash", "x");
    assert_eq!(answer["outcome"], "block", "{answer}");
    let message = answer["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("\"blocking\" failed (could not start:")
            && message.contains(&format!("bubblewrap ({})", bwrap.display())),
        "{answer}"
    );
    let answer = server.call("c", "exec", "x");
    assert_eq!(answer["outcome"], "allow", "{answer}");
    assert!(
        answer["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("hook lenient failed") && w.contains("bubblewrap")),
        "{answer}"
    );
    let (code, stderr) = server.finish();
    assert_eq!(code, 0, "{stderr}");
    assert!(!escaped.exists(), "a sandboxed hook ran on the host");
}

/// Item 6e: the client closes serve's stdout while a request runs. No answer can reach
/// anyone: serve says so, stops the hooks in flight, reads no more and exits 141; the
/// record says the calls were interrupted and reads back whole.
#[test]
fn a_client_that_closes_stdout_stops_serve() {
    let scene = Scene::new();
    let script = policy_script(&scene, "policy.sh");
    scene.write_config(&direct_hook("policy", &script, "\"bash\"", ""));
    let record = scene.root.path().join("session.jsonl");
    let mut child = scene
        .hookhost()
        .args(["--no-sandbox", "--log", record.to_str().unwrap(), "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ready = String::new();
    stdout.read_line(&mut ready).unwrap();
    assert!(ready.contains("\"ready\""), "{ready}");
    let mut send = |v: Value| {
        let mut line = v.to_string();
        line.push('\n');
        stdin.write_all(line.as_bytes()).unwrap();
    };
    send(call("slow", "bash", "sleep-43"));
    assert!(
        wait_until(|| process_alive("sleep 43.5")),
        "the hook did not start"
    );
    drop(stdout);
    send(call("fast", "bash", "fine"));
    // stdin stays open: serve must stop on its own.
    let deadline = Instant::now() + READ_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("serve went on after its stdout was closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(141));
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        stderr.contains("cannot write an answer to stdout"),
        "{stderr}"
    );
    assert!(
        wait_until(|| !process_alive("sleep 43.5")),
        "the hook in flight was left running"
    );
    let shown = record_reads_back(&scene, &record);
    assert!(
        shown.contains("interrupted while the user's hook \"policy\" ran"),
        "{shown}"
    );
}

/// Item 6f: SIGTERM while serve records a stream of calls. Every answer that came out
/// is right, serve exits 143, and the record reads back whole: no torn line, no kill
/// read into it, every recorded verdict replays.
#[test]
fn sigterm_during_a_stream_of_recorded_calls_leaves_a_whole_record() {
    let scene = Scene::new();
    let script = policy_script(&scene, "policy.sh");
    scene.write_config(&direct_hook("policy", &script, "\"bash\"", ""));
    let record = scene.root.path().join("session.jsonl");
    let mut cmd = scene.hookhost();
    cmd.args(["--no-sandbox", "--log", record.to_str().unwrap(), "serve"]);
    let mut server = Server::ready(cmd);
    let padding = "p".repeat(4000);
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for i in 0..400 {
            let word = if i % 2 == 0 { "danger" } else { "fine" };
            let mut line =
                call(&format!("{word}-{i}"), "bash", &format!("{word} {padding}")).to_string();
            line.push('\n');
            if stdin.write_all(line.as_bytes()).is_err() {
                return;
            }
        }
        // Keep stdin open: only the signal ends this session.
        std::thread::sleep(READ_TIMEOUT);
    });
    let mut answers = Vec::new();
    while answers.len() < 20 {
        answers.push(server.recv());
    }
    server.signal(libc::SIGTERM);
    while let Ok(line) = server.lines.recv_timeout(READ_TIMEOUT) {
        answers.push(serde_json::from_str(&line).unwrap());
    }
    assert_eq!(server.wait_exit(), 143);
    for answer in &answers {
        let id = answer["id"].as_str().unwrap_or_default();
        let outcome = answer["outcome"].as_str().unwrap_or_default();
        let right = match id.split('-').next() {
            Some("danger") => ["block", "interrupted"].contains(&outcome),
            _ => ["allow", "interrupted"].contains(&outcome),
        };
        assert!(right, "{answer}");
    }
    record_reads_back(&scene, &record);
    drop(writer);
}
