//! Codex's hook trust (real_agents R6): `install` trusts hookhost's own handlers in the
//! user's config.toml, as Codex computes the trust.

use super::*;
use crate::bridge::install::codex_review::{Review, review};
use crate::bridge::install::codex_trust::{HookIdentity, trust_key, trusted_hash};

const USER_CONFIG: &str = "/home/ada/.codex/config.toml";
const COMMAND: &str = "/usr/local/bin/hookhost bridge --agent codex";
/// Codex CLI 0.171.0's `currentHash` (`codex app-server`, `hooks/list`) of hookhost's
/// handlers as `install` writes them (timeout 55).
const PRE_TOOL_USE_HASH: &str =
    "sha256:76e2a65c8969398fdac0058731e10b280028774494c7d2adc3c800d1b449868d";
const USER_PROMPT_SUBMIT_HASH: &str =
    "sha256:2e8fd6f3269e6f78bebf84f3cac8e5ad1ee7393182791e06fcec76d0d98fb7f8";

fn identity<'a>(event: &'a str, matcher: Option<&'a str>, command: &'a str) -> HookIdentity<'a> {
    HookIdentity {
        event,
        matcher,
        command,
        timeout: Some(55),
        run_async: false,
        status_message: None,
        additional_context_limit: None,
    }
}

/// Edits `text` as `install`/`uninstall codex` does when the file is the user's own.
fn edited(action: Action, text: Option<&str>, options: &Options) -> Edited {
    let path = Path::new(USER_CONFIG);
    let registration = Registration::new(AgentKind::Codex, Path::new(HOOKHOST), options).unwrap();
    let ours = Ours {
        binary: Path::new(HOOKHOST),
    };
    let settings = &AgentKind::Codex.declaration().settings;
    let crate::bridge::Shape::NestedToml(handler) = settings.shape else {
        panic!("Codex's settings are nested TOML");
    };
    let edit = Edit {
        path,
        existing: text,
        settings,
        registration: &registration,
        action,
        ours: &ours,
        lock_down: &[],
    };
    let edit = toml::edit_with(&edit, handler, Some(path));
    edit.unwrap_or_else(|e| panic!("edit failed: {e}"))
}

fn installed(text: Option<&str>) -> String {
    edited(Action::Install, text, &Options::default())
        .text
        .unwrap_or_default()
}

fn key(event: &str, group: usize, handler: usize) -> String {
    trust_key(Path::new(USER_CONFIG), event, group, handler)
}

/// The trust entries of a config: key and `trusted_hash`, in key order.
fn trust(text: &str) -> Vec<(String, Option<String>)> {
    let mut entries: Vec<_> = toml::hook_states(text)
        .into_iter()
        .map(|(k, _, h)| (k, h))
        .collect();
    entries.sort();
    entries
}

