//! The warm server: `hookhost warm` keeps one process running for the user, and a
//! `hookhost bridge` process hands its call to it instead of starting hookhost's runtime
//! itself (docs/contract.md#the-warm-server).
//!
//! Every agent starts a fresh bridge for every tool call, and most of a fresh bridge's
//! time is its own start, not the hooks' work (BENCHMARKS.md, issue 28). The server runs
//! the very same bridge code per call, with the call's arguments, environment, folder and
//! stdin: the config, the pins, the path guard and the budget are checked per call exactly
//! as in a bridge process. What this module owns:
//!
//! - [`wire`]: the four messages and their frames;
//! - [`client`]: the bridge's half (`hookhost bridge` and `hookhost-client` alike). It
//!   hands a call over only to a server it can vouch for (below), and any failure before
//!   an answer arrives leaves the call to the bridge, which runs it itself;
//! - [`Server`]: the server's half, which takes calls only from this user's processes
//!   confined as the server is (a sandboxed caller judges its call itself, inside).
//!
//! **What the bridge checks before handing a call over** (docs/threats.md#w1): its
//! registration asks for a server at all (`--warm`, `--warm-socket`); the socket is the
//! one named or the user's default, chosen from the uid and never from the environment the
//! agent can set, and not in a temp folder; its folder is the user's,
//! mode 0700, and no link; the process listening runs as the same user and is not
//! traced; it says it runs this very binary (device, inode, size, change time) and this
//! version. A server of a replaced binary is never used, and exits at its next call. The
//! administrator's `bridge --system` never hands a call over: a user's process cannot
//! stand between the user's agent and the administrator's policy.

pub mod client;
pub mod wire;

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::platform::sys::warm as os;

pub use wire::{Admission, Answer, Hello, Request};

/// Whether this OS has the warm server (Linux for now).
pub const SUPPORTED: bool = os::SUPPORTED;

/// The flag of `bridge` and `warm` that names the socket.
pub const SOCKET_FLAG: &str = "--warm-socket";

/// How long either side waits for the other's greeting, admission or request: each is
/// written at once, so a peer that sends nothing for this long is stuck (a stopped
/// server, say), and the bridge still has most of its budget to judge the call itself.
const GREETING: Duration = Duration::from_secs(1);

/// The socket the bridge with arguments `argv` uses: the one `--warm-socket` names
/// (absolute only), else, with `--warm`, the user's default
/// (`/run/user/UID/hookhost/warm.sock` on Linux). `None`: none to try. The hand-over is
/// opt-in: a bridge whose registration names neither flag never connects anywhere, so no
/// process that binds the default socket can answer its calls.
pub fn socket_for(argv: &[OsString]) -> Option<PathBuf> {
    let mut warm = false;
    let mut args = argv.iter();
    while let Some(arg) = args.next() {
        warm |= arg == "--warm";
        if arg == SOCKET_FLAG {
            return args.next().map(PathBuf::from).filter(|p| p.is_absolute());
        }
        if let Some(path) = arg
            .to_str()
            .and_then(|a| a.strip_prefix(SOCKET_FLAG))
            .and_then(|a| a.strip_prefix('='))
        {
            return Some(PathBuf::from(path)).filter(|p| p.is_absolute());
        }
    }
    if warm { default_socket() } else { None }
}

/// The user's default socket, when the OS gives the user a private run folder.
pub fn default_socket() -> Option<PathBuf> {
    os::default_socket()
}

/// The temp folder `socket` lies in, if any: `/tmp`, `/dev/shm` or `$TMPDIR`, where a
/// sandboxed agent writes (docs/threats.md#w1). A socket there could be replaced by the
/// agent between two calls, so neither side uses one.
pub(crate) fn in_temp_folder(socket: &Path) -> Option<PathBuf> {
    let socket = crate::paths::lexical(socket);
    crate::env::agent_temp_folders(&std::env::temp_dir())
        .into_iter()
        .find(|t| socket.starts_with(t))
}

/// Why a call handed over got no answer.
#[derive(Debug)]
pub struct NotAnswered {
    /// Whether the call had reached the server (it may have run hooks).
    pub sent: bool,
    /// Whether the wait for the answer ran out (rather than the connection failing).
    pub timed_out: bool,
    /// What went wrong, for `-v`'s log and the deny's text.
    pub why: String,
}

impl NotAnswered {
    fn before(why: impl Into<String>) -> NotAnswered {
        NotAnswered {
            sent: false,
            timed_out: false,
            why: why.into(),
        }
    }
}

