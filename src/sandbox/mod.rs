//! The bubblewrap box: where `sandbox = true` argv hooks (and `hookhost box -- CMD`) run.
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
//! - a seccomp filter (`src/sandbox/seccomp.rs`) that allows only `AF_INET`, `AF_INET6`
//!   and `AF_NETLINK` sockets (no Unix-domain, vsock, packet, Bluetooth… socket) and
//!   refuses io_uring and the TIOCSTI/TIOCLINUX ioctls, handed to bwrap as `--seccomp FD`
//!   from a fresh memfd for each command;
//! - when the spec names an entry point (`BoxSpec::entry`), Landlock write rules
//!   (`src/sandbox/landlock.rs`): bwrap runs the entry point, handed in as an fd, which
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
//! # The private temp folder
//!
//! [`create_private_tmp`] makes a session's `/tmp` and holds a `flock` on it for the
//! session's life ([`PrivateTmp`]); a session killed before its end leaves the folder
//! unlocked, and the next one removes it ([`sweep_private_tmps`]), never a live
//! session's, another user's or anything not named like ours.
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

mod home;
mod landlock;
mod seccomp;

pub use home::Homes;
pub use landlock::{
    BOX_ENTRY_ARG, Restriction, box_entry_main, landlock_abi, restrict_writes, running_binary,
};

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use crate::paths;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable that names the bwrap binary, overriding the `PATH` search.
/// The caller reads it and passes its value to [`probe`].
pub const BWRAP_ENV: &str = "HOOKHOST_BWRAP";

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

/// How long [`probe`] waits for `bwrap … true`.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What the box is made of. Every path must be absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxSpec {
    /// The project root: writable, and the working directory.
    pub project: PathBuf,
    /// Extra folders the agent's commands may write (`[sandbox] writable`, `--writable`).
    pub writable: Vec<PathBuf>,
    /// The host folder mounted as `/tmp` (see [`create_private_tmp`]).
    pub private_tmp: PathBuf,
    /// Paths the box hides (`[sandbox] hide`, else [`default_hidden`]).
    pub hide: Vec<PathBuf>,
    /// The bwrap binary, from [`probe`].
    pub bwrap: PathBuf,
    /// The box's entry point: a hookhost binary (or any program whose `main` calls
    /// [`box_entry_main`] when its first argument is [`BOX_ENTRY_ARG`]), which bwrap runs
    /// first to confine writes with Landlock before it execs the command. It is opened
    /// by [`BoxSpec::command`] and handed in as an fd, so it may live where the box
    /// cannot see. The command line passes `/proc/self/exe`. `None`: the command runs
    /// without Landlock, and the box can write into host FIFOs it can see.
    pub entry: Option<PathBuf>,
}

/// A bwrap that [`probe`] found and ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BwrapInfo {
    /// Its absolute, canonical path.
    pub path: PathBuf,
}

/// Why this session has no sandbox, and what the user can do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bubblewrap cannot run here ({reason}), so this session has no sandbox: every hook runs on the host. {advice}"
)]
pub struct Unavailable {
    /// What went wrong, e.g. "bwrap was not found on PATH".
    pub reason: String,
    /// What to do about it.
    pub advice: String,
}

