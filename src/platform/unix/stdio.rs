//! POSIX: `serve`'s fds 0 and 1 put on the runtime's event loop when they are pipes or
//! Unix sockets, and their file status flags put back afterwards (see
//! [`crate::serve`]'s `stdio`).
//!
//! Non-blocking mode belongs to the open file description, which the other holders of
//! the same pipe end share; [`FoundFlags`] puts back the flags serve found when it is
//! dropped, after the last answer.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use tokio::io::{AsyncRead, AsyncWrite};

/// The input half.
pub type Input = Box<dyn AsyncRead + Unpin + Send>;
/// The output half.
pub type Output = Box<dyn AsyncWrite + Unpin + Send>;

/// The file status flags of fds 0 and 1 as serve found them, put back (blocking mode,
/// for whoever else holds them) when this is dropped.
pub struct FoundFlags(Vec<(i32, i32)>);

impl FoundFlags {
    /// Nothing to put back.
    pub(crate) fn none() -> FoundFlags {
        FoundFlags(Vec::new())
    }

    /// Puts the flags back now.
    pub(crate) fn restore(self) {
        drop(self);
    }
}

impl Drop for FoundFlags {
    fn drop(&mut self) {
        // Last changed, first restored: fds 0 and 1 may share one description (a
        // socket), whose flags were found blocking first and non-blocking second.
        for &(fd, flags) in self.0.iter().rev() {
            set_flags(fd, flags);
        }
    }
}

/// Fds 0 and 1 as event-loop streams, each `None` when it is neither a pipe nor a Unix
/// socket and `Some(Err)` when the reactor would not take it, with the flags of those
/// examined as found (to be put back whatever happens next). Must run inside a runtime
/// with I/O enabled.
pub(crate) fn on_event_loop() -> (
    Option<io::Result<Input>>,
    Option<io::Result<Output>>,
    FoundFlags,
) {
    let mut found = Vec::new();
    let input = fd_on_event_loop(io::stdin().as_fd(), &mut found, |stream| {
        Ok(match stream {
            Stream::Pipe(fd) => {
                Box::new(tokio::net::unix::pipe::Receiver::from_owned_fd(fd)?) as Input
            }
            Stream::Socket(socket) => Box::new(tokio::net::UnixStream::from_std(socket)?),
        })
    });
    let output = fd_on_event_loop(io::stdout().as_fd(), &mut found, |stream| {
        Ok(match stream {
            Stream::Pipe(fd) => {
                Box::new(tokio::net::unix::pipe::Sender::from_owned_fd(fd)?) as Output
            }
            Stream::Socket(socket) => Box::new(tokio::net::UnixStream::from_std(socket)?),
        })
    });
    (input, output, FoundFlags(found))
}

/// A stream the reactor can drive.
enum Stream {
    Pipe(OwnedFd),
    Socket(std::os::unix::net::UnixStream),
}

/// `fd` made into an event-loop stream by `convert`, its flags as found pushed onto
/// `found` (whether or not the conversion worked: it may have changed them); `None`
/// when it is neither a pipe nor a Unix socket.
fn fd_on_event_loop<T>(
    fd: BorrowedFd<'_>,
    found: &mut Vec<(i32, i32)>,
    convert: impl FnOnce(Stream) -> io::Result<T>,
) -> Option<io::Result<T>> {
    let (stream, flags) = event_loop_stream(fd)?;
    found.push((fd.as_raw_fd(), flags));
    Some(convert(stream))
}

fn set_flags(fd: i32, flags: i32) {
    // SAFETY: fcntl(F_SETFL) on fds 0/1, which stay open for the process's life.
    unsafe { libc::fcntl(fd, libc::F_SETFL, flags) };
}

/// A duplicate of `fd` for the event loop, and its file status flags as found, when it
/// is a pipe or a Unix socket; `None` for anything else, or when the descriptor cannot
/// be examined.
fn event_loop_stream(fd: BorrowedFd<'_>) -> Option<(Stream, i32)> {
    let raw = fd.as_raw_fd();
    // SAFETY: fstat into a zeroed stat buffer we own.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `raw` is a live descriptor (borrowed); `stat` is ours and the right size.
    if unsafe { libc::fstat(raw, &mut stat) } != 0 {
        return None;
    }
    // SAFETY: fcntl(F_GETFL) reads flags; no memory is involved.
    let flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
    if flags < 0 {
        return None;
    }
    let stream = match stat.st_mode & libc::S_IFMT {
        libc::S_IFIFO => Stream::Pipe(fd.try_clone_to_owned().ok()?),
        libc::S_IFSOCK if is_unix_socket(fd) => {
            let socket = std::os::unix::net::UnixStream::from(fd.try_clone_to_owned().ok()?);
            if socket.set_nonblocking(true).is_err() {
                set_flags(raw, flags);
                return None;
            }
            Stream::Socket(socket)
        }
        _ => return None,
    };
    Some((stream, flags))
}

/// Whether the socket at `fd` is a Unix-domain stream socket (an agent's socketpair).
fn is_unix_socket(fd: BorrowedFd<'_>) -> bool {
    let raw = fd.as_raw_fd();
    // SAFETY: getsockname into a zeroed sockaddr_storage we own, with its size.
    let mut address: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: `raw` is a live descriptor (borrowed); `address` and `len` are ours.
    let named = unsafe {
        libc::getsockname(
            raw,
            (&mut address as *mut libc::sockaddr_storage).cast(),
            &mut len,
        )
    } == 0;
    let mut kind: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt into a c_int we own, with its size.
    let typed = unsafe {
        libc::getsockopt(
            raw,
            libc::SOL_SOCKET,
            libc::SO_TYPE,
            (&mut kind as *mut libc::c_int).cast(),
            &mut len,
        )
    } == 0;
    named && typed && i32::from(address.ss_family) == libc::AF_UNIX && kind == libc::SOCK_STREAM
}
