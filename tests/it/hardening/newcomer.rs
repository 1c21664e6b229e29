//! `doctor` for a newcomer (round three): what is missing and the command that fixes it,
//! other names of hook programs, and a Codex hook Codex would skip.

use super::*;

/// The agent programs doctor looks for that the system itself has (none, usually).
fn system_agents() -> Vec<&'static str> {
    let programs = [
        "claude",
        "codex",
        "gemini",
        "cursor-agent",
        "copilot",
        "qwen",
        "kimi",
        "kiro-cli",
    ];
    programs
        .into_iter()
        .filter(|p| {
            ["/usr/bin", "/bin"]
                .iter()
                .any(|d| Path::new(d).join(p).is_file())
        })
        .collect()
}

#[test]
fn doctor_tells_a_newcomer_what_is_missing_and_the_command_that_fixes_it() {
    let m = Newcomer::new();
    let config = m.config_file();
    let no_config = format!(
        "✗ config: no config file at {}, so there are no hooks and every call goes ahead unchecked. To fix it: write [[hooks]] in {} (README: \"Using it\"), then run hookhost check",
        config.display(),
        config.display()
    );

    // Nothing at all: no agent calls hookhost, and there is no config.
    let (code, stdout, stderr) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "✗ agents: hookhost is registered with no agent, so no agent asks it anything"
        ),
        "{stdout}"
    );
    if system_agents().is_empty() {
        assert!(
            stdout
                .contains("none of the agents it answers was found here (on PATH: claude, codex,"),
            "{stdout}"
        );
    }
    assert!(stdout.contains(&no_config), "{stdout}");
    assert!(
        stdout.ends_with("not healthy: see the lines marked ✗\n"),
        "{stdout}"
    );
    let (code, report) = m.doctor_json();
    assert_eq!(code, 1);
    assert_eq!(report["healthy"], false);
    assert_eq!(report["missing"][0]["what"], "agent", "{report}");
    assert_eq!(report["missing"][1]["what"], "config", "{report}");
    assert_eq!(report["config"]["state"], "missing");
    assert_eq!(report["config"]["file"], json!(config));
    assert_eq!(report["config"]["hooks"], 0);

    // Claude Code is here: doctor names the command that registers hookhost with it.
    let claude = m.bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho '2.1.300 (Claude Code)'\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("Claude Code: claude on PATH"), "{stdout}");
    assert!(
        stdout.contains("  to use hookhost with it: hookhost install claude-code"),
        "{stdout}"
    );
    assert!(
        stdout.contains("✗ agents: hookhost is registered with no agent, so no agent asks it anything. To fix it, run: hookhost install claude-code"),
        "{stdout}"
    );
    let (_, report) = m.doctor_json();
    assert_eq!(
        report["agents"][0]["install"],
        "hookhost install claude-code"
    );
    assert!(
        report["missing"][0]["fix"]
            .as_array()
            .unwrap()
            .contains(&json!("hookhost install claude-code")),
        "{report}"
    );

    // Registered: only the config is missing now.
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(!stdout.contains("✗ agents"), "{stdout}");
    assert!(!stdout.contains("to use hookhost with it"), "{stdout}");
    assert!(stdout.contains(&no_config), "{stdout}");
    let (code, report) = m.doctor_json();
    assert_eq!(code, 1);
    assert_eq!(report["agents"][0]["install"], Value::Null);
    assert_eq!(report["missing"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["missing"][0]["what"], "config");

    // A config that does not load is a fault too (every session would refuse to start).
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[[hooks]\n").unwrap();
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!("✗ config {}: ", config.display())),
        "{stdout}"
    );
    assert_eq!(m.doctor_json().1["config"]["state"], "unreadable");

    // With a hook in it, nothing is missing.
    let hook = m.root.path().join("ok.sh");
    std::fs::write(&hook, "#!/bin/sh\ncat >/dev/null\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(&config, crate::support::sh_hook("ok", &hook, "")).unwrap();
    // The config changed since `install` pinned it (there was none then): doctor says so,
    // and installing again shows the change and pins it.
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "  ✗ config {}: hookhost's config {} changed since `hookhost install claude-code` pinned it (no file then, 1 hook: ok now), so hookhost blocks this agent's calls",
            config.display(),
            config.display()
        )),
        "{stdout}"
    );
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "hookhost's config {} changed since it was pinned: no file then, 1 hook: ok now (hooks removed: none; added: ok). It is pinned as it is now, for every agent whose registration loads it.",
            config.display()
        )),
        "{stdout}"
    );
    let (code, stdout, stderr) = m.run(&["doctor"]);
    assert!(
        stdout.contains(&format!("✓ config {}: 1 hook", config.display())),
        "{stdout}"
    );
    let (_, report) = m.doctor_json();
    assert_eq!(report["missing"], json!([]), "{report}");
    assert_eq!(report["config"]["state"], "ok");
    if !stdout.contains("✓ box:") {
        assert_eq!(code, 1, "{stdout}{stderr}");
        skip_or_fail(
            "doctor_tells_a_newcomer_what_is_missing_and_the_command_that_fixes_it",
            Prerequisite::Bubblewrap,
            &format!("bubblewrap cannot run here, so the machine is not healthy: {stdout}"),
        );
        return;
    }
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.ends_with("healthy\n"), "{stdout}");
}

