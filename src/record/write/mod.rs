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
    ) -> Result<(File, super::Reading, Option<String>), RecordError> {
        // Without blocking: a FIFO put where the record was must not hang the start.
        let mut file =
            sys::files::open_without_blocking(OpenOptions::new().read(true).append(true))
                .open(path)
                .map_err(|e| RecordError::io(path, e))?;
        crate::access::check_regular(&file).map_err(|e| RecordError::io(path, e))?;
        lock(&file, path)?;
        let mode = sys::files::mode_bits(&file.metadata().map_err(|e| RecordError::io(path, e))?);
        let mut reading = super::read_for_resume(&mut file, path, keeps_hooks)?;
        super::read::check_resume_head(&mut file, path, &mut reading)?;
        Ok((file, reading, super::exposure_warning(path, mode)))
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
        mut file: File,
        last_digest: Option<String>,
    ) -> Result<RecordWriter, RecordError> {
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
        let found = match super::read_head(path)? {
            HeadSeen::Found(head) if super::read::head_matches(&mut file, &head).map_err(io)? => {
                Some(head)
            }
            _ => None,
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
                let made = HeadFile::create(path).and_then(|mut head| {
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

    /// Appends one record and hands it to the OS before returning. When that fails, the
    /// record is cut back to its last whole line (see [`RecordWriter`]), and no later
    /// record is written.
    pub fn write(&self, body: &Body) -> Result<(), RecordError> {
        let mut tail = self
            .file
            .lock()
            .map_err(|_| RecordError::io(&self.path, std::io::Error::other("lock poisoned")))?;
        if self.failed.load(Ordering::SeqCst) {
            return Err(RecordError::io(
                &self.path,
                std::io::Error::other("it stopped at an earlier error"),
            ));
        }
        // Under the lock: the line links to the one written just before it.
        let chain_head = tail.head.is_some() && matches!(body, Body::Started(_) | Body::Resumed(_));
        let line = self.line(
            body,
            tail.last_digest.as_deref(),
            chain_head,
            tail.torn_prev.as_deref(),
        )?;
        let start = tail.len;
        // The record's size bound: the line that would pass it is not written, and the
        // record ends as after a write error, with a `record.cut` saying why.
        let over = start.is_some_and(|len| len + line.len() as u64 > self.limit);
        let written = if over {
            let limit = match self.limit {
                l if l >= 1 << 20 => format!("{} MiB", l >> 20),
                l => format!("{l} bytes"),
            };
            Err(std::io::Error::other(format!(
                "it reached its size limit of {limit}"
            )))
        } else {
            append(&mut tail.file, &line)
        };
        match written {
            Ok(()) => {
                tail.len = start.map(|len| len + line.len() as u64);
                tail.lines = tail.lines.map(|n| n + 1);
                tail.torn_prev = None;
                tail.head_stale = true;
                let digest = chain::digest(&line[..line.len() - 1]);
                let before = tail.last_digest.replace(digest);
                (tail.pending_start, tail.digest_before_pending) = match body {
                    Body::HookStarted(_) => (start, before),
                    _ => (None, None),
                };
                // One head write per gate: after its verdict.
                if matches!(body, Body::Verdict(_)) {
                    update_head(&mut tail);
                }
                Ok(())
            }
            Err(e) => {
                self.failed.store(true, Ordering::SeqCst);
                self.cut(&mut tail, &e);
                Err(RecordError::io(&self.path, e))
            }
        }
    }

    /// After a failed write: drops its torn part and ends the record with a
    /// `record.cut` record if there is room. If there is none, a last `hook.started`
    /// goes too, so that the record does not read as killed while that hook ran.
    /// Best effort: with the length unknown, the file is left as it is.
    /// The head is written for where the record ends, when that is known.
    fn cut(&self, tail: &mut Tail, error: &std::io::Error) {
        // Until the record's end is known again, the head stays where it was.
        tail.head_stale = false;
        let Some(len) = tail.len else { return };
        let cut = Body::Cut(super::Cut {
            reason: error.to_string(),
        });
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

    /// Writes a record; the first error is reported on stderr, once. The record stops
    /// there.
    fn write_or_warn(&self, body: &Body) {
        if self.failed.load(Ordering::SeqCst) {
            return;
        }
        if let Err(e) = self.write(body)
            && !self.warned.swap(true, Ordering::SeqCst)
        {
            // Not eprintln!, which panics when the write fails: serve's stderr may share
            // a non-blocking pipe with its stdout (`2>&1`).
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
}

impl Drop for RecordWriter {
    /// The session ends: the head covers every line written since its last write.
    fn drop(&mut self) {
        let tail = match self.file.get_mut() {
            Ok(tail) => tail,
            Err(poisoned) => poisoned.into_inner(),
        };
        if tail.head_stale {
            update_head(tail);
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

/// One whole line, in one `write` where the OS allows (the file is `O_APPEND`).
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
    use crate::record::{Body, chain, read_file};

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
