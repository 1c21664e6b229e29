//! Kimi Code (Moonshot AI's `kimi-code`; the older Python `kimi-cli` sends the same
//! events): `PreToolUse` and `UserPromptSubmit` (MoonshotAI/kimi-code
//! `docs/en/customization/hooks.md`, `packages/agent-core/src/session/hooks/runner.ts`,
//! `engine.ts`, `user-prompt.ts`; MoonshotAI/kimi-cli `src/kimi_cli/hooks/`).
//!
//! Input: `hook_event_name`, `session_id`, `cwd`, `tool_name`, `tool_input`,
//! `tool_call_id` (no `tool_use_id`, `transcript_path` or `permission_mode`); newer builds
//! add `session_title` and `client_type: "kimi_code_cli"`. A prompt may be a string or an
//! array of content parts (`[{"type":"text","text":…}]`), whose texts are joined. Tool
//! names are Claude Code's for the most part (`Bash`, `Read`, `Write`, `Edit`, `Glob`,
//! `Grep`, `WebSearch`, `mcp__server__tool`), with `FetchURL`, and file inputs named
//! `path`; the older CLI's `Shell`, `ReadFile`, `WriteFile`, `StrReplaceFile`.
//!
//! Answers (runner.ts `resultFromExitCode`; user-prompt.ts):
//! - deny a call, block a prompt: **exit 2 with the reason on stderr** (read by both
//!   Kimi Code and the older CLI), stdout empty.
//! - no objection: exit 0, **nothing on stdout**: on `UserPromptSubmit` any stdout is
//!   added to the prompt as context, so warnings go to stderr.
//! - prompt context: exit 0 with the context as plain text on stdout.
//! - a timeout, a crash or another exit status lets the call through (fail open): the
//!   bridge answers within its budget, below Kimi's 30 s default.

use super::install::system::SystemScope;
use serde_json::{Map, Value};

use super::agents::{Declaration, FailClosedSetting, HookTableSchema, Settings, Shape, SwitchOff};
use super::install::{Change, RegisteredEvent, Registration, TimeUnit};
use super::{
    AgentKind, BridgeError, Event, Protocol, Reply, Ruling, claude_code, context_dropped_note,
    other_event_note, parse_snake_case, refuse_by_exit_2, warnings_on_stderr,
};

/// Kimi Code's registration: `~/.kimi-code/config.toml` (or `$KIMI_CODE_HOME/config.toml`),
/// a `[[hooks]]` table per event (`event`, `matcher`, `command`, `timeout` in whole
/// seconds, 1 to 600), edited with `toml_edit` so that comments and other keys survive.
/// Kimi Code refuses a config with a key it does not know, so nothing else is written (no
/// `fail_mode`, which only newer versions document). Kimi Code has no project settings
/// file: `--scope project` is refused.
pub(crate) static DECLARATION: Declaration = Declaration {
    kind: AgentKind::Kimi,
    flag: "kimi-code",
    display_name: "Kimi Code",
    program: "kimi",
    protocol: &Kimi,
    settings: Settings {
        home_folder: ".kimi-code",
        home_variable: Some("KIMI_CODE_HOME"),
        home_variable_files: &[],
        extras_home_variable: None,
        user_file: "config.toml",
        project_file: None,
        shape: Shape::FlatToml(handler),
        events: EVENTS,
        system: SystemScope::None(
            "Kimi Code 2.1.0 reads hooks only from the user's config.toml and has no administrator-managed settings (docs/system-scope.md)",
        ),
    },
    default_budget_ms: DEFAULT_BUDGET_MS,
    timeout_unit: TimeUnit::Seconds,
    fail_closed: FailClosedSetting::None,
    when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER,
    project_note: None,
    install_note: Some(which_kimi),
    switch_off: SwitchOff::StrictHookTables(&HOOK_TABLE_SCHEMA),
    project_variable: None,
    merged_project_settings: &[],
    folder_trust: None,
    modes_without_hooks: None,
    hook_environment: None,
    credentials: CREDENTIALS,
    rewriting_hooks: None,
    disabled_hooks: None,
};

