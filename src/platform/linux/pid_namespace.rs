//! Linux: a PID namespace (and a `/proc`) of its own for each host hook, entered between
//! fork and exec by a chain of three processes (see [`HookNamespace`]).

use std::sync::{Arc, OnceLock};

mod ready;

use ready::ReadyInit;
pub use ready::{KEEPER_ARG, is_ready, keeper_main, prepare_ahead, prepare_ahead_by_this_binary};
pub(crate) use ready::{NotStarted, Pipes, ReadyRun, take as take_ready};

/// A PID namespace of its own for each host hook, so that it cannot see the agent (the
/// host's parent), read its `/proc/PID/environ` or ptrace it.
///
/// A hook runs as PID 2 of a new PID namespace under a new mount namespace in which a
/// fresh procfs covers `/proc`; everything else (files, network, its uid) is as before.
/// As root the namespaces need no more; as another user they sit in a user namespace
/// that maps only the user's own uid and gid (so set-uid programs such as sudo lose
/// their privilege, and other users' files read as owned by `nobody`).
///
/// `unshare(CLONE_NEWPID)` only moves the caller's later children, so each run is three
/// processes, all in the hook's process group: the *keeper* (the child std forks; the
/// pid the executor waits on, killed with the group) unshares, starts the namespace's
/// *init* (PID 1) and exits as the hook did; the init mounts the new `/proc`, starts the
/// hook (PID 2) and execs it there (`HookExec`), reaps whatever is orphaned inside,
/// and, once the hook has ended, hands its wait status to the keeper and exits, which
/// makes the kernel kill whatever is left in the namespace. The hook is not PID 1, so
/// that `kill $$` and the default actions of signals work in it as they do on the host.
///
/// Only the keeper is a fork (std's). The keeper starts the init in its own memory
/// (`CLONE_VM`, on a stack of the init's), and the init starts the hook as `posix_spawn`
/// does (`CLONE_VM | CLONE_VFORK`: the child borrows the init's memory until its exec).
/// Each fork copies the page tables of the whole (server-sized) process, tears them down
/// again and faults pages back in: the two forks saved are ~0.5 ms of CPU per host hook
/// (BENCHMARKS.md, twelfth sitting). The keeper, the init and the hook's start make only
/// plain syscalls and allocate nothing, so sharing memory with each other is safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookNamespace {
    /// `Some` as a user: the `uid_map` and `gid_map` lines mapping only our own ids.
    user: Option<IdMaps>,
    /// Where this process's environment strings lie (from `/proc/self/stat`): the init
    /// blanks its copy, so that a root hook reading `/proc/1/environ` finds no key.
    env_block: Option<(u64, u64)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct IdMaps {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

/// Why host hooks run without a PID namespace of their own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NoHookNamespace(String);

/// What this process knows of its namespace: set once, by the up-front probe
/// ([`HookNamespace::for_this_process`]) or by the first spawn whose set-up failed for
/// good ([`setup_failure`]), whichever comes first. A limit reached for the moment is
/// never kept.
static KNOWN: OnceLock<Result<HookNamespace, NoHookNamespace>> = OnceLock::new();

/// Marks an error of the set-up between fork and exec (the hook has not run) in the errno
/// that std hands from the child to the spawner, so that [`setup_failure`] can tell it
/// from the program's own exec failing. std passes the child's error as a full 32-bit
/// value; real errnos stay far below this bit.
const SETUP_FAILED: i32 = 1 << 30;

impl HookNamespace {
    /// The namespace this process can give host hooks, tried once per process (a fork
    /// that sets it up and exits); why not when it cannot. A spawn that already found
    /// out (see [`HookNamespace::at_spawn`]) answers without a probe.
    pub fn for_this_process() -> Result<HookNamespace, NoHookNamespace> {
        if let Some(known) = KNOWN.get() {
            return known.clone();
        }
        let ns = HookNamespace::new();
        match ns.probe() {
            Ok(()) => KNOWN.get_or_init(|| Ok(ns)).clone(),
            // A limit reached for the moment says nothing of the next hook's spawn.
            Err(e) if passing(&e) => Err(NoHookNamespace(e.to_string())),
            Err(e) => KNOWN
                .get_or_init(|| Err(NoHookNamespace(e.to_string())))
                .clone(),
        }
    }

    /// The namespace to try at each host hook's own spawn, without the up-front probe
    /// (a fork of this whole process, a fifth of a bridged host hook's call): `Err` only
    /// when this process already knows it cannot make one. A spawn whose set-up fails
    /// before exec says so through [`setup_failure`], and the hook is then started
    /// without it.
    pub fn at_spawn() -> Result<HookNamespace, NoHookNamespace> {
        match KNOWN.get() {
            Some(known) => known.clone(),
            None => Ok(HookNamespace::new()),
        }
    }

    /// Why this process cannot make the namespace, when it knows (a probe or a spawn
    /// found out); `None` when it can or has not tried.
    pub fn known_failure() -> Option<NoHookNamespace> {
        KNOWN.get().and_then(|known| known.clone().err())
    }

    fn new() -> HookNamespace {
        // SAFETY: geteuid and getegid have no preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        HookNamespace {
            user: (uid != 0).then(|| IdMaps {
                uid_map: format!("{uid} {uid} 1\n").into_bytes(),
                gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            }),
            env_block: env_block(),
        }
    }

    /// Whether the namespaces sit in a user namespace (hookhost does not run as root).
    pub fn has_user_namespace(&self) -> bool {
        self.user.is_some()
    }

    /// Sets the namespaces up in a fork and exits there; `Ok` when the hook's side was
    /// reached.
    fn probe(&self) -> std::io::Result<()> {
        // SAFETY: the child only makes async-signal-safe syscalls (enter is written for a
        // forked child) and leaves with _exit; the parent waits for it.
        unsafe {
            let pid = libc::fork();
            if pid < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if pid == 0 {
                let (Failed::SetUp(e) | Failed::Exec(e)) = self.enter(None);
                libc::_exit(e.raw_os_error().unwrap_or(libc::EINVAL).clamp(1, 255));
            }
            let mut status = 0;
            while libc::waitpid(pid, &mut status, 0) < 0 {
                if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                    return Err(std::io::Error::last_os_error());
                }
            }
            match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
                (true, 0) => Ok(()),
                (true, code) => Err(std::io::Error::from_raw_os_error(code)),
                _ => Err(std::io::Error::other("the probe was killed by a signal")),
            }
        }
    }

    /// Run in a forked child between fork and exec (a std `pre_exec` closure): the keeper
    /// and the init never return, and the hook, PID 2 of a fresh PID namespace with its
    /// own `/proc`, is `exec`'s program. Returns only with an error (the keeper's, or the
    /// one the init sent it), which std then reports as the spawn error: a set-up
    /// failure marked so that [`setup_failure`] knows it for the namespace's, the
    /// program's own exec failing as it is. Makes only async-signal-safe syscalls and
    /// allocates nothing.
    fn enter_in_child(&self, exec: &HookExec) -> std::io::Error {
        match self.enter(Some(exec)) {
            Failed::SetUp(e) => {
                let errno = e.raw_os_error().unwrap_or(libc::EINVAL);
                std::io::Error::from_raw_os_error(SETUP_FAILED | errno)
            }
            Failed::Exec(e) => e,
        }
    }

    /// [`HookNamespace::enter_in_child`] with the plain errno; with no `exec` (the probe),
    /// the hook exits 0 at once.
    fn enter(&self, exec: Option<&HookExec>) -> Failed {
        if let Err(e) = self.detach() {
            return Failed::SetUp(e);
        }
        // SAFETY: as in detach: plain syscalls on this (single-threaded, forked) process.
        unsafe { self.start_init(exec) }
    }

    /// The keeper's first steps: dies with its spawner, blocks every signal (the group's
    /// SIGKILL still ends it; the hook gets its mask back before it execs), and unshares
    /// the PID and mount namespaces (and, as a user, the user namespace, with its id
    /// maps) and makes its mounts a slave of the host's. Only async-signal-safe
    /// syscalls, no allocation.
    fn detach(&self) -> std::io::Result<()> {
        use std::io::Error;
        // SAFETY: every call below is a plain syscall on this process's own ids, signal
        // mask and mounts, with pointers to C string literals, buffers owned by `self` or
        // locals on this stack frame.
        unsafe {
            // The keeper dies with the spawner thread, like any hook.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            // The keeper and the init are left alone by signals: the group's SIGKILL
            // ends them, and the hook gets its mask back before it execs.
            let mut all: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
            match &self.user {
                None => {
                    if libc::unshare(libc::CLONE_NEWPID | libc::CLONE_NEWNS) != 0 {
                        return Err(Error::last_os_error());
                    }
                }
                Some(maps) => {
                    // A non-dumpable process's /proc/self files belong to root, so it
                    // could not write its own id maps: dumpable only while it does.
                    libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0);
                    let entered = if libc::unshare(
                        libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS,
                    ) != 0
                    {
                        Err(Error::last_os_error())
                    } else {
                        write_file(c"/proc/self/setgroups", b"deny")
                            .and_then(|()| write_file(c"/proc/self/uid_map", &maps.uid_map))
                            .and_then(|()| write_file(c"/proc/self/gid_map", &maps.gid_map))
                    };
                    libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
                    entered?;
                }
            }
            // Our /proc must not show up on the host; the host's later mounts still
            // reach the hook.
            if libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_SLAVE,
                std::ptr::null(),
            ) != 0
            {
                return Err(Error::last_os_error());
            }
            Ok(())
        }
    }

    /// Starts the init (after [`HookNamespace::detach`]) and, once the hook has started,
    /// stays as its keeper; returns only why the start failed.
    ///
    /// # Safety
    /// Only in the keeper, after `detach`: plain syscalls, no allocation.
    unsafe fn start_init(&self, exec: Option<&HookExec>) -> Failed {
        // SAFETY: the init borrows `start`, on this frame, which outlives it (the keeper
        // waits for it: `watch_start` returns only once it has been reaped, or never).
        unsafe {
            let mut start = match InitStart::new(self, exec, None) {
                Ok(start) => start,
                Err(e) => return Failed::SetUp(e),
            };
            match start.clone_init() {
                Ok(init) => start.watch_start(init, None),
                Err(e) => Failed::SetUp(e),
            }
        }
    }

    /// PID 1 of the hook's namespace: mounts its `/proc`, starts the hook (which execs
    /// `exec`) and says so on `status_write`, reaps until the hook has ended, hands its
    /// status on and exits. Returns only why it could not start the hook.
    ///
    /// # Safety
    /// Only in the init the keeper started ([`init_main`]).
    unsafe fn be_init(
        &self,
        status_write: i32,
        exec: Option<&HookExec>,
        ready: Option<&ReadyInit>,
    ) -> Failed {
        use std::io::Error;
        // SAFETY: as in enter: plain syscalls on this process's own state; the hook's
        // clone borrows this process's memory and stack only until it execs or exits
        // (CLONE_VFORK suspends us until then), on a stack mapped for it.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            if libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            ) != 0
            {
                // Returned to std, which reports it to the spawner as the spawn error.
                return Failed::SetUp(Error::last_os_error());
            }
            // A ready init says so, and waits until the keeper hands it the hook (or
            // closes the go pipe: then there is none, and it ends).
            let exec = match ready {
                None => exec,
                Some(ready) => {
                    send_message(status_write, READY_MESSAGE, 0);
                    match ready.wait_for_hook() {
                        Some(exec) => Some(exec),
                        // No hook: the keeper reaps us and says why.
                        None => libc::_exit(127),
                    }
                }
            };
            let start = HookStart {
                exec,
                status_write,
                exec_errno: std::sync::atomic::AtomicI32::new(0),
            };
            let hook = match clone_on_own_stack(
                HOOK_START_STACK,
                start_hook,
                libc::CLONE_VM | libc::CLONE_VFORK,
                &start,
            ) {
                Ok(hook) => hook,
                Err(e) => return Failed::SetUp(e),
            };
            // The hook has exec'd, or failed to and exited.
            let exec_errno = start.exec_errno.load(std::sync::atomic::Ordering::SeqCst);
            if exec_errno != 0 {
                reap(hook);
                return Failed::Exec(Error::from_raw_os_error(exec_errno));
            }
            send_message(status_write, STARTED_MESSAGE, 0);
            close_all_but(status_write);
            self.blank_env_block();
            let mut hook_status = 0;
            loop {
                let mut status = 0;
                let pid = libc::waitpid(-1, &mut status, 0);
                if pid == hook {
                    hook_status = status;
                    break;
                }
                if pid < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                    break;
                }
            }
            send_message(status_write, ENDED_MESSAGE, hook_status);
            libc::_exit(0)
        }
    }

    /// Overwrites the init's copy of the environment strings with zeros through
    /// `/proc/self/mem` (which fails quietly where the range is not there).
    fn blank_env_block(&self) {
        static ZEROS: [u8; 4096] = [0; 4096];
        let Some((start, end)) = self.env_block else {
            return;
        };
        // SAFETY: open/pwrite/close on /proc/self/mem, from a static buffer; a write
        // that does not fit this process's memory fails with EIO instead of faulting.
        unsafe {
            let fd = libc::open(c"/proc/self/mem".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return;
            }
            let mut at = start;
            while at < end {
                let n = ((end - at) as usize).min(ZEROS.len());
                let wrote = libc::pwrite(fd, ZEROS.as_ptr().cast(), n, at as libc::off_t);
                if wrote <= 0 {
                    break;
                }
                at += wrote as u64;
            }
            libc::close(fd);
        }
    }
}

