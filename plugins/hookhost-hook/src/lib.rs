//! `hookhost-hook`: the small helper a Rust hook needs, as `hookhost_hook.py` and
//! `hookhost_hook.js` are for Python and JavaScript.
//!
//! [`read_event`] reads the one line of JSON hookhost sends on stdin and returns it in
//! hookhost's vocabulary ([`canonical`]), whichever shape the hook was given: a hook run
//! with Claude Code's input (`envelope = "claude-code"`, or an argv hook behind
//! `hookhost bridge`) reads `bash`, `write_file` and a project-relative
//! `tool_input.path` exactly as one run with the spec's envelope does (hookhost's
//! docs/envelopes.md). So a policy is written once, and a name it does not know never
//! makes it object to nothing.
//!
//! [`block_json`] and [`context_json`] are the answers as JSON on stdout with exit
//! status 0, which every WASM toolchain can deliver (a wasip2 Rust component cannot exit
//! with 2).

use std::io::Read;

use serde_json::{Map, Value, json};

/// Claude Code's tool names → hookhost's (hookhost's `src/call.rs`,
/// `HOOKHOST_NAMES`). Every `mcp__server__tool` is `mcp`.
pub const HOOKHOST_NAMES: &[(&str, &str)] = &[
    ("Bash", "bash"),
    ("PowerShell", "bash"),
    ("Read", "read_file"),
    ("Write", "write_file"),
    ("Edit", "edit_file"),
    ("MultiEdit", "edit_file"),
    ("NotebookEdit", "edit_file"),
    ("apply_patch", "edit_file"),
    ("Glob", "glob"),
    ("Grep", "search"),
    ("Agent", "agent"),
    ("Task", "agent"),
    ("Skill", "skill"),
    ("Monitor", "bash"),
];

/// hookhost's file tools, whose file is `tool_input.path`.
const FILE_TOOLS: &[&str] = &["read_file", "write_file", "edit_file"];

/// Why stdin is not a hook event.
#[derive(Debug)]
pub enum EventError {
    /// Stdin could not be read.
    Read(std::io::Error),
    /// It is not one JSON object.
    NotJson(String),
}

impl std::fmt::Display for EventError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EventError::Read(e) => write!(f, "cannot read stdin: {e}"),
            EventError::NotJson(e) => write!(f, "stdin is not a JSON hook envelope: {e}"),
        }
    }
}

/// The event on stdin, in hookhost's vocabulary ([`canonical`]).
pub fn read_event() -> Result<Value, EventError> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(EventError::Read)?;
    parse_event(&input)
}

/// [`read_event`] for text already read.
pub fn parse_event(text: &str) -> Result<Value, EventError> {
    let event: Value =
        serde_json::from_str(text.trim()).map_err(|e| EventError::NotJson(e.to_string()))?;
    if !event.is_object() {
        return Err(EventError::NotJson("not an object".to_string()));
    }
    Ok(canonical(event))
}

/// hookhost's name for Claude Code's tool `claude`, if it has one.
pub fn hookhost_name(claude: &str) -> Option<&'static str> {
    if claude.starts_with("mcp__") {
        return Some("mcp");
    }
    HOOKHOST_NAMES
        .iter()
        .find(|(c, _)| *c == claude)
        .map(|(_, h)| *h)
}

/// The event in hookhost's vocabulary: Claude Code's tool names become hookhost's
/// (`Bash` → `bash`, `Write` → `write_file`, `mcp__s__t` → `mcp` with `{"server",
/// "tool", "arguments"}`), a file tool's `file_path` becomes `path`, made relative to the
/// event's `cwd` when it lies inside it. The name the hook was given is kept as
/// `given_tool_name` when it changed. A spec envelope comes back as it is.
pub fn canonical(mut event: Value) -> Value {
    let Some(tool) = event.get("tool_name").and_then(Value::as_str) else {
        return event;
    };
    let Some(name) = hookhost_name(tool) else {
        return event;
    };
    let tool = tool.to_string();
    let cwd = event.get("cwd").and_then(Value::as_str).map(str::to_string);
    let Some(map) = event.as_object_mut() else {
        return event;
    };
    let input = map.remove("tool_input").unwrap_or(Value::Null);
    let input = if name == "mcp" {
        let rest = &tool["mcp__".len()..];
        let (server, on_server) = rest.split_once("__").unwrap_or((rest, ""));
        json!({"server": server, "tool": on_server, "arguments": input})
    } else if FILE_TOOLS.contains(&name) {
        match input {
            Value::Object(fields) if !fields.contains_key("path") => {
                Value::Object(with_path(fields, cwd.as_deref()))
            }
            other => other,
        }
    } else {
        input
    };
    map.insert("tool_name".to_string(), Value::from(name));
    map.insert("tool_input".to_string(), input);
    map.insert("given_tool_name".to_string(), Value::from(tool));
    event
}

