//! The writer: one session's record, locked for as long as the session runs.
//!
//! Records hold prompts and tool inputs (passwords, tokens), so they are private: a new
//! record is created 0600, and every folder made for it 0700, whatever the umask. An
//! existing record with group or other bits set is opened all the same, with a warning
//! ([`super::exposure_warning`]).
//!
//! Beside the record, the writer keeps its head (`FILE.head`, [`chain::Head`]): created
//! with the record (0600), rewritten in place by one small write after every
//! `gate.verdict`, after a `record.cut` and when the writer is dropped, only while the
//! record's lock is held, so that the head always describes a prefix the writer wrote
//! (`head`). Each line is written field by field (`line`); the dispatcher's events reach
//! the writer as its `Recorder` (`recorder`).
//!
//! A gate's lines reach the OS in as few writes as its order allows: a `hook.started` is
//! written before its hook runs (a record that ends with it says the session was killed
//! while the hook ran: `crate::record::resume::killed_message`), but what comes after
//! the run (its `effect`, then any `hook.decided` and `hook.context`) is made and linked
//! at once and held until the gate's next line (its `gate.verdict`, or the next hook's
//! `hook.started`), which the same thread writes before it waits for anything, and goes
//! out in that line's `write` (`RecordWriter::put`), or in the write of whatever line
//! another gate of the session (`serve` runs them concurrently) records first: lines
//! are linked in the order they are made, so the file is what line-by-line writing
//! gives for the same events. Every line stays whole and the
//! bytes are the same; a gate of one hook is two writes instead of three. A process
//! killed between the two (no await lies between them, only the reading of the hook's
//! answer) leaves a record that ends with the `hook.started`: killed before the tool
//! ran, which it never did, since its verdict was not out either.

mod head;
mod line;
mod recorder;

use std::fs::{DirBuilder, File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use head::{HeadFile, head_or_warn, update_head};

use super::chain::{self, Head, HeadSeen};
use super::{Body, RecordError};
use crate::platform::sys;

/// The size a session record stops at: a record is the session's history, not a policy,
/// so it stops (with a `record.cut` saying so) rather than fill the disk; well under what
/// `log show`, `log verify` and `replay` read whole (`crate::access::caps::RECORD`).
pub const MAX_RECORD_BYTES: u64 = 512 << 20;

/// A record [`RecordWriter::resume`] opened and locked, to be written by
/// [`RecordWriter::resumed`], with the head it found matching the record's end (`None`
/// when it found none, or did not look: `resumed` then reads it itself).
#[derive(Debug)]
pub struct LockedRecord {
    file: File,
    head: Option<Head>,
}

/// An open session record: appends one line per record, under an exclusive lock.
///
/// Writing errors never fail a gate: the first one is reported on stderr, once, and the
/// record stops there. A record that could not be written whole is cut back to its last
/// whole line and, where there is room, ends with a `record.cut` record saying why.
/// Where there is none, a `hook.started` written just before is cut too: ending with it
/// would read as a session killed while that hook ran. Nothing is written after the
/// failure, so the record is an exact prefix of the session, never one with a gap.
#[derive(Debug)]
pub struct RecordWriter {
    path: PathBuf,
    session_id: String,
    file: Mutex<Tail>,
    /// The size the record stops at ([`MAX_RECORD_BYTES`]).
    limit: u64,
    /// A write failed: nothing more is written.
    failed: AtomicBool,
    /// The failure has been reported.
    warned: AtomicBool,
}

/// The open file and where its last records start.
#[derive(Debug)]
struct Tail {
    file: File,
    /// The file's length after the last whole record (`None`: unknown, so a torn write
    /// is left as it is rather than cut at a guess).
    len: Option<u64>,
    /// Where the last record starts, when it is a `hook.started`.
    pending_start: Option<u64>,
    /// The digest of the last whole line, which the next line's `prev` holds
    /// ([`super::chain`]); `None` before the first line.
    last_digest: Option<String>,
    /// The digest of the line before a pending `hook.started`, for a cut that drops it.
    digest_before_pending: Option<String>,
    /// The whole lines in the file (`None`: unknown, so the head is not kept).
    lines: Option<usize>,
    /// The record's head, kept while it can be written.
    head: Option<HeadFile>,
    /// Lines were written since the head was last written.
    head_stale: bool,
    /// The digest of the line before a torn line this writer closed: the next line it
    /// writes carries it as `torn_prev` ([`super::chain`]).
    torn_prev: Option<String>,
    /// Lines made and linked but not yet handed to the OS (`RecordWriter::put`); the
    /// fields above describe the file without them.
    held: Held,
}

/// A record to write: its `type`, its own fields, and what the writer does with it.
pub(super) struct Fields {
    /// The record's `type`.
    type_name: &'static str,
    /// Its own fields, as a JSON object's text (`{…}`, [`Body::to_json`]).
    json: Vec<u8>,
    kind: Kind,
}

/// What the writer does with a record besides writing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `session.started`, `session.resumed`: says whether the writer keeps a head.
    Session,
    /// `hook.started`: written before its run; a cut with no room for its marker drops
    /// it too ([`RecordWriter::cut`]).
    HookStarted,
    /// `effect`: may be held.
    Effect,
    /// `hook.decided`, `hook.context`: may be held after an effect.
    Note,
    /// `gate.verdict`: the head is written after it.
    Verdict,
    /// Anything else.
    Other,
}

