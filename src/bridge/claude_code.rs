//! Claude Code: `PreToolUse` and `UserPromptSubmit`, its input already canonical.
//!
//! Answers (Claude Code hooks reference; docs/agents.md#claude-code):
//! - no objection: exit 0, nothing printed. Never `permissionDecision: "allow"`, which
//!   would skip Claude Code's own permission prompt.
//! - deny a call: exit 0 + `hookSpecificOutput{hookEventName:"PreToolUse",
//!   permissionDecision:"deny", permissionDecisionReason}`; the reason goes to Claude.
//! - block a prompt: exit 0 + `{"decision":"block","reason"}`; the user sees the reason.
//! - prompt context: `hookSpecificOutput{hookEventName:"UserPromptSubmit",
//!   additionalContext}`.
//! - warnings: `systemMessage`, shown to the user.
//! - a settings change (`ConfigChange`, registered by `install` so that a change to
//!   hookhost's own registration is seen): refused by exit 0 + `{"decision":"block",
//!   "reason"}` (the new settings are not applied to the running session); else silent.
//! - a payload the bridge cannot read: exit 2 with the reason on stderr, which blocks
//!   both events.
//!
//! Codex reads the same JSON and is answered by the same writers (`pre_tool_use`,
//! `prompt`) except where it needs exit 2.

use super::install::system::{SystemFile, SystemScope};
use serde_json::{Map, Value, json};

use super::agents::{
    Declaration, FailClosedSetting, FrontmatterBounds, FrontmatterHooks, HookEnvironment,
    HookFiles, Markdown, NestedHookFiles, Plugins, RewritingHooks, Settings, Shape, SwitchOff,
};
use super::install::{FailClosed, RegisteredEvent, Registration, TimeUnit};
use super::{
    AgentKind, AgentSession, BridgeError, Event, Protocol, Reply, Ruling, json_or_silent,
    other_event_note, parse_snake_case, with_system_message,
};

/// Claude Code's registration: `~/.claude/settings.json` (user) or `.claude/settings.json`
/// (project); a `PreToolUse` group matching every tool and a `UserPromptSubmit` group, each
/// with one `command` handler whose `timeout` is in seconds (docs/agents.md#claude-code).
///
/// The command is a shell line (`sh -c`), not the `command` + `args` exec form, which needs
/// Claude Code 2.1.139 or later. `onFailure: "block"` (fail closed) is written only when
/// [`super::Options::claude_on_failure_block`] asks: the research found it only in a third
/// party's code (for Claude Code 2.1.295 and later), not in Claude Code's documentation up to
/// 2.1.240, so it is unverified and left out by default.
pub(crate) static DECLARATION: Declaration = Declaration {
    kind: AgentKind::ClaudeCode,
    flag: "claude-code",
    display_name: "Claude Code",
    program: "claude",
    protocol: &ClaudeCode,
    settings: Settings {
        home_folder: ".claude",
        home_variable: None,
        home_variable_files: &[],
        extras_home_variable: None,
        user_file: "settings.json",
        project_file: Some(".claude/settings.json"),
        shape: Shape::NestedJson(handler),
        events: EVENTS,
        // Claude Code 2.1.332 reads `managed-settings.json` (and `managed-settings.d/`) from
        // a folder fixed per OS, which no variable of the public build moves; its managed
        // hooks run under a user's or a project's `disableAllHooks` (docs/system-scope.md).
        system: SystemScope::Managed(SystemFile {
            linux: "/etc/claude-code/managed-settings.json",
            macos: Some("/Library/Application Support/ClaudeCode/managed-settings.json"),
            windows: Some("C:\\Program Files\\ClaudeCode\\managed-settings.json"),
            lock_down: &[],
            moved_by: None,
            weakened_by: &[],
            user_switch_offs: &[],
        }),
    },
    default_budget_ms: DEFAULT_BUDGET_MS,
    timeout_unit: TimeUnit::Seconds,
    fail_closed: FailClosedSetting::WhenAsked {
        setting: FailClosed::ClaudeOnFailureBlock,
        // The first Claude Code with `onFailure` (docs/agents.md#claude-code).
        since: (2, 1, 295),
        when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER_BLOCKING,
    },
    when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER,
    project_note: None,
    install_note: None,
    switch_off: SwitchOff::DisableAllHooks { deep_merged: false },
    project_variable: Some("CLAUDE_PROJECT_DIR"),
    merged_project_settings: &[".claude/settings.json", ".claude/settings.local.json"],
    folder_trust: None,
    modes_without_hooks: None,
    hook_environment: Some(&HookEnvironment {
        // Every settings file's `env` reaches the hooks, over the agent's own environment,
        // and a change reaches them mid-session (seen, 2.1.332); hooks run by `/bin/sh -c`.
        settings_env: Some("env"),
        env_files: &[],
        first_env_file_only: false,
        own_env_files: &[],
        rerouting: &["CLAUDE_CODE_SHELL_PREFIX"],
        bash: false,
        unset_only: false,
        drops: &[],
    }),
    credentials: CREDENTIALS,
    rewriting_hooks: Some(&REWRITING_HOOKS),
    disabled_hooks: None,
};

