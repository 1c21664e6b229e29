//! Qwen Code: `PreToolUse` and `UserPromptSubmit`, Claude Code's hook protocol over Gemini
//! CLI's tool names (QwenLM/qwen-code `docs/users/features/hooks.md`;
//! `packages/core/src/hooks/types.ts`, `hookRunner.ts`, `hookEventHandler.ts`;
//! `packages/core/src/tools/tool-names.ts`).
//!
//! Input: Claude Code's fields plus an ISO `timestamp`, `tool_call_id` beside
//! `tool_use_id`, and `submitted_prompt` on an interactive prompt; tool names are Gemini
//! CLI's (`run_shell_command`, `read_file`, `write_file`, `edit`, `grep_search`, …), their
//! file inputs `file_path`.
//!
//! Answers, as Claude Code's (Qwen Code reads the same JSON):
//! - deny a call: exit 0 + `hookSpecificOutput{permissionDecision:"deny",
//!   permissionDecisionReason}`. Never `allow`, which skips Qwen Code's approval prompt.
//! - block a prompt: `{"decision":"block","reason"}`; context: `additionalContext`.
//! - no objection: exit 0, nothing printed; warnings: `systemMessage`.
//! - a payload the bridge cannot read: exit 2 (a blocking error in Qwen Code's exit-code
//!   rules, as in Claude Code's) with a JSON answer on stderr that no later hook undoes
//!   ([`Qwen::refuse`]).
//!
//! Qwen Code 0.24.4 fires `UserPromptSubmit` for every send to the model, tool results
//! included; those come with an empty `prompt` and no `submitted_prompt` (docs/agents.md).
//! Such a send is not a prompt and not a turn: no prompt hook runs, nothing is answered.

use super::install::system::{LockDown, SystemFile, SystemScope};
use serde_json::{Map, Value};

use super::agents::{
    Declaration, Extensions, FailClosedSetting, FrontmatterBounds, FrontmatterHooks,
    HookEnvironment, HookFiles, Markdown, ModeVariable, ModesWithoutHooks, RewritingHooks,
    Settings, Shape, SwitchOff,
};
use super::install::{RegisteredEvent, Registration, TimeUnit};
use super::{
    AgentKind, BridgeError, Event, Protocol, Reply, Ruling, claude_code, json_or_silent,
    parse_snake_case,
};

/// Qwen Code's registration: `~/.qwen/settings.json` (user) or `.qwen/settings.json`
/// (project; Qwen Code runs project hooks in trusted folders only), Claude Code's shape: a
/// `PreToolUse` group matching every tool and a `UserPromptSubmit` group, each with one
/// `command` handler.
///
/// The `timeout` is written in milliseconds and at least 1000: older Qwen Code reads it
/// in milliseconds, newer in seconds except that a value of 1000 or more is still taken as
/// milliseconds (`hook-timeout.ts`), so such a value means the same to both. Qwen Code's
/// unreleased source has a per-hook `failMode: "closed"`; 0.24.4, the npm latest, has
/// none (docs/agents.md), so it is not written, nor promised to the user.
pub(crate) static DECLARATION: Declaration = Declaration {
    kind: AgentKind::Qwen,
    flag: "qwen-code",
    display_name: "Qwen Code",
    program: "qwen",
    protocol: &Qwen,
    settings: Settings {
        home_folder: ".qwen",
        home_variable: Some("QWEN_HOME"),
        home_variable_files: &[".qwen/.env", ".env"],
        extras_home_variable: None,
        user_file: "settings.json",
        project_file: Some(".qwen/settings.json"),
        shape: Shape::NestedJson(handler),
        events: EVENTS,
        // Qwen Code 0.24.4 keeps Gemini CLI's system settings, in its own folder, moved by
        // its own variable (docs/system-scope.md).
        system: SystemScope::Managed(SystemFile {
            linux: "/etc/qwen-code/settings.json",
            macos: Some("/Library/Application Support/QwenCode/settings.json"),
            windows: Some("C:\\ProgramData\\qwen-code\\settings.json"),
            lock_down: &[LockDown {
                path: &["disableAllHooks"],
                value: false,
            }],
            moved_by: Some("QWEN_CODE_SYSTEM_SETTINGS_PATH"),
            weakened_by: &[],
            user_switch_offs: &[],
        }),
    },
    default_budget_ms: DEFAULT_BUDGET_MS,
    timeout_unit: TimeUnit::Milliseconds,
    fail_closed: FailClosedSetting::None,
    when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER,
    project_note: None,
    install_note: None,
    switch_off: SwitchOff::DisableAllHooks { deep_merged: true },
    project_variable: Some("QWEN_PROJECT_DIR"),
    merged_project_settings: &[".qwen/settings.json"],
    folder_trust: None,
    modes_without_hooks: Some(&MODES_WITHOUT_HOOKS),
    hook_environment: Some(&HookEnvironment {
        // Its settings' `env` and `.env` files reach the hooks, run by `bash -c` (seen,
        // 0.24.4); it drops some loader variables itself (`LD_PRELOAD`, `BASH_ENV`), not
        // all (`LD_LIBRARY_PATH`, `GLIBC_TUNABLES`).
        settings_env: Some("env"),
        env_files: &[".qwen/.env", ".env"],
        first_env_file_only: false,
        own_env_files: &[],
        rerouting: &[],
        bash: true,
        // Both its settings' `env` (string values) and its `.env` files fill only what
        // its environment lacks, and it drops its loader keys from both (0.24.4,
        // `INHERITED_LOADER_ENV_KEYS`).
        unset_only: true,
        drops: &[
            "NODE_OPTIONS",
            "npm_config_node_options",
            "npm_config_userconfig",
            "npm_config_globalconfig",
            "npm_config_script_shell",
            "npm_config_prefix",
            "NODE_PATH",
            "OPENSSL_CONF",
            "NODE_REPL_EXTERNAL_MODULE",
            "npm_config_node_gyp",
            "npm_config_init_module",
            "LD_PRELOAD",
            "LD_AUDIT",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "ZDOTDIR",
            "BASH_FUNC_*",
        ],
    }),
    credentials: CREDENTIALS,
    rewriting_hooks: Some(&REWRITING_HOOKS),
    disabled_hooks: None,
};

