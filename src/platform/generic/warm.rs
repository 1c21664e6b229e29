//! Where the warm server is not offered (macOS and Windows for now): no socket, so every
//! bridged call runs in its own process (docs/contract.md#the-warm-server).

use std::io;
use std::path::{Path, PathBuf};

/// Whether this OS has the warm server.
pub(crate) const SUPPORTED: bool = false;

/// Never made here.
pub(crate) enum Connection {}

impl io::Read for Connection {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match *self {}
    }
}

impl io::Read for &Connection {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match **self {}
    }
}

impl io::Write for Connection {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        match *self {}
    }
    fn flush(&mut self) -> io::Result<()> {
        match *self {}
    }
}

impl io::Write for &Connection {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        match **self {}
    }
    fn flush(&mut self) -> io::Result<()> {
        match **self {}
    }
}

impl Connection {
    /// Never called: there is no connection.
    pub(crate) fn set_read_timeout(&self, _: Option<std::time::Duration>) -> io::Result<()> {
        match *self {}
    }
    /// Never called: there is no connection.
    pub(crate) fn set_write_timeout(&self, _: Option<std::time::Duration>) -> io::Result<()> {
        match *self {}
    }
    /// Never called: there is no connection.
    pub(crate) fn shutdown(&self, _: std::net::Shutdown) -> io::Result<()> {
        match *self {}
    }
}

/// Never made here.
pub(crate) enum Listener {}

impl Listener {
    /// Never called: there is no listener.
    pub(crate) fn accept(&self) -> io::Result<(Connection, ())> {
        match *self {}
    }
}

/// Who is at the other end of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Peer {
    /// Its user.
    pub(crate) uid: u32,
    /// Its process.
    pub(crate) pid: u32,
}

fn unsupported() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "the warm server is Linux's for now",
    )
}

/// No user id to compare here.
pub(crate) fn own_uid() -> u32 {
    0
}

/// No default socket.
pub(crate) fn default_socket() -> Option<PathBuf> {
    None
}

/// Always refused.
pub(crate) fn connect(_: &Path) -> io::Result<Connection> {
    Err(unsupported())
}

/// Never called: there is no connection.
pub(crate) fn peer(connection: &Connection) -> io::Result<Peer> {
    match *connection {}
}

/// Counts as traced: nothing is trusted here.
pub(crate) fn traced(_: u32) -> bool {
    true
}

/// Not known here.
pub(crate) fn running_binary() -> io::Result<[u64; 4]> {
    Err(unsupported())
}

/// Not known here.
pub(crate) fn identity(_: &Path) -> io::Result<[u64; 4]> {
    Err(unsupported())
}

/// Always refused.
pub(crate) fn listen(_: &Path) -> io::Result<Listener> {
    Err(unsupported())
}

/// Never: there is no socket here.
pub(crate) fn out_of_descriptors(_: &io::Error) -> bool {
    false
}

/// A string's bytes (UTF-8 here; the wire is never used off Linux).
pub(crate) fn os_bytes(s: &std::ffi::OsStr) -> &[u8] {
    s.to_str().map(str::as_bytes).unwrap_or_default()
}

/// A string from the wire's bytes.
pub(crate) fn os_string(bytes: Vec<u8>) -> std::ffi::OsString {
    String::from_utf8_lossy(&bytes).into_owned().into()
}

/// How a process is confined: nothing to compare here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Confinement;

impl Confinement {
    /// Never called: there is no server.
    pub(crate) fn differences(&self, _: &Confinement) -> Vec<String> {
        Vec::new()
    }
}

/// No confinement to read here.
pub(crate) fn confinement(_: Option<u32>) -> io::Result<Confinement> {
    Err(unsupported())
}

/// No confinement to read here.
pub(crate) fn peer_confinement(_: &Connection, _: &Peer) -> io::Result<Confinement> {
    Err(unsupported())
}

/// Nothing to do here: no process hands a call over.
pub(crate) fn undumpable() {}

/// Never called: there is no connection.
pub(crate) fn closed(
    connection: &Connection,
    _: &tokio::runtime::Handle,
) -> io::Result<std::future::Pending<()>> {
    match *connection {}
}

/// Runs the program at `program` with `args` and `env` set (`hookhost-client` starting
/// hookhost), `stdin` (when given) written to its stdin, and returns its exit status.
pub(crate) fn run_instead(
    program: &Path,
    args: &[std::ffi::OsString],
    stdin: Option<&[u8]>,
    env: &[(&str, &std::ffi::OsStr)],
) -> io::Result<i32> {
    use std::io::Write;
    let mut command = std::process::Command::new(program);
    command.args(args).envs(env.iter().copied());
    if stdin.is_some() {
        command.stdin(std::process::Stdio::piped());
    }
    let mut child = command.spawn()?;
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A hookhost that stops reading early has what it needs.
        let _ = pipe.write_all(bytes);
    }
    let status = child.wait()?;
    // No status (a signal): 2, a deny wherever the status means anything.
    Ok(status.code().unwrap_or(2))
}
