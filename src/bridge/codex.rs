//! Codex CLI: `PreToolUse` and `UserPromptSubmit`, Claude Code's input shape (plus
//! `turn_id` and `model`, which the bridge does not pass on).
//!
//! Codex reads Claude Code's JSON but counts much of it as a *failed* hook and runs the
//! call anyway (docs/agents.md#codex-cli): `allow` without `updatedInput`,
//! `ask`, `continue:false`, `decision:"approve"`, a deny with an empty reason. And it runs
//! hooks through `$SHELL -lc`, whose login profile may print to stdout first, after
//! which a JSON deny no longer parses and is ignored. So:
//! - deny a call, block a prompt: **exit 2 with the reason on stderr, stdout empty**
//!   (the reason is never empty: the verdict's message always has text). Warnings follow
//!   the reason on stderr, the only channel Codex reads on exit 2.
//! - no objection: exit 0, nothing printed; with warnings, `{"systemMessage"}`.
//! - prompt context: `hookSpecificOutput{hookEventName:"UserPromptSubmit",
//!   additionalContext}`, as for Claude Code.

use super::install::system::{LockDown, SystemFile, SystemScope};
use serde_json::Value;

use super::agents::{
    Declaration, FailClosedSetting, HookEnvironment, HookFiles, RewritingHooks, Settings, Shape,
    SwitchOff,
};
use super::install::{RegisteredEvent, Registration, TimeUnit};
use super::{
    AgentKind, BridgeError, Event, Protocol, Reply, Ruling, claude_code, json_or_silent,
    other_event_note, parse_snake_case, refuse_by_exit_2,
};

/// Codex's registration: `~/.codex/config.toml` (or `$CODEX_HOME/config.toml`; user) or
/// `.codex/config.toml` (project; Codex reads it once the project is trusted): a
/// `[[hooks.PreToolUse]]` group matching every tool and a `[[hooks.UserPromptSubmit]]` group,
/// each with one `[[…hooks]]` command handler whose `timeout` is in seconds (research 1.2).
///
/// Codex runs a user hook only once the user has trusted it in `/hooks` (the trust is a hash
/// of its event, matcher, command and timeout, kept in the user's config.toml); `install`
/// writes that trust for hookhost's own handlers, and keeps it in step when they change or
/// move, and `uninstall` takes it away again (see [`trusted_hash`]). Both command and
/// timeout stay stable from one install to the next.
pub(crate) static DECLARATION: Declaration = Declaration {
    kind: AgentKind::Codex,
    flag: "codex",
    display_name: "Codex",
    program: "codex",
    protocol: &Codex,
    settings: Settings {
        home_folder: ".codex",
        home_variable: Some("CODEX_HOME"),
        home_variable_files: &[],
        extras_home_variable: None,
        user_file: "config.toml",
        project_file: Some(".codex/config.toml"),
        shape: Shape::NestedToml(handler),
        events: EVENTS,
        // Codex 0.171.0's managed requirements take hooks, and `[features] hooks = true` there
        // is a requirement no user layer lowers (docs/system-scope.md; from its strings and
        // third-party code, not yet seen in the running program).
        system: SystemScope::Managed(SystemFile {
            linux: "/etc/codex/requirements.toml",
            // Not known for macOS (its managed preferences may take over there) nor Windows.
            macos: None,
            windows: None,
            lock_down: &[LockDown {
                path: &["features", "hooks"],
                value: true,
            }],
            moved_by: None,
            weakened_by: &[],
            user_switch_offs: &[],
        }),
    },
    default_budget_ms: DEFAULT_BUDGET_MS,
    timeout_unit: TimeUnit::Seconds,
    fail_closed: FailClosedSetting::None,
    when_hookhost_cannot_answer: WHEN_HOOKHOST_CANNOT_ANSWER,
    project_note: Some(
        "Codex reads a project's .codex/config.toml only once the project is trusted.",
    ),
    install_note: Some(super::install::codex_trust::install_note),
    switch_off: SwitchOff::CodexFeatures,
    project_variable: None,
    merged_project_settings: &[".codex/config.toml"],
    folder_trust: None,
    modes_without_hooks: None,
    hook_environment: Some(&HookEnvironment {
        // `~/.codex/.env` alone, over its own environment; hooks run by `/bin/bash -c`,
        // which sources `BASH_ENV` (seen, 0.171.0).
        settings_env: None,
        env_files: &[],
        first_env_file_only: false,
        own_env_files: &[".env"],
        rerouting: &[],
        bash: true,
        unset_only: false,
        drops: &[],
    }),
    credentials: CREDENTIALS,
    rewriting_hooks: Some(&REWRITING_HOOKS),
    disabled_hooks: None,
};