/// Qwen Code 0.24.4 runs no hook in its bare mode (`QWEN_CODE_SIMPLE`) or its safe mode
/// (`QWEN_CODE_SAFE_MODE`), each on with `1`, `true`, `yes` or `on`, nor with its shell
/// sandbox set (`tools.executionSandbox`, `getDisableAllHooks`). It loads the first
/// `.qwen/.env` or `.env` up from the folder it runs in, then the home folder's, and its
/// settings' `env` object, none of which leaves these variables out (docs/agents.md#qwen-code).
static MODES_WITHOUT_HOOKS: ModesWithoutHooks = ModesWithoutHooks {
    variables: &[
        ModeVariable {
            name: "QWEN_CODE_SIMPLE",
            in_settings: "\"env\": {\"QWEN_CODE_SIMPLE\": …} (its bare mode)",
            mode: "its bare mode",
        },
        ModeVariable {
            name: "QWEN_CODE_SAFE_MODE",
            in_settings: "\"env\": {\"QWEN_CODE_SAFE_MODE\": …} (its safe mode)",
            mode: "its safe mode",
        },
    ],
    on_values: &["1", "true", "yes", "on"],
    settings_objects: &[(
        &["tools", "executionSandbox"],
        "\"tools\": {\"executionSandbox\": …} (its shell sandbox)",
    )],
};

/// Qwen Code's login, relative to the home folder ([`super::credentials`]).
const CREDENTIALS: &[&str] = &[
    // The Qwen OAuth tokens (QwenLM/qwen-code `packages/core/src/config/storage.ts`
    // `OAUTH_FILE`; `qwen/qwenOAuth2.ts`; QwenLM/qwen-code#225).
    ".qwen/oauth_creds.json",
    // MCP servers' OAuth tokens (`Storage.getMcpOAuthTokensPath`).
    ".qwen/mcp-oauth-tokens.json",
    // `security.auth.apiKey` (the OpenAI-compatible key) and the `env` block.
    // Hidden although hookhost's install edits it: a hook has no need to read it.
    ".qwen/settings.json",
    // The API keys Qwen Code reads from `~/.qwen/.env` and `~/.env`.
    ".qwen/.env",
    ".env",
];

/// The bridge's default budget for a Qwen Code call: below Qwen Code's default timeout
/// (60 s in older versions; 600 s in newer ones).
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
];

/// What Qwen Code does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Qwen Code lets the call through if hookhost is missing, crashes or outlives the \
     timeout: its hooks fail open, and Qwen Code 0.24.4 has no setting that makes them fail \
     closed. hookhost answers within its budget, below that timeout.";

/// The handler object.
fn handler(registration: &Registration) -> Map<String, Value> {
    let mut handler = Map::new();
    handler.insert("type".into(), "command".into());
    handler.insert("command".into(), registration.command_line.clone().into());
    handler.insert("timeout".into(), registration.timeout.into());
    handler
}

/// The name the bridge gives Qwen Code's `UserPromptSubmit` for a send that is not a
/// prompt (a tool result going back to the model).
const TOOL_RESULT_SEND: &str = "UserPromptSubmit (a tool result sent on)";

