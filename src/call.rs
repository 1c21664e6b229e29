//! The one tool-call type every front end builds, and the tool vocabulary it is named in.
//!
//! A [`ToolCall`] is what a `PreToolUse` gate judges: the tool under Claude Code's name and
//! hookhost's ([`HOOKHOST_NAMES`]), its arguments, the agent's id for it, and the files it
//! touches beyond its own arguments ([`ToolCall::files`]). `hookhost pre-tool-use`, `serve`,
//! `eval` and replay build one from hookhost's own names ([`ToolCall::from_hookhost`]); the
//! bridge builds one from each agent's call (`bridge::tools::map_call`). [`CallerFacts`]
//! are what the calling agent says about its session beyond the call (its transcript).
//! [`Session::pre_tool_use_call`](crate::session::Session::pre_tool_use_call) is the one
//! door.
//!
//! Claude Code's names are the canonical vocabulary because the hooks people have today
//! are written for them; hookhost's names are what a hook's `tools = [...]` lists. Nothing
//! here knows an agent: the agents' own names are mapped onto these in `bridge::tools`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::envelope::EnvelopeShape;

/// Claude Code's names (old spellings included) → hookhost's tool names. Every MCP tool
/// (`mcp__…`) is `mcp`; a name not here has no hookhost name. The helpers hook authors copy
/// (`plugins/hookhost-hook`, `hookhost_hook.py`, `hookhost_hook.js`) hold the same table.
pub static HOOKHOST_NAMES: &[(&str, &str)] = &[
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
    // Runs `command` and streams its output (Claude Code 2.1.332's `MonitorInput`): a hook
    // that guards shell commands must see every shell's (docs/agents.md#tool-names).
    ("Monitor", "bash"),
];

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

/// Claude Code's usual name for hookhost's tool `hookhost` (the first row that maps to
/// it), for a front end that must show a hookhost call to a hook written for Claude Code.
pub fn claude_name_of_hookhost(hookhost: &str) -> Option<&'static str> {
    if hookhost == "mcp" {
        return None; // the name needs the server and the tool: `mcp__server__tool`
    }
    HOOKHOST_NAMES
        .iter()
        .find(|(_, h)| *h == hookhost)
        .map(|(c, _)| *c)
}

/// The server and tool of Claude Code's `mcp__server__tool` name.
pub fn mcp_parts(claude: &str) -> Option<(&str, &str)> {
    claude.strip_prefix("mcp__")?.split_once("__")
}

/// One tool call, as a `PreToolUse` gate judges it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// Claude Code's name for the tool (`Bash`, `Write`, `mcp__github__create_issue`);
    /// a tool Claude Code has no name for keeps the agent's own.
    pub tool: String,
    /// hookhost's name for `tools = [...]` matching (`bash`, `write_file`, `mcp`), or
    /// `None` when it has none: such a call reaches only hooks without `tools`.
    pub hookhost_tool: Option<&'static str>,
    /// The arguments, in the shape [`ToolCall::given`] names: Claude Code's (its field
    /// names, absolute `file_path`) for an agent's call, the spec's for hookhost's own.
    pub tool_input: Value,
    /// The agent's id for the call, when it gave one.
    pub tool_use_id: Option<String>,
    /// The shape `tool_input` is in.
    pub given: EnvelopeShape,
    /// The files the call touches that its own arguments do not name in a field a path
    /// policy reads (a patch's files, each operation of a multi-file read, a delete), one
    /// call of a file tool each (`Write` to create or delete, `Edit` to change, `Read`),
    /// in Claude Code's shape. Each is judged as a call of its own after this one
    /// (docs/agents.md, "Every file a call touches").
    pub files: Vec<ToolCall>,
    /// The agent (as its users name it) whose tool this is, when hookhost has no name
    /// for the tool and does not know it to have none: a hook with `tools = [...]` then
    /// follows its `unknown_tools` (docs/contract.md#unknown_tools). `None` for every
    /// named or documented tool, and for hookhost's own calls.
    pub unknown_to: Option<String>,
}

