//! Linux's box: bubblewrap, with a seccomp filter and Landlock write rules; where
//! `sandbox = true` argv hooks (and `hookhost box -- CMD`) run on Linux (see
//! [`crate::sandbox`] for the OS-neutral face).
//!
//! The box is the same one the agent's bash and exec commands run in: it can read
//! widely, write only where the agent's commands can, and has no network and no
//! provider key. [`BoxSpec::command`] builds the `bwrap` command line:
//!
//! - the whole filesystem read-only (`--ro-bind / /`), a fresh `/dev` and `/proc`;
//! - the private temp folder as `/tmp`, then the project and each writable folder bound
//!   writable at their own (canonical) paths;
//! - hidden paths covered after those binds: a folder by an empty `--tmpfs`, a file by
//!   `--ro-bind /dev/null FILE` (opening it fails with EACCES: bwrap's binds are
//!   `nodev`). A hidden path is resolved through symlinks first, so a
//!   `~/.ssh` that is a link hides its target. A hidden path that does not exist is
//!   skipped when it lies outside every writable folder (the read-only root stops its
//!   creation); inside a writable folder, its first missing component gets an empty
//!   read-only tmpfs so that it cannot be created in the box. **Side effect:** bwrap
//!   creates that component on the host as an empty folder (the mount point), once.
//! - `/proc/sys` and `/proc/sysrq-trigger` read-only (why root needs this is
//!   said at `ISOLATION`);
//! - its own user, PID, IPC, network and UTS namespaces, `--new-session` (no TIOCSTI into the
//!   host terminal), `--die-with-parent`, `--cap-drop ALL`, `--chdir` the project root;
//! - a seccomp filter (`seccomp.rs` here) that allows only `AF_INET`, `AF_INET6`
//!   and `AF_NETLINK` sockets (no Unix-domain, vsock, packet, Bluetooth… socket) and
//!   refuses io_uring and the TIOCSTI/TIOCLINUX ioctls, handed to bwrap as `--seccomp FD`
//!   from a fresh memfd for each command;
//! - when the spec names an entry point (`BoxSpec::entry`), Landlock write rules
//!   (`landlock.rs` here): bwrap runs the entry point, handed in as an fd, which
//!   confines writes to the writable folders, `/tmp` and the box's `/dev` (so no host
//!   FIFO can be opened for writing) and then execs the command. Where the kernel has no
//!   Landlock the command runs without it;
//! - exactly the environment the caller gives, set on the `Command` (never as
//!   `--setenv` arguments, which any host process could read in `/proc/PID/cmdline`).
//!   bwrap adds one variable itself: `PWD`, the project root;
//! - no inherited fds but stdio: every other fd is made close-on-exec in the child, so
//!   a host fd someone left inheritable (a socket, a pipe) never reaches the box (the
//!   entry point's own fd is closed on its exec of the command).
//!
//! What it hides by default ([`default_hidden`]) follows every home [`Homes`] knows:
//! `$HOME` and the real user's home in the password database.
//!
//! # Lifetime: spawn from a long-lived thread
//!
//! `--die-with-parent` is `PR_SET_PDEATHSIG`, which fires when the *thread* that forked
//! bwrap exits, not the process. A box spawned from a short-lived thread (a Tokio
//! blocking-pool or worker thread) is killed when that thread goes away. Callers must
//! spawn every box from one dedicated, long-lived spawner thread (the argv executor
//! does). bwrap arms that signal only once it runs, after exec; a spawner thread that
//! ends within that window leaves the box following whichever thread inherits it (the
//! race of bubblewrap PR #730) — one more reason for a long-lived spawner. Killing bwrap (SIGKILL to its process group) ends everything in the box: the
//! box's PID 1 dies with its parent and the kernel then kills the whole PID namespace,
//! including children that called `setsid` or double-forked.
//!
//! # One command, one spawn
//!
//! Each [`BoxSpec::command`] owns its own memfd. Spawn the returned `Command` once: its
//! `pre_exec` rewinds the memfd, but two overlapping spawns would share its offset.
//!
//! # Where bwrap cannot run
//!
//! [`probe`] finds bwrap (on an absolute `PATH` entry outside the project, or the
//! `HOOKHOST_BWRAP` override) and runs it once with the box's flags on `true`. When that
//! fails it returns [`Unavailable`], whose text says why and what to do. Nothing here
//! ever runs a command unsandboxed in place of the box.
//!
//! # Known limits
//!
//! Abstract Unix sockets are per network namespace, so `--unshare-net` already keeps the
//! host's out of reach; the seccomp filter closes pathname sockets. Without Landlock
//! (an old kernel, or no entry point) a host FIFO the box can see can be written. `.git` is not
//! protected from writes (the project is writable as a whole, as for the agent's own
//! commands). The box runs any program it is given; the path guard lives elsewhere.