/// Building the box failed (before anything ran).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A path in the spec is relative.
    #[error("the sandbox needs absolute paths, and {what} is not: {}", path.display())]
    NotAbsolute {
        /// Which path ("the project", "a hidden path", …).
        what: &'static str,
        /// The path as given.
        path: PathBuf,
    },
    /// A path in the spec could not be resolved.
    #[error("{what} {} cannot be used: {source}", path.display())]
    Path {
        /// Which path.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The seccomp filter could not be prepared.
    #[error("could not prepare the sandbox's seccomp filter: {0}")]
    Seccomp(#[source] io::Error),
    /// The private temp folder could not be created.
    #[error("could not create a private temp folder in {}: {source}", dir.display())]
    PrivateTmp {
        /// The folder it was to be created in.
        dir: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The credential folders and files under `home` hidden when `[sandbox] hide` is
/// absent: common tools' and the agents' own (their login tokens). [`Homes`] applies it
/// to every home the session knows.
pub fn default_hidden(home: &Path) -> Vec<PathBuf> {
    [
        ".ssh",
        ".aws",
        ".gnupg",
        ".config/gcloud",
        ".docker",
        ".kube",
        ".netrc",
        ".claude",
        ".codex",
        ".gemini",
        ".config/gh",
        ".config/anthropic",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
    ]
    .iter()
    .map(|p| home.join(p))
    .collect()
}

impl BoxSpec {
    /// A std Command that runs `argv` in the box with exactly `env` as its environment
    /// (the caller scrubbed it). stdin/stdout/stderr, process group and the spawner
    /// thread are the caller's business; this sets program, args, env, and a pre_exec
    /// that installs the seccomp fd.
    ///
    /// `hookhost box -- CMD ARGS…` uses this too, so it runs commands in the very box a
    /// sandboxed hook gets.
    pub fn command(
        &self,
        argv: &[OsString],
        env: &[(OsString, OsString)],
    ) -> Result<Command, SandboxError> {
        let filter = seccomp::memfd().map_err(SandboxError::Seccomp)?;
        let entry = match &self.entry {
            Some(path) => Some(open_entry(path)?),
            None => None,
        };
        let entry_fd = entry.as_ref().map(AsRawFd::as_raw_fd);
        let args = self.bwrap_args(filter.as_raw_fd(), entry_fd, argv)?;
        let mut cmd = Command::new(&self.bwrap);
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
        let mut covered: Vec<PathBuf> = Vec::new();
        for h in &self.hide {
            absolute("a hidden path", h)?;
            let resolved = paths::resolve(h).map_err(|source| SandboxError::Path {
                what: "a hidden path",
                path: h.clone(),
                source,
            })?;
            if covered.contains(&resolved) {
                continue;
            }
            covered.push(resolved.clone());
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

fn absolute(what: &'static str, path: &Path) -> Result<(), SandboxError> {
    if path.is_absolute() {
        Ok(())
    } else {
        Err(SandboxError::NotAbsolute {
            what,
            path: path.to_owned(),
        })
    }
}

fn canonical_dir(what: &'static str, path: &Path) -> Result<PathBuf, SandboxError> {
    absolute(what, path)?;
    let err = |source| SandboxError::Path {
        what,
        path: path.to_owned(),
        source,
    };
    let c = std::fs::canonicalize(path).map_err(err)?;
    if !c.is_dir() {
        return Err(err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a folder",
        )));
    }
    Ok(c)
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
        reason: reason.into(),
        advice: advice.to_owned(),
    }
}

/// Find bwrap and run it once, with the box's flags, on `true`.
///
/// `bwrap_override` is the value of `HOOKHOST_BWRAP` if set (it must be absolute);
/// otherwise bwrap is looked up on `path_env`, using only absolute entries outside
/// `project` (and refusing a `bwrap` that resolves into the project).
pub fn probe(
    bwrap_override: Option<&Path>,
    path_env: Option<&OsStr>,
    project: &Path,
) -> Result<BwrapInfo, Unavailable> {
    let bwrap = find_bwrap(bwrap_override, path_env, project)?;
    let mut cmd = Command::new(&bwrap);
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
    let mut child = cmd.spawn().map_err(|e| {
        unavailable(
            format!("{} could not be started: {e}", bwrap.display()),
            ADVICE_INSTALL,
        )
    })?;
    let deadline = Instant::now() + PROBE_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(unavailable(
                    "bwrap did not finish a trial run within 10 s",
                    ADVICE_USERNS,
                ));
            }
            Err(e) => {
                return Err(unavailable(
                    format!("waiting for bwrap failed: {e}"),
                    ADVICE_USERNS,
                ));
            }
        }
    };
    if status.success() {
        return Ok(BwrapInfo { path: bwrap });
    }
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = io::Read::read_to_string(&mut e, &mut stderr);
    }
    let said = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .trim();
    Err(unavailable(
        format!("a trial run of bwrap failed with {status}: {said}"),
        ADVICE_USERNS,
    ))
}

