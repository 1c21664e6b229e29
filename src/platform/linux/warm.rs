//! The warm server's socket on Linux (docs/contract.md#the-warm-server): a Unix socket in
//! the user's own run folder, the peer's uid and pid from `SO_PEERCRED`, whether the peer
//! is traced from `/proc/PID/status`, and the running binary's identity.
//!
//! Nothing here trusts a name: the folder and the socket are `lstat`ed (a link is refused),
//! and must be this user's with no access for anyone else, before a connect.

use std::io;
use std::os::fd::AsRawFd;
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
    UnixStream::connect(socket)
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
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return true;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("TracerPid:"))
        .is_none_or(|tracer| tracer.trim() != "0")
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
        if UnixStream::connect(socket).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("another server listens at {}", socket.display()),
            ));
        }
        std::fs::remove_file(socket)?;
    }
    UnixListener::bind(socket)
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