mod landlock;
mod seccomp;

pub use landlock::{box_entry_main, landlock_abi, prepare_carried_entry, running_binary};

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::paths;
use crate::platform::unix::box_paths::{Resolver, absolute, canonical_dir};
use crate::platform::unix::trial::{TrialFailure, trial_run};
use crate::sandbox::{BoxProgram, BoxSpec, SandboxError, Unavailable};

/// This OS has a box (bubblewrap).
pub const EXISTS_ON_THIS_OS: bool = true;

/// What the box is called in messages.
pub const NAME: &str = "bubblewrap";

/// The environment variable that names the bwrap binary, overriding the `PATH` search.
/// The caller reads it and passes its value to [`crate::sandbox::probe`].
pub const PROGRAM_ENV: &str = "HOOKHOST_BWRAP";

/// The box's namespaces, session, capabilities and base mounts: every box starts with
/// these, and [`probe`] tries exactly them.
///
/// Why `/proc/sys` is bound read-only: a box started by root maps its uid 0 to the real
/// uid 0, and the kernel lets any process whose euid is the global root write the 0644
/// sysctls, capabilities or not. Without the cover, a hook run as root could rewrite the
/// host's `kernel.core_pattern` (a program run as real root at the next crash) or its
/// hostname. bwrap's own cover of `/proc/sys` is skipped when its `access(W_OK)` test
/// fails, which it does for root. The bind is locked in the box's user namespace, so a
/// nested namespace can neither lift it nor mount a fresh procfs next to it (the
/// kernel's "fully visible" rule). Its own UTS namespace keeps hostname changes inside.
const ISOLATION: &[&str] = &[
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-net",
    "--unshare-uts",
    "--new-session",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/proc/sysrq-trigger",
    "/proc/sysrq-trigger",
];

/// The box signals its hook's death as bwrap's exit status 128 + the signal.
pub(crate) const REPORTS_SIGNALS_AS_EXIT_CODES: bool = true;

/// A std Command that runs `argv` in the bubblewrap box `spec` with exactly `env` (see
/// [`BoxSpec::command`]); its `pre_exec` installs the seccomp fd.
pub(crate) fn command(
    spec: &BoxSpec,
    argv: &[OsString],
    env: &[(OsString, OsString)],
) -> Result<Command, SandboxError> {
    let filter = seccomp::memfd().map_err(SandboxError::Seccomp)?;
    let entry = match &spec.entry {
        Some(path) => Some(open_entry(path)?),
        None => None,
    };
    let entry_fd = entry.as_ref().map(AsRawFd::as_raw_fd);
    let args = spec.bwrap_args(filter.as_raw_fd(), entry_fd, argv)?;
    let mut cmd = Command::new(&spec.program);
    cmd.args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)));
    // SAFETY: the closure runs in the forked child before exec and makes only
    // async-signal-safe syscalls (close_range, fcntl, lseek); it allocates nothing
    // and touches no lock.
    unsafe {
        cmd.pre_exec(move || pass_on_exec(&filter, entry.as_ref()));
    }
    Ok(cmd)
}

impl BoxSpec {
    /// bwrap's arguments for running `argv` in this box, reading the seccomp filter from
    /// `seccomp_fd` and, when `entry_fd` is given, running the entry point open there
    /// first (`/proc/self/fd/N BOX_ENTRY_ARG ROOT… -- ARGV`, the roots being the box's
    /// writable folders). [`BoxSpec::command`] passes its own fds; this is public so
    /// that the argument list can be shown and tested.
    pub fn bwrap_args(
        &self,
        seccomp_fd: i32,
        entry_fd: Option<i32>,
        argv: &[OsString],
    ) -> Result<Vec<OsString>, SandboxError> {
        let project = canonical_dir("the project", &self.project)?;
        let private_tmp = canonical_dir("the private temp folder", &self.private_tmp)?;
        let mut writable = Vec::new();
        for w in &self.writable {
            absolute("a writable folder", w)?;
            // A writable folder that does not exist (yet) is left out: the box is then
            // stricter, never looser.
            match std::fs::canonicalize(w) {
                Ok(c) => writable.push(c),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(SandboxError::Path {
                        what: "a writable folder",
                        path: w.clone(),
                        source,
                    });
                }
            }
        }

        let mut a = Args(Vec::new());
        a.flags(ISOLATION);
        a.two("--bind", &private_tmp, "/tmp");
        a.two("--bind", &project, &project);
        for w in &writable {
            a.two("--bind", w, w);
        }

