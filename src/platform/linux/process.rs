//! Linux: hook processes as process groups that die with the thread that forked them,
//! and the children the subreaper sweep finds in `/proc` (the rest is POSIX's, in
//! `unix/process.rs`; see [`crate::process`]).

use std::os::unix::process::CommandExt;

pub(crate) use crate::platform::unix::process::{
    adopt_spawned, exit_signal, kill_and_reap_child, kill_group, raise_open_file_limit, release,
};

/// Makes `command`'s process the leader of a new process group (so that the whole group
/// can be killed at once) that gets SIGKILL when the thread that forked it exits
/// (`PR_SET_PDEATHSIG`).
pub(crate) fn own_group_dying_with_spawner(command: &mut std::process::Command) {
    crate::platform::unix::process::own_group(command);
    // SAFETY: the closure runs in the forked child before exec and only calls
    // prctl, which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            Ok(())
        });
    }
}

/// Makes `command`'s program start with its stdin, stdout and stderr and no other fd
/// of this process's ([`mark_close_on_exec_above_stdio`], between fork and exec).
pub(crate) fn stdio_only_across_exec(command: &mut std::process::Command) {
    // SAFETY: the closure runs in the forked child before exec and makes only
    // close_range or fcntl calls, which are async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            mark_close_on_exec_above_stdio();
            Ok(())
        });
    }
}

/// Marks every fd above stderr close-on-exec, so that a hook's program gets its stdio
/// and nothing else: not an fd hookhost was started with (an agent's sockets), nor one
/// of its own that a fork made inheritable (wasmtime's handle on `/proc/self/pagemap`,
/// which its fork handler reopens in the child with `dup2`, and `dup2` clears
/// close-on-exec). Async-signal-safe; `close_range` with `CLOSE_RANGE_CLOEXEC` (Linux
/// 5.11), else one `fcntl` per fd below 65536, as the box's own pass does (the open-file
/// limit, raised to the hard one, may be a billion: that many calls per hook would be
/// the hook's start).
pub(crate) fn mark_close_on_exec_above_stdio() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range and fcntl on this process's own fds.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC) != 0 {
            for fd in 3..1 << 16 {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
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

/// Field `n` (counted from 1, as proc(5) counts them) of a `/proc/PID/stat` text. The
/// command name (field 2) is in parentheses and may hold anything: fields are counted
/// after its last `)`.
pub(crate) fn stat_field(stat: &str, n: usize) -> Option<&str> {
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(n.checked_sub(3)?)
}

#[cfg(test)]
mod stat_tests {
    use super::stat_field;

    #[test]
    fn stat_fields_are_counted_after_the_last_parenthesis_of_the_name() {
        let stat = "42 (a) b) (c) S 1 42 42 0 -1";
        assert_eq!(stat_field(stat, 3), Some("S"));
        assert_eq!(stat_field(stat, 5), Some("42"));
        assert_eq!(stat_field(stat, 8), Some("-1"));
        assert_eq!(stat_field(stat, 9), None);
        assert_eq!(stat_field(stat, 2), None);
    }
}
