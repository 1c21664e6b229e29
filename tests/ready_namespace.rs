//! A host hook's namespace made ahead of its call (`hookhost warm`, `serve`;
//! src/platform/linux/pid_namespace/ready.rs): the hook sees, gets and leaves exactly
//! what a hook whose namespace was made at its call does, and a hook that cannot start,
//! outlives its timeout or leaves a process behind ends as there; a keeper made before
//! the host's mounts changed is not used, and one that never answers ends its run at
//! the hook's timeout.
//!
//! A test binary of its own, with one test: the keeper kept ready is the process's, and
//! a test beside it would take it.
//!
//! Linux only (PID namespaces are Linux's).
#![cfg(target_os = "linux")]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hookhost::executor::argv::{ArgvExecutor, IsolatedHostLauncher};
use hookhost::executor::{CancellationToken, Executor, ExitStatus, Failure, RawOutput};
use support::{Prerequisite, Scene};

/// What a hook reports of itself: its pid, an environment variable, its input, how many
/// processes it sees and whether one is the agent's side, its signal dispositions and
/// mask, its open fds, its folder, its whole environment and what it reads of its
/// PID 1's. Line 1 says whether its
/// PID 1 is a ready keeper; the rest must read the same either way.
const VIEW: &str = r#"read line
case "$(tr '\0' ' ' </proc/1/cmdline)" in *__hookhost-namespace-keeper*) echo ready;; *) echo at-call;; esac
echo "$$ $MARK $line"
ls /proc | grep -c '^[0-9]'
grep -E '^(SigIgn|SigBlk|NoNewPrivs|Uid|Gid)' /proc/self/status
ls /proc/self/fd
pwd
env | sort
tr -d '\0' </proc/1/environ | wc -c
echo err >&2
exit 3"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_in_a_namespace_made_ahead_runs_as_in_one_made_at_its_call() {
    let test = "a_hook_in_a_namespace_made_ahead_runs_as_in_one_made_at_its_call";
    let namespace = match hookhost::process::HookNamespace::for_this_process() {
        Ok(namespace) => namespace,
        Err(why) => {
            support::skip_or_fail(test, Prerequisite::Root, &why.to_string());
            return;
        }
    };
    let launcher = Arc::new(IsolatedHostLauncher::new(namespace));
    let run = |argv: Vec<&str>, timeout: Duration| {
        let exec = ArgvExecutor::new(
            argv.into_iter().map(Into::into).collect(),
            vec![("MARK".into(), "kept".into())],
            "/".into(),
            timeout,
            launcher.clone(),
        );
        async move {
            exec.run(Arc::from(&b"{\"in\":1}\n"[..]), &CancellationToken::new())
                .await
        }
    };
    let view = || run(vec!["/bin/sh", "-c", VIEW], Duration::from_secs(30));

    // Nothing is kept ready until asked: the first hook's namespace is made at its call.
    let at_call = view().await.unwrap();
    assert!(!hookhost::process::host_namespace_ready());
    hookhost::process::prepare_host_namespaces_ahead(env!("CARGO_BIN_EXE_hookhost").into());
    let still_at_call = view().await.unwrap();
    assert_eq!(still_at_call, at_call);
    let stdout = String::from_utf8_lossy(&at_call.stdout).to_string();
    assert!(
        stdout.starts_with("at-call\n2 kept {\"in\":1}\n"),
        "{stdout}"
    );

    // The first ask started the pool: from now on each hook finds a keeper ready.
    wait_ready().await;
    let ahead = view().await.unwrap();
    let ahead_stdout = String::from_utf8_lossy(&ahead.stdout).to_string();
    assert_eq!(
        ahead_stdout.replacen("ready\n", "at-call\n", 1),
        stdout,
        "the hook's view differs"
    );
    assert!(ahead_stdout.starts_with("ready\n"), "{ahead_stdout}");
    assert_eq!(ahead.status, ExitStatus::Code(3));
    assert_eq!(String::from_utf8_lossy(&ahead.stderr), "err\n");

    // It dies of a signal as there, and a program that cannot be executed says why.
    wait_ready().await;
    let out = run(
        vec!["/bin/sh", "-c", "kill -TERM $$"],
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert_eq!(out.status, ExitStatus::Signal(libc::SIGTERM));
    let scene = Scene::new();
    for (program, why) in scene.programs_that_cannot_start() {
        wait_ready().await;
        let program = program.to_str().unwrap();
        assert_eq!(
            run(vec![program], Duration::from_secs(30)).await,
            Err(Failure::CouldNotStart(format!("{program} {why}"))),
        );
    }

    // A hook past its timeout is ended with everything it started, and a hook that
    // leaves a process running leaves nothing once it has ended.
    wait_ready().await;
    let started = Instant::now();
    let out = run(
        vec!["/bin/sh", "-c", "sleep 41.3 & sleep 41.4"],
        Duration::from_millis(500),
    )
    .await;
    assert_eq!(out, Err(Failure::TimedOut(Duration::from_millis(500))));
    assert!(started.elapsed() < Duration::from_secs(20));
    wait_ready().await;
    let out = run(
        vec!["/bin/sh", "-c", "sleep 41.5 & echo left"],
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "left\n");
    for sleeper in ["sleep 41.3", "sleep 41.4", "sleep 41.5"] {
        assert!(
            support::wait_until(|| !support::process_alive(sleeper)),
            "{sleeper} outlived its hook"
        );
    }

    // A hook that kills its own group at once (the keeper with it) fails, and is not
    // run again.
    wait_ready().await;
    let marks = scene.root.path().join("runs");
    let script = format!("echo run >> '{}'; kill -KILL 0", marks.display());
    let out = run(vec!["/bin/sh", "-c", &script], Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(out.status, ExitStatus::Signal(libc::SIGKILL));
    assert_eq!(std::fs::read_to_string(&marks).unwrap(), "run\n");
    let last: RawOutput = view().await.unwrap();
    assert_eq!(last.status, ExitStatus::Code(3));

    // A mount made on the host after the keeper was made is seen by the next hook: its
    // namespace's copy of the mounts would not have it, so that keeper is not used.
    wait_ready().await;
    let mount_point = scene.root.path().join("mounted-later");
    std::fs::create_dir(&mount_point).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "tmpfs"])
        .arg(&mount_point)
        .status()
        .unwrap();
    assert!(mounted.success(), "mount a tmpfs");
    std::fs::write(mount_point.join("marker"), "on the tmpfs\n").unwrap();
    let script = format!("cat '{}/marker'", mount_point.display());
    let out = run(vec!["/bin/sh", "-c", &script], Duration::from_secs(30)).await;
    assert_eq!(
        String::from_utf8_lossy(&out.unwrap().stdout),
        "on the tmpfs\n"
    );
    // An unmount counts as a change too, and the pool replaces a keeper made before
    // one within a second or so, before any call asks: the next hook does not see the
    // tmpfs.
    wait_ready().await;
    let before = ready_keepers();
    assert_eq!(before.len(), 1, "{before:?}");
    let unmounted = std::process::Command::new("umount")
        .arg(&mount_point)
        .status()
        .unwrap();
    assert!(unmounted.success(), "unmount the tmpfs");
    assert!(
        support::wait_until(|| {
            let now = ready_keepers();
            hookhost::process::host_namespace_ready() && !now.contains(&before[0])
        }),
        "the keeper made before the unmount was not replaced"
    );
    let script = format!(
        "test -e '{}/marker' && echo still || echo gone",
        mount_point.display()
    );
    let out = run(vec!["/bin/sh", "-c", &script], Duration::from_secs(30)).await;
    assert_eq!(String::from_utf8_lossy(&out.unwrap().stdout), "gone\n");

    // A keeper that never answers (stopped) ends its run at the hook's timeout, with
    // nothing left of it.
    wait_ready().await;
    let keeper = *ready_keepers()
        .first()
        .expect("the ready keeper, a child of this process");
    // SAFETY: kill with plain integers, on our own child.
    unsafe { libc::kill(keeper, libc::SIGSTOP) };
    let out = run(vec!["/bin/sh", "-c", "exit 0"], Duration::from_millis(500)).await;
    assert_eq!(out, Err(Failure::TimedOut(Duration::from_millis(500))));
    assert!(
        support::wait_until(|| !std::path::Path::new(&format!("/proc/{keeper}")).exists()),
        "the stopped keeper was not ended and reaped"
    );
    wait_ready().await;
    let out = view().await.unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ready\n"));
}

/// The pids of this process's keepers (children whose command line names one).
fn ready_keepers() -> Vec<i32> {
    let me = std::process::id();
    let mut keepers = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{me}/task"))
        .unwrap()
        .flatten()
    {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in children.split_whitespace() {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains(hookhost::process::NAMESPACE_KEEPER_ARG) {
                keepers.extend(pid.parse::<i32>().ok());
            }
        }
    }
    keepers
}

/// Waits until the pool holds a ready keeper (made by its thread after the last run).
async fn wait_ready() {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !hookhost::process::host_namespace_ready() {
        assert!(Instant::now() < deadline, "no keeper got ready");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
