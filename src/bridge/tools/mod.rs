//! THE mapping table: each agent's tool names and input fields → Claude Code's (the
//! canonical vocabulary) → hookhost's tool names for `tools = [...]`.
//!
//! Every agent's [`Protocol::parse`](super::Protocol::parse) maps its call here and nowhere
//! else. Claude Code's names are canonical because the hooks people have today are
//! written for them; hookhost's names are what a hook's `tools = [...]` lists. A tool with
//! no hookhost name on purpose ([`UNMAPPED`], each with why) reaches only hooks without
//! `tools`; a tool Claude Code has no name for keeps the agent's own. A tool in neither
//! table is unknown ([`naming`]): a hook with `tools` follows its `unknown_tools` for it
//! (docs/contract.md#unknown_tools).
//!
//! | Claude Code | hookhost | Codex | Gemini CLI | Cursor | Copilot CLI |
//! |---|---|---|---|---|---|
//! | `Bash` | `bash` | `Bash` | `run_shell_command` | `Shell`, `beforeShellExecution` | `bash`, `powershell`, `write_bash`, `write_powershell` (input typed into a running shell) |
//! | `PowerShell`, `Monitor` | `bash` | | | | |
//! | `Read` | `read_file` | `view_image` | `read_file` | `Read`, `beforeReadFile` | `view` |
//! | `Write` | `write_file` | | `write_file` | `Write` | `create` |
//! | `Edit` (old: `MultiEdit`), `NotebookEdit` | `edit_file` | | `replace` | | `edit`, `str_replace_editor` |
//! | `apply_patch` (Codex's own, kept; each file it names is also gated as a `Write`/`Edit`) | `edit_file` | `apply_patch` | | | `apply_patch` |
//! | `Glob` | `glob` | | `glob` | | `glob` |
//! | `Grep` | `search` | | `grep_search`, `search_file_content` | `Grep` | `grep`, `rg` |
//! | `Agent` (old: `Task`) | `agent` | `spawn_agent` | `invoke_agent` | `Task` | `task`, `Task` |
//! | `Skill` | `skill` | | `activate_skill` | | `skill` |
//! | `WebFetch` / `WebSearch` | — | | `web_fetch` / `google_web_search` | | `web_fetch` / `web_search` |
//! | `AskUserQuestion`, `TodoWrite`, `ExitPlanMode` | — | | `ask_user`, `write_todos`, `exit_plan_mode` | | `ask_user`, `update_todo` |
//! | `mcp__server__tool` | `mcp` | `mcp__server__tool` | `mcp_server_tool` (+ `mcp_context`) | `MCP:tool`, `beforeMCPExecution` (server `unknown`) | |
//!
//! Kiro CLI: `execute_bash`/`shell` → `Bash`, `fs_read`/`read` → `Read`, `fs_write`/`write`
//! → `Write` (or `Edit` when its `command` changes a file), `glob`, `grep` → `Glob`,
//! `Grep`, `@server/tool` → `mcp__server__tool`; `use_aws` keeps its name.
//!
//! Input fields ([`FIELD_RENAMES`]) are renamed to Claude Code's (`path` → `file_path`,
//! `old_str` → `old_string`, `dir_path` → `path`, …); a field not in the table is kept as
//! the agent sent it, and a field of Claude Code's name that the agent also sent gives way
//! to the agent's own (the one its tool reads; a model can add any field). A
//! relative `file_path` is made absolute against the agent's `cwd`, as Claude Code
//! always gives it.
//!
//! Choices worth knowing:
//! - Codex's `apply_patch` keeps its name and its `{"command": "<patch>"}` input (Codex
//!   hands it to its own hooks that way; Copilot's `{"input"}` is kept too): a patch names
//!   several files, so it cannot be one `Edit`. For `tools` it is `edit_file`, and each
//!   file it adds, changes, moves or deletes is gated after it as a `Write` or `Edit` of
//!   its own ([`super::touched`]), as are the files of `read_many_files`, of a Kiro
//!   `fs_read` with several operations, and Cursor's `Delete`.
//! - Copilot's `write_bash`/`write_powershell` (input typed into a shell it started with
//!   `bash {mode: "async"}`) are `Bash` calls with the input as `command`.
//! - `PowerShell` is `bash` for `tools`: a hook that guards shell commands should see
//!   every shell's.
//! - Cursor names no MCP server, so its MCP calls read `mcp__unknown__<tool>`.
//! - Gemini's `mcp_<server>_<tool>` is ambiguous when a server name has a `_`; its
//!   `mcp_context` names both parts and is used when present.
//!
//! A hook written to the spec's envelope reads [`ToolCall::spec_input`]: an MCP call as
//! `{"server", "tool", "arguments"}` (the spec's `mcp` tool), `file_path` as `path` for
//! `read_file`, `write_file` and `edit_file` (hookhost's own tools' name for it).