/// The bridge's half: hands `request` to the server at `socket`, if it runs the hookhost
/// binary whose identity is `binary`, and waits up to `wait` for its answer. `Err` says
/// why there is none; a call that was never sent is the bridge's to run itself.
fn hand_over(
    socket: &Path,
    request: &Request,
    binary: [u64; 4],
    wait: Duration,
) -> Result<Answer, NotAnswered> {
    // One deadline for every step: greeting, call, admission and answer together wait no
    // longer than `wait`.
    let deadline = std::time::Instant::now() + wait;
    let left = || {
        deadline
            .saturating_duration_since(std::time::Instant::now())
            .max(Duration::from_millis(1))
    };
    let (mut connection, peer) =
        vouched(socket, binary, wait).map_err(|refusal| NotAnswered::before(refusal.why))?;
    // The call goes out at once: the server looks at this process while it travels, and
    // reads it only once it has admitted it. Until the admission the server has acted on
    // nothing, so any failure leaves the call to this process. A call larger than the
    // socket holds waits for the server's read; a write cut short leaves the server a
    // frame it cannot read whole, and nothing to act on.
    let before = |e: io::Error| NotAnswered::before(format!("pid {}: {e}", peer.pid));
    connection
        .set_write_timeout(Some(GREETING.min(left())))
        .map_err(before)?;
    request.write(&mut connection).map_err(before)?;
    match admission(&mut connection, GREETING.min(left())).map_err(before)? {
        Admission::Admitted => {}
        Admission::Refused(why) => {
            return Err(NotAnswered::before(format!(
                "pid {} refused this process: {why}",
                peer.pid
            )));
        }
    }
    // The server has looked at this process: from here on no other process of the
    // user's may read or trace it while it waits, as a bridge that runs its call itself
    // is hardened before it starts.
    os::undumpable();
    let sent = |e: io::Error| {
        let timed_out = matches!(
            e.kind(),
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
        );
        NotAnswered {
            sent: true,
            timed_out,
            why: match timed_out {
                true => format!("pid {} gave no answer", peer.pid),
                false => format!("pid {}: {e}", peer.pid),
            },
        }
    };
    connection.set_read_timeout(Some(left())).map_err(sent)?;
    Answer::read(&mut connection).map_err(sent)
}

/// The server's admission of this process, waited for up to `wait`.
fn admission(connection: &mut os::Connection, wait: Duration) -> io::Result<Admission> {
    connection.set_read_timeout(Some(wait))?;
    Admission::read(connection)
}

/// Why the server at a socket is not one to hand a call to.
#[derive(Debug)]
struct Refusal {
    /// Whether something listens there at all.
    listening: bool,
    why: String,
}

/// Connects to the server at `socket` and reads its greeting, if it is one to hand a call
/// to: the socket where the bridge may use one, its process this user's and untraced, its
/// version this one and its binary `binary` (a file's identity, [`os::identity`]).
fn vouched(
    socket: &Path,
    binary: [u64; 4],
    wait: Duration,
) -> Result<(os::Connection, os::Peer), Refusal> {
    let refused = |why: String| Refusal {
        listening: true,
        why,
    };
    if let Some(temp) = in_temp_folder(socket) {
        return Err(Refusal {
            listening: false,
            why: format!(
                "its socket {} lies in {}, where any process of the user's can replace it",
                socket.display(),
                temp.display()
            ),
        });
    }
    let mut connection = os::connect(socket).map_err(|e| Refusal {
        listening: !matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
        ),
        why: e.to_string(),
    })?;
    let peer = os::peer(&connection).map_err(|e| refused(format!("its peer: {e}")))?;
    if peer.uid != os::own_uid() {
        return Err(refused(format!("its server runs as uid {}", peer.uid)));
    }
    if os::traced(peer.pid) {
        return Err(refused(format!("its server (pid {}) is traced", peer.pid)));
    }
    connection
        .set_read_timeout(Some(GREETING.min(wait).max(Duration::from_millis(1))))
        .map_err(|e| refused(e.to_string()))?;
    let hello = Hello::read(&mut connection)
        .map_err(|e| refused(format!("its greeting (pid {}): {e}", peer.pid)))?;
    if hello.version != env!("CARGO_PKG_VERSION") {
        return Err(refused(format!(
            "its server (pid {}) is hookhost {}",
            peer.pid, hello.version
        )));
    }
    if hello.binary != binary {
        return Err(refused(format!(
            "its server (pid {}) runs another hookhost binary",
            peer.pid
        )));
    }
    Ok((connection, peer))
}

/// What listens at a warm server's socket, as `doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Nothing: calls run in their bridges' own processes.
    NotRunning(String),
    /// A server a bridge of `binary` hands its calls to: its pid.
    Answering(u32),
    /// Such a server, which takes no call from this process (its pid, and why: a
    /// sandbox around this process, say); a bridge here runs its calls itself.
    RefusesThisProcess(u32, String),
    /// Something a bridge would not hand a call to, and why.
    Refused(String),
}

