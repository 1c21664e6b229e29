//! The reader: tolerant of a torn last line, lines that are not records and record
//! types it does not know; each gives a note and is skipped, never a panic.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

use super::chain::{self, ChainBreak, Verified};
use super::{Body, Record, RecordError};
use crate::recent::{self, Place};

/// A record file read back: its records in order, and notes about what was skipped.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The records that could be read.
    pub records: Vec<Record>,
    /// `line 17 is torn (a crash mid-write?); ignored`, and the like.
    pub notes: Vec<String>,
    /// The hash chain over the lines read ([`super::chain`]): what it found, or where it
    /// breaks.
    pub chain: Result<Verified, ChainBreak>,
    /// The digest of the file's last line, which the next line written links to.
    pub last_line_digest: Option<String>,
}

impl Default for Reading {
    fn default() -> Self {
        Reading {
            records: Vec::new(),
            notes: Vec::new(),
            chain: Ok(Verified::default()),
            last_line_digest: None,
        }
    }
}

/// Reads a record file; its chain is checked to its end against its head
/// ([`chain::check_head`]).
pub fn read_file(path: &Path) -> Result<Reading, RecordError> {
    // The head first: a writer updates it after the lines it covers, so the record read
    // after it holds them all.
    let head = read_head(path)?;
    let bytes = crate::access::read_capped(path, crate::access::caps::RECORD)
        .map_err(|e| RecordError::io(path, e))?;
    let mut reading = read_bytes(&bytes);
    reading.chain = with_head(reading.chain, &bytes, &head, path);
    Ok(reading)
}

/// Checks a record file's chain, to its end against its head: what `log verify` and
/// `doctor` report.
pub fn verify_file(path: &Path) -> Result<Result<Verified, ChainBreak>, RecordError> {
    let head = read_head(path)?;
    let bytes = crate::access::read_capped(path, crate::access::caps::RECORD)
        .map_err(|e| RecordError::io(path, e))?;
    Ok(with_head(chain::verify(&bytes, 0), &bytes, &head, path))
}

/// What is where the head of the record at `record` should be ([`chain::head_path`]).
pub fn read_head(record: &Path) -> Result<chain::HeadSeen, RecordError> {
    let path = chain::head_path(record);
    match crate::access::read_capped(&path, 4096) {
        Ok(bytes) => Ok(match chain::Head::decode(&bytes) {
            Some(head) => chain::HeadSeen::Found(head),
            None => chain::HeadSeen::NotAHead,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(chain::HeadSeen::Missing),
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => Ok(chain::HeadSeen::NotAHead),
        Err(e) => Err(RecordError::io(&path, e)),
    }
}

/// An intact chain over the whole `bytes`, checked on to its end against `head`.
fn with_head(
    chain: Result<Verified, ChainBreak>,
    bytes: &[u8],
    head: &chain::HeadSeen,
    record: &Path,
) -> Result<Verified, ChainBreak> {
    let mut verified = chain?;
    chain::check_head(bytes, head, &chain::head_path(record), &mut verified)?;
    Ok(verified)
}

/// A resume's check of the record's end against its head, on the open, locked record
/// whose tail `reading` holds ([`read_for_resume`]): the line the head names must end
/// where it says, with its digest. Reads only that line; where it does not match, the
/// whole record, so that the break names its line as `log verify` does. A reading whose
/// chain already breaks is left as it is. The head, when it was found and matches (the
/// writer over the still-locked record starts from it).
pub(crate) fn check_resume_head(
    file: &mut File,
    path: &Path,
    reading: &mut Reading,
) -> Result<Option<chain::Head>, RecordError> {
    let Ok(verified) = &reading.chain else {
        return Ok(None);
    };
    let head = read_head(path)?;
    let matches = match &head {
        chain::HeadSeen::Missing => !verified.head_expected,
        chain::HeadSeen::NotAHead => false,
        chain::HeadSeen::Found(head) => {
            head_matches(file, head).map_err(|e| RecordError::io(path, e))?
        }
    };
    if matches {
        return Ok(match head {
            chain::HeadSeen::Found(head) => Some(head),
            _ => None,
        });
    }
    let mut all = Vec::new();
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_end(&mut all))
        .map_err(|e| RecordError::io(path, e))?;
    if let Err(broken) = with_head(chain::verify(&all, 0), &all, &head, path) {
        reading.chain = Err(broken);
    }
    Ok(None)
}

/// Whether the open record's line that `head` names ends where it says, with its digest.
pub(crate) fn head_matches(file: &mut File, head: &chain::Head) -> std::io::Result<bool> {
    if head.lines == 0 {
        return Ok(true);
    }
    if head.end > file.metadata()?.len() {
        return Ok(false);
    }
    Ok(line_ending_at(file, head.end)?.map(|line| chain::digest(&line)) == head.last)
}

/// The line whose newline is the byte before `end`, without it; `None` when that byte is
/// not a newline.
pub(crate) fn line_ending_at(file: &mut File, end: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes: Vec<u8> = Vec::new();
    let mut from = end;
    loop {
        // A small first read: the line is most often short.
        let step = 4096u64.max(bytes.len() as u64).min(from);
        if step == 0 {
            return Ok(None);
        }
        from -= step;
        let mut chunk = vec![0u8; step as usize];
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&bytes);
        bytes = chunk;
        let Some((&b'\n', line)) = bytes.split_last() else {
            return Ok(None);
        };
        if let Some(newline) = line.iter().rposition(|&b| b == b'\n') {
            return Ok(Some(line[newline + 1..].to_vec()));
        }
        if from == 0 {
            return Ok(Some(line.to_vec()));
        }
    }
}

