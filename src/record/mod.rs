//! Session records: what a session ran, written as it runs, read back for transcripts,
//! replay and crash resume.
//!
//! # The file
//!
//! JSON lines, one record per line, appended and written to the OS record by record
//! (one `write` of the whole line to a file opened with `O_APPEND`), never rewritten
//! (except that a line the session failed to write whole is cut off again: `record.cut`).
//! A session holds an exclusive `flock` on its record for as long as it runs, so two
//! sessions never write one file; a new session never writes into an existing file
//! (only a resume appends to one). The default file is
//! `$XDG_STATE_HOME/hookhost/<session-id>.jsonl` (else `~/.local/state/hookhost/…`).
//!
//! When a session records: with `--log FILE` (`SessionOptions::log`) always; with
//! `--resume FILE` it appends to that file. Without either, a long session
//! ([`crate::session::Mode::Serve`]) records to the default file, and a one-shot command
//! (`pre-tool-use`, `prompt`, `check`) records nothing, so that an embedder calling the
//! binary once per gate does not leave a file per call; it passes `--log FILE` for its
//! first call and `--resume FILE` for the next ones. Where the default file already
//! exists (a reused session id), the session runs unrecorded with a warning rather than
//! write into another session's record.
//!
//! Every record has `type`, `at` (RFC 3339 UTC with milliseconds,
//! `2025-05-01T12:00:00.123Z`) and `session_id`; every line after the first carries
//! `prev`, the `sha256:` digest of the line before it ([`chain`]: `log verify`, `doctor`,
//! `replay` and a resume check it). The types:
//!
//! - `session.started` / `session.resumed`: `cwd`, `permission_mode`, `no_hooks`,
//!   `hooks` (each hook as the session runs it: `name`, `event`, `command`, `tools`,
//!   `timeout`, `sandbox`, `on_failure`), `banner` (the `hooks:` line), `version`; a
//!   resume adds `clean`, `skipped` (recorded hooks it does not run), `warnings` and
//!   `warned_this_turn` (the hooks that had warned in its turn by then, so that the next
//!   resume reads back no further than this line: [`read_for_resume`]). A session of the
//!   administrator's hooks (`bridge --system`) adds `"owner": "administrator"`; without
//!   `owner` the hooks are the user's (every older record), and the messages of a
//!   transcript or replay name them so.
//! - `hook.started`: before each run: `hook`, `input_digest`, and what it gates (`tool`
//!   and `tool_use_id`, or `prompt`).
//! - `effect`: after each run: `hook`, `input_digest` (`sha256:` of the exact stdin
//!   bytes) and the output: `exit_code` or `signal`, `stdout`, `stderr`; or `failure`
//!   (`{"kind":…,"text":"timed out after 10 s",…}`). A stream that is not UTF-8 is
//!   `stdout_hex`. A stream longer than [`RECORD_OUTPUT_CAP`] keeps its first bytes and
//!   says so: `stdout_truncated: true`, `stdout_len` (the full length) and
//!   `stdout_sha256`; replay reports such an effect as one it cannot serve exactly.
//! - `hook.decided`: every block, failure, interrupt and skipped run: `hook`, the gate
//!   fields, `decision` (`block`, `failure_blocked`, `failure_continued`, `interrupted`,
//!   `skipped`) and `reason` (the reason or the failure kind).
//! - `hook.context`: `hook`, `characters`, `text`.
//! - `gate.verdict`: after every gate that ran at least one hook: the gate fields,
//!   `tool_input` (as the hooks saw it) and `verdict` (the `--json` verdict).
//! - `turn.ended`: a new turn began (warnings may be shown again).
//! - `record.cut`: `reason`. The record could not be written on (a full disk, an I/O
//!   error, or its size limit, [`write::MAX_RECORD_BYTES`]) and stops here; the rest of the session is not in it. A write that failed
//!   part-way is cut back to the last whole line first, and where even this record does
//!   not fit, a `hook.started` just before it goes too, so that the record does not end
//!   as a session killed while that hook ran (see [`write::RecordWriter`]).
//!
//! # Replay
//!
//! The hooks' stdin is not stored: it is rebuilt, byte for byte, from the session
//! record (`session_id`, `cwd`, `permission_mode`) and the `gate.verdict` record (tool,
//! `tool_input`, `tool_use_id`, or prompt), and its digest must equal a recorded
//! `input_digest` for the effect to be served. So a rebuilt input that differs in any
//! byte is "not in the record", never run, never served a wrong answer.
//!
//! Reading is tolerant: a torn last line (a crash mid-write), a line that is not a
//! record and an unknown record type each give a note and are skipped.
//!
//! # Privacy and trust
//!
//! A record is created 0600 in folders created 0700 (`write`); resuming, showing or
//! replaying one that is open to other users warns ([`exposure_warning`]). A record the
//! agent could change is never written or resumed: `crate::session` refuses `--log` and
//! `--resume` files in agent-writable folders with the path guard
//! (`crate::guard::check_record_file`), and a resume warns when today's config defines
//! hooks the record does not list (`resume`).

