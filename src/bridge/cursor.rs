//! Cursor: `preToolUse`, `beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`
//! and `beforeSubmitPrompt`, camelCase event names and a flat answer format.
//!
//! Input: `conversation_id` is the session, `cwd` (or the first of `workspace_roots`)
//! the working directory; `beforeShellExecution` carries a bare `command`,
//! `beforeMCPExecution` a `tool_input` that is a JSON *string* and no server name,
//! `beforeReadFile` a `file_path` (and the file's `content`, which hooks do not get).
//!
//! Answers (docs/agents.md#cursor):
//! - deny: exit 0 + `{"permission":"deny","user_message","agent_message"}`.
//! - no objection on the four permission events: `{"permission":"allow"}`. This is the
//!   one place the bridge says `allow`: `hookhost install cursor` registers the hook with
//!   `failClosed: true`, under which a hook that prints nothing *fails* (and denies), and
//!   `allow` is the only answer that is not a deny.
//! - prompt: `{"continue":true}` or `{"continue":false,"user_message"}`.
//! - prompt context: **not supported** by `beforeSubmitPrompt`; the bridge says so on
//!   stderr, once, and sends the prompt without it.
//! - warnings: Cursor has no field for them; they go to stderr (the Hooks output panel)
//!   and, with a deny, after the reason in `user_message`, which the user sees.

use super::install::system::{SystemFile, SystemScope};
use serde_json::{Map, Value, json};

use super::agents::{
    Declaration, FailClosedSetting, HookFiles, RewritingHooks, Settings, Shape, SwitchOff,
};
use super::install::{FailClosed, RegisteredEvent, Registration, TimeUnit};
use super::{
    AgentKind, AgentSession, BridgeError, Event, Protocol, Reply, Ruling, context_dropped_note,
    object, other_event_note, owned, required_str, str_field, tool_input_field, tools,
    warnings_on_stderr,
};

/// Cursor's registration: `~/.cursor/hooks.json` (user) or `.cursor/hooks.json` (project),
/// `{"version": 1, "hooks": {EVENT: [HANDLER]}}`; every pre-tool event (`preToolUse`,
/// `beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`) and the prompt event
/// (`beforeSubmitPrompt`), each handler with a `timeout` in seconds and `failClosed: true`
/// (docs/agents.md#cursor).
///
/// With `failClosed`, Cursor counts an empty answer as a failure (docs/agents.md#cursor, second-hand),
/// so the bridge prints an answer to every Cursor event.
pub(crate) static DECLARATION: Declaration = Declaration {
    kind: AgentKind::Cursor,
    flag: "cursor",
    display_name: "Cursor",
    program: "cursor-agent",
    protocol: &Cursor,
    settings: Settings {
        home_folder: ".cursor",
        home_variable: None,
        home_variable_files: &[],
        extras_home_variable: None,
        user_file: "hooks.json",
        project_file: Some(".cursor/hooks.json"),
        shape: Shape::FlatJson(handler),
        events: EVENTS,
        // Cursor's enterprise hooks, from its documentation only (docs/system-scope.md).
        system: SystemScope::Managed(SystemFile {
            linux: "/etc/cursor/hooks.json",
            macos: Some("/Library/Application Support/Cursor/hooks.json"),
            windows: Some("C:\\ProgramData\\Cursor\\hooks.json"),
            lock_down: &[],
            moved_by: None,
            weakened_by: &[],
            user_switch_offs: &[],
        }),
    },
    default_budget_ms: DEFAULT_BUDGET_MS,
    timeout_unit: TimeUnit::Seconds,
    fail_closed: FailClosedSetting::Always(FailClosed::CursorFailClosed),
    when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER,
    project_note: Some("Cursor runs a project's hooks in trusted workspaces only."),
    install_note: None,
    switch_off: SwitchOff::None,
    project_variable: None,
    merged_project_settings: &[],
    folder_trust: None,
    modes_without_hooks: None,
    hook_environment: None,
    credentials: CREDENTIALS,
    rewriting_hooks: Some(&REWRITING_HOOKS),
    disabled_hooks: None,
};

/// Cursor applies a `preToolUse` hook's `updated_input` to the call, by its documentation
/// (not run here: docs/agents.md#cursor): its hooks files, the user's (hookhost's own file)
/// and the project's, are checked for hooks `install` did not accept (docs/threats.md#r14).
static REWRITING_HOOKS: RewritingHooks = RewritingHooks {
    events: &["preToolUse"],
    field: "updated_input",
    more_files: &[HookFiles::Project(".cursor/hooks.json")],
    nested: None,
    plugins: None,
    frontmatter: None,
};