/// Reads a record's text.
pub fn read_str(text: &str) -> Reading {
    read_bytes(text.as_bytes())
}

/// Reads a record's bytes: the records from its text, the chain from the exact bytes
/// (a line torn inside a character is linked to as it is).
fn read_bytes(bytes: &[u8]) -> Reading {
    Reading {
        chain: chain::verify(bytes, 0),
        last_line_digest: chain::last_line_digest(bytes),
        ..read_lines(&String::from_utf8_lossy(bytes), 0)
    }
}

/// Reads the records of `text`, whose first line is line `lines_before + 1` of its file.
fn read_lines(text: &str, lines_before: usize) -> Reading {
    let mut reading = Reading::default();
    let lines: Vec<&str> = text.split('\n').collect();
    // The text after the last newline is the last line; it is torn unless empty.
    let last = lines.len() + lines_before;
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1 + lines_before;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v @ Value::Object(_)) => v,
            _ if number == last => {
                reading.notes.push(format!(
                    "line {number} is torn (a crash mid-write?); ignored"
                ));
                continue;
            }
            _ => {
                reading.notes.push(format!(
                    "line {number} is not a record (torn by a crash mid-write?); ignored"
                ));
                continue;
            }
        };
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let at = value
            .get("at")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let session_id = value
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match Body::from_value(&kind, value) {
            None => reading.notes.push(format!(
                "line {number} has an unknown record type {kind:?}; ignored"
            )),
            Some(Err(why)) => reading.notes.push(format!(
                "line {number} is a {kind} record that cannot be read ({why}); ignored"
            )),
            Some(Ok(body)) => reading.records.push(Record {
                line: number,
                at,
                session_id,
                body,
            }),
        }
    }
    reading
}

/// How much of a record is read from its end at a time when looking for where a
/// resume's reading may start: a bridged call's lines are ~1.5 KiB, so the first step
/// usually holds the lines a resume depends on (each step reads, and first zeroes, that
/// much again: 64 KiB was ~2.5 % of a resumed warm call).
const TAIL_CHUNK: u64 = 16 * 1024;

/// How much is read at a time for the record's first line (its `session.started`, a
/// few hundred bytes to a few KiB).
const FIRST_LINE_CHUNK: usize = 4 * 1024;

