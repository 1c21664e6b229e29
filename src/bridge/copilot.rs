//! Copilot CLI: `preToolUse` and `userPromptSubmitted` (camelCase), and their PascalCase
//! forms `PreToolUse` and `UserPromptSubmit`, which select a Claude-compatible payload.
//!
//! Input, camelCase: no `hook_event_name` (the event is told by its fields: `toolName`
//! for a call, `prompt` for a prompt), `sessionId`, a numeric `timestamp`, `cwd`,
//! Copilot's runtime tool names (`bash`, `view`, `create`, `edit`) and `toolArgs` as a
//! **JSON-encoded string** (an object is accepted too), or, for the freeform
//! `apply_patch`, the patch itself (read as `{"input": PATCH}`). PascalCase: snake_case fields,
//! Claude Code's tool names, an ISO `timestamp`, no `transcript_path`.
//!
//! Answers, the same for both spellings, as Copilot CLI 1.0.102 obeyed them (docs/agents.md):
//! - deny a call: exit 0 + top-level `{"permissionDecision":"deny",
//!   "permissionDecisionReason"}`. Its exit 2 would deny with a fixed text ("hook exited
//!   with code 2"), so the reason would reach neither the user nor the model.
//! - no objection: exit 0, nothing printed.
//! - block a prompt: exit 0 + top-level `{"decision":"block","reason"}` (no request is
//!   sent; Copilot shows `! <reason>` and `-p` exits 1).
//! - context: exit 0 + top-level `{"additionalContext"}`, which Copilot puts into the
//!   user message in a `<system_reminder>` block. A nested `hookSpecificOutput` is ignored.
//! - warnings: no field for them; they go to stderr.

use super::install::system::SystemScope;
use serde_json::{Map, Value, json};

use super::agents::{
    Declaration, DisabledHooks, FailClosedSetting, FrontmatterBounds, FrontmatterHooks, HookFiles,
    Markdown, RewritingHooks, Settings, Shape, SwitchOff,
};
use super::install::{RegisteredEvent, Registration, TimeUnit};
use super::{
    AgentKind, AgentSession, BridgeError, Event, Protocol, Reply, Ruling, object, other_event_note,
    owned, parse_snake_case, required_str, tool_input_field, tools, warnings_on_stderr,
};

/// Copilot CLI's registration: hookhost's own file `~/.copilot/hooks/hookhost.json` (or
/// `$COPILOT_HOME/hooks/`; user) or `.github/hooks/hookhost.json` (project),
/// `{"version": 1, "hooks": {EVENT: [HANDLER]}}` with the camelCase events `preToolUse` and
/// `userPromptSubmitted`; each handler runs the binary with no shell (`exec` + `args`) and
/// has `timeoutSec` (docs/agents.md#copilot-cli).
///
/// Copilot CLI 1.0.102 obeys a command hook's top-level `{"decision":"block"}` and
/// `{"additionalContext"}` on `userPromptSubmitted`, so prompt hooks act there too.
pub(crate) static DECLARATION: Declaration = Declaration {
    kind: AgentKind::Copilot,
    flag: "copilot",
    display_name: "Copilot CLI",
    program: "copilot",
    protocol: &Copilot,
    settings: Settings {
        home_folder: ".copilot",
        home_variable: Some("COPILOT_HOME"),
        home_variable_files: &[],
        extras_home_variable: None,
        user_file: "hooks/hookhost.json",
        project_file: Some(".github/hooks/hookhost.json"),
        shape: Shape::FlatJson(handler),
        events: EVENTS,
        system: SystemScope::None(
            "Copilot CLI 1.0.102 runs \"policy hooks\" from its organization's policy, but reads them from no local file hookhost could find (docs/system-scope.md)",
        ),
    },
    default_budget_ms: DEFAULT_BUDGET_MS,
    timeout_unit: TimeUnit::Seconds,
    fail_closed: FailClosedSetting::None,
    when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER,
    project_note: None,
    install_note: None,
    switch_off: SwitchOff::DisableAllHooksUnlessFalse,
    project_variable: None,
    merged_project_settings: &[],
    folder_trust: None,
    modes_without_hooks: None,
    hook_environment: None,
    credentials: CREDENTIALS,
    rewriting_hooks: Some(&REWRITING_HOOKS),
    disabled_hooks: Some(&DISABLED_HOOKS),
};