/// Qwen Code 0.24.4 takes a `PermissionRequest` hook's `decision.updatedInput` as the
/// call's arguments (`setArgsInternal`, its bundle), for a call that asks for approval;
/// and with `"sequential": true` on a group, a `PreToolUse` hook's `tool_input` becomes
/// the input the hooks after it see (`applyHookOutputToInput`), a project's before the
/// user's: hookhost could be shown another call than the one Qwen runs
/// (docs/threats.md#r14).
static REWRITING_HOOKS: RewritingHooks = RewritingHooks {
    events: &["PreToolUse", "PermissionRequest"],
    field: "updatedInput` (or, to the hooks after it, `tool_input",
    // Qwen Code 0.24.4 ran the `PreToolUse` hook of a folder the agent made in
    // `~/.qwen/extensions/` (its `qwen-extension.json` and `hooks/hooks.json`;
    // `loadExtension` in its bundle also takes the manifest's inline `hooks`, a file its
    // `"hooks": "FILE"` names, and a bare `{EVENT: […]}` file).
    more_files: &[
        HookFiles::UserExtensions(&Extensions {
            folder: "extensions",
            install_record: ".qwen-extension-install.json",
            hook_files: &["qwen-extension.json", "hooks/hooks.json"],
            // An extension's subagents carry their `hooks` (its skills' are not read).
            markdown: &[("agents", Markdown::Every)],
            // Its manifest's `${NAME}`s are its own names alone (0.24.4).
            settings: None,
        }),
        // A skill's frontmatter `hooks` run once the `skill` tool ran it, for the rest of
        // the session; a subagent's while it runs, for every call. They run after
        // hookhost's, and Qwen Code 0.24.4 takes the last hook's `permissionDecision`: an
        // `allow` there let a call hookhost denied run (seen with the real program, for
        // the skills and subagents of each folder below). Skills are read from the
        // user's folder, `~/.agents/skills` and the project's `.qwen/skills` and
        // `.agents/skills`; subagents from the user's and the project's `agents/`.
        HookFiles::UserMarkdown("skills", Markdown::Skills),
        HookFiles::UserMarkdown("agents", Markdown::Every),
        HookFiles::HomeMarkdown(".agents/skills", Markdown::Skills),
        HookFiles::ProjectMarkdown(".qwen/skills", Markdown::Skills),
        HookFiles::ProjectMarkdown(".agents/skills", Markdown::Skills),
        HookFiles::ProjectMarkdown(".qwen/agents", Markdown::Every),
    ],
    nested: None,
    plugins: None,
    // Its own bounds (`---` lines alone, after line breaks are made `\n`), and
    // `QWEN_SKILL_ROOT` for a skill's folder. A settings file's `skills.directories`
    // (a project's too) adds folders of skills, loaded as the user's, trusted or not.
    frontmatter: Some(&FrontmatterHooks {
        bounds: FrontmatterBounds::DashLines,
        skill_folder: &["QWEN_SKILL_ROOT"],
        skill_folders_key: &["skills", "directories"],
        command_keys: &["command"],
    }),
};

/// Qwen Code.
#[derive(Debug, Clone, Copy)]
pub struct Qwen;

impl Protocol for Qwen {
    fn kind(&self) -> AgentKind {
        AgentKind::Qwen
    }

    fn parse(&self, payload: &Value) -> Result<Event, BridgeError> {
        let event = parse_snake_case(
            self.kind(),
            payload,
            claude_code::PRE_TOOL_EVENTS,
            claude_code::PROMPT_EVENTS,
        )?;
        match event {
            Event::Prompt { prompt, .. }
                if prompt.trim().is_empty() && payload.get("submitted_prompt").is_none() =>
            {
                Ok(Event::Other {
                    event_name: TOOL_RESULT_SEND.to_string(),
                })
            }
            event => Ok(event),
        }
    }

    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply {
        match event {
            Event::Other { event_name } if event_name == TOOL_RESULT_SEND => Reply::silent(),
            Event::PreToolUse { .. } => {
                let mut answer = claude_code::pre_tool_use(outcome);
                if let Some(reason) = &outcome.block {
                    // Qwen Code 0.24.4 merges its hooks' answers field by field, the later
                    // hook's `permissionDecision` winning: a hook run after hookhost's (a
                    // skill's, a subagent's, an extension's) answering `allow` let a call
                    // hookhost denied run (seen with the real program). A `continue: false`
                    // of any hook stops the call whatever the others say, and the model
                    // reads its `stopReason`, the same reason (docs/threats.md#r14).
                    answer.insert("continue".into(), false.into());
                    answer.insert("stopReason".into(), reason.as_str().into());
                }
                json_or_silent(answer)
            }
            event => claude_code::ClaudeCode.answer(event, outcome),
        }
    }