/// Reads what a resume needs of an open record, without reading it all: the file's
/// first line (the `session.started` that names the session) and every line from the
/// last place the resume still depends on: the last `turn.ended` (the warnings of this
/// turn), the last segment start (`session.started`, `session.resumed`, `record.cut`:
/// a hook killed mid-run) and, when the resume keeps the recorded hooks
/// (`keeps_hooks`), the last segment that took its hooks from a config.
///
/// Why: every call of a bridged agent session is a process that resumes the session's
/// record, so reading the whole record made each call slower than the one before.
/// Reading from the end makes a call's cost that of its turn, not of its session. The
/// result is what [`read_str`] of the whole text gives for those records (notes too,
/// with their line numbers), so a resume decides the same either way. The chain is
/// checked over the lines read and the one line before them (`check_resume_head` then
/// checks the end); the whole record is `log verify`'s.
pub fn read_for_resume(
    file: &mut File,
    path: &Path,
    keeps_hooks: bool,
) -> Result<Reading, RecordError> {
    let io = |e| RecordError::io(path, e);
    let len = file.metadata().map_err(io)?.len();
    let mut tail: Vec<u8> = Vec::new();
    let mut tail_from = len;
    let (from, whole_from) = loop {
        // Growing steps keep a long turn's reading linear in its length.
        let step = TAIL_CHUNK.max(tail.len() as u64).min(tail_from);
        tail_from -= step;
        let mut chunk = vec![0u8; step as usize];
        file.seek(SeekFrom::Start(tail_from))
            .and_then(|_| file.read_exact(&mut chunk))
            .map_err(io)?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        // Before the file's start, the first bytes may be the end of a line cut by the
        // chunk: only whole lines are looked at.
        let whole_from = match tail_from {
            0 => 0,
            _ => match tail.iter().position(|&b| b == b'\n') {
                Some(newline) => newline + 1,
                None => continue,
            },
        };
        if let Some(boundary) = resume_boundary(&tail[whole_from..], keeps_hooks) {
            break (tail_from + (whole_from + boundary) as u64, whole_from);
        }
        if tail_from == 0 {
            break (0, 0);
        }
    };
    if from == 0 {
        return Ok(read_bytes(&tail));
    }
    let skip = (from - tail_from) as usize;
    let depended_on = &tail[skip..];
    let mut reading = Reading {
        last_line_digest: chain::last_line_digest(depended_on),
        ..read_lines(&String::from_utf8_lossy(depended_on), 0)
    };
    // The chain over the lines the resume depends on and the one line before them, so
    // that the first of them is checked against its link too; the head then checks the
    // end. Not over every line in hand: the first chunk holds ~10 calls of a bridged
    // session (it held ~40 when it was 64 KiB), and parsing each of them for its link was
    // most of a resumed call's work (BENCHMARKS.md, eighth sitting). `log verify` checks
    // the whole record.
    let linked_from = match tail[whole_from..skip].split_last() {
        // What comes before ends with the newline of the line before the first one
        // depended on; that line starts after the newline before it.
        Some((_, before)) => before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(whole_from, |newline| whole_from + newline + 1),
        None => whole_from,
    };
    reading.chain = chain::verify(&tail[linked_from..], 0).map(|mut verified| {
        // A head is expected when any session line in hand says its writer keeps one,
        // as when every line in hand was verified.
        verified.head_expected |= sessions_keep_a_head(&tail[whole_from..linked_from]);
        verified
    });
    let head = read_first_line(file, path)?;
    let first = first_line_records(head);
    let starts = matches!(first.as_slice(), [r] if matches!(r.body, Body::Started(_)));
    if !starts || !reading.notes.is_empty() || reading.chain.is_err() {
        // A record that does not start with its session, or notes and a broken chain
        // whose line numbers need the lines before: read it all, as a plain read does.
        let mut all = Vec::new();
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_end(&mut all))
            .map_err(io)?;
        return Ok(read_bytes(&all));
    }
    reading.records.splice(0..0, first);
    Ok(reading)
}

/// The records of a record's first line, `head` (without its newline).
///
/// Every call of a bridged session resumes it and reads the same first line, a
/// `session.started` with the session's hooks: a warm server's thread keeps what the same
/// text gave ([`crate::recent`]).
fn first_line_records(head: String) -> Vec<Record> {
    thread_local! {
        static READ: Place<String, Vec<Record>> = const { recent::place() };
    }
    recent::or_make(
        &READ,
        head.len(),
        |kept| *kept == head,
        || head.clone(),
        || read_str(&head).records,
    )
}

/// The offset in `lines` (whole lines, the file's last ones) of the earliest line a
/// resume depends on ([`read_for_resume`]), or `None` when that lies further back.
/// Lines are told by their keys before being parsed: the writer writes a key and its
/// colon without spaces, and a string value cannot hold `"key":` unescaped.
fn resume_boundary(lines: &[u8], keeps_hooks: bool) -> Option<usize> {
    let mut turn = false;
    let mut segment = false;
    let mut hooks = !keeps_hooks;
    let mut end = lines.len();
    while end > 0 {
        let start = lines[..end - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |newline| newline + 1);
        let line = &lines[start..end];
        end = start;
        let kind = record_type(line);
        let started = kind == Some(b"session.started");
        let resumed = kind == Some(b"session.resumed");
        // A resume writes down what had warned in its turn (`warned_this_turn`).
        let snapshot = resumed && contains(line, b"\"warned_this_turn\":");
        turn |= started || snapshot || kind == Some(b"turn.ended");
        segment |= started || resumed || kind == Some(b"record.cut");
        if !hooks && (started || resumed) {
            let text = String::from_utf8_lossy(line);
            hooks = read_str(&text).records.iter().any(|r| match &r.body {
                Body::Started(s) => !s.no_hooks,
                Body::Resumed(s) => !s.no_hooks && s.clean == Some(true),
                _ => false,
            });
        }
        if turn && segment && hooks {
            return Some(start);
        }
    }
    None
}

