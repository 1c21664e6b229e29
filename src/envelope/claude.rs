//! Claude Code's own hook input, for hooks written for Claude Code (`envelope =
//! "claude-code"`, the default behind the bridge).
//!
//! The fields and their order are Claude Code's (its hooks reference, `PreToolUse` and
//! `UserPromptSubmit` input): `session_id`, `transcript_path`, `cwd`, `permission_mode`,
//! `hook_event_name`, then the event's own fields. Tool names are Claude Code's (`Bash`,
//! `Write`, `mcp__server__tool`) and `tool_input` is in Claude Code's shape with absolute
//! paths, as the front end gave them ([`crate::call::ToolCall`]); this module writes what it is given and
//! never makes a path relative.
//!
//! `transcript_path` is always present, `null` when the calling agent gave none (Codex
//! sends `null` too), so a hook that reads `input["transcript_path"]` finds the key. There
//! is never a `turn_id`, nor any other field by which a hook would tell the agent apart:
//! the hook's answer is read as Claude Code's, so the hook must believe it runs under
//! Claude Code.

use serde::Serialize;
use serde_json::Value;

use super::{SessionInfo, line};

#[derive(Serialize)]
struct PreToolUseInput<'a> {
    session_id: &'a str,
    transcript_path: Option<&'a str>,
    cwd: &'a str,
    permission_mode: &'a str,
    hook_event_name: &'static str,
    tool_name: &'a str,
    tool_input: &'a Value,
    tool_use_id: &'a str,
}

#[derive(Serialize)]
struct PromptInput<'a> {
    session_id: &'a str,
    transcript_path: Option<&'a str>,
    cwd: &'a str,
    permission_mode: &'a str,
    hook_event_name: &'static str,
    prompt: &'a str,
}

/// Claude Code's `PreToolUse` input, one line ending in `\n`. `tool_name` is Claude
/// Code's name and `tool_input` its shape (absolute `file_path`), as the agent's call
/// was mapped; `session.cwd` is the agent's working directory.
pub fn pre_tool_use(
    session: &SessionInfo,
    transcript_path: Option<&str>,
    tool_name: &str,
    tool_input: &Value,
    tool_use_id: &str,
) -> Vec<u8> {
    line(&PreToolUseInput {
        session_id: &session.session_id,
        transcript_path,
        cwd: &session.cwd,
        permission_mode: &session.permission_mode,
        hook_event_name: "PreToolUse",
        tool_name,
        tool_input,
        tool_use_id,
    })
}

/// Claude Code's `UserPromptSubmit` input, one line ending in `\n`.
pub fn prompt(session: &SessionInfo, transcript_path: Option<&str>, prompt: &str) -> Vec<u8> {
    line(&PromptInput {
        session_id: &session.session_id,
        transcript_path,
        cwd: &session.cwd,
        permission_mode: &session.permission_mode,
        hook_event_name: "UserPromptSubmit",
        prompt,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session() -> SessionInfo {
        SessionInfo {
            session_id: "abc123".into(),
            cwd: "/home/u/p".into(),
            permission_mode: "default".into(),
        }
    }

    #[test]
    fn pre_tool_use_is_claude_codes_fields_in_its_order() {
        let input = json!({"file_path": "/home/u/p/src/main.rs", "content": "x"});
        let line = pre_tool_use(
            &session(),
            Some("/home/u/.claude/projects/p/x.jsonl"),
            "Write",
            &input,
            "toolu_01ABC",
        );
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "{\"session_id\":\"abc123\",\"transcript_path\":\"/home/u/.claude/projects/p/x.jsonl\",\"cwd\":\"/home/u/p\",\"permission_mode\":\"default\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/home/u/p/src/main.rs\",\"content\":\"x\"},\"tool_use_id\":\"toolu_01ABC\"}\n"
        );
    }

    #[test]
    fn paths_stay_absolute() {
        let input = json!({"file_path": "/home/u/p/.env"});
        let line = pre_tool_use(&session(), None, "Read", &input, "t");
        let parsed: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(parsed["tool_input"]["file_path"], "/home/u/p/.env");
    }

    #[test]
    fn a_missing_transcript_is_null_not_absent() {
        let line = prompt(&session(), None, "ooo seed");
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "{\"session_id\":\"abc123\",\"transcript_path\":null,\"cwd\":\"/home/u/p\",\"permission_mode\":\"default\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"ooo seed\"}\n"
        );
    }

    #[test]
    fn never_a_turn_id() {
        let a = String::from_utf8(prompt(&session(), Some("/t"), "p")).unwrap();
        let b = String::from_utf8(pre_tool_use(&session(), None, "Bash", &json!({}), "t")).unwrap();
        assert!(!a.contains("turn_id") && !b.contains("turn_id"));
    }
}
