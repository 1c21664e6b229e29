//! A record's line, as bytes: the common fields, then the body's, then a newline.

use super::{Fields, RecordWriter};
use crate::record::RecordError;

impl RecordWriter {
    /// The record's line: the common fields (`prev` first, the digest of the line before
    /// it, if any, so that even a torn line keeps its link; `chain_head` on a session's
    /// first line when the writer keeps a head; `torn_prev` after a torn line), the
    /// body's, and a newline.
    pub(super) fn line(
        &self,
        record: &Fields,
        prev: Option<&str>,
        chain_head: bool,
        torn_prev: Option<&str>,
    ) -> Result<Vec<u8>, RecordError> {
        // Written field by field rather than through a `Value` map: the same text (the
        // common fields first, then the body's, `common_fields_then_the_body`), without
        // building and hashing a map of every line first.
        let fields = &record.json;
        let mut line = Vec::with_capacity(fields.len() + 256);
        fn field(line: &mut Vec<u8>, key: &str, value: &str) {
            line.extend_from_slice(if line.is_empty() { b"{\"" } else { b",\"" });
            line.extend_from_slice(key.as_bytes());
            line.extend_from_slice(b"\":");
            // Writing a string into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *line, value);
        }
        if let Some(prev) = prev {
            field(&mut line, "prev", prev);
        }
        field(&mut line, "type", record.type_name);
        with_now(|at| field(&mut line, "at", at));
        field(&mut line, "session_id", &self.session_id);
        if chain_head {
            line.extend_from_slice(b",\"chain_head\":true");
        }
        if let Some(torn_prev) = torn_prev {
            field(&mut line, "torn_prev", torn_prev);
        }
        // The body's object without its `{`: `}` alone for an empty one.
        match &fields[1..] {
            b"}" => line.push(b'}'),
            rest => {
                line.push(b',');
                line.extend_from_slice(rest);
            }
        }
        line.push(b'\n');
        Ok(line)
    }
}

/// Calls `f` with the time a line says it was written (`crate::record::now_rfc3339`).
/// The text is made once per millisecond and thread: the lines of a gate are mostly
/// written within one, and formatting the date was ~3k instructions a line.
fn with_now<T>(f: impl FnOnce(&str) -> T) -> T {
    use std::cell::RefCell;
    thread_local! {
        static LAST: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
    }
    #[cfg(test)]
    if let Some(at) = tests::FIXED_AT.with(|at| at.borrow().clone()) {
        return f(&at);
    }
    // As `now_rfc3339` reads the clock.
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as i64;
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if last.0 != millis {
            *last = (millis, crate::record::rfc3339(millis));
        }
        f(&last.1)
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::record::{Body, GateFields, GateVerdict};
    use serde_json::{Map, Value};

    thread_local! {
        /// The `at` of every line this thread makes, when set: two writers' records can
        /// then be compared byte for byte.
        pub(in crate::record::write) static FIXED_AT: std::cell::RefCell<Option<String>> =
            const { std::cell::RefCell::new(None) };
    }

    /// Lines written field by field are the text the `Value` map they replace gave,
    /// byte for byte (the chain links those bytes): the common fields first, in their
    /// order, then the body's, for every kind of body.
    #[test]
    fn common_fields_then_the_body() {
        use crate::call::ClaudeInputSource;
        use crate::dispatch::Decision;
        use crate::dispatch::HookOwner;
        use crate::envelope::EnvelopeShape;
        use crate::executor::{ExitStatus, Failure, RawOutput};
        use crate::record::{ContextRecord, Cut, Decided, Effect, HookStarted, SessionBody};
        use serde_json::json;

        let dir = tempfile::tempdir().unwrap();
        let writer = RecordWriter::create(&dir.path().join("r.jsonl"), "S \"1\"").unwrap();
        let gate = GateFields {
            tool: Some("bash".into()),
            tool_use_id: Some("toolu_1".into()),
            prompt: None,
        };
        let ran = Ok(RawOutput {
            status: ExitStatus::Code(2),
            stdout: b"{\"decision\":\"block\"}\n".to_vec(),
            stderr: vec![0xff, 0x00],
        });
        let bodies = [
            Body::Started(SessionBody {
                cwd: "/p \u{e9}".into(),
                permission_mode: "auto".into(),
                no_hooks: false,
                hooks: Vec::new(),
                banner: "hooks: (none)".into(),
                clean: Some(true),
                skipped: vec!["x".into()],
                warnings: Vec::new(),
                warned_this_turn: Some(Vec::new()),
                version: "0.1.0".into(),
                owner: HookOwner::User,
            }),
            Body::Started(SessionBody {
                cwd: "/p".into(),
                permission_mode: "default".into(),
                no_hooks: false,
                hooks: Vec::new(),
                banner: "hooks: (none)".into(),
                clean: None,
                skipped: Vec::new(),
                warnings: vec!["w".into()],
                warned_this_turn: None,
                version: "0.1.0".into(),
                owner: HookOwner::Administrator,
            }),
            Body::HookStarted(HookStarted {
                hook: "h".into(),
                input_digest: "sha256:00".into(),
                gate: gate.clone(),
            }),
            Body::Effect(Effect::capture("h", "sha256:00", &ran)),
            Body::Effect(Effect::capture(
                "h",
                "sha256:00",
                &Err(Failure::Interrupted),
            )),
            Body::Decided(Decided {
                hook: "h".into(),
                gate: gate.clone(),
                decision: Decision::Block,
                reason: "no \"force\"\n".into(),
            }),
            Body::Context(ContextRecord {
                hook: "h".into(),
                characters: 3,
                text: "a\tb".into(),
            }),
            Body::Verdict(GateVerdict {
                gate: GateFields {
                    tool: None,
                    tool_use_id: None,
                    prompt: Some("ooo".into()),
                },
                tool_input: Some(json!({"command": "git push -f", "n": 1.5, "big": 1u64 << 63})),
                verdict: json!({"outcome": "allow", "message": null, "warnings": []}),
                bridged: Some(ClaudeInputSource {
                    default_envelope: EnvelopeShape::ClaudeCode,
                    transcript_path: Some("/t.jsonl".into()),
                    tool_name: Some("Bash".into()),
                    tool_input: Some(json!({"command": "ls"})),
                    unknown_to: None,
                }),
            }),
            Body::TurnEnded,
            Body::Cut(Cut {
                reason: "disk full".into(),
            }),
        ];
        for body in &bodies {
            for (prev, chain_head, torn_prev) in [
                (None, true, None),
                (Some("sha256:ab"), false, None),
                (Some("sha256:ab"), false, Some("sha256:cd")),
            ] {
                let line = writer
                    .line(&Fields::of(body), prev, chain_head, torn_prev)
                    .unwrap();
                let written: Value = serde_json::from_slice(&line).unwrap();
                let mut map = Map::new();
                if let Some(prev) = prev {
                    map.insert("prev".into(), Value::String(prev.into()));
                }
                map.insert("type".into(), Value::String(body.type_name().into()));
                map.insert("at".into(), written["at"].clone());
                map.insert("session_id".into(), Value::String("S \"1\"".into()));
                if chain_head {
                    map.insert("chain_head".into(), Value::Bool(true));
                }
                if let Some(torn_prev) = torn_prev {
                    map.insert("torn_prev".into(), Value::String(torn_prev.into()));
                }
                map.extend(body.to_map());
                let mut want = serde_json::to_vec(&Value::Object(map)).unwrap();
                want.push(b'\n');
                assert_eq!(
                    String::from_utf8_lossy(&line),
                    String::from_utf8_lossy(&want)
                );
            }
        }
    }
}
