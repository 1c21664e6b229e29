//! Kiro CLI (AWS; `kiro-cli`, the successor of Amazon Q Developer CLI, whose agent files
//! and hook protocol it keeps): `preToolUse` and `userPromptSubmit`, camelCase
//! (aws/amazon-q-developer-cli `docs/hooks.md`, `crates/chat-cli/src/cli/agent/hook.rs`,
//! `crates/chat-cli/src/cli/chat/cli/hooks.rs`; kiro.dev/docs/cli/hooks;
//! `docs/research/more_agents.md`).
//!
//! Input: `hook_event_name`, `cwd`, and `tool_name` + `tool_input` or `prompt` (snake_case
//! fields; no `session_id` in the builds whose source is public, so such a session keeps
//! no record). Tool names are the agent's own: `execute_bash` (`shell` in newer builds),
//! `fs_read` (`read`) with a list of `operations`, `fs_write` (`write`) whose `command`
//! is `create`, `str_replace`, `insert` or `append`, `glob`, `grep`, `use_aws`, and an
//! MCP tool as `@server/tool`.
//!
//! Answers (docs/hooks.md, and the same on kiro.dev):
//! - deny a call: **exit 2 with the reason on stderr**, which the model reads ("PreToolHook
//!   blocked the tool execution: …").
//! - no objection: exit 0; stdout is not read on `preToolUse`.
//! - prompt context: exit 0 with the context as plain text on stdout.
//! - a prompt cannot be blocked: exit 2 on `userPromptSubmit` is only a warning, so a
//!   block is reported on stderr and the prompt goes on (as with Copilot CLI).
//! - a timeout, a crash or another exit status lets the call through (fail open), with
//!   stderr shown to the user as a warning.

use super::install::system::SystemScope;
use serde_json::{Map, Value};

use super::agents::{Declaration, FailClosedSetting, Settings, Shape, SwitchOff};
use super::install::{RegisteredEvent, Registration, TimeUnit};
use super::{
    AgentKind, BridgeError, Event, Protocol, Reply, Ruling, context_dropped_note, other_event_note,
    parse_snake_case, prompt_block_dropped_note, refuse_by_exit_2, warnings_on_stderr,
};

/// Kiro CLI's registration: an agent file of hookhost's own, `~/.kiro/agents/hookhost.json`
/// (user) or `.kiro/agents/hookhost.json` (project), `{"name", "description", "tools",
/// "hooks": {EVENT: [HANDLER]}}`, each handler with `command`, `timeout_ms` and
/// `cache_ttl_seconds: 0` (a cached answer would be reused for a later call with other
/// arguments: the cache key is the hook, not the call). No `matcher`: every tool.
///
/// Kiro runs an agent file's hooks only while that agent is the one chatting, so
/// `install` says how to make it so (`kiro-cli chat --agent hookhost`, or the default).
/// Amazon Q Developer CLI, Kiro CLI's predecessor, reads the same file from
/// `~/.aws/amazonq/cli-agents/`: copying it there registers the bridge for it too.
pub(crate) static DECLARATION: Declaration = Declaration {
    kind: AgentKind::Kiro,
    flag: "kiro",
    display_name: "Kiro CLI",
    program: "kiro-cli",
    protocol: &Kiro,
    settings: Settings {
        home_folder: ".kiro",
        home_variable: None,
        home_variable_files: &[],
        extras_home_variable: None,
        user_file: "agents/hookhost.json",
        project_file: Some(".kiro/agents/hookhost.json"),
        shape: Shape::AgentJson(handler, new_agent_file),
        events: EVENTS,
        system: SystemScope::None(
            "Kiro CLI reads hooks only from agent files in the user's and the project's .kiro/agents and has no administrator-managed settings (docs/system-scope.md)",
        ),
    },
    default_budget_ms: DEFAULT_BUDGET_MS,
    timeout_unit: TimeUnit::Milliseconds,
    fail_closed: FailClosedSetting::None,
    when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER,
    project_note: None,
    install_note: None,
    switch_off: SwitchOff::None,
    project_variable: None,
    merged_project_settings: &[],
    folder_trust: None,
    modes_without_hooks: None,
    hook_environment: None,
    credentials: CREDENTIALS,
    rewriting_hooks: None,
    disabled_hooks: None,
};

/// Kiro CLI's login, relative to the home folder ([`super::credentials`]).
const CREDENTIALS: &[&str] = &[
    // Kiro CLI and Amazon Q Developer CLI keep their tokens in the `auth_kv`
    // table of `data.sqlite3` in their data folder (aws/amazon-q-developer-cli
    // `fig_util::directories`, `dirs::data_local_dir()`), on Linux and on macOS.
    ".local/share/kiro-cli",
    ".local/share/amazon-q",
    "Library/Application Support/kiro-cli",
    "Library/Application Support/amazon-q",
    // Kiro's MCP servers, with their `env`.
    ".kiro/settings/mcp.json",
    // Amazon Q's settings and MCP servers, and the SSO token cache (the Kiro
    // IDE's `kiro-auth-token.json`): under `.aws`, hidden whole already.
    ".aws/amazonq",
    ".aws/sso/cache",
];