/// Codex's login, relative to the home folder ([`super::credentials`]).
const CREDENTIALS: &[&str] = &[
    // `$CODEX_HOME/auth.json` (openai/codex `codex-rs/login`), whole as since F8.
    ".codex",
];

/// The bridge's default budget for a Codex call: well below Codex's default timeout (600 s),
/// and above a hook's default timeout (30 s) so that a slow hook meets its own first.
pub const DEFAULT_BUDGET_MS: u64 = 50_000;

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

/// What Codex does when hookhost cannot answer.
pub const WHEN_HOOKHOST_CANNOT_ANSWER: &str = "Codex lets the call through if hookhost is missing, crashes or outlives the timeout \
     (it has no fail-closed setting; openai/codex#41979 asks for one); hookhost answers \
     within its budget, below that timeout.";

/// The handler's keys and values, in order.
fn handler(registration: &Registration) -> Vec<(&'static str, toml_edit::Value)> {
    vec![
        ("type", "command".into()),
        ("command", registration.command_line.as_str().into()),
        (
            "timeout",
            i64::try_from(registration.timeout)
                .unwrap_or(i64::MAX)
                .into(),
        ),
    ]
}

/// Codex 0.171.0 takes a `PreToolUse` hook's `updatedInput` with `permissionDecision:
/// "allow"`, the last hook to finish winning (`codex-rs/hooks` `latest_updated_input`), from
/// hooks it trusts, whose hash the agent could write as `install` does (docs/threats.md#r14).
static REWRITING_HOOKS: RewritingHooks = RewritingHooks {
    events: &["PreToolUse"],
    field: "updatedInput",
    // Each config layer's `hooks.json` beside its `config.toml`: Codex 0.171.0 ran a
    // trusted `PreToolUse` hook of the user's and of the project's `hooks.json` (its trust
    // written into the user's config.toml, as `install` writes hookhost's) and ran the
    // command it answered with instead of the one hookhost allowed.
    // In a linked git worktree, a project layer's `hooks.json` is read from the main
    // checkout's matching `.codex/` instead (`root_checkout_hooks_folder_for_dir`; seen
    // with 0.171.0: a hook there rewrote a call made in the worktree).
    more_files: &[
        HookFiles::User("hooks.json"),
        HookFiles::Project(".codex/hooks.json"),
        HookFiles::ProjectMainCheckout(".codex/hooks.json"),
    ],
    nested: None,
    plugins: None,
    frontmatter: None,
};

/// Codex CLI.
#[derive(Debug, Clone, Copy)]
pub struct Codex;

impl Protocol for Codex {
    fn kind(&self) -> AgentKind {
        AgentKind::Codex
    }

    fn parse(&self, payload: &Value) -> Result<Event, BridgeError> {
        parse_snake_case(
            self.kind(),
            payload,
            claude_code::PRE_TOOL_EVENTS,
            claude_code::PROMPT_EVENTS,
        )
    }

    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply {
        if let Event::Other { .. } | Event::SettingsChanged { .. } = event {
            return Reply::silent().with_note(&other_event_note(self.kind(), event.event_name()));
        }
        // A deny's stderr is what the model reads (`Command blocked by PreToolUse hook:
        // <reason>. Command: <command>`): the reason alone, without the user's warnings
        // (their advice, `--no-hooks`, means nothing inside Codex; the reason already says
        // to tell the user) and without its last period, which Codex adds (docs/agents.md).
        if let Some(reason) = &outcome.block {
            return match event {
                Event::PreToolUse { .. } => self.refuse(reason.strip_suffix('.').unwrap_or(reason)),
                _ => self.refuse(reason),
            };
        }
        match event {
            Event::Prompt { .. } => json_or_silent(claude_code::prompt(outcome)),
            _ => json_or_silent(claude_code::pre_tool_use(outcome)),
        }
    }

