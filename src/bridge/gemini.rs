//! Gemini CLI: `BeforeTool` and `BeforeAgent` (its prompt event), snake_case input with
//! Gemini's own tool names (`run_shell_command`, `replace`, `mcp_<server>_<tool>` with
//! `mcp_context`).
//!
//! Gemini does not understand Claude Code's `hookSpecificOutput.permissionDecision` at
//! all, so a Claude-format deny is *allowed* there, and it ignores the exit code whenever
//! stdout (or stderr, when stdout is empty) parses as JSON (docs/agents.md#gemini-cli). So:
//! - deny a call, block a prompt: exit 0 + `{"decision":"deny","reason"}`.
//! - no objection: exit 0, nothing printed.
//! - prompt context: `hookSpecificOutput{hookEventName:"BeforeAgent",
//!   additionalContext}` (plain stdout would become a user message, not context).
//! - warnings: `systemMessage`.
//!
//! A note on stderr with nothing on stdout (an unknown event) is shown by Gemini as a
//! system message; that is what a note is for.

use super::install::system::{LockDown, SystemFile, SystemScope};
use serde_json::{Map, Value, json};

use super::agents::{
    Declaration, ExtensionSettings, Extensions, FailClosedSetting, FolderTrust, HookEnvironment,
    HookFiles, RewritingHooks, Settings, Shape, SwitchOff,
};
use super::install::{RegisteredEvent, Registration, TimeUnit};
use super::{
    AgentKind, BridgeError, Event, Protocol, Reply, Ruling, json_or_silent, other_event_note,
    parse_snake_case, with_system_message,
};

/// Gemini CLI's registration: `~/.gemini/settings.json` (user) or `.gemini/settings.json`
/// (project); a `BeforeTool` group matching every tool and a `BeforeAgent` group (the prompt
/// event), each with one named `command` handler whose `timeout` is in milliseconds
/// (docs/agents.md#gemini-cli). Gemini fingerprints project hooks by `name:command`, so both stay stable.
pub(crate) static DECLARATION: Declaration = Declaration {
    kind: AgentKind::Gemini,
    flag: "gemini",
    display_name: "Gemini CLI",
    program: "gemini",
    protocol: &Gemini,
    settings: Settings {
        home_folder: ".gemini",
        home_variable: None,
        home_variable_files: &[],
        extras_home_variable: Some("GEMINI_CLI_HOME"),
        user_file: "settings.json",
        project_file: Some(".gemini/settings.json"),
        shape: Shape::NestedJson(handler),
        events: EVENTS,
        // Gemini CLI 0.61.0's system settings override the user's and the project's, but
        // `hooksConfig.disabled` lists are joined across files, and a variable moves the
        // file (docs/system-scope.md).
        system: SystemScope::Managed(SystemFile {
            linux: "/etc/gemini-cli/settings.json",
            macos: Some("/Library/Application Support/GeminiCli/settings.json"),
            windows: Some("C:\\ProgramData\\gemini-cli\\settings.json"),
            lock_down: &[LockDown {
                path: &["hooksConfig", "enabled"],
                value: true,
            }],
            moved_by: Some("GEMINI_CLI_SYSTEM_SETTINGS_PATH"),
            weakened_by: &[
                "\"hookhost\" in hooksConfig.disabled of the user's or the project's settings.json (Gemini CLI joins those lists, so the system file cannot take it back)",
                "a folder Gemini CLI does not trust: it then runs no hooks, the system's included",
            ],
            user_switch_offs: &["\"hooksConfig\": {\"disabled\": [\"hookhost\"]}"],
        }),
    },
    default_budget_ms: DEFAULT_BUDGET_MS,
    timeout_unit: TimeUnit::Milliseconds,
    fail_closed: FailClosedSetting::None,
    when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER,
    project_note: Some("Gemini CLI warns about a new or changed project hook until you trust it."),
    install_note: None,
    switch_off: SwitchOff::HooksConfig {
        handler_name: HANDLER_NAME,
    },
    project_variable: Some("GEMINI_PROJECT_DIR"),
    merged_project_settings: &[".gemini/settings.json"],
    folder_trust: Some(&FOLDER_TRUST),
    modes_without_hooks: None,
    hook_environment: Some(&HookEnvironment {
        // In a trusted folder, the first `.gemini/.env` or `.env` from its folder up, else
        // the home's, for the variables its environment lacks; hooks run by `bash -c`,
        // which sources `BASH_ENV` (seen, 0.61.0).
        settings_env: None,
        env_files: &[".gemini/.env", ".env"],
        first_env_file_only: true,
        own_env_files: &[],
        rerouting: &[],
        bash: true,
        unset_only: true,
        drops: &[],
    }),
    credentials: CREDENTIALS,
    rewriting_hooks: Some(&REWRITING_HOOKS),
    disabled_hooks: None,
};

