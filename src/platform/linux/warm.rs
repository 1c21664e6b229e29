//! The warm server's socket on Linux (docs/contract.md#the-warm-server): a Unix socket in
//! the user's own run folder, the peer's uid and pid from `SO_PEERCRED` (and a pidfd of
//! it from `SO_PEERPIDFD`), whether the peer is traced from `/proc/PID/status`, how it is
//! confined, and the running binary's identity.
//!
//! Nothing here trusts a name: the folder and the socket are `lstat`ed (a link is refused),
//! and must be this user's with no access for anyone else, before a connect.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// Whether this OS has the warm server.
pub(crate) const SUPPORTED: bool = true;

/// One end of a connection: the bridge's or the server's.
pub(crate) type Connection = UnixStream;

/// The server's listening socket.
pub(crate) type Listener = UnixListener;

/// Who is at the other end of a connection, as the kernel saw it at connect time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Peer {
    /// Its effective uid.
    pub(crate) uid: u32,
    /// Its pid.
    pub(crate) pid: u32,
}

/// This process's effective uid.
pub(crate) fn own_uid() -> u32 {
    // SAFETY: geteuid takes nothing and cannot fail.
    unsafe { libc::geteuid() }
}

/// The default socket: `/run/user/UID/hookhost/warm.sock`. Chosen from the uid alone, never
/// from the environment: an agent's settings can set the bridge's environment
/// (docs/threats.md#n11), and a socket it chose would be one it could listen on. `None`
/// when the user has no run folder (no login session made one).
pub(crate) fn default_socket() -> Option<PathBuf> {
    let run = PathBuf::from(format!("/run/user/{}", own_uid()));
    let meta = std::fs::symlink_metadata(&run).ok()?;
    (meta.is_dir() && meta.uid() == own_uid()).then(|| run.join("hookhost").join("warm.sock"))
}

/// Why `folder` may not hold the socket: not a real folder of this user's alone.
fn folder_problem(folder: &Path) -> Option<String> {
    match std::fs::symlink_metadata(folder) {
        Err(e) => Some(format!("{}: {e}", folder.display())),
        Ok(meta) if !meta.is_dir() => Some(format!("{} is not a folder", folder.display())),
        Ok(meta) if meta.uid() != own_uid() => Some(format!(
            "{} belongs to uid {}, not to this user",
            folder.display(),
            meta.uid()
        )),
        Ok(meta) if meta.mode() & 0o077 != 0 => Some(format!(
            "{} is open to other users (mode {:o}); it must be 0700",
            folder.display(),
            meta.mode() & 0o7777
        )),
        Ok(_) => None,
    }
}

/// Connects to the server at `socket` after checking that its folder and the socket are
/// this user's alone. Any failure is an error the bridge answers by running the call
/// itself.
pub(crate) fn connect(socket: &Path) -> io::Result<Connection> {
    let folder = socket.parent().unwrap_or(Path::new("/"));
    if let Some(problem) = folder_problem(folder) {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, problem));
    }
    let meta = std::fs::symlink_metadata(socket)?;
    if !meta.file_type().is_socket() || meta.uid() != own_uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} is not this user's socket", socket.display()),
        ));
    }
    connect_at_once(socket)
}