/// Copilot CLI 1.0.102 skips a hook whose digest its user settings list in
/// `disabledHooks` (seen: hookhost's listed, Copilot ran no hookhost from its next session
/// on; the list in a repository's settings was ignored), and every hook when a trusted
/// repository's `.github/copilot/settings.json` or `settings.local.json` says
/// `disableAllHooks` (seen; the user's own was ignored under `-p`, and is refused too).
/// It reads both keys in any case and with `_` or `-` between words (`disabled_hooks`,
/// `DisabledHooks`, `disable_all_hooks`: seen).
static DISABLED_HOOKS: DisabledHooks = DisabledHooks {
    user_file: "settings.json",
    key: "disabledHooks",
    all_key: "disableAllHooks",
    digest: disable_key,
    project_files: &[
        ".github/copilot/settings.json",
        ".github/copilot/settings.local.json",
    ],
};

/// The digest Copilot CLI 1.0.102 keeps of a hook in `disabledHooks`: SHA-256 of the event,
/// a NUL, and the handler as compact JSON with its known fields in Copilot's order (others
/// left out). Checked against the `disableKey` its own code gave for each variant tried
/// (fields reordered or unknown, no timeout, `30.0`, non-ASCII text).
fn disable_key(event: &str, handler: &Map<String, Value>) -> String {
    use sha2::{Digest, Sha256};
    const ORDER: &[&str] = &[
        "type",
        "bash",
        "powershell",
        "exec",
        "args",
        "cwd",
        "env",
        "timeoutSec",
        "matcher",
    ];
    let ordered: Map<String, Value> = ORDER
        .iter()
        .filter_map(|key| Some(((*key).to_string(), handler.get(*key)?.clone())))
        .collect();
    let text = format!("{event}\0{}", Value::Object(ordered));
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Copilot CLI 1.0.102 applies a `preToolUse` hook's `modifiedArgs` (`updatedInput` for
/// the PascalCase spelling) to the call, from every hook file it loads: seen, with hookhost
/// allowing the command it was shown and Copilot running the other, from each of the
/// files below (the project's once the folder is trusted, at the repository's root, not
/// in a folder below it). `permissionRequest` and `preMcpToolCall` hooks take part in a
/// call's permission and an MCP call's arguments (by the runtime's strings): refused too
/// (docs/threats.md#r14).
static REWRITING_HOOKS: RewritingHooks = RewritingHooks {
    events: &[
        "preToolUse",
        "PreToolUse",
        "permissionRequest",
        "PermissionRequest",
        "preMcpToolCall",
        "PreMcpToolCall",
    ],
    field: "modifiedArgs",
    more_files: &[
        HookFiles::UserFolder("hooks"),
        HookFiles::User("settings.json"),
        HookFiles::ProjectFolder(".github/hooks"),
        HookFiles::Project(".github/copilot/settings.json"),
        HookFiles::Project(".github/copilot/settings.local.json"),
        HookFiles::Project(".claude/settings.json"),
        HookFiles::Project(".claude/settings.local.json"),
        // An extension (`extension.mjs`, JavaScript run in Copilot's process) may register
        // an `onPreToolUse` hook answering `modifiedArgs`: seen with 1.0.102 once
        // `"experimental": true` is set, from the user's folder. The model can write one
        // and load it mid-turn (its `extensions_manage` and `extensions_reload` tools).
        // Each is a hook, accepted with the files of its folder. Its entry may be
        // `extension.mjs`, `.cjs` or `.js`, and a session's own are in its state folder.
        HookFiles::UserPrograms("extensions", EXTENSION_ENTRIES),
        HookFiles::ProjectPrograms(".github/extensions", EXTENSION_ENTRIES),
        HookFiles::UserSessionPrograms("session-state", "extensions", EXTENSION_ENTRIES),
        // A custom agent's frontmatter `hooks` (seen with 1.0.102: its `preToolUse` hook's
        // `modifiedArgs` rewrote a call, the agent chosen with `--agent` or run by the
        // `task` tool), from the user's `agents/` (no trust needed) and, in a trusted
        // folder, the repository's `.github/agents/` (at any depth) and `.claude/agents/`;
        // `NAME.agent.md` or `NAME.md`.
        HookFiles::UserMarkdown("agents", Markdown::Every),
        HookFiles::ProjectMarkdown(".github/agents", Markdown::Every),
        HookFiles::ProjectMarkdown(".claude/agents", Markdown::Every),
    ],
    nested: None,
    plugins: None,
    // Its frontmatter is read by native code: read here between `---` lines (blanks after
    // them allowed, as 1.0.102 allowed them), and the
    // files its handlers' `bash`, `powershell` and `exec` name join the digest.
    frontmatter: Some(&FrontmatterHooks {
        bounds: FrontmatterBounds::DashLinesWithBlanks,
        skill_folder: &[],
        skill_folders_key: &[],
        command_keys: &["command", "bash", "powershell", "exec"],
    }),
};

/// The entry files of a Copilot CLI extension's folder (1.0.102's runtime tries each).
const EXTENSION_ENTRIES: &[&str] = &["extension.mjs", "extension.cjs", "extension.js"];

/// Copilot CLI's login, relative to the home folder ([`super::credentials`]).
const CREDENTIALS: &[&str] = &[
    // The OAuth token when no system keychain is there: it falls back to plain
    // text in `config.json` (github/copilot-cli#2071; kunchenguid/quota-axi#55).
    ".copilot/config.json",
    // HTTP MCP servers' OAuth tokens (github/copilot-cli#2783) and the MCP
    // servers' config with their `env`.
    ".copilot/mcp-oauth-config",
    ".copilot/mcp-config.json",
    // GitHub Copilot's shared login of the editor plugins and the language server
    // (`apps.json`, `hosts.json`: `oauth_token`).
    ".config/github-copilot",
];

/// The bridge's default budget for a Copilot CLI call: below Copilot's default timeout
/// (30 s).
pub const DEFAULT_BUDGET_MS: u64 = 25_000;

const EVENTS: &[RegisteredEvent] = &[
    RegisteredEvent {
        name: "preToolUse",
        matcher: None,
    },
    RegisteredEvent {
        name: "userPromptSubmitted",
        matcher: None,
    },
];

/// What Copilot CLI does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Copilot CLI denies a tool call if hookhost is missing or crashes (newer versions; \
     older ones skip the hook), and lets it through if hookhost outlives the timeout (it has \
     no fail-closed setting).";