/// The bridge's default budget for a Kiro CLI call: below the 10 s default hook timeout
/// of Kiro's newer engine (30 s in the older one), in case `timeout_ms` is removed.
pub const DEFAULT_BUDGET_MS: u64 = 8_000;

const EVENTS: &[RegisteredEvent] = &[
    RegisteredEvent {
        name: "preToolUse",
        matcher: None,
    },
    RegisteredEvent {
        name: "userPromptSubmit",
        matcher: None,
    },
];

/// What Kiro CLI does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Kiro CLI lets the call through if hookhost is missing, crashes or outlives timeout_ms \
     (its hooks fail open, and it has no fail-closed setting); hookhost answers within its \
     budget, below that timeout. The hooks run while the agent \"hookhost\" chats: \
     `kiro-cli chat --agent hookhost`, or make it the default with \
     `kiro-cli settings chat.defaultAgent hookhost`.";

/// The agent file's own keys, for a file hookhost creates.
fn new_agent_file() -> Map<String, Value> {
    let mut agent = Map::new();
    agent.insert("name".into(), "hookhost".into());
    agent.insert(
        "description".into(),
        "The default tools, with the user's hooks run by hookhost before every call and on every prompt"
            .into(),
    );
    agent.insert("tools".into(), Value::Array(vec!["*".into()]));
    agent
}

/// The handler object.
fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout_ms".into(), registration.timeout.into());
    handler.insert("cache_ttl_seconds".into(), 0.into());
    handler
}

/// Kiro CLI's pre-tool event.
pub const PRE_TOOL_EVENTS: &[&str] = &["preToolUse"];
/// Kiro CLI's prompt event.
pub const PROMPT_EVENTS: &[&str] = &["userPromptSubmit"];

/// Kiro CLI.
#[derive(Debug, Clone, Copy)]
pub struct Kiro;

impl Protocol for Kiro {
    fn kind(&self) -> AgentKind {
        AgentKind::Kiro
    }

    fn parse(&self, payload: &Value) -> Result<Event, BridgeError> {
        let mut payload = payload.clone();
        if let Some(map) = payload.as_object_mut() {
            normalize(map);
        }
        parse_snake_case(self.kind(), &payload, PRE_TOOL_EVENTS, PROMPT_EVENTS)
    }

    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply {
        let reply = match event {
            Event::Other { .. } | Event::SettingsChanged { .. } => {
                return Reply::silent()
                    .with_note(&other_event_note(self.kind(), event.event_name()));
            }
            // The model reads a deny's stderr: the reason alone, not the user's warnings.
            Event::PreToolUse { .. } => match &outcome.block {
                Some(reason) => return self.refuse(reason),
                None if outcome.context.is_some() => Reply::silent().with_note(
                    &context_dropped_note(self.kind(), event.event_name(), &outcome.context_hooks),
                ),
                None => Reply::silent(),
            },
            Event::Prompt { session, .. } => match (&outcome.block, &outcome.context) {
                (Some(reason), _) => Reply::silent().with_note(&prompt_block_dropped_note(
                    self.kind(),
                    &session.event_name,
                    reason,
                )),
                (None, Some(context)) => Reply::text(context),
                (None, None) => Reply::silent(),
            },
        };
        warnings_on_stderr(reply, outcome)
    }

    fn refuse(&self, reason: &str) -> Reply {
        refuse_by_exit_2(reason)
    }
}