/// Cursor's login, relative to the home folder ([`super::credentials`]).
const CREDENTIALS: &[&str] = &[
    // cursor-agent's login (`authInfo`) since 2026
    // (Dicklesworthstone/coding_agent_account_manager#18).
    ".cursor/cli-config.json",
    // cursor-agent's login on Linux before that (kunchenguid/quota-axi#104).
    ".config/cursor/auth.json",
    // Global MCP servers, whose `env` and `headers` carry tokens.
    ".cursor/mcp.json",
    // The editor's `state.vscdb` (`cursorAuth/accessToken`, `refreshToken`) and
    // its backups, on Linux and on macOS.
    ".config/Cursor/User/globalStorage",
    "Library/Application Support/Cursor/User/globalStorage",
];

/// The bridge's default budget for a Cursor call. Cursor's default timeout is not
/// documented ("platform default"), so this is the same as for the 30 s agents.
pub const DEFAULT_BUDGET_MS: u64 = 25_000;

const EVENTS: &[RegisteredEvent] = &[
    RegisteredEvent {
        name: "preToolUse",
        matcher: None,
    },
    RegisteredEvent {
        name: "beforeShellExecution",
        matcher: None,
    },
    RegisteredEvent {
        name: "beforeMCPExecution",
        matcher: None,
    },
    RegisteredEvent {
        name: "beforeReadFile",
        matcher: None,
    },
    RegisteredEvent {
        name: "beforeSubmitPrompt",
        matcher: None,
    },
];

/// What Cursor does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Cursor blocks the call if hookhost is missing, crashes, outlives the timeout or \
     answers something that is not JSON (failClosed: true).";

/// The handler object.
fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout".into(), registration.timeout.into());
    if let Some(setting) = registration.fail_closed {
        handler.insert(setting.key().into(), setting.value());
    }
    handler
}

/// Cursor.
#[derive(Debug, Clone, Copy)]
pub struct Cursor;

/// Cursor's events that answer with `permission`.
pub const PERMISSION_EVENTS: &[&str] = &[
    "preToolUse",
    "beforeShellExecution",
    "beforeMCPExecution",
    "beforeReadFile",
];

impl Protocol for Cursor {
    fn kind(&self) -> AgentKind {
        AgentKind::Cursor
    }

