//! The warm server's wire: four messages, each one frame (a little-endian `u32` length,
//! then that many bytes), made of length-prefixed byte strings and fixed-size integers.
//!
//! - [`Hello`], server → bridge, first, as soon as the connection is taken: the server's
//!   version and the identity of the binary it runs, which the bridge compares with its
//!   own before it hands anything over;
//! - [`Request`], bridge → server, once greeted: everything a bridged call reads from its
//!   process (arguments, environment, folder, binary, stdin);
//! - [`Admission`], server → bridge, once the server has looked at the caller: admitted
//!   (the server reads the request, and its answer follows), or refused, with why (the
//!   request is never read; the bridge runs the call itself);
//! - [`Answer`], server → bridge: the agent's stdout, stderr and exit status, or a
//!   refusal to take the call, which the bridge then runs itself.
//!
//! The server looks at the caller while the request is on its way: the two used to wait
//! for each other (the look, then the greeting, then the request), two wake-ups of a
//! sleeping CPU on every call (BENCHMARKS.md, twenty-first sitting).
//!
//! A frame is capped at [`MAX_FRAME`]: the server reads frames from a process it has not
//! yet judged, and a length it would allocate must be bounded.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::PathBuf;

use crate::platform::sys::warm::{os_bytes, os_string};

/// The largest frame either side reads: a bridged call's whole stdin rides in one, and an
/// agent's payload with a large file's content in it runs to megabytes.
pub const MAX_FRAME: usize = 256 << 20;

/// What the first bytes of every frame say: this wire, this version of it (`hhw1` had no
/// [`Admission`]: a bridge and a server of different versions never take each other's
/// frames).
const MAGIC: &[u8; 4] = b"hhw2";

/// The server's greeting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// hookhost's version (`CARGO_PKG_VERSION`).
    pub version: String,
    /// The running binary's device, inode, size and change time.
    pub binary: [u64; 4],
}

/// One bridged call, as its process saw it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Request {
    /// The bridge's arguments, the program's name first.
    pub argv: Vec<OsString>,
    /// Its whole environment.
    pub env: Vec<(OsString, OsString)>,
    /// Its working folder.
    pub cwd: PathBuf,
    /// The binary the agent ran (`current_exe`): registrations are recognised by it.
    pub exe: PathBuf,
    /// Microseconds the bridge had run before it handed the call over: the call's time
    /// budget counts them.
    pub waited_us: u64,
    /// Its stdin, whole.
    pub stdin: Vec<u8>,
}

/// Whether the server takes the call of the process at the other end, once it has looked
/// at how that process is confined (docs/threats.md#w1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Confined as the server is: the server reads the request and answers it.
    Admitted,
    /// Confined otherwise, or not to be looked at: the request is not read, and the
    /// bridge runs the call itself. Why, for `-v`'s log.
    Refused(String),
}

/// The server's answer to a [`Request`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The call was judged: write these and exit with this status.
    Reply {
        /// The agent's stdout.
        stdout: Vec<u8>,
        /// The agent's stderr.
        stderr: Vec<u8>,
        /// The agent's exit status.
        exit_code: i32,
    },
    /// The server does not take this call (not a bridged call it serves: `--system`,
    /// `-v`, an argument it cannot read); the bridge runs it itself.
    Declined(String),
}

/// Writes one frame holding `body`.
fn write_frame(out: &mut impl Write, body: &[u8]) -> io::Result<()> {
    let len = u32::try_from(body.len())
        .ok()
        .filter(|&l| l as usize <= MAX_FRAME)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "frame too large"))?;
    let mut frame = Vec::with_capacity(body.len() + 4);
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(body);
    out.write_all(&frame)?;
    out.flush()
}

/// Reads one frame; `UnexpectedEof` when the other side closed first.
fn read_frame(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    input.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(invalid(format!(
            "a frame of {len} bytes (at most {MAX_FRAME})"
        )));
    }
    // Grown as bytes arrive, not made at the size the header claims: a caller that
    // claims the largest frame and sends nothing holds no memory for it.
    let mut body = Vec::with_capacity(len.min(64 * 1024));
    input.take(len as u64).read_to_end(&mut body)?;
    if body.len() < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("a frame cut after {} of its {len} bytes", body.len()),
        ));
    }
    Ok(body)
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// A frame's body being built.
#[derive(Default)]
struct Builder(Vec<u8>);