/// Looks at the server at `socket` as a bridge of the hookhost binary at `binary` would,
/// without sending a call.
pub fn probe(socket: &Path, binary: &Path) -> Probe {
    let identity = match os::identity(binary) {
        Ok(identity) => identity,
        Err(e) => return Probe::Refused(format!("{}: {e}", binary.display())),
    };
    let (mut connection, peer) = match vouched(socket, identity, GREETING) {
        Ok(vouched) => vouched,
        Err(refusal) if refusal.listening => return Probe::Refused(refusal.why),
        Err(refusal) => return Probe::NotRunning(refusal.why),
    };
    // The server greets every caller, and then says whether it takes this one's calls.
    match admission(&mut connection, GREETING) {
        Ok(Admission::Admitted) => Probe::Answering(peer.pid),
        Ok(Admission::Refused(why)) => Probe::RefusesThisProcess(peer.pid, why),
        Err(e) => Probe::Refused(format!(
            "its server (pid {}) did not say whether it takes this process's calls: {e}",
            peer.pid
        )),
    }
}

/// Whether an error of [`Server::accept`] is one a server outlives: a connection that
/// was gone before it was taken, a signal, or no file descriptor free at the moment.
pub fn passing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
    ) || os::out_of_descriptors(e)
}

/// The server's half: a listening socket that takes this user's calls.
pub struct Server {
    listener: os::Listener,
    /// The binary as it was when the server started.
    binary: [u64; 4],
    /// Where it was started from: a file there that is not `binary` means hookhost was
    /// upgraded or replaced, and this server must not answer for the new one.
    exe: PathBuf,
    /// How this server is confined: it takes calls only from processes confined alike.
    confinement: os::Confinement,
}

/// Why `hookhost warm` could not start.
#[derive(Debug, thiserror::Error)]
pub enum WarmError {
    /// This OS has no warm server.
    #[error("the warm server is not available on this system (Linux only for now)")]
    NotSupported,
    /// No socket was named and the user has no run folder.
    #[error(
        "there is no /run/user/UID folder for this user, so the warm server has no default socket; name one with --warm-socket /ABSOLUTE/PATH (its folder must be yours, mode 0700), and register the bridge with the same flag"
    )]
    NoSocket,
    /// The socket could not be made.
    #[error("cannot listen at {path}: {source}")]
    Listen {
        /// The socket.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The running binary could not be identified.
    #[error("cannot identify the running hookhost binary: {0}")]
    Binary(io::Error),
    /// This process's own confinement could not be read.
    #[error("cannot read how this process is confined (/proc/self/status and ns): {0}")]
    Confinement(io::Error),
    /// The socket lies in a temp folder.
    #[error(
        "{path} lies in {temp}, where any process of yours (a sandboxed agent among them) can replace the socket between two calls; use the default socket or one in a folder of yours outside temp folders (mode 0700)"
    )]
    TempFolder {
        /// The socket.
        path: PathBuf,
        /// The temp folder.
        temp: PathBuf,
    },
}

impl Server {
    /// Listens at `socket` (made in its folder, which is made 0700 when missing).
    pub fn listen(socket: &Path) -> Result<Server, WarmError> {
        if !SUPPORTED {
            return Err(WarmError::NotSupported);
        }
        if let Some(temp) = in_temp_folder(socket) {
            return Err(WarmError::TempFolder {
                path: socket.to_path_buf(),
                temp,
            });
        }
        let binary = os::running_binary().map_err(WarmError::Binary)?;
        let exe = std::env::current_exe().map_err(WarmError::Binary)?;
        let confinement = os::confinement(None).map_err(WarmError::Confinement)?;
        let listener = os::listen(socket).map_err(|source| WarmError::Listen {
            path: socket.to_path_buf(),
            source,
        })?;
        Ok(Server {
            listener,
            binary,
            exe,
            confinement,
        })
    }

    /// Waits for the next connection. Connections from other users are closed unread.
    pub fn accept(&self) -> io::Result<Connection> {
        loop {
            let (connection, _) = self.listener.accept()?;
            match os::peer(&connection) {
                Ok(peer) if peer.uid == os::own_uid() => {
                    return Ok(Connection { connection, peer });
                }
                _ => continue,
            }
        }
    }

    /// Whether the binary at the path this server started from is another file now.
    pub fn binary_replaced(&self) -> bool {
        os::identity(&self.exe).map_or(true, |now| now != self.binary)
    }

    /// The greeting this server sends.
    fn hello(&self) -> Hello {
        Hello {
            version: env!("CARGO_PKG_VERSION").to_string(),
            binary: self.binary,
        }
    }
}

/// One bridge's connection to the server.
pub struct Connection {
    connection: os::Connection,
    peer: os::Peer,
}