impl Fields {
    /// The record of `body`.
    pub(super) fn of(body: &Body) -> Fields {
        let kind = match body {
            Body::Started(_) | Body::Resumed(_) => Kind::Session,
            Body::HookStarted(_) => Kind::HookStarted,
            Body::Effect(_) => Kind::Effect,
            Body::Decided(_) | Body::Context(_) => Kind::Note,
            Body::Verdict(_) => Kind::Verdict,
            Body::TurnEnded | Body::Cut(_) => Kind::Other,
        };
        Fields {
            type_name: body.type_name(),
            json: body.to_json(),
            kind,
        }
    }
}

/// Whole lines waiting for the next write (see the module docs).
#[derive(Debug, Default)]
struct Held {
    /// The lines' bytes, newlines included.
    bytes: Vec<u8>,
    /// How many lines.
    lines: usize,
    /// The digest of the last of them, which the next line links to.
    last_digest: Option<String>,
}

impl RecordWriter {
    /// Creates a new record at `path`, 0600 (its missing folders too, 0700). Refuses an
    /// existing file.
    pub fn create(path: &Path, session_id: &str) -> Result<RecordWriter, RecordError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_private_dirs(parent).map_err(|e| RecordError::io(path, e))?;
        }
        let file = sys::files::private_file_mode(OpenOptions::new().append(true).create_new(true))
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => RecordError::Exists(path.to_path_buf()),
                _ => RecordError::io(path, e),
            })?;
        // The umask may have taken bits from 0600 (a 0400 record could not be resumed).
        sys::files::make_file_private(&file).map_err(|e| RecordError::io(path, e))?;
        lock(&file, path)?;
        // Under the lock: no other process touches this record's head.
        let head = head_or_warn(HeadFile::create(path), path);
        let head_stale = false;
        Ok(RecordWriter::new(
            path,
            session_id,
            file,
            None,
            Some(0),
            (head, head_stale),
            None,
        ))
    }

    /// Opens an existing record to resume it: locks it, then returns what the resume
    /// needs of it ([`super::read_for_resume`]; `keeps_hooks` when the resume keeps the
    /// recorded hooks) and a warning when others may read it
    /// ([`super::exposure_warning`]). Writes nothing: [`RecordWriter::resumed`] does,
    /// once the session may start.
    pub fn resume(
        path: &Path,
        keeps_hooks: bool,
    ) -> Result<(LockedRecord, super::Reading, Option<String>), RecordError> {
        // Without blocking: a FIFO put where the record was must not hang the start.
        let mut file =
            sys::files::open_without_blocking(OpenOptions::new().read(true).append(true))
                .open(path)
                .map_err(|e| RecordError::io(path, e))?;
        crate::access::check_regular(&file).map_err(|e| RecordError::io(path, e))?;
        lock(&file, path)?;
        let mode = sys::files::mode_bits(&file.metadata().map_err(|e| RecordError::io(path, e))?);
        let mut reading = super::read_for_resume(&mut file, path, keeps_hooks)?;
        let head = super::read::check_resume_head(&mut file, path, &mut reading)?;
        let locked = LockedRecord { file, head };
        Ok((locked, reading, super::exposure_warning(path, mode)))
    }

    /// The writer over a file that [`RecordWriter::resume`] opened and locked, whose last
    /// line has `last_digest` ([`super::Reading::last_line_digest`]). A torn last line is
    /// closed with a newline first, so that the next record starts on a line of its own
    /// (and links to the torn line's bytes, and carries `torn_prev`).
    ///
    /// The head ([`RecordWriter::resume`] checked it) says how many lines the record
    /// holds up to where it ends; the lines after that are counted. A record without one
    /// (written before heads) is counted whole, once, and gets one.
    pub fn resumed(
        path: &Path,
        session_id: &str,
        locked: LockedRecord,
        last_digest: Option<String>,
    ) -> Result<RecordWriter, RecordError> {
        let LockedRecord { mut file, head } = locked;
        let mut last = [0u8; 1];
        let torn = match file.metadata().map_err(|e| RecordError::io(path, e))?.len() {
            0 => false,
            len => {
                file.seek(SeekFrom::Start(len - 1))
                    .and_then(|_| file.read_exact(&mut last))
                    .map_err(|e| RecordError::io(path, e))?;
                last[0] != b'\n'
            }
        };
        let io = |e| RecordError::io(path, e);
        let len = file.metadata().map_err(io)?.len();
        // The head `resume` found matching still does: the lock has been held since,
        // and only a lock holder writes the record and its head.
        let found = match head {
            found @ Some(_) => found,
            None => match super::read_head(path)? {
                HeadSeen::Found(head)
                    if super::read::head_matches(&mut file, &head).map_err(io)? =>
                {
                    Some(head)
                }
                _ => None,
            },
        };
        let (from_line, from) = found.as_ref().map_or((0, 0), |h| (h.lines, h.end));
        let (after, last_newline) = lines_after(&mut file, from, len).map_err(io)?;
        let whole = from_line + after;
        // The line before a torn one ends at the last newline (or where the head does).
        let torn_prev = match (torn, last_newline.map(|n| n + 1).unwrap_or(from)) {
            (true, end) if end > 0 => super::read::line_ending_at(&mut file, end)
                .map_err(io)?
                .map(|line| chain::digest(&line)),
            _ => None,
        };
        if torn {
            file.write_all(b"\n")
                .map_err(|e| RecordError::io(path, e))?;
        }
        let lines = whole + usize::from(torn);
        let (head, head_stale) = match found {
            Some(_) => (head_or_warn(HeadFile::open(path), path), after > 0 || torn),
            // A record from before heads: its head from now on, saying where it is now.
            None => {
                let made = HeadFile::create(path).and_then(|head| {
                    head.write(&Head {
                        lines,
                        end: len + u64::from(torn),
                        last: last_digest.clone().filter(|_| lines > 0),
                    })?;
                    Ok(head)
                });
                (head_or_warn(made, path), false)
            }
        };
        Ok(RecordWriter::new(
            path,
            session_id,
            file,
            last_digest,
            Some(lines),
            (head, head_stale),
            torn_prev,
        ))
    }

    fn new(
        path: &Path,
        session_id: &str,
        file: File,
        last_digest: Option<String>,
        lines: Option<usize>,
        (head, head_stale): (Option<HeadFile>, bool),
        torn_prev: Option<String>,
    ) -> RecordWriter {
        let len = file.metadata().ok().map(|m| m.len());
        RecordWriter {
            path: path.to_path_buf(),
            session_id: session_id.into(),
            file: Mutex::new(Tail {
                file,
                len,
                pending_start: None,
                last_digest,
                digest_before_pending: None,
                lines,
                head,
                head_stale,
                torn_prev,
                held: Held::default(),
            }),
            limit: MAX_RECORD_BYTES,
            failed: AtomicBool::new(false),
            warned: AtomicBool::new(false),
        }
    }

    /// The same writer stopping at `limit` bytes instead (for tests of the limit).
    pub fn with_limit(mut self, limit: u64) -> RecordWriter {
        self.limit = limit;
        self
    }

    /// The record's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record and hands it to the OS before returning (with the lines held
    /// before it, in the same write). When that fails, the record is cut back to its
    /// last whole line (see [`RecordWriter`]), and no later record is written.
    pub fn write(&self, body: &Body) -> Result<(), RecordError> {
        self.put(&Fields::of(body), false)
    }

    /// Writes `record`; or, with `hold`, when it follows a hook's run (an `effect`, or
    /// a `hook.decided` or `hook.context` after one), makes and links it but holds it
    /// for the next record's write (see the module docs): the caller writes that next
    /// record before it waits for anything. Any other record (a `hook.decided` of a
    /// skipped hook, which no run precedes) is written at once. Dropping the writer
    /// writes what it holds.
    fn put(&self, record: &Fields, hold: bool) -> Result<(), RecordError> {
        let mut tail = lock_spinning(&self.file)
            .map_err(|_| RecordError::io(&self.path, std::io::Error::other("lock poisoned")))?;
        if self.failed.load(Ordering::SeqCst) {
            return Err(RecordError::io(
                &self.path,
                std::io::Error::other("it stopped at an earlier error"),
            ));
        }
        // Under the lock: the line links to the one made just before it (held or
        // written), and only the first line after a torn one carries `torn_prev`.
        let chain_head = tail.head.is_some() && record.kind == Kind::Session;
        let tail = &mut *tail;
        let prev = tail.held.last_digest.as_ref().or(tail.last_digest.as_ref());
        let torn_prev = tail.torn_prev.as_ref().filter(|_| tail.held.lines == 0);
        let line = self.line(
            record,
            prev.map(String::as_str),
            chain_head,
            torn_prev.map(String::as_str),
        )?;
        // The record's size bound: the line that would pass it is not written, and the
        // record ends as after a write error, with a `record.cut` saying why.
        let end = tail
            .len
            .map(|len| len + (tail.held.bytes.len() + line.len()) as u64);
        let over = end.is_some_and(|end| end > self.limit);
        let hold = hold
            && match record.kind {
                Kind::Effect => true,
                Kind::Note => tail.held.lines > 0,
                _ => false,
            };
        if hold && !over {
            tail.held.last_digest = Some(line_digest(&line[..line.len() - 1]));
            tail.held.bytes.extend_from_slice(&line);
            tail.held.lines += 1;
            return Ok(());
        }
        if over && tail.held.lines > 0 {
            // The held lines fit: written on their own first, as line by line.
            self.append_held(tail, None)?;
        }
        self.append_held(tail, Some((&line, record.kind, over)))
    }

    /// Writes the held lines, then `line` (unless it is `over` the size limit), in one
    /// write, and moves the record's end past them; a failure cuts the record (see
    /// [`RecordWriter::cut`]).
    fn append_held(
        &self,
        tail: &mut Tail,
        line: Option<(&[u8], Kind, bool)>,
    ) -> Result<(), RecordError> {
        let held = std::mem::take(&mut tail.held);
        let start = tail.len;
        let mut batch = held.bytes;
        let line_at = batch.len() as u64;
        let over = line.is_some_and(|(_, _, over)| over);
        let written = if over {
            let limit = match self.limit {
                l if l >= 1 << 20 => format!("{} MiB", l >> 20),
                l => format!("{l} bytes"),
            };
            Err(std::io::Error::other(format!(
                "it reached its size limit of {limit}"
            )))
        } else {
            if let Some((line, _, _)) = line {
                batch.extend_from_slice(line);
            }
            append(&mut tail.file, &batch)
        };
        if let Err(e) = written {
            self.failed.store(true, Ordering::SeqCst);
            self.cut(tail, &e);
            return Err(RecordError::io(&self.path, e));
        }
        tail.len = start.map(|len| len + batch.len() as u64);
        tail.torn_prev = None;
        tail.head_stale = true;
        if held.lines > 0 {
            // None of them is a `hook.started`.
            tail.lines = tail.lines.map(|n| n + held.lines);
            tail.last_digest = held.last_digest;
            (tail.pending_start, tail.digest_before_pending) = (None, None);
        }
        if let Some((line, kind, _)) = line {
            tail.lines = tail.lines.map(|n| n + 1);
            let digest = line_digest(&line[..line.len() - 1]);
            let before = tail.last_digest.replace(digest);
            (tail.pending_start, tail.digest_before_pending) = match kind {
                Kind::HookStarted => (start.map(|s| s + line_at), before),
                _ => (None, None),
            };
            // One head write per gate: after its verdict.
            if kind == Kind::Verdict {
                update_head(tail);
            }
        }
        // The buffer is kept for the next gate's held lines.
        batch.clear();
        tail.held.bytes = batch;
        Ok(())
    }

    /// After a failed write: drops its torn part and ends the record with a
    /// `record.cut` record if there is room. If there is none, a last `hook.started`
    /// goes too, so that the record does not read as killed while that hook ran.
    /// Best effort: with the length unknown, the file is left as it is.
    /// The head is written for where the record ends, when that is known.
    fn cut(&self, tail: &mut Tail, error: &std::io::Error) {
        // Until the record's end is known again, the head stays where it was. Lines still
        // held were not written, and never will be.
        tail.head_stale = false;
        tail.held = Held::default();
        let Some(len) = tail.len else { return };
        let cut = Fields::of(&Body::Cut(super::Cut {
            reason: error.to_string(),
        }));
        // Each place the record may end at, with the digest its marker links to and the
        // lines dropped to get there.
        let mut ends = vec![(len, tail.last_digest.clone(), 0)];
        if let Some(start) = tail.pending_start {
            ends.push((start, tail.digest_before_pending.clone(), 1));
        }
        for (end, prev, dropped) in ends {
            let torn_prev = tail.torn_prev.clone();
            let Ok(marker) = self.line(&cut, prev.as_deref(), false, torn_prev.as_deref()) else {
                return;
            };
            if tail.file.set_len(end).is_err() {
                return;
            }
            if append(&mut tail.file, &marker).is_ok() {
                tail.len = Some(end + marker.len() as u64);
                tail.lines = tail.lines.map(|n| n - dropped + 1);
                tail.last_digest = Some(chain::digest(&marker[..marker.len() - 1]));
                update_head(tail);
                return;
            }
        }
        // No room even for the marker: the record ends at its last whole line (before a
        // pending `hook.started`).
        let end = tail.pending_start.unwrap_or(len);
        if tail.file.set_len(end).is_ok() {
            if tail.pending_start.is_some() {
                tail.lines = tail.lines.map(|n| n - 1);
                tail.last_digest = tail.digest_before_pending.clone();
            }
            tail.len = Some(end);
            update_head(tail);
        }
    }

    /// Writes (or, with `hold`, holds: `RecordWriter::put`) a record; the first error
    /// is reported on stderr, once. The record stops there.
    fn write_or_warn(&self, record: &Fields, hold: bool) {
        if self.failed.load(Ordering::SeqCst) {
            return;
        }
        if let Err(e) = self.put(record, hold) {
            self.warn(&e);
        }
    }

    /// Reports the first write error on stderr, once.
    fn warn(&self, e: &RecordError) {
        if self.warned.swap(true, Ordering::SeqCst) {
            return;
        }
        // Not eprintln!, which panics when the write fails: serve's stderr may share a
        // non-blocking pipe with its stdout (`2>&1`).
        let warning = format!(
            "⚠ {e}; the record stops here: the rest of this session is not recorded. Verdicts are not affected."
        );
        let _ = writeln!(
            std::io::stderr(),
            "{}",
            crate::escape::for_terminal(&warning)
        );
    }
}