fn find_bwrap(
    bwrap_override: Option<&Path>,
    path_env: Option<&OsStr>,
    project: &Path,
) -> Result<PathBuf, Unavailable> {
    if let Some(p) = bwrap_override {
        if !p.is_absolute() {
            return Err(unavailable(
                format!("{BWRAP_ENV} is not an absolute path: {}", p.display()),
                ADVICE_INSTALL,
            ));
        }
        return match std::fs::canonicalize(p) {
            Ok(c) if paths::is_executable_file(&c) => Ok(c),
            _ => Err(unavailable(
                format!("bwrap was not found at {} ({BWRAP_ENV})", p.display()),
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

/// The name of a session's private temp folder ends with this (after
/// `hookhost-SESSION-RANDOM`). No folder made before the lock existed has it, and a
/// folder being set up (`….new`) does not have it yet, so [`sweep_private_tmps`] never
/// looks at either.
const PRIVATE_TMP_SUFFIX: &str = ".tmp";

/// A session's private temp folder: made by [`create_private_tmp`], held (an exclusive
/// `flock` on the folder itself) for as long as this value lives, and removed with its
/// contents when it is dropped.
///
/// The lock is the proof that the session is alive: a session killed before it could
/// remove its folder leaves it unlocked, and the next [`create_private_tmp`] removes it
/// (see [`sweep_private_tmps`]). Why the folder itself holds the lock: in the box it is
/// the mount point of `/tmp`, so the agent can neither remove nor replace it (a lock
/// file inside could be unlinked, one beside it would be one more entry to race over);
/// its descriptor is close-on-exec, so no hook inherits it.
#[derive(Debug)]
pub struct PrivateTmp {
    path: PathBuf,
    /// The open folder whose `flock` marks the session alive.
    _lock: std::fs::File,
}

impl PrivateTmp {
    /// The folder (canonical).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::ops::Deref for PrivateTmp {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for PrivateTmp {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl PartialEq for PrivateTmp {
    fn eq(&self, other: &PrivateTmp) -> bool {
        self.path == other.path
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        // Removed while still locked, so no sweep can take it for a stale one meanwhile.
        remove_tree(&self.path);
    }
}

/// Create a fresh private temp folder (mode 0700) for a session, under the system temp
/// folder (`$TMPDIR`, else `/tmp`), named `hookhost-SESSION-RANDOM.tmp`, and lock it for
/// the session's life. Dropping the value removes it. First removes the folders that
/// sessions killed before their end left there ([`sweep_private_tmps`]).
pub fn create_private_tmp(session_id: &str) -> Result<PrivateTmp, SandboxError> {
    let dir = std::env::temp_dir();
    let fail = |source| SandboxError::PrivateTmp {
        dir: dir.clone(),
        source,
    };
    if !dir.is_absolute() {
        return Err(fail(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the temp folder is not an absolute path",
        )));
    }
    sweep_private_tmps(&dir);
    let mut tag: String = session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(64)
        .collect();
    if tag.is_empty() {
        tag = "session".into();
    }
    let mut last = io::Error::other("no attempt made");
    for _ in 0..16 {
        let mut rnd = [0u8; 8];
        getrandom::fill(&mut rnd).map_err(|e| fail(io::Error::other(e.to_string())))?;
        let name = format!("hookhost-{tag}-{}", hex::encode(rnd));
        // Made and locked under a name the sweep ignores, then renamed (the lock stays
        // with the folder): a concurrent start never sees it unlocked.
        let setup = dir.join(format!("{name}.new"));
        let path = dir.join(format!("{name}{PRIVATE_TMP_SUFFIX}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&setup) {
            Ok(()) => {
                let locked = lock_new_folder(&setup, &path);
                if locked.is_err() {
                    let _ = std::fs::remove_dir(&setup);
                }
                let lock = locked.map_err(fail)?;
                return match std::fs::canonicalize(&path) {
                    Ok(canonical) => Ok(PrivateTmp {
                        path: canonical,
                        _lock: lock,
                    }),
                    Err(e) => {
                        remove_tree(&path);
                        Err(fail(e))
                    }
                };
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(fail(e)),
        }
    }
    Err(fail(last))
}

/// Sets 0700 on the new folder `setup`, locks it and renames it to `path`; returns the
/// open, locked folder.
fn lock_new_folder(setup: &Path, path: &Path) -> io::Result<std::fs::File> {
    // The umask may have removed bits the owner needs; set 0700 exactly.
    std::fs::set_permissions(setup, std::fs::Permissions::from_mode(0o700))?;
    let folder = open_folder(setup)?;
    match folder.try_lock() {
        Ok(()) => {}
        // A file system without `flock` (some network ones) refuses it to every
        // process alike, so no sweep can take it either: the folder is only never
        // swept. Nobody else can hold a lock on a folder made a moment ago.
        Err(std::fs::TryLockError::Error(_)) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(io::Error::other("the new folder is locked by someone else"));
        }
    }
    rename_no_replace(setup, path)?;
    Ok(folder)
}

/// Removes the private temp folders in `dir` whose session is gone, and returns them.
///
/// A folder is removed only when all of these hold: its name is exactly
/// `hookhost-TAG-HEX.tmp` (TAG 1–64 of `A-Za-z0-9_-`, HEX 16 lowercase hex digits); it is
/// a folder, not a link, owned by this process's user; and its `flock` can be taken,
/// which no live session allows (each holds it until its folder is gone). The lock is
/// held while it is removed, and the path is checked to still be the folder locked.
/// Anything else (another name, another user's folder, a live session's) is left alone.
/// Best effort: what cannot be read or removed stays.
pub fn sweep_private_tmps(dir: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_private_tmp_name) {
            continue;
        }
        let path = entry.path();
        let ours = |m: &std::fs::Metadata| m.is_dir() && m.uid() == me;
        let Ok(seen) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !ours(&seen) {
            continue;
        }
        let Ok(folder) = open_folder(&path) else {
            continue;
        };
        if folder.try_lock().is_err() {
            continue; // a live session holds it (or the lock cannot be taken here)
        }
        let (Ok(locked), Ok(now)) = (folder.metadata(), std::fs::symlink_metadata(&path)) else {
            continue;
        };
        if !ours(&locked) || (locked.dev(), locked.ino()) != (now.dev(), now.ino()) {
            continue;
        }
        remove_tree(&path);
        removed.push(path);
    }
    removed
}

/// Whether `name` is exactly a private temp folder's: `hookhost-TAG-HEX.tmp`.
fn is_private_tmp_name(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("hookhost-")
        .and_then(|r| r.strip_suffix(PRIVATE_TMP_SUFFIX))
    else {
        return false;
    };
    let Some((tag, hex)) = rest.rsplit_once('-') else {
        return false;
    };
    (1..=64).contains(&tag.len())
        && tag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && hex.len() == 16
        && hex.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'))
}

/// Opens a folder itself (not a link to one), close-on-exec, for its `flock`.
fn open_folder(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// `rename(from, to)`, failing rather than replacing an existing `to`.
fn rename_no_replace(from_path: &Path, to_path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))
    };
    let (from, to) = (c(from_path)?, c(to_path)?);
    // SAFETY: two valid NUL-terminated paths that outlive the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        // A kernel or file system without RENAME_NOREPLACE: a plain rename when `to` is
        // absent (one appearing in between would have to guess 64 random bits).
        Some(libc::EINVAL | libc::ENOSYS) if std::fs::symlink_metadata(to_path).is_err() => {
            std::fs::rename(from_path, to_path)
        }
        _ => Err(error),
    }
}