mod gemini_paths;
#[cfg(test)]
mod tests;
mod unmapped;

pub use unmapped::{UNMAPPED, Unmapped};

use std::path::Path;

use serde_json::{Map, Value};

use super::{AgentKind, BridgeError, ToolCall};
pub use crate::call::{HOOKHOST_NAMES, claude_name_of_hookhost, hookhost_name, mcp_parts};

/// One row of the name table: what `agent` calls a tool and Claude Code's name for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolName {
    /// The agent.
    pub agent: AgentKind,
    /// The agent's name for the tool.
    pub agent_name: &'static str,
    /// Claude Code's name for it.
    pub claude: &'static str,
}

const fn row(agent: AgentKind, agent_name: &'static str, claude: &'static str) -> ToolName {
    ToolName {
        agent,
        agent_name,
        claude,
    }
}

use AgentKind::{Codex, Copilot, Cursor, Gemini, Kimi, Kiro, Qwen};

/// Each agent's tool names → Claude Code's. Claude Code's own names need no row; an
/// agent's name not listed here is kept as it is.
pub static TOOL_NAMES: &[ToolName] = &[
    // Codex hands its hooks Claude Code's names already, except `apply_patch` (kept).
    row(Codex, "spawn_agent", "Agent"),
    // Codex's own names for its shell tools, should a hook ever get them (`Bash` is what
    // 0.171.0 sends for `exec_command`); `write_stdin` types input into a running one.
    row(Codex, "exec_command", "Bash"),
    row(Codex, "shell_command", "Bash"),
    row(Codex, "write_stdin", "Bash"),
    // `view_image` reads a local image by its `path`.
    row(Codex, "view_image", "Read"),
    // Gemini CLI (`base-declarations.ts`).
    row(Gemini, "run_shell_command", "Bash"),
    row(Gemini, "read_file", "Read"),
    row(Gemini, "write_file", "Write"),
    row(Gemini, "replace", "Edit"),
    row(Gemini, "glob", "Glob"),
    row(Gemini, "grep_search", "Grep"),
    row(Gemini, "search_file_content", "Grep"),
    row(Gemini, "web_fetch", "WebFetch"),
    row(Gemini, "google_web_search", "WebSearch"),
    row(Gemini, "invoke_agent", "Agent"),
    row(Gemini, "ask_user", "AskUserQuestion"),
    row(Gemini, "write_todos", "TodoWrite"),
    row(Gemini, "exit_plan_mode", "ExitPlanMode"),
    row(Gemini, "activate_skill", "Skill"),
    row(Gemini, "enter_plan_mode", "EnterPlanMode"),
    // Cursor's `preToolUse` tool types.
    row(Cursor, "Shell", "Bash"),
    row(Cursor, "Task", "Agent"),
    // Copilot CLI's runtime names (its camelCase events).
    row(Copilot, "bash", "Bash"),
    row(Copilot, "powershell", "Bash"),
    // Input typed into a running (async) shell session is a shell command (N4).
    row(Copilot, "write_bash", "Bash"),
    row(Copilot, "write_powershell", "Bash"),
    row(Copilot, "view", "Read"),
    row(Copilot, "create", "Write"),
    row(Copilot, "edit", "Edit"),
    row(Copilot, "str_replace_editor", "Edit"),
    row(Copilot, "apply_patch", "apply_patch"),
    row(Copilot, "grep", "Grep"),
    row(Copilot, "rg", "Grep"),
    row(Copilot, "glob", "Glob"),
    row(Copilot, "web_fetch", "WebFetch"),
    row(Copilot, "web_search", "WebSearch"),
    row(Copilot, "ask_user", "AskUserQuestion"),
    row(Copilot, "update_todo", "TodoWrite"),
    row(Copilot, "task", "Agent"),
    row(Copilot, "Task", "Agent"),
    row(Copilot, "skill", "Skill"),
    row(Copilot, "exit_plan_mode", "ExitPlanMode"),
    // Qwen Code (`tool-names.ts`): Gemini CLI's names, `edit` for `replace`.
    row(Qwen, "run_shell_command", "Bash"),
    row(Qwen, "read_file", "Read"),
    row(Qwen, "write_file", "Write"),
    row(Qwen, "edit", "Edit"),
    row(Qwen, "replace", "Edit"),
    row(Qwen, "glob", "Glob"),
    row(Qwen, "grep_search", "Grep"),
    row(Qwen, "search_file_content", "Grep"),
    row(Qwen, "web_fetch", "WebFetch"),
    row(Qwen, "web_search", "WebSearch"),
    row(Qwen, "agent", "Agent"),
    row(Qwen, "task", "Agent"),
    row(Qwen, "skill", "Skill"),
    row(Qwen, "todo_write", "TodoWrite"),
    row(Qwen, "notebook_edit", "NotebookEdit"),
    row(Qwen, "ask_user_question", "AskUserQuestion"),
    row(Qwen, "exit_plan_mode", "ExitPlanMode"),
    row(Qwen, "enter_plan_mode", "EnterPlanMode"),
    // `monitor` runs `command` and streams its output, as Claude Code's `Monitor`.
    row(Qwen, "monitor", "Monitor"),
    // Both read a local image by its `file_path`.
    row(Qwen, "zoom_image", "Read"),
    row(Qwen, "display_image", "Read"),
    // Kimi Code (`docs/en/reference/tools.md`), and the older Python CLI's names.
    row(Kimi, "FetchURL", "WebFetch"),
    // Reads an image or a video by its `path`.
    row(Kimi, "ReadMediaFile", "Read"),
    row(Kimi, "Shell", "Bash"),
    row(Kimi, "ReadFile", "Read"),
    row(Kimi, "WriteFile", "Write"),
    row(Kimi, "StrReplaceFile", "Edit"),
    row(Kimi, "SearchWeb", "WebSearch"),
    // Kiro CLI (`tool_index.json`; the newer short names too). `fs_edit` is the bridge's
    // name for an `fs_write` that changes a file (`kiro::normalize`).
    row(Kiro, "execute_bash", "Bash"),
    row(Kiro, "execute_cmd", "Bash"),
    row(Kiro, "shell", "Bash"),
    row(Kiro, "fs_read", "Read"),
    row(Kiro, "read", "Read"),
    row(Kiro, "fs_write", "Write"),
    row(Kiro, "write", "Write"),
    row(Kiro, "fs_edit", "Edit"),
    row(Kiro, "glob", "Glob"),
    row(Kiro, "grep", "Grep"),
    row(Kiro, "web_fetch", "WebFetch"),
    row(Kiro, "web_search", "WebSearch"),
];