/// Connects without waiting for room in the server's queue. A blocking `connect` to a
/// Unix socket whose queue is full waits until the server takes a connection: with the
/// server stopped (Ctrl-Z) and its queue filled, the bridge would wait past the agent's
/// timeout, which most agents read as "go ahead". `EAGAIN` here is that full queue.
fn connect_at_once(socket: &Path) -> io::Result<Connection> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    let path = socket.as_os_str().as_bytes();
    // SAFETY: sockaddr_un is plain data; all zeroes is a valid value of it.
    let mut address: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    if path.len() >= address.sun_path.len() || path.contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is too long for a socket's path", socket.display()),
        ));
    }
    address.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (to, from) in address.sun_path.iter_mut().zip(path) {
        *to = *from as libc::c_char;
    }
    // SAFETY: a plain syscall; the fd it returns is owned by the stream made below.
    let fd = unsafe {
        libc::socket(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            0,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a socket this function just made and owns nowhere else.
    let stream = unsafe { UnixStream::from_raw_fd(fd) };
    let length = std::mem::size_of::<libc::sa_family_t>() + path.len() + 1;
    // SAFETY: `address` is a valid sockaddr_un and `length` is within it.
    let rc = unsafe {
        libc::connect(
            fd,
            (&address as *const libc::sockaddr_un).cast(),
            length as libc::socklen_t,
        )
    };
    if rc != 0 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EAGAIN) => io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "the server at {} takes no connection (its queue is full: stopped?)",
                    socket.display()
                ),
            ),
            _ => e,
        });
    }
    stream.set_nonblocking(false)?;
    Ok(stream)
}

/// The peer of `connection`, from `SO_PEERCRED`.
pub(crate) fn peer(connection: &Connection) -> io::Result<Peer> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes of the size given.
    let rc = unsafe {
        libc::getsockopt(
            connection.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Peer {
        uid: cred.uid,
        pid: u32::try_from(cred.pid).unwrap_or(0),
    })
}

/// Whether process `pid` is being traced (`TracerPid` in `/proc/PID/status`), which
/// would let the tracer answer in its place. An unreadable status counts as traced.
pub(crate) fn traced(pid: u32) -> bool {
    let Ok(status) = read_proc(&format!("/proc/{pid}/status")) else {
        return true;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("TracerPid:"))
        .is_none_or(|tracer| tracer.trim() != "0")
}

/// How a process is confined, as far as another process of the same user can see it:
/// the `/proc/PID/status` fields that a sandbox changes (no-new-privileges, seccomp and
/// its filters, capabilities, how deep its pid namespace is) and its namespaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Confinement {
    fields: Vec<(&'static str, String)>,
}

/// The `/proc/PID/status` fields a [`Confinement`] compares. `NSpid` is compared by its
/// depth (the pids differ, the number of namespaces they are seen in must not).
const CONFINING_FIELDS: [&str; 8] = [
    "NoNewPrivs",
    "Seccomp",
    "Seccomp_filters",
    "CapBnd",
    "CapEff",
    "CapPrm",
    "CapAmb",
    "NSpid",
];

/// The namespaces a [`Confinement`] compares (`time` is missing on kernels before 5.6,
/// for both sides alike).
const NAMESPACES: [&str; 8] = ["cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"];

impl Confinement {
    /// What differs in `other` from `self`, named; empty when nothing does.
    pub(crate) fn differences(&self, other: &Confinement) -> Vec<String> {
        self.fields
            .iter()
            .zip(&other.fields)
            .filter(|(a, b)| a != b)
            .map(|((name, own), (_, theirs))| format!("{name} {theirs} (here: {own})"))
            .collect()
    }
}

/// The confinement of process `pid` (`None`: this process). A pid could be another
/// process's by the time it is read: the process's start time is read before and after,
/// and a change is an error.
pub(crate) fn confinement(pid: Option<u32>) -> io::Result<Confinement> {
    let proc = match pid {
        Some(pid) => format!("/proc/{pid}"),
        None => "/proc/self".to_string(),
    };
    let started = start_time(&proc)?;
    let read = confinement_at(&proc, None)?;
    if start_time(&proc)? != started {
        return Err(io::Error::other("the process changed while it was read"));
    }
    Ok(read)
}

/// The confinement of the process at the other end of `connection`, `peer` as read from
/// it. Where the kernel hands out a pidfd of the peer (`SO_PEERPIDFD`, Linux 6.5), that
/// pidfd is the process that connected, whatever its pid names meanwhile: after the
/// reads it is asked whether that process still exists, and a pid is given to another
/// process only once its own has been reaped, so the reads were of the caller (this
/// also closes the window between the connect and the first read, which start times
/// cannot see). Where it does not, [`confinement`] by start times.
pub(crate) fn peer_confinement(connection: &Connection, peer: &Peer) -> io::Result<Confinement> {
    let Some(pidfd) = peer_pidfd(connection)? else {
        return confinement(Some(peer.pid));
    };
    let read = confinement_at(&format!("/proc/{}", peer.pid), Some(&pidfd))?;
    if !still_exists(&pidfd)? {
        return Err(io::Error::other("the process ended while it was read"));
    }
    Ok(read)
}