/// Claude Code's login, relative to the home folder ([`super::credentials`]).
const CREDENTIALS: &[&str] = &[
    // The whole folder: `.credentials.json` (the login, on Linux; the macOS
    // Keychain elsewhere), and the transcripts (F8).
    ".claude",
    // User-scope MCP servers with their `env` (`claude mcp add -e KEY=…`), and
    // the API key approved at login in some builds (`primaryApiKey`).
    ".claude.json",
    // The Anthropic API key file of Anthropic's tools (docs/threats.md#f8).
    ".config/anthropic",
];

/// The bridge's default budget for a Claude Code call: below Claude Code's shortest default
/// timeout (30 s for `UserPromptSubmit`; 600 s for tools).
pub const DEFAULT_BUDGET_MS: u64 = 25_000;

const EVENTS: &[RegisteredEvent] = &[
    RegisteredEvent {
        name: "PreToolUse",
        matcher: Some("*"),
    },
    RegisteredEvent {
        name: "UserPromptSubmit",
        matcher: None,
    },
    // So that a change to this registration is seen while Claude Code runs (install/pin/).
    RegisteredEvent {
        name: "ConfigChange",
        matcher: None,
    },
];

/// What Claude Code does when hookhost cannot answer, without `onFailure`.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Claude Code lets the call through if hookhost is missing, crashes or outlives \
     the timeout (its documented hooks fail open); hookhost answers within its budget, \
     below that timeout.";

/// What Claude Code does when hookhost cannot answer, with `onFailure: "block"`.
pub const WHEN_HOOKHOST_CANNOT_ANSWER_BLOCKING: &str = "Claude Code blocks the call if hookhost is missing, crashes or outlives the \
     timeout (onFailure: \"block\", Claude Code 2.1.295 and later; an older one ignores it \
     and lets the call through).";

/// The handler object.
fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("type".into(), "command".into());
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout".into(), registration.timeout.into());
    if let Some(setting) = registration.fail_closed {
        handler.insert(setting.key().into(), setting.value());
    }
    handler
}

/// Claude Code 2.1.332 applies a `PreToolUse` hook's `hookSpecificOutput.updatedInput` to
/// the call, whichever hook gave it (seen with the real program: a hook of the project's
/// settings rewrote a command hookhost had allowed), and a `PermissionRequest` hook's
/// decision may carry one too (docs/threats.md#r14).
static REWRITING_HOOKS: RewritingHooks = RewritingHooks {
    events: &["PreToolUse", "PermissionRequest"],
    field: "updatedInput",
    // A skill's, command's or subagent's frontmatter `hooks` (seen with Claude Code
    // 2.1.332: each rewrote a call once invoked; a subagent the settings name as `agent`
    // runs the whole session).
    more_files: &[
        HookFiles::UserMarkdown("skills", Markdown::Skills),
        HookFiles::UserMarkdown("commands", Markdown::Every),
        HookFiles::UserMarkdown("agents", Markdown::Every),
        HookFiles::ProjectMarkdown(".claude/skills", Markdown::Skills),
        HookFiles::ProjectMarkdown(".claude/commands", Markdown::Every),
        HookFiles::ProjectMarkdown(".claude/agents", Markdown::Every),
    ],
    // A skill or command in a subfolder's `.claude/` (seen with 2.1.332: loaded once a
    // file of that subfolder was read, then run by the `Skill` tool; not in a gitignored
    // folder; a subagent there was not loaded).
    nested: Some(&NestedHookFiles {
        tools: &["Skill"],
        folders: &[
            (".claude/skills", Markdown::Skills),
            (".claude/commands", Markdown::Every),
        ],
    }),
    // A plugin enabled in a settings file, from a marketplace a settings file declares
    // (seen with 2.1.332: a project's `.claude/settings.json` alone enabled a plugin of a
    // folder of the project, whose `PreToolUse` hook rewrote the call).
    plugins: Some(&Plugins {
        enabled_key: "enabledPlugins",
        marketplaces_key: "extraKnownMarketplaces",
        installed: "plugins/installed_plugins.json",
        known_marketplaces: "plugins/known_marketplaces.json",
    }),
    // A skill's hooks run with its folder in `CLAUDE_PLUGIN_ROOT` (seen with 2.1.332,
    // which set no `CLAUDE_SKILL_DIR`; both are read as that folder).
    frontmatter: Some(&FrontmatterHooks {
        bounds: FrontmatterBounds::ToNextDashes,
        skill_folder: &["CLAUDE_SKILL_DIR", "CLAUDE_PLUGIN_ROOT"],
        skill_folders_key: &[],
        command_keys: &["command"],
    }),
};