/// The keeper: waits for the init, then exits as the hook did (or as the init did, if
/// it died first).
///
/// # Safety
/// Only in the forked child made by [`HookNamespace::enter_in_child`].
unsafe fn keep(init: libc::pid_t, status_read: i32) -> ! {
    // SAFETY: plain syscalls on this process's own fds, children and signal state.
    unsafe {
        close_all_but(status_read);
        let mut status = reap(init);
        if let Some((ENDED_MESSAGE, hook_status)) = read_message(status_read) {
            status = hook_status;
        }
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            libc::signal(signal, libc::SIG_DFL);
            let mut only: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut only);
            libc::sigaddset(&mut only, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}

/// Starts `main(arg)` as a child (exit signal SIGCHLD) with `flags`, on a stack of
/// `stack_size` mapped for it (never unmapped: the keeper and the init exit soon after).
///
/// # Safety
/// `arg` must outlive the child's use of it, and `main` must suit `flags` (with
/// `CLONE_VM`, plain syscalls only).
unsafe fn clone_on_own_stack<T>(
    stack_size: usize,
    main: extern "C" fn(*mut libc::c_void) -> libc::c_int,
    flags: libc::c_int,
    arg: &T,
) -> std::io::Result<libc::pid_t> {
    // SAFETY: a fresh anonymous mapping, and clone onto its top with the caller's
    // promise about `arg` and `main`.
    unsafe {
        let stack = libc::mmap(
            std::ptr::null_mut(),
            stack_size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
            -1,
            0,
        );
        if stack == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let pid = libc::clone(
            main,
            stack.cast::<u8>().add(stack_size).cast(),
            flags | libc::SIGCHLD,
            (arg as *const T).cast_mut().cast(),
        );
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(pid)
    }
}

/// Waits for the child `pid` (the keeper's init, the init's hook start): its wait status, or exits 127 when it
/// cannot be waited for.
fn reap(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    // SAFETY: waitpid on our own child, into a local.
    unsafe {
        while libc::waitpid(pid, &mut status, libc::__WALL) < 0 {
            if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(127);
            }
        }
    }
    status
}

