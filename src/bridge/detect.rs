//! Who is really calling: the agent recognised from its payload
//! (docs/agents.md#how-the-caller-is-recognised), with `--agent` as the fallback.
//!
//! The flag alone cannot be trusted: Cursor and Copilot CLI also run the hooks in
//! `.claude/settings.json`, so a bridge registered as `hookhost bridge claude-code` is
//! called with their payloads, and an answer in Claude Code's format would not be obeyed
//! by them. So a payload that names its caller wins over the flag and is answered in the
//! caller's own format, with a note on stderr; the flag decides only when the payload is
//! ambiguous, and Claude Code when there is no flag either.
//!
//! The fingerprints, first match wins:
//!
//! | caller | payload |
//! |---|---|
//! | Cursor | `cursor_version`, `conversation_id` or `generation_id` |
//! | Kiro CLI | `preToolUse`, `postToolUse`, `userPromptSubmit` or `agentSpawn` without those |
//! | Cursor | any other camelCase `hook_event_name` (`beforeSubmitPrompt`, …) |
//! | Copilot CLI (camelCase) | no `hook_event_name`; `sessionId`, `toolName` or `toolArgs` |
//! | Gemini CLI | a Gemini event name (`BeforeTool`, `BeforeAgent`, …); or `mcp_context` / `original_request_name` |
//! | Codex | `turn_id` |
//! | Kimi Code | `client_type` or `session_title`; `tool_call_id` without `tool_use_id`; a prompt of content parts |
//! | Qwen Code | `tool_call_id` or `submitted_prompt`; or `timestamp` with `transcript_path` |
//! | Copilot CLI (PascalCase) | `timestamp` with no `transcript_path` and no `permission_mode` |
//! | Claude Code | `transcript_path` and `permission_mode`, no `turn_id` or `timestamp` |
//!
//! `CLAUDE_PROJECT_DIR` is set by Claude Code, Gemini CLI and Cursor alike, so the
//! environment proves nothing and is not read.

use serde_json::Value;

use super::AgentKind;

/// The events only Gemini CLI sends (it rejects Claude Code's names).
const GEMINI_EVENTS: &[&str] = &[
    "BeforeTool",
    "AfterTool",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "PreCompress",
];

/// Kiro CLI's events (Cursor's `preToolUse` has the same name, with Cursor's fields).
const KIRO_EVENTS: &[&str] = &[
    "preToolUse",
    "postToolUse",
    "userPromptSubmit",
    "agentSpawn",
];

/// The agent a payload names, and the field that gave it away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    /// The agent.
    pub agent: AgentKind,
    /// What in the payload names it, for the note (`cursor_version`, `turn_id`, …).
    pub evidence: &'static str,
}

/// The agent that sent `payload`, when the payload says; `None` when it is ambiguous.
pub fn fingerprint(payload: &Value) -> Option<Fingerprint> {
    let map = payload.as_object()?;
    let has = |key: &str| map.get(key).is_some_and(|v| !v.is_null());
    let found = |agent, evidence| Some(Fingerprint { agent, evidence });
    let event = map.get("hook_event_name").and_then(Value::as_str);

    for key in ["cursor_version", "conversation_id", "generation_id"] {
        if has(key) {
            return found(AgentKind::Cursor, key);
        }
    }
    // Kiro CLI's camelCase events, without Cursor's fields (Cursor sends them always).
    if event.is_some_and(|e| KIRO_EVENTS.contains(&e)) {
        return found(
            AgentKind::Kiro,
            "a Kiro CLI hook_event_name without Cursor's fields",
        );
    }
    if event.is_some_and(|e| e.starts_with(|c: char| c.is_ascii_lowercase())) {
        return found(AgentKind::Cursor, "a camelCase hook_event_name");
    }
    if event.is_none() {
        for key in ["sessionId", "toolName", "toolArgs"] {
            if has(key) {
                return found(AgentKind::Copilot, key);
            }
        }
    }
    if event.is_some_and(|e| GEMINI_EVENTS.contains(&e)) {
        return found(AgentKind::Gemini, "a Gemini CLI hook_event_name");
    }
    for key in ["mcp_context", "original_request_name"] {
        if has(key) {
            return found(AgentKind::Gemini, key);
        }
    }
    if has("turn_id") {
        return found(AgentKind::Codex, "turn_id");
    }
    for key in ["client_type", "session_title"] {
        if has(key) {
            return found(AgentKind::Kimi, key);
        }
    }
    if has("tool_call_id") && !has("tool_use_id") {
        return found(AgentKind::Kimi, "tool_call_id without tool_use_id");
    }
    if map.get("prompt").is_some_and(Value::is_array) {
        return found(AgentKind::Kimi, "a prompt of content parts");
    }
    for key in ["tool_call_id", "submitted_prompt"] {
        if has(key) {
            return found(AgentKind::Qwen, key);
        }
    }
    if has("timestamp") && has("transcript_path") {
        return found(AgentKind::Qwen, "timestamp and transcript_path");
    }
    if has("timestamp") && !has("transcript_path") && !has("permission_mode") {
        return found(AgentKind::Copilot, "timestamp");
    }
    if has("transcript_path") && has("permission_mode") && !has("timestamp") {
        return found(AgentKind::ClaudeCode, "transcript_path and permission_mode");
    }
    None
}

/// Who the bridge answers, and the note to print when that is not what `--agent` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The agent to parse and answer as.
    pub agent: AgentKind,
    /// A one-line note for stderr when the payload contradicts the flag.
    pub note: Option<String>,
}

