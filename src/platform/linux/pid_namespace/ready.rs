//! Linux: a host hook's namespace made before its call, in a long-lived hookhost
//! (`hookhost warm`, `serve`).
//!
//! Made at the call, a host hook's namespace costs the call a fork of the whole server
//! (its page tables copied, its threads stalled meanwhile), the `unshare`, the init and
//! its `/proc`, and at the end the mount namespace's teardown, which waits for an RCU
//! grace period (BENCHMARKS.md, thirty-sixth sitting). A *ready keeper* does the making
//! ahead of the call: it is this binary, started with [`KEEPER_ARG`] by `posix_spawn`
//! (no fork), which makes the namespaces, starts their init, mounts its `/proc`, hands
//! the server its mount namespace (so that the teardown happens when the server closes
//! it, after the call) and then waits, its stdio being the next hook's pipes. At the
//! call, the hook's program, arguments, environment and folder go to it as one frame on
//! its stdin, before the hook's input; the init starts the hook, and from there the run
//! is the same as a keeper forked for it: the hook is PID 2 of a namespace of its own,
//! gets the server's signal dispositions and its stdio only, the keeper leads its
//! process group and exits as the hook did once the namespace has ended
//! ([`super::HookNamespace`]).
//!
//! Each ready keeper serves one hook, so no two hooks ever share a namespace. One is
//! kept ready at a time, made again after each run by a thread of its own
//! ([`ReadyKeepers`]); a call that finds none starts its keeper the usual way, and so
//! do all once making one has failed a few times in a row. A keeper made before the
//! host's mounts changed is not used (its namespace holds a copy of them), nor one that
//! has ended or spoken out of turn; one that does not answer ends its run at the
//! hook's timeout. The keeper says how the start went on a socket of its own: ready,
//! started, or why not (the program's exec failing, as std's spawn reports it). It is
//! non-dumpable before it holds the hook's pipes: what a same-user process could do to
//! a keeper is in docs/threats.md#w1.

use std::ffi::OsString;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

use crate::platform::sys::process::kill_and_reap_child;

use super::{
    EXEC_FAILED_MESSAGE, Failed, HookExec, HookNamespace, InitStart, READY_MESSAGE,
    SETUP_FAILED_MESSAGE, STARTED_MESSAGE, message, read_message, reap, send_message,
};

/// The hidden first argument that makes the hookhost binary a ready keeper
/// ([`keeper_main`]). `src/main.rs` checks for it before anything else.
pub const KEEPER_ARG: &str = "__hookhost-namespace-keeper";

/// The frame's first bytes: this protocol, version 1.
const FRAME_MAGIC: &[u8; 4] = b"HHK1";

/// The largest frame: a hook's arguments and environment beyond this would not pass
/// `execve` (Linux takes a quarter of the stack limit, 2 MiB by default), and such a
/// hook starts the usual way.
const MAX_FRAME: usize = 4 << 20;

/// How long a keeper may take to get ready (the exec of this binary and its namespace:
/// a few milliseconds) before it is given up.
const READY_DEADLINE: Duration = Duration::from_secs(5);

/// The ready keeper's side: makes itself non-dumpable, takes its line to the server,
/// the server's signal dispositions, makes the namespace, then takes the hook's stdio,
/// starts the init and its `/proc`, says so (handing the server the mount namespace),
/// reads the frame of the hook to start and hands it to the init; then stays as the
/// keeper, and exits as the hook did. Never returns.
///
/// It is started by `posix_spawn` (no fork of the server) with its stdin and stdout on
/// `/dev/null` and its stderr the line to the server; its second argument is the
/// server's pid, its third the signals the server ignores. The hook's pipes come over
/// the line only once it is non-dumpable for good, so that no other process can open
/// them through `/proc` (docs/threats.md#w1).
pub fn keeper_main() -> ! {
    // SAFETY: prctl on this process's own state. Before anything else: while dumpable,
    // a same-user process may open its fds through /proc.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
    let control = match take_line().and_then(|control| {
        take_the_servers_signals()?;
        Ok(control)
    }) {
        Ok(control) => control,
        // SAFETY: _exit ends this process at once.
        Err(_) => unsafe { libc::_exit(125) },
    };
    let namespace = HookNamespace::new();
    let failed = match namespace
        .detach()
        .and_then(|()| take_the_hooks_stdio(control))
    {
        Ok(()) => wait_and_start(&namespace, control),
        Err(e) => Failed::SetUp(e),
    };
    let (tag, error) = match failed {
        Failed::SetUp(e) => (SETUP_FAILED_MESSAGE, e),
        Failed::Exec(e) => (EXEC_FAILED_MESSAGE, e),
    };
    send_message(control, tag, error.raw_os_error().unwrap_or(libc::EINVAL));
    // SAFETY: _exit ends this process at once.
    unsafe { libc::_exit(127) }
}