/// `SO_PEERPIDFD` where its number is known (the generic one, which these architectures
/// use).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const SO_PEERPIDFD: Option<libc::c_int> = Some(77);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const SO_PEERPIDFD: Option<libc::c_int> = None;

/// A pidfd of the process at the other end of `connection`; `None` where the kernel has
/// no `SO_PEERPIDFD` (before Linux 6.5). A peer already gone is an error.
fn peer_pidfd(connection: &Connection) -> io::Result<Option<OwnedFd>> {
    let Some(option) = SO_PEERPIDFD else {
        return Ok(None);
    };
    let mut fd: libc::c_int = -1;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `fd` and `len` are valid for writes of the size given.
    let rc = unsafe {
        libc::getsockopt(
            connection.as_raw_fd(),
            libc::SOL_SOCKET,
            option,
            (&mut fd as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        let error = io::Error::last_os_error();
        return match error.raw_os_error() {
            Some(libc::ENOPROTOOPT) => Ok(None),
            _ => Err(error),
        };
    }
    if fd < 0 {
        return Err(io::Error::other("SO_PEERPIDFD gave no fd"));
    }
    // SAFETY: the kernel just made `fd`, a pidfd this process owns and nothing else holds.
    Ok(Some(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Whether the process of `pidfd` still exists (a zombie does: its pid is still its own).
fn still_exists(pidfd: &OwnedFd) -> io::Result<bool> {
    // SAFETY: signal 0 (none is sent: only the process's existence and the permission are
    // checked), no siginfo, no flags.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            0,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::ESRCH) => Ok(false),
        // It exists, as another user's now (a set-uid program): its reads were its own.
        Some(libc::EPERM) => Ok(true),
        _ => Err(error),
    }
}

/// The confinement read from `proc` (`/proc/PID` or `/proc/self`), with no check that
/// `proc` named one process throughout; its namespaces asked of `pidfd` (the process of
/// `proc`, when one is given) where the kernel answers that ([`namespaces_of`]).
fn confinement_at(proc: &str, pidfd: Option<&OwnedFd>) -> io::Result<Confinement> {
    let status = read_proc(&format!("{proc}/status"))?;
    let mut fields = Vec::with_capacity(CONFINING_FIELDS.len() + NAMESPACES.len());
    for name in CONFINING_FIELDS {
        let value = status
            .lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(':')))
            .map(str::trim)
            .unwrap_or("");
        let value = match name {
            "NSpid" => format!("depth {}", value.split_whitespace().count()),
            _ => value.to_string(),
        };
        fields.push((name, value));
    }
    let namespaces = match pidfd.map(namespaces_of).transpose()? {
        Some(Some(namespaces)) => namespaces,
        _ => namespace_links(proc)?,
    };
    fields.extend(NAMESPACES.into_iter().zip(namespaces));
    Ok(Confinement { fields })
}

/// The process's namespaces as its `/proc/PID/ns` links name them (`mnt:[4026531841]`),
/// in the order of [`NAMESPACES`].
fn namespace_links(proc: &str) -> io::Result<Vec<String>> {
    NAMESPACES
        .iter()
        .map(
            |name| match std::fs::read_link(format!("{proc}/ns/{name}")) {
                Ok(link) => Ok(link.to_string_lossy().into_owned()),
                // A namespace this kernel does not have (a process gone meanwhile is told by
                // its start time, or its pidfd, afterwards).
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::from("none")),
                Err(e) => Err(e),
            },
        )
        .collect()
}

/// The pidfd ioctls that open a process's namespace (`PIDFD_GET_*_NAMESPACE`, Linux
/// 6.11: `_IO(0xFF, n)`), in the order of [`NAMESPACES`].
const NAMESPACE_IOCTLS: [u8; 8] = [1, 2, 3, 4, 5, 7, 9, 10];

/// The namespaces of `pidfd`'s process, named as its `/proc/PID/ns` links name them;
/// `None` where the kernel has no such ioctl (before Linux 6.11).
///
/// Why not the links: the server asks this of every caller, a process it has never
/// looked at, and each first look at a `/proc/PID/ns` link builds its entry (~40 µs of a
/// warm call for the eight, against ~25 through the pidfd, BENCHMARKS.md, twenty-first
/// sitting). The ioctl checks the same access as the link (ptrace read access), and the
/// namespace file it opens has the link's inode number.
fn namespaces_of(pidfd: &OwnedFd) -> io::Result<Option<Vec<String>>> {
    let mut names = Vec::with_capacity(NAMESPACES.len());
    for (name, number) in NAMESPACES.iter().zip(NAMESPACE_IOCTLS) {
        // SAFETY: an ioctl with no argument on a pidfd this process owns.
        let fd = unsafe {
            libc::ioctl(
                pidfd.as_raw_fd(),
                libc::_IO(0xFF, number.into()) as _,
                0 as libc::c_ulong,
            )
        };
        if fd < 0 {
            let error = io::Error::last_os_error();
            match error.raw_os_error() {
                // A namespace this kernel does not have.
                Some(libc::EOPNOTSUPP) => {
                    names.push(String::from("none"));
                    continue;
                }
                // The process is gone.
                Some(libc::ESRCH) => return Err(error),
                // An ioctl this kernel does not know (ENOTTY, EINVAL), or one a seccomp
                // filter or a security module around this server refuses: the links,
                // whose own answer then decides.
                _ if names.is_empty() => return Ok(None),
                _ => return Err(error),
            }
        }
        // SAFETY: the kernel just made `fd`, which nothing else holds.
        let namespace = unsafe { std::fs::File::from_raw_fd(fd) };
        names.push(format!("{name}:[{}]", namespace.metadata()?.ino()));
    }
    Ok(Some(names))
}

/// The text of a `/proc` file, read in one go where it fits a page. `/proc` files say
/// their size is 0, so `read_to_string` starts with a small buffer and doubles it: nine
/// reads for a process's `status`, per call of the warm server on both sides.
fn read_proc(path: &str) -> io::Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut text = Vec::with_capacity(4096);
    let mut filled = 0;
    loop {
        if filled == text.capacity() {
            text.reserve(4096);
        }
        text.resize(text.capacity(), 0);
        match file.read(&mut text[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    text.truncate(filled);
    String::from_utf8(text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Field 22 of `PROC/stat`, the process's start time in clock ticks after boot.
fn start_time(proc: &str) -> io::Result<u64> {
    let stat = read_proc(&format!("{proc}/stat"))?;
    super::process::stat_field(&stat, 22)
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| io::Error::other(format!("{proc}/stat has no start time")))
}

/// Makes this process one that no other process of the user can read or trace
/// (`PR_SET_DUMPABLE` 0), once the server has looked at it.
pub(crate) fn undumpable() {
    // SAFETY: a plain prctl on this process.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// Who this process's binary is: device, inode, size and change time of the image the
/// kernel runs (`/proc/self/exe`, which names the running file even after it is replaced).
pub(crate) fn running_binary() -> io::Result<[u64; 4]> {
    identity(Path::new("/proc/self/exe"))
}

/// Who the file at `path` is now (followed through links): device, inode, size, change
/// time in nanoseconds.
pub(crate) fn identity(path: &Path) -> io::Result<[u64; 4]> {
    let meta = std::fs::metadata(path)?;
    let ctime = (meta.ctime() as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(meta.ctime_nsec() as u64);
    Ok([meta.dev(), meta.ino(), meta.size(), ctime])
}

/// Listens at `socket`: makes its folder (0700, this user's) when missing, refuses a
/// folder that is not this user's alone, and replaces a socket left by a server that is
/// gone. A socket that still answers is another server's: that is an error.
pub(crate) fn listen(socket: &Path) -> io::Result<UnixListener> {
    let folder = socket.parent().unwrap_or(Path::new("/"));
    if std::fs::symlink_metadata(folder).is_err() {
        std::fs::DirBuilder::new().mode(0o700).create(folder)?;
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))?;
    }
    if let Some(problem) = folder_problem(folder) {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, problem));
    }
    if let Ok(meta) = std::fs::symlink_metadata(socket) {
        if !meta.file_type().is_socket() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} exists and is not a socket", socket.display()),
            ));
        }
        let answers = match connect_at_once(socket) {
            Ok(_) => true,
            Err(e) => e.kind() == io::ErrorKind::WouldBlock,
        };
        if answers {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("another server listens at {}", socket.display()),
            ));
        }
        std::fs::remove_file(socket)?;
    }
    UnixListener::bind(socket)
}

