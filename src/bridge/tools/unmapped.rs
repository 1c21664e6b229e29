//! The tools of each agent that have no hookhost name, on purpose, each with why
//! (docs/agents.md#tools-with-no-hookhost-name).

use super::*;

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
        &[
            "store_memory",
            "sql",
            "session_store_sql",
            "context_board",
            "report_intent",
        ],
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
