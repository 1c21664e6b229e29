//! The writer as the dispatcher's [`Recorder`]: each [`RunEvent`] as its record.
//!
//! The three records of every gate (`hook.started`, `effect`, `gate.verdict`) are written
//! straight from the event's borrowed values, the same text their [`Body`] gives
//! (`borrowed_records_are_the_bodies_text`): making the body first copied the tool input
//! and the hook's output, and turned the verdict and the effect into `Value` maps (each
//! key allocated and hashed) only to write them out and drop them.

use serde::Serialize;
use serde_json::Value;

use super::{Fields, Kind, RecordWriter};
use crate::call::ClaudeInputSource;
use crate::dispatch::{Gate, Recorder, RunEvent, Verdict};
use crate::executor::{ExitStatus, RawOutput};
use crate::record::{
    Body, ContextRecord, Decided, Effect, GateFields, GateVerdict, HookStarted, RECORD_OUTPUT_CAP,
};

impl Recorder for RecordWriter {
    fn record(&self, event: RunEvent<'_>) {
        // What follows a hook's run is held for the gate's next line, which the
        // dispatcher records before it awaits anything (see the module docs).
        let hold = matches!(
            event,
            RunEvent::Effect { .. } | RunEvent::Decided { .. } | RunEvent::Context { .. }
        );
        self.write_or_warn(&fields(event), hold);
    }
}

/// The record of `event`.
fn fields(event: RunEvent<'_>) -> Fields {
    let borrowed = match event {
        RunEvent::HookStarted {
            hook,
            input_digest,
            gate,
        } => serde_json::to_vec(&HookStartedRef {
            hook,
            input_digest,
            gate: GateRef::of(gate),
        })
        .ok()
        .map(|json| (json, "hook.started", Kind::HookStarted)),
        RunEvent::Effect {
            hook,
            input_digest,
            result: Ok(output),
        } => effect_ran(hook, input_digest, output).map(|json| (json, "effect", Kind::Effect)),
        // A failure keeps its `Body` (rare, and its text is the failure's own).
        RunEvent::Verdict {
            gate,
            tool_input,
            verdict,
            bridged,
        } => serde_json::to_vec(&VerdictRef {
            gate: GateRef::of(gate),
            tool_input,
            verdict,
            bridged,
        })
        .ok()
        .map(|json| (json, "gate.verdict", Kind::Verdict)),
        _ => None,
    };
    match borrowed {
        Some((json, type_name, kind)) if json.first() == Some(&b'{') => Fields {
            type_name,
            json,
            kind,
        },
        _ => Fields::of(&body(event)),
    }
}

/// The record of `event` as its [`Body`]: every record the borrowed forms above do not
/// make (and what they are checked against).
fn body(event: RunEvent<'_>) -> Body {
    match event {
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
    }
}

/// [`GateFields`], borrowed.
#[derive(Serialize)]
struct GateRef<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_use_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<&'a str>,
}

impl<'a> GateRef<'a> {
    /// As [`GateFields::of`].
    fn of(gate: Gate<'a>) -> GateRef<'a> {
        match gate {
            Gate::Call {
                tool_name,
                tool_use_id,
            } => GateRef {
                tool: Some(tool_name),
                tool_use_id: Some(tool_use_id),
                prompt: None,
            },
            Gate::Prompt { prompt } => GateRef {
                tool: None,
                tool_use_id: None,
                prompt: Some(prompt),
            },
        }
    }
}

/// [`HookStarted`], borrowed.
#[derive(Serialize)]
struct HookStartedRef<'a> {
    hook: &'a str,
    input_digest: &'a str,
    #[serde(flatten)]
    gate: GateRef<'a>,
}

/// [`GateVerdict`], borrowed: the verdict written as itself rather than as the `Value`
/// made of it (the same text: `serde_json` keeps a map's order as inserted).
#[derive(Serialize)]
struct VerdictRef<'a> {
    #[serde(flatten)]
    gate: GateRef<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_input: Option<&'a Value>,
    verdict: &'a Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    bridged: Option<&'a ClaudeInputSource>,
}