/// How Gemini CLI comes to distrust a folder (0.61.0's bundle: `checkPathTrust`,
/// `isPathTrusted`, `findEnvFile`, `loadEnvironment`): in one it runs none of its
/// settings' hooks ("Project hooks disabled because the folder is not trusted"), and a
/// headless run stops. Its folder trust is on unless the settings switch it off.
const FOLDER_TRUST: FolderTrust = FolderTrust {
    // Loaded into its environment before it decides again whether it trusts the folder.
    env_files: &[".gemini/.env", ".env"],
    distrusting: &[
        ("GEMINI_CLI_TRUST_WORKSPACE", "false"),
        ("GEMINI_RESTRICTED_MODE", "true"),
    ],
    rules_variable: "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    settings_file: ".gemini/settings.json",
    switched_off_by: &["security", "folderTrust", "enabled"],
    rules_file: ".gemini/trustedFolders.json",
};

/// Gemini CLI's login, relative to the home folder ([`super::credentials`]).
const CREDENTIALS: &[&str] = &[
    // `oauth_creds.json`, `google_accounts.json`, `mcp-oauth-tokens.json`, `.env`
    // (google-gemini/gemini-cli `packages/core/src/config/storage.ts`), whole as
    // since F8.
    ".gemini",
    // The user-level `.env` both Gemini CLI and Qwen Code fall back to for their
    // API keys (`findEnvFile` in `packages/cli/src/config/settings.ts`).
    ".env",
];

/// The bridge's default budget for a Gemini CLI call: below Gemini's default timeout
/// (60 000 ms).
pub const DEFAULT_BUDGET_MS: u64 = 50_000;

const EVENTS: &[RegisteredEvent] = &[
    RegisteredEvent {
        name: "BeforeTool",
        matcher: Some("*"),
    },
    RegisteredEvent {
        name: "BeforeAgent",
        matcher: None,
    },
];

/// What Gemini CLI does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Gemini CLI lets the call through if hookhost crashes silently or outlives the \
     timeout (it has no fail-closed setting); a hookhost that is missing (exit 127 with a \
     message on stderr) is a deny. hookhost answers within its budget, below that timeout.";

/// The name of hookhost's handler (`hooksConfig.disabled` switches a hook off by it).
const HANDLER_NAME: &str = "hookhost";

/// The handler object.
fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("name".into(), HANDLER_NAME.into());
    handler.insert("type".into(), "command".into());
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout".into(), registration.timeout.into());
    handler
}