/// Dies with the server (and ends now if it is already gone), and moves the line to the
/// server off stderr, to an fd the hook does not inherit. Returns the line's fd.
fn take_line() -> std::io::Result<RawFd> {
    let server: libc::pid_t = std::env::args()
        .nth(2)
        .and_then(|pid| pid.parse().ok())
        .ok_or_else(|| std::io::Error::other("no server pid"))?;
    // SAFETY: prctl, getppid and fcntl on this process's own state and fds.
    unsafe {
        // The death signal is set by the keeper itself (a `pre_exec` would make std fork
        // the server): the server's spawner thread is its parent, unless the server
        // died before this line.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != server {
            return Err(std::io::Error::other("the server is gone"));
        }
        let control = libc::fcntl(2, libc::F_DUPFD_CLOEXEC, 3);
        if control < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(control)
    }
}

/// Takes the hook's stdin, stdout and stderr from the line (sent with one byte) and
/// puts them at 0, 1 and 2.
fn take_the_hooks_stdio(control: RawFd) -> std::io::Result<()> {
    let mut byte = [0u8; 1];
    let mut fds = [None, None, None];
    let n = receive_with_fds(control, &mut byte, &mut fds)?;
    let [Some(stdin), Some(stdout), Some(stderr)] = fds else {
        return Err(std::io::Error::other("no stdio for the hook"));
    };
    if n != 1 {
        return Err(std::io::Error::other("no stdio for the hook"));
    }
    for (fd, at) in [(stdin, 0), (stdout, 1), (stderr, 2)] {
        // SAFETY: dup2 onto our own stdio fds.
        if unsafe { libc::dup2(fd.as_raw_fd(), at) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The signals this process ignores, as a mask (bit `n - 1` for signal `n`, as
/// `/proc/self/status` shows them), SIGPIPE left out: what a hook started from here
/// inherits, since std's spawn gives SIGPIPE its default back.
fn ignored_signals() -> std::io::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let mask = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .ok_or_else(|| std::io::Error::other("no SigIgn in /proc/self/status"))?;
    Ok(mask & !(1 << (libc::SIGPIPE - 1)))
}

/// Ignores exactly the signals the server does (its third argument,
/// [`ignored_signals`]) and gives every other its default, so that the hook inherits
/// what a keeper forked from the server would give it: this binary's start ignores
/// SIGPIPE, and `posix_spawn` ignores glibc's own two signals, each ignored across exec.
/// Through the kernel's call, which glibc's refuses for its own signals.
fn take_the_servers_signals() -> std::io::Result<()> {
    /// The kernel's `struct sigaction` (x86-64 and arm64, which both have a restorer).
    #[repr(C)]
    struct KernelSigaction {
        handler: usize,
        flags: u64,
        restorer: usize,
        mask: u64,
    }
    let mask = std::env::args()
        .nth(3)
        .and_then(|hex| u64::from_str_radix(&hex, 16).ok())
        .ok_or_else(|| std::io::Error::other("no signal mask"))?;
    for signal in 1..=64 {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        let action = KernelSigaction {
            handler: if mask & (1 << (signal - 1)) != 0 {
                libc::SIG_IGN
            } else {
                libc::SIG_DFL
            },
            flags: 0,
            restorer: 0,
            mask: 0,
        };
        // SAFETY: rt_sigaction with a valid action for a valid signal, the kernel's
        // sigset size, and no old action.
        let set = unsafe {
            libc::syscall(
                libc::SYS_rt_sigaction,
                signal,
                &raw const action,
                std::ptr::null_mut::<KernelSigaction>(),
                8usize,
            )
        };
        if set != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// After [`HookNamespace::detach`]: starts the init ready, says so on `control` with the
/// mount namespace, reads the frame and starts the hook. Returns only why it could not
/// (the init has been reaped then).
fn wait_and_start(namespace: &HookNamespace, control: RawFd) -> Failed {
    let mut go = [0; 2];
    // SAFETY: pipe2 writes two fds into the local array.
    if unsafe { libc::pipe2(go.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Failed::SetUp(std::io::Error::last_os_error());
    }
    let [go_read, go_write] = go;
    // The server keeps the mount namespace open until after its call, so that its
    // teardown (which waits for an RCU grace period, ~0.2 ms here) is not the keeper's
    // exit, which the call waits for.
    let mount_namespace = match std::fs::File::open("/proc/self/ns/mnt") {
        Ok(file) => OwnedFd::from(file),
        Err(e) => return Failed::SetUp(e),
    };
    let ready = ReadyInit {
        go_read,
        go_write,
        exec: AtomicPtr::new(std::ptr::null_mut()),
    };
    let mut start = match InitStart::new(namespace, None, Some(&ready)) {
        Ok(start) => start,
        Err(e) => return Failed::SetUp(e),
    };
    // SAFETY: `start` and `ready` live on this frame, which never returns while the
    // init runs: every path below reaps it first or stays as its keeper.
    let init = match unsafe { start.clone_init() } {
        Ok(init) => init,
        Err(e) => return Failed::SetUp(e),
    };
    // SAFETY: close on our own fd (the init keeps its copy).
    unsafe { libc::close(go_read) };
    match read_message(start.status_read) {
        Some((READY_MESSAGE, _)) => {}
        Some((_, errno)) => {
            reap(init);
            return Failed::SetUp(std::io::Error::from_raw_os_error(errno));
        }
        None => {
            reap(init);
            return Failed::SetUp(std::io::Error::other("the init ended before it was ready"));
        }
    }
    let said = send_with_fds(
        control,
        &message(READY_MESSAGE, 0),
        &[mount_namespace.as_raw_fd()],
    );
    drop(mount_namespace);
    let exec = match said
        .and_then(|()| read_frame(&mut StdinOnce))
        .and_then(Frame::into_exec)
    {
        Ok(exec) => Box::leak(Box::new(exec)),
        Err(e) => {
            // No hook (the server let this keeper go: its stdin closed, or sent what it
            // cannot start): the init reads the end of the go pipe and exits, and the
            // server, if it still listens, hears why (a run is never taken for a hook
            // that ran).
            // SAFETY: close on our own fd; the init is reaped before we return.
            unsafe { libc::close(go_write) };
            reap(init);
            return Failed::SetUp(e);
        }
    };
    ready.exec.store(exec, Ordering::SeqCst);
    // SAFETY: write of one byte from a local to our own fd. From here on the keeper
    // allocates nothing: the init and the hook's start share its memory.
    unsafe {
        let byte = 1u8;
        if libc::write(go_write, (&raw const byte).cast(), 1) != 1 {
            let e = std::io::Error::last_os_error();
            libc::close(go_write);
            reap(init);
            return Failed::SetUp(e);
        }
        libc::close(go_write);
        start.watch_start(init, Some(control))
    }
}

/// A ready keeper's hand-over to its init: the init, its `/proc` mounted, waits on the
/// go pipe; the keeper sets `exec` once the call came, then writes one byte (or closes
/// the pipe without one: there is no hook, and the init ends).
pub(super) struct ReadyInit {
    go_read: RawFd,
    go_write: RawFd,
    exec: AtomicPtr<HookExec>,
}

impl ReadyInit {
    /// In the init: waits for the keeper's byte; the hook to start, or `None` (no hook).
    /// Plain syscalls only (the init shares the keeper's memory).
    pub(super) fn wait_for_hook(&self) -> Option<&HookExec> {
        // SAFETY: close and read on the init's own fds, into a local; the pointer was
        // set before the byte was written, to a HookExec the keeper never frees.
        unsafe {
            libc::close(self.go_write);
            let mut byte = 0u8;
            if libc::read(self.go_read, (&raw mut byte).cast(), 1) != 1 {
                return None;
            }
            libc::close(self.go_read);
            self.exec.load(Ordering::SeqCst).as_ref()
        }
    }
}

/// The keeper's stdin, read without std's buffering: the bytes after the frame are the
/// hook's input, and must stay in the pipe.
struct StdinOnce;

impl Read for StdinOnce {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // SAFETY: read into the caller's buffer, at most its length.
        let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(n as usize)
    }
}

/// A hook to start, as the frame carries it.
#[derive(Debug, PartialEq, Eq)]
struct Frame {
    cwd: Vec<u8>,
    argv: Vec<Vec<u8>>,
    env: Vec<Vec<u8>>,
}

impl Frame {
    /// The frame of `argv` with exactly `env`, started in `cwd`: `None` when a NUL byte
    /// in any of them or the size would keep it from starting this way (it then starts
    /// the usual way, which says why it cannot).
    fn encode(argv: &[OsString], env: &[(OsString, OsString)], cwd: &Path) -> Option<Vec<u8>> {
        use std::os::unix::ffi::OsStrExt;
        let mut body = Vec::new();
        body.extend_from_slice(&u32::try_from(argv.len()).ok()?.to_le_bytes());
        body.extend_from_slice(&u32::try_from(env.len()).ok()?.to_le_bytes());
        let mut push = |parts: &[&[u8]]| -> Option<()> {
            for part in parts {
                if part.contains(&0) {
                    return None;
                }
                body.extend_from_slice(part);
            }
            body.push(0);
            Some(())
        };
        push(&[cwd.as_os_str().as_bytes()])?;
        for arg in argv {
            push(&[arg.as_bytes()])?;
        }
        for (key, value) in env {
            push(&[key.as_bytes(), b"=", value.as_bytes()])?;
        }
        if body.len() > MAX_FRAME || argv.is_empty() {
            return None;
        }
        let mut frame = Vec::with_capacity(body.len() + 8);
        frame.extend_from_slice(FRAME_MAGIC);
        frame.extend_from_slice(&u32::try_from(body.len()).ok()?.to_le_bytes());
        frame.extend_from_slice(&body);
        Some(frame)
    }

    /// The hook's exec.
    fn into_exec(self) -> std::io::Result<HookExec> {
        HookExec::from_bytes(self.argv, self.env, Some(self.cwd))
    }
}

/// Reads one frame from `input`, exactly its bytes.
fn read_frame(input: &mut impl Read) -> std::io::Result<Frame> {
    let bad = |why: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string());
    let mut head = [0u8; 8];
    input.read_exact(&mut head)?;
    if &head[..4] != FRAME_MAGIC {
        return Err(bad("not a hook frame"));
    }
    let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
    if !(8..=MAX_FRAME).contains(&len) {
        return Err(bad("a hook frame of a size it cannot have"));
    }
    let mut body = vec![0u8; len];
    input.read_exact(&mut body)?;
    let count =
        |at: usize| u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]]);
    let (argc, envc) = (count(0) as usize, count(4) as usize);
    let mut strings = body[8..].split(|&b| b == 0);
    let mut next = || {
        strings
            .next()
            .map(<[u8]>::to_vec)
            .ok_or_else(|| bad("a short hook frame"))
    };
    let cwd = next()?;
    let argv = (0..argc)
        .map(|_| next())
        .collect::<std::io::Result<Vec<_>>>()?;
    let env = (0..envc)
        .map(|_| next())
        .collect::<std::io::Result<Vec<_>>>()?;
    if argv.is_empty() || body.last() != Some(&0) {
        return Err(bad("a malformed hook frame"));
    }
    Ok(Frame { cwd, argv, env })
}

/// The ready keepers of this process: one kept ready at a time, by a thread of its own,
/// once [`prepare_ahead`] named the binary and a hook's spawn asked for one.
struct ReadyKeepers {
    binary: PathBuf,
    state: Mutex<PoolState>,
    wake: Condvar,
}

#[derive(Default)]
struct PoolState {
    ready: Option<ReadyKeeper>,
    /// Mount namespaces of runs that ended, closed by the pool's thread.
    to_close: Vec<OwnedFd>,
    /// Keepers let go unused (their stdin closed: each ends by itself), reaped by the
    /// pool's thread.
    to_reap: Vec<u32>,
    /// A run was dropped before its keeper ended: the keeper was killed, and its init,
    /// handed to this process (a subreaper), is swept.
    to_sweep: bool,
    /// The thread that makes them runs.
    started: bool,
    /// Making one failed [`ATTEMPTS`] times in a row: the hooks start the usual way from
    /// now on (which says why, where it fails too).
    given_up: bool,
}

/// How many times in a row making a keeper may fail (a limit reached for the moment, a
/// machine too slow for [`READY_DEADLINE`]) before the pool gives up.
const ATTEMPTS: u32 = 3;

/// How often the pool's thread looks whether the host's mounts changed while a keeper
/// waits (it is then made again: its mount namespace is a copy of the host's).
const MOUNTS_LOOKED_AT: Duration = Duration::from_secs(1);

static POOL: OnceLock<ReadyKeepers> = OnceLock::new();

/// Keeps a host hook's namespace ready ahead of its call in this (long-lived) process,
/// made by `binary`, a hookhost binary (its `main` runs [`keeper_main`] on
/// [`KEEPER_ARG`]). The first host hook's spawn starts the first one; until then
/// nothing runs. Later calls change nothing.
pub fn prepare_ahead(binary: PathBuf) {
    let _ = POOL.set(ReadyKeepers {
        binary,
        state: Mutex::new(PoolState::default()),
        wake: Condvar::new(),
    });
}

/// [`prepare_ahead`] by the running binary (`/proc/self/exe`, the file this process was
/// started from, even if its path has been replaced since), for the hookhost binary's
/// own `warm` and `serve`.
pub fn prepare_ahead_by_this_binary() {
    prepare_ahead(PathBuf::from("/proc/self/exe"));
}

impl ReadyKeepers {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The ready keeper, if one is ready (and another is then made once the run has
/// ended); `None` when this process keeps none ([`prepare_ahead`] not called, or
/// making one failed) or the one being made is not ready yet. Never call it with the
/// pool's lock held: a keeper dropped takes it.
pub(crate) fn take() -> Option<ReadyKeeper> {
    let pool = POOL.get()?;
    let mut state = pool.lock();
    if state.given_up {
        return None;
    }
    if !state.started {
        state.started = true;
        let started = std::thread::Builder::new()
            .name("hookhost-namespaces".into())
            .spawn(|| pool_thread(pool));
        if let Err(e) = started {
            tracing::debug!("no thread to make host hooks' namespaces ahead: {e}");
            state.given_up = true;
        }
        return None;
    }
    state.ready.take()
}

/// Asks the pool's thread for the next ready keeper: once the run that took one has
/// ended, so that making it (an exec of this binary, its namespaces) does not compete
/// with the hook for the CPU.
fn refill() {
    if let Some(pool) = POOL.get() {
        let _state = pool.lock();
        pool.wake.notify_one();
    }
}

/// Whether a ready keeper waits now (for tests: the next host hook of this process
/// starts in it).
pub fn is_ready() -> bool {
    POOL.get().is_some_and(|pool| pool.lock().ready.is_some())
}

/// Hands a run's mount namespace to the pool's thread, which closes it (its teardown
/// waits for an RCU grace period: not on a call's way).
fn close_later(mount_namespace: OwnedFd) {
    if let Some(pool) = POOL.get() {
        pool.lock().to_close.push(mount_namespace);
        pool.wake.notify_one();
    }
}

/// Hands a keeper let go unused to the pool's thread, which reaps it.
fn reap_later(pid: u32) {
    match POOL.get() {
        Some(pool) => {
            pool.lock().to_reap.push(pid);
            pool.wake.notify_one();
        }
        None => {
            kill_and_reap_child(pid);
            crate::process::forget(pid);
        }
    }
}

/// The pool's thread: makes a keeper whenever none is ready (and again when the host's
/// mounts changed under one), closes the mount namespaces of runs that ended, and reaps
/// the keepers let go. Runs for the life of the process.
fn pool_thread(pool: &'static ReadyKeepers) {
    let mut failures = 0;
    loop {
        let (to_close, to_reap, to_sweep, stale, make) = {
            let mut state = pool.lock();
            loop {
                let stale = state.ready.as_mut().is_some_and(ReadyKeeper::is_stale);
                let make = state.ready.is_none() && !state.given_up;
                if stale
                    || make
                    || state.to_sweep
                    || !state.to_close.is_empty()
                    || !state.to_reap.is_empty()
                {
                    break;
                }
                state = pool
                    .wake
                    .wait_timeout(state, MOUNTS_LOOKED_AT)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            let stale = state.ready.take_if(|keeper| keeper.is_stale());
            (
                std::mem::take(&mut state.to_close),
                std::mem::take(&mut state.to_reap),
                std::mem::take(&mut state.to_sweep),
                stale,
                state.ready.is_none() && !state.given_up,
            )
        };
        // Outside the lock: a keeper dropped takes it.
        drop(stale);
        drop(to_close);
        for pid in to_reap {
            reap_let_go(pid);
        }
        if to_sweep {
            crate::process::sweep_orphans();
        }
        if !make {
            continue;
        }
        match ReadyKeeper::make(&pool.binary) {
            Ok(keeper) => {
                failures = 0;
                // Only this thread fills the slot, and it was empty; whatever it held
                // is dropped after the lock (a keeper dropped takes it).
                let held = pool.lock().ready.replace(keeper);
                drop(held);
            }
            Err(e) => {
                failures += 1;
                tracing::debug!("making a host hook's namespace ahead failed ({failures}): {e}");
                if failures >= ATTEMPTS {
                    tracing::debug!("host hooks' namespaces are made at each call from now on");
                    pool.lock().given_up = true;
                } else {
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        }
    }
}

/// Reaps a keeper let go unused: its stdin closed, it reaps its init and exits by
/// itself; one that has not within a second (stopped, say) is killed with its group.
fn reap_let_go(pid: u32) {
    let deadline = std::time::Instant::now() + Duration::from_secs(1);
    loop {
        let mut status = 0;
        // SAFETY: waitpid on our own child, WNOHANG, into a local.
        let reaped = unsafe { libc::waitpid(pid as i32, &mut status, libc::WNOHANG) };
        if reaped != 0 {
            break;
        }
        if std::time::Instant::now() >= deadline {
            kill_and_reap_child(pid);
            // Its init, killed with it, is handed to this process (a subreaper).
            crate::process::forget(pid);
            crate::process::sweep_orphans();
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    crate::process::forget(pid);
}

/// A keeper whose namespace is ready: its pid (the leader of its own process group),
/// the hook's three pipes, its line to us, its mount namespace and what tells whether
/// the host's mounts changed since it was made.
pub(crate) struct ReadyKeeper {
    pid: u32,
    /// `None` once taken by [`ReadyKeeper::start`].
    fds: Option<KeeperFds>,
    reaped: bool,
    /// Handed on to a run ([`ReadyRun`] reaps it, and asks for the next).
    handed_on: bool,
    /// The host's mounts changed since it was made ([`ReadyKeeper::is_stale`]).
    stale: bool,
}

struct KeeperFds {
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
    /// A `SOCK_SEQPACKET` socket, non-blocking on our side.
    control: OwnedFd,
    mount_namespace: OwnedFd,
    pidfd: OwnedFd,
    /// `/proc/self/mountinfo`, opened before the keeper was started: it polls as
    /// `POLLPRI` once a mount or unmount happened since.
    mounts: std::fs::File,
}

/// Why a ready keeper did not start the hook.
pub(crate) enum NotStarted {
    /// The hook has not run and may start the usual way.
    Unused,
    /// The hook could not start (as std's spawn would say).
    Failed(std::io::Error),
}

impl ReadyKeeper {
    /// Starts a keeper (from the spawner thread, by `posix_spawn`, in a process group of
    /// its own), hands it the hook's stdio and waits until it says it is ready.
    fn make(binary: &Path) -> std::io::Result<ReadyKeeper> {
        // Before the keeper copies the mounts: a change from here on makes it stale.
        let mounts = std::fs::File::open("/proc/self/mountinfo")?;
        let (control, keeper_line) = socket_pair()?;
        let (stdin_read, stdin) = pipe()?;
        let (stdout, stdout_write) = pipe()?;
        let (stderr, stderr_write) = pipe()?;
        let mut command = std::process::Command::new(binary);
        command
            .arg(KEEPER_ARG)
            .arg(std::process::id().to_string())
            .arg(format!("{:x}", ignored_signals()?))
            .env_clear()
            .current_dir("/")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::from(keeper_line));
        // No `pre_exec` (it would make std fork the server): the keeper sets its own
        // death signal.
        crate::platform::unix::process::own_group(&mut command);
        let child = crate::process::spawn_std(command)?;
        let pid = child.id();
        // Dropped on any failure below: its stdin closes, it ends, the pool reaps it.
        let mut keeper = ReadyKeeper {
            pid,
            fds: None,
            reaped: false,
            handed_on: false,
            stale: false,
        };
        send_with_fds(
            control.as_raw_fd(),
            &[0],
            &[
                stdin_read.as_raw_fd(),
                stdout_write.as_raw_fd(),
                stderr_write.as_raw_fd(),
            ],
        )?;
        drop((stdin_read, stdout_write, stderr_write));
        let mut poll = libc::pollfd {
            fd: control.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let deadline = std::time::Instant::now() + READY_DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            // SAFETY: poll on one pollfd of ours.
            match unsafe { libc::poll(&mut poll, 1, left.as_millis() as i32) } {
                0 => {
                    return Err(std::io::Error::other(
                        "the keeper did not get ready in time",
                    ));
                }
                n if n > 0 => break,
                _ => {
                    let e = std::io::Error::last_os_error();
                    if e.raw_os_error() != Some(libc::EINTR) {
                        return Err(e);
                    }
                }
            }
        }
        let mut bytes = [0u8; 5];
        let mut mount_namespace = [None];
        let n = receive_with_fds(control.as_raw_fd(), &mut bytes, &mut mount_namespace)?;
        match (n, super::parse_message(bytes), mount_namespace) {
            (5, (READY_MESSAGE, _), [Some(mount_namespace)]) => {
                set_nonblocking(&control)?;
                // A kernel without pidfds (before 5.3) cannot wait for a keeper in a
                // call's runtime: making it fails, and after a few the pool gives up.
                let pidfd = pidfd_open(pid)?;
                keeper.fds = Some(KeeperFds {
                    stdin,
                    stdout,
                    stderr,
                    control,
                    mount_namespace,
                    pidfd,
                    mounts,
                });
                Ok(keeper)
            }
            (5, (_, errno), _) => Err(std::io::Error::from_raw_os_error(errno)),
            _ => Err(std::io::Error::other(
                "the keeper ended before it was ready",
            )),
        }
    }

    /// Whether the host's mounts changed since the keeper was made (its namespace's
    /// copy of them would not show the change to the hook). Once said, said for good:
    /// the kernel reports a change to one `poll` only.
    fn is_stale(&mut self) -> bool {
        if self.stale {
            return true;
        }
        let Some(fds) = &self.fds else {
            return true;
        };
        let mut poll = libc::pollfd {
            fd: fds.mounts.as_raw_fd(),
            events: libc::POLLPRI,
            revents: 0,
        };
        // SAFETY: poll, not waiting, on one pollfd of ours.
        self.stale = unsafe { libc::poll(&mut poll, 1, 0) } != 0;
        self.stale
    }

    /// Whether the keeper has ended (killed while it waited): then it is reaped.
    fn has_ended(&mut self) -> bool {
        let mut status = 0;
        // SAFETY: waitpid on our own child, WNOHANG, into a local.
        let pid = unsafe { libc::waitpid(self.pid as i32, &mut status, libc::WNOHANG) };
        if pid == 0 {
            return false;
        }
        self.reaped = true;
        true
    }

    /// Whether the keeper has said anything since it was ready: nothing may come before
    /// the frame, so a keeper that did is not used.
    fn has_spoken(&self) -> bool {
        let Some(fds) = &self.fds else {
            return true;
        };
        let mut byte = 0u8;
        // SAFETY: recv of at most one byte into a local, not waiting, not consuming.
        let n = unsafe {
            libc::recv(
                fds.control.as_raw_fd(),
                (&raw mut byte).cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        n >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EAGAIN)
    }

    /// Starts `argv` with exactly `env` in `cwd` in this keeper's namespace, in the
    /// caller's runtime: the running hook once the keeper says it started (or ended
    /// before it could say: the run then reports how it ended, as a keeper forked for
    /// the hook would), else why not. The caller bounds the wait (the hook's timeout).
    pub(crate) async fn start(
        mut self,
        argv: &[OsString],
        env: &[(OsString, OsString)],
        cwd: &Path,
    ) -> Result<ReadyRun, NotStarted> {
        let Some(frame) = Frame::encode(argv, env, cwd) else {
            return Err(NotStarted::Unused);
        };
        if self.has_ended() || self.is_stale() || self.has_spoken() {
            return Err(NotStarted::Unused);
        }
        let Some(fds) = self.fds.take() else {
            return Err(NotStarted::Unused);
        };
        let KeeperFds {
            stdin,
            stdout,
            stderr,
            control,
            mount_namespace,
            pidfd,
            mounts: _,
        } = fds;
        // The keeper's stdin closes if this returns early: it ends, and is reaped.
        let registered = (
            tokio::net::unix::pipe::Sender::from_owned_fd(stdin),
            tokio::net::unix::pipe::Receiver::from_owned_fd(stdout),
            tokio::net::unix::pipe::Receiver::from_owned_fd(stderr),
            readable_in_this_runtime(control),
            readable_in_this_runtime(pidfd),
        );
        let (Ok(mut stdin), Ok(stdout), Ok(stderr), Ok(control), Ok(pidfd)) = registered else {
            close_later(mount_namespace);
            return Err(NotStarted::Unused);
        };
        // A keeper that cannot have read the whole frame has not started anything.
        if stdin.write_all(&frame).await.is_err() {
            close_later(mount_namespace);
            return Err(NotStarted::Unused);
        }
        // From here the hook may run: the run owns the keeper, and reaps it.
        self.handed_on = true;
        let run = ReadyRun {
            pid: self.pid,
            pidfd,
            stdin: Some(Box::new(stdin)),
            stdout: Some(Box::new(stdout)),
            stderr: Some(Box::new(stderr)),
            mount_namespace: Some(mount_namespace),
            reaped: false,
        };
        match read_message_from(&control).await {
            Some((STARTED_MESSAGE, _)) => Ok(run),
            Some((_, errno)) => Err(NotStarted::Failed(std::io::Error::from_raw_os_error(errno))),
            // The keeper ended without a word (killed: a hook may kill its own group at
            // once): the run waits for it and says how it ended.
            None => Ok(run),
        }
    }
}

impl Drop for ReadyKeeper {
    /// A keeper let go unused: its stdin closes with its fds (it then reaps its init and
    /// exits), and the pool reaps it and makes the next.
    fn drop(&mut self) {
        if self.handed_on {
            return;
        }
        if let Some(fds) = self.fds.take() {
            close_later(fds.mount_namespace);
        }
        if self.reaped {
            crate::process::forget(self.pid);
        } else {
            reap_later(self.pid);
        }
        refill();
    }
}

/// A hook started by a ready keeper, in the runtime that started it.
pub(crate) struct ReadyRun {
    pid: u32,
    pidfd: AsyncFd<OwnedFd>,
    stdin: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    stdout: Option<Box<dyn AsyncRead + Send + Unpin>>,
    stderr: Option<Box<dyn AsyncRead + Send + Unpin>>,
    /// Closed by the pool's thread, after the call ([`close_later`]).
    mount_namespace: Option<OwnedFd>,
    reaped: bool,
}

/// The hook's stdin, stdout and stderr, taken once.
pub(crate) type Pipes = (
    Option<Box<dyn AsyncWrite + Send + Unpin>>,
    Option<Box<dyn AsyncRead + Send + Unpin>>,
    Option<Box<dyn AsyncRead + Send + Unpin>>,
);

impl ReadyRun {
    /// The keeper's pid: the leader of the hook's process group.
    pub(crate) fn id(&self) -> u32 {
        self.pid
    }

    /// The hook's pipes (once).
    pub(crate) fn take_pipes(&mut self) -> Pipes {
        (self.stdin.take(), self.stdout.take(), self.stderr.take())
    }

    /// Waits for the keeper to end, and reaps it: it exits as the hook did.
    pub(crate) async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        use std::os::unix::process::ExitStatusExt;
        loop {
            let mut status = 0;
            // SAFETY: waitpid on our own child, WNOHANG, into a local.
            let pid = unsafe { libc::waitpid(self.pid as i32, &mut status, libc::WNOHANG) };
            if pid == self.pid as i32 {
                self.reaped = true;
                return Ok(std::process::ExitStatus::from_raw(status));
            }
            if pid < 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EINTR) {
                    return Err(e);
                }
                continue;
            }
            let mut ready = self.pidfd.readable().await?;
            ready.clear_ready();
        }
    }
}

impl Drop for ReadyRun {
    fn drop(&mut self) {
        if !self.reaped {
            // Dropped before the keeper ended (its start outlived the hook's time, or
            // the call was given up): its group goes, and its init is swept.
            kill_and_reap_child(self.pid);
            crate::process::forget(self.pid);
            if let Some(pool) = POOL.get() {
                pool.lock().to_sweep = true;
            }
        }
        if let Some(mount_namespace) = self.mount_namespace.take() {
            close_later(mount_namespace);
        }
        refill();
    }
}

/// One message from the keeper's socket; `None` once it has closed.
async fn read_message_from(control: &AsyncFd<OwnedFd>) -> Option<(u8, i32)> {
    loop {
        let mut ready = control.readable().await.ok()?;
        let mut bytes = [0u8; 5];
        // SAFETY: read into a local buffer from our own (non-blocking) fd.
        let n = unsafe { libc::read(control.as_raw_fd(), bytes.as_mut_ptr().cast(), 5) };
        if n == 5 {
            return Some(super::parse_message(bytes));
        }
        let e = std::io::Error::last_os_error();
        if n < 0 && matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EINTR)) {
            ready.clear_ready();
            continue;
        }
        return None;
    }
}

/// `fd`, registered for readiness with the caller's runtime.
fn readable_in_this_runtime(fd: OwnedFd) -> std::io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: an OwnedFd's fd stays open, and the same, for as long as it is owned.
    unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) }
        .map_err(|e| e.into_parts().1)
}