pub mod chain;
pub mod read;
pub mod resume;
pub mod transcript;
pub mod write;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::config::HookDef;
use crate::dispatch::{Decision, Gate, HookOwner};
use crate::executor::{ExitStatus, Failure, RawOutput, Stream};

pub use read::{Reading, read_file, read_for_resume, read_head, read_str, verify_file};
pub use resume::ResumePlan;
pub use write::RecordWriter;

/// The most of each of a run's stdout and stderr the record keeps.
pub const RECORD_OUTPUT_CAP: usize = 64 * 1024;

/// Resume a session from its record (`--resume FILE [--clean]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeFrom {
    /// The record to resume; the resumed session appends to it.
    pub file: PathBuf,
    /// `--clean`: read today's config instead of keeping the recorded hooks.
    pub clean: bool,
}

/// Why a session record could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file system said no.
    #[error("the session record {}: {}", path.display(), crate::access::explain(path, source))]
    Io {
        /// The record.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A new session does not write into an existing record.
    #[error(
        "the session record {} already exists; a new session never writes into another's record. Resume it with --resume {}, or name a new file with --log.",
        .0.display(),
        .0.display()
    )]
    Exists(PathBuf),
    /// Another session holds the record.
    #[error(
        "another session is writing the session record {}; two sessions never write one file.",
        .0.display()
    )]
    Locked(PathBuf),
    /// A resume names a record with no session in it.
    #[error("the session record {} holds no session (no session.started record)", .0.display())]
    NoSession(PathBuf),
    /// `--log` and `--resume` disagree.
    #[error(
        "--log {} and --resume {} name different files; a resumed session appends to the record it resumes",
        log.display(),
        resume.display()
    )]
    LogMismatch {
        /// The `--log` file.
        log: PathBuf,
        /// The `--resume` file.
        resume: PathBuf,
    },
    /// A resume names a record whose hash chain breaks: it was changed after it was
    /// written.
    #[error(
        "the session record {} was changed after it was written ({broken}), so hookhost does not resume it. `hookhost log verify {}` shows where; move the file away to start this session's record afresh.",
        file.display(),
        file.display()
    )]
    BrokenChain {
        /// The record.
        file: PathBuf,
        /// Where the chain breaks.
        broken: chain::ChainBreak,
    },
}

impl RecordError {
    fn io(path: &Path, source: std::io::Error) -> RecordError {
        RecordError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// One record read back: its line number, the common fields and its body.
#[derive(Debug, Clone)]
pub struct Record {
    /// 1-based line number in the file.
    pub line: usize,
    /// When it was written (RFC 3339 UTC).
    pub at: String,
    /// The session that wrote it.
    pub session_id: String,
    /// What it says.
    pub body: Body,
}

/// The record types.
#[derive(Debug, Clone)]
pub enum Body {
    /// `session.started`.
    Started(SessionBody),
    /// `session.resumed`.
    Resumed(SessionBody),
    /// `hook.started`.
    HookStarted(HookStarted),
    /// `effect`.
    Effect(Effect),
    /// `hook.decided`.
    Decided(Decided),
    /// `hook.context`.
    Context(ContextRecord),
    /// `gate.verdict`.
    Verdict(GateVerdict),
    /// `turn.ended`.
    TurnEnded,
    /// `record.cut`.
    Cut(Cut),
}

impl Body {
    /// The record's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Body::Started(_) => "session.started",
            Body::Resumed(_) => "session.resumed",
            Body::HookStarted(_) => "hook.started",
            Body::Effect(_) => "effect",
            Body::Decided(_) => "hook.decided",
            Body::Context(_) => "hook.context",
            Body::Verdict(_) => "gate.verdict",
            Body::TurnEnded => "turn.ended",
            Body::Cut(_) => "record.cut",
        }
    }

    /// The body's own fields, as a JSON object's text (`{…}`), written straight from
    /// the body: a record line is made on every gate, and building a `Value` tree of
    /// it first (then writing that) was most of a recorded call's serialisation. The
    /// text is the one [`Body::to_map`] gives (`to_map_and_fields_agree`); a body that
    /// cannot be written is an empty object, as there.
    pub(crate) fn to_json(&self) -> Vec<u8> {
        let text = match self {
            Body::Started(b) | Body::Resumed(b) => serde_json::to_vec(b),
            Body::HookStarted(b) => serde_json::to_vec(b),
            Body::Effect(b) => serde_json::to_vec(&b.to_value()),
            Body::Decided(b) => serde_json::to_vec(b),
            Body::Context(b) => serde_json::to_vec(b),
            Body::Verdict(b) => serde_json::to_vec(b),
            Body::TurnEnded => Ok(b"{}".to_vec()),
            Body::Cut(b) => serde_json::to_vec(b),
        };
        match text {
            Ok(text) if text.first() == Some(&b'{') => text,
            _ => b"{}".to_vec(),
        }
    }

