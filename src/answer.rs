//! What a hook's output means, in Claude Code's formats.
//!
//! Exit 2 blocks with stderr as the reason. Exit 0 hands stdout to the JSON answer
//! parser: `decision: "block"`, `hookSpecificOutput.permissionDecision: "deny"` and
//! `continue: false` block; for a prompt, `hookSpecificOutput.additionalContext` is
//! context, and so is stdout that is not a JSON object at all. Any other exit is a
//! failure. Output that is not valid UTF-8 is decoded lossily.

use serde_json::{Map, Value};

use crate::config::Event;
use crate::executor::{ExitStatus, RawOutput};

/// Reasons are cut to this many characters (the executors' failure texts share the limit).
pub use crate::executor::REASON_LIMIT;

/// What one hook said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// No objection (allow and ask included: a hook only ever blocks).
    NoObjection,
    /// A block, with its reason (trimmed, cut, never empty).
    Block(String),
    /// Context for the prompt (UserPromptSubmit only), as the hook printed it.
    Context(String),
    /// The hook failed in a way its output shows.
    Failed(AnswerFailure),
}

/// A failure read from a hook's output (the executor reports the others).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerFailure {
    /// It exited with a code other than 0 and 2.
    #[error("exited with code {0}")]
    ExitedWithCode(i32),
    /// It was killed by a signal.
    #[error("was killed by a signal")]
    KilledBySignal,
    /// On PreToolUse, exit 0 with stdout that is not a valid answer object.
    #[error("printed output that is not hook JSON")]
    NotHookJson,
}

/// Reads a hook's raw output for `event`.
pub fn interpret(event: Event, output: &RawOutput) -> Answer {
    match output.status {
        ExitStatus::Code(2) => Answer::Block(reason(&String::from_utf8_lossy(&output.stderr))),
        ExitStatus::Code(0) => interpret_stdout(event, &String::from_utf8_lossy(&output.stdout)),
        ExitStatus::Code(code) => Answer::Failed(AnswerFailure::ExitedWithCode(code)),
        ExitStatus::Signal(_) => Answer::Failed(AnswerFailure::KilledBySignal),
    }
}

/// Trims a reason and cuts it to its first [`REASON_LIMIT`] characters; an empty one
/// reads "no reason given".
pub fn reason(text: &str) -> String {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return "no reason given".into();
    }
    match trimmed.char_indices().nth(REASON_LIMIT) {
        Some((cut, _)) => trimmed[..cut].trim_end().to_string(),
        None => trimmed.to_string(),
    }
}

fn interpret_stdout(event: Event, stdout: &str) -> Answer {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return Answer::NoObjection;
    }
    let object = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    };
    match (event, object) {
        (_, Some(map)) => match read_object(event, &map) {
            Some(answer) => answer,
            None => Answer::Failed(AnswerFailure::NotHookJson),
        },
        (Event::PreToolUse, None) => Answer::Failed(AnswerFailure::NotHookJson),
        // Claude Code treats a prompt hook's plain stdout as context, and real prompt
        // hooks rely on it (some echo their whole input, then their suggestion).
        (Event::UserPromptSubmit, None) => Answer::Context(trim_context(stdout)),
    }
}

fn trim_context(text: &str) -> String {
    text.trim_end().trim_start_matches(['\n', '\r']).to_string()
}

/// Reads an answer object; `None` when a known field has the wrong type.
fn read_object(event: Event, map: &Map<String, Value>) -> Option<Answer> {
    let decision = optional_str(map, "decision")?;
    let reason_field = optional_str(map, "reason")?;
    let stop_reason = optional_str(map, "stopReason")?;
    let keep_going = match map.get("continue") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return None,
    };
    let specific = match map.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => return None,
    };
    if decision == Some("block") {
        return Some(Answer::Block(reason(reason_field.unwrap_or(""))));
    }
    if !keep_going {
        return Some(Answer::Block(reason(stop_reason.unwrap_or(""))));
    }
    let Some(specific) = specific else {
        return Some(Answer::NoObjection);
    };
    match event {
        Event::PreToolUse => {
            let permission = optional_str(specific, "permissionDecision")?;
            let why = optional_str(specific, "permissionDecisionReason")?;
            if permission == Some("deny") {
                return Some(Answer::Block(reason(why.unwrap_or(""))));
            }
            Some(Answer::NoObjection)
        }
        Event::UserPromptSubmit => match optional_str(specific, "additionalContext")? {
            Some(text) if !text.trim().is_empty() => Some(Answer::Context(trim_context(text))),
            _ => Some(Answer::NoObjection),
        },
    }
}

