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
//! the agent sent it, and a renamed field never overwrites one the agent also sent. A
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

use std::path::Path;

use serde_json::{Map, Value};

use super::{AgentKind, ToolCall};
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

/// Tools that have no hookhost name, on purpose, each with why: a hook with `tools =
/// [...]` does not run for them, and nothing else happens (docs/agents.md#tools-with-no-hookhost-name).
/// Claude Code's entries hold for every agent whose tool maps to that name. A tool
/// neither named ([`TOOL_NAMES`], [`HOOKHOST_NAMES`]) nor here is unknown, and a hook
/// with `tools` follows its `unknown_tools` for it ([`naming`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unmapped {
    /// The agent.
    pub agent: AgentKind,
    /// The agent's names for such tools.
    pub names: &'static [&'static str],
    /// Why no hookhost tool fits, in one line.
    pub reason: &'static str,
}

const fn unmapped(
    agent: AgentKind,
    names: &'static [&'static str],
    reason: &'static str,
) -> Unmapped {
    Unmapped {
        agent,
        names,
        reason,
    }
}

/// The tools each agent offers that have no hookhost name (from each agent's own
/// package: `tests/data/agent_tools.toml`, `scripts/agent-tools.sh`).
pub static UNMAPPED: &[Unmapped] = &[
    // Claude Code 2.1.332 (old spellings too).
    unmapped(
        AgentKind::ClaudeCode,
        &["WebFetch", "WebSearch"],
        "reads the web through the agent; touches no local file and runs nothing",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["AskUserQuestion"],
        "asks the user a question; runs nothing",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["TodoWrite"],
        "updates the agent's own to-do list",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["EnterPlanMode", "ExitPlanMode"],
        "switches the agent's plan mode",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["EnterWorktree"],
        "moves the session into a git worktree; what it then runs and edits reaches hooks on its own",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["ExitWorktree"],
        "leaves the worktree the session entered; \"remove\" deletes that worktree and its branch, which no hookhost tool names",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &[
            "TaskCreate",
            "TaskGet",
            "TaskList",
            "TaskUpdate",
            "TaskStop",
            "TaskOutput",
            "KillShell",
            "KillBash",
            "ListAgents",
            "ListPeers",
            "SendMessage",
            "SubagentHandback",
        ],
        "manages the agent's own tasks, background shells and subagents (lists, reads, stops or messages them); runs nothing new",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &[
            "ListMcpResourcesTool",
            "ReadMcpResourceTool",
            "ReadMcpResourceDirTool",
            "ListMcpResources",
            "ReadMcpResource",
            "ReadMcpResourceDir",
            "WaitForMcpServers",
        ],
        "reads an MCP server's resources or waits for its servers, not a call of one of its tools (those are mcp)",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["ToolSearch"],
        "looks up deferred tools' schemas; the tool then called reaches hooks under its own name",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["Workflow"],
        "runs a script of subagents; each of their tool calls reaches hooks on its own",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &[
            "CronCreate",
            "CronDelete",
            "CronList",
            "ScheduleWakeup",
            "RemoteTrigger",
        ],
        "schedules a prompt for later; the calls it leads to reach hooks then",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["LSP"],
        "asks a language server about the code (definitions, references, symbols)",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["Artifact"],
        "publishes an HTML page or uploads a local file to claude.ai; its file_path is not gated as a read yet",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &["SendUserFile"],
        "sends a local file to the user's device; its path is not gated as a read yet",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &[
            "SendUserMessage",
            "Brief",
            "PushNotification",
            "ReadNotifications",
        ],
        "messages the user or reads their notifications",
    ),
    unmapped(
        AgentKind::ClaudeCode,
        &[
            "ReportFindings",
            "SendFeedback",
            "EndConversation",
            "SetGoal",
            "ProposeGoal",
            "propose_skills",
            "ShareOnboardingGuide",
            "ShowOnboardingRolePicker",
            "OfferChromeSetup",
            "ClaudeDesign",
            "Projects",
        ],
        "the agent's own state, reports and screens; runs nothing and touches no project file",
    ),
    // Codex 0.171.0.
    unmapped(Codex, &["update_plan"], "updates the agent's own plan"),
    unmapped(
        Codex,
        &[
            "request_user_input",
            "request_permissions",
            "request_plugin_install",
            "list_available_plugins_to_install",
        ],
        "asks the user (for an answer, more sandbox permissions, a plugin); runs nothing itself",
    ),
    unmapped(
        Codex,
        &[
            "send_input",
            "send_message",
            "followup_task",
            "wait_agent",
            "close_agent",
            "resume_agent",
            "list_agents",
        ],
        "talks to, waits for or stops subagents that spawn_agent started; their own calls reach hooks",
    ),
    unmapped(
        Codex,
        &[
            "list_mcp_resources",
            "list_mcp_resource_templates",
            "read_mcp_resource",
        ],
        "reads an MCP server's resources, not a call of one of its tools (those are mcp)",
    ),
    unmapped(
        Codex,
        &["tool_search"],
        "looks up deferred tools; the tool then called reaches hooks under its own name",
    ),
    unmapped(
        Codex,
        &[
            "current_time",
            "sleep",
            "get_context_remaining",
            "new_context_window",
            "wait_for_environment",
        ],
        "the agent's own clock, context and environment; runs nothing",
    ),
    unmapped(
        Codex,
        &["web_search"],
        "a search the model provider runs; Codex calls no hook for it",
    ),
    // Gemini CLI 0.61.0.
    unmapped(
        Gemini,
        &["read_many_files"],
        "reads files by pattern: each path or pattern is gated as a Read of its own (docs/agents.md#every-file-a-call-touches)",
    ),
    unmapped(
        Gemini,
        &["list_directory"],
        "lists one folder's entries; no hookhost tool lists a folder (glob takes a pattern)",
    ),
    unmapped(Gemini, &["update_topic"], "sets the session's topic line"),
    unmapped(
        Gemini,
        &[
            "tracker_create_task",
            "tracker_update_task",
            "tracker_get_task",
            "tracker_list_tasks",
            "tracker_add_dependency",
            "tracker_visualize",
        ],
        "the agent's own task tracker",
    ),
    unmapped(
        Gemini,
        &["list_background_processes", "read_background_output"],
        "lists or reads shells the agent started; runs nothing new",
    ),
    unmapped(
        Gemini,
        &["list_mcp_resources", "read_mcp_resource"],
        "reads an MCP server's resources, not a call of one of its tools (those are mcp)",
    ),
    unmapped(
        Gemini,
        &["get_internal_docs"],
        "reads Gemini CLI's own bundled documentation",
    ),
    unmapped(Gemini, &["complete_task"], "a subagent's final report"),
    unmapped(
        Gemini,
        &["analyze_screenshot"],
        "the browser agent looks at a screenshot it took",
    ),
    // Qwen Code 0.24.4.
    unmapped(
        Qwen,
        &["exec"],
        "runs JavaScript in Qwen's isolated code-mode runtime; each tool it calls goes through Qwen's scheduler and reaches hooks on its own (by reading)",
    ),
    unmapped(
        Qwen,
        &["tool_call"],
        "calls a deferred tool; Qwen applies hooks to the tool called (its description)",
    ),
    unmapped(
        Qwen,
        &["tool_search"],
        "looks up deferred tools; the tool then called reaches hooks under its own name",
    ),
    unmapped(
        Qwen,
        &["read_many_files"],
        "(older Qwen Code; 0.24.4 has none) reads files by pattern: each path or pattern is gated as a Read of its own (docs/agents.md#every-file-a-call-touches)",
    ),
    unmapped(
        Qwen,
        &["list_directory"],
        "lists one folder's entries; no hookhost tool lists a folder (glob takes a pattern)",
    ),
    unmapped(
        Qwen,
        &["save_memory"],
        "adds a fact to Qwen's own memory file, not a project file",
    ),
    unmapped(
        Qwen,
        &["lsp"],
        "asks a language server about the code (definitions, references, symbols)",
    ),
    unmapped(Qwen, &["image_gen"], "has the model provider draw an image"),
    unmapped(
        Qwen,
        &["cron_create", "cron_list", "cron_delete", "loop_wakeup"],
        "schedules a prompt for later; the calls it leads to reach hooks then",
    ),
    unmapped(
        Qwen,
        &[
            "create_sub_session",
            "list_agents",
            "task_stop",
            "task_create",
            "task_update",
            "task_list",
            "team_create",
            "team_delete",
            "team_plan_approval",
            "request_shutdown",
            "send_message",
        ],
        "manages the agent's own tasks, subagents and teams; their own calls reach hooks",
    ),
    unmapped(
        Qwen,
        &["structured_output"],
        "the session's final structured answer",
    ),
    unmapped(
        Qwen,
        &["read_mcp_resource"],
        "reads an MCP server's resource, not a call of one of its tools (those are mcp)",
    ),
    unmapped(
        Qwen,
        &["enter_worktree", "exit_worktree"],
        "moves the session into or out of a git worktree; what it then runs and edits reaches hooks on its own",
    ),
    unmapped(
        Qwen,
        &["workflow"],
        "runs a script of subagents; each of their tool calls reaches hooks on its own",
    ),
    unmapped(
        Qwen,
        &[
            "artifact",
            "record_artifact",
            "record_source",
            "report_findings",
            "get_goal",
            "update_goal",
            "propose_goal",
        ],
        "the agent's own artifacts, sources, findings and goals",
    ),
    unmapped(
        Qwen,
        &[
            "omni_downsample_image",
            "omni_downscale_video",
            "omni_downsample_audio",
            "omni_extract_keyframes",
            "omni_extract_audio",
            "omni_clip_video",
            "omni_convert_image",
            "omni_transcribe_audio",
            "omni_clip_image",
            "omni_clip_audio",
            "omni_caption_image",
            "omni_caption_audio",
            "omni_ocr_image",
            "omni_understand_video_segments",
            "omni_recall_media_memory",
        ],
        "Qwen's media tools on media the session was given (not offered to the model unless its config opens them)",
    ),
    // Copilot CLI 1.0.102.
    unmapped(
        Copilot,
        &[
            "read_bash",
            "read_powershell",
            "stop_bash",
            "stop_powershell",
            "list_bash",
            "list_powershell",
        ],
        "reads, stops or lists shells the agent started; runs nothing new (write_bash is bash)",
    ),
    unmapped(
        Copilot,
        &["lsp"],
        "asks a language server about the code (definitions, references, symbols)",
    ),
    unmapped(
        Copilot,
        &["read_agent", "list_agents", "write_agent", "task_complete"],
        "talks to or lists subagents that task started, or ends one; their own calls reach hooks",
    ),
    unmapped(
        Copilot,
        &["store_memory", "sql", "context_board", "report_intent"],
        "the agent's own memory, session store and status line",
    ),
    unmapped(
        Copilot,
        &["fetch_copilot_cli_documentation"],
        "reads Copilot CLI's own documentation",
    ),
    // Kimi Code 2.1.0.
    unmapped(
        Kimi,
        &[
            "AskUserQuestion",
            "EnterPlanMode",
            "ExitPlanMode",
            "WebSearch",
            "CronCreate",
            "CronDelete",
            "CronList",
            "TaskList",
            "TaskOutput",
            "TaskStop",
        ],
        "Claude Code's tools of the same names, which have none",
    ),
    unmapped(
        Kimi,
        &["AgentSwarm"],
        "starts several subagents; each of their tool calls reaches hooks on its own",
    ),
    unmapped(
        Kimi,
        &["CreateGoal", "GetGoal", "SetGoalBudget", "UpdateGoal"],
        "the agent's own goals",
    ),
    unmapped(
        Kimi,
        &["WaitFor"],
        "waits for a background task the agent started",
    ),
    unmapped(
        Kimi,
        &[
            "TowerFinding",
            "TowerInbox",
            "TowerInit",
            "TowerMerge",
            "TowerMission",
            "TowerPlan",
            "TowerReview",
            "TowerSend",
            "TowerSpawn",
            "TowerStatus",
            "TowerTeardown",
        ],
        "Kimi's multi-agent tower: plans, messages and merges subagents' work; their own calls reach hooks",
    ),
    // Cursor and Kiro CLI: from their documentation (docs/agents.md).
    unmapped(
        Cursor,
        &["Delete"],
        "deletes a file: gated as a Write of that file (docs/agents.md#every-file-a-call-touches)",
    ),
    unmapped(
        Kiro,
        &["use_aws"],
        "calls an AWS API (a service and an operation); no hookhost tool names one",
    ),
    unmapped(
        Kiro,
        &[
            "knowledge",
            "todo_list",
            "introspect",
            "report_issue",
            "thinking",
        ],
        "the agent's own knowledge base, to-do list, help and notes",
    ),
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

/// Maps `agent`'s call of `agent_tool` with `input` to the canonical call: Claude Code's
/// name and field names, hookhost's name, a `file_path` made absolute against `cwd`.
pub fn map_call(
    agent: AgentKind,
    agent_tool: &str,
    input: Value,
    mcp: McpHint<'_>,
    cwd: Option<&str>,
    tool_use_id: Option<String>,
) -> ToolCall {
    let tool = claude_name(agent, agent_tool, mcp);
    let tool_input = match input {
        Value::Object(mut map) => {
            for r in FIELD_RENAMES
                .iter()
                .filter(|r| r.agent == agent && r.agent_tool == agent_tool)
            {
                if map.contains_key(r.to) {
                    continue;
                }
                if let Some(value) = map.shift_remove(r.from) {
                    map.insert(r.to.to_string(), value);
                }
            }
            absolutize_file_path(&mut map, cwd);
            Value::Object(map)
        }
        other => other,
    };
    let mut call = ToolCall::claude(tool, tool_input, tool_use_id);
    call.files = super::touched::touched_files(&call, cwd);
    if naming(agent, agent_tool) == Naming::Unknown {
        call.unknown_to = Some(agent.display_name().to_string());
    }
    call
}

/// A relative `file_path` joined to `cwd`, as Claude Code always gives it absolute.
fn absolutize_file_path(map: &mut Map<String, Value>, cwd: Option<&str>) {
    // Absolute as this OS reads paths (`C:\…` on Windows).
    let Some(cwd) = cwd.filter(|c| Path::new(c).is_absolute()) else {
        return;
    };
    if let Some(Value::String(path)) = map.get_mut("file_path")
        && !path.is_empty()
        && !Path::new(path.as_str()).is_absolute()
    {
        let joined = Path::new(cwd).join(path.as_str());
        *path = joined.to_string_lossy().into_owned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentKind::ClaudeCode;
    use serde_json::json;

    /// The whole name table, one line per case: agent, agent's name, Claude Code's name,
    /// hookhost's name.
    #[test]
    fn the_name_table() {
        let none = McpHint::default();
        let cases: &[(AgentKind, &str, &str, Option<&str>)] = &[
            (ClaudeCode, "Bash", "Bash", Some("bash")),
            (ClaudeCode, "PowerShell", "PowerShell", Some("bash")),
            (ClaudeCode, "Read", "Read", Some("read_file")),
            (ClaudeCode, "Write", "Write", Some("write_file")),
            (ClaudeCode, "Edit", "Edit", Some("edit_file")),
            (ClaudeCode, "MultiEdit", "MultiEdit", Some("edit_file")),
            (ClaudeCode, "Glob", "Glob", Some("glob")),
            (ClaudeCode, "Grep", "Grep", Some("search")),
            (ClaudeCode, "Agent", "Agent", Some("agent")),
            (ClaudeCode, "Task", "Task", Some("agent")),
            (ClaudeCode, "WebFetch", "WebFetch", None),
            (ClaudeCode, "WebSearch", "WebSearch", None),
            (ClaudeCode, "ExitPlanMode", "ExitPlanMode", None),
            (
                ClaudeCode,
                "mcp__github__create_issue",
                "mcp__github__create_issue",
                Some("mcp"),
            ),
            (Codex, "Bash", "Bash", Some("bash")),
            (Codex, "apply_patch", "apply_patch", Some("edit_file")),
            (Codex, "spawn_agent", "Agent", Some("agent")),
            (Codex, "mcp__fs__read", "mcp__fs__read", Some("mcp")),
            (Gemini, "run_shell_command", "Bash", Some("bash")),
            (Gemini, "write_file", "Write", Some("write_file")),
            (Gemini, "replace", "Edit", Some("edit_file")),
            (Gemini, "read_file", "Read", Some("read_file")),
            (Gemini, "read_many_files", "read_many_files", None),
            (Gemini, "glob", "Glob", Some("glob")),
            (Gemini, "grep_search", "Grep", Some("search")),
            (Gemini, "search_file_content", "Grep", Some("search")),
            (Gemini, "web_fetch", "WebFetch", None),
            (Gemini, "google_web_search", "WebSearch", None),
            (Gemini, "invoke_agent", "Agent", Some("agent")),
            (
                Gemini,
                "mcp_github_create_issue",
                "mcp__github__create_issue",
                Some("mcp"),
            ),
            (Cursor, "Shell", "Bash", Some("bash")),
            (Cursor, "Read", "Read", Some("read_file")),
            (Cursor, "Write", "Write", Some("write_file")),
            (Cursor, "Grep", "Grep", Some("search")),
            (Cursor, "Task", "Agent", Some("agent")),
            (Cursor, "Delete", "Delete", None),
            (
                Cursor,
                "MCP:create_issue",
                "mcp__unknown__create_issue",
                Some("mcp"),
            ),
            (Copilot, "bash", "Bash", Some("bash")),
            (Copilot, "powershell", "Bash", Some("bash")),
            (Copilot, "view", "Read", Some("read_file")),
            (Copilot, "create", "Write", Some("write_file")),
            (Copilot, "edit", "Edit", Some("edit_file")),
            (Copilot, "str_replace_editor", "Edit", Some("edit_file")),
            (Copilot, "apply_patch", "apply_patch", Some("edit_file")),
            (Copilot, "write_bash", "Bash", Some("bash")),
            (Copilot, "write_powershell", "Bash", Some("bash")),
            (Copilot, "grep", "Grep", Some("search")),
            (Copilot, "rg", "Grep", Some("search")),
            (Copilot, "glob", "Glob", Some("glob")),
            (Copilot, "web_fetch", "WebFetch", None),
            (Copilot, "update_todo", "TodoWrite", None),
            (Copilot, "task", "Agent", Some("agent")),
            (Copilot, "Task", "Agent", Some("agent")),
        ];
        for (agent, name, claude, hookhost) in cases {
            let mapped = claude_name(*agent, name, none);
            assert_eq!(mapped, *claude, "{agent:?} {name}");
            assert_eq!(hookhost_name(&mapped), *hookhost, "{agent:?} {name}");
        }
    }

    #[test]
    fn every_row_maps_to_a_claude_name_the_hookhost_table_knows_or_says_it_has_none() {
        for row in TOOL_NAMES {
            assert_ne!(
                naming(row.agent, row.agent_name),
                Naming::Unknown,
                "{row:?}"
            );
        }
        // An entry never contradicts a name: what it lists has no hookhost name.
        for entry in UNMAPPED {
            for name in entry.names {
                assert!(
                    hookhost_name(&claude_name(entry.agent, name, McpHint::default())).is_none(),
                    "{:?} {name} is both named and unmapped",
                    entry.agent
                );
            }
        }
        for (_, hookhost) in HOOKHOST_NAMES {
            assert!(crate::config::KNOWN_TOOLS.contains(hookhost), "{hookhost}");
        }
    }

    /// Every tool each agent's own package offers its model (tests/data/agent_tools.toml,
    /// scripts/agent-tools.sh) has a hookhost name or a documented reason for none.
    #[test]
    fn every_tool_an_agent_offers_is_named_or_unmapped() {
        let file =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/agent_tools.toml");
        let text = std::fs::read_to_string(&file).unwrap();
        let table: toml::Table = toml::from_str(&text).unwrap();
        let mut unknown = Vec::new();
        for agent in AgentKind::ALL {
            let section = table
                .get(agent.flag_name())
                .and_then(toml::Value::as_table)
                .unwrap_or_else(|| panic!("{} has no [{}]", file.display(), agent.flag_name()));
            for key in ["version", "package", "source"] {
                assert!(
                    section.get(key).and_then(toml::Value::as_str).is_some(),
                    "[{}] {key}",
                    agent.flag_name()
                );
            }
            let tools = section["tools"].as_array().unwrap();
            assert!(!tools.is_empty(), "[{}]", agent.flag_name());
            for tool in tools {
                let tool = tool.as_str().unwrap();
                if naming(agent, tool) == Naming::Unknown {
                    unknown.push(format!("{}: {tool}", agent.display_name()));
                }
            }
        }
        assert!(
            unknown.is_empty(),
            "no hookhost name and no UNMAPPED entry: {unknown:#?}"
        );
    }

    #[test]
    fn tools_hookhost_cannot_name_are_marked_with_their_agent() {
        assert_eq!(naming(Gemini, "run_shell_command"), Naming::Named("bash"));
        assert_eq!(naming(ClaudeCode, "Monitor"), Naming::Named("bash"));
        assert_eq!(naming(Qwen, "monitor"), Naming::Named("bash"));
        assert_eq!(naming(Codex, "view_image"), Naming::Named("read_file"));
        assert_eq!(naming(Kimi, "ReadMediaFile"), Naming::Named("read_file"));
        assert!(matches!(
            naming(Gemini, "list_directory"),
            Naming::Unmapped(_)
        ));
        // Claude Code's reason holds for an agent's tool mapped to its name.
        assert!(matches!(naming(Gemini, "web_fetch"), Naming::Unmapped(_)));
        assert!(matches!(naming(Kimi, "WebSearch"), Naming::Unmapped(_)));
        // MCP tools are `mcp` in each agent's spelling.
        assert_eq!(
            naming(Gemini, "mcp_github_create_issue"),
            Naming::Named("mcp")
        );
        assert_eq!(
            naming(Qwen, "mcp__github__create_issue"),
            Naming::Named("mcp")
        );
        assert_eq!(naming(Kiro, "@github/create_issue"), Naming::Named("mcp"));
        assert_eq!(naming(Gemini, "discovered_tool_deploy"), Naming::Unknown);
        assert_eq!(naming(Gemini, "tracker_frob"), Naming::Unknown);

        let call = |agent, tool: &str| {
            map_call(agent, tool, json!({}), McpHint::default(), Some("/p"), None)
        };
        assert_eq!(
            call(Gemini, "tracker_frob").unknown_to.as_deref(),
            Some("Gemini CLI")
        );
        assert_eq!(call(Gemini, "list_directory").unknown_to, None);
        assert_eq!(call(Gemini, "run_shell_command").unknown_to, None);
        assert_eq!(
            call(ClaudeCode, "NewTool").unknown_to.as_deref(),
            Some("Claude Code")
        );
        let view = map_call(
            Codex,
            "view_image",
            json!({"path": "a.png"}),
            McpHint::default(),
            Some("/p"),
            None,
        );
        assert_eq!(
            (view.tool.as_str(), view.tool_input),
            ("Read", json!({"file_path": "/p/a.png"}))
        );
    }

    /// docs/agents.md#tools-with-no-hookhost-name gives every entry's tools and reason.
    #[test]
    fn every_unmapped_tool_is_documented() {
        let docs = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents.md"),
        )
        .unwrap();
        let section = docs
            .split("## Tools with no hookhost name")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .unwrap();
        for entry in UNMAPPED {
            let names: Vec<String> = entry.names.iter().map(|n| format!("`{n}`")).collect();
            let line = format!("- {}: {}.", names.join(", "), entry.reason);
            assert!(section.contains(&line), "docs/agents.md lacks {line}");
        }
    }

    #[test]
    fn one_line_per_agent_names_its_unmapped_tools() {
        let lines = unmapped_lines();
        assert_eq!(lines.len(), AgentKind::ALL.len());
        assert!(
            lines[2]
                .starts_with("Gemini CLI: no hookhost name for read_many_files, list_directory, "),
            "{}",
            lines[2]
        );
        assert!(lines[2].contains(", web_fetch, google_web_search, ask_user, write_todos, exit_plan_mode, enter_plan_mode (a hook with tools = [...] does not run for them; docs/agents.md#tools-with-no-hookhost-name)"), "{}", lines[2]);
    }

    #[test]
    fn gemini_mcp_context_names_a_server_with_underscores() {
        let hint = McpHint {
            server: Some("my_server"),
            tool: Some("do_it"),
        };
        assert_eq!(
            claude_name(Gemini, "mcp_my_server_do_it", hint),
            "mcp__my_server__do_it"
        );
        assert_eq!(
            claude_name(Gemini, "mcp_my_server_do_it", McpHint::default()),
            "mcp__my__server_do_it"
        );
    }

    #[test]
    fn fields_are_renamed_and_file_paths_made_absolute() {
        let call = map_call(
            Copilot,
            "str_replace_editor",
            json!({"command": "str_replace", "path": "src/a.rs", "old_str": "a", "new_str": "b"}),
            McpHint::default(),
            Some("/home/u/p"),
            None,
        );
        assert_eq!(call.tool, "Edit");
        assert_eq!(call.hookhost_tool, Some("edit_file"));
        assert_eq!(
            call.tool_input,
            json!({"command": "str_replace", "file_path": "/home/u/p/src/a.rs", "old_string": "a", "new_string": "b"})
        );
        let call = map_call(
            Gemini,
            "replace",
            json!({"file_path": "/p/a", "old_string": "x", "new_string": "y", "allow_multiple": true, "replace_all": false}),
            McpHint::default(),
            Some("/p"),
            None,
        );
        // A renamed field never overwrites one the agent also sent.
        assert_eq!(
            call.tool_input,
            json!({"file_path": "/p/a", "old_string": "x", "new_string": "y", "allow_multiple": true, "replace_all": false})
        );
    }

    #[test]
    fn hookhost_names_back_to_claude() {
        assert_eq!(claude_name_of_hookhost("bash"), Some("Bash"));
        assert_eq!(claude_name_of_hookhost("edit_file"), Some("Edit"));
        assert_eq!(claude_name_of_hookhost("search"), Some("Grep"));
        assert_eq!(claude_name_of_hookhost("mcp"), None);
        assert_eq!(claude_name_of_hookhost("exec"), None);
    }
}