#[test]
fn doctor_says_which_hook_programs_have_other_names_and_whether_that_matters() {
    let m = Machine::new();
    m.claude("2.1.300");
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    // A copy of /bin/sh outside the project with perf's kind of second name.
    let root = m.scene.root.path();
    let sh = root.join("usr/bin/sh");
    std::fs::create_dir_all(sh.parent().unwrap()).unwrap();
    crate::support::copy_program("/bin/sh", &sh);
    let cache = root.join("root/.debug/usr/bin/sh/0123456789abcdef");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::hard_link(&sh, cache.join("elf")).unwrap();
    let ok = m.scene.script("ok.sh", "cat >/dev/null; exit 0");
    m.scene.write_config(&crate::support::hook(
        "h",
        "PreToolUse",
        &[sh.to_str().unwrap(), ok.to_str().unwrap()],
        "",
    ));
    let (_, stdout, _) = m.run(&["doctor"]);
    let fine = format!(
        "✓ hook h: {} has 2 names (hard links); none is in a folder the agent can write (looked through {}",
        sh.display(),
        m.scene.project.display()
    );
    assert!(stdout.contains(&fine), "{stdout}");
    assert!(stdout.contains("that does not matter"), "{stdout}");
    let (_, stdout, _) = m.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let file = &report["hook_files"][0];
    assert_eq!(
        (&file["hook"], &file["names"], &file["matters"]),
        (&json!("h"), &json!(2), &json!(false)),
        "{report}"
    );
    assert_eq!(file["path"], json!(sh));

    // A name in the project matters: doctor says where it is.
    let inside = m.scene.project.join("sh");
    std::fs::hard_link(&sh, &inside).unwrap();
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "✗ hook h: {} has 3 names (hard links), and {} is in the project, so the agent could change it through that name: the hook is refused. Give the hook a copy of its own",
            sh.display(),
            inside.display()
        )),
        "{stdout}"
    );
    let (_, stdout, _) = m.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["hook_files"][0]["matters"], true, "{report}");
    assert_eq!(report["healthy"], false);
}

/// R6: Codex runs a user hook only once it is trusted, as it is now, in its `/hooks`
/// review, and skips it silently otherwise. `install codex` trusts hookhost's own handlers;
/// `doctor` calls one Codex would skip (never trusted, trusted as it was before, switched
/// off) not working, with the fix, which works.
#[test]
fn doctor_reports_a_codex_hook_codex_would_skip_and_install_trusts_it() {
    let m = Machine::new();
    let (code, stdout, stderr) = m.run(&["install", "codex"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("hookhost trusted its own hook in Codex's /hooks review"),
        "{stdout}"
    );
    let config = m.home.join(".codex/config.toml");
    let trusted = std::fs::read_to_string(&config).unwrap();
    let key = |event: &str| format!("[hooks.state.\"{}:{event}:0:0\"]\n", config.display());
    for event in ["pre_tool_use", "user_prompt_submit"] {
        assert!(trusted.contains(&key(event)), "{trusted}");
    }
    assert_eq!(trusted.matches("trusted_hash = \"sha256:").count(), 2);
    let codex_line = |stdout: &str| {
        let file = format!("user scope, {}:", config.display());
        stdout
            .lines()
            .find(|l| l.contains(&file))
            .unwrap_or_default()
            .to_string()
    };
    let doctor_ok = || {
        let (_, stdout, _) = m.run(&["doctor"]);
        assert!(codex_line(&stdout).starts_with("  ✓ "), "{stdout}");
    };
    doctor_ok();

    let untrusted = trusted[..=trusted.find("\n[hooks.state.").unwrap()].to_string();
    // The timeout changed by hand: the trust is of the handler as it was.
    let stale = trusted.replacen("timeout = 55", "timeout = 30", 1);
    let pre = key("pre_tool_use");
    let off = trusted.replace(&pre, &format!("{pre}enabled = false\n"));
    let cases = [
        // As an install from before hookhost trusted its hook left it (and no pin).
        (
            untrusted,
            "its PreToolUse hook is not trusted in Codex's /hooks review; its UserPromptSubmit hook is not trusted",
            "not run by the agent",
        ),
        (
            stale,
            "its PreToolUse hook is trusted as it was before it changed (\"Modified\" in Codex's /hooks review)",
            "drifted",
        ),
        (
            off,
            "its PreToolUse hook is switched off in Codex's /hooks review (enabled = false)",
            "drifted",
        ),
    ];
    for (edited, said, state) in cases {
        std::fs::write(&config, edited).unwrap();
        if state == "not run by the agent" {
            std::fs::remove_file(m.scene.state().join("hookhost/pins.json")).unwrap();
        }
        let (code, stdout, _) = m.run(&["doctor"]);
        assert_eq!(code, 1, "{stdout}");
        let line = codex_line(&stdout);
        assert!(line.starts_with("  ✗ "), "{stdout}");
        assert!(
            line.contains(&format!("Codex does not run hookhost here: {said}")),
            "{line}"
        );
        assert!(
            line.contains(
                "To fix it: run `hookhost install codex`, which trusts hookhost's own hook and switches it back on"
            ),
            "{line}"
        );
        let (_, json, _) = m.run(&["doctor", "--json"]);
        let report: Value = serde_json::from_str(&json).unwrap();
        let codex = report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == "codex")
            .unwrap();
        assert_eq!(codex["registrations"][0]["state"], state, "{codex}");
        // The fix: install trusts it again, and switches it back on.
        assert_eq!(m.run(&["install", "codex"]).0, 0);
        let fixed = std::fs::read_to_string(&config).unwrap();
        assert_eq!(fixed.trim_end(), trusted.trim_end());
        doctor_ok();
    }

    // Uninstall takes away exactly what install wrote.
    assert_eq!(m.run(&["uninstall", "codex"]).0, 0);
    assert!(!config.exists());
}