    /// The body's own fields, as a JSON object (how lines were made before
    /// [`Body::to_json`], which must give the same text).
    #[cfg(test)]
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        let value = match self {
            Body::Started(b) | Body::Resumed(b) => serde_json::to_value(b),
            Body::HookStarted(b) => serde_json::to_value(b),
            Body::Effect(b) => Ok(b.to_value()),
            Body::Decided(b) => serde_json::to_value(b),
            Body::Context(b) => serde_json::to_value(b),
            Body::Verdict(b) => serde_json::to_value(b),
            Body::TurnEnded => Ok(json!({})),
            Body::Cut(b) => serde_json::to_value(b),
        };
        match value {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }

    /// Parses a body of type `kind` from the record's object; `None` for an unknown
    /// type, `Some(Err)` for a known type with missing or malformed fields.
    fn from_value(kind: &str, value: Value) -> Option<Result<Body, String>> {
        fn parse<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, String> {
            serde_json::from_value(v).map_err(|e| e.to_string())
        }
        Some(match kind {
            "session.started" => parse(value).map(Body::Started),
            "session.resumed" => parse(value).map(Body::Resumed),
            "hook.started" => parse(value).map(Body::HookStarted),
            "effect" => Effect::from_value(&value).map(Body::Effect),
            "hook.decided" => parse(value).map(Body::Decided),
            "hook.context" => parse(value).map(Body::Context),
            "gate.verdict" => parse(value).map(Body::Verdict),
            "turn.ended" => Ok(Body::TurnEnded),
            "record.cut" => parse(value).map(Body::Cut),
            _ => return None,
        })
    }
}

/// `session.started` and `session.resumed`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionBody {
    /// The project, as the envelopes' `cwd`.
    pub cwd: String,
    /// The permission mode in force.
    pub permission_mode: String,
    /// Whether `--no-hooks` was given.
    pub no_hooks: bool,
    /// The hooks as this session runs them, in order.
    pub hooks: Vec<HookDef>,
    /// The spec's `hooks:` line.
    pub banner: String,
    /// A resume: `--clean` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clean: Option<bool>,
    /// A resume: recorded hooks this session does not run (changed or gone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// Start-up warnings of a resume.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// A resume: the hooks that had already warned in the turn it resumed within
    /// (failures since the last `turn.ended`). Written so that the next resume need not
    /// read further back than this line: with the bridge every call is a resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warned_this_turn: Option<Vec<String>>,
    /// Whose hooks the session runs: absent for the user's own (every record written
    /// before the field existed reads so), `"administrator"` for the system config's
    /// (`bridge --system`), so that a transcript and a replay name them as the live
    /// messages did.
    #[serde(default, skip_serializing_if = "HookOwner::is_user")]
    pub owner: HookOwner,
    /// The hookhost that wrote it.
    #[serde(default)]
    pub version: String,
}

/// What a record says a hook gated: a tool call or a prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateFields {
    /// The tool of a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The call's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The prompt's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

impl GateFields {
    /// The fields for `gate`.
    pub fn of(gate: Gate<'_>) -> GateFields {
        match gate {
            Gate::Call {
                tool_name,
                tool_use_id,
            } => GateFields {
                tool: Some(tool_name.into()),
                tool_use_id: Some(tool_use_id.into()),
                prompt: None,
            },
            Gate::Prompt { prompt } => GateFields {
                tool: None,
                tool_use_id: None,
                prompt: Some(prompt.into()),
            },
        }
    }

    /// The gate these fields name (a call when there is a tool, else a prompt).
    pub fn gate(&self) -> Gate<'_> {
        match &self.tool {
            Some(tool) => Gate::Call {
                tool_name: tool,
                tool_use_id: self.tool_use_id.as_deref().unwrap_or(""),
            },
            None => Gate::Prompt {
                prompt: self.prompt.as_deref().unwrap_or(""),
            },
        }
    }
}

/// `hook.started`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HookStarted {
    /// The hook.
    pub hook: String,
    /// `sha256:` of the exact stdin bytes.
    pub input_digest: String,
    /// What it gates.
    #[serde(flatten)]
    pub gate: GateFields,
}