/// Kimi Code 2.1.0's schema of a `[[hooks]]` table (`HookDefSchema` in its bundle, a zod
/// `.strict()` object; TOML keys are read in snake case): one table outside it and Kimi
/// Code prints `Ignored invalid config section 'hooks'` and runs with no hooks at all
/// (docs/agents.md, Kimi Code: seen with a `fail_mode` key in the real program).
static HOOK_TABLE_SCHEMA: HookTableSchema = HookTableSchema {
    keys: &["event", "matcher", "command", "timeout"],
    events: &[
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "PermissionResult",
        "UserPromptSubmit",
        "UserPromptQueued",
        "TurnStarted",
        "Stop",
        "StopFailure",
        "Interrupt",
        "SessionStart",
        "SessionEnd",
        "SessionHeartbeat",
        "SubagentStart",
        "SubagentStop",
        "TaskStarted",
        "PreCompact",
        "PostCompact",
        "Notification",
    ],
    timeout_seconds: (1, 600),
};

/// Kimi Code's login, relative to the home folder ([`super::credentials`]).
const CREDENTIALS: &[&str] = &[
    // Kimi Code: `<KIMI_CODE_HOME>/credentials/<name>.json`, the OAuth tokens
    // (MoonshotAI/kimi-code `packages/oauth/src/storage.ts`), and `config.toml`,
    // whose `[providers.*]` hold `api_key`; `mcp.json`, the MCP servers.
    ".kimi-code/credentials",
    ".kimi-code/config.toml",
    ".kimi-code/mcp.json",
    // The Python Kimi CLI: the same under `~/.kimi` (MoonshotAI/kimi-cli
    // `src/kimi_cli/share.py`, `auth/oauth.py` `_credentials_dir`, `config.py`
    // `LLMProvider.api_key`), with the legacy `config.json` and its backup.
    ".kimi/credentials",
    ".kimi/config.toml",
    ".kimi/config.json",
    ".kimi/config.json.bak",
    ".kimi/mcp.json",
];

/// The bridge's default budget for a Kimi Code call: below Kimi's default hook timeout
/// (30 s).
pub const DEFAULT_BUDGET_MS: u64 = 25_000;

const EVENTS: &[RegisteredEvent] = &[
    // An empty matcher is every tool (a JavaScript regex over the tool's name).
    RegisteredEvent {
        name: "PreToolUse",
        matcher: Some(""),
    },
    // On this event the matcher would match the prompt's text: none is written.
    RegisteredEvent {
        name: "UserPromptSubmit",
        matcher: None,
    },
];

/// Which Kimi an install covers: two CLIs answer to `kimi`, and each reads its own
/// config (docs/agents.md#kimi-cli; docs/threats.md#r9).
fn which_kimi(change: &Change) -> Option<&'static str> {
    let python_cli = change
        .file
        .parent()
        .and_then(|folder| folder.file_name())
        .is_some_and(|name| name == ".kimi");
    Some(if python_cli {
        KIMI_CLI_NOTE
    } else {
        KIMI_CODE_NOTE
    })
}

/// What `install kimi-code` says it covered, in the usual place.
pub const KIMI_CODE_NOTE: &str = "This registers hookhost with Kimi Code (npm @moonshot-ai/kimi-code, which reads ~/.kimi-code/config.toml or $KIMI_CODE_HOME's). The older Python Kimi CLI (PyPI kimi-cli) reads ~/.kimi/config.toml instead and is not covered: to cover it too, run `KIMI_CODE_HOME=~/.kimi hookhost install kimi-code`.";

/// What `install kimi-code` says when `$KIMI_CODE_HOME` is `~/.kimi`.
pub const KIMI_CLI_NOTE: &str = "This registers hookhost in ~/.kimi/config.toml, which the Python Kimi CLI (PyPI kimi-cli) reads; Kimi Code (npm @moonshot-ai/kimi-code) reads ~/.kimi-code/config.toml: run `hookhost install kimi-code` without KIMI_CODE_HOME to cover it too.";

/// What Kimi Code does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Kimi Code lets the call through if hookhost is missing, crashes or outlives the \
     timeout (its hooks fail open, and it refuses keys it does not know, so no fail-closed \
     setting is written); hookhost answers within its budget, below that timeout.";

/// The keys of hookhost's table for `event`, in order.
fn handler(
    event: &RegisteredEvent,
    registration: &Registration,
) -> Vec<(&'static str, toml_edit::Value)> {
    let mut keys = vec![("event", toml_edit::Value::from(event.name))];
    if let Some(matcher) = event.matcher {
        keys.push(("matcher", toml_edit::Value::from(matcher)));
    }
    keys.push((
        "command",
        toml_edit::Value::from(registration.command_line.as_str()),
    ));
    keys.push((
        "timeout",
        toml_edit::Value::from(i64::try_from(registration.timeout.min(600)).unwrap_or(600)),
    ));
    keys
}

/// Kimi Code.
#[derive(Debug, Clone, Copy)]
pub struct Kimi;

