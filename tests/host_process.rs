//! The host process and the argv executor: cancellation, warnings once per turn
//! through the library API, a host hook that cannot read the agent's keys back from
//! `/proc/$PPID/environ`, and one that cannot see the agent at all (its own PID
//! namespace).
//!
//! A test binary of its own, not a module of `tests/it`: `the_library_can_harden_the_host`
//! makes the test process itself non-dumpable (`prctl`), which would hold for every test
//! sharing the process, and `an_unprivileged_hardened_host_still_scans_pages` reruns
//! this binary with `--exact` and a test's name.
//!
//! Linux only: non-dumpable processes, PID namespaces and `/proc` are Linux's (see
//! tests/it/main.rs for what other OSes get).
#![cfg(target_os = "linux")]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

use hookhost::executor::argv::{ArgvExecutor, HostLauncher};
use hookhost::executor::{CancellationToken, Executor, Failure};
use hookhost::session::{Session, SessionOptions};
use support::{Prerequisite, Scene, sh_hook};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_running_hook_at_once() {
    let exec = ArgvExecutor::new(
        vec!["/bin/sh".into(), "-c".into(), "sleep 41.7".into()],
        vec![],
        "/".into(),
        Duration::from_secs(60),
        Arc::new(HostLauncher),
    );
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let r = exec.run(Arc::from(&b"{}\n"[..]), &cancel).await;
    assert_eq!(r, Err(Failure::Interrupted));
    assert!(started.elapsed() < Duration::from_secs(30));
    // Killed with its group; a process SIGKILLed under load may take a moment to be gone
    // from /proc (the run waited for the hook's own pid, not for a forked `sleep`).
    assert!(support::wait_until(|| !support::process_alive(
        "sleep 41.7"
    )));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_warnings_once_per_hook_per_turn() {
    let scene = Scene::new();
    let failing = scene.script("fail.sh", "exit 1");
    scene.write_config(&sh_hook("flaky", &failing, "on_failure = \"continue\""));
    let session = Session::start(SessionOptions {
        config: Some(scene.config.clone()),
        project: scene.project.clone(),
        no_sandbox: true,
        ..SessionOptions::default()
    })
    .unwrap();
    let cancel = CancellationToken::new();
    let warning =
        "⚠ hook flaky failed (exited with code 1); on_failure = \"continue\" let the call through.";
    let v = session
        .pre_tool_use("bash", serde_json::json!({}), None, &cancel)
        .await;
    assert_eq!(v.warnings, vec![warning.to_string()]);
    let v = session
        .pre_tool_use("bash", serde_json::json!({}), None, &cancel)
        .await;
    assert!(
        v.warnings.is_empty(),
        "warned twice in one turn: {:?}",
        v.warnings
    );
    session.end_turn();
    let v = session
        .pre_tool_use("bash", serde_json::json!({}), None, &cancel)
        .await;
    assert_eq!(v.warnings, vec![warning.to_string()]);
}

/// The host is non-dumpable, so a host hook running as the same user cannot read the
/// agent's environment back from hookhost's `/proc/$PPID/environ` ($PPID is the hook's
/// namespace init, a forked copy of hookhost, or hookhost itself where there is no
/// namespace). Run as an unprivileged user (root reads any process's environ, dumpable
/// or not).
#[test]
fn a_host_hook_cannot_read_the_hosts_environ() {
    let test = "a_host_hook_cannot_read_the_hosts_environ";
    if !support::nobody_or_skip(test) {
        return;
    }
    // The checkout may sit in a 0700 home: nobody gets a world of its own, with its own
    // copy of the binary.
    let Some(world) = support::OtherUserWorld::new(test) else {
        return;
    };
    let hookhost = world.copy_executable(std::path::Path::new(env!("CARGO_BIN_EXE_hookhost")));
    let scene = world.scene();
    let script = scene.script(
        "peek.sh",
        r#"if cat /proc/$PPID/environ 2>/dev/null | tr '\0' '\n' | grep -q SECRET_MARKER; then echo "read-parent" >&2; else echo "parent-unreadable" >&2; fi
if cat /proc/self/environ | tr '\0' '\n' | grep -q HOME; then echo "read-self" >&2; fi
exit 2"#,
    );
    scene.write_config(&sh_hook("peek", &script, ""));
    let out = support::as_nobody()
        .arg(&hookhost)
        .arg("--config")
        .arg(&scene.config)
        .arg("--project")
        .arg(&scene.project)
        .args([
            "--no-sandbox",
            "pre-tool-use",
            "--json",
            "--tool",
            "bash",
            "--input",
            "{}",
        ])
        .env("SECRET_MARKER", "sk-ant-should-not-leak")
        .env("HOME", "/")
        .output()
        .unwrap();
    let v = support::verdict(&out);
    assert_eq!(
        v["message"],
        "blocked by the user's hook \"peek\": parent-unreadable\nread-self"
    );
}

#[test]
fn the_library_can_harden_the_host() {
    assert!(hookhost::process::is_dumpable());
    hookhost::process::harden_host_process(false).unwrap();
    assert!(!hookhost::process::is_dumpable());
}

/// The child half of `an_unprivileged_hardened_host_still_scans_pages`, run by it in a
/// process of its own as an unprivileged user.
#[test]
#[ignore = "run by an_unprivileged_hardened_host_still_scans_pages"]
fn hardened_child_checks_the_page_scan() {
    let Ok(expected) = std::env::var("HOOKHOST_EXPECT_PAGE_SCAN") else {
        eprintln!(
            "not run: this half runs only under an_unprivileged_hardened_host_still_scans_pages"
        );
        return;
    };
    hookhost::process::harden_host_process(false).unwrap();
    assert!(!hookhost::process::is_dumpable());
    let available = wasmtime::PoolingAllocationConfig::is_pagemap_scan_available();
    assert_eq!(available.to_string(), expected);
}

#[test]
fn an_unprivileged_hardened_host_still_scans_pages() {
    // wasmtime opens /proc/self/pagemap once per process to find the pages a WASM run
    // wrote; a non-dumpable process's /proc/self files belong to root, so an
    // unprivileged host could not open it after hardening, and serve would quietly
    // reset memory the slow way. harden_host_process opens it first.
    if !wasmtime::PoolingAllocationConfig::is_pagemap_scan_available() {
        eprintln!(
            "SKIPPED an_unprivileged_hardened_host_still_scans_pages: this kernel has no PAGEMAP_SCAN (Linux 6.7+)"
        );
        return;
    }
    let test = "an_unprivileged_hardened_host_still_scans_pages";
    if !support::nobody_or_skip(test) {
        return;
    }
    // The checkout may sit in a 0700 home: run a copy of this test binary from a world
    // the unprivileged user can reach.
    let Some(world) = support::OtherUserWorld::new(test) else {
        return;
    };
    let me = world.copy_executable(&std::env::current_exe().unwrap());
    let out = support::as_nobody()
        .arg(&me)
        .args([
            "--exact",
            "hardened_child_checks_the_page_scan",
            "--ignored",
            "--test-threads=1",
        ])
        .env("HOOKHOST_EXPECT_PAGE_SCAN", "true")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "{stdout}\n{stderr}");
}

