//! The `effect` record: what a hook's run gave back (its exit status and output streams,
//! each capped at [`RECORD_OUTPUT_CAP`], or the executor's failure), written as JSON and
//! read back exactly enough for replay to serve it.

use serde_json::{Map, Value, json};

use super::RECORD_OUTPUT_CAP;
use crate::executor::{ExitStatus, Failure, RawOutput, Stream};

/// One recorded output stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamRecord {
    /// The bytes kept (all of them unless `full_len` says otherwise).
    pub kept: Vec<u8>,
    /// For a cut stream: its full length and `sha256:` digest.
    pub cut: Option<(usize, String)>,
}

impl StreamRecord {
    /// Keeps at most [`RECORD_OUTPUT_CAP`] bytes of `bytes`.
    pub fn capture(bytes: &[u8]) -> StreamRecord {
        if bytes.len() <= RECORD_OUTPUT_CAP {
            return StreamRecord {
                kept: bytes.to_vec(),
                cut: None,
            };
        }
        let mut end = RECORD_OUTPUT_CAP;
        // Keep valid UTF-8 valid: cut on a character boundary.
        if std::str::from_utf8(bytes).is_ok() {
            while end > 0 && (bytes[end] & 0xC0) == 0x80 {
                end -= 1;
            }
        }
        StreamRecord {
            kept: bytes[..end].to_vec(),
            cut: Some((bytes.len(), crate::dispatch::input_digest(bytes))),
        }
    }

    fn write(&self, name: &str, map: &mut Map<String, Value>) {
        match std::str::from_utf8(&self.kept) {
            Ok(text) => map.insert(name.into(), Value::String(text.into())),
            Err(_) => map.insert(
                format!("{name}_hex"),
                Value::String(hex::encode(&self.kept)),
            ),
        };
        if let Some((len, digest)) = &self.cut {
            map.insert(format!("{name}_truncated"), Value::Bool(true));
            map.insert(format!("{name}_len"), json!(len));
            map.insert(format!("{name}_sha256"), Value::String(digest.clone()));
        }
    }

    fn read(name: &str, map: &Map<String, Value>) -> Result<StreamRecord, String> {
        let kept = match (map.get(name), map.get(&format!("{name}_hex"))) {
            (Some(Value::String(s)), _) => s.as_bytes().to_vec(),
            (_, Some(Value::String(h))) => hex::decode(h)
                .ok()
                .ok_or(format!("{name}_hex is not hex"))?,
            (None, None) => Vec::new(),
            _ => return Err(format!("{name} is not a string")),
        };
        let cut = if map.get(&format!("{name}_truncated")) == Some(&Value::Bool(true)) {
            let len = map
                .get(&format!("{name}_len"))
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize;
            let digest = map
                .get(&format!("{name}_sha256"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            Some((len, digest))
        } else {
            None
        };
        Ok(StreamRecord { kept, cut })
    }
}

/// What an `effect` says came back from the executor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EffectResult {
    /// The hook ran to completion.
    Ran {
        /// How it ended.
        status: ExitStatus,
        /// Its stdout, as kept.
        stdout: StreamRecord,
        /// Its stderr, as kept.
        stderr: StreamRecord,
    },
    /// The executor's failure.
    Failed(Failure),
}

/// `effect`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    /// The hook.
    pub hook: String,
    /// `sha256:` of the exact stdin bytes.
    pub input_digest: String,
    /// What came back.
    pub outcome: EffectResult,
}

impl Effect {
    /// The effect of a run, outputs capped at [`RECORD_OUTPUT_CAP`].
    pub fn capture(hook: &str, input_digest: &str, result: &Result<RawOutput, Failure>) -> Effect {
        let outcome = match result {
            Ok(out) => EffectResult::Ran {
                status: out.status,
                stdout: StreamRecord::capture(&out.stdout),
                stderr: StreamRecord::capture(&out.stderr),
            },
            Err(failure) => EffectResult::Failed(failure.clone()),
        };
        Effect {
            hook: hook.into(),
            input_digest: input_digest.into(),
            outcome,
        }
    }

    /// The executor's result, exactly as it was; `Err(why)` when the record cut an
    /// output stream and so cannot give it back exactly.
    pub fn result(&self) -> Result<Result<RawOutput, Failure>, String> {
        match &self.outcome {
            EffectResult::Failed(f) => Ok(Err(f.clone())),
            EffectResult::Ran {
                status,
                stdout,
                stderr,
            } => {
                for (name, stream) in [("stdout", stdout), ("stderr", stderr)] {
                    if let Some((len, _)) = &stream.cut {
                        return Err(format!(
                            "its {name} ({len} bytes) was cut to {} bytes in the record",
                            stream.kept.len()
                        ));
                    }
                }
                Ok(Ok(RawOutput {
                    status: *status,
                    stdout: stdout.kept.clone(),
                    stderr: stderr.kept.clone(),
                }))
            }
        }
    }