#[test]
fn the_hash_is_the_one_codex_0_171_0_computes() {
    // Each vector is what Codex CLI 0.171.0 reported for the handler.
    let pre = identity("PreToolUse", Some("*"), COMMAND);
    assert_eq!(trusted_hash(&pre), PRE_TOOL_USE_HASH);
    let prompt = identity("UserPromptSubmit", None, COMMAND);
    assert_eq!(trusted_hash(&prompt), USER_PROMPT_SUBMIT_HASH);
    // UserPromptSubmit takes no matcher: Codex leaves one out of the hash.
    let matched = identity("UserPromptSubmit", Some("Bash"), COMMAND);
    assert_eq!(trusted_hash(&matched), USER_PROMPT_SUBMIT_HASH);
    let cases = [
        (
            HookIdentity {
                status_message: Some("checking"),
                ..identity("PreToolUse", Some(""), COMMAND)
            },
            "sha256:f1e0fabda5bcdfb52b71def6a34ef83397814b833639610f19f0456f7d6ef8ef",
        ),
        (
            HookIdentity {
                additional_context_limit: Some(100),
                ..identity("PreToolUse", Some(""), COMMAND)
            },
            "sha256:03604c9e64491d80c2c072d68f3ec7bf9063f5ed911f8e5a32d84b9d4d9c7930",
        ),
        // A timeout of 0 counts as 1, none as 600; no matcher is not an empty one.
        (
            HookIdentity {
                timeout: Some(0),
                ..identity("PreToolUse", None, COMMAND)
            },
            "sha256:3e832ee882912e88bb458fbc03884d2a4da146d2b41d0d65fb13e8e9264a470c",
        ),
        (
            HookIdentity {
                timeout: None,
                ..identity("PreToolUse", None, COMMAND)
            },
            "sha256:ec6047f8ced426c2aa36178208a72e44f9572f58b9d3232ac44329d488f6138a",
        ),
        // Quotes, a backslash, a tab and non-ASCII, escaped as serde_json does.
        (
            HookIdentity {
                timeout: Some(45),
                run_async: true,
                ..identity(
                    "PreToolUse",
                    Some("^(Bash|apply_patch)$"),
                    "'/opt/my hooks/hookhost' bridge --agent codex # é \"q\" \\ \t ☃",
                )
            },
            "sha256:ca51aa1316ad6920dd4e5f5a680495310a058e6de2eadf2599fa82b46ab77451",
        ),
    ];
    for (identity, hash) in cases {
        assert_eq!(trusted_hash(&identity), hash, "{identity:?}");
    }
    assert_eq!(
        key("UserPromptSubmit", 2, 1),
        "/home/ada/.codex/config.toml:user_prompt_submit:2:1"
    );
}