impl Connection {
    /// Greets the bridge, looks at how it is confined while its call travels, and reads
    /// the call once it has admitted it; the call must arrive whole within [`GREETING`]
    /// of the admission. A caller confined otherwise than the server is refused and its
    /// call never read: the server would run its hooks, with the arguments and
    /// environment it sent, outside its sandbox (docs/threats.md#w1). Its bridge then runs
    /// the call itself, inside.
    pub fn read_call(&mut self, server: &Server) -> io::Result<Request> {
        server.hello().write(&mut self.connection)?;
        let greeted = std::time::Instant::now();
        if let Err((refusal, told)) = self.look_at_caller(server, greeted) {
            // The caller is told why, not how the server itself is confined.
            let _ = Admission::Refused(told.to_string()).write(&mut self.connection);
            let _ = self.connection.shutdown(std::net::Shutdown::Both);
            return Err(refusal);
        }
        Admission::Admitted.write(&mut self.connection)?;
        let mut within = Deadline {
            connection: &self.connection,
            until: std::time::Instant::now() + GREETING,
        };
        let request = Request::read(&mut within)?;
        self.connection.set_read_timeout(None)?;
        Ok(request)
    }

    /// Whether the caller, greeted at `greeted`, is confined as the server is and was
    /// looked at in time; else why not (for the server's log), and what the caller is
    /// told.
    fn look_at_caller(
        &self,
        server: &Server,
        greeted: std::time::Instant,
    ) -> Result<(), (io::Error, &'static str)> {
        let theirs = os::peer_confinement(&self.connection, &self.peer).map_err(|e| {
            let why = format!(
                "cannot see how the caller (pid {}) is confined: {e}",
                self.peer.pid
            );
            (
                io::Error::new(io::ErrorKind::PermissionDenied, why),
                "the server cannot see how it is confined",
            )
        })?;
        let differences = server.confinement.differences(&theirs);
        if !differences.is_empty() {
            let why = format!(
                "the caller (pid {}) is confined otherwise than this server: {}",
                self.peer.pid,
                differences.join(", ")
            );
            return Err((
                io::Error::new(io::ErrorKind::PermissionDenied, why),
                "it is confined otherwise than the server (a sandbox)",
            ));
        }
        // A bridge waits up to GREETING for its admission, then runs its call itself: one
        // admitted that late could have its call run twice.
        if greeted.elapsed() > GREETING / 2 {
            let why = format!("the caller (pid {}) was looked at too late", self.peer.pid);
            return Err((
                io::Error::new(io::ErrorKind::TimedOut, why),
                "it was looked at too late",
            ));
        }
        Ok(())
    }

    /// A future that ends once the bridge closes its end or dies (it gave up on the call:
    /// the agent's timeout or a signal), waiting on `runtime`'s reactor.
    pub fn closed(
        &self,
        runtime: &tokio::runtime::Handle,
    ) -> io::Result<impl std::future::Future<Output = ()> + Send + 'static + use<>> {
        os::closed(&self.connection, runtime)
    }

    /// Sends the answer and closes the connection. A bridge reads its answer at once: a
    /// peer that does not take it within [`GREETING`] (one that never reads, or reads a
    /// byte now and then) is dropped, so that it cannot hold the server's thread, or its
    /// keeper of deadlines, for good.
    pub fn answer(self, answer: &Answer) -> io::Result<()> {
        let mut within = Deadline {
            connection: &self.connection,
            until: std::time::Instant::now() + GREETING,
        };
        let sent = answer.write(&mut within);
        let _ = self.connection.shutdown(std::net::Shutdown::Both);
        sent
    }
}

/// Reads from a connection until a moment, however the bytes trickle in: a caller that
/// sends a byte now and then cannot hold a server's thread (and the frame it claims)
/// for longer than that.
struct Deadline<'a> {
    connection: &'a os::Connection,
    until: std::time::Instant,
}

impl io::Write for Deadline<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = self
            .until
            .saturating_duration_since(std::time::Instant::now());
        let late = || {
            io::Error::new(
                io::ErrorKind::TimedOut,
                "the caller did not take its answer in time",
            )
        };
        if left.is_zero() {
            return Err(late());
        }
        self.connection.set_write_timeout(Some(left))?;
        io::Write::write(&mut &*self.connection, buf).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => late(),
            _ => e,
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl io::Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self
            .until
            .saturating_duration_since(std::time::Instant::now());
        let late = || io::Error::new(io::ErrorKind::TimedOut, "the call did not arrive in time");
        if left.is_zero() {
            return Err(late());
        }
        self.connection.set_read_timeout(Some(left))?;
        io::Read::read(&mut self.connection, buf).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => late(),
            _ => e,
        })
    }
}

#[cfg(test)]
mod tests;