    pub(super) fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("hook".into(), Value::String(self.hook.clone()));
        map.insert(
            "input_digest".into(),
            Value::String(self.input_digest.clone()),
        );
        match &self.outcome {
            EffectResult::Ran {
                status,
                stdout,
                stderr,
            } => {
                match status {
                    ExitStatus::Code(c) => map.insert("exit_code".into(), json!(c)),
                    ExitStatus::Signal(s) => map.insert("signal".into(), json!(s)),
                };
                stdout.write("stdout", &mut map);
                stderr.write("stderr", &mut map);
            }
            EffectResult::Failed(f) => {
                map.insert("failure".into(), failure_to_value(f));
            }
        }
        Value::Object(map)
    }

    pub(super) fn from_value(value: &Value) -> Result<Effect, String> {
        let map = value.as_object().ok_or("not an object")?;
        let text = |key: &str| {
            map.get(key)
                .and_then(Value::as_str)
                .map(String::from)
                .ok_or(format!("no {key}"))
        };
        let outcome = if let Some(f) = map.get("failure") {
            EffectResult::Failed(failure_from_value(f)?)
        } else {
            let status = if let Some(code) = map.get("exit_code").and_then(Value::as_i64) {
                ExitStatus::Code(code as i32)
            } else if let Some(sig) = map.get("signal").and_then(Value::as_i64) {
                ExitStatus::Signal(sig as i32)
            } else {
                return Err("no exit_code, signal or failure".into());
            };
            EffectResult::Ran {
                status,
                stdout: StreamRecord::read("stdout", map)?,
                stderr: StreamRecord::read("stderr", map)?,
            }
        };
        Ok(Effect {
            hook: text("hook")?,
            input_digest: text("input_digest")?,
            outcome,
        })
    }
}

fn failure_to_value(f: &Failure) -> Value {
    let mut v = match f {
        Failure::TimedOut(d) => json!({"kind": "timed_out", "seconds": d.as_secs()}),
        Failure::CouldNotStart(e) => json!({"kind": "could_not_start", "error": e}),
        Failure::KilledBySignal => json!({"kind": "killed_by_signal"}),
        Failure::OutputTooLarge(s) => json!({"kind": "output_too_large", "stream": match s {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }}),
        Failure::Trapped(e) => json!({"kind": "trapped", "error": e}),
        Failure::Interrupted => json!({"kind": "interrupted"}),
    };
    v["text"] = Value::String(f.to_string());
    v
}

fn failure_from_value(v: &Value) -> Result<Failure, String> {
    let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    Ok(match v.get("kind").and_then(Value::as_str).unwrap_or("") {
        "timed_out" => Failure::TimedOut(std::time::Duration::from_secs(
            v.get("seconds").and_then(Value::as_u64).unwrap_or(0),
        )),
        "could_not_start" => Failure::CouldNotStart(field("error")),
        "killed_by_signal" => Failure::KilledBySignal,
        "output_too_large" => Failure::OutputTooLarge(if field("stream") == "stderr" {
            Stream::Stderr
        } else {
            Stream::Stdout
        }),
        "trapped" => Failure::Trapped(field("error")),
        "interrupted" => Failure::Interrupted,
        other => return Err(format!("unknown failure kind {other:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effects_round_trip() {
        let cases: Vec<Result<RawOutput, Failure>> = vec![
            Ok(RawOutput {
                status: ExitStatus::Code(2),
                stdout: b"".to_vec(),
                stderr: b"no force\n".to_vec(),
            }),
            Ok(RawOutput {
                status: ExitStatus::Signal(9),
                stdout: vec![0xff, 0x00, 0x41],
                stderr: Vec::new(),
            }),
            Err(Failure::TimedOut(std::time::Duration::from_secs(10))),
            Err(Failure::CouldNotStart("no such file".into())),
            Err(Failure::KilledBySignal),
            Err(Failure::OutputTooLarge(Stream::Stderr)),
            Err(Failure::Trapped("unreachable".into())),
            Err(Failure::Interrupted),
        ];
        for result in cases {
            let effect = Effect::capture("h", "sha256:00", &result);
            let back = Effect::from_value(&effect.to_value()).unwrap();
            assert_eq!(back, effect);
            assert_eq!(back.result().unwrap(), result);
        }
    }

    #[test]
    fn a_long_stream_is_cut_and_says_so() {
        let big = "é".repeat(RECORD_OUTPUT_CAP);
        let effect = Effect::capture(
            "h",
            "sha256:00",
            &Ok(RawOutput {
                status: ExitStatus::Code(0),
                stdout: big.clone().into_bytes(),
                stderr: Vec::new(),
            }),
        );
        let value = effect.to_value();
        assert_eq!(value["stdout_truncated"], true);
        assert_eq!(value["stdout_len"], big.len());
        assert!(value["stdout"].as_str().unwrap().len() <= RECORD_OUTPUT_CAP);
        assert!(effect.result().is_err());
    }
}