/// How hookhost names one of an agent's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// hookhost's name for it (`tools = [...]` matches it).
    Named(&'static str),
    /// No hookhost name, on purpose ([`UNMAPPED`]), and why.
    Unmapped(&'static str),
    /// Neither: `unknown_tools` decides (docs/contract.md#unknown_tools).
    Unknown,
}

/// How hookhost names `agent`'s tool `agent_tool`.
pub fn naming(agent: AgentKind, agent_tool: &str) -> Naming {
    let claude = claude_name(agent, agent_tool, McpHint::default());
    if let Some(name) = crate::call::hookhost_name(&claude) {
        return Naming::Named(name);
    }
    UNMAPPED
        .iter()
        .find(|u| {
            (u.agent == agent && u.names.contains(&agent_tool))
                || (u.agent == AgentKind::ClaudeCode && u.names.contains(&claude.as_str()))
        })
        .map_or(Naming::Unknown, |u| Naming::Unmapped(u.reason))
}

/// `agent`'s tools with no hookhost name, on purpose: its [`UNMAPPED`] entries and its
/// rows to a Claude Code name that has none, in table order.
pub fn unmapped_names(agent: AgentKind) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = UNMAPPED
        .iter()
        .filter(|u| u.agent == agent)
        .flat_map(|u| u.names.iter().copied())
        .collect();
    for row in TOOL_NAMES.iter().filter(|r| r.agent == agent) {
        if crate::call::hookhost_name(row.claude).is_none() && !names.contains(&row.agent_name) {
            names.push(row.agent_name);
        }
    }
    names
}