impl Drop for RecordWriter {
    /// The session ends: the head covers every line written since its last write.
    /// The lines still held are written first.
    fn drop(&mut self) {
        let mut tail = match self.file.lock() {
            Ok(tail) => tail,
            Err(poisoned) => poisoned.into_inner(),
        };
        if tail.held.lines > 0
            && !self.failed.load(Ordering::SeqCst)
            && let Err(e) = self.append_held(&mut tail, None)
        {
            self.warn(&e);
        }
        if tail.head_stale {
            update_head(&mut tail);
        }
    }
}

/// How many newlines the open record holds from offset `from` to `len`, and where the
/// last of them is.
fn lines_after(file: &mut File, from: u64, len: u64) -> std::io::Result<(usize, Option<u64>)> {
    file.seek(SeekFrom::Start(from))?;
    let mut reader = file.take(len.saturating_sub(from));
    let mut chunk = vec![0u8; 64 * 1024];
    let (mut count, mut last, mut at) = (0, None, from);
    loop {
        let n = reader.read(&mut chunk)?;
        if n == 0 {
            return Ok((count, last));
        }
        for (i, _) in chunk[..n].iter().enumerate().filter(|(_, b)| **b == b'\n') {
            count += 1;
            last = Some(at + i as u64);
        }
        at += n as u64;
    }
}

