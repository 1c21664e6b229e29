//! The host process and the hook processes it starts.
//!
//! - [`harden_host_process`] makes the host non-dumpable, so that a host hook cannot read
//!   the agent's keys back from `/proc/$PPID/environ`, and (for the hookhost binary)
//!   makes it a child subreaper, so that a grandchild that escapes its hook's process
//!   group with `setsid` is re-parented here and can be ended.
//! - Every hook process is spawned from one long-lived thread ([`spawn`]): `--die-with-parent`
//!   and `PR_SET_PDEATHSIG` fire when the *thread* that forked exits, and a tokio worker
//!   or blocking-pool thread may go away while the hook still runs.
//! - [`sweep_orphans`] ends what a finished hook left behind.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

/// Whether this process adopts orphaned grandchildren (see [`harden_host_process`]).
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// The pids of hook processes we started and have not reaped yet.
static LIVE_CHILDREN: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

/// Makes the host non-dumpable and, when `subreaper` is set, a child subreaper.
///
/// Only a process that owns all of its children should become a subreaper: the sweep
/// ends every adopted child that is not a hook we started. The hookhost binary does;
/// an embedding agent that starts processes of its own should pass `false`.
///
/// A non-dumpable process's `/proc/self` files belong to root, so what must be opened
/// there is opened first: wasmtime's pooling allocator finds the pages a WASM run wrote
/// through `/proc/self/pagemap`, which it opens once per process (see
/// [`crate::executor::wasm::WasmEngine::resets_memory_by_page_scan`]). wasmtime also
/// registers a `pthread_atfork` handler then, which reopens the file in every forked
/// child (hook processes included; a non-dumpable child gets `/dev/null` instead):
/// two or three syscalls per spawn.
pub fn harden_host_process(subreaper: bool) -> std::io::Result<()> {
    // Opens (and keeps) /proc/self/pagemap while this process may still open it; the
    // answer itself is asked again when an engine is made.
    let _ = wasmtime::PoolingAllocationConfig::is_pagemap_scan_available();
    // SAFETY: prctl with these options takes plain integers and touches no memory.
    unsafe {
        if libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if subreaper {
            if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            SUBREAPER.store(true, Ordering::SeqCst);
        }
    }
    Ok(())
}

/// Whether the host is non-dumpable (for tests and `check`).
pub fn is_dumpable() -> bool {
    // SAFETY: PR_GET_DUMPABLE reads a flag of this process.
    unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) != 0 }
}

type SpawnJob = Box<dyn FnOnce() + Send>;

/// The long-lived thread every hook process is forked from.
fn spawner() -> &'static Mutex<mpsc::Sender<SpawnJob>> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<SpawnJob>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnJob>();
        let started = std::thread::Builder::new()
            .name("hookhost-spawner".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            });
        if let Err(e) = started {
            tracing::error!("cannot start the spawner thread: {e}");
        }
        Mutex::new(tx)
    })
}

/// Spawns `command` from the spawner thread, inside the caller's tokio runtime, and
/// registers the child so that [`sweep_orphans`] spares it until [`forget`] is called.
pub async fn spawn(mut command: tokio::process::Command) -> std::io::Result<tokio::process::Child> {
    let handle = tokio::runtime::Handle::current();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: SpawnJob = Box::new(move || {
        let _runtime = handle.enter();
        // Spawn and register under one lock, so that a sweep never sees the child
        // unregistered.
        let mut live = LIVE_CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
        let result = command.spawn();
        if let Ok(child) = &result
            && let Some(pid) = child.id()
        {
            live.get_or_insert_with(HashSet::new).insert(pid);
        }
        drop(live);
        let _ = tx.send(result);
    });
    let sent = spawner()
        .lock()
        .map_err(|_| std::io::Error::other("the spawner thread is gone"))?
        .send(job);
    if sent.is_err() {
        return Err(std::io::Error::other("the spawner thread is gone"));
    }
    rx.await
        .map_err(|_| std::io::Error::other("the spawner thread dropped the request"))?
}

/// Drops `pid` from the registry once the child has been reaped.
pub fn forget(pid: u32) {
    let mut live = LIVE_CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(set) = live.as_mut() {
        set.remove(&pid);
    }
}

/// Sends SIGKILL to the process group `pgid` (a hook's group: its pid).
pub fn kill_group(pgid: u32) {
    if let Ok(pgid) = i32::try_from(pgid)
        && pgid > 1
    {
        // SAFETY: killpg takes plain integers.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

/// Ends every child this process adopted as a subreaper (orphans of finished hooks,
/// such as a grandchild that called `setsid`), and reaps it. Does nothing unless
/// [`harden_host_process`] made the host a subreaper. Blocking; bounded.
pub fn sweep_orphans() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    let me = std::process::id();
    // An orphan's own children are re-parented to us when it dies: go round a few times.
    for _ in 0..32 {
        let adopted: Vec<u32> = {
            let live = LIVE_CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
            children_of(me)
                .into_iter()
                .filter(|pid| !live.as_ref().is_some_and(|s| s.contains(pid)))
                .collect()
        };
        if adopted.is_empty() {
            return;
        }
        for pid in adopted {
            let Ok(pid) = i32::try_from(pid) else {
                continue;
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
    }
}

/// The pids whose parent is `pid`, from `/proc/PID/task/*/children`.
fn children_of(pid: u32) -> Vec<u32> {
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
