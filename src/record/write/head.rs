//! The record's head (`FILE.head`, [`chain::Head`]): the file beside the record that
//! says how many lines it holds and how it ends, rewritten in place under the record's
//! lock, so that `log verify` can tell a record cut at its end from a whole one.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::Tail;
use crate::platform::sys;
use crate::record::chain::{self, Head};

/// The record's head file, open to be rewritten in place.
#[derive(Debug)]
pub(super) struct HeadFile {
    file: File,
    path: PathBuf,
}

impl HeadFile {
    /// The head of a record created a moment ago (whose lock is held): 0600, saying no
    /// line yet, in place of one a removed record of that name left.
    pub(super) fn create(record: &Path) -> std::io::Result<HeadFile> {
        let path = chain::head_path(record);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let file = sys::files::private_file_mode(
            OpenOptions::new().read(true).write(true).create_new(true),
        )
        .open(&path)?;
        sys::files::make_file_private(&file)?;
        let head = HeadFile { file, path };
        head.write(&Head {
            lines: 0,
            end: 0,
            last: None,
        })?;
        Ok(head)
    }

    /// The head of a resumed record, as it is.
    pub(super) fn open(record: &Path) -> std::io::Result<HeadFile> {
        let path = chain::head_path(record);
        let file = sys::files::open_without_blocking(OpenOptions::new().read(true).write(true))
            .open(&path)?;
        crate::access::check_regular(&file)?;
        Ok(HeadFile { file, path })
    }

    /// Rewrites the head: one positioned write of [`chain::HEAD_LEN`] bytes at its start
    /// (a seek and a write were two syscalls, once per gate).
    pub(super) fn write(&self, head: &Head) -> std::io::Result<()> {
        sys::files::write_all_at(&self.file, &head.encode(), 0)
    }
}

/// Writes the head for the lines written so far; a failure is said once, and the head is
/// not kept from then on (the record is: `log verify` then notes the lines after it).
pub(super) fn update_head(tail: &mut Tail) {
    let (Some(end), Some(lines), Some(head)) = (tail.len, tail.lines, tail.head.as_mut()) else {
        return;
    };
    if lines > 0 && tail.last_digest.is_none() {
        return;
    }
    let state = Head {
        lines,
        end,
        last: tail.last_digest.clone().filter(|_| lines > 0),
    };
    match head.write(&state) {
        Ok(()) => tail.head_stale = false,
        Err(e) => {
            let warning = format!(
                "⚠ the session record's head {} could not be written ({e}); `hookhost log verify` cannot check the record's end past this point.",
                head.path.display()
            );
            tail.head = None;
            let _ = writeln!(
                std::io::stderr(),
                "{}",
                crate::escape::for_terminal(&warning)
            );
        }
    }
}

/// A head that could not be made: said once, and the record is written without one.
pub(super) fn head_or_warn(head: std::io::Result<HeadFile>, record: &Path) -> Option<HeadFile> {
    head.map_err(|e| {
        let warning = format!(
            "⚠ the head of the session record {} could not be made ({e}); `hookhost log verify` cannot check the record's end.",
            record.display()
        );
        let _ = writeln!(
            std::io::stderr(),
            "{}",
            crate::escape::for_terminal(&warning)
        );
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::super::RecordWriter;
    use super::*;
    use crate::record::{Body, GateFields, GateVerdict, chain::HeadSeen};
    use serde_json::Value;

    /// The text the head had when it was made through a `json!` map.
    fn encoded_as_a_map(head: &Head) -> Vec<u8> {
        let mut text = serde_json::json!({
            "lines": head.lines,
            "end": head.end,
            "last": head.last,
        })
        .to_string();
        while text.len() < chain::HEAD_LEN - 1 {
            text.push(' ');
        }
        text.push('\n');
        text.into_bytes()
    }

    #[test]
    fn encoded_as_the_map_was() {
        let digest = chain::digest(b"x");
        for (lines, end, last) in [
            (0, 0, None),
            (1, 17, Some(digest.clone())),
            (usize::MAX, u64::MAX, Some(digest)),
            (3, 9, Some("sha256:\"odd\"\u{e9}".to_string())),
            (3, 9, Some("x".repeat(200))),
        ] {
            let head = Head { lines, end, last };
            assert_eq!(
                String::from_utf8(head.encode()).unwrap(),
                String::from_utf8(encoded_as_a_map(&head)).unwrap()
            );
        }
    }

    fn verdict() -> Body {
        Body::Verdict(GateVerdict {
            gate: GateFields::default(),
            tool_input: None,
            verdict: Value::Null,
            bridged: None,
        })
    }

    fn resume(path: &Path) -> RecordWriter {
        let (file, reading, _) = RecordWriter::resume(path, false).unwrap();
        reading.chain.as_ref().unwrap();
        RecordWriter::resumed(path, "S", file, reading.last_line_digest).unwrap()
    }

    fn lines(path: &Path) -> usize {
        std::fs::read(path)
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    /// The head follows the record across writers (each call of a bridged session is a
    /// process of its own): one write per verdict, one at the end; a record from before
    /// heads gets one on its first resume, and a torn line is closed and vouched for.
    #[test]
    fn the_head_follows_the_record_across_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let writer = RecordWriter::create(&path, "S").unwrap();
        writer.write(&Body::TurnEnded).unwrap();
        writer.write(&verdict()).unwrap();
        writer.write(&Body::TurnEnded).unwrap();
        let head = || crate::record::read_head(&path).unwrap();
        let HeadSeen::Found(h) = head() else { panic!() };
        assert_eq!(h.lines, 2, "the verdict wrote the head");
        drop(writer);
        let end = |path: &Path| crate::record::verify_file(path).unwrap().unwrap().end;
        assert_eq!(end(&path), Some(chain::End::Matches { lines: 3 }));
        for _ in 0..3 {
            let writer = resume(&path);
            writer.write(&verdict()).unwrap();
            drop(writer);
            assert_eq!(
                end(&path),
                Some(chain::End::Matches {
                    lines: lines(&path)
                })
            );
        }
        // A crash's torn line: closed by the next resume, whose first line vouches for
        // the line before it.
        let mut torn = std::fs::read(&path).unwrap();
        torn.extend_from_slice(b"{\"prev\":\"sha");
        std::fs::write(&path, &torn).unwrap();
        assert!(crate::record::verify_file(&path).unwrap().is_ok());
        let writer = resume(&path);
        writer.write(&Body::TurnEnded).unwrap();
        drop(writer);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.lines().last().unwrap().contains("\"torn_prev\":"));
        assert_eq!(
            end(&path),
            Some(chain::End::Matches {
                lines: lines(&path)
            })
        );

        // A record from before heads: none expected, one made on resume.
        let old = dir.path().join("old.jsonl");
        std::fs::write(&old, "{\"type\":\"turn.ended\"}\n").unwrap();
        assert_eq!(end(&old), Some(chain::End::NoHead));
        drop(resume(&old));
        assert_eq!(end(&old), Some(chain::End::Matches { lines: 1 }));
    }
}