/// The init's messages to the keeper on the status pipe: a tag and a number.
const STARTED_MESSAGE: u8 = 0;
/// The set-up failed (the number is the errno): the hook has not run.
const SETUP_FAILED_MESSAGE: u8 = 1;
/// The hook's program could not be executed (the number is the errno).
const EXEC_FAILED_MESSAGE: u8 = 2;
/// The hook ended (the number is its wait status).
const ENDED_MESSAGE: u8 = 3;
/// A ready init has its `/proc` and waits for the hook ([`ReadyInit`]).
const READY_MESSAGE: u8 = 4;

/// One message's bytes: its tag, then its number.
fn message(tag: u8, number: i32) -> [u8; 5] {
    let mut bytes = [tag; 5];
    bytes[1..].copy_from_slice(&number.to_ne_bytes());
    bytes
}

/// A message's tag and number.
fn parse_message(bytes: [u8; 5]) -> (u8, i32) {
    let number = i32::from_ne_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]);
    (bytes[0], number)
}

/// Writes one message (5 bytes, one write: a pipe writes it whole).
fn send_message(fd: i32, tag: u8, number: i32) {
    let bytes = message(tag, number);
    // SAFETY: write from a local buffer to our own fd.
    unsafe {
        libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    }
}

/// Reads one message; `None` at the end of the pipe (its writer gone).
fn read_message(fd: i32) -> Option<(u8, i32)> {
    let mut bytes = [0u8; 5];
    // SAFETY: read into a local buffer from our own fd.
    let read = unsafe { libc::read(fd, bytes.as_mut_ptr().cast(), bytes.len()) };
    (read == 5).then(|| parse_message(bytes))
}