/// F7: the agent (hookhost's parent, holding a key in its environment) is out of a host
/// hook's sight: its pid is not in the hook's `/proc`, and no process there holds the
/// key in its environment. Run by the two tests below, as root and as nobody.
fn the_agent_is_out_of_sight(test: &str, run_as_nobody: bool) {
    const KEY: &str = "sk-ant-agent-marker-40417";
    let Some(world) = support::OtherUserWorld::new(test) else {
        return;
    };
    let hookhost = world.copy_executable(std::path::Path::new(env!("CARGO_BIN_EXE_hookhost")));
    let scene = world.scene();
    // The agent writes its pid here; nobody must be able to.
    let shared = world.root.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let pidfile = shared.join("agent.pid");
    let script = scene.script(
        "look.sh",
        &format!(
            r#"agent=$(cat {pidfile})
if [ -e /proc/$agent ]; then seen="agent seen"; else seen="agent unseen"; fi
if grep -qs {KEY} /proc/[0-9]*/environ; then key="key read"; else key="key not found"; fi
echo "$seen, $key" >&2
exit 2"#,
            pidfile = pidfile.display()
        ),
    );
    scene.write_config(&sh_hook("look", &script, "sandbox = false"));
    let mut agent = if run_as_nobody {
        let mut cmd = support::as_nobody();
        cmd.arg("sh");
        cmd
    } else {
        std::process::Command::new("sh")
    };
    // sh stays hookhost's parent (its last command is `exit 0`, not hookhost).
    agent
        .arg("-c")
        .arg(r#"echo $$ > "$0"; "$@"; exit 0"#)
        .arg(&pidfile)
        .arg(&hookhost)
        .arg("--config")
        .arg(&scene.config)
        .arg("--project")
        .arg(&scene.project)
        .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("HOME", "/")
        .env("XDG_STATE_HOME", world.root.path().join("state"));
    let out = agent.output().unwrap();
    let v = support::verdict(&out);
    if v["warnings"]
        .to_string()
        .contains("without a PID namespace of their own")
    {
        // Root makes the namespace with CAP_SYS_ADMIN, nobody in a user namespace of its
        // own: whoever ran the agent lacks a power it has on a machine of its own.
        let who = if run_as_nobody {
            Prerequisite::OtherUser
        } else {
            Prerequisite::Root
        };
        support::skip_or_fail(test, who, &v["warnings"].to_string());
        return;
    }
    assert_eq!(
        v["message"], "blocked by the user's hook \"look\": agent unseen, key not found",
        "{v}"
    );
}

#[test]
fn a_host_hook_run_by_root_cannot_see_the_agent() {
    let test = "a_host_hook_run_by_root_cannot_see_the_agent";
    if !support::root_or_skip(test, "not root") {
        return;
    }
    the_agent_is_out_of_sight(test, false);
}

#[test]
fn a_host_hook_run_by_nobody_cannot_see_the_agent() {
    let test = "a_host_hook_run_by_nobody_cannot_see_the_agent";
    if !support::nobody_or_skip(test) {
        return;
    }
    the_agent_is_out_of_sight(test, true);
}

/// `hookhost --config … --project … --no-sandbox ARGS` for `scene`, run by root without
/// CAP_SYS_ADMIN (`setpriv`), where no PID namespace can be made.
fn without_sys_admin(scene: &Scene, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new("setpriv");
    cmd.arg("--bounding-set=-sys_admin")
        .arg(env!("CARGO_BIN_EXE_hookhost"))
        .arg("--config")
        .arg(&scene.config)
        .arg("--project")
        .arg(&scene.project)
        .args(["--no-sandbox"])
        .args(args)
        .env("XDG_STATE_HOME", scene.root.path().join("state"));
    cmd
}

/// Where no namespace can be made (here: root without CAP_SYS_ADMIN), host hooks run as
/// before and the start-up warnings say why, once.
#[test]
fn without_a_namespace_host_hooks_run_as_before_and_check_says_so() {
    let test = "without_a_namespace_host_hooks_run_as_before_and_check_says_so";
    if !support::root_or_skip(test, "not root (the test drops CAP_SYS_ADMIN from root)") {
        return;
    }
    let scene = Scene::new();
    let script = scene.script("ok.sh", "exit 0");
    scene.write_config(&sh_hook("ok", &script, "sandbox = false"));
    let run = |args: &[&str]| without_sys_admin(&scene, args).output().unwrap();
    let out = run(&["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("setpriv") {
        support::skip_or_fail(
            test,
            Prerequisite::Root,
            &format!("setpriv cannot drop CAP_SYS_ADMIN here: {stderr}"),
        );
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let warning = "⚠ host hooks run without a PID namespace of their own, so they can see your other processes, the agent's included: making one failed: Operation not permitted (os error 1).";
    assert_eq!(
        stderr.lines().filter(|l| *l == warning).count(),
        1,
        "{stderr}"
    );
    let out = run(&["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"]);
    let v = support::verdict(&out);
    assert_eq!(v["outcome"], "allow", "{v}");
}

/// Issue 28: no probe runs up front; a hook's spawn tries the namespace, and where making
/// it fails before exec (root without CAP_SYS_ADMIN) the hook still runs, started again
/// without it, and the same warning as with the probe appears: in the operator log for
/// the spawn that found out, and among the start-up warnings wherever they are shown.
#[test]
fn a_namespace_failing_at_spawn_still_runs_the_hook_and_warns() {
    let test = "a_namespace_failing_at_spawn_still_runs_the_hook_and_warns";
    if !support::root_or_skip(test, "not root (the test drops CAP_SYS_ADMIN from root)") {
        return;
    }
    let scene = Scene::new();
    let script = scene.script("ran.sh", "cat >/dev/null\necho hook ran >&2\nexit 2");
    scene.write_config(&sh_hook("ran", &script, "sandbox = false"));
    let run = |args: &[&str]| {
        without_sys_admin(&scene, args)
            .env("HOOKHOST_LOG", "warn")
            .output()
            .unwrap()
    };
    let warning = "⚠ host hooks run without a PID namespace of their own, so they can see your other processes, the agent's included: making one failed: Operation not permitted (os error 1).";
    // --json shows no start-up warnings, so nothing probes: the spawn finds out.
    let out = run(&["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("setpriv") {
        support::skip_or_fail(
            test,
            Prerequisite::Root,
            &format!("setpriv cannot drop CAP_SYS_ADMIN here: {stderr}"),
        );
        return;
    }
    let v = support::verdict(&out);
    assert_eq!(
        v["message"], "blocked by the user's hook \"ran\": hook ran",
        "{v} {stderr}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.ends_with(warning)).count(),
        1,
        "{stderr}"
    );
    // Text mode shows the start-up warnings before the hook runs: once, as before.
    let out = run(&["pre-tool-use", "--tool", "bash", "--input", "{}"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout} {stderr}");
    assert_eq!(
        stdout.trim(),
        "blocked by the user's hook \"ran\": hook ran",
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().filter(|l| *l == warning).count(),
        1,
        "{stderr}"
    );
}

/// A host hook in its own PID namespace (started by the namespace's init as
/// `posix_spawn` would, in the init's memory, then exec'd) is PID 2, exits and dies as
/// its program did, and a program that cannot be executed says why, as without the
/// namespace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_namespaced_host_hook_runs_exits_and_fails_to_start_as_on_the_host() {
    use hookhost::executor::ExitStatus;
    use hookhost::executor::argv::IsolatedHostLauncher;
    let namespace = match hookhost::process::HookNamespace::for_this_process() {
        Ok(namespace) => namespace,
        Err(why) => {
            support::skip_or_fail(
                "a_namespaced_host_hook_runs_exits_and_fails_to_start_as_on_the_host",
                Prerequisite::Root,
                &why.to_string(),
            );
            return;
        }
    };
    let launcher = Arc::new(IsolatedHostLauncher::new(namespace));
    let run = |argv: Vec<&str>| {
        let exec = ArgvExecutor::new(
            argv.into_iter().map(Into::into).collect(),
            vec![("MARK".into(), "kept".into())],
            "/".into(),
            Duration::from_secs(30),
            launcher.clone(),
        );
        async move {
            exec.run(Arc::from(&b"{\"in\":1}\n"[..]), &CancellationToken::new())
                .await
        }
    };
    let out = run(vec![
        "/bin/sh",
        "-c",
        "read line; echo \"$$ $MARK $line\"; echo err >&2; exit 3",
    ])
    .await
    .unwrap();
    assert_eq!(out.status, ExitStatus::Code(3));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2 kept {\"in\":1}\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "err\n");
    let out = run(vec!["/bin/sh", "-c", "kill -TERM $$"]).await.unwrap();
    assert_eq!(out.status, ExitStatus::Signal(libc::SIGTERM));

    let scene = Scene::new();
    for (program, why) in scene.programs_that_cannot_start() {
        let program = program.to_str().unwrap();
        assert_eq!(
            run(vec![program]).await,
            Err(Failure::CouldNotStart(format!("{program} {why}"))),
        );
    }
    // The namespace still works for the next hook (a failed exec is not its failure).
    let out = run(vec!["/bin/sh", "-c", "echo $$"]).await.unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2\n");
}

/// A host hook starts with its stdin, stdout and stderr and no other fd, with its PID
/// namespace and without: none hookhost was started with (an agent's sockets would be
/// there), and none of hookhost's own (wasmtime keeps `/proc/self/pagemap` open, and its
/// fork handler reopens it in every forked child without close-on-exec: a hook whose
/// namespace keeper was forked read that keeper's, hookhost's layout, through it).
#[test]
fn a_host_hook_gets_its_stdio_and_no_other_fd() {
    use std::os::unix::process::CommandExt;
    let test = "a_host_hook_gets_its_stdio_and_no_other_fd";
    if !support::root_or_skip(test, "not root (the test drops CAP_SYS_ADMIN from root)") {
        return;
    }
    let scene = Scene::new();
    let script = scene.script(
        "fds.sh",
        "ls -l /proc/self/fd/ | awk 'NR > 1 { print $9 \" \" $11 }' | tr '\\n' ';' >&2; exit 2",
    );
    scene.write_config(&sh_hook("fds", &script, "sandbox = false"));
    let inherited = std::fs::File::open(&script).unwrap();
    let args = ["pre-tool-use", "--tool", "bash", "--input", "{}"];
    let mut plain = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"));
    plain
        .arg("--config")
        .arg(&scene.config)
        .arg("--project")
        .arg(&scene.project)
        .args(args)
        .env("XDG_STATE_HOME", scene.root.path().join("state"));
    for (mut command, how) in [
        (plain, "in its namespace"),
        (without_sys_admin(&scene, &args), "without a namespace"),
    ] {
        let fd = std::os::fd::AsRawFd::as_raw_fd(&inherited);
        // SAFETY: dup2 in the forked child before exec: the file, inheritable, at fd 9.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(fd, 9) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let out = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let listed = stdout
            .trim()
            .strip_prefix("blocked by the user's hook \"fds\": ")
            .unwrap_or_else(|| panic!("{how}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
        let fds: Vec<&str> = listed.split(';').filter(|f| !f.is_empty()).collect();
        let names: Vec<&str> = fds.iter().map(|f| f.split(' ').next().unwrap()).collect();
        // fd 3: `ls`'s own listing of the folder.
        assert_eq!(names, ["0", "1", "2", "3"], "{how}: {listed}");
        assert!(fds[3].ends_with("/fd"), "{how}: {listed}");
    }
}