/// `Some(None)` when absent or null, `Some(Some(s))` for a string, `None` for another type.
fn optional_str<'a>(map: &'a Map<String, Value>, key: &str) -> Option<Option<&'a str>> {
    match map.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s)),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(code: i32, stdout: &str, stderr: &str) -> RawOutput {
        RawOutput {
            status: ExitStatus::Code(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
        }
    }

    use Event::{PreToolUse as Pre, UserPromptSubmit as Prompt};

    #[test]
    fn exit_two_blocks_with_stderr() {
        assert_eq!(
            interpret(Pre, &out(2, "", "  no force push\n")),
            Answer::Block("no force push".into())
        );
        assert_eq!(
            interpret(Pre, &out(2, "", "")),
            Answer::Block("no reason given".into())
        );
    }

    #[test]
    fn json_blocks() {
        let a = interpret(Pre, &out(0, r#"{"decision":"block","reason":"r1"}"#, ""));
        assert_eq!(a, Answer::Block("r1".into()));
        let a = interpret(
            Pre,
            &out(
                0,
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r2"}}"#,
                "",
            ),
        );
        assert_eq!(a, Answer::Block("r2".into()));
        let a = interpret(Pre, &out(0, r#"{"continue":false,"stopReason":"r3"}"#, ""));
        assert_eq!(a, Answer::Block("r3".into()));
        let a = interpret(Pre, &out(0, r#"{"decision":"block"}"#, ""));
        assert_eq!(a, Answer::Block("no reason given".into()));
    }

    #[test]
    fn allow_and_ask_are_no_objection() {
        for d in ["allow", "ask", "defer"] {
            let text = format!(
                r#"{{"hookSpecificOutput":{{"permissionDecision":"{d}"}},"systemMessage":"x"}}"#
            );
            assert_eq!(interpret(Pre, &out(0, &text, "")), Answer::NoObjection);
        }
        assert_eq!(interpret(Pre, &out(0, "\n", "")), Answer::NoObjection);
    }

    #[test]
    fn pre_tool_use_rejects_what_is_not_hook_json() {
        for bad in [
            "not json",
            "{broken",
            "[1,2]",
            "\"s\"",
            r#"{"decision":5}"#,
            r#"{"continue":"no"}"#,
        ] {
            assert_eq!(
                interpret(Pre, &out(0, bad, "")),
                Answer::Failed(AnswerFailure::NotHookJson),
                "{bad}"
            );
        }
    }

    #[test]
    fn prompt_context_from_json_or_plain_text() {
        let a = interpret(
            Prompt,
            &out(
                0,
                r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"use /seed"}}"#,
                "",
            ),
        );
        assert_eq!(a, Answer::Context("use /seed".into()));
        let echoed = "{\"prompt\":\"x\"}\n<skill-suggestion>seed</skill-suggestion>\n";
        assert_eq!(
            interpret(Prompt, &out(0, echoed, "")),
            Answer::Context("{\"prompt\":\"x\"}\n<skill-suggestion>seed</skill-suggestion>".into())
        );
        assert_eq!(
            interpret(Prompt, &out(0, r#"{"decision":"block","reason":"no"}"#, "")),
            Answer::Block("no".into())
        );
    }

    #[test]
    fn other_exits_fail() {
        assert_eq!(
            interpret(Pre, &out(1, "", "")),
            Answer::Failed(AnswerFailure::ExitedWithCode(1))
        );
        let signalled = RawOutput {
            status: ExitStatus::Signal(9),
            stdout: vec![],
            stderr: vec![],
        };
        assert_eq!(
            interpret(Prompt, &signalled),
            Answer::Failed(AnswerFailure::KilledBySignal)
        );
    }

    #[test]
    fn reasons_are_cut_by_characters() {
        let long = "é".repeat(2500);
        assert_eq!(reason(&long).chars().count(), 2000);
    }

    #[test]
    fn invalid_utf8_is_lossy() {
        let raw = RawOutput {
            status: ExitStatus::Code(2),
            stdout: vec![],
            stderr: vec![0xff, b'x'],
        };
        assert_eq!(interpret(Pre, &raw), Answer::Block("\u{fffd}x".into()));
    }
}