/// The stack the init runs on (its frames, the hook's start state).
const INIT_STACK: usize = 256 * 1024;

/// What the keeper hands the init, on the keeper's stack (alive while it waits).
struct InitStart<'a> {
    namespace: &'a HookNamespace,
    status_read: i32,
    status_write: i32,
    exec: Option<&'a HookExec>,
    ready: Option<&'a ReadyInit>,
}

impl<'a> InitStart<'a> {
    /// The init's start, with its status pipe.
    fn new(
        namespace: &'a HookNamespace,
        exec: Option<&'a HookExec>,
        ready: Option<&'a ReadyInit>,
    ) -> std::io::Result<InitStart<'a>> {
        let mut pipe = [0; 2];
        // SAFETY: pipe2 writes two fds into the local array.
        if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let [status_read, status_write] = pipe;
        Ok(InitStart {
            namespace,
            status_read,
            status_write,
            exec,
            ready,
        })
    }

    /// Starts the init (see [`HookNamespace::be_init`]), and closes the keeper's copy of
    /// the status pipe's write end.
    ///
    /// The init shares this process's memory (as the hook's start shares the init's): a
    /// fork would copy the page tables of the whole server-sized process once more. It
    /// runs on a stack of its own, reads only what `self` holds (alive while the keeper
    /// waits for it), and says how its start went on the status pipe, since it cannot
    /// return into std as a fork could.
    ///
    /// # Safety
    /// `self` must outlive the init: the keeper waits for it ([`InitStart::watch_start`]).
    unsafe fn clone_init(&mut self) -> std::io::Result<libc::pid_t> {
        // SAFETY: init_main suits CLONE_VM (plain syscalls), and the caller keeps `self`
        // alive while the init runs.
        unsafe {
            let init = clone_on_own_stack(INIT_STACK, init_main, libc::CLONE_VM, &*self);
            libc::close(self.status_write);
            init
        }
    }

    /// Waits for the init's word on the hook's start: on a failure, reaps the init and
    /// returns why; once the hook runs (or the init died first), says so on `started`
    /// when given, then waits and exits as the hook did ([`keep`]).
    ///
    /// # Safety
    /// Only in the keeper, with the init it started.
    unsafe fn watch_start(&self, init: libc::pid_t, started: Option<i32>) -> Failed {
        use std::io::Error;
        // SAFETY: plain syscalls on this process's fds and children.
        unsafe {
            match read_message(self.status_read) {
                // Back to std (or the server), which reports it as the spawn error.
                Some((SETUP_FAILED_MESSAGE, errno)) => {
                    reap(init);
                    Failed::SetUp(Error::from_raw_os_error(errno))
                }
                Some((EXEC_FAILED_MESSAGE, errno)) => {
                    reap(init);
                    Failed::Exec(Error::from_raw_os_error(errno))
                }
                // A ready keeper's server hears of the start only once the hook runs:
                // an init that died first is a failed start, never a run.
                Some((STARTED_MESSAGE, _)) if started.is_some() => {
                    if let Some(fd) = started {
                        send_message(fd, STARTED_MESSAGE, 0);
                    }
                    keep(init, self.status_read)
                }
                _ if started.is_some() => {
                    reap(init);
                    Failed::SetUp(Error::other(
                        "the namespace's init ended before the hook started",
                    ))
                }
                // Started (or the init died first): wait, and exit as the hook did.
                _ => keep(init, self.status_read),
            }
        }
    }
}