/// Gemini CLI 0.61.0 assigns a `BeforeTool` hook's `hookSpecificOutput.tool_input` over
/// the call's arguments and builds the tool again, whichever hook gave it (seen with the
/// real program; docs/threats.md#r14), an extension's hook too: a folder the agent made in
/// `~/.gemini/extensions/` with a `gemini-extension.json` and a `hooks/hooks.json` was
/// loaded and rewrote the call (`loadExtensions`, `_buildExtension`, `loadExtensionHooks`
/// in its bundle: every folder there, or the folder a `link` install record names).
static REWRITING_HOOKS: RewritingHooks = RewritingHooks {
    events: &["BeforeTool"],
    field: "tool_input",
    more_files: &[HookFiles::UserExtensions(&Extensions {
        folder: "extensions",
        install_record: ".gemini-extension-install.json",
        hook_files: &["hooks/hooks.json"],
        markdown: &[],
        // Gemini CLI 0.61.0 fills an extension hook's `${NAME}` from the extension's
        // `.env` and, in a trusted folder, the project's, over its own `extensionPath` and
        // `workspacePath` (seen: a project's `.env` setting `extensionPath` ran the
        // agent's script as an accepted extension's hook); `${/}` and
        // `${pathSeparator}` are set after them.
        settings: Some(ExtensionSettings {
            manifest: "gemini-extension.json",
            file: ".env",
            fixed: &["/", "pathSeparator"],
        }),
    })],
    nested: None,
    plugins: None,
    frontmatter: None,
};

/// Gemini CLI.
#[derive(Debug, Clone, Copy)]
pub struct Gemini;

impl Protocol for Gemini {
    fn kind(&self) -> AgentKind {
        AgentKind::Gemini
    }

    fn parse(&self, payload: &Value) -> Result<Event, BridgeError> {
        parse_snake_case(self.kind(), payload, &["BeforeTool"], &["BeforeAgent"])
    }

    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply {
        let mut answer = Map::new();
        match event {
            Event::Other { .. } | Event::SettingsChanged { .. } => {
                return Reply::silent()
                    .with_note(&other_event_note(self.kind(), event.event_name()));
            }
            _ if outcome.block.is_some() => {
                answer.insert("decision".into(), json!("deny"));
                answer.insert("reason".into(), json!(outcome.block));
            }
            Event::Prompt { .. } => {
                if let Some(context) = &outcome.context {
                    answer.insert(
                        "hookSpecificOutput".into(),
                        json!({"hookEventName": "BeforeAgent", "additionalContext": context}),
                    );
                }
            }
            Event::PreToolUse { .. } => {}
        }
        json_or_silent(with_system_message(answer, outcome))
    }

