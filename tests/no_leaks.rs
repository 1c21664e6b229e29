//! Hundreds of timed-out hook runs, and of runs in a PID namespace that end on their own
//! or by a kill of their own group, leave no zombies, no open file descriptors and no
//! processes behind. Alone in its test binary, so that no other test opens fds meanwhile;
//! its tests take turns ([`ALONE`]).
//!
//! Linux only: non-dumpable processes, PID namespaces and `/proc` are Linux's (see
//! tests/it/main.rs for what other OSes get).
#![cfg(target_os = "linux")]

mod support;

use std::sync::Arc;
use std::time::Duration;

use hookhost::executor::argv::{ArgvExecutor, HostLauncher, IsolatedHostLauncher, Launcher};
use hookhost::executor::{CancellationToken, Executor, ExitStatus, Failure};
use hookhost::process::HookNamespace;

/// Each test counts this process's fds and zombies: one at a time.
static ALONE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn zombie_children() -> usize {
    let me = std::process::id();
    let mut children = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{me}/task"))
        .unwrap()
        .flatten()
    {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            children.extend(text.split_whitespace().map(str::to_string));
        }
    }
    children
        .iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| {
                    s.rsplit(')')
                        .next()
                        .unwrap_or("")
                        .trim_start()
                        .starts_with('Z')
                })
                .unwrap_or(false)
        })
        .count()
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_timeouts_leave_no_zombies_and_no_fds() {
    let _alone = ALONE.lock().await;
    let mut launchers: Vec<(&str, Arc<dyn Launcher>)> =
        vec![("on the host", Arc::new(HostLauncher))];
    // Host hooks in a PID namespace of their own: three processes a run (see
    // process::HookNamespace), all killed with the group.
    match HookNamespace::for_this_process() {
        Ok(ns) => launchers.push((
            "in a PID namespace",
            Arc::new(IsolatedHostLauncher::new(ns)),
        )),
        // Root makes one with CAP_SYS_ADMIN (another user may, in a user namespace).
        Err(why) => support::skip_or_fail(
            "hundreds_of_timeouts_leave_no_zombies_and_no_fds (in a PID namespace)",
            support::Prerequisite::Root,
            &format!("no PID namespace can be made here: {why}"),
        ),
    }
    for (place, launcher) in launchers {
        let exec = ArgvExecutor::new(
            vec![
                "/bin/sh".into(),
                "-c".into(),
                "sleep 53.1 & sleep 53.2".into(),
            ],
            vec![],
            "/".into(),
            Duration::from_millis(30),
            launcher,
        );
        let cancel = CancellationToken::new();
        let stdin: Arc<[u8]> = Arc::from(&b"{}\n"[..]);
        // Warm up: the runtime opens its signal pipe on the first child.
        let first = exec.run(stdin.clone(), &cancel).await;
        assert_eq!(
            first,
            Err(Failure::TimedOut(Duration::from_millis(30))),
            "{place}"
        );
        let fds = open_fds();
        for _ in 0..200 {
            let r = exec.run(stdin.clone(), &cancel).await;
            assert!(matches!(r, Err(Failure::TimedOut(_))), "{place}: {r:?}");
        }
        assert_eq!(zombies_after_a_moment().await, 0, "{place}");
        assert_eq!(open_fds(), fds, "{place}: file descriptors leaked");
        // Killed, and gone once scheduled: under load a SIGKILLed process may not have
        // run its exit yet when the run returns (it can run no code of its own).
        for sleeper in ["sleep 53.1", "sleep 53.2"] {
            assert!(
                support::wait_until(|| !support::process_alive(sleeper)),
                "{place}: {sleeper} outlived its run"
            );
        }
    }
}

/// The zombies left after a moment: a leaked zombie stays one, and a child whose reaping
/// is still under way (a cold CI run, loaded by builds beside it, once counted one) is
/// given that moment.
async fn zombies_after_a_moment() -> usize {
    let mut zombies = zombie_children();
    for _ in 0..50 {
        if zombies == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        zombies = zombie_children();
    }
    zombies
}

/// A run in a PID namespace whose keeper exits with a code skips the orphan sweep (the
/// namespace ended with it); one whose keeper was killed first (here by the hook, which
/// kills its own group) leaves the namespace's init to this process, which the sweep
/// reaps. Either way: nothing left running, no zombie, no fd.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_in_a_pid_namespace_leave_nothing_whether_they_end_or_kill_their_group() {
    let _alone = ALONE.lock().await;
    let namespace = match HookNamespace::for_this_process() {
        Ok(ns) => ns,
        Err(why) => {
            return support::skip_or_fail(
                "runs_in_a_pid_namespace_leave_nothing_whether_they_end_or_kill_their_group",
                support::Prerequisite::Root,
                &format!("no PID namespace can be made here: {why}"),
            );
        }
    };
    // As the hookhost binary is: orphans of this process's hooks come back to it.
    hookhost::process::harden_host_process(true).unwrap();
    let launcher: Arc<dyn Launcher> = Arc::new(IsolatedHostLauncher::new(namespace));
    let cases = [
        (
            "setsid sleep 61.1 </dev/null >/dev/null 2>&1 & exit 3",
            "sleep 61.1",
            ExitStatus::Code(3),
        ),
        (
            "sleep 61.2 & kill -KILL 0",
            "sleep 61.2",
            ExitStatus::Signal(9),
        ),
    ];
    for (script, left, status) in cases {
        let exec = ArgvExecutor::new(
            vec!["/bin/sh".into(), "-c".into(), script.into()],
            vec![],
            "/".into(),
            Duration::from_secs(30),
            launcher.clone(),
        );
        let cancel = CancellationToken::new();
        let stdin: Arc<[u8]> = Arc::from(&b"{}\n"[..]);
        let first = exec.run(stdin.clone(), &cancel).await.unwrap();
        assert_eq!(first.status, status, "{script}");
        let fds = open_fds();
        for _ in 0..50 {
            let output = exec.run(stdin.clone(), &cancel).await.unwrap();
            assert_eq!(output.status, status, "{script}");
        }
        assert_eq!(zombies_after_a_moment().await, 0, "{script}");
        assert_eq!(open_fds(), fds, "{script}: file descriptors leaked");
        assert!(
            support::wait_until(|| !support::process_alive(left)),
            "{script}: {left} outlived its run"
        );
    }
}