/// The init, in the keeper's memory ([`HookNamespace::be_init`]); what stopped its start
/// goes to the keeper as a message.
extern "C" fn init_main(start: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `start` is the keeper's InitStart, alive until the keeper has reaped us;
    // be_init makes only async-signal-safe syscalls.
    unsafe {
        let start = &*start.cast::<InitStart>();
        libc::close(start.status_read);
        let (tag, error) =
            match start
                .namespace
                .be_init(start.status_write, start.exec, start.ready)
            {
                Failed::SetUp(e) => (SETUP_FAILED_MESSAGE, e),
                Failed::Exec(e) => (EXEC_FAILED_MESSAGE, e),
            };
        let errno = error.raw_os_error().unwrap_or(libc::EINVAL);
        send_message(start.status_write, tag, errno);
        127
    }
}

/// Why the keeper's or the init's set-up stopped: its own set-up (the hook has not run),
/// or the hook's program could not be executed.
enum Failed {
    SetUp(std::io::Error),
    Exec(std::io::Error),
}

/// The stack the hook's start runs on until its exec: `execvpe`'s frames, and a script
/// without `#!` given to `/bin/sh` with its arguments on the stack.
const HOOK_START_STACK: usize = 256 * 1024;

/// What a hook execs, made before the fork (the child may not allocate): its program
/// (absolute), its arguments and exactly its environment, as C strings with their
/// pointer arrays; and, for a ready keeper's hook, the folder it starts in (std's spawn
/// sets it otherwise, before the keeper runs).
pub(crate) struct HookExec {
    _strings: Vec<std::ffi::CString>,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    cwd: Option<std::ffi::CString>,
}