#[test]
fn the_hash_is_read_from_the_handler_as_it_sits_in_the_file() {
    // The file Codex 0.171.0 hashed for the vectors above, keyed as Codex keyed it.
    let text = format!(
        r#"[[hooks.PreToolUse]]
matcher = ""

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55
statusMessage = "checking"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55
additionalContextLimit = 100
async = false

[[hooks.PreToolUse]]

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
commandWindows = "other"
timeout = 0

[[hooks.UserPromptSubmit]]
matcher = "Bash"

[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55

[hooks.state."{USER_CONFIG}:pre_tool_use:0:0"]
trusted_hash = "sha256:f1e0fabda5bcdfb52b71def6a34ef83397814b833639610f19f0456f7d6ef8ef"

[hooks.state."{USER_CONFIG}:pre_tool_use:0:1"]
trusted_hash = "sha256:03604c9e64491d80c2c072d68f3ec7bf9063f5ed911f8e5a32d84b9d4d9c7930"
enabled = false

[hooks.state."{USER_CONFIG}:pre_tool_use:1:0"]
trusted_hash = "sha256:76e2a65c8969398fdac0058731e10b280028774494c7d2adc3c800d1b449868d"
"#
    );
    let files = [PathBuf::from(USER_CONFIG)];
    let reviews: Vec<(String, Review)> = review(&text, &files, Some(&text), Path::new(HOOKHOST))
        .into_iter()
        .map(|r| (r.key, r.review))
        .collect();
    assert_eq!(
        reviews,
        vec![
            (key("PreToolUse", 0, 0), Review::Trusted),
            (key("PreToolUse", 0, 1), Review::Disabled),
            (key("PreToolUse", 1, 0), Review::Modified),
            (key("UserPromptSubmit", 0, 0), Review::Untrusted),
        ]
    );
}

#[test]
fn install_trusts_its_own_handlers_and_uninstall_takes_the_trust_away() {
    let text = installed(None);
    assert_eq!(
        text,
        format!(
            r#"[[hooks.PreToolUse]]
matcher = "*"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55

[[hooks.UserPromptSubmit]]

[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55

[hooks.state."{USER_CONFIG}:pre_tool_use:0:0"]
trusted_hash = "{PRE_TOOL_USE_HASH}"

[hooks.state."{USER_CONFIG}:user_prompt_submit:0:0"]
trusted_hash = "{USER_PROMPT_SUBMIT_HASH}"
"#
        )
    );
    // Idempotent: a second install changes nothing.
    let again = edited(Action::Install, Some(&text), &Options::default());
    assert!(!again.changed, "{:?}", again.text);
    // Uninstall leaves nothing: the file goes.
    let removed = edited(Action::Uninstall, Some(&text), &Options::default());
    assert!(removed.found && removed.changed);
    assert_eq!(removed.text, None);

    // In a file of the user's: hookhost's group comes after theirs (1:0), and uninstall
    // gives the file back byte for byte.
    let text = installed(Some(CODEX_CONFIG));
    assert_eq!(
        trust(&text),
        vec![
            (key("PreToolUse", 1, 0), Some(PRE_TOOL_USE_HASH.into())),
            (
                key("UserPromptSubmit", 0, 0),
                Some(USER_PROMPT_SUBMIT_HASH.into())
            ),
        ]
    );
    assert!(!edited(Action::Install, Some(&text), &Options::default()).changed);
    let removed = edited(Action::Uninstall, Some(&text), &Options::default());
    assert_eq!(removed.text.as_deref(), Some(CODEX_CONFIG));
}

#[test]
fn the_trust_follows_a_new_budget_and_a_trust_codex_wrote_is_kept() {
    let text = installed(None);
    let budget = Options {
        budget_ms: Some(40_000),
        ..Options::default()
    };
    let changed = edited(Action::Install, Some(&text), &budget);
    let changed = changed.text.unwrap_or_default();
    let command = format!("{COMMAND} --budget-ms 40000");
    let hash = |event, matcher| {
        trusted_hash(&HookIdentity {
            timeout: Some(45),
            ..identity(event, matcher, &command)
        })
    };
    assert_eq!(
        trust(&changed),
        vec![
            (key("PreToolUse", 0, 0), Some(hash("PreToolUse", Some("*")))),
            (
                key("UserPromptSubmit", 0, 0),
                Some(hash("UserPromptSubmit", None))
            ),
        ]
    );
    assert!(!edited(Action::Install, Some(&changed), &budget).changed);
    // Back to the default budget: the old hashes again, in place.
    assert_eq!(installed(Some(&changed)), text);

    // The same trust written by Codex's /hooks (its own layout, a comment) is left as
    // it is; a switched-off handler is switched back on.
    let by_codex = text.replace(
        &format!("trusted_hash = \"{PRE_TOOL_USE_HASH}\"\n"),
        &format!("enabled = false\ntrusted_hash = \"{PRE_TOOL_USE_HASH}\" # by /hooks\n"),
    );
    let fixed = installed(Some(&by_codex));
    assert_eq!(fixed, by_codex.replace("enabled = false\n", ""));
    assert!(!edited(Action::Install, Some(&fixed), &Options::default()).changed);
}

#[test]
fn another_hash_for_hookhosts_handler_is_written_again() {
    // A hash that is not the handler's own makes Codex skip it as "Modified" without a
    // word (the agent can write one): install writes hookhost's again, as for any other
    // switch-off, and doctor names it meanwhile.
    let text = installed(None).replace(PRE_TOOL_USE_HASH, "sha256:00");
    let files = [PathBuf::from(USER_CONFIG)];
    let reviews = review(&text, &files, Some(&text), Path::new(HOOKHOST));
    assert_eq!(reviews[0].review, Review::Modified);
    let again = edited(Action::Install, Some(&text), &Options::default());
    assert!(again.changed, "{:?}", again.text);
    let again = again.text.expect("a text");
    assert!(again.contains(PRE_TOOL_USE_HASH), "{again}");
    assert!(!again.contains("sha256:00"), "{again}");
    let reviews = review(&again, &files, Some(&again), Path::new(HOOKHOST));
    assert_eq!(reviews[0].review, Review::Trusted);
    // Where hookhost's handler was not before, such a hash was another handler's (one
    // removed since): replaced.
    let orphan = format!(
        "[hooks.state.\"{USER_CONFIG}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:a-removed-hook\"\n"
    );
    let fixed = installed(Some(&orphan));
    assert!(fixed.contains(PRE_TOOL_USE_HASH), "{fixed}");
    assert!(!fixed.contains("a-removed-hook"), "{fixed}");
    // Uninstall takes it away all the same.
    let removed = edited(Action::Uninstall, Some(&text), &Options::default());
    assert_eq!(removed.text, None);
}

#[test]
fn the_users_trust_follows_their_hooks_when_hookhosts_go() {
    // hookhost's group first (0), the user's after it (1), each trusted; and an old
    // hookhost handler beside the user's, with a trust of its own.
    let theirs = "sha256:theirs";
    let text = format!(
        r#"[[hooks.PreToolUse]]
matcher = "*"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/old/hookhost bridge --agent codex"
timeout = 600

[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 ~/.codex/hooks/guard.py"

[hooks.state."{USER_CONFIG}:pre_tool_use:0:0"]
trusted_hash = "{PRE_TOOL_USE_HASH}"

[hooks.state."{USER_CONFIG}:pre_tool_use:1:0"]
trusted_hash = "{old}"

[hooks.state."{USER_CONFIG}:pre_tool_use:1:1"]
trusted_hash = "{theirs}"

[hooks.state."/elsewhere/config.toml:pre_tool_use:0:0"]
trusted_hash = "{PRE_TOOL_USE_HASH}"
"#,
        old = trusted_hash(&HookIdentity {
            timeout: Some(600),
            ..identity(
                "PreToolUse",
                Some("Bash"),
                "/opt/old/hookhost bridge --agent codex"
            )
        }),
    );
    let elsewhere = (
        "/elsewhere/config.toml:pre_tool_use:0:0".to_string(),
        Some(PRE_TOOL_USE_HASH.to_string()),
    );
    // Install folds the old handler away: the user's moves from 1:1 to 1:0.
    let folded = installed(Some(&text));
    assert_eq!(
        trust(&folded),
        vec![
            elsewhere.clone(),
            (key("PreToolUse", 0, 0), Some(PRE_TOOL_USE_HASH.into())),
            (key("PreToolUse", 1, 0), Some(theirs.into())),
            (
                key("UserPromptSubmit", 0, 0),
                Some(USER_PROMPT_SUBMIT_HASH.into())
            ),
        ]
    );
    // Uninstall removes hookhost's group: the user's is now 0:0, and so is its trust.
    let removed = edited(Action::Uninstall, Some(&text), &Options::default());
    let removed = removed.text.unwrap_or_default();
    assert_eq!(
        trust(&removed),
        vec![elsewhere, (key("PreToolUse", 0, 0), Some(theirs.into()))]
    );
    assert!(removed.contains("guard.py") && !removed.contains("hookhost"));
}

#[test]
fn install_trusts_only_in_the_users_own_config_and_says_so() {
    let env = crate::env::Environment::of_process();
    let Some(home) = env.home() else {
        return;
    };
    let mut request = install(AgentKind::Codex);
    request.places =
        Places::from_environment(home, "/work/proj", |name| env.get(name).map(Into::into));
    // Planned only: nothing is read or written.
    let user = planned(&request, None);
    assert!(after(&user).contains("trusted_hash"), "{}", after(&user));
    let notes = user.notes(&Options::default());
    assert!(
        notes.contains(&crate::bridge::install::codex_trust::TRUSTED_NOTE),
        "{notes:?}"
    );
    // A project's config: Codex reads no trust there, so none is written, and the user
    // is told what to do.
    request.scope = Scope::Project;
    let project = planned(&request, None);
    assert!(!after(&project).contains("trusted_hash"));
    let notes = project.notes(&Options::default());
    assert!(
        notes.contains(&crate::bridge::install::codex_trust::REVIEW_NOTE),
        "{notes:?}"
    );
    assert!(crate::bridge::install::codex_trust::REVIEW_NOTE.contains("type /hooks"));
}
