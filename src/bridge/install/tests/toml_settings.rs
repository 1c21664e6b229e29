//! The TOML agents' settings files: Codex's `config.toml` and Kimi Code's.

use super::*;

#[test]
fn codex_install_keeps_comments_and_other_keys_and_round_trips() {
    let change = assert_idempotent_and_round_trips(AgentKind::Codex, Some(CODEX_CONFIG));
    assert_eq!(change.outcome, ChangeKind::Added);
    assert_eq!(change.file, PathBuf::from("/home/ada/.codex/config.toml"));
    let text = after(&change);
    for line in CODEX_CONFIG.lines() {
        assert!(text.contains(line), "lost {line:?}:\n{text}");
    }
    let doc: ::toml::Table = ::toml::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let pre = &doc["hooks"]["PreToolUse"];
    assert_eq!(pre[0]["matcher"].as_str(), Some("Bash"));
    assert_eq!(pre[1]["matcher"].as_str(), Some("*"));
    let handler = &pre[1]["hooks"][0];
    assert_eq!(handler["type"].as_str(), Some("command"));
    assert_eq!(
        handler["command"].as_str(),
        Some("/usr/local/bin/hookhost bridge --agent codex")
    );
    assert_eq!(handler["timeout"].as_integer(), Some(55));
    let prompt = &doc["hooks"]["UserPromptSubmit"][0];
    assert!(prompt.get("matcher").is_none());
    assert_eq!(prompt["hooks"][0]["command"], handler["command"]);
    assert_eq!(doc["mcp_servers"]["docs"]["command"].as_str(), Some("npx"));
}

#[test]
fn codex_new_file_and_project_scope() {
    let change = planned(&install(AgentKind::Codex), None);
    assert_eq!(
        after(&change),
        r#"[[hooks.PreToolUse]]
matcher = "*"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/usr/local/bin/hookhost bridge --agent codex"
timeout = 55

[[hooks.UserPromptSubmit]]

[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "/usr/local/bin/hookhost bridge --agent codex"
timeout = 55
"#
    );
    assert_idempotent_and_round_trips(AgentKind::Codex, None);
    let project = planned(
        &request(Action::Install, AgentKind::Codex, Scope::Project),
        None,
    );
    assert_eq!(project.file, PathBuf::from("/work/proj/.codex/config.toml"));
    let mut elsewhere = install(AgentKind::Codex);
    elsewhere.places.set_agent_home("CODEX_HOME", "/srv/codex");
    assert_eq!(
        planned(&elsewhere, None).file,
        PathBuf::from("/srv/codex/config.toml")
    );
}

#[test]
fn codex_registration_is_updated_in_place_keeping_its_comments() {
    let old = r#"[[hooks.PreToolUse]]
matcher = "*"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/old/hookhost bridge --agent codex" # installed by hookhost
timeout = 600 # seconds
async = true
statusMessage = "checking"

[[hooks.PreToolUse]]
matcher = "apply_patch"
[[hooks.PreToolUse.hooks]]
command = "hookhost bridge --agent codex"
"#;
    let change = planned(&install(AgentKind::Codex), Some(old));
    assert_eq!(change.outcome, ChangeKind::Updated);
    let text = after(&change);
    assert!(
        text.starts_with(
            r#"[[hooks.PreToolUse]]
matcher = "*"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "/usr/local/bin/hookhost bridge --agent codex" # installed by hookhost
timeout = 55 # seconds
statusMessage = "checking"
"#
        ),
        "{text}"
    );
    assert!(
        !text.contains("apply_patch"),
        "the duplicate stays:\n{text}"
    );
    assert_eq!(
        planned(&install(AgentKind::Codex), Some(text)).outcome,
        ChangeKind::AlreadyInstalled
    );
}

#[test]
fn a_broken_codex_config_is_an_error_naming_the_file_and_line() {
    let broken = "model = \"o3\"\n\n[features\nhooks = true\n";
    for action in [Action::Install, Action::Uninstall] {
        let message = plan(
            &request(action, AgentKind::Codex, Scope::User),
            Some(broken),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(
            message.starts_with("/home/ada/.codex/config.toml: malformed TOML at line 3, column"),
            "{message}"
        );
    }
}

#[test]
fn a_codex_event_written_inline_is_refused_with_its_key() {
    let inline = "hooks.PreToolUse = [{ matcher = \"*\", hooks = [{ type = \"command\", command = \"x\" }] }]\n";
    let message = plan(&install(AgentKind::Codex), Some(inline))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.contains("hooks.PreToolUse is not written as [[…]] tables"),
        "{message}"
    );
    // Uninstall has nothing of hookhost's to remove there, so it leaves the file alone.
    let removed = planned(&uninstall(AgentKind::Codex), Some(inline));
    assert_eq!(removed.outcome, ChangeKind::NotInstalled);
}

/// `install kimi-code` says which of the two Kimi CLIs it covered (docs/threats.md#r9):
/// Kimi Code in its own folder, the Python Kimi CLI when `$KIMI_CODE_HOME` is `~/.kimi`.
#[test]
fn kimi_install_says_which_kimi_it_covers() {
    use crate::bridge::kimi::{KIMI_CLI_NOTE, KIMI_CODE_NOTE};
    let mut request = install(AgentKind::Kimi);
    let change = planned(&request, None);
    let notes = change.notes(&request.options);
    assert!(notes.contains(&KIMI_CODE_NOTE), "{notes:?}");
    request
        .places
        .set_agent_home("KIMI_CODE_HOME", "/home/ada/.kimi");
    let change = planned(&request, None);
    assert_eq!(change.file, Path::new("/home/ada/.kimi/config.toml"));
    let notes = change.notes(&request.options);
    assert!(notes.contains(&KIMI_CLI_NOTE), "{notes:?}");
    assert!(!notes.contains(&KIMI_CODE_NOTE), "{notes:?}");
}