// SAFETY: the pointers point into `_strings`' heap buffers, owned by the same value,
// never written, and freed only with it.
unsafe impl Send for HookExec {}
// SAFETY: as for Send: shared reads of immutable C strings.
unsafe impl Sync for HookExec {}

impl HookExec {
    /// `argv` (its first element the program, as std would exec it) with exactly `env`;
    /// an error for a NUL byte in any of them, as std's spawn gives.
    pub(crate) fn new(
        argv: &[std::ffi::OsString],
        env: &[(std::ffi::OsString, std::ffi::OsString)],
    ) -> std::io::Result<HookExec> {
        use std::os::unix::ffi::OsStrExt;
        let argv = argv.iter().map(|a| a.as_bytes().to_vec());
        let env = env.iter().map(|(key, value)| {
            let mut pair = key.as_bytes().to_vec();
            pair.push(b'=');
            pair.extend_from_slice(value.as_bytes());
            pair
        });
        HookExec::from_bytes(argv.collect(), env.collect(), None)
    }

    /// `argv` with exactly `env` (each `KEY=VALUE`), started in `cwd` when given; an
    /// error for a NUL byte in any of them.
    fn from_bytes(
        argv: Vec<Vec<u8>>,
        env: Vec<Vec<u8>>,
        cwd: Option<Vec<u8>>,
    ) -> std::io::Result<HookExec> {
        let c = |bytes: Vec<u8>| {
            std::ffi::CString::new(bytes).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "nul byte found in provided data",
                )
            })
        };
        if argv.is_empty() {
            return Err(std::io::Error::other("the command is empty"));
        }
        let argc = argv.len();
        let strings = argv
            .into_iter()
            .chain(env)
            .map(c)
            .collect::<std::io::Result<Vec<_>>>()?;
        let cwd = cwd.map(c).transpose()?;
        let pointers = |list: &[std::ffi::CString]| {
            let mut out: Vec<*const libc::c_char> = list.iter().map(|s| s.as_ptr()).collect();
            out.push(std::ptr::null());
            out
        };
        let (args, vars) = strings.split_at(argc);
        let (argv, envp) = (pointers(args), pointers(vars));
        Ok(HookExec {
            _strings: strings,
            argv,
            envp,
            cwd,
        })
    }
}