/// Removes a folder and everything in it, best effort. What the agent left read-only
/// (a Go module cache makes its folders 0555) is made writable on the way, so that it
/// can be emptied; links are removed, never followed.
fn remove_tree(path: &Path) {
    if std::fs::remove_dir_all(path).is_ok() {
        return;
    }
    fn open_up(path: &Path) {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return;
        };
        if !meta.is_dir() {
            return;
        }
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700));
        if let Ok(entries) = std::fs::read_dir(path) {
            for entry in entries.flatten() {
                open_up(&entry.path());
            }
        }
    }
    open_up(path);
    let _ = std::fs::remove_dir_all(path);
}

impl crate::executor::argv::Launcher for BoxSpec {
    /// The box sets its own working directory (the project root), so `cwd` is unused.
    ///
    /// A bwrap that ran at start and is gone now (uninstalled mid-session) is said to be
    /// the cause: otherwise the spawn's "not found" would read as the hook's program.
    fn command(
        &self,
        argv: &[OsString],
        env: &[(OsString, OsString)],
        _cwd: &Path,
    ) -> io::Result<Command> {
        if !paths::is_executable_file(&self.bwrap) {
            return Err(io::Error::other(format!(
                "bubblewrap ({}) ran when the session started but cannot be run now, so the hook cannot run in its sandbox; restart the session",
                self.bwrap.display()
            )));
        }
        BoxSpec::command(self, argv, env).map_err(io::Error::other)
    }

    /// bwrap exits 128 + the signal when the hook is killed by one.
    fn reports_signals_as_exit_codes(&self) -> bool {
        true
    }
}