    fn parse(&self, payload: &Value) -> Result<Event, BridgeError> {
        let agent = self.kind();
        let map = object(agent, payload)?;
        let Some(event) = str_field(map, "hook_event_name") else {
            return Ok(Event::Other {
                event_name: "unnamed".into(),
            });
        };
        let cwd = owned(map, "cwd").or_else(|| {
            map.get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let session = AgentSession {
            event_name: event.to_string(),
            session_id: owned(map, "conversation_id"),
            cwd,
            transcript_path: owned(map, "transcript_path"),
            permission_mode: None,
        };
        let call = |tool: &str, input: Value, id: Option<String>| {
            tools::map_call(
                agent,
                event,
                tool,
                input,
                tools::McpHint::default(),
                session.cwd.as_deref(),
                id,
            )
        };
        let call = match event {
            "preToolUse" => call(
                required_str(agent, event, map, "tool_name")?,
                tool_input_field(agent, event, map, "tool_input")?,
                owned(map, "tool_use_id"),
            ),
            "beforeShellExecution" => {
                let command = required_str(agent, event, map, "command")?;
                call("Shell", json!({ "command": command }), None)
            }
            "beforeMCPExecution" => {
                let tool = required_str(agent, event, map, "tool_name")?;
                let input = tool_input_field(agent, event, map, "tool_input")?;
                call(&format!("MCP:{tool}"), input, None)
            }
            "beforeReadFile" => {
                let path = required_str(agent, event, map, "file_path")?;
                call("Read", json!({ "file_path": path }), None)
            }
            "beforeSubmitPrompt" => {
                let prompt = required_str(agent, event, map, "prompt")?.to_string();
                return Ok(Event::Prompt { session, prompt });
            }
            other => {
                return Ok(Event::Other {
                    event_name: other.to_string(),
                });
            }
        };
        Ok(Event::PreToolUse {
            session,
            call: call?,
        })
    }

    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply {
        let mut answer = Map::new();
        let mut reply_notes = Vec::new();
        match event {
            Event::Other { .. } | Event::SettingsChanged { .. } => {
                return Reply::silent()
                    .with_note(&other_event_note(self.kind(), event.event_name()));
            }
            Event::PreToolUse { .. } => match &outcome.block {
                Some(reason) => {
                    answer.insert("permission".into(), json!("deny"));
                    answer.insert("user_message".into(), json!(user_message(reason, outcome)));
                    answer.insert("agent_message".into(), json!(reason));
                }
                None => {
                    answer.insert("permission".into(), json!("allow"));
                }
            },
            Event::Prompt { session, .. } => match &outcome.block {
                Some(reason) => {
                    answer.insert("continue".into(), json!(false));
                    answer.insert("user_message".into(), json!(user_message(reason, outcome)));
                }
                None => {
                    answer.insert("continue".into(), json!(true));
                    if outcome.context.is_some() {
                        reply_notes.push(context_dropped_note(
                            self.kind(),
                            &session.event_name,
                            &outcome.context_hooks,
                        ));
                    }
                }
            },
        }
        let mut reply = warnings_on_stderr(Reply::json(Value::Object(answer)), outcome);
        for note in reply_notes {
            reply = reply.with_note(&note);
        }
        reply
    }

    fn refuse(&self, reason: &str) -> Reply {
        // Both shapes at once: the payload could not be read, so which event it was is
        // not known; each event reads its own fields.
        Reply::json(json!({
            "permission": "deny",
            "continue": false,
            "user_message": reason,
            "agent_message": reason,
        }))
    }
}

/// The reason, then the warnings: the user sees `user_message`, and Cursor has no other
/// field for them.
fn user_message(reason: &str, outcome: &Ruling) -> String {
    match outcome.warning_text() {
        Some(warnings) => format!("{reason}\n{warnings}"),
        None => reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::test_support::*;

    const PRE: &str = include_str!("../../examples/agents/cursor/preToolUse.json");
    const SHELL: &str = include_str!("../../examples/agents/cursor/beforeShellExecution.json");
    const MCP: &str = include_str!("../../examples/agents/cursor/beforeMCPExecution.json");
    const READ: &str = include_str!("../../examples/agents/cursor/beforeReadFile.json");
    const PROMPT_SAMPLE: &str =
        include_str!("../../examples/agents/cursor/beforeSubmitPrompt.json");

    fn pre() -> Event {
        Cursor.parse(&payload(PRE)).unwrap()
    }

    fn prompt_event() -> Event {
        Cursor.parse(&payload(PROMPT_SAMPLE)).unwrap()
    }

    fn call_of(text: &str) -> crate::bridge::ToolCall {
        match Cursor.parse(&payload(text)).unwrap() {
            Event::PreToolUse { call, .. } => call,
            other => panic!("not a call: {other:?}"),
        }
    }

    #[test]
    fn parses_every_real_payload() {
        let Event::PreToolUse { session, call } = pre() else {
            panic!("not a call")
        };
        assert_eq!(
            session.session_id.as_deref(),
            Some("c0ffee00-1111-2222-3333-444455556666")
        );
        assert_eq!(session.cwd.as_deref(), Some("/home/u/p"));
        assert_eq!(call.tool, "Bash");
        assert_eq!(call.hookhost_tool, Some("bash"));
        assert_eq!(
            call.tool_input,
            json!({"command": "npm install", "working_directory": "/home/u/p"})
        );

        let shell = call_of(SHELL);
        assert_eq!(
            (shell.tool.as_str(), shell.tool_input.clone()),
            ("Bash", json!({"command": "git push --force origin main"}))
        );

        let mcp = call_of(MCP);
        assert_eq!(mcp.tool, "mcp__unknown__create_issue");
        assert_eq!(mcp.hookhost_tool, Some("mcp"));
        assert_eq!(mcp.tool_input, json!({"title": "Bug", "body": "It breaks"}));

        let read = call_of(READ);
        assert_eq!(read.tool, "Read");
        // The file's content is not passed to hooks.
        assert_eq!(read.tool_input, json!({"file_path": "/home/u/p/.env"}));

        let Event::Prompt { session, prompt } = prompt_event() else {
            panic!("not a prompt")
        };
        assert_eq!(prompt, "ooo seed my requirements");
        // beforeSubmitPrompt has no cwd: the first workspace root stands in.
        assert_eq!(session.cwd.as_deref(), Some("/home/u/p"));
    }

    #[test]
    fn no_objection_on_a_permission_event_is_allow_because_of_fail_closed() {
        for text in [PRE, SHELL, MCP, READ] {
            let event = Cursor.parse(&payload(text)).unwrap();
            assert_eq!(
                Cursor.answer(&event, &Ruling::no_objection()),
                Reply::json(json!({"permission": "allow"})),
                "{text}"
            );
        }
    }

    #[test]
    fn deny_is_permission_deny_with_both_messages() {
        let reply = Cursor.answer(&pre(), &blocked_call());
        assert_eq!(
            reply.stdout,
            "{\"permission\":\"deny\",\"user_message\":\"blocked by the user's hook \\\"no-force-push\\\": force-push is not allowed here\",\"agent_message\":\"blocked by the user's hook \\\"no-force-push\\\": force-push is not allowed here\"}\n"
        );
        assert_eq!((reply.stderr.as_str(), reply.exit_code), ("", 0));
    }

    #[test]
    fn failure_is_a_deny_with_the_specs_message_and_the_warning_for_the_user() {
        let reply = Cursor.answer(&pre(), &failed_call());
        let out = stdout_json(&reply);
        let failure = "the user's hook \"no-force-push\" failed (timed out after 10 s), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing.";
        let warning = "⚠ hook no-force-push is failing (timed out after 10 s), so the calls it covers are blocked. Fix it, set on_failure = \"continue\", or restart with --no-hooks.";
        assert_eq!(out["permission"], "deny");
        assert_eq!(out["agent_message"], failure);
        assert_eq!(out["user_message"], format!("{failure}\n{warning}"));
        assert_eq!(reply.stderr, format!("{warning}\n"));
    }

    #[test]
    fn warnings_alone_go_to_stderr() {
        let reply = Cursor.answer(&pre(), &continued_call());
        assert_eq!(reply.stdout, "{\"permission\":\"allow\"}\n");
        assert_eq!(
            reply.stderr,
            "⚠ hook audit failed (exited with code 1); on_failure = \"continue\" let the call through.\n"
        );
    }

    #[test]
    fn prompt_block_and_context_that_cursor_cannot_take() {
        let reply = Cursor.answer(&prompt_event(), &blocked_prompt());
        assert_eq!(
            reply.stdout,
            "{\"continue\":false,\"user_message\":\"✗ prompt blocked by hook \\\"keywords\\\": not today\"}\n"
        );
        assert_eq!(
            Cursor.answer(&prompt_event(), &Ruling::no_objection()),
            Reply::json(json!({"continue": true}))
        );
        let reply = Cursor.answer(&prompt_event(), &context());
        assert_eq!(reply.stdout, "{\"continue\":true}\n");
        assert_eq!(
            reply.stderr,
            "hookhost: Cursor cannot add context to a prompt (beforeSubmitPrompt); the context from hook keywords was not sent.\n"
        );
        assert_eq!(reply.exit_code, 0);
    }

    #[test]
    fn refusal_at_start_is_a_deny() {
        let out = stdout_json(&Cursor.answer(&pre(), &refused()));
        assert_eq!(out["permission"], "deny");
        assert!(
            out["agent_message"]
                .as_str()
                .unwrap()
                .starts_with("hook no-force-push:")
        );
        let refused = stdout_json(&Cursor.refuse("r"));
        assert_eq!(refused["permission"], "deny");
        assert_eq!(refused["continue"], false);
    }

    #[test]
    fn unknown_event_is_no_objection_with_a_note() {
        let event = Cursor
            .parse(&json!({"hook_event_name": "afterFileEdit", "conversation_id": "c"}))
            .unwrap();
        assert_eq!(
            Cursor.answer(&event, &Ruling::no_objection()),
            Reply {
                stdout: String::new(),
                stderr: "hookhost: Cursor event \"afterFileEdit\" has no hookhost hooks; no objection.\n".into(),
                exit_code: 0,
                ..Reply::default()
            }
        );
    }

    #[test]
    fn an_mcp_tool_input_that_is_not_json_is_an_error() {
        let err = Cursor
            .parse(&json!({"hook_event_name": "beforeMCPExecution", "tool_name": "x", "tool_input": "{oops"}))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the Cursor beforeMCPExecution payload's tool_input is a string that is not a JSON object"
        );
    }
}
