//! Linux: hook processes as process groups that die with the thread that forked them,
//! how they ended, and the steps of the subreaper sweep (see [`crate::process`]).

use std::os::unix::process::{CommandExt, ExitStatusExt};

/// Makes `command`'s process the leader of a new process group (so that the whole group
/// can be killed at once) that gets SIGKILL when the thread that forked it exits
/// (`PR_SET_PDEATHSIG`).
pub(crate) fn own_group_dying_with_spawner(command: &mut std::process::Command) {
    command.process_group(0);
    // SAFETY: the closure runs in the forked child before exec and only calls
    // prctl, which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            Ok(())
        });
    }
}

/// The signal that ended a process, if a signal did.
pub(crate) fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    status.signal()
}

/// Sends SIGKILL to the process group `pgid` (a hook's group: its pid).
pub(crate) fn kill_group(pgid: u32) {
    if let Ok(pgid) = i32::try_from(pgid)
        && pgid > 1
    {
        // SAFETY: killpg takes plain integers.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

/// Kills an adopted child `pid` (its group, then itself) and reaps it. Blocking.
pub(crate) fn kill_and_reap_child(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else {
        return;
    };
    // SAFETY: kill and waitpid take plain integers and a status out-pointer
    // that lives on this stack frame. The pid is our child, so waitpid cannot
    // reap anyone else's process; tokio waits only on the pids it spawned.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
    }
}

/// The pids whose parent is `pid`, from `/proc/PID/task/*/children`.
pub(crate) fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Raises this process's open-file limit (`RLIMIT_NOFILE`) to its hard limit, and
/// returns the soft limit in force afterwards (`None` if it cannot be read).
pub(crate) fn raise_open_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return None;
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads one rlimit; raising the soft limit to the hard one
        // needs no privilege.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    // rlim_t is u64 on the 64-bit targets this module is built for.
    Some(limit.rlim_cur)
}