/// The `effect` of a run that ended (`Effect::to_value`'s text): `hook`, `input_digest`,
/// `exit_code` or `signal`, then `stdout` and `stderr` (or `…_hex` where not UTF-8).
/// `None` for a stream over [`RECORD_OUTPUT_CAP`], which [`Effect::capture`] cuts and
/// describes.
fn effect_ran(hook: &str, input_digest: &str, output: &RawOutput) -> Option<Vec<u8>> {
    if output.stdout.len() > RECORD_OUTPUT_CAP || output.stderr.len() > RECORD_OUTPUT_CAP {
        return None;
    }
    let mut json = Vec::with_capacity(160 + output.stdout.len() + output.stderr.len());
    json.extend_from_slice(b"{\"hook\":");
    serde_json::to_writer(&mut json, hook).ok()?;
    json.extend_from_slice(b",\"input_digest\":");
    serde_json::to_writer(&mut json, input_digest).ok()?;
    let (key, number) = match output.status {
        ExitStatus::Code(c) => (&b",\"exit_code\":"[..], c),
        ExitStatus::Signal(s) => (&b",\"signal\":"[..], s),
    };
    json.extend_from_slice(key);
    serde_json::to_writer(&mut json, &number).ok()?;
    for (name, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        json.extend_from_slice(b",\"");
        json.extend_from_slice(name.as_bytes());
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                json.extend_from_slice(b"\":");
                serde_json::to_writer(&mut json, text).ok()?;
            }
            Err(_) => {
                json.extend_from_slice(b"_hex\":\"");
                json.extend_from_slice(hex::encode(bytes).as_bytes());
                json.push(b'"');
            }
        }
    }
    json.push(b'}');
    Some(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::{ContextBlock, Decision, HookOwner, Outcome};
    use crate::envelope::EnvelopeShape;
    use crate::executor::Failure;
    use serde_json::json;

    /// Every event written from its borrowed values is the text its `Body` gives.
    #[test]
    fn borrowed_records_are_the_bodies_text() {
        let calls = [
            Gate::Call {
                tool_name: "bash",
                tool_use_id: "toolu_\"1\"",
            },
            Gate::Prompt {
                prompt: "ooo \u{e9}\n\t",
            },
        ];
        let outputs = [
            Ok(RawOutput {
                status: ExitStatus::Code(0),
                stdout: Vec::new(),
                stderr: Vec::new(),
            }),
            Ok(RawOutput {
                status: ExitStatus::Code(-2),
                stdout: b"{\"decision\":\"block\",\"reason\":\"x\\\"\"}\n".to_vec(),
                stderr: vec![0xff, 0x00, b'a'],
            }),
            Ok(RawOutput {
                status: ExitStatus::Signal(9),
                stdout: "\u{1}\u{7f}\u{2028}é".into(),
                stderr: vec![b'x'; RECORD_OUTPUT_CAP],
            }),
            Ok(RawOutput {
                status: ExitStatus::Code(2),
                stdout: vec![b'y'; RECORD_OUTPUT_CAP + 1],
                stderr: Vec::new(),
            }),
            Err(Failure::Interrupted),
            Err(Failure::Trapped("wasm trap: \"x\"".into())),
        ];
        let verdicts = [
            Verdict::allow(),
            Verdict {
                outcome: Outcome::Block,
                message: Some("blocked by \"h\"\n".into()),
                hook: Some("h".into()),
                context: vec![ContextBlock {
                    hook: "c".into(),
                    text: "t\u{e9}".into(),
                    owner: HookOwner::Administrator,
                }],
                warnings: vec!["w".into(), "v".into()],
            },
        ];
        let bridged = ClaudeInputSource {
            default_envelope: EnvelopeShape::ClaudeCode,
            transcript_path: Some("/t.jsonl".into()),
            tool_name: Some("Bash".into()),
            tool_input: Some(json!({"command": "ls"})),
            unknown_to: None,
        };
        let input = json!({"command": "git status", "n": 1.5, "big": 1u64 << 63, "nested": {"b": [1, null, true], "a": "\u{0}"}});
        // Made twice: events are not `Clone`.
        let events = || {
            let mut events = Vec::new();
            for gate in calls {
                events.push(RunEvent::HookStarted {
                    hook: "h \"q\"",
                    input_digest: "sha256:00",
                    gate,
                });
                for result in &outputs {
                    events.push(RunEvent::Effect {
                        hook: "h",
                        input_digest: "sha256:ab",
                        result,
                    });
                }
                for verdict in &verdicts {
                    for tool_input in [None, Some(&input)] {
                        for bridged in [None, Some(&bridged)] {
                            events.push(RunEvent::Verdict {
                                gate,
                                tool_input,
                                verdict,
                                bridged,
                            });
                        }
                    }
                }
                events.push(RunEvent::Decided {
                    hook: "h",
                    gate,
                    decision: Decision::Block,
                    reason: "r",
                });
            }
            events.push(RunEvent::Context {
                hook: "h",
                text: "ctx",
            });
            events.push(RunEvent::TurnEnded);
            events
        };
        for (event, again) in events().into_iter().zip(events()) {
            let want = Fields::of(&body(event));
            let made = fields(again);
            assert_eq!(
                String::from_utf8_lossy(&made.json),
                String::from_utf8_lossy(&want.json),
            );
            assert_eq!((made.type_name, made.kind), (want.type_name, want.kind));
        }
    }
}