impl Protocol for Kimi {
    fn kind(&self) -> AgentKind {
        AgentKind::Kimi
    }

    fn parse(&self, payload: &Value) -> Result<Event, BridgeError> {
        let mut payload = payload.clone();
        if let Some(map) = payload.as_object_mut() {
            normalize(map);
        }
        parse_snake_case(
            self.kind(),
            &payload,
            claude_code::PRE_TOOL_EVENTS,
            claude_code::PROMPT_EVENTS,
        )
    }

    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply {
        if let Event::Other { .. } | Event::SettingsChanged { .. } = event {
            return Reply::silent().with_note(&other_event_note(self.kind(), event.event_name()));
        }
        if let Some(reason) = &outcome.block {
            // The model reads stderr after Kimi's `Tool execution failed`: the reason alone,
            // not the user's warnings (their `--no-hooks` advice means nothing there).
            return self.refuse(reason);
        }
        let reply = match (&outcome.context, event) {
            (Some(context), Event::Prompt { .. }) => Reply::text(context),
            // A call takes no context; none is asked for.
            (Some(_), _) => Reply::silent().with_note(&context_dropped_note(
                self.kind(),
                event.event_name(),
                &outcome.context_hooks,
            )),
            (None, _) => Reply::silent(),
        };
        warnings_on_stderr(reply, outcome)
    }

    fn refuse(&self, reason: &str) -> Reply {
        refuse_by_exit_2(reason)
    }
}

/// Kimi's fields as the shared snake_case reader takes them: `tool_call_id` is the
/// call's id, and a prompt of content parts is their texts, joined.
fn normalize(map: &mut Map<String, Value>) {
    if !map.contains_key("tool_use_id")
        && let Some(id) = map.get("tool_call_id").cloned()
    {
        map.insert("tool_use_id".into(), id);
    }
    if let Some(Value::Array(parts)) = map.get("prompt") {
        let text: Vec<&str> = parts
            .iter()
            .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect();
        let joined = text.join("\n");
        map.insert("prompt".into(), Value::String(joined));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::test_support::*;

    const PRE: &str = include_str!("../../examples/agents/kimi-code/PreToolUse.json");
    const PROMPT: &str = include_str!("../../examples/agents/kimi-code/UserPromptSubmit.json");

    #[test]
    fn parses_the_payloads_a_prompt_of_parts_too() {
        let Event::PreToolUse { session, call } = Kimi.parse(&payload(PRE)).unwrap() else {
            panic!("not a call");
        };
        assert_eq!(session.session_id.as_deref(), Some("session_abc"));
        assert_eq!(call.tool, "Bash");
        assert_eq!(call.hookhost_tool, Some("bash"));
        assert_eq!(call.tool_use_id.as_deref(), Some("call_k1"));
        let Event::Prompt { prompt, .. } = Kimi.parse(&payload(PROMPT)).unwrap() else {
            panic!("not a prompt");
        };
        assert_eq!(prompt, "fix the failing test");
        // Its file tools name the file `path`; hooks read Claude Code's `file_path`.
        let mut write: Value = payload(PRE);
        write["tool_name"] = "Write".into();
        write["tool_input"] = serde_json::json!({"path": "src/a.rs", "content": "x"});
        let Event::PreToolUse { call, .. } = Kimi.parse(&write).unwrap() else {
            panic!("not a call");
        };
        assert_eq!(call.tool_input["file_path"], "/home/u/p/src/a.rs");
        assert_eq!(call.hookhost_tool, Some("write_file"));
    }

    #[test]
    fn denies_by_exit_2_and_never_prints_on_a_quiet_prompt() {
        let pre = Kimi.parse(&payload(PRE)).unwrap();
        let deny = Kimi.answer(&pre, &Ruling::block("no force pushes"));
        assert_eq!((deny.exit_code, deny.stdout.as_str()), (2, ""));
        assert_eq!(deny.stderr, "no force pushes\n");
        let prompt = Kimi.parse(&payload(PROMPT)).unwrap();
        let quiet = Kimi.answer(
            &prompt,
            &Ruling {
                warnings: vec!["⚠ hook x is failing".into()],
                ..Ruling::default()
            },
        );
        assert_eq!((quiet.exit_code, quiet.stdout.as_str()), (0, ""));
        assert_eq!(quiet.stderr, "⚠ hook x is failing\n");
        let context = Kimi.answer(
            &prompt,
            &Ruling {
                context: Some("use the staging db".into()),
                ..Ruling::default()
            },
        );
        assert_eq!(context.stdout, "use the staging db\n");
    }
}