/// `hook.decided`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Decided {
    /// The hook.
    pub hook: String,
    /// What it gates.
    #[serde(flatten)]
    pub gate: GateFields,
    /// The decision.
    pub decision: Decision,
    /// The reason, or the failure kind.
    pub reason: String,
}

/// `hook.context`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ContextRecord {
    /// The hook.
    pub hook: String,
    /// The text's length in characters.
    pub characters: usize,
    /// The text as kept.
    pub text: String,
}

/// `record.cut`: the record could not be written on; it ends here.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cut {
    /// The error that stopped it (`No space left on device (os error 28)`).
    pub reason: String,
}

/// `gate.verdict`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GateVerdict {
    /// What it gated.
    #[serde(flatten)]
    pub gate: GateFields,
    /// The call's arguments as the hooks saw them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<Value>,
    /// The `--json` verdict.
    pub verdict: Value,
    /// A gate with hooks reading Claude Code's shape (the bridge's, or a call under any
    /// front end with an `envelope = "claude-code"` hook): what replay needs to rebuild
    /// that input byte for byte. Absent for every other gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridged: Option<crate::call::ClaudeInputSource>,
}

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

    fn to_value(&self) -> Value {
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

    fn from_value(value: &Value) -> Result<Effect, String> {
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

/// The warning for a record that users other than its owner may read or write (`mode`
/// has group or other bits): records hold prompts and tool inputs. `None` when it is
/// private.
pub fn exposure_warning(path: &Path, mode: u32) -> Option<String> {
    let open = mode & 0o077;
    if open == 0 {
        return None;
    }
    let path = path.display();
    Some(format!(
        "⚠ the session record {path} is open to other users (mode {:04o}), and it holds prompts and tool inputs. Make it private: chmod 600 {path}",
        mode & 0o7777
    ))
}

/// The [`exposure_warning`] for the record at `path`, if it can be read at all.
pub fn exposure_warning_of(path: &Path) -> Option<String> {
    let mode = crate::platform::sys::files::mode_bits(&std::fs::metadata(path).ok()?);
    exposure_warning(path, mode)
}

/// Now, as RFC 3339 UTC with milliseconds.
pub fn now_rfc3339() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339(since.as_millis() as i64)
}

/// Unix milliseconds as RFC 3339 UTC (`2025-05-01T12:00:00.123Z`).
pub fn rfc3339(millis: i64) -> String {
    let secs = millis.div_euclid(1000);
    let ms = millis.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// The default record for a session: [`file_name_for`] in `env`'s record folder
/// ([`crate::env::Environment::record_dir`]: `$XDG_STATE_HOME/hookhost`, else
/// `~/.local/state/hookhost`); `None` with neither variable set, or for an empty id.
pub fn default_path(env: &crate::env::Environment, session_id: &str) -> Option<PathBuf> {
    Some(env.record_dir()?.join(file_name_for(session_id)?))
}

/// The record's file name for `session_id`, one to one (docs/threats.md#n18): an id made
/// only of `[A-Za-z0-9._-]`, at most 128 of them and not `.` or `..`, is the name as is
/// (`<id>.jsonl`); any other id is `sha256=<hex of the id>.jsonl`, which no plain id
/// spells (`=` is not in the set), so no id names a path elsewhere (`../x`) and no two
/// ids share a file. An empty id has no record (`None`): it names no session, and every
/// empty id would otherwise share one.
pub fn file_name_for(session_id: &str) -> Option<String> {
    if session_id.is_empty() {
        return None;
    }
    let plain = session_id.len() <= 128
        && session_id != "."
        && session_id != ".."
        && session_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    Some(if plain {
        format!("{session_id}.jsonl")
    } else {
        use sha2::Digest;
        format!(
            "sha256={}.jsonl",
            hex::encode(sha2::Sha256::digest(session_id.as_bytes()))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// N18: no two ids share a record, and an empty id has none.
    #[test]
    fn record_names_are_one_to_one() {
        use sha2::Digest;
        let name = |id: &str| file_name_for(id).unwrap();
        assert_eq!(name("abc-1.2_3"), "abc-1.2_3.jsonl");
        let other = "session one";
        let hex = hex::encode(sha2::Sha256::digest(other.as_bytes()));
        // An id that spells another id's digest is a name of its own.
        assert_ne!(name(&hex), name(other));
        assert_eq!(name(other), format!("sha256={hex}.jsonl"));
        assert_ne!(name("a b"), name("a_b"));
        assert_ne!(name(".."), name("."));
        assert!(name("../../etc/x").starts_with("sha256="));
        assert_eq!(file_name_for(""), None);
    }

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_746_100_800_000), "2025-05-01T12:00:00.000Z");
    }

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