/// Claude Code.
#[derive(Debug, Clone, Copy)]
pub struct ClaudeCode;

/// Claude Code's pre-tool events.
pub const PRE_TOOL_EVENTS: &[&str] = &["PreToolUse"];
/// Claude Code's prompt events.
pub const PROMPT_EVENTS: &[&str] = &["UserPromptSubmit"];
/// Claude Code's settings-change event.
pub const SETTINGS_EVENT: &str = "ConfigChange";

impl Protocol for ClaudeCode {
    fn kind(&self) -> AgentKind {
        AgentKind::ClaudeCode
    }

    fn parse(&self, payload: &Value) -> Result<Event, BridgeError> {
        match parse_snake_case(self.kind(), payload, PRE_TOOL_EVENTS, PROMPT_EVENTS)? {
            Event::Other { event_name } if event_name == SETTINGS_EVENT => {
                let field =
                    |name: &str| payload.get(name).and_then(Value::as_str).map(String::from);
                Ok(Event::SettingsChanged {
                    session: AgentSession {
                        event_name,
                        session_id: field("session_id"),
                        cwd: field("cwd"),
                        transcript_path: field("transcript_path"),
                        permission_mode: field("permission_mode"),
                    },
                    source: field("source"),
                    file_path: field("file_path"),
                })
            }
            event => Ok(event),
        }
    }

    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply {
        match event {
            Event::PreToolUse { .. } => json_or_silent(pre_tool_use(outcome)),
            // The same `decision: block` form as a prompt's (no context: none is asked).
            Event::Prompt { .. } | Event::SettingsChanged { .. } => json_or_silent(prompt(outcome)),
            Event::Other { event_name } => {
                Reply::silent().with_note(&other_event_note(self.kind(), event_name))
            }
        }
    }

    fn refuse(&self, reason: &str) -> Reply {
        Reply {
            exit_code: 2,
            ..Reply::default()
        }
        .with_note(reason)
    }
}

/// Claude Code's `PreToolUse` answer object (empty for no objection and no warnings).
pub(crate) fn pre_tool_use(outcome: &Ruling) -> Map<String, Value> {
    let mut answer = Map::new();
    if let Some(reason) = &outcome.block {
        answer.insert(
            "hookSpecificOutput".into(),
            json!({
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }),
        );
    }
    with_system_message(answer, outcome)
}