/// A pipe, both ends close-on-exec: (read, write).
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two fds into the local array, which we then own.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// A `SOCK_SEQPACKET` socket pair, both ends close-on-exec: (ours, the keeper's).
fn socket_pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: socketpair writes two fds into the local array, which we then own.
    unsafe {
        if libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

fn set_nonblocking(fd: &OwnedFd) -> std::io::Result<()> {
    // SAFETY: fcntl on our own fd.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Sends `bytes` with `fds` (`SCM_RIGHTS`, at most [`MAX_FDS`]) on the socket `socket`.
/// No allocation.
fn send_with_fds(socket: RawFd, bytes: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    if fds.is_empty() || fds.len() > MAX_FDS {
        return Err(std::io::Error::other("a message carries one to three fds"));
    }
    let fds_len = std::mem::size_of_val(fds) as u32;
    // SAFETY: sendmsg from locals: one iovec over `bytes`, and a control buffer (aligned
    // as cmsghdr) of CMSG_SPACE for the fds, which fits MAX_FDS.
    unsafe {
        let mut space = [0u64; 8];
        let mut iov = libc::iovec {
            iov_base: bytes.as_ptr().cast_mut().cast(),
            iov_len: bytes.len(),
        };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = space.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(fds_len) as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(fds_len) as _;
        let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
        for (i, fd) in fds.iter().enumerate() {
            std::ptr::write_unaligned(data.add(i), *fd);
        }
        if libc::sendmsg(socket, &msg, libc::MSG_NOSIGNAL) != bytes.len() as isize {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The most fds one message carries (the hook's stdio).
const MAX_FDS: usize = 3;

/// Receives into `bytes` on the socket `socket`, and into `fds` the fds sent along
/// (close-on-exec; those beyond `fds` are closed). Blocking unless the socket is not.
fn receive_with_fds(
    socket: RawFd,
    bytes: &mut [u8],
    fds: &mut [Option<OwnedFd>],
) -> std::io::Result<usize> {
    // SAFETY: recvmsg into locals (as in send_with_fds); each fd the kernel put in the
    // control buffer is ours, and taken once.
    unsafe {
        let mut space = [0u64; 8];
        let mut iov = libc::iovec {
            iov_base: bytes.as_mut_ptr().cast(),
            iov_len: bytes.len(),
        };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = space.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&space) as _;
        let n = libc::recvmsg(socket, &mut msg, libc::MSG_CMSG_CLOEXEC);
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        let mut taken = 0;
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
                let bytes = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                for i in 0..bytes / std::mem::size_of::<RawFd>() {
                    let fd = OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i)));
                    match fds.get_mut(taken) {
                        Some(slot) => *slot = Some(fd),
                        None => drop(fd),
                    }
                    taken += 1;
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
        Ok(n as usize)
    }
}

/// A pidfd for our child `pid` (Linux 5.3): readable once it has ended.
fn pidfd_open(pid: u32) -> std::io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes plain integers; the fd it returns is ours.
    unsafe {
        let fd = libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(fd as RawFd))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_reads_back_as_written_and_leaves_what_follows() {
        let argv: Vec<OsString> = vec!["/bin/sh".into(), "-c".into(), "".into()];
        let env: Vec<(OsString, OsString)> = vec![("A".into(), "b=c".into())];
        let mut bytes = Frame::encode(&argv, &env, Path::new("/")).unwrap();
        bytes.extend_from_slice(b"{\"input\":1}\n");
        let mut input = &bytes[..];
        let frame = read_frame(&mut input).unwrap();
        assert_eq!(
            frame,
            Frame {
                cwd: b"/".to_vec(),
                argv: vec![b"/bin/sh".to_vec(), b"-c".to_vec(), Vec::new()],
                env: vec![b"A=b=c".to_vec()],
            }
        );
        assert_eq!(input, b"{\"input\":1}\n");
    }

    #[test]
    fn what_a_frame_cannot_carry_starts_the_usual_way_and_a_bad_frame_is_refused() {
        let nul: Vec<OsString> = vec!["/bin/sh".into(), "a\0b".into()];
        assert_eq!(Frame::encode(&nul, &[], Path::new("/")), None);
        assert_eq!(Frame::encode(&[], &[], Path::new("/")), None);
        let big: Vec<OsString> = vec!["x".repeat(MAX_FRAME).into()];
        assert_eq!(Frame::encode(&big, &[], Path::new("/")), None);
        for bytes in [
            &b"HHK0\x08\0\0\0\0\0\0\0\0\0\0\0"[..],
            &b"HHK1\xff\xff\xff\x7f"[..],
            &b"HHK1\x0a\0\0\0\x05\0\0\0\0\0\0\0/\0"[..],
            &b"HHK1\x08\0\0\0\0\0\0\0\0\0\0\0"[..],
        ] {
            assert!(read_frame(&mut &bytes[..]).is_err(), "{bytes:?}");
        }
    }
}