/// One line per agent naming its tools with no hookhost name, for `check` and `doctor`.
pub fn unmapped_lines() -> Vec<String> {
    AgentKind::ALL
        .into_iter()
        .map(|agent| {
            format!(
                "{}: no hookhost name for {} (a hook with tools = [...] does not run for them; docs/agents.md#tools-with-no-hookhost-name)",
                agent.display_name(),
                unmapped_names(agent).join(", ")
            )
        })
        .collect()
}

/// One input field rename: for `agent`'s tool `agent_tool`, `from` becomes `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldRename {
    /// The agent.
    pub agent: AgentKind,
    /// The agent's name for the tool.
    pub agent_tool: &'static str,
    /// The agent's field.
    pub from: &'static str,
    /// Claude Code's field.
    pub to: &'static str,
}

const fn rename(
    agent: AgentKind,
    agent_tool: &'static str,
    from: &'static str,
    to: &'static str,
) -> FieldRename {
    FieldRename {
        agent,
        agent_tool,
        from,
        to,
    }
}

/// Input fields → Claude Code's, per agent and tool.
pub static FIELD_RENAMES: &[FieldRename] = &[
    rename(
        Gemini,
        "run_shell_command",
        "is_background",
        "run_in_background",
    ),
    rename(Gemini, "read_file", "start_line", "offset"),
    rename(Gemini, "replace", "allow_multiple", "replace_all"),
    rename(Gemini, "glob", "dir_path", "path"),
    rename(Gemini, "grep_search", "dir_path", "path"),
    rename(Gemini, "grep_search", "include_pattern", "glob"),
    rename(Gemini, "search_file_content", "dir_path", "path"),
    rename(Gemini, "search_file_content", "include", "glob"),
    rename(Kimi, "Read", "path", "file_path"),
    rename(Kimi, "Write", "path", "file_path"),
    rename(Kimi, "Edit", "path", "file_path"),
    rename(Kimi, "ReadFile", "path", "file_path"),
    rename(Kimi, "ReadMediaFile", "path", "file_path"),
    rename(Codex, "exec_command", "cmd", "command"),
    rename(Codex, "write_stdin", "chars", "command"),
    rename(Codex, "view_image", "path", "file_path"),
    rename(Gemini, "activate_skill", "name", "skill"),
    rename(Kimi, "WriteFile", "path", "file_path"),
    rename(Kimi, "StrReplaceFile", "path", "file_path"),
    rename(Kiro, "fs_read", "path", "file_path"),
    rename(Kiro, "read", "path", "file_path"),
    rename(Kiro, "fs_write", "path", "file_path"),
    rename(Kiro, "fs_write", "file_text", "content"),
    rename(Kiro, "write", "path", "file_path"),
    rename(Kiro, "write", "file_text", "content"),
    rename(Kiro, "fs_edit", "path", "file_path"),
    rename(Kiro, "fs_edit", "old_str", "old_string"),
    rename(Kiro, "fs_edit", "new_str", "new_string"),
    rename(Cursor, "Read", "path", "file_path"),
    rename(Cursor, "Write", "path", "file_path"),
    rename(Copilot, "write_bash", "input", "command"),
    rename(Copilot, "write_powershell", "input", "command"),
    rename(Copilot, "view", "path", "file_path"),
    rename(Copilot, "create", "path", "file_path"),
    rename(Copilot, "create", "file_text", "content"),
    rename(Copilot, "edit", "path", "file_path"),
    rename(Copilot, "edit", "old_str", "old_string"),
    rename(Copilot, "edit", "new_str", "new_string"),
    rename(Copilot, "str_replace_editor", "path", "file_path"),
    rename(Copilot, "str_replace_editor", "old_str", "old_string"),
    rename(Copilot, "str_replace_editor", "new_str", "new_string"),
];