/// What the init hands the hook's start: what it execs, the status pipe it must not
/// keep, and where it leaves the errno of a failed exec (the init's memory, which the
/// start shares).
struct HookStart<'a> {
    exec: Option<&'a HookExec>,
    status_write: i32,
    exec_errno: std::sync::atomic::AtomicI32,
}

/// The hook, PID 2, in the init's memory until its exec: gives the hook its signal mask
/// back, makes it die with the init and execs it (as std would have: `execvpe`, so that
/// a script without `#!` runs under `/bin/sh` as it did). With no program (the probe),
/// exits 0.
extern "C" fn start_hook(start: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `start` is the init's HookStart, alive while the init is suspended in
    // clone (CLONE_VFORK); only async-signal-safe syscalls are made here.
    unsafe {
        let start = &*start.cast::<HookStart>();
        libc::close(start.status_write);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        let Some(exec) = start.exec else {
            return 0;
        };
        // A ready keeper's hook starts in its folder here (std's spawn set the keeper's
        // otherwise); a folder it cannot enter fails its start, as with std.
        let entered = match &exec.cwd {
            Some(cwd) => libc::chdir(cwd.as_ptr()) == 0,
            None => true,
        };
        // Its stdio and nothing else, however the keeper was started.
        super::process::mark_close_on_exec_above_stdio();
        if entered {
            libc::execvpe(exec.argv[0], exec.argv.as_ptr(), exec.envp.as_ptr());
        }
        let errno = *libc::__errno_location();
        start
            .exec_errno
            .store(errno.max(1), std::sync::atomic::Ordering::SeqCst);
        127
    }
}

/// Writes `bytes` to the file `path` (one write, as the id-map files want).
fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> std::io::Result<()> {
    // SAFETY: open/write/close with a C string literal and a borrowed buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let wrote = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let result = if wrote == bytes.len() as isize {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        };
        libc::close(fd);
        result
    }
}

/// Closes every fd but `keep` (stdio included): the keeper and the init must not hold
/// the hook's pipes, nor std's exec-error pipe, open.
fn close_all_but(keep: i32) {
    // SAFETY: close_range and close on fds of this process.
    unsafe {
        let keep = keep.max(0) as u32;
        let low = keep == 0 || libc::syscall(libc::SYS_close_range, 0u32, keep - 1, 0u32) == 0;
        let high = libc::syscall(libc::SYS_close_range, keep + 1, u32::MAX, 0u32) == 0;
        if !(low && high) {
            // Before Linux 5.9.
            for fd in (0..1 << 16).filter(|&fd| fd != keep as i32) {
                libc::close(fd);
            }
        }
    }
}

/// Where this process's environment strings lie: fields 50 and 51 of `/proc/self/stat`
/// (`env_start`, `env_end`, Linux 3.5+).
fn env_block() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let field = |n| super::process::stat_field(&stat, n)?.parse().ok();
    let start = field(50)?;
    let end = field(51)?;
    (start < end).then_some((start, end))
}