    fn refuse(&self, reason: &str) -> Reply {
        Reply::json(json!({"decision": "deny", "reason": reason}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::test_support::*;

    const PRE: &str = include_str!("../../examples/agents/gemini/BeforeTool.json");
    const MCP: &str = include_str!("../../examples/agents/gemini/BeforeTool-mcp.json");
    const PROMPT_SAMPLE: &str = include_str!("../../examples/agents/gemini/BeforeAgent.json");

    fn pre() -> Event {
        Gemini.parse(&payload(PRE)).unwrap()
    }

    fn prompt_event() -> Event {
        Gemini.parse(&payload(PROMPT_SAMPLE)).unwrap()
    }

    #[test]
    fn parses_the_real_payloads_into_claude_codes_vocabulary() {
        let Event::PreToolUse { session, call } = pre() else {
            panic!("not a call")
        };
        assert_eq!(call.tool, "Bash");
        assert_eq!(call.hookhost_tool, Some("bash"));
        assert_eq!(
            call.tool_input,
            json!({"command": "ls -la", "description": "List files", "run_in_background": false})
        );
        assert_eq!(call.tool_use_id, None);
        assert_eq!(session.event_name, "BeforeTool");
        assert_eq!(session.cwd.as_deref(), Some("/home/u/p"));

        let Event::PreToolUse { call, .. } = Gemini.parse(&payload(MCP)).unwrap() else {
            panic!("not a call")
        };
        assert_eq!(call.tool, "mcp__my_github__create_issue");
        assert_eq!(call.hookhost_tool, Some("mcp"));
        assert_eq!(
            call.spec_input(),
            json!({"server": "my_github", "tool": "create_issue", "arguments": {"title": "Bug", "body": "It breaks"}})
        );

        assert!(
            matches!(prompt_event(), Event::Prompt { ref prompt, .. } if prompt == "ooo seed my requirements")
        );
    }

    #[test]
    fn a_gemini_write_gets_an_absolute_file_path() {
        let event = Gemini
            .parse(&json!({"hook_event_name": "BeforeTool", "cwd": "/home/u/p", "tool_name": "write_file", "tool_input": {"file_path": "notes/a.md", "content": "x"}}))
            .unwrap();
        let Event::PreToolUse { call, .. } = event else {
            panic!("not a call")
        };
        assert_eq!(call.tool, "Write");
        assert_eq!(call.tool_input["file_path"], "/home/u/p/notes/a.md");
    }

    #[test]
    fn no_objection_prints_nothing() {
        assert_eq!(
            Gemini.answer(&pre(), &Ruling::no_objection()),
            Reply::silent()
        );
    }

    #[test]
    fn deny_is_geminis_decision_not_claudes_permission_decision() {
        let reply = Gemini.answer(&pre(), &blocked_call());
        assert_eq!(
            reply.stdout,
            "{\"decision\":\"deny\",\"reason\":\"blocked by the user's hook \\\"no-force-push\\\": force-push is not allowed here\"}\n"
        );
        assert!(!reply.stdout.contains("permissionDecision"));
        assert_eq!((reply.stderr.as_str(), reply.exit_code), ("", 0));
    }

    #[test]
    fn failure_is_a_deny_with_the_specs_message_and_the_warning() {
        let reply = Gemini.answer(&pre(), &failed_call());
        let out = stdout_json(&reply);
        assert_eq!(out["decision"], "deny");
        assert!(out["reason"]
            .as_str()
            .unwrap()
            .starts_with("the user's hook \"no-force-push\" failed (timed out after 10 s), so this call was blocked."));
        assert!(
            out["systemMessage"]
                .as_str()
                .unwrap()
                .starts_with("⚠ hook no-force-push is failing")
        );
    }

    #[test]
    fn warnings_alone_are_a_system_message() {
        let reply = Gemini.answer(&pre(), &continued_call());
        assert_eq!(
            stdout_json(&reply),
            json!({"systemMessage": "⚠ hook audit failed (exited with code 1); on_failure = \"continue\" let the call through."})
        );
    }

    #[test]
    fn prompt_block_and_context() {
        let reply = Gemini.answer(&prompt_event(), &blocked_prompt());
        assert_eq!(
            stdout_json(&reply),
            json!({"decision": "deny", "reason": "✗ prompt blocked by hook \"keywords\": not today"})
        );
        let reply = Gemini.answer(&prompt_event(), &context());
        assert_eq!(
            reply.stdout,
            "{\"hookSpecificOutput\":{\"hookEventName\":\"BeforeAgent\",\"additionalContext\":\"Context from the user's hook \\\"keywords\\\":\\n<skill-suggestion>/ouroboros:seed</skill-suggestion>\"}}\n"
        );
    }

    #[test]
    fn refusal_at_start_is_a_deny() {
        let out = stdout_json(&Gemini.answer(&prompt_event(), &refused()));
        assert_eq!(out["decision"], "deny");
        assert!(
            out["reason"]
                .as_str()
                .unwrap()
                .starts_with("hook no-force-push:")
        );
    }

    #[test]
    fn unknown_event_is_no_objection_with_a_note() {
        let event = Gemini
            .parse(&json!({"hook_event_name": "AfterTool", "session_id": "s"}))
            .unwrap();
        assert_eq!(
            Gemini.answer(&event, &Ruling::no_objection()),
            Reply {
                stdout: String::new(),
                stderr: "hookhost: Gemini CLI event \"AfterTool\" has no hookhost hooks; no objection.\n".into(),
                exit_code: 0,
                ..Reply::default()
            }
        );
    }
}