/// Where an MCP call came from, when the agent names the server apart from the tool
/// (Gemini's `mcp_context`).
#[derive(Debug, Clone, Copy, Default)]
pub struct McpHint<'a> {
    /// The server's name.
    pub server: Option<&'a str>,
    /// The tool's name on that server.
    pub tool: Option<&'a str>,
}

/// Claude Code's name for `agent`'s tool `agent_tool`.
pub fn claude_name(agent: AgentKind, agent_tool: &str, mcp: McpHint<'_>) -> String {
    if let Some(row) = TOOL_NAMES
        .iter()
        .find(|r| r.agent == agent && r.agent_name == agent_tool)
    {
        return row.claude.to_string();
    }
    match agent {
        AgentKind::Gemini => {
            if let Some(rest) = agent_tool.strip_prefix("mcp_") {
                let (server, tool) = match (mcp.server, mcp.tool) {
                    (Some(server), Some(tool)) => (server, tool),
                    // Without the context the first `_` is the best guess.
                    _ => rest.split_once('_').unwrap_or(("unknown", rest)),
                };
                return format!("mcp__{server}__{tool}");
            }
        }
        AgentKind::Cursor => {
            if let Some(tool) = agent_tool.strip_prefix("MCP:") {
                return format!("mcp__unknown__{tool}");
            }
        }
        AgentKind::Kiro => {
            if let Some((server, tool)) = agent_tool
                .strip_prefix('@')
                .and_then(|rest| rest.split_once('/'))
            {
                return format!("mcp__{server}__{tool}");
            }
        }
        _ => {}
    }
    agent_tool.to_string()
}

/// Maps `agent`'s call of `agent_tool` with `input` (in its `event`) to the canonical
/// call: Claude Code's name and field names, hookhost's name, a `file_path` made absolute
/// against `cwd`. A shell call whose `command` is not a string (an argument list) is one
/// no hook could read, and an error: a policy that reads the command as text would find
/// nothing to object to.
pub fn map_call(
    agent: AgentKind,
    event: &str,
    agent_tool: &str,
    input: Value,
    mcp: McpHint<'_>,
    cwd: Option<&str>,
    tool_use_id: Option<String>,
) -> Result<ToolCall, BridgeError> {
    let tool = claude_name(agent, agent_tool, mcp);
    // Files the agent may pick for the call by searching for its path.
    let mut searched = Vec::new();
    let tool_input = match input {
        Value::Object(mut map) => {
            for r in FIELD_RENAMES
                .iter()
                .filter(|r| r.agent == agent && r.agent_tool == agent_tool)
            {
                // The agent's tool reads its own field: a field of Claude Code's name beside
                // it (which a model can add) is not what runs, so it gives way.
                if let Some(value) = map.shift_remove(r.from) {
                    map.insert(r.to.to_string(), value);
                }
            }
            if agent == Gemini {
                searched = gemini_paths::read_as_gemini_does(&mut map, cwd, agent_tool).map_err(
                    |why| BridgeError::Unresolved {
                        agent,
                        event: event.to_string(),
                        why,
                    },
                )?;
            }
            absolutize_file_path(&mut map, cwd, expands_home(agent));
            Value::Object(map)
        }
        other => other,
    };
    let mut call = ToolCall::claude(tool, tool_input, tool_use_id);
    if call.hookhost_tool == Some("bash")
        && call
            .tool_input
            .get("command")
            .is_some_and(|command| !command.is_string())
    {
        return Err(BridgeError::Field {
            agent,
            event: event.to_string(),
            field: "tool_input.command",
            expected: "a string",
        });
    }
    call.files = super::touched::touched_files(&call, cwd);
    // Each file a search could pick is gated as an edit of its own, as a patch's files are.
    call.files.extend(searched.into_iter().map(|file| {
        ToolCall::claude(
            "Edit".into(),
            serde_json::json!({"file_path": file, "operation": "update"}),
            call.tool_use_id.clone(),
        )
    }));
    if naming(agent, agent_tool) == Naming::Unknown {
        call.unknown_to = Some(agent.display_name().to_string());
    }
    Ok(call)
}

