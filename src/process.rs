//! The host process and the hook processes it starts.
//!
//! What follows is Linux's; each OS does what it can behind `platform::sys` (macOS: process
//! groups, no subreaper, no PID namespace; Windows: a Job Object per hook, which ends its
//! descendants and stands in for the group, the death signal and the sweep).
//!
//! - [`harden_host_process`] makes the host non-dumpable, so that a host hook cannot read
//!   hookhost's own memory or `/proc/$PPID/environ` (hookhost's copy of the agent's
//!   environment; the agent itself, hookhost's parent, is its own business), and (for the hookhost binary)
//!   makes it a child subreaper, so that a grandchild that escapes its hook's process
//!   group with `setsid` is re-parented here and can be ended.
//! - Every hook process is spawned from one long-lived thread ([`spawn`]): `--die-with-parent`
//!   and `PR_SET_PDEATHSIG` fire when the *thread* that forked exits, and a tokio worker
//!   or blocking-pool thread may go away while the hook still runs.
//! - [`sweep_orphans`] ends what a finished hook left behind.
//! - [`HookNamespace`] gives each host hook a PID namespace and a `/proc` of its own, so
//!   that it cannot see the agent, which non-dumpable does not protect.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

use crate::platform::sys;

pub use crate::platform::sys::pid_namespace::{HookNamespace, NoHookNamespace};
/// A host hook's namespace made ahead of its call in a long-lived process (Linux; see
/// `src/platform/linux/pid_namespace/ready.rs`): the hidden argument and entry point of
/// the keeper that the hookhost binary becomes, and the switch and state of the pool.
pub use crate::platform::sys::pid_namespace::{
    KEEPER_ARG as NAMESPACE_KEEPER_ARG, is_ready as host_namespace_ready,
    keeper_main as namespace_keeper_main, prepare_ahead as prepare_host_namespaces_ahead,
    prepare_ahead_by_this_binary as prepare_host_namespaces_ahead_by_this_binary,
};
pub(crate) use crate::platform::sys::pid_namespace::{NotStarted, Pipes, ReadyRun, take_ready};

/// The start-up warning for host hooks that run without a PID namespace of their own,
/// `why` being the reason the namespace could not be made. One text, whether an
/// up-front probe or a hook's own spawn found out.
pub fn no_namespace_warning(why: &NoHookNamespace) -> String {
    format!(
        "⚠ host hooks run without a PID namespace of their own, so they can see your other processes, the agent's included: making one failed: {why}."
    )
}

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
/// What a non-dumpable process could no longer open for itself (wasmtime's handle on
/// `/proc/self/pagemap`, which it keeps) is opened first.
pub fn harden_host_process(subreaper: bool) -> std::io::Result<()> {
    sys::harden::open_before_non_dumpable();
    sys::harden::make_non_dumpable()?;
    // Where the OS has no subreapers (macOS, Windows), orphans go to init or nowhere;
    // Windows' Job Objects end them instead (see `platform`).
    if subreaper && sys::harden::become_child_subreaper()? {
        SUBREAPER.store(true, Ordering::SeqCst);
    }
    Ok(())
}

/// Raises the open-file limit to its hard limit (a burst of hook processes needs three
/// pipes each), and returns the limit then in force. Called once at start; the number of
/// hook processes run at once is bounded by it ([`process_slots`]).
pub fn raise_open_file_limit() -> Option<u64> {
    sys::process::raise_open_file_limit()
}

/// Fds one hook run may hold at once in this process: its three pipes, the pid's fd,
/// and room for the runtime's own while it starts.
const FDS_PER_RUN: u64 = 8;

/// Fds kept for everything that is not a hook run (stdio, the record, the engine, the
/// runtime, sockets).
const FDS_RESERVED: u64 = 64;

/// The most hook processes run at once, from the open-file limit, so that a burst waits
/// for a slot instead of failing with "too many open files" (which `on_failure =
/// "continue"` would let through); at most 256, at least 1.
pub fn process_slots() -> &'static Arc<tokio::sync::Semaphore> {
    static SLOTS: OnceLock<Arc<tokio::sync::Semaphore>> = OnceLock::new();
    SLOTS.get_or_init(|| {
        let limit = sys::process::raise_open_file_limit().unwrap_or(1024);
        let slots = (limit.saturating_sub(FDS_RESERVED) / FDS_PER_RUN).clamp(1, 256);
        Arc::new(tokio::sync::Semaphore::new(slots as usize))
    })
}

/// Whether the host is non-dumpable (for tests and `check`).
pub fn is_dumpable() -> bool {
    sys::harden::is_dumpable()
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
        let mut result = command.spawn();
        // The OS's container for the hook's descendants (Windows: its Job Object) before
        // it runs on; a child that cannot be contained is ended, never left running.
        if let Ok(child) = &mut result
            && let Err(e) = sys::process::adopt_spawned(child)
        {
            let _ = child.start_kill();
            result = Err(e);
        }
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

/// Spawns `command` from the spawner thread (blocking) and registers the child as
/// [`spawn`] does; for a process kept outside any runtime until a run takes it (a
/// ready host hook's namespace, which only Linux has: unused elsewhere).
#[allow(dead_code)]
pub(crate) fn spawn_std(
    mut command: std::process::Command,
) -> std::io::Result<std::process::Child> {
    let (tx, rx) = mpsc::channel();
    let job: SpawnJob = Box::new(move || {
        let mut live = LIVE_CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
        let result = command.spawn();
        if let Ok(child) = &result {
            live.get_or_insert_with(HashSet::new).insert(child.id());
        }
        drop(live);
        let _ = tx.send(result);
    });
    spawner()
        .lock()
        .map_err(|_| std::io::Error::other("the spawner thread is gone"))?
        .send(job)
        .map_err(|_| std::io::Error::other("the spawner thread is gone"))?;
    rx.recv()
        .map_err(|_| std::io::Error::other("the spawner thread dropped the request"))?
}

/// Drops `pid` from the registry once the child has been reaped (and, on Windows, closes
/// its Job Object, which ends whatever it left running).
pub fn forget(pid: u32) {
    sys::process::release(pid);
    let mut live = LIVE_CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(set) = live.as_mut() {
        set.remove(&pid);
    }
}

/// Ends the hook whose pid is `pgid` and everything it started: SIGKILL to its process
/// group on POSIX, its Job Object terminated on Windows.
pub fn kill_group(pgid: u32) {
    sys::process::kill_group(pgid);
}

/// How long one sweep may go on ending adopted children.
const SWEEP_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// Ends every child this process adopted as a subreaper (orphans of finished hooks,
/// such as a grandchild that called `setsid`), and reaps it. Does nothing unless
/// [`harden_host_process`] made the host a subreaper. Blocking; bounded (2 s).
pub fn sweep_orphans() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    let me = std::process::id();
    // An orphan's own children are re-parented to us when it dies: go round until none is
    // left (a chain of `setsid` daemons gives one more round per link), within a time
    // bound, so that a fork bomb cannot hold the gate that swept.
    let started = std::time::Instant::now();
    while started.elapsed() < SWEEP_BUDGET {
        let adopted: Vec<u32> = {
            let live = LIVE_CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
            sys::process::children_of(me)
                .into_iter()
                .filter(|pid| !live.as_ref().is_some_and(|s| s.contains(pid)))
                .collect()
        };
        if adopted.is_empty() {
            return;
        }
        for pid in adopted {
            sys::process::kill_and_reap_child(pid);
        }
    }
}
