//! doctor's report on machines set up in a temporary home.
use super::*;

fn report(found: bool, installed: bool, config: ConfigState) -> Report {
    let state = if installed {
        RegistrationState::Pinned
    } else {
        RegistrationState::NotInstalled
    };
    let agent = AgentReport {
        agent: AgentKind::Codex,
        found: found.then(|| "codex on PATH (/bin/codex)".to_string()),
        registrations: vec![RegistrationReport {
            scope: Scope::User,
            file: "/h/.codex/config.toml".into(),
            state,
            detail: String::new(),
        }],
        when_hookhost_cannot_answer: String::new(),
        install: (found && !installed).then(|| "hookhost install codex".to_string()),
        own_files: Vec::new(),
        switch_offs: Vec::new(),
        system: SystemReport::default(),
    };
    let ok = Check {
        ok: true,
        detail: String::new(),
    };
    Report {
        agents: vec![agent],
        pins_problem: None,
        sandbox: ok.clone(),
        wasm_cache: ok.clone(),
        warm: ok,
        records: RecordsReport::default(),
        config: ConfigReport {
            file: Some("/h/.config/harness/config.toml".into()),
            state: config,
            hooks: usize::from(config == ConfigState::Hooks),
            detail: "no config file at /h/.config/harness/config.toml".into(),
        },
        hook_files: Vec::new(),
    }
}

#[test]
fn doctor_names_what_is_missing_and_how_to_fix_it() {
    let r = report(true, false, ConfigState::Missing);
    let missing = r.missing();
    assert_eq!(missing.len(), 2);
    assert_eq!(missing[0].fixes, vec!["hookhost install codex".to_string()]);
    assert!(!r.healthy());
    let lines = r.lines();
    assert!(lines.contains(&"✗ agents: hookhost is registered with no agent, so no agent asks it anything. To fix it, run: hookhost install codex".to_string()), "{lines:?}");
    assert!(lines.contains(&"✗ config: no config file at /h/.config/harness/config.toml. To fix it: write [[hooks]] in /h/.config/harness/config.toml (README: \"Using it\"), then run hookhost check".to_string()), "{lines:?}");
    // No agent here at all: what to do first.
    let detail = &report(false, false, ConfigState::Hooks).missing()[0].detail;
    assert!(
        detail.ends_with("Install one, then run hookhost install AGENT"),
        "{detail}"
    );
    // Registered, with hooks: nothing missing; a config without hooks is said, not a fault.
    assert!(report(true, true, ConfigState::Hooks).healthy());
    assert!(report(true, true, ConfigState::NoHooks).healthy());
    assert!(!report(true, true, ConfigState::Unreadable).healthy());
    let json = report(true, true, ConfigState::Hooks).to_json();
    assert_eq!(json["missing"], json!([]));
    assert_eq!(json["config"]["state"], "ok");
}
