//! Hook processes as process groups (POSIX): how they ended, killing a group, reaping an
//! adopted child, and the open-file limit (see [`crate::process`]).

use std::os::unix::process::{CommandExt, ExitStatusExt};

/// Makes `command`'s process the leader of a new process group, so that the whole group
/// can be killed at once.
pub(crate) fn own_group(command: &mut std::process::Command) {
    command.process_group(0);
}

/// What the spawner does once the hook runs: nothing more on POSIX (the group is its
/// container).
pub(crate) fn adopt_spawned(_child: &tokio::process::Child) -> std::io::Result<()> {
    Ok(())
}

/// What [`crate::process::forget`] releases: nothing on POSIX.
pub(crate) fn release(_pid: u32) {}

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
    let ceiling = soft_limit_ceiling(limit.rlim_max);
    if limit.rlim_cur < ceiling {
        let raised = libc::rlimit {
            rlim_cur: ceiling,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads one rlimit; raising the soft limit up to the hard one
        // needs no privilege.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    // rlim_t is u64 on the 64-bit targets this module is built for.
    Some(limit.rlim_cur)
}

/// The highest soft open-file limit to ask for: the hard limit.
#[cfg(not(target_os = "macos"))]
fn soft_limit_ceiling(hard: libc::rlim_t) -> libc::rlim_t {
    hard
}

/// The highest soft open-file limit to ask for: macOS reports an unlimited hard limit but
/// refuses a soft one above `OPEN_MAX` (10240).
#[cfg(target_os = "macos")]
fn soft_limit_ceiling(hard: libc::rlim_t) -> libc::rlim_t {
    hard.min(10240)
}
