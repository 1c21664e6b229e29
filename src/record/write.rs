//! The writer: one session's record, locked for as long as the session runs.
//!
//! Records hold prompts and tool inputs (passwords, tokens), so they are private: a new
//! record is created 0600, and every folder made for it 0700, whatever the umask. An
//! existing record with group or other bits set is opened all the same, with a warning
//! ([`super::exposure_warning`]).

use std::fs::{DirBuilder, File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value};

use super::{
    Body, ContextRecord, Decided, Effect, GateFields, GateVerdict, HookStarted, RecordError,
};
use crate::dispatch::{Recorder, RunEvent};
use crate::platform::sys;

/// The size a session record stops at: a record is the session's history, not a policy,
/// so it stops (with a `record.cut` saying so) rather than fill the disk; well under what
/// `log show`, `log verify` and `replay` read whole ([`crate::access::caps::RECORD`]).
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
        Ok(RecordWriter::new(path, session_id, file, None))
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
        let reading = super::read_for_resume(&mut file, path, keeps_hooks)?;
        Ok((file, reading, super::exposure_warning(path, mode)))
    }

    /// The writer over a file that [`RecordWriter::resume`] opened and locked, whose last
    /// line has `last_digest` ([`super::Reading::last_line_digest`]). A torn last line is
    /// closed with a newline first, so that the next record starts on a line of its own
    /// (and links to the torn line's bytes).
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
        if torn {
            file.write_all(b"\n")
                .map_err(|e| RecordError::io(path, e))?;
        }
        Ok(RecordWriter::new(path, session_id, file, last_digest))
    }

    fn new(path: &Path, session_id: &str, file: File, last_digest: Option<String>) -> RecordWriter {
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
        let line = self.line(body, tail.last_digest.as_deref())?;
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
                let digest = super::chain::digest(&line[..line.len() - 1]);
                let before = tail.last_digest.replace(digest);
                (tail.pending_start, tail.digest_before_pending) = match body {
                    Body::HookStarted(_) => (start, before),
                    _ => (None, None),
                };
                Ok(())
            }
            Err(e) => {
                self.failed.store(true, Ordering::SeqCst);
                self.cut(&mut tail, &e);
                Err(RecordError::io(&self.path, e))
            }
        }
    }

    /// The record's line: the common fields (`prev`: the digest of the line before it,
    /// if any), the body's, and a newline.
    fn line(&self, body: &Body, prev: Option<&str>) -> Result<Vec<u8>, RecordError> {
        let mut map = Map::new();
        map.insert("type".into(), Value::String(body.type_name().into()));
        map.insert("at".into(), Value::String(super::now_rfc3339()));
        map.insert("session_id".into(), Value::String(self.session_id.clone()));
        if let Some(prev) = prev {
            map.insert("prev".into(), Value::String(prev.into()));
        }
        map.extend(body.to_map());
        let mut line = serde_json::to_vec(&Value::Object(map))
            .map_err(|e| RecordError::io(&self.path, std::io::Error::other(e)))?;
        line.push(b'\n');
        Ok(line)
    }

    /// After a failed write: drops its torn part and ends the record with a
    /// `record.cut` record if there is room. If there is none, a last `hook.started`
    /// goes too, so that the record does not read as killed while that hook ran.
    /// Best effort: with the length unknown, the file is left as it is.
    fn cut(&self, tail: &mut Tail, error: &std::io::Error) {
        let Some(len) = tail.len else { return };
        let cut = Body::Cut(super::Cut {
            reason: error.to_string(),
        });
        // Each place the record may end at, with the digest its marker links to.
        let mut ends = vec![(len, tail.last_digest.clone())];
        if let Some(start) = tail.pending_start {
            ends.push((start, tail.digest_before_pending.clone()));
        }
        for (end, prev) in ends {
            let Ok(marker) = self.line(&cut, prev.as_deref()) else {
                return;
            };
            if tail.file.set_len(end).is_err() {
                return;
            }
            if append(&mut tail.file, &marker).is_ok() {
                return;
            }
        }
        // No room even for the marker: the record ends at its last whole line (before a
        // pending `hook.started`).
        let _ = tail.file.set_len(tail.pending_start.unwrap_or(len));
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

/// One whole line, in one `write` where the OS allows (the file is `O_APPEND`).
fn append(file: &mut File, line: &[u8]) -> std::io::Result<()> {
    file.write_all(line).and_then(|_| file.flush())
}

impl Recorder for RecordWriter {
    fn record(&self, event: RunEvent<'_>) {
        let body = match event {
            RunEvent::HookStarted {
                hook,
                input_digest,
                gate,
            } => Body::HookStarted(HookStarted {
                hook: hook.into(),
                input_digest: input_digest.into(),
                gate: GateFields::of(gate),
            }),
            RunEvent::Effect {
                hook,
                input_digest,
                result,
            } => Body::Effect(Effect::capture(hook, input_digest, result)),
            RunEvent::Decided {
                hook,
                gate,
                decision,
                reason,
            } => Body::Decided(Decided {
                hook: hook.into(),
                gate: GateFields::of(gate),
                decision,
                reason: reason.into(),
            }),
            RunEvent::Context { hook, text } => Body::Context(ContextRecord {
                hook: hook.into(),
                characters: text.chars().count(),
                text: text.into(),
            }),
            RunEvent::Verdict {
                gate,
                tool_input,
                verdict,
                bridged,
            } => Body::Verdict(GateVerdict {
                gate: GateFields::of(gate),
                tool_input: tool_input.cloned(),
                verdict: serde_json::to_value(verdict).unwrap_or(Value::Null),
                bridged: bridged.cloned(),
            }),
            RunEvent::TurnEnded => Body::TurnEnded,
        };
        self.write_or_warn(&body);
    }
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
    }
}
