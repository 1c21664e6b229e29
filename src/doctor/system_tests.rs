//! `doctor --json` on a system-scope install, under a temporary folder standing for `/`:
//! which scope is in force, and each thing a user can write that weakens it.

use super::*;
use crate::bridge::install::{Action, Options, Request, run};
use serde_json::Value;

const HOOKHOST: &str = "/usr/local/bin/hookhost";

struct Machine {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = |name: &str| {
            let p = dir.path().join(name);
            std::fs::create_dir_all(&p).unwrap_or_else(|e| panic!("{e}"));
            p
        };
        let (root, home, project) = (path("root"), path("home"), path("project"));
        Machine {
            _dir: dir,
            root,
            home,
            project,
        }
    }

    fn places(&self) -> Places {
        Places::new(&self.home, &self.project).with_system_root(&self.root)
    }

    fn install(&self, agent: AgentKind) {
        let request = Request {
            action: Action::Install,
            agent,
            scope: Scope::System,
            places: self.places(),
            hookhost: PathBuf::from(HOOKHOST),
            options: Options::default(),
        };
        run(&request, false).unwrap_or_else(|e| panic!("{agent}: {e}"));
    }

    fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap_or(&self.home))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    /// `doctor --json`'s entry for `agent`, with `vars` in the environment.
    fn doctor(&self, agent: AgentKind, vars: &[(&str, &str)]) -> Value {
        let mut all = vec![("HOME".into(), self.home.clone().into_os_string())];
        all.extend(vars.iter().map(|(k, v)| ((*k).into(), (*v).into())));
        let env = Environment::from_vars(all);
        let given = Given {
            system_root: Some(self.root.clone()),
            ..Given::default()
        };
        let json = examine_with(&env, &self.project, Path::new(HOOKHOST), &given).to_json();
        json["agents"]
            .as_array()
            .and_then(|agents| {
                agents
                    .iter()
                    .find(|a| a["agent"] == agent.flag_name())
                    .cloned()
            })
            .unwrap_or_else(|| panic!("no {agent} in {json}"))
    }
}