/// A relative `file_path` joined to `cwd`, as Claude Code always gives it absolute; with
/// `keep_home`, one under `~` is left for [`expand_home`].
fn absolutize_file_path(map: &mut Map<String, Value>, cwd: Option<&str>, keep_home: bool) {
    // Absolute as this OS reads paths (`C:\…` on Windows).
    let Some(cwd) = cwd.filter(|c| Path::new(c).is_absolute()) else {
        return;
    };
    if let Some(Value::String(path)) = map.get_mut("file_path")
        && !path.is_empty()
        && !Path::new(path.as_str()).is_absolute()
        && !(keep_home && under_home(path).is_some())
    {
        let joined = Path::new(cwd).join(path.as_str());
        *path = joined.to_string_lossy().into_owned();
    }
}

/// Whether `agent`'s file tools read a leading `~` as the home folder: Kimi Code
/// (`expandUserPath`, 2.1.0's bundle) and Kiro CLI (`sanitize_path_tool_arg`, from its
/// predecessor's source). A policy reading `~/p/secrets/k.pem` as a path in the project saw
/// no `secrets/k.pem` (docs/agents.md#every-file-a-call-touches).
fn expands_home(agent: AgentKind) -> bool {
    matches!(agent, Kimi | Kiro)
}

/// The rest of `path` after a leading `~` (`~` itself, `~/…`, and `~\…` on Windows), as
/// those agents expand it; `None` for any other path (`~user/…` is not expanded).
fn under_home(path: &str) -> Option<&str> {
    if path == "~" {
        return Some("");
    }
    // `~//x` is `$HOME/x` (the agents join the rest on), never `/x`; `\\` separates too
    // where the OS reads it so (Windows).
    path.strip_prefix('~')
        .filter(|rest| rest.starts_with(std::path::is_separator))
        .map(|rest| rest.trim_start_matches(std::path::is_separator))
}

/// Makes the `file_path` of `agent`'s `call` that starts with `~` the path under `home` the
/// agent opens, for an agent that expands it (Kimi Code, Kiro CLI), and so each file the call
/// touches ([`ToolCall::files`], made against `cwd`: a Kiro `fs_read`'s operations); with
/// no home known, or for another agent, it stays joined to `cwd` as any relative path is.
/// The front end calls this after the agent's `parse`, with the agent's home.
pub fn expand_home(agent: AgentKind, call: &mut ToolCall, cwd: Option<&str>, home: Option<&Path>) {
    if !expands_home(agent) {
        return;
    }
    let Some(home) = home.filter(|h| h.is_absolute()) else {
        // As any relative path: the agent's home is not known.
        if let Some(cwd) = cwd.map(Path::new).filter(|c| c.is_absolute())
            && let Some(Value::String(path)) = call.tool_input.get_mut("file_path")
            && under_home(path).is_some()
        {
            *path = cwd.join(path.as_str()).to_string_lossy().into_owned();
        }
        return;
    };
    let under = |rest: &str| {
        if rest.is_empty() {
            home.to_path_buf()
        } else {
            home.join(rest)
        }
    };
    if let Some(Value::String(path)) = call.tool_input.get_mut("file_path")
        && let Some(rest) = under_home(path)
    {
        *path = under(rest).to_string_lossy().into_owned();
    }
    let Some(cwd) = cwd.map(Path::new).filter(|c| c.is_absolute()) else {
        return;
    };
    for file in &mut call.files {
        if let Some(Value::String(path)) = file.tool_input.get_mut("file_path")
            && let Ok(relative) = Path::new(path.as_str()).strip_prefix(cwd)
            && let Some(rest) = relative.to_str().and_then(under_home)
        {
            *path = under(rest).to_string_lossy().into_owned();
        }
    }
}
