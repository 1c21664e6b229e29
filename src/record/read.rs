//! The reader: tolerant of a torn last line, lines that are not records and record
//! types it does not know; each gives a note and is skipped, never a panic.

use std::path::Path;

use serde_json::Value;

use super::{Body, Record, RecordError};

/// A record file read back: its records in order, and notes about what was skipped.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// The records that could be read.
    pub records: Vec<Record>,
    /// `line 17 is torn (a crash mid-write?); ignored`, and the like.
    pub notes: Vec<String>,
}

/// Reads a record file.
pub fn read_file(path: &Path) -> Result<Reading, RecordError> {
    let bytes = std::fs::read(path).map_err(|e| RecordError::io(path, e))?;
    Ok(read_str(&String::from_utf8_lossy(&bytes)))
}

/// Reads a record's text.
pub fn read_str(text: &str) -> Reading {
    let mut reading = Reading::default();
    let lines: Vec<&str> = text.split('\n').collect();
    // The text after the last newline is the last line; it is torn unless empty.
    let last = lines.len();
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
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

#[cfg(test)]
mod tests {
    use super::*;

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