/// [`chain::digest`] of a line, the same text made without `hex::encode`'s char-by-char
/// `String` (two of every recorded gate's ~25k instructions of digests were the hex).
fn line_digest(line: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in Sha256::digest(line) {
        text.push(char::from(HEX[usize::from(byte >> 4)]));
        text.push(char::from(HEX[usize::from(byte & 15)]));
    }
    text
}

/// How long a gate waits for the record's lock by spinning before it sleeps. `serve`
/// records gates from both of its worker threads; a gate holds the lock for a line's
/// making (its digest included) and its `write`, and after a verdict the head's write:
/// usually a few µs. A waiter that goes to sleep costs a futex wait, a wake-up and two
/// context switches, more than such a wait itself: at 64 requests
/// in flight, spinning first gave 9–32 % more calls a second (BENCHMARKS.md, twenty-third
/// sitting). Bounded, so that a holder stalled in its `write` (a slow disk) costs a
/// waiter this much CPU at most.
const LOCK_SPIN: std::time::Duration = std::time::Duration::from_micros(30);

/// Takes `lock`, spinning for up to [`LOCK_SPIN`] before it blocks.
fn lock_spinning<T>(lock: &Mutex<T>) -> std::sync::LockResult<std::sync::MutexGuard<'_, T>> {
    let mut since = None;
    loop {
        match lock.try_lock() {
            Ok(guard) => return Ok(guard),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => return Err(poisoned),
            Err(std::sync::TryLockError::WouldBlock) => {}
        }
        let started = *since.get_or_insert_with(std::time::Instant::now);
        if started.elapsed() > LOCK_SPIN {
            return lock.lock();
        }
        for _ in 0..16 {
            std::hint::spin_loop();
        }
    }
}