/// A future that ends once the other end of `connection` closes (or sends anything: a
/// bridge sends nothing after its call). It waits on `runtime`'s reactor for a copy of
/// the socket and looks with `MSG_PEEK | MSG_DONTWAIT`, so the connection itself stays
/// blocking and unread. Polled by the call's own thread beside its work: no thread and
/// no task per call waits for this (a task's spawn woke a worker thread on every call).
pub(crate) fn closed(
    connection: &Connection,
    runtime: &tokio::runtime::Handle,
) -> io::Result<impl std::future::Future<Output = ()> + Send + 'static + use<>> {
    use std::os::fd::OwnedFd;
    use tokio::io::unix::AsyncFd;
    let watch: OwnedFd = connection.try_clone()?.into();
    let _entered = runtime.enter();
    // SAFETY: `watch` owns its fd, which stays open and the same for as long as the
    // `AsyncFd` holds it (it is dropped with it). The fd stays in blocking mode, which
    // the connection shares: nothing here reads it but the non-blocking peek below.
    let watch = unsafe { AsyncFd::register_with_interest(watch, tokio::io::Interest::READABLE) }?;
    Ok(async move {
        loop {
            let Ok(mut ready) = watch.readable().await else {
                break;
            };
            let mut byte = 0u8;
            // SAFETY: a one-byte peek into a local, on a socket this future owns a copy of.
            let rc = unsafe {
                libc::recv(
                    watch.get_ref().as_raw_fd(),
                    (&mut byte as *mut u8).cast(),
                    1,
                    libc::MSG_PEEK | libc::MSG_DONTWAIT,
                )
            };
            if rc < 0 && io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock {
                ready.clear_ready();
                continue;
            }
            break;
        }
    })
}