/// Whether a `session.started` or `session.resumed` among `lines` says its writer keeps a
/// head (`"chain_head":true`, which the writer puts at the top level of those lines
/// alone; their nested values have fixed keys, so the bytes cannot come from elsewhere).
fn sessions_keep_a_head(lines: &[u8]) -> bool {
    lines.split(|&b| b == b'\n').any(|line| {
        matches!(
            record_type(line),
            Some(b"session.started" | b"session.resumed")
        ) && contains(line, b"\"chain_head\":true")
    })
}

/// The value of a line's `"type"` key, read without parsing the line.
fn record_type(line: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = b"\"type\":\"";
    let at = line.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let len = line[at..].iter().position(|&b| b == b'"')?;
    Some(&line[at..at + len])
}

/// Whether `line` holds `needle`.
fn contains(line: &[u8], needle: &[u8]) -> bool {
    line.windows(needle.len()).any(|w| w == needle)
}

/// The file's first line, up to its newline.
fn read_first_line(file: &mut File, path: &Path) -> Result<String, RecordError> {
    let io = |e| RecordError::io(path, e);
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut head = Vec::new();
    let mut chunk = vec![0u8; FIRST_LINE_CHUNK];
    loop {
        let n = file.read(&mut chunk).map_err(io)?;
        if n == 0 {
            break;
        }
        if let Some(newline) = chunk[..n].iter().position(|&b| b == b'\n') {
            head.extend_from_slice(&chunk[..newline]);
            break;
        }
        head.extend_from_slice(&chunk[..n]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::Decision;
    use crate::record::{
        Decided, GateFields, HookStarted, RecordWriter, ResumeFrom, ResumePlan, SessionBody,
    };

    fn session(clean: Option<bool>, no_hooks: bool) -> SessionBody {
        SessionBody {
            cwd: "/p".into(),
            permission_mode: "default".into(),
            no_hooks,
            hooks: Vec::new(),
            banner: "hooks: none".into(),
            clean,
            skipped: Vec::new(),
            warnings: Vec::new(),
            warned_this_turn: None,
            owner: Default::default(),
            version: "test".into(),
        }
    }

    fn gate(i: usize) -> GateFields {
        GateFields {
            tool: Some("bash".into()),
            tool_use_id: Some(format!("T{i}")),
            prompt: None,
        }
    }

    /// What a resume decides from a reading, as comparable text.
    fn plan(reading: &Reading, clean: bool) -> String {
        let from = ResumeFrom {
            file: "/r".into(),
            clean,
        };
        match ResumePlan::new(&from, reading) {
            Ok(p) => format!(
                "{} {} {:?} {:?} {:?} {:?}",
                p.session_id,
                p.keeps_recorded(),
                p.recorded.map(|h| h.len()),
                p.killed,
                p.notes,
                p.warned_this_turn,
            ),
            Err(e) => e.to_string(),
        }
    }

    /// A bridged session's record, many calls long (well past one read chunk): each
    /// call a clean resume, failures warned, turns ended, and last a hook that started
    /// and never ended; its resumes written by this version (with what had warned in
    /// the turn) or an older one (without). The tail reading decides what the whole
    /// one does, and with the snapshots reads only the last call.
    fn bridged_record(path: &Path, snapshots: bool) {
        let writer = RecordWriter::create(path, "S").unwrap();
        writer.write(&Body::Started(session(None, false))).unwrap();
        let mut warned: Vec<String> = Vec::new();
        for i in 0..700 {
            let mut resumed = session(Some(true), false);
            resumed.warned_this_turn = snapshots.then(|| warned.clone());
            writer.write(&Body::Resumed(resumed)).unwrap();
            if i % 97 == 0 {
                writer.write(&Body::TurnEnded).unwrap();
                warned.clear();
            }
            let hook = format!("hook-{}", i % 3);
            let decision = match i % 5 {
                0 => Decision::FailureContinued,
                _ => Decision::Block,
            };
            if decision == Decision::FailureContinued && !warned.contains(&hook) {
                warned.push(hook.clone());
            }
            writer
                .write(&Body::Decided(Decided {
                    hook,
                    gate: gate(i),
                    decision,
                    reason: "x".repeat(200),
                }))
                .unwrap();
        }
        writer
            .write(&Body::HookStarted(HookStarted {
                hook: "slow".into(),
                input_digest: "sha256:00".into(),
                gate: gate(700),
            }))
            .unwrap();
    }

    #[test]
    fn a_resume_decides_the_same_from_the_tail_as_from_the_whole_record() {
        let dir = tempfile::tempdir().unwrap();
        for snapshots in [false, true] {
            let path = dir.path().join(format!("r-{snapshots}.jsonl"));
            bridged_record(&path, snapshots);
            let whole = read_file(&path).unwrap();
            assert!(std::fs::metadata(&path).unwrap().len() > 3 * TAIL_CHUNK);
            for clean in [true, false] {
                let mut file = File::open(&path).unwrap();
                let tail = read_for_resume(&mut file, &path, !clean).unwrap();
                let most = if snapshots {
                    4
                } else {
                    whole.records.len() / 4
                };
                assert!(tail.records.len() <= most, "{}", tail.records.len());
                assert_eq!(plan(&tail, clean), plan(&whole, clean));
            }
            let decided = plan(&whole, true);
            assert!(decided.contains("killed before bash ran"), "{decided}");
            assert!(
                decided.contains("[\"hook-2\", \"hook-1\", \"hook-0\"]"),
                "{decided}"
            );
        }
        let path = dir.path().join("r-true.jsonl");

        // An edit within what the resume reads breaks its chain, named by its line.
        let text = std::fs::read_to_string(&path).unwrap();
        let pattern = "\"reason\":\"x";
        let last_decided = text.rfind(pattern).unwrap();
        let mut edited = text.clone();
        edited.replace_range(last_decided..last_decided + pattern.len(), "\"reason\":\"y");
        let edited_path = dir.path().join("edited.jsonl");
        std::fs::write(&edited_path, &edited).unwrap();
        let mut file = File::open(&edited_path).unwrap();
        let tail = read_for_resume(&mut file, &edited_path, false).unwrap();
        let line = edited[..last_decided].matches('\n').count() + 1;
        assert_eq!(tail.chain.unwrap_err().line, line);

        // So does an edit of the line before the first one the resume depends on (the
        // last call's `session.resumed`): that line's link is checked too.
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let before_resumed = lines
            .iter()
            .rposition(|l| l.contains("\"type\":\"session.resumed\""))
            .unwrap();
        let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        edited[before_resumed - 1] =
            edited[before_resumed - 1].replacen("\"at\":\"", "\"at\":\"1", 1);
        std::fs::write(&edited_path, edited.concat()).unwrap();
        let mut file = File::open(&edited_path).unwrap();
        let tail = read_for_resume(&mut file, &edited_path, false).unwrap();
        assert_eq!(tail.chain.unwrap_err().line, before_resumed);

        // A torn line in the tail: the notes keep the file's line numbers.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"type\":\"effect\",\"at");
        std::fs::write(&path, &text).unwrap();
        let mut file = File::open(&path).unwrap();
        let tail = read_for_resume(&mut file, &path, false).unwrap();
        assert_eq!(plan(&tail, true), plan(&read_str(&text), true));
        assert!(plan(&tail, true).contains("is torn"));
    }

    #[test]
    fn a_head_is_expected_from_the_session_lines_that_say_so() {
        let started = "{\"prev\":\"sha256:00\",\"type\":\"session.started\",\"chain_head\":true}";
        let resumed = "{\"type\":\"session.resumed\",\"chain_head\":true,\"cwd\":\"/p\"}";
        let old = "{\"type\":\"session.resumed\",\"cwd\":\"/p\"}";
        // The key inside a tool's input (a gate line) says nothing about the writer.
        let gate = "{\"type\":\"gate.verdict\",\"tool_input\":{\"chain_head\":true}}";
        assert!(sessions_keep_a_head(format!("{started}\n").as_bytes()));
        assert!(sessions_keep_a_head(
            format!("{gate}\n{resumed}\n").as_bytes()
        ));
        assert!(!sessions_keep_a_head(format!("{old}\n{gate}\n").as_bytes()));
        assert!(!sessions_keep_a_head(b""));
    }

    #[test]
    fn torn_last_line_and_unknown_types_are_notes() {
        let text = concat!(
            "{\"type\":\"turn.ended\",\"at\":\"x\",\"session_id\":\"s\"}\n",
            "{\"type\":\"future.thing\",\"at\":\"x\",\"session_id\":\"s\"}\n",
            "{\"type\":\"effect\",\"at\":\"x\",\"sess"
        );
        let r = read_str(text);
        assert_eq!(r.records.len(), 1);
        assert_eq!(
            r.notes,
            [
                "line 2 has an unknown record type \"future.thing\"; ignored",
                "line 3 is torn (a crash mid-write?); ignored"
            ]
        );
    }
}
