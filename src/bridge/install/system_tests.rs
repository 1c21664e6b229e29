//! The system-scope files, edited under a temporary folder standing for `/` (no root
//! needed): where each agent's lands, what is written there, idempotence, and uninstall.

use super::super::{
    Action, ChangeKind, InstallError, Options, Places, Request, Scope, plan, run, settings_file,
};
use super::*;
use crate::bridge::AgentKind;

const HOOKHOST: &str = "/usr/local/bin/hookhost";

fn request(action: Action, agent: AgentKind, root: &Path) -> Request {
    Request {
        action,
        agent,
        scope: Scope::System,
        places: Places::new("/home/ada", "/work/proj").with_system_root(root),
        hookhost: PathBuf::from(HOOKHOST),
        options: Options::default(),
    }
}

fn managed(agent: AgentKind) -> Option<SystemFile> {
    match agent.declaration().settings.system {
        SystemScope::Managed(file) => Some(file),
        SystemScope::None(_) => None,
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether `text` (JSON or TOML) holds `lock` with its value.
fn holds(text: &str, lock: &LockDown, toml: bool) -> bool {
    let value = if toml {
        let doc: toml::Table = toml::from_str(text).unwrap_or_else(|e| panic!("{e}"));
        serde_json::to_value(doc).unwrap_or_default()
    } else {
        serde_json::from_str(text).unwrap_or_default()
    };
    let mut at = &value;
    for key in lock.path {
        at = &at[*key];
    }
    at.as_bool() == Some(lock.value)
}

#[test]
fn system_paths_are_under_the_root_given() {
    let root = Path::new("/tmp/root");
    assert_eq!(
        under_root(Some(root), "/etc/claude-code/managed-settings.json"),
        Path::new("/tmp/root/etc/claude-code/managed-settings.json")
    );
    assert_eq!(
        under_root(None, "/etc/codex/requirements.toml"),
        Path::new("/etc/codex/requirements.toml")
    );
}

#[test]
fn each_managed_agent_installs_in_its_system_file_with_its_lock_down() {
    for agent in AgentKind::ALL {
        let Some(file) = managed(agent) else { continue };
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let install = request(Action::Install, agent, root.path());
        let report = run(&install, false).unwrap_or_else(|e| panic!("{agent}: {e}"));
        let path = under_root(Some(root.path()), file.linux);
        if crate::env::FolderStyle::native() == crate::env::FolderStyle::Xdg {
            assert_eq!(report.change.file, path, "{agent}");
        }
        let path = report.change.file.clone();
        assert_eq!(report.change.outcome, ChangeKind::Added, "{agent}");
        let text = read(&path);
        let command = format!("{HOOKHOST} bridge --agent {} --system", agent.flag_name());
        assert!(text.contains(&command), "{agent}: {text}");
        let toml = path.extension().is_some_and(|e| e == "toml");
        for lock in file.lock_down {
            assert!(
                holds(&text, lock, toml),
                "{agent}: {} in {text}",
                lock.key()
            );
        }
        // Twice is nothing to change.
        let again = run(&install, false).unwrap_or_else(|e| panic!("{agent}: {e}"));
        assert_eq!(
            again.change.outcome,
            ChangeKind::AlreadyInstalled,
            "{agent}"
        );
        assert_eq!(read(&path), text, "{agent}");
        // Uninstall removes it all: the file held nothing else.
        let uninstall = request(Action::Uninstall, agent, root.path());
        let removed = run(&uninstall, false).unwrap_or_else(|e| panic!("{agent}: {e}"));
        assert_eq!(removed.change.outcome, ChangeKind::Removed, "{agent}");
        assert!(!path.exists(), "{agent}: {}", read(&path));
    }
}

#[test]
fn an_administrators_own_settings_stay_and_only_ours_goes() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let agent = AgentKind::Gemini;
    let path = settings_file(
        agent,
        Scope::System,
        &request(Action::Install, agent, root.path()).places,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let theirs = r#"{
  "hooks": {
    "BeforeTool": [
      {"matcher": "*", "hooks": [{"type": "command", "command": "/opt/audit"}]}
    ]
  },
  "security": {"folderTrust": {"enabled": true}}
}
"#;
    let installed = plan(&request(Action::Install, agent, root.path()), Some(theirs))
        .unwrap_or_else(|e| panic!("{e}"));
    let text = installed.after.clone().unwrap_or_default();
    assert!(
        text.contains("/opt/audit") && text.contains("--system"),
        "{text}"
    );
    assert!(text.contains("folderTrust"), "{text}");
    let removed = plan(&request(Action::Uninstall, agent, root.path()), Some(&text))
        .unwrap_or_else(|e| panic!("{e}"));
    let left: serde_json::Value =
        serde_json::from_str(removed.after.as_deref().unwrap_or("{}")).unwrap_or_default();
    let expected: serde_json::Value = serde_json::from_str(theirs).unwrap_or_default();
    assert_eq!(left, expected, "{}", path.display());
}

#[test]
fn codex_requirements_keep_their_other_keys_and_comments() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let theirs = "# fleet policy\nallowed_sandbox_modes = [\"read-only\"]\n";
    let change = plan(
        &request(Action::Install, AgentKind::Codex, root.path()),
        Some(theirs),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let text = change.after.clone().unwrap_or_default();
    assert!(text.starts_with(theirs), "{text}");
    assert!(text.contains("[features]\nhooks = true"), "{text}");
    assert!(text.contains("--system"), "{text}");
    // No trust table: Codex runs a managed hook without its users' review.
    assert!(!text.contains("[hooks.state"), "{text}");
    let removed = plan(
        &request(Action::Uninstall, AgentKind::Codex, root.path()),
        Some(&text),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(removed.after.as_deref(), Some(theirs));
}

#[test]
fn agents_without_a_system_scope_are_refused_with_the_reason() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for agent in [AgentKind::Copilot, AgentKind::Kimi, AgentKind::Kiro] {
        let SystemScope::None(reason) = agent.declaration().settings.system else {
            panic!("{agent} has a system scope");
        };
        match plan(&request(Action::Install, agent, root.path()), None) {
            Err(e @ InstallError::NoSystemScope { .. }) => {
                assert!(e.to_string().contains(reason), "{e}")
            }
            other => panic!("{agent}: {other:?}"),
        }
    }
}

#[test]
fn the_user_scope_registration_has_no_system_flag() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut user = request(Action::Install, AgentKind::ClaudeCode, root.path());
    user.scope = Scope::User;
    let change = plan(&user, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(!change.registration.args.iter().any(|a| a == "--system"));
    let system = plan(
        &request(Action::Install, AgentKind::ClaudeCode, root.path()),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        system.registration.args,
        ["bridge", "--agent", "claude-code", "--system"]
    );
}

#[test]
fn the_file_is_0644_and_new_folders_0755_whatever_the_umask() {
    // Modes are POSIX's (on Windows, the folders' DACLs decide: docs/system-scope.md).
    if crate::platform::FolderStyle::native() == crate::platform::FolderStyle::Windows {
        return;
    }
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let report = run(
        &request(Action::Install, AgentKind::ClaudeCode, root.path()),
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| crate::platform::sys::files::mode_bits(&m) & 0o7777)
            .unwrap_or(0)
    };
    assert_eq!(mode(&report.change.file), 0o644);
    let folder = report.change.file.parent().unwrap_or(root.path());
    assert_eq!(mode(folder), 0o755);
}