/// Whether `error`, from spawning a command made by [`enter_before_exec`], is the
/// namespace's set-up failing before exec (the hook has not run) in a process that had
/// not found out yet whether it can make one: then why, and this process remembers it,
/// so that its later host hooks start without trying (and the start-up warnings,
/// [`HookNamespace::for_this_process`], say so), as a failed probe did; a limit reached
/// for the moment ([`passing`]) is not remembered, so only this hook starts without the
/// namespace and the next spawn tries again. `None` for any
/// other error, the program's own exec failing included, and where the namespace is
/// known to work: a set-up that fails there (a namespace limit reached in a burst) fails
/// the run as before, rather than running that hook without its namespace.
pub(crate) fn setup_failure(error: &std::io::Error) -> Option<NoHookNamespace> {
    let code = error.raw_os_error()?;
    if code & SETUP_FAILED == 0 {
        return None;
    }
    let error = std::io::Error::from_raw_os_error(code & !SETUP_FAILED);
    let why = NoHookNamespace(error.to_string());
    if passing(&error) {
        // This hook starts without it, and the next spawn tries again: a process that
        // lives for many calls (`serve`, `hookhost warm`) must not keep a limit reached
        // once in a burst as what it knows for good.
        return match KNOWN.get() {
            Some(known) => known.clone().err(),
            None => Some(why),
        };
    }
    KNOWN.get_or_init(|| Err(why)).clone().err()
}

/// Whether a namespace's set-up failed for the moment only: a limit of namespaces or
/// memory reached (`ENOSPC`, `EUSERS`, `EAGAIN`, `ENOMEM`), not a missing permission or
/// kernel feature.
fn passing(error: &std::io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::ENOSPC | libc::EUSERS | libc::EAGAIN | libc::ENOMEM)
    )
}

/// A spawn of a command made by [`enter_before_exec`] succeeded. When it entered
/// `namespace` (this process did not know it failed), the namespace works: the process
/// remembers that, as a probe that succeeded did.
pub(crate) fn made(namespace: &HookNamespace) {
    let _ = KNOWN.get_or_init(|| Ok(namespace.clone()));
}

/// Makes `command`'s child enter `namespace` and exec `argv` there with exactly `env`
/// (see [`HookNamespace::enter_in_child`]): `command` must run the same. std's own exec
/// is not reached (the init execs the hook); what std does before its `pre_exec`
/// closures (stdio, the working folder, the process group, the signal dispositions) is
/// inherited.
pub(crate) fn enter_before_exec(
    command: &mut std::process::Command,
    namespace: Arc<HookNamespace>,
    argv: &[std::ffi::OsString],
    env: &[(std::ffi::OsString, std::ffi::OsString)],
) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let exec = HookExec::new(argv, env)?;
    // SAFETY: enter_in_child is written for the forked child before exec: it makes
    // only async-signal-safe syscalls and allocates nothing.
    unsafe {
        command.pre_exec(move || Err(namespace.enter_in_child(&exec)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_reached_for_the_moment_is_not_what_a_process_knows_for_good() {
        let error = |errno| std::io::Error::from_raw_os_error(errno);
        for errno in [libc::ENOSPC, libc::EUSERS, libc::EAGAIN, libc::ENOMEM] {
            assert!(passing(&error(errno)), "{errno}");
        }
        for errno in [libc::EPERM, libc::EACCES, libc::EINVAL, libc::ENOSYS] {
            assert!(!passing(&error(errno)), "{errno}");
        }
        // A spawn's transient set-up failure starts that hook without the namespace, and
        // leaves what the process knew as it was.
        let before = KNOWN.get().cloned();
        let tagged = error(SETUP_FAILED | libc::ENOSPC);
        match &before {
            Some(Ok(_)) => assert!(setup_failure(&tagged).is_none()),
            _ => assert!(setup_failure(&tagged).is_some()),
        }
        // (Another test's spawn may have made it known meanwhile; never as this failure.)
        let kept = NoHookNamespace(error(libc::ENOSPC).to_string());
        assert_ne!(KNOWN.get().cloned(), Some(Err(kept)));
    }
}