impl Builder {
    fn new() -> Builder {
        Builder(MAGIC.to_vec())
    }
    fn bytes(&mut self, b: &[u8]) -> &mut Builder {
        // Lengths fit: the frame as a whole is checked against MAX_FRAME when written.
        self.0.extend_from_slice(&(b.len() as u32).to_le_bytes());
        self.0.extend_from_slice(b);
        self
    }
    fn u64(&mut self, n: u64) -> &mut Builder {
        self.0.extend_from_slice(&n.to_le_bytes());
        self
    }
    fn u8(&mut self, n: u8) -> &mut Builder {
        self.0.push(n);
        self
    }
}

/// A frame's body being read.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn new(body: &'a [u8]) -> io::Result<Reader<'a>> {
        match body.strip_prefix(MAGIC) {
            Some(rest) => Ok(Reader(rest)),
            None => Err(invalid("not a hookhost warm-server frame".into())),
        }
    }
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if self.0.len() < n {
            return Err(invalid("a frame ends early".into()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn u32(&mut self) -> io::Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> io::Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn bytes(&mut self) -> io::Result<Vec<u8>> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }
    fn os(&mut self) -> io::Result<OsString> {
        Ok(os_string(self.bytes()?))
    }
    fn done(&self) -> io::Result<()> {
        match self.0.is_empty() {
            true => Ok(()),
            false => Err(invalid("a frame has bytes after its end".into())),
        }
    }
}

impl Hello {
    /// Writes it as one frame.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut b = Builder::new();
        b.bytes(self.version.as_bytes());
        for n in self.binary {
            b.u64(n);
        }
        write_frame(out, &b.0)
    }

    /// Reads one.
    pub fn read(input: &mut impl Read) -> io::Result<Hello> {
        let body = read_frame(input)?;
        let mut r = Reader::new(&body)?;
        let version = String::from_utf8(r.bytes()?).map_err(|e| invalid(e.to_string()))?;
        let binary = [r.u64()?, r.u64()?, r.u64()?, r.u64()?];
        r.done()?;
        Ok(Hello { version, binary })
    }
}

impl Request {
    /// Writes it as one frame.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut b = Builder::new();
        b.u64(self.argv.len() as u64);
        for arg in &self.argv {
            b.bytes(os_bytes(arg));
        }
        b.u64(self.env.len() as u64);
        for (name, value) in &self.env {
            b.bytes(os_bytes(name)).bytes(os_bytes(value));
        }
        b.bytes(os_bytes(self.cwd.as_os_str()))
            .bytes(os_bytes(self.exe.as_os_str()))
            .u64(self.waited_us)
            .bytes(&self.stdin);
        write_frame(out, &b.0)
    }

    /// Reads one.
    pub fn read(input: &mut impl Read) -> io::Result<Request> {
        let body = read_frame(input)?;
        let mut r = Reader::new(&body)?;
        // Each entry takes at least four bytes: a count past that is a lie, not a size.
        let bounded = |n: u64| {
            usize::try_from(n)
                .ok()
                .filter(|&n| n <= body.len() / 4)
                .ok_or_else(|| invalid(format!("a count of {n} in a frame")))
        };
        let argc = bounded(r.u64()?)?;
        let argv = (0..argc).map(|_| r.os()).collect::<io::Result<_>>()?;
        let envc = bounded(r.u64()?)?;
        let env = (0..envc)
            .map(|_| Ok((r.os()?, r.os()?)))
            .collect::<io::Result<_>>()?;
        let cwd = PathBuf::from(r.os()?);
        let exe = PathBuf::from(r.os()?);
        let waited_us = r.u64()?;
        let stdin = r.bytes()?;
        r.done()?;
        Ok(Request {
            argv,
            env,
            cwd,
            exe,
            waited_us,
            stdin,
        })
    }
}