impl ToolCall {
    /// A call in Claude Code's vocabulary (an agent's call, mapped): `tool` is Claude
    /// Code's name, `tool_input` in its shape.
    pub fn claude(tool: String, tool_input: Value, tool_use_id: Option<String>) -> ToolCall {
        ToolCall {
            hookhost_tool: hookhost_name(&tool),
            tool,
            tool_input,
            tool_use_id,
            given: EnvelopeShape::ClaudeCode,
            files: Vec::new(),
            unknown_to: None,
        }
    }

    /// A call of hookhost's own tool `name` (`bash`, `write_file`, …) with the spec's
    /// arguments: what `pre-tool-use`, `serve`, `eval` and an embedder give. A hook written
    /// for Claude Code reads it under Claude Code's usual name for the tool, with the
    /// arguments as given.
    pub fn from_hookhost(name: &str, tool_input: Value, tool_use_id: Option<String>) -> ToolCall {
        ToolCall {
            tool: claude_name_of_hookhost(name).unwrap_or(name).to_string(),
            hookhost_tool: None,
            tool_input,
            tool_use_id,
            given: EnvelopeShape::Spec,
            files: Vec::new(),
            unknown_to: None,
        }
        .named(name)
    }

    /// The name `tools = [...]` is matched against and the spec's envelope carries:
    /// hookhost's name, or the tool's own when it has none.
    pub fn spec_name(&self) -> &str {
        self.hookhost_tool.unwrap_or(self.tool.as_str())
    }

    /// Whether a hook with `tools` (`None`: every tool) covers this call. An agent's tool
    /// with no hookhost name reaches only hooks without `tools`; a hookhost call is matched
    /// by the name it was given, known or not.
    pub fn covered_by(&self, tools: Option<&[String]>) -> bool {
        let Some(tools) = tools else {
            return true;
        };
        let name = match (self.hookhost_tool, self.given) {
            (Some(name), _) => name,
            (None, EnvelopeShape::Spec) => self.tool.as_str(),
            (None, EnvelopeShape::ClaudeCode) => return false,
        };
        tools.iter().any(|t| t == name)
    }

    /// The arguments as a hook written to the spec's envelope reads them: for an agent's
    /// call, an MCP call as `{"server", "tool", "arguments"}` (the spec's `mcp` tool) and
    /// `file_path` as `path` for `read_file`, `write_file` and `edit_file` (hookhost's own
    /// tools' name for it), anything else as given. Paths are still absolute here; the
    /// envelope makes them relative to the project.
    pub fn spec_input(&self) -> Value {
        if self.given == EnvelopeShape::Spec {
            return self.tool_input.clone();
        }
        match self.hookhost_tool {
            Some("mcp") => {
                let (server, tool) =
                    mcp_parts(&self.tool).unwrap_or(("unknown", self.tool.as_str()));
                serde_json::json!({
                    "server": server,
                    "tool": tool,
                    "arguments": self.tool_input,
                })
            }
            Some("read_file" | "write_file" | "edit_file") => match &self.tool_input {
                Value::Object(map) if !map.contains_key("path") => {
                    let renamed: Map<String, Value> = map
                        .iter()
                        .map(|(k, v)| {
                            let key = if k == "file_path" { "path" } else { k.as_str() };
                            (key.to_string(), v.clone())
                        })
                        .collect();
                    Value::Object(renamed)
                }
                other => other.clone(),
            },
            _ => self.tool_input.clone(),
        }
    }