/// The handler object.
fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("type".into(), "command".into());
    handler.insert(
        "exec".into(),
        registration.program.to_string_lossy().into_owned().into(),
    );
    handler.insert(
        "args".into(),
        Value::Array(registration.args.iter().cloned().map(Value::from).collect()),
    );
    handler.insert("timeoutSec".into(), registration.timeout.into());
    handler
}

/// Copilot CLI.
#[derive(Debug, Clone, Copy)]
pub struct Copilot;

impl Protocol for Copilot {
    fn kind(&self) -> AgentKind {
        AgentKind::Copilot
    }

    fn parse(&self, payload: &Value) -> Result<Event, BridgeError> {
        let agent = self.kind();
        let map = object(agent, payload)?;
        if map.contains_key("hook_event_name") {
            return parse_snake_case(agent, payload, &["PreToolUse"], &["UserPromptSubmit"]);
        }
        let session = |event_name: &str| AgentSession {
            event_name: event_name.to_string(),
            session_id: owned(map, "sessionId"),
            cwd: owned(map, "cwd"),
            transcript_path: None,
            permission_mode: None,
        };
        if map.contains_key("toolName") {
            let event = "preToolUse";
            let tool = required_str(agent, event, map, "toolName")?;
            let input = match map.get("toolArgs") {
                // `apply_patch` is a freeform tool (its input is the patch, not JSON), and
                // Copilot hands the hook that text as it is: `{"input": PATCH}` to the
                // mapping, which reads its files (docs/agents.md, "Every file a call
                // touches"). Refused as unreadable, every patch would be denied.
                Some(Value::String(patch))
                    if tool == "apply_patch"
                        && !serde_json::from_str::<Value>(patch).is_ok_and(|v| v.is_object()) =>
                {
                    json!({ "input": patch })
                }
                _ => tool_input_field(agent, event, map, "toolArgs")?,
            };
            let session = session(event);
            let call = tools::map_call(
                agent,
                event,
                tool,
                input,
                tools::McpHint::default(),
                session.cwd.as_deref(),
                None,
            )?;
            return Ok(Event::PreToolUse { session, call });
        }
        // A `prompt` that is no string is a prompt the bridge cannot read, refused as
        // such; it is no event without hooks, which would be let through.
        if map.contains_key("prompt") {
            let prompt = required_str(agent, "userPromptSubmitted", map, "prompt")?;
            return Ok(Event::Prompt {
                session: session("userPromptSubmitted"),
                prompt: prompt.to_string(),
            });
        }
        Ok(Event::Other {
            event_name: "unnamed".into(),
        })
    }

    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply {
        let reply = match event {
            Event::Other { .. } | Event::SettingsChanged { .. } => {
                return Reply::silent()
                    .with_note(&other_event_note(self.kind(), event.event_name()));
            }
            Event::PreToolUse { .. } => match &outcome.block {
                Some(reason) => Reply::json(json!({
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                })),
                None => Reply::silent(),
            },
            Event::Prompt { .. } => match (&outcome.block, &outcome.context) {
                (Some(reason), _) => Reply::json(json!({"decision": "block", "reason": reason})),
                (None, Some(context)) => Reply::json(json!({"additionalContext": context})),
                (None, None) => Reply::silent(),
            },
        };
        warnings_on_stderr(reply, outcome)
    }