        let mut roots: Vec<&Path> = vec![Path::new("/tmp"), &project];
        roots.extend(writable.iter().map(PathBuf::as_path));
        // Two homes (`$HOME` and the real one) may lead to the same place: cover it once.
        // A set: ~80 hidden paths compared pairwise, component by component, were half
        // of this function's time (BENCHMARKS.md, fifteenth sitting).
        let mut covered: HashSet<OsString> = HashSet::new();
        let mut resolver = Resolver::default();
        for h in &self.hide {
            absolute("a hidden path", h)?;
            let resolved = resolver.resolve(h).map_err(|source| SandboxError::Path {
                what: "a hidden path",
                path: h.clone(),
                source,
            })?;
            if !covered.insert(resolved.as_os_str().to_owned()) {
                continue;
            }
            match std::fs::metadata(&resolved) {
                Ok(m) if m.is_dir() => a.pair("--tmpfs", &resolved),
                Ok(_) => a.two("--ro-bind", "/dev/null", &resolved),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if roots.iter().any(|r| resolved.starts_with(r)) {
                        let first = first_missing(&resolved);
                        a.pair("--tmpfs", &first);
                        a.pair("--remount-ro", &first);
                    }
                }
                Err(source) => {
                    return Err(SandboxError::Path {
                        what: "a hidden path",
                        path: h.clone(),
                        source,
                    });
                }
            }
        }

        a.pair("--seccomp", seccomp_fd.to_string());
        a.pair("--chdir", &project);
        a.0.push("--".into());
        match entry_fd {
            Some(fd) => {
                a.0.push(format!("/proc/self/fd/{fd}").into());
                let roots: Vec<PathBuf> = roots.iter().map(|r| r.to_path_buf()).collect();
                a.0.extend(landlock::entry_args(&roots, argv));
            }
            None => a.0.extend(argv.iter().cloned()),
        }
        Ok(a.0)
    }
}

/// Opens the box's entry point for [`BoxSpec::command`]: read-only, close-on-exec (the
/// child clears that flag on this one fd), above stdio.
fn open_entry(path: &Path) -> Result<OwnedFd, SandboxError> {
    let err = |source| SandboxError::Path {
        what: "the box's entry point",
        path: path.to_owned(),
        source,
    };
    absolute("the box's entry point", path)?;
    if let Some(carried) = landlock::entry_fd_for(path) {
        return Ok(carried);
    }
    let file = std::fs::File::open(path).map_err(err)?;
    let fd = OwnedFd::from(file);
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // A host started with a closed stdio fd would hand out 0..2, which the child's
    // stdio setup overwrites before exec: move it up.
    // SAFETY: F_DUPFD_CLOEXEC on an fd we own returns a new fd (or -1).
    let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if moved < 0 {
        return Err(err(io::Error::last_os_error()));
    }
    // SAFETY: `moved` is a fresh fd that nothing else owns; the old one drops here.
    Ok(unsafe { OwnedFd::from_raw_fd(moved) })
}