/// Kiro's calls as the shared snake_case reader takes them: an `fs_write` (or `write`)
/// that changes a file rather than creating one is an edit (`fs_edit`, the bridge's own
/// name, mapped to Claude Code's `Edit`), and an `fs_read` (or `read`) of one file gives
/// that file as `path` (then `file_path`), keeping its `operations`.
fn normalize(map: &mut Map<String, Value>) {
    let tool = map
        .get("tool_name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(input) = map.get_mut("tool_input").and_then(Value::as_object_mut) else {
        return;
    };
    match tool.as_deref() {
        Some("fs_write" | "write") => {
            let creates = matches!(
                input.get("command").and_then(Value::as_str),
                None | Some("create")
            );
            if !creates {
                map.insert("tool_name".into(), Value::from("fs_edit"));
            }
        }
        Some("fs_read" | "read") => {
            let operations = input.get("operations").and_then(Value::as_array);
            let one_path = match operations.map(Vec::as_slice) {
                Some([only]) => only.get("path").and_then(Value::as_str).map(str::to_owned),
                _ => None,
            };
            if let Some(path) = one_path
                && !input.contains_key("path")
            {
                input.insert("path".into(), Value::String(path));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::test_support::*;

    const PRE: &str = include_str!("../../examples/agents/kiro/preToolUse.json");
    const WRITE: &str = include_str!("../../examples/agents/kiro/preToolUse-fs_write.json");
    const READ: &str = include_str!("../../examples/agents/kiro/preToolUse-fs_read.json");
    const PROMPT: &str = include_str!("../../examples/agents/kiro/userPromptSubmit.json");

    fn call(payload_text: &str) -> crate::bridge::ToolCall {
        match Kiro.parse(&payload(payload_text)).unwrap() {
            Event::PreToolUse { call, .. } => call,
            other => panic!("not a call: {other:?}"),
        }
    }

    #[test]
    fn parses_the_payloads_into_claude_codes_vocabulary() {
        let bash = call(PRE);
        assert_eq!(bash.tool, "Bash");
        assert_eq!(bash.hookhost_tool, Some("bash"));
        assert_eq!(bash.tool_input["command"], "git push --force origin main");

        let edit = call(WRITE);
        assert_eq!(edit.tool, "Edit");
        assert_eq!(edit.hookhost_tool, Some("edit_file"));
        assert_eq!(edit.tool_input["file_path"], "/home/u/p/.env");
        assert_eq!(edit.tool_input["old_string"], "KEY=1");
        assert_eq!(edit.tool_input["new_string"], "KEY=2");

        let mut create: Value = payload(WRITE);
        create["tool_input"] =
            serde_json::json!({"command": "create", "path": "src/a.rs", "file_text": "x"});
        let Event::PreToolUse { call: write, .. } = Kiro.parse(&create).unwrap() else {
            panic!("not a call");
        };
        assert_eq!(write.tool, "Write");
        assert_eq!(write.tool_input["file_path"], "/home/u/p/src/a.rs");
        assert_eq!(write.tool_input["content"], "x");

        let read = call(READ);
        assert_eq!(read.tool, "Read");
        assert_eq!(read.hookhost_tool, Some("read_file"));
        assert_eq!(read.tool_input["file_path"], "/home/u/p/docs/hooks.md");
        assert!(read.tool_input["operations"].is_array());

        let mut mcp: Value = payload(PRE);
        mcp["tool_name"] = "@github/create_issue".into();
        let Event::PreToolUse { call: mcp, .. } = Kiro.parse(&mcp).unwrap() else {
            panic!("not a call");
        };
        assert_eq!(mcp.tool, "mcp__github__create_issue");
        assert_eq!(mcp.hookhost_tool, Some("mcp"));

        let Event::Prompt { session, prompt } = Kiro.parse(&payload(PROMPT)).unwrap() else {
            panic!("not a prompt");
        };
        assert_eq!(prompt, "ooo seed my requirements");
        assert_eq!(session.session_id, None);
        assert_eq!(session.cwd.as_deref(), Some("/home/u/p"));
    }

    #[test]
    fn a_call_without_its_tool_is_unreadable_and_a_write_without_command_creates() {
        let mut broken: Value = payload(PRE);
        broken.as_object_mut().unwrap().remove("tool_name");
        assert!(Kiro.parse(&broken).is_err(), "a preToolUse needs tool_name");
        let mut bare: Value = payload(WRITE);
        bare["tool_input"] = serde_json::json!({"path": "a.txt", "file_text": "x"});
        let Event::PreToolUse { call, .. } = Kiro.parse(&bare).unwrap() else {
            panic!("not a call");
        };
        assert_eq!(call.tool, "Write");
    }

    #[test]
    fn denies_by_exit_2_adds_context_as_text_and_cannot_block_a_prompt() {
        let pre = Kiro.parse(&payload(PRE)).unwrap();
        let deny = Kiro.answer(&pre, &Ruling::block("no force pushes"));
        assert_eq!((deny.exit_code, deny.stdout.as_str()), (2, ""));
        assert_eq!(deny.stderr, "no force pushes\n");
        let quiet = Kiro.answer(&pre, &Ruling::no_objection());
        assert_eq!((quiet.exit_code, quiet.stdout.as_str()), (0, ""));

        let prompt = Kiro.parse(&payload(PROMPT)).unwrap();
        let context = Kiro.answer(
            &prompt,
            &Ruling {
                context: Some("use the staging db".into()),
                ..Ruling::default()
            },
        );
        assert_eq!(
            (context.exit_code, context.stdout.as_str()),
            (0, "use the staging db\n")
        );
        let blocked = Kiro.answer(&prompt, &Ruling::block("not today"));
        assert_eq!((blocked.exit_code, blocked.stdout.as_str()), (0, ""));
        assert_eq!(
            blocked.stderr,
            "hookhost: Kiro CLI cannot block a prompt from a command hook (userPromptSubmit); the prompt was sent. not today\n"
        );
    }
}