/// `fields` with `file_path` renamed `path`, relative to `cwd` when inside it.
fn with_path(fields: Map<String, Value>, cwd: Option<&str>) -> Map<String, Value> {
    fields
        .into_iter()
        .map(|(key, value)| match (key.as_str(), value) {
            ("file_path", Value::String(path)) => {
                ("path".to_string(), Value::from(relative_to(&path, cwd)))
            }
            (_, value) => (key, value),
        })
        .collect()
}

/// An absolute `path` relative to `cwd` when it lies below it (`..` resolved first, so
/// `/p/../p/.env` is `.env`), else `path` unchanged.
pub fn relative_to(path: &str, cwd: Option<&str>) -> String {
    let Some(cwd) = cwd.filter(|c| c.starts_with('/')) else {
        return path.to_string();
    };
    if !path.starts_with('/') {
        return path.to_string();
    }
    let (full, root) = (lexical(path), lexical(cwd));
    if root != "/"
        && let Some(rest) = full.strip_prefix(&root).and_then(|r| r.strip_prefix('/'))
    {
        return rest.to_string();
    }
    path.to_string()
}

/// An absolute path with empty, `.` and `..` segments resolved.
fn lexical(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    format!("/{}", segments.join("/"))
}

/// `{"decision":"block","reason":…}`, in that field order: blocks the call or prompt.
pub fn block_json(reason: &str) -> String {
    format!(
        "{{\"decision\":\"block\",\"reason\":{}}}",
        Value::from(reason)
    )
}

/// Adds `text` beside the user's prompt (UserPromptSubmit).
pub fn context_json(text: &str) -> String {
    format!(
        "{{\"hookSpecificOutput\":{{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":{}}}}}",
        Value::from(text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude(tool: &str, input: Value) -> Value {
        json!({"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/p",
               "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input})
    }

    #[test]
    fn claude_codes_names_become_hookhosts() {
        for (given, expected) in HOOKHOST_NAMES {
            let event = canonical(claude(given, json!({"command": "x"})));
            assert_eq!(event["tool_name"], *expected, "{given}");
            assert_eq!(event["given_tool_name"], *given);
        }
        let event = canonical(claude("Bash", json!({"command": "git push -f"})));
        assert_eq!(event["tool_input"], json!({"command": "git push -f"}));
    }

    #[test]
    fn a_file_path_becomes_a_relative_path() {
        let event = canonical(claude(
            "Write",
            json!({"file_path": "/p/.env", "content": "k"}),
        ));
        assert_eq!(event["tool_name"], "write_file");
        assert_eq!(event["tool_input"], json!({"path": ".env", "content": "k"}));
        let event = canonical(claude("Edit", json!({"file_path": "/p/../p/src/x.rs"})));
        assert_eq!(event["tool_input"]["path"], "src/x.rs");
        let event = canonical(claude("Read", json!({"file_path": "/elsewhere/x"})));
        assert_eq!(event["tool_input"]["path"], "/elsewhere/x");
        // `/p2` is not inside `/p`.
        let event = canonical(claude("Read", json!({"file_path": "/p2/.env"})));
        assert_eq!(event["tool_input"]["path"], "/p2/.env");
    }

    #[test]
    fn mcp_calls_take_the_specs_shape() {
        let event = canonical(claude("mcp__github__create_issue", json!({"title": "t"})));
        assert_eq!(event["tool_name"], "mcp");
        assert_eq!(
            event["tool_input"],
            json!({"server": "github", "tool": "create_issue", "arguments": {"title": "t"}})
        );
    }

    #[test]
    fn a_spec_envelope_is_unchanged() {
        let spec = json!({"session_id": "s", "hook_event_name": "PreToolUse", "cwd": "/p",
                          "tool_name": "write_file", "tool_input": {"path": ".env"}});
        assert_eq!(canonical(spec.clone()), spec);
        let unknown = claude("WebFetch", json!({"url": "u"}));
        assert_eq!(canonical(unknown.clone()), unknown);
        let prompt = json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi"});
        assert_eq!(canonical(prompt.clone()), prompt);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(parse_event("not json").is_err());
        assert!(parse_event("[1]").is_err());
        assert!(parse_event("").is_err());
    }
}