/// Run in the child between fork and exec: mark every inherited fd above stdio
/// close-on-exec (a host fd left open without that flag, a socket to the agent say, must
/// not reach the box), then let the seccomp memfd (rewound for bwrap) and the entry
/// point's fd alone survive exec.
fn pass_on_exec(filter: &OwnedFd, entry: Option<&OwnedFd>) -> io::Result<()> {
    let fd = filter.as_raw_fd();
    let entry_fd = entry.map(AsRawFd::as_raw_fd);
    // SAFETY: close_range, getrlimit, fcntl and lseek are plain syscalls on fds and
    // limits of this process; all are async-signal-safe and allocate nothing.
    unsafe {
        let all = libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
        if all != 0 {
            // Before Linux 5.11: walk the fd table up to the soft limit (capped).
            let mut lim = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
                lim.rlim_cur.min(1 << 16) as libc::c_int
            } else {
                1 << 16
            };
            for other in 3..top {
                let flags = libc::fcntl(other, libc::F_GETFD);
                if flags >= 0 {
                    libc::fcntl(other, libc::F_SETFD, flags | libc::FD_CLOEXEC);
                }
            }
        }
        for keep in [Some(fd), entry_fd].into_iter().flatten() {
            let flags = libc::fcntl(keep, libc::F_GETFD);
            if flags < 0 || libc::fcntl(keep, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        if libc::lseek(fd, 0, libc::SEEK_SET) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// An argument list under construction.
struct Args(Vec<OsString>);

impl Args {
    fn flags(&mut self, flags: &[&str]) {
        self.0.extend(flags.iter().map(OsString::from));
    }
    fn pair(&mut self, flag: &str, v: impl AsRef<OsStr>) {
        self.0.push(flag.into());
        self.0.push(v.as_ref().to_owned());
    }
    fn two(&mut self, flag: &str, src: impl AsRef<OsStr>, dest: impl AsRef<OsStr>) {
        self.pair(flag, src);
        self.0.push(dest.as_ref().to_owned());
    }
}

/// The shortest prefix of `path` that does not exist.
fn first_missing(path: &Path) -> PathBuf {
    let mut first = path.to_owned();
    for a in path.ancestors() {
        if std::fs::symlink_metadata(a).is_ok() {
            break;
        }
        first = a.to_owned();
    }
    first
}

const ADVICE_INSTALL: &str = "Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap) or set HOOKHOST_BWRAP to its absolute path, or write the hooks as WASM hooks, which need no bubblewrap.";
const ADVICE_USERNS: &str = "bubblewrap needs unprivileged user namespaces: allow them with `sysctl -w kernel.unprivileged_userns_clone=1` (Debian) and, on Ubuntu 24.04 and later, `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile that grants bwrap `userns,`; in a container, allow user namespaces (Docker's default seccomp profile forbids them). Or write the hooks as WASM hooks, which need no bubblewrap.";

fn unavailable(reason: impl Into<String>, advice: &str) -> Unavailable {
    Unavailable {
        sandbox: NAME,
        reason: reason.into(),
        advice: advice.to_owned(),
    }
}

/// The kernel settings that decide whether bubblewrap can make its namespaces as a
/// user; a memo of a passed trial names their values (`sandbox::trial_memo`).
pub(crate) const TRIAL_SETTINGS: &[&str] = &[
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

/// Finds bwrap.
///
/// `bwrap_override` is the value of `HOOKHOST_BWRAP` if set (it must be absolute);
/// otherwise bwrap is looked up on `path_env`, using only absolute entries outside
/// `project` (and refusing a `bwrap` that resolves into the project).
pub(crate) fn find(
    bwrap_override: Option<&Path>,
    path_env: Option<&OsStr>,
    project: &Path,
) -> Result<BoxProgram, Unavailable> {
    Ok(BoxProgram {
        path: find_bwrap(bwrap_override, path_env, project)?,
    })
}

/// Runs bwrap once, with the box's flags, on `true` (the project plays no part).
pub(crate) fn trial(found: &BoxProgram, _project: &Path) -> Result<(), Unavailable> {
    let bwrap = &found.path;
    let mut cmd = Command::new(bwrap);
    let filter = seccomp::memfd().map_err(|e| {
        unavailable(
            format!("its seccomp filter could not be prepared: {e}"),
            ADVICE_USERNS,
        )
    })?;
    cmd.args(ISOLATION)
        .args([
            "--tmpfs",
            "/tmp",
            "--seccomp",
            &filter.as_raw_fd().to_string(),
            "--chdir",
            "/",
            "--",
            "true",
        ])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: as in `BoxSpec::command`: only async-signal-safe syscalls before exec.
    unsafe {
        cmd.pre_exec(move || pass_on_exec(&filter, None));
    }
    match trial_run(&mut cmd) {
        Ok(()) => Ok(()),
        Err(TrialFailure::Spawn(e)) => Err(unavailable(
            format!("{} could not be started: {e}", bwrap.display()),
            ADVICE_INSTALL,
        )),
        Err(TrialFailure::TooSlow) => Err(unavailable(
            "bwrap did not finish a trial run within 10 s",
            ADVICE_USERNS,
        )),
        Err(TrialFailure::Wait(e)) => Err(unavailable(
            format!("waiting for bwrap failed: {e}"),
            ADVICE_USERNS,
        )),
        Err(TrialFailure::Failed(status, said)) => Err(unavailable(
            format!("a trial run of bwrap failed with {status}: {said}"),
            ADVICE_USERNS,
        )),
    }
}

fn find_bwrap(
    bwrap_override: Option<&Path>,
    path_env: Option<&OsStr>,
    project: &Path,
) -> Result<PathBuf, Unavailable> {
    if let Some(p) = bwrap_override {
        if !p.is_absolute() {
            return Err(unavailable(
                format!("{PROGRAM_ENV} is not an absolute path: {}", p.display()),
                ADVICE_INSTALL,
            ));
        }
        return match std::fs::canonicalize(p) {
            Ok(c) if paths::is_executable_file(&c) => Ok(c),
            _ => Err(unavailable(
                format!("bwrap was not found at {} ({PROGRAM_ENV})", p.display()),
                ADVICE_INSTALL,
            )),
        };
    }
    let Some(path_env) = path_env else {
        return Err(unavailable(
            "bwrap was not found: PATH is not set",
            ADVICE_INSTALL,
        ));
    };
    let project_canon = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
    let in_project = |p: &Path| p.starts_with(project) || p.starts_with(&project_canon);
    for (_, dir) in paths::path_dirs(path_env, None) {
        if in_project(&dir) {
            continue;
        }
        let Ok(c) = std::fs::canonicalize(dir.join("bwrap")) else {
            continue;
        };
        if paths::is_executable_file(&c) && !in_project(&c) {
            return Ok(c);
        }
    }
    Err(unavailable("bwrap was not found on PATH", ADVICE_INSTALL))
}