/// Claude Code's `UserPromptSubmit` answer object (empty for no objection, no context
/// and no warnings).
pub(crate) fn prompt(outcome: &Ruling) -> Map<String, Value> {
    let mut answer = Map::new();
    if let Some(reason) = &outcome.block {
        answer.insert("decision".into(), json!("block"));
        answer.insert("reason".into(), json!(reason));
    } else if let Some(context) = &outcome.context {
        answer.insert(
            "hookSpecificOutput".into(),
            json!({
                "hookEventName": "UserPromptSubmit",
                "additionalContext": context,
            }),
        );
    }
    with_system_message(answer, outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::test_support::*;
    use crate::bridge::{AgentSession, ToolCall};

    const PRE: &str = include_str!("../../examples/agents/claude-code/PreToolUse.json");
    const PROMPT_SAMPLE: &str =
        include_str!("../../examples/agents/claude-code/UserPromptSubmit.json");

    fn pre() -> Event {
        ClaudeCode.parse(&payload(PRE)).unwrap()
    }

    fn prompt_event() -> Event {
        ClaudeCode.parse(&payload(PROMPT_SAMPLE)).unwrap()
    }

    #[test]
    fn parses_the_real_pre_tool_use_payload() {
        assert_eq!(
            pre(),
            Event::PreToolUse {
                session: AgentSession {
                    event_name: "PreToolUse".into(),
                    session_id: Some("abc123".into()),
                    cwd: Some("/home/u/p".into()),
                    transcript_path: Some("/home/u/.claude/projects/-home-u-p/abc123.jsonl".into()),
                    permission_mode: Some("default".into()),
                },
                call: ToolCall::claude(
                    "Bash".into(),
                    json!({"command":"npm test","description":"Run test suite","timeout":120000,"run_in_background":false}),
                    Some("toolu_01ABC123".into()),
                ),
            }
        );
    }

    #[test]
    fn parses_the_real_prompt_payload() {
        let Event::Prompt { session, prompt } = prompt_event() else {
            panic!("not a prompt");
        };
        assert_eq!(prompt, "ooo seed my requirements");
        assert_eq!(session.event_name, "UserPromptSubmit");
    }

    #[test]
    fn no_objection_prints_nothing() {
        assert_eq!(
            ClaudeCode.answer(&pre(), &Ruling::no_objection()),
            Reply::silent()
        );
        assert_eq!(
            ClaudeCode.answer(&prompt_event(), &Ruling::no_objection()),
            Reply::silent()
        );
    }

    #[test]
    fn block_is_a_deny_for_claude() {
        let reply = ClaudeCode.answer(&pre(), &blocked_call());
        assert_eq!(
            reply.stdout,
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"blocked by the user's hook \\\"no-force-push\\\": force-push is not allowed here\"}}\n"
        );
        assert_eq!((reply.stderr.as_str(), reply.exit_code), ("", 0));
    }

    #[test]
    fn failure_is_a_deny_with_the_specs_message_and_a_warning() {
        let reply = ClaudeCode.answer(&pre(), &failed_call());
        let out = stdout_json(&reply);
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            out["hookSpecificOutput"]["permissionDecisionReason"],
            "the user's hook \"no-force-push\" failed (timed out after 10 s), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing."
        );
        assert_eq!(
            out["systemMessage"],
            "⚠ hook no-force-push is failing (timed out after 10 s), so the calls it covers are blocked. Fix it, set on_failure = \"continue\", or restart with --no-hooks."
        );
        assert_eq!(reply.exit_code, 0);
    }

    #[test]
    fn warnings_alone_are_a_system_message_not_an_allow() {
        let reply = ClaudeCode.answer(&pre(), &continued_call());
        assert_eq!(
            reply.stdout,
            "{\"systemMessage\":\"⚠ hook audit failed (exited with code 1); on_failure = \\\"continue\\\" let the call through.\"}\n"
        );
        assert!(!reply.stdout.contains("allow"));
    }

    #[test]
    fn prompt_block_and_context() {
        let reply = ClaudeCode.answer(&prompt_event(), &blocked_prompt());
        assert_eq!(
            reply.stdout,
            "{\"decision\":\"block\",\"reason\":\"✗ prompt blocked by hook \\\"keywords\\\": not today\"}\n"
        );
        let reply = ClaudeCode.answer(&prompt_event(), &context());
        assert_eq!(
            reply.stdout,
            "{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"Context from the user's hook \\\"keywords\\\":\\n<skill-suggestion>/ouroboros:seed</skill-suggestion>\"}}\n"
        );
        assert_eq!(reply.exit_code, 0);
    }

    #[test]
    fn refusal_at_start_is_a_deny_with_its_text() {
        let out = stdout_json(&ClaudeCode.answer(&pre(), &refused()));
        assert_eq!(
            out["hookSpecificOutput"]["permissionDecisionReason"],
            "hook no-force-push: /home/u/p/hooks/check.sh is in the project, so the agent could change it. Move it outside (for example ~/.local/share/harness/hooks/), or start with --no-hooks."
        );
    }

    #[test]
    fn unknown_event_is_no_objection_with_a_note() {
        let event = ClaudeCode
            .parse(&json!({"session_id": "s", "hook_event_name": "Stop", "cwd": "/p"}))
            .unwrap();
        assert_eq!(
            event,
            Event::Other {
                event_name: "Stop".into()
            }
        );
        let reply = ClaudeCode.answer(&event, &Ruling::no_objection());
        assert_eq!(
            reply,
            Reply {
                stdout: String::new(),
                stderr:
                    "hookhost: Claude Code event \"Stop\" has no hookhost hooks; no objection.\n"
                        .into(),
                exit_code: 0,
                ..Reply::default()
            }
        );
    }

    #[test]
    fn an_unreadable_call_is_refused_with_exit_2() {
        let err = ClaudeCode
            .parse(&json!({"hook_event_name": "PreToolUse", "tool_input": {}}))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the Claude Code PreToolUse payload has no tool_name (or it is not a string)"
        );
        let reply = ClaudeCode.refuse(&crate::bridge::unreadable_message(&err));
        assert_eq!(reply.exit_code, 2);
        assert_eq!(reply.stdout, "");
        assert!(reply.stderr.starts_with(
            "hookhost could not read this call (the Claude Code PreToolUse payload has no tool_name"
        ));
    }

    #[test]
    fn old_spellings_are_accepted() {
        for (name, hookhost) in [("Task", "agent"), ("MultiEdit", "edit_file")] {
            let event = ClaudeCode
                .parse(
                    &json!({"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": {}}),
                )
                .unwrap();
            let Event::PreToolUse { call, .. } = event else {
                panic!("not a call")
            };
            assert_eq!(
                (call.tool.as_str(), call.hookhost_tool),
                (name, Some(hookhost))
            );
        }
    }
}