/// Whole lines, in one `write` where the OS allows (the file is `O_APPEND`).
fn append(file: &mut File, line: &[u8]) -> std::io::Result<()> {
    file.write_all(line).and_then(|_| file.flush())
}

/// Creates `dir` and its missing parents, each 0700 whatever the umask; folders that
/// exist already are left as they are (they are the user's).
pub(crate) fn create_private_dirs(dir: &Path) -> std::io::Result<()> {
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && std::fs::metadata(d).is_err())
        .collect();
    for folder in missing.into_iter().rev() {
        match sys::files::private_dir_mode(&mut DirBuilder::new()).create(folder) {
            Ok(()) => sys::files::make_dir_private(folder)?,
            // Made by someone else meanwhile (a concurrent session): it is theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `flock(LOCK_EX | LOCK_NB)` (std's `try_lock`): the lock lives as long as the file
/// stays open (it is opened close-on-exec, so no hook inherits it).
fn lock(file: &File, path: &Path) -> Result<(), RecordError> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(RecordError::Locked(path.to_path_buf())),
        Err(TryLockError::Error(err)) => Err(RecordError::io(path, err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::Decision;
    use crate::executor::{ExitStatus, RawOutput};
    use crate::record::{
        Body, ContextRecord, Decided, Effect, GateFields, GateVerdict, HookStarted, SessionBody,
        chain, read_file, resume,
    };

    /// The spinning lock is the lock: a free one is taken at once, a held one once its
    /// holder lets go (long after the spin, so through the blocking `lock`), and a
    /// poisoned one says so.
    #[test]
    fn a_spinning_lock_waits_for_its_holder_and_reports_poison() {
        let lock = std::sync::Arc::new(Mutex::new(0u32));
        *lock_spinning(&lock).unwrap() += 1;
        let held = lock.lock().unwrap();
        let waiter = {
            let lock = std::sync::Arc::clone(&lock);
            std::thread::spawn(move || {
                let mut value = lock_spinning(&lock).unwrap();
                *value += 1;
                *value
            })
        };
        std::thread::sleep(LOCK_SPIN * 100);
        assert!(!waiter.is_finished(), "the waiter took a lock still held");
        drop(held);
        assert_eq!(waiter.join().unwrap(), 2);
        let poisoner = std::sync::Arc::clone(&lock);
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.lock().unwrap();
            panic!("poisons the lock");
        })
        .join();
        assert!(lock_spinning(&lock).is_err());
    }

    fn gate(i: usize) -> GateFields {
        GateFields {
            tool: Some("bash".into()),
            tool_use_id: Some(format!("toolu_{i}")),
            prompt: None,
        }
    }

    /// A gate's records as the dispatcher makes them (each with whether the recorder
    /// holds it): one hook that allows, one that blocks, one that adds context.
    fn gate_bodies(i: usize) -> Vec<(Body, bool)> {
        let started = |hook: &str| HookStarted {
            hook: hook.into(),
            input_digest: "sha256:00".into(),
            gate: gate(i),
        };
        let ran = |stdout: &[u8], code| {
            Ok(RawOutput {
                status: ExitStatus::Code(code),
                stdout: stdout.to_vec(),
                stderr: Vec::new(),
            })
        };
        let verdict = |outcome: &str| {
            Body::Verdict(GateVerdict {
                gate: gate(i),
                tool_input: Some(serde_json::json!({"command": "git status"})),
                verdict: serde_json::json!({"outcome": outcome, "message": null}),
                bridged: None,
            })
        };
        match i % 3 {
            0 => vec![
                (Body::HookStarted(started("a")), false),
                (
                    Body::Effect(Effect::capture("a", "sha256:00", &ran(b"", 0))),
                    true,
                ),
                (verdict("allow"), false),
            ],
            1 => vec![
                (Body::HookStarted(started("a")), false),
                (
                    Body::Effect(Effect::capture("a", "sha256:00", &ran(b"", 0))),
                    true,
                ),
                (Body::HookStarted(started("b")), false),
                (
                    Body::Effect(Effect::capture("b", "sha256:00", &ran(b"no", 2))),
                    true,
                ),
                (
                    Body::Decided(Decided {
                        hook: "b".into(),
                        gate: gate(i),
                        decision: Decision::Block,
                        reason: "no".into(),
                    }),
                    true,
                ),
                (verdict("block"), false),
            ],
            _ => vec![
                (Body::HookStarted(started("c")), false),
                (
                    Body::Effect(Effect::capture("c", "sha256:00", &ran(b"ctx", 0))),
                    true,
                ),
                (
                    Body::Context(ContextRecord {
                        hook: "c".into(),
                        characters: 3,
                        text: "ctx".into(),
                    }),
                    true,
                ),
                (verdict("allow"), false),
                (Body::TurnEnded, false),
            ],
        }
    }

    fn session() -> Body {
        Body::Started(SessionBody {
            cwd: "/p".into(),
            permission_mode: "default".into(),
            no_hooks: false,
            hooks: Vec::new(),
            banner: "hooks: a".into(),
            clean: None,
            skipped: Vec::new(),
            warnings: Vec::new(),
            warned_this_turn: None,
            owner: Default::default(),
            version: "test".into(),
        })
    }

    fn with_fixed_clock<T>(f: impl FnOnce() -> T) -> T {
        line::tests::FIXED_AT.with(|at| *at.borrow_mut() = Some("2026-12-04T12:00:00.000Z".into()));
        let out = f();
        line::tests::FIXED_AT.with(|at| *at.borrow_mut() = None);
        out
    }

    #[test]
    fn line_digest_is_the_chains() {
        for line in [
            &b""[..],
            b"{}",
            "{\"a\":\"\u{e9}\"}".as_bytes(),
            &[0xff; 300],
        ] {
            assert_eq!(line_digest(line), chain::digest(line));
        }
    }

    /// Held lines change when lines reach the OS, never what is written: a record whose
    /// effects, decisions and contexts were held is, byte for byte, the record written
    /// line by line, and so is its head. A held line is not in the file until the gate's
    /// next line is, and a writer dropped while holding writes it.
    #[test]
    fn held_lines_are_the_bytes_written_line_by_line() {
        let dir = tempfile::tempdir().unwrap();
        let (held, plain) = (
            dir.path().join("held.jsonl"),
            dir.path().join("plain.jsonl"),
        );
        with_fixed_clock(|| {
            let a = RecordWriter::create(&held, "S").unwrap();
            let b = RecordWriter::create(&plain, "S").unwrap();
            a.write(&session()).unwrap();
            b.write(&session()).unwrap();
            for i in 0..30 {
                for (body, hold) in gate_bodies(i) {
                    let before = std::fs::metadata(&held).unwrap().len();
                    a.put(&Fields::of(&body), hold).unwrap();
                    let after = std::fs::metadata(&held).unwrap().len();
                    assert_eq!(hold, before == after, "{}", body.type_name());
                    b.write(&body).unwrap();
                }
                assert_eq!(
                    std::fs::read(&held).unwrap(),
                    std::fs::read(&plain).unwrap()
                );
            }
            // The last thing held is written when the writer goes.
            let (body, hold) = gate_bodies(0).swap_remove(1);
            assert!(hold);
            a.put(&Fields::of(&body), true).unwrap();
            b.write(&body).unwrap();
            drop((a, b));
        });
        assert_eq!(
            std::fs::read(&held).unwrap(),
            std::fs::read(&plain).unwrap()
        );
        let head = |p: &Path| std::fs::read(chain::head_path(p)).unwrap();
        assert_eq!(head(&held), head(&plain));
        assert!(crate::record::verify_file(&held).unwrap().is_ok());
    }

    /// A process killed anywhere in a gate's last write (its `effect` and `gate.verdict`,
    /// written together) leaves a record read as the record docs say: the head from the
    /// gate before, the lines after it noted, a torn line noted, and a record that ends
    /// with the `hook.started` (or a torn line after it) read as killed before the tool
    /// ran. Each resumes, and the resumed record verifies to its end. (The `hook.started`
    /// itself is a write of its own, before the run, as before.)
    #[test]
    fn a_kill_inside_a_gates_write_reads_as_the_record_docs_say() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let writer = RecordWriter::create(&path, "S").unwrap();
        writer.write(&session()).unwrap();
        for (body, hold) in gate_bodies(0) {
            writer.put(&Fields::of(&body), hold).unwrap();
        }
        let head_after_gate_1 = std::fs::read(chain::head_path(&path)).unwrap();
        let mut bodies = gate_bodies(3).into_iter();
        let (started, _) = bodies.next().unwrap();
        writer.write(&started).unwrap();
        let started_end = std::fs::metadata(&path).unwrap().len() as usize;
        for (body, hold) in bodies {
            writer.put(&Fields::of(&body), hold).unwrap();
        }
        drop(writer);
        let whole = std::fs::read(&path).unwrap();
        let effect_end = started_end
            + whole[started_end..]
                .iter()
                .position(|&b| b == b'\n')
                .unwrap()
            + 1;
        let cut = dir.path().join("cut.jsonl");
        for end in started_end..=whole.len() {
            let _ = std::fs::remove_file(&cut);
            std::fs::write(&cut, &whole[..end]).unwrap();
            std::fs::write(chain::head_path(&cut), &head_after_gate_1).unwrap();
            let verified = crate::record::verify_file(&cut).unwrap();
            assert!(verified.is_ok(), "cut at {end}: {verified:?}");
            let reading = read_file(&cut).unwrap();
            let killed = resume::killed_message(&reading.records);
            // A last line whole but for its newline is read as a record.
            if end + 1 < effect_end {
                assert_eq!(
                    killed.as_deref(),
                    Some("This session was killed before bash ran. It never ran."),
                    "cut at {end}"
                );
            } else {
                assert_eq!(killed, None, "cut at {end}");
            }
            let torn = ![started_end, effect_end - 1, effect_end, whole.len() - 1].contains(&end)
                && end != whole.len();
            assert_eq!(
                reading.notes.iter().any(|n| n.contains("torn")),
                torn,
                "cut at {end}: {:?}",
                reading.notes
            );
            let (file, reading, _) = RecordWriter::resume(&cut, false).unwrap();
            let resumed = RecordWriter::resumed(&cut, "S", file, reading.last_line_digest).unwrap();
            resumed.write(&Body::TurnEnded).unwrap();
            drop(resumed);
            let verified = crate::record::verify_file(&cut).unwrap();
            assert!(
                matches!(&verified, Ok(v) if matches!(v.end, Some(chain::End::Matches { .. }))),
                "resumed after a cut at {end}: {verified:?}"
            );
        }
    }

    /// A record stops at its size limit: it ends with a `record.cut` saying so, whole
    /// lines only, its chain intact, and nothing is written after it.
    #[test]
    fn a_record_stops_at_its_size_limit_with_a_cut_saying_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let writer = RecordWriter::create(&path, "S").unwrap().with_limit(2048);
        let mut written = 0;
        while writer.write(&Body::TurnEnded).is_ok() {
            written += 1;
            assert!(written < 1000, "the limit never stopped the record");
        }
        assert!(
            writer.write(&Body::TurnEnded).is_err(),
            "written after the cut"
        );
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() < 2048 + 512, "{} bytes", bytes.len());
        let reading = read_file(&path).unwrap();
        let last = reading.records.last().unwrap();
        match &last.body {
            Body::Cut(cut) => assert_eq!(cut.reason, "it reached its size limit of 2048 bytes"),
            other => panic!("the record ends with {other:?}"),
        }
        assert!(chain::verify(&bytes, 0).is_ok());
        // The head was written for where the cut record ends.
        let lines = bytes.iter().filter(|&&b| b == b'\n').count();
        let verified = crate::record::verify_file(&path).unwrap().unwrap();
        assert_eq!(verified.end, Some(chain::End::Matches { lines }));
    }
}