/// The agent to answer: the payload's when it names one, else `flag`, else Claude Code.
pub fn caller(payload: &Value, flag: Option<AgentKind>) -> Caller {
    match (fingerprint(payload), flag) {
        (Some(fp), Some(flag)) if fp.agent != flag => Caller {
            agent: fp.agent,
            note: Some(format!(
                "hookhost: run as `hookhost bridge --agent {}`, but this is a {} payload ({}); answered as {}.",
                flag.flag_name(),
                fp.agent,
                fp.evidence,
                fp.agent
            )),
        },
        (Some(fp), _) => Caller {
            agent: fp.agent,
            note: None,
        },
        (None, Some(flag)) => Caller {
            agent: flag,
            note: None,
        },
        (None, None) => Caller {
            agent: AgentKind::ClaudeCode,
            note: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample(name: &str) -> Value {
        let text = match name {
            "claude-pre" => include_str!("../../examples/agents/claude-code/PreToolUse.json"),
            "claude-prompt" => {
                include_str!("../../examples/agents/claude-code/UserPromptSubmit.json")
            }
            "codex-pre" => include_str!("../../examples/agents/codex/PreToolUse.json"),
            "codex-prompt" => include_str!("../../examples/agents/codex/UserPromptSubmit.json"),
            "gemini-pre" => include_str!("../../examples/agents/gemini/BeforeTool.json"),
            "gemini-prompt" => include_str!("../../examples/agents/gemini/BeforeAgent.json"),
            "cursor-pre" => include_str!("../../examples/agents/cursor/preToolUse.json"),
            "cursor-shell" => {
                include_str!("../../examples/agents/cursor/beforeShellExecution.json")
            }
            "cursor-prompt" => include_str!("../../examples/agents/cursor/beforeSubmitPrompt.json"),
            "copilot-pre" => include_str!("../../examples/agents/copilot/preToolUse.json"),
            "copilot-prompt" => {
                include_str!("../../examples/agents/copilot/userPromptSubmitted.json")
            }
            "copilot-pascal" => {
                include_str!("../../examples/agents/copilot/PascalCase-PreToolUse.json")
            }
            "qwen-pre" => include_str!("../../examples/agents/qwen-code/PreToolUse.json"),
            "qwen-prompt" => include_str!("../../examples/agents/qwen-code/UserPromptSubmit.json"),
            "kimi-pre" => include_str!("../../examples/agents/kimi-code/PreToolUse.json"),
            "kimi-prompt" => include_str!("../../examples/agents/kimi-code/UserPromptSubmit.json"),
            "kiro-pre" => include_str!("../../examples/agents/kiro/preToolUse.json"),
            "kiro-write" => include_str!("../../examples/agents/kiro/preToolUse-fs_write.json"),
            "kiro-prompt" => include_str!("../../examples/agents/kiro/userPromptSubmit.json"),
            other => panic!("no sample {other}"),
        };
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn every_sample_names_its_agent() {
        let cases = [
            ("claude-pre", AgentKind::ClaudeCode),
            ("claude-prompt", AgentKind::ClaudeCode),
            ("codex-pre", AgentKind::Codex),
            ("codex-prompt", AgentKind::Codex),
            ("gemini-pre", AgentKind::Gemini),
            ("gemini-prompt", AgentKind::Gemini),
            ("cursor-pre", AgentKind::Cursor),
            ("cursor-shell", AgentKind::Cursor),
            ("cursor-prompt", AgentKind::Cursor),
            ("copilot-pre", AgentKind::Copilot),
            ("copilot-prompt", AgentKind::Copilot),
            ("copilot-pascal", AgentKind::Copilot),
            ("qwen-pre", AgentKind::Qwen),
            ("qwen-prompt", AgentKind::Qwen),
            ("kimi-pre", AgentKind::Kimi),
            ("kimi-prompt", AgentKind::Kimi),
            ("kiro-pre", AgentKind::Kiro),
            ("kiro-write", AgentKind::Kiro),
            ("kiro-prompt", AgentKind::Kiro),
        ];
        for (name, agent) in cases {
            assert_eq!(
                fingerprint(&sample(name)).map(|f| f.agent),
                Some(agent),
                "{name}"
            );
            // And the flag never overrides it.
            for flag in AgentKind::ALL {
                assert_eq!(
                    caller(&sample(name), Some(flag)).agent,
                    agent,
                    "{name} {flag:?}"
                );
            }
        }
    }

    #[test]
    fn a_cursor_payload_through_a_claude_registration_is_answered_as_cursor() {
        let c = caller(&sample("cursor-pre"), Some(AgentKind::ClaudeCode));
        assert_eq!(c.agent, AgentKind::Cursor);
        assert_eq!(
            c.note.as_deref(),
            Some(
                "hookhost: run as `hookhost bridge --agent claude-code`, but this is a Cursor payload (cursor_version); answered as Cursor."
            )
        );
        let c = caller(&sample("copilot-pascal"), Some(AgentKind::ClaudeCode));
        assert_eq!(c.agent, AgentKind::Copilot);
        assert!(c.note.is_some());
    }

    #[test]
    fn the_flag_decides_an_ambiguous_payload() {
        let bare = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p", "tool_name": "Bash", "tool_input": {}});
        assert_eq!(fingerprint(&bare), None);
        assert_eq!(
            caller(&bare, Some(AgentKind::Codex)),
            Caller {
                agent: AgentKind::Codex,
                note: None
            }
        );
        assert_eq!(caller(&bare, None).agent, AgentKind::ClaudeCode);
        assert_eq!(
            caller(&json!("not an object"), None).agent,
            AgentKind::ClaudeCode
        );
    }

    #[test]
    fn matching_flag_has_no_note() {
        let c = caller(&sample("codex-pre"), Some(AgentKind::Codex));
        assert_eq!(c.note, None);
    }
}