impl Admission {
    /// Writes it as one frame.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut b = Builder::new();
        match self {
            Admission::Admitted => b.u8(0),
            Admission::Refused(why) => b.u8(1).bytes(why.as_bytes()),
        };
        write_frame(out, &b.0)
    }

    /// Reads one.
    pub fn read(input: &mut impl Read) -> io::Result<Admission> {
        let body = read_frame(input)?;
        let mut r = Reader::new(&body)?;
        let admission = match r.u8()? {
            0 => Admission::Admitted,
            1 => Admission::Refused(String::from_utf8_lossy(&r.bytes()?).into_owned()),
            other => return Err(invalid(format!("an admission of kind {other}"))),
        };
        r.done()?;
        Ok(admission)
    }
}

impl Answer {
    /// Writes it as one frame.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut b = Builder::new();
        match self {
            Answer::Reply {
                stdout,
                stderr,
                exit_code,
            } => {
                b.u8(0)
                    .bytes(stdout)
                    .bytes(stderr)
                    .u64(*exit_code as u32 as u64);
            }
            Answer::Declined(why) => {
                b.u8(1).bytes(why.as_bytes());
            }
        }
        write_frame(out, &b.0)
    }

    /// Reads one.
    pub fn read(input: &mut impl Read) -> io::Result<Answer> {
        let body = read_frame(input)?;
        let mut r = Reader::new(&body)?;
        let answer = match r.u8()? {
            0 => Answer::Reply {
                stdout: r.bytes()?,
                stderr: r.bytes()?,
                exit_code: r.u64()? as u32 as i32,
            },
            1 => Answer::Declined(String::from_utf8_lossy(&r.bytes()?).into_owned()),
            other => return Err(invalid(format!("an answer of kind {other}"))),
        };
        r.done()?;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_message_reads_back_as_written() {
        let hello = Hello {
            version: "0.1.0".into(),
            binary: [1, 2, 3, u64::MAX],
        };
        let mut buf = Vec::new();
        hello.write(&mut buf).unwrap();
        assert_eq!(Hello::read(&mut buf.as_slice()).unwrap(), hello);

        let request = Request {
            argv: vec!["hookhost".into(), "bridge".into(), "--agent".into()],
            env: vec![
                ("HOME".into(), "/home/u".into()),
                ("EMPTY".into(), "".into()),
            ],
            cwd: "/p".into(),
            exe: "/usr/bin/hookhost".into(),
            waited_us: 1234,
            stdin: br#"{"tool_name":"Bash"}"#.to_vec(),
        };
        let mut buf = Vec::new();
        request.write(&mut buf).unwrap();
        assert_eq!(Request::read(&mut buf.as_slice()).unwrap(), request);

        for admission in [Admission::Admitted, Admission::Refused("sandboxed".into())] {
            let mut buf = Vec::new();
            admission.write(&mut buf).unwrap();
            assert_eq!(Admission::read(&mut buf.as_slice()).unwrap(), admission);
        }

        for answer in [
            Answer::Reply {
                stdout: b"{}\n".to_vec(),
                stderr: b"blocked\n".to_vec(),
                exit_code: 2,
            },
            Answer::Declined("--system".into()),
        ] {
            let mut buf = Vec::new();
            answer.write(&mut buf).unwrap();
            assert_eq!(Answer::read(&mut buf.as_slice()).unwrap(), answer);
        }
    }

    #[test]
    fn a_damaged_frame_is_an_error_not_a_panic() {
        let request = Request {
            argv: vec!["hookhost".into()],
            ..Request::default()
        };
        let mut good = Vec::new();
        request.write(&mut good).unwrap();
        // Every truncation, and every single byte changed in the body's lengths.
        for cut in 0..good.len() {
            assert!(Request::read(&mut &good[..cut]).is_err(), "cut at {cut}");
        }
        for at in 4..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0xff;
            let _ = Request::read(&mut bad.as_slice());
        }
        // A length past the cap is refused before anything is allocated.
        let huge = (MAX_FRAME as u32 + 1).to_le_bytes();
        assert!(Request::read(&mut huge.as_slice()).is_err());
        // A count of entries larger than the frame could hold.
        let mut lying = Builder::new();
        lying.u64(u64::MAX);
        let mut buf = Vec::new();
        write_frame(&mut buf, &lying.0).unwrap();
        assert!(Request::read(&mut buf.as_slice()).is_err());
    }
}