    /// Exit 2, which blocks every event, with a JSON answer on stderr that blocks either
    /// event and stops the call: Qwen Code reads a plain-text stderr on exit 2 as a bare
    /// `decision: "deny"`, which a later hook's `permissionDecision: "allow"` undoes in
    /// its merge (docs/threats.md#r14), as it undid hookhost's plain deny. A
    /// `continue: false` no later hook undoes, and the model reads the same reason. An
    /// exit status other than 2 (a process that ends otherwise) still has the answer read:
    /// Qwen Code reads stderr when stdout is empty.
    fn refuse(&self, reason: &str) -> Reply {
        Reply::json_on_stderr(serde_json::json!({
            "decision": "block",
            "reason": reason,
            "continue": false,
            "stopReason": reason,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::test_support::*;

    const PRE: &str = include_str!("../../examples/agents/qwen-code/PreToolUse.json");
    const PROMPT: &str = include_str!("../../examples/agents/qwen-code/UserPromptSubmit.json");

    #[test]
    fn parses_the_payloads_into_claude_codes_vocabulary() {
        let Event::PreToolUse { session, call } = Qwen.parse(&payload(PRE)).unwrap() else {
            panic!("not a call");
        };
        assert_eq!(session.session_id.as_deref(), Some("qwen-7f3a"));
        assert_eq!(call.tool, "Bash");
        assert_eq!(call.hookhost_tool, Some("bash"));
        assert_eq!(call.tool_input["command"], "npm test");
        assert_eq!(call.tool_use_id.as_deref(), Some("toolu_q1"));
        let Event::Prompt { prompt, .. } = Qwen.parse(&payload(PROMPT)).unwrap() else {
            panic!("not a prompt");
        };
        assert_eq!(prompt, "fix the failing test");
    }

    /// Qwen Code's send of a tool result fires `UserPromptSubmit` with `prompt: ""` and
    /// no `submitted_prompt`: not a prompt, answered with nothing.
    #[test]
    fn a_tool_result_send_is_not_a_prompt() {
        let mut send = payload(PROMPT);
        send["prompt"] = Value::from("");
        send.as_object_mut().unwrap().remove("submitted_prompt");
        let event = Qwen.parse(&send).unwrap();
        assert!(matches!(&event, Event::Other { .. }), "{event:?}");
        assert_eq!(
            Qwen.answer(&event, &Ruling::no_objection()),
            Reply::silent()
        );
        // A real prompt, even an empty one the user typed, is one.
        let mut typed = payload(PROMPT);
        typed["prompt"] = Value::from("");
        typed["submitted_prompt"] = Value::from("");
        assert!(matches!(Qwen.parse(&typed).unwrap(), Event::Prompt { .. }));
    }

    /// What the user reads about a failing hookhost promises no setting the released
    /// Qwen Code lacks (0.24.4 has no `failMode`, docs/threats.md R12).
    #[test]
    fn says_qwen_code_fails_open_without_promising_a_fail_closed_key() {
        assert!(!WHEN_HOOKHOST_CANNOT_ANSWER.contains("failMode"));
        assert!(!WHEN_HOOKHOST_CANNOT_ANSWER.contains("newer versions"));
        assert!(WHEN_HOOKHOST_CANNOT_ANSWER.contains("0.24.4 has no setting"));
    }

    #[test]
    fn answers_as_claude_code_does() {
        let pre = Qwen.parse(&payload(PRE)).unwrap();
        let deny = Qwen.answer(&pre, &Ruling::block("no"));
        assert_eq!(deny.exit_code, 0);
        let answer: Value = serde_json::from_str(&deny.stdout).unwrap();
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecisionReason"],
            "no"
        );
        // A later hook's `allow` cannot undo it: Qwen Code stops on any `continue: false`.
        assert_eq!(answer["continue"], false);
        assert_eq!(answer["stopReason"], "no");
        assert_eq!(Qwen.answer(&pre, &Ruling::no_objection()), Reply::silent());
    }

    /// A refusal blocks either event by exit 2, and its JSON on stderr stops the call
    /// whatever a later hook answers; a note joins the JSON rather than unmaking it.
    #[test]
    fn a_refusal_is_a_stop_no_later_hook_undoes() {
        let refusal = Qwen.refuse("cannot read").with_note("note\u{1b}");
        assert_eq!((refusal.exit_code, refusal.stdout.as_str()), (2, ""));
        assert_eq!(refusal.stderr.lines().count(), 1, "{}", refusal.stderr);
        let answer: Value = serde_json::from_str(&refusal.stderr).unwrap();
        assert_eq!(answer["decision"], "block");
        assert_eq!(answer["reason"], "cannot read");
        assert_eq!(answer["continue"], false);
        assert_eq!(answer["stopReason"], "cannot read");
        assert_eq!(
            answer["systemMessage"],
            *crate::escape::for_terminal("note\u{1b}")
        );
        let twice = Qwen.refuse("r").with_note("a").with_note("b");
        let answer: Value = serde_json::from_str(&twice.stderr).unwrap();
        assert_eq!(answer["systemMessage"], "a\nb");
    }
}
