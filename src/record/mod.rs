//! Session records: what a session ran, written as it runs, read back for transcripts,
//! replay and crash resume.
//!
//! # The file
//!
//! JSON lines, one record per line, appended whole lines at a time (one `write` of the
//! whole line to a file opened with `O_APPEND`; a hook's `effect` and what follows it go
//! out in the same write as the gate's next line, see [`write`]), never rewritten
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
mod clock;
mod effect;
mod file;
pub mod read;
pub mod resume;
pub mod transcript;
pub mod write;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(test)]
use serde_json::{Map, json};

use crate::config::HookDef;
use crate::dispatch::{Decision, Gate, HookOwner};

pub use clock::{now_rfc3339, rfc3339};
pub use effect::{Effect, EffectResult, StreamRecord};
pub use file::{default_path, exposure_warning, exposure_warning_of, file_name_for};
pub use read::{Reading, read_file, read_for_resume, read_head, read_str, verify_file};
pub use resume::ResumePlan;
pub use write::{LockedRecord, RecordWriter};

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