    fn refuse(&self, reason: &str) -> Reply {
        refuse_by_exit_2(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::test_support::*;
    use serde_json::json;

    const PRE: &str = include_str!("../../examples/agents/codex/PreToolUse.json");
    const PATCH: &str =
        include_str!("../../examples/agents/codex/PreToolUse-apply_patch-update.json");
    const PROMPT_SAMPLE: &str = include_str!("../../examples/agents/codex/UserPromptSubmit.json");

    fn pre() -> Event {
        Codex.parse(&payload(PRE)).unwrap()
    }

    fn prompt_event() -> Event {
        Codex.parse(&payload(PROMPT_SAMPLE)).unwrap()
    }

    #[test]
    fn parses_the_real_payloads() {
        let Event::PreToolUse { session, call } = pre() else {
            panic!("not a call")
        };
        assert_eq!(call.tool, "Bash");
        assert_eq!(call.hookhost_tool, Some("bash"));
        assert_eq!(call.tool_input, json!({"command": "cargo test"}));
        assert_eq!(call.tool_use_id.as_deref(), Some("call_Xy12AbCd34EfGh56"));
        // Codex sends `transcript_path: null`.
        assert_eq!(session.transcript_path, None);
        assert_eq!(session.permission_mode.as_deref(), Some("default"));

        let Event::PreToolUse { call, .. } = Codex.parse(&payload(PATCH)).unwrap() else {
            panic!("not a call")
        };
        assert_eq!(call.tool, "apply_patch");
        assert_eq!(call.hookhost_tool, Some("edit_file"));
        assert!(
            call.tool_input["command"]
                .as_str()
                .unwrap()
                .starts_with("*** Begin Patch")
        );

        assert!(
            matches!(prompt_event(), Event::Prompt { ref prompt, .. } if prompt == "ooo seed my requirements")
        );
    }

    #[test]
    fn no_objection_prints_nothing_never_a_bare_allow() {
        assert_eq!(
            Codex.answer(&pre(), &Ruling::no_objection()),
            Reply::silent()
        );
        let reply = Codex.answer(&pre(), &continued_call());
        assert_eq!(reply.exit_code, 0);
        assert!(!reply.stdout.contains("allow"), "{}", reply.stdout);
        assert_eq!(
            stdout_json(&reply),
            json!({"systemMessage": "⚠ hook audit failed (exited with code 1); on_failure = \"continue\" let the call through."})
        );
    }

    #[test]
    fn deny_is_exit_2_with_the_reason_on_stderr_and_empty_stdout() {
        assert_eq!(
            Codex.answer(&pre(), &blocked_call()),
            Reply {
                stdout: String::new(),
                stderr:
                    "blocked by the user's hook \"no-force-push\": force-push is not allowed here\n"
                        .into(),
                exit_code: 2,
                ..Reply::default()
            }
        );
    }

    /// The model reads stderr: the spec's failure message alone, its last period left to
    /// Codex's own `. Command: …` (docs/threats.md#r12: it read `..` and the user's warning).
    #[test]
    fn failure_is_exit_2_with_the_specs_message_for_the_model() {
        assert_eq!(
            Codex.answer(&pre(), &failed_call()),
            Reply {
                stdout: String::new(),
                stderr: "the user's hook \"no-force-push\" failed (timed out after 10 s), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing\n".into(),
                exit_code: 2,
                ..Reply::default()
            }
        );
    }

    #[test]
    fn prompt_block_is_exit_2_and_context_is_claudes_json() {
        let reply = Codex.answer(&prompt_event(), &blocked_prompt());
        assert_eq!(
            (
                reply.stdout.as_str(),
                reply.stderr.as_str(),
                reply.exit_code
            ),
            ("", "✗ prompt blocked by hook \"keywords\": not today\n", 2)
        );
        let reply = Codex.answer(&prompt_event(), &context());
        assert_eq!(reply.exit_code, 0);
        assert_eq!(
            stdout_json(&reply)["hookSpecificOutput"],
            json!({"hookEventName": "UserPromptSubmit", "additionalContext": "Context from the user's hook \"keywords\":\n<skill-suggestion>/ouroboros:seed</skill-suggestion>"})
        );
    }

    #[test]
    fn refusal_at_start_is_exit_2_with_its_text() {
        let reply = Codex.answer(&pre(), &refused());
        assert_eq!(reply.exit_code, 2);
        assert!(
            reply
                .stderr
                .starts_with("hook no-force-push: /home/u/p/hooks/check.sh is in the project")
        );
        assert_eq!(reply.stdout, "");
    }

    #[test]
    fn unknown_event_is_no_objection_with_a_note() {
        let event = Codex
            .parse(&json!({"session_id": "s", "turn_id": "t", "hook_event_name": "PostToolUse"}))
            .unwrap();
        assert_eq!(
            Codex.answer(&event, &Ruling::no_objection()),
            Reply {
                stdout: String::new(),
                stderr:
                    "hookhost: Codex event \"PostToolUse\" has no hookhost hooks; no objection.\n"
                        .into(),
                exit_code: 0,
                ..Reply::default()
            }
        );
    }
}