    /// This call with hookhost's name `name` (a spec call names its tool by it, known or
    /// not, as `tools = [...]` does).
    fn named(mut self, name: &str) -> ToolCall {
        self.hookhost_tool = HOOKHOST_NAMES
            .iter()
            .map(|(_, h)| *h)
            .chain(["mcp"])
            .find(|h| *h == name);
        if self.hookhost_tool.is_none() {
            // Not one of hookhost's own tools: the spec's envelope still names it as
            // given, and `tools = [...]` matches it by that name.
            self.tool = name.to_string();
        }
        self
    }
}

/// What the calling agent says about its session beyond the call itself, for hooks that
/// read Claude Code's input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallerFacts {
    /// The agent's transcript, when it gave one (`transcript_path`).
    pub transcript_path: Option<String>,
}

/// What a gate's Claude Code input was made from, kept in the record (`gate.verdict`'s
/// `bridged`) so that replay rebuilds that input byte for byte.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaudeInputSource {
    /// The shape of an argv hook without an `envelope` key in that session.
    pub default_envelope: EnvelopeShape,
    /// The agent's transcript, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// Claude Code's name for the tool (an agent's call only; absent for hookhost's own
    /// calls, where the gate's own tool name is the call's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The call's arguments as given, paths absolute (a call only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<Value>,
    /// [`ToolCall::unknown_to`]: the agent whose tool hookhost could not name, when the
    /// gate was blocked for it (so that replay blocks it again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_to: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_spec_shape_of_an_agents_call() {
        let mcp = ToolCall::claude(
            "mcp__github__create_issue".into(),
            json!({"title": "x"}),
            None,
        );
        assert_eq!(
            mcp.spec_input(),
            json!({"server": "github", "tool": "create_issue", "arguments": {"title": "x"}})
        );
        let write = ToolCall::claude(
            "Write".into(),
            json!({"file_path": "/p/a", "content": "c"}),
            None,
        );
        assert_eq!(write.spec_input(), json!({"path": "/p/a", "content": "c"}));
        assert_eq!(write.spec_name(), "write_file");
        let bash = ToolCall::claude("Bash".into(), json!({"command": "ls"}), None);
        assert_eq!(bash.spec_input(), json!({"command": "ls"}));
    }

    #[test]
    fn a_hookhost_call_keeps_its_arguments_and_takes_claude_codes_usual_name() {
        let mcp = json!({"server": "github", "tool": "t", "arguments": {}});
        let call = ToolCall::from_hookhost("mcp", mcp.clone(), None);
        assert_eq!((call.spec_name(), call.spec_input()), ("mcp", mcp));
        let write = ToolCall::from_hookhost("write_file", json!({"path": "a"}), None);
        assert_eq!(
            (write.tool.as_str(), write.spec_name()),
            ("Write", "write_file")
        );
        let odd = ToolCall::from_hookhost("frobnicate", json!({}), None);
        assert_eq!((odd.tool.as_str(), odd.hookhost_tool), ("frobnicate", None));
        assert!(odd.covered_by(None));
        assert!(!odd.covered_by(Some(&["bash".to_string()])));
        assert!(odd.covered_by(Some(&["frobnicate".to_string()])));
        let agents = ToolCall::claude("WebFetch".into(), json!({}), None);
        assert!(!agents.covered_by(Some(&["WebFetch".to_string()])));
    }
}

#[cfg(test)]
mod helper_tables {
    /// The helpers hook authors copy hold the same name table (a WASM guest cannot depend
    /// on this crate): every pair is spelled in each of them.
    #[test]
    fn the_helpers_hold_the_same_names() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins");
        for (file, pair) in [
            ("hookhost-hook/src/lib.rs", "(\"{c}\", \"{h}\")"),
            ("python/hookhost_hook.py", "\"{c}\": \"{h}\""),
            ("js/hookhost_hook.js", "{c}: \"{h}\""),
        ] {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            for (claude, hookhost) in super::HOOKHOST_NAMES {
                let spelled = pair.replace("{c}", claude).replace("{h}", hookhost);
                assert!(text.contains(&spelled), "{file} lacks {spelled}");
            }
        }
    }
}
