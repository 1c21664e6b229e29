//! macOS: hook processes as process groups (the rest is POSIX's, in `unix/process.rs`;
//! see [`crate::process`]). There is no `PR_SET_PDEATHSIG`: a hook whose spawner thread
//! ends lives on until its group is killed, which every run does when it ends.

pub(crate) use crate::platform::unix::process::{
    adopt_spawned, exit_signal, kill_and_reap_child, kill_group,
    own_group as own_group_dying_with_spawner, raise_open_file_limit, release,
};

/// Nothing here: macOS has no `close_range`, and closing fd by fd up to the open-file
/// limit between fork and exec would cost each hook milliseconds; a hook inherits what
/// this process holds without close-on-exec (nothing of hookhost's own).
pub(crate) fn stdio_only_across_exec(_command: &mut std::process::Command) {}

/// The pids whose parent is `pid` (`proc_listchildpids`).
pub(crate) fn children_of(pid: u32) -> Vec<u32> {
    let Ok(pid) = i32::try_from(pid) else {
        return Vec::new();
    };
    let mut pids = vec![0 as libc::pid_t; 256];
    loop {
        let bytes = (pids.len() * std::mem::size_of::<libc::pid_t>()) as libc::c_int;
        // SAFETY: the buffer is ours and `bytes` long; the call writes at most that.
        let n = unsafe { libc::proc_listchildpids(pid, pids.as_mut_ptr().cast(), bytes) };
        if n <= 0 {
            return Vec::new();
        }
        let count = n as usize;
        if count < pids.len() {
            let mut out: Vec<u32> = pids[..count]
                .iter()
                .filter_map(|&p| u32::try_from(p).ok())
                .filter(|&p| p > 0)
                .collect();
            out.sort_unstable();
            out.dedup();
            return out;
        }
        if pids.len() >= 1 << 16 {
            return Vec::new();
        }
        pids.resize(pids.len() * 4, 0);
    }
}