/// What weakens the registration, leaving out the temporary root's owner (not root when
/// the tests run as a user).
fn weakened(entry: &Value) -> Vec<String> {
    entry["system"]["weakened"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|w| !w.contains("someone other than the administrator"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_system_registration_is_in_force_and_a_users_disable_all_hooks_does_not_weaken_it() {
    let machine = Machine::new();
    machine.install(AgentKind::ClaudeCode);
    let entry = machine.doctor(AgentKind::ClaudeCode, &[]);
    assert_eq!(entry["system"]["registered"], true, "{entry}");
    assert_eq!(entry["system"]["as_installed"], true, "{entry}");
    assert!(weakened(&entry).is_empty(), "{entry}");
    // Claude Code runs managed hooks under a user's disableAllHooks (docs/system-scope.md).
    machine.write(
        &machine.home.join(".claude/settings.json"),
        r#"{"disableAllHooks": true}"#,
    );
    let entry = machine.doctor(AgentKind::ClaudeCode, &[]);
    assert!(weakened(&entry).is_empty(), "{entry}");
    if crate::platform::sys::ownership::is_administrator() {
        assert_eq!(entry["in_force"], "system", "{entry}");
    }
}

#[test]
fn gemini_is_weakened_by_a_users_disabled_list_and_by_the_variable_not_by_enabled_false() {
    let machine = Machine::new();
    machine.install(AgentKind::Gemini);
    let user = machine.home.join(".gemini/settings.json");
    machine.write(&user, r#"{"hooksConfig": {"enabled": false}}"#);
    let entry = machine.doctor(AgentKind::Gemini, &[]);
    assert!(weakened(&entry).is_empty(), "{entry}");
    let could = entry["system"]["could_weaken"].to_string();
    assert!(could.contains("GEMINI_CLI_SYSTEM_SETTINGS_PATH"), "{entry}");
    assert!(could.contains("hooksConfig.disabled"), "{entry}");

    machine.write(&user, r#"{"hooksConfig": {"disabled": ["hookhost"]}}"#);
    let entry = machine.doctor(AgentKind::Gemini, &[]);
    let found = weakened(&entry);
    assert_eq!(found.len(), 1, "{entry}");
    assert!(found[0].contains(&user.display().to_string()), "{found:?}");
    assert_eq!(entry["in_force"], "none", "{entry}");

    std::fs::remove_file(&user).unwrap_or_else(|e| panic!("{e}"));
    let entry = machine.doctor(
        AgentKind::Gemini,
        &[("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "/home/ada/mine.json")],
    );
    let found = weakened(&entry);
    assert!(
        found.len() == 1 && found[0].contains("GEMINI_CLI_SYSTEM_SETTINGS_PATH is set"),
        "{entry}"
    );
}

#[test]
fn a_system_file_without_its_lock_down_is_not_as_installed() {
    let machine = Machine::new();
    machine.install(AgentKind::Qwen);
    let file = machine.places().system_file("/etc/qwen-code/settings.json");
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let mut settings: Value = serde_json::from_str(&text).unwrap_or_default();
    if let Some(object) = settings.as_object_mut() {
        object.remove("disableAllHooks");
    }
    machine.write(&file, &settings.to_string());
    let entry = machine.doctor(AgentKind::Qwen, &[]);
    assert_eq!(entry["system"]["registered"], true, "{entry}");
    assert_eq!(entry["system"]["as_installed"], false, "{entry}");
}

#[test]
fn an_agent_without_a_system_scope_says_why_and_nothing_is_in_force() {
    let machine = Machine::new();
    let entry = machine.doctor(AgentKind::Copilot, &[]);
    assert!(entry["system"]["none_because"].is_string(), "{entry}");
    assert_eq!(entry["system"]["registered"], false, "{entry}");
    assert_eq!(entry["in_force"], "none", "{entry}");
}

#[test]
fn qwen_is_weakened_by_a_mode_without_hooks_in_a_users_env_file_or_environment() {
    let machine = Machine::new();
    machine.install(AgentKind::Qwen);
    assert!(
        weakened(&machine.doctor(AgentKind::Qwen, &[])).is_empty(),
        "{}",
        machine.doctor(AgentKind::Qwen, &[])
    );
    // Bare mode runs no hook at all, the system file's included (docs/system-scope.md).
    let dotenv = machine.home.join(".env");
    machine.write(&dotenv, "QWEN_CODE_SIMPLE=1\n");
    let entry = machine.doctor(AgentKind::Qwen, &[]);
    let found = weakened(&entry);
    assert!(
        found.len() == 1 && found[0].contains(&dotenv.display().to_string()),
        "{entry}"
    );
    assert_eq!(entry["in_force"], "none", "{entry}");
    std::fs::remove_file(&dotenv).unwrap_or_else(|e| panic!("{e}"));
    let entry = machine.doctor(AgentKind::Qwen, &[("QWEN_CODE_SAFE_MODE", "true")]);
    let found = weakened(&entry);
    assert!(
        found.len() == 1 && found[0].contains("QWEN_CODE_SAFE_MODE"),
        "{entry}"
    );
}

#[test]
fn qwen_is_weakened_by_a_mode_its_users_or_a_projects_settings_switch_on() {
    let machine = Machine::new();
    machine.install(AgentKind::Qwen);
    let user = machine.home.join(".qwen/settings.json");
    machine.write(&user, r#"{"tools": {"executionSandbox": {"image": "x"}}}"#);
    let found = weakened(&machine.doctor(AgentKind::Qwen, &[]));
    assert!(
        found.len() == 1 && found[0].starts_with(&format!("{} sets", user.display())),
        "{found:?}"
    );
    std::fs::remove_file(&user).unwrap_or_else(|e| panic!("{e}"));
    // A project's shell sandbox is stripped by Qwen; its `env` is not.
    let project = machine.project.join(".qwen/settings.json");
    machine.write(
        &project,
        r#"{"tools": {"executionSandbox": {"image": "x"}}}"#,
    );
    assert!(weakened(&machine.doctor(AgentKind::Qwen, &[])).is_empty());
    machine.write(&project, r#"{"env": {"QWEN_CODE_SAFE_MODE": "yes"}}"#);
    let found = weakened(&machine.doctor(AgentKind::Qwen, &[]));
    assert!(
        found.len() == 1 && found[0].contains("QWEN_CODE_SAFE_MODE"),
        "{found:?}"
    );
}