    /// One object that blocks either event: a tool call's deny and a prompt's block,
    /// each ignoring the other's keys (seen in 1.0.102): a refusal may come before the
    /// event is known (the process's watchdog, armed before the payload is read).
    fn refuse(&self, reason: &str) -> Reply {
        Reply::json(json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
            "decision": "block",
            "reason": reason,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::test_support::*;

    const PRE: &str = include_str!("../../examples/agents/copilot/preToolUse.json");
    const PROMPT_SAMPLE: &str =
        include_str!("../../examples/agents/copilot/userPromptSubmitted.json");
    const PASCAL_PRE: &str =
        include_str!("../../examples/agents/copilot/PascalCase-PreToolUse.json");
    const PASCAL_PROMPT: &str =
        include_str!("../../examples/agents/copilot/PascalCase-UserPromptSubmit.json");

    fn pre() -> Event {
        Copilot.parse(&payload(PRE)).unwrap()
    }

    fn prompt_event() -> Event {
        Copilot.parse(&payload(PROMPT_SAMPLE)).unwrap()
    }

    #[test]
    fn parses_tool_args_given_as_a_json_string() {
        let Event::PreToolUse { session, call } = pre() else {
            panic!("not a call")
        };
        assert_eq!(session.event_name, "preToolUse");
        assert_eq!(
            session.session_id.as_deref(),
            Some("5d1c7a9e-2b3f-4c6d-8e0a-1f2b3c4d5e6f")
        );
        assert_eq!(call.tool, "Bash");
        assert_eq!(call.hookhost_tool, Some("bash"));
        assert_eq!(
            call.tool_input,
            json!({"command": "rm -rf dist", "description": "Clean the build output"})
        );
        // The object form is read the same.
        let object_form = Copilot
            .parse(&json!({"sessionId": "s", "cwd": "/p", "toolName": "bash", "toolArgs": {"command": "rm -rf dist", "description": "Clean the build output"}}))
            .unwrap();
        let Event::PreToolUse { call: same, .. } = object_form else {
            panic!("not a call")
        };
        assert_eq!(same.tool_input, call.tool_input);
    }

    #[test]
    fn parses_copilots_file_tools_into_claudes_shape() {
        let event = Copilot
            .parse(&json!({"sessionId": "s", "cwd": "/home/u/p", "toolName": "create", "toolArgs": "{\"path\":\"/home/u/p/a.txt\",\"file_text\":\"hi\"}"}))
            .unwrap();
        let Event::PreToolUse { call, .. } = event else {
            panic!("not a call")
        };
        assert_eq!(call.tool, "Write");
        assert_eq!(call.hookhost_tool, Some("write_file"));
        assert_eq!(
            call.tool_input,
            json!({"file_path": "/home/u/p/a.txt", "content": "hi"})
        );
    }

    #[test]
    fn parses_both_spellings_of_both_events() {
        assert!(
            matches!(prompt_event(), Event::Prompt { ref session, ref prompt }
            if session.event_name == "userPromptSubmitted" && prompt == "ooo seed my requirements")
        );
        let Event::PreToolUse { session, call } = Copilot.parse(&payload(PASCAL_PRE)).unwrap()
        else {
            panic!("not a call")
        };
        assert_eq!(session.event_name, "PreToolUse");
        assert_eq!(call.tool, "Bash");
        assert_eq!(call.hookhost_tool, Some("bash"));
        assert!(
            matches!(Copilot.parse(&payload(PASCAL_PROMPT)).unwrap(), Event::Prompt { ref session, .. }
            if session.event_name == "UserPromptSubmit")
        );
    }

    #[test]
    fn no_objection_prints_nothing() {
        assert_eq!(
            Copilot.answer(&pre(), &Ruling::no_objection()),
            Reply::silent()
        );
    }

    /// A refusal made before the event is known blocks both events, each reading its own
    /// keys; a prompt that is no string is refused, never let through.
    #[test]
    fn a_refusal_blocks_either_event_and_an_unreadable_prompt_is_refused() {
        let out = stdout_json(&Copilot.refuse("why"));
        assert_eq!(
            out,
            json!({"permissionDecision": "deny", "permissionDecisionReason": "why", "decision": "block", "reason": "why"})
        );
        let mut bad = payload(PROMPT_SAMPLE);
        bad["prompt"] = json!({});
        assert!(matches!(
            Copilot.parse(&bad),
            Err(BridgeError::Field {
                field: "prompt",
                ..
            })
        ));
    }

    #[test]
    fn deny_is_top_level_permission_decision_for_both_spellings() {
        let expected = Reply {
            stdout: "{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"blocked by the user's hook \\\"no-force-push\\\": force-push is not allowed here\"}\n".into(),
            stderr: String::new(),
            exit_code: 0,
            ..Reply::default()
        };
        assert_eq!(Copilot.answer(&pre(), &blocked_call()), expected);
        let pascal = Copilot.parse(&payload(PASCAL_PRE)).unwrap();
        assert_eq!(Copilot.answer(&pascal, &blocked_call()), expected);
    }

    #[test]
    fn failure_is_a_deny_with_the_specs_message_and_the_warning_on_stderr() {
        let reply = Copilot.answer(&pre(), &failed_call());
        let out = stdout_json(&reply);
        assert_eq!(out["permissionDecision"], "deny");
        assert_eq!(
            out["permissionDecisionReason"],
            "the user's hook \"no-force-push\" failed (timed out after 10 s), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing."
        );
        assert_eq!(
            reply.stderr,
            "⚠ hook no-force-push is failing (timed out after 10 s), so the calls it covers are blocked. Fix it, set on_failure = \"continue\", or restart with --no-hooks.\n"
        );
    }

    #[test]
    fn warnings_alone_go_to_stderr() {
        let reply = Copilot.answer(&pre(), &continued_call());
        assert_eq!(reply.stdout, "");
        assert_eq!(
            reply.stderr,
            "⚠ hook audit failed (exited with code 1); on_failure = \"continue\" let the call through.\n"
        );
    }

    /// Copilot CLI 1.0.102 stops a prompt on a top-level `decision: "block"` and puts a
    /// top-level `additionalContext` into the user message (seen in the real program).
    #[test]
    fn a_prompt_is_blocked_or_given_context_with_top_level_json() {
        for event in [
            prompt_event(),
            Copilot.parse(&payload(PASCAL_PROMPT)).unwrap(),
        ] {
            let reply = Copilot.answer(&event, &blocked_prompt());
            assert_eq!(reply.exit_code, 0);
            assert_eq!(reply.stderr, "");
            let out = stdout_json(&reply);
            assert_eq!(out["decision"], "block");
            assert_eq!(
                out["reason"],
                "✗ prompt blocked by hook \"keywords\": not today"
            );
            let reply = Copilot.answer(&event, &context());
            assert_eq!(reply.exit_code, 0);
            let out = stdout_json(&reply);
            assert!(
                out["additionalContext"]
                    .as_str()
                    .unwrap()
                    .contains("keywords"),
                "{out}"
            );
            assert!(out.get("hookSpecificOutput").is_none());
        }
    }

    #[test]
    fn refusal_at_start_is_a_deny() {
        let out = stdout_json(&Copilot.answer(&pre(), &refused()));
        assert_eq!(out["permissionDecision"], "deny");
        assert!(
            out["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .starts_with("hook no-force-push:")
        );
    }

    #[test]
    fn unknown_event_is_no_objection_with_a_note() {
        let event = Copilot
            .parse(&json!({"hook_event_name": "SessionStart", "session_id": "s"}))
            .unwrap();
        assert_eq!(
            Copilot.answer(&event, &Ruling::no_objection()),
            Reply {
                stdout: String::new(),
                stderr: "hookhost: Copilot CLI event \"SessionStart\" has no hookhost hooks; no objection.\n".into(),
                exit_code: 0,
                ..Reply::default()
            }
        );
    }

    #[test]
    fn a_freeform_apply_patch_is_its_patch() {
        // As Copilot CLI 1.0.102 sent it (examples/agents/copilot/preToolUse-apply_patch-*).
        let patch = "*** Begin Patch\n*** Add File: .env\n+K=1\n*** End Patch\n";
        let event = Copilot
            .parse(&json!({"sessionId": "s", "cwd": "/home/u/p", "toolName": "apply_patch", "toolArgs": patch}))
            .unwrap();
        let Event::PreToolUse { call, .. } = event else {
            panic!("not a call")
        };
        assert_eq!(call.tool, "apply_patch");
        assert_eq!(call.tool_input, json!({ "input": patch }));
        let files: Vec<_> = call
            .files
            .iter()
            .map(|f| &f.tool_input["file_path"])
            .collect();
        assert_eq!(files, [&json!("/home/u/p/.env")]);
        // Any other tool's non-JSON text stays unreadable.
        assert!(
            Copilot
                .parse(&json!({"sessionId": "s", "toolName": "create", "toolArgs": patch}))
                .is_err()
        );
    }

    #[test]
    fn tool_args_that_are_not_json_are_an_error() {
        let err = Copilot
            .parse(&json!({"sessionId": "s", "toolName": "bash", "toolArgs": "rm -rf /"}))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the Copilot CLI preToolUse payload's toolArgs is a string that is not a JSON object"
        );
    }
}