/// Whether `e` says the process (or the system) has no file descriptor free.
pub(crate) fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// A path's bytes, as the wire carries them.
pub(crate) fn os_bytes(s: &std::ffi::OsStr) -> &[u8] {
    std::os::unix::ffi::OsStrExt::as_bytes(s)
}

/// A path or argument from the wire's bytes.
pub(crate) fn os_string(bytes: Vec<u8>) -> std::ffi::OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

/// Becomes the program at `program` with `args` (`hookhost-client` starting hookhost):
/// `stdin`, when given, is what it reads on its stdin (the bytes the hand-over read, in a
/// memory file), and the variables `env` names are set. Returns only on failure.
pub(crate) fn run_instead(
    program: &Path,
    args: &[std::ffi::OsString],
    stdin: Option<&[u8]>,
    env: &[(&str, &std::ffi::OsStr)],
) -> io::Result<i32> {
    use std::io::{Seek, Write};
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;
    if let Some(bytes) = stdin {
        // SAFETY: a plain syscall with a NUL-terminated name; the fd it returns is owned
        // by the file made below.
        let fd = unsafe { libc::memfd_create(c"hookhost-stdin".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just made and is owned nowhere else.
        let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
        file.write_all(bytes)?;
        file.rewind()?;
        // SAFETY: plain syscall on two valid fds; the copy at 0 does not close on exec.
        if unsafe { libc::dup2(fd, 0) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Err(std::process::Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .exec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listener whose queue holds one connection, never accepted.
    fn listening_with_no_room(socket: &Path) -> UnixListener {
        let listener = UnixListener::bind(socket).expect("bind");
        // SAFETY: a plain syscall on the listener's own fd.
        assert_eq!(unsafe { libc::listen(listener.as_raw_fd(), 0) }, 0);
        listener
    }

    #[test]
    fn a_connect_to_a_full_queue_fails_at_once() {
        // A stopped server's queue fills up; a blocking connect would then wait for good.
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("s.sock");
        let _listener = listening_with_no_room(&socket);
        let started = std::time::Instant::now();
        let mut held = Vec::new();
        let refused = loop {
            match connect_at_once(&socket) {
                Ok(stream) => held.push(stream),
                Err(e) => break e,
            }
            assert!(held.len() < 64, "the queue never filled");
        };
        assert_eq!(refused.kind(), io::ErrorKind::WouldBlock, "{refused}");
        assert!(
            refused.to_string().contains("its queue is full"),
            "{refused}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn this_process_is_confined_as_itself() {
        let own = confinement(None).expect("own");
        let again = confinement(Some(std::process::id())).expect("by pid");
        assert_eq!(own.differences(&again), Vec::<String>::new());
        assert!(confinement(Some(u32::MAX)).is_err(), "no such process");
    }

    /// Whether this kernel is Linux `version` or later.
    fn kernel_at_least(version: (u32, u32)) -> bool {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let mut parts = release.trim().split(['.', '-']).map(|p| p.parse::<u32>());
        matches!((parts.next(), parts.next()), (Some(Ok(major)), Some(Ok(minor))) if (major, minor) >= version)
    }

    /// Linux 6.5 or later, which has `SO_PEERPIDFD`.
    fn kernel_has_peer_pidfd() -> bool {
        kernel_at_least((6, 5))
    }

    /// A pidfd of process `pid`.
    fn pidfd_of(pid: u32) -> OwnedFd {
        // SAFETY: pidfd_open with no flags; the fd it returns is ours alone.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        assert!(fd >= 0, "pidfd_open: {}", io::Error::last_os_error());
        // SAFETY: as above.
        unsafe { OwnedFd::from_raw_fd(fd as i32) }
    }

    /// A child killed and reaped however the test ends.
    struct Reaped(std::process::Child);

    impl Drop for Reaped {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn namespaces_asked_of_a_pidfd_are_those_its_links_name() {
        // This process, and one in namespaces of its own (`unshare` execs the program in
        // the process it made them in). Unprivileged user namespaces are what the box
        // needs too: a skip here, or a failure under HOOKHOST_REQUIRE_BOX.
        let mut other = Reaped(
            std::process::Command::new("unshare")
                .args([
                    "--user",
                    "--map-root-user",
                    "--mount",
                    "--uts",
                    "--ipc",
                    "--net",
                ])
                .args(["--cgroup", "sleep", "30"])
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("unshare"),
        );
        let own = namespace_links("/proc/self").expect("own links");
        let other_proc = format!("/proc/{}", other.0.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        // `unshare` makes the user namespace first and the others after it: the links
        // are read once every one of them is new (a read between the two steps named
        // the old cgroup namespace beside the new user one).
        let unshared = |links: &[String]| {
            NAMESPACES
                .iter()
                .zip(links.iter().zip(&own))
                .all(|(name, (theirs, ours))| matches!(*name, "pid" | "time") || theirs != ours)
        };
        let theirs = loop {
            if let Some(status) = other.0.try_wait().expect("its status") {
                let why = format!("unshare could not make namespaces here ({status})");
                if std::env::var_os("HOOKHOST_REQUIRE_BOX").is_some_and(|v| !v.is_empty()) {
                    panic!("{why}, and HOOKHOST_REQUIRE_BOX is set");
                }
                eprintln!("SKIPPED namespaces_asked_of_a_pidfd_are_those_its_links_name: {why}");
                return;
            }
            let links = namespace_links(&other_proc).expect("its links");
            if unshared(&links) {
                break links;
            }
            assert!(std::time::Instant::now() < deadline, "never unshared");
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        for (pid, links) in [(std::process::id(), &own), (other.0.id(), &theirs)] {
            match namespaces_of(&pidfd_of(pid)).expect("asked") {
                Some(asked) => assert_eq!(&asked, links, "pid {pid}"),
                None => assert!(!kernel_at_least((6, 11)), "Linux 6.11 has the ioctls"),
            }
        }
        for (name, (ours, theirs)) in NAMESPACES.iter().zip(own.iter().zip(&theirs)) {
            match *name {
                "pid" | "time" => assert_eq!(ours, theirs, "{name}"),
                _ => assert_ne!(ours, theirs, "{name}"),
            }
        }
    }

    #[test]
    fn a_peer_is_read_through_its_pidfd_and_confined_as_itself() {
        let (ours, theirs) = UnixStream::pair().expect("pair");
        let peer = peer(&ours).expect("peer");
        assert_eq!(peer.pid, std::process::id());
        let pidfd = peer_pidfd(&ours).expect("SO_PEERPIDFD");
        assert_eq!(
            pidfd.is_some(),
            kernel_has_peer_pidfd(),
            "a pidfd where the kernel has one"
        );
        if let Some(pidfd) = &pidfd {
            assert!(still_exists(pidfd).expect("asked"), "this process exists");
        }
        let read = peer_confinement(&ours, &peer).expect("read");
        let own = confinement(None).expect("own");
        assert_eq!(own.differences(&read), Vec::<String>::new());
        drop(theirs);
    }

    /// A caller that connected and was gone (reaped) before the server looked at it is
    /// refused: with a pidfd, and by start times alike.
    #[test]
    fn a_caller_gone_before_it_is_looked_at_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("s");
        let listener = UnixListener::bind(&socket).expect("bind");
        // SAFETY: an all-zero sockaddr_un is valid; the path is copied in below.
        let mut address: libc::sockaddr_un = unsafe { std::mem::zeroed() };
        address.sun_family = libc::AF_UNIX as libc::sa_family_t;
        let path = socket.as_os_str().as_encoded_bytes();
        assert!(path.len() < address.sun_path.len());
        for (to, from) in address.sun_path.iter_mut().zip(path) {
            *to = *from as libc::c_char;
        }
        // SAFETY: the child makes only async-signal-safe syscalls (socket, connect, _exit)
        // on memory made before the fork.
        let child = unsafe { libc::fork() };
        assert!(child >= 0, "fork");
        if child == 0 {
            // SAFETY: as above.
            unsafe {
                let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                let connected = libc::connect(
                    fd,
                    (&address as *const libc::sockaddr_un).cast(),
                    std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t,
                );
                libc::_exit(if connected == 0 { 0 } else { 1 });
            }
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        assert_eq!(unsafe { libc::waitpid(child, &mut status, 0) }, child);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "connected"
        );
        let (connection, _) = listener.accept().expect("accept");
        let peer = peer(&connection).expect("peer");
        assert_eq!(peer.pid, u32::try_from(child).unwrap_or(0));
        assert!(
            peer_confinement(&connection, &peer).is_err(),
            "with a pidfd"
        );
        // Had its pid been given to another process before the reads, they would have
        // passed: what refuses then is the pidfd, which still names the caller.
        match peer_pidfd(&connection) {
            Ok(Some(pidfd)) => assert!(!still_exists(&pidfd).expect("asked"), "it is gone"),
            Ok(None) => assert!(!kernel_has_peer_pidfd(), "no pidfd on a kernel with them"),
            // Before pidfs (Linux 6.9) a reaped peer has no pidfd to give.
            Err(_) => {}
        }
        assert!(confinement(Some(peer.pid)).is_err(), "by start times");
    }
}
