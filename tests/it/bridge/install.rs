//! `hookhost install` and `uninstall` on the agents' settings files, through the real binary.

use super::*;

/// A HOME of its own, and `hookhost install/uninstall ARGS` run in it.
fn install(scene: &Scene, home: &Path, args: &[&str]) -> (i32, String, String) {
    run(Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .env("HOME", home)
        // Pins stay in the scene, whatever the runner's environment says.
        .env("XDG_STATE_HOME", scene.state())
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .env_remove("QWEN_HOME")
        .arg("--project")
        .arg(&scene.project)
        .args(args))
}

#[test]
fn install_is_idempotent_keeps_other_hooks_and_round_trips() {
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/usr/local/bin/my-hook\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    std::fs::write(&settings, original).unwrap();

    let (code, stdout, stderr) = install(&scene, &home, &["install", "claude-code", "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("Dry run: nothing is written."),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);

    let (code, stdout, stderr) = install(&scene, &home, &["install", "claude-code"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("hookhost is registered with Claude Code"),
        "{stdout}"
    );
    let installed = std::fs::read_to_string(&settings).unwrap();
    assert!(installed.contains("/usr/local/bin/my-hook"));
    assert!(installed.contains("\"model\": \"opus\""));
    assert!(
        installed.contains("bridge --agent claude-code"),
        "{installed}"
    );

    let (code, stdout, _) = install(&scene, &home, &["install", "claude-code"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("already installed"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), installed);

    let (code, stdout, _) = install(&scene, &home, &["uninstall", "claude-code"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("is removed from"), "{stdout}");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let before: Value = serde_json::from_str(original).unwrap();
    assert_eq!(after, before);
}

#[test]
fn install_with_a_budget_and_in_codex_toml_keeps_comments() {
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    let config = home.join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "# my settings\nmodel = \"gpt-5-codex\" # the model\n",
    )
    .unwrap();
    let (code, _, stderr) = install(&scene, &home, &["install", "codex", "--budget-ms", "7000"]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.starts_with("# my settings\nmodel = \"gpt-5-codex\" # the model\n"),
        "{text}"
    );
    assert!(text.contains("--budget-ms 7000"), "{text}");

    let (code, _, _) = install(&scene, &home, &["install", "cursor", "--scope", "project"]);
    assert_eq!(code, 0);
    assert!(scene.project.join(".cursor/hooks.json").exists());

    // Qwen Code: Claude Code's shape, its timeout in milliseconds (at least 1000, which
    // old and new Qwen Code both read as milliseconds).
    let (code, stdout, stderr) = install(&scene, &home, &["install", "qwen-code"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Qwen Code lets the call through"),
        "{stdout}"
    );
    let qwen: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".qwen/settings.json")).unwrap())
            .unwrap();
    let handler = &qwen["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(handler["timeout"], 30000, "{qwen}");
    assert!(
        handler["command"]
            .as_str()
            .unwrap()
            .ends_with("bridge --agent qwen-code"),
        "{qwen}"
    );

    // Kimi Code: `[[hooks]]` tables with only the keys it knows, its comments kept,
    // idempotent, and removed whole by uninstall; it has no project scope.
    let kimi = home.join(".kimi-code/config.toml");
    std::fs::create_dir_all(kimi.parent().unwrap()).unwrap();
    let original = "# my kimi settings\ndefault_model = \"kimi-k2\" # fast\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify-send done\"\n";
    std::fs::write(&kimi, original).unwrap();
    let (code, _, stderr) = install(&scene, &home, &["install", "kimi-code"]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&kimi).unwrap();
    assert!(text.starts_with(original), "{text}");
    let parsed: toml::Table = text.parse().unwrap();
    let hooks = parsed["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 3, "{text}");
    for (table, event) in hooks[1..].iter().zip(["PreToolUse", "UserPromptSubmit"]) {
        let table = table.as_table().unwrap();
        assert_eq!(table["event"].as_str(), Some(event));
        assert_eq!(table["timeout"].as_integer(), Some(30));
        assert!(
            table
                .keys()
                .all(|k| ["event", "matcher", "command", "timeout"].contains(&k.as_str())),
            "{text}"
        );
    }
    let (_, stdout, _) = install(&scene, &home, &["install", "kimi-code"]);
    assert!(stdout.contains("already installed"), "{stdout}");
    let (code, _, _) = install(&scene, &home, &["uninstall", "kimi-code"]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&kimi).unwrap(), original);
    let (code, _, stderr) = install(
        &scene,
        &home,
        &["install", "kimi-code", "--scope", "project"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("Kimi Code has no project settings file"),
        "{stderr}"
    );
}

#[test]
fn install_refuses_a_broken_settings_file_and_leaves_it_untouched() {
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    let settings = home.join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let broken = "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n}\n";
    std::fs::write(&settings, broken).unwrap();
    let (code, stdout, stderr) = install(&scene, &home, &["install", "gemini"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(stderr.contains(settings.to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("line "), "{stderr}");
    assert_eq!(std::fs::read(&settings).unwrap(), broken.as_bytes());
}

/// `install` compiles the config's WASM hooks into the cache itself, so that the agent's
/// first call after it never meets a cold cache (docs/threats.md#n6), and says so.
#[test]
fn install_compiles_the_wasm_hooks_so_the_first_call_meets_a_warm_cache() {
    let scene = Scene::new();
    let wasm = crate::support::plugin(&scene, "no-force-push.wasm");
    config(
        &scene,
        &[pre_hook(
            "no-force-push",
            &[wasm.to_str().unwrap()],
            "tools = [\"bash\"]",
        )],
    );
    let home = scene.root.path().join("home");
    let cold = scene.root.path().join("cold-cache");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&cold).unwrap();
    let hookhost = || {
        let mut cmd = scene.hookhost();
        cmd.env("XDG_CACHE_HOME", &cold)
            .env("HOME", &home)
            .env("PATH", "/usr/bin:/bin");
        cmd
    };
    let (code, stdout, stderr) = run(hookhost().args(["--no-sandbox", "install", "claude-code"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("hookhost's 1 WASM hook(s) are compiled into the cache (")
            && stdout.contains("so the agent's first call starts within its budget."),
        "{stdout}"
    );
    assert!(
        std::fs::read_dir(cold.join("hookhost")).is_ok_and(|mut entries| entries.next().is_some()),
        "the cache is empty after install"
    );
    let payload = with_command(
        sample(&scene, "claude-code/PreToolUse.json"),
        "git push --force origin main",
    );
    let out = crate::support::run_with_stdin(
        hookhost().args(["--no-sandbox", "bridge", "--agent", "claude-code"]),
        payload.to_string().as_bytes(),
    );
    let reason = deny_reason("claude-code", &out);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("blocked by the user's hook \"no-force-push\"")),
        "{out:?}"
    );
}

/// An agent's folder variable that is no absolute path (`~` unexpanded, or relative) names
/// a folder hookhost cannot know the agent reads: install refuses, naming it, and writes
/// nothing (it wrote `./~/.qalt/settings.json`, a registration Qwen Code never read).
#[test]
fn install_refuses_an_agent_folder_variable_that_is_not_an_absolute_path() {
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    for value in ["~/.qalt", "rel/qwen"] {
        let (code, _, stderr) = run(scene
            .hookhost()
            .env("HOME", &home)
            .env("QWEN_HOME", value)
            .current_dir(&scene.project)
            .args(["install", "qwen-code"]));
        assert_eq!(code, 2, "{value}: {stderr}");
        assert!(
            stderr.contains(&format!("QWEN_HOME={value} is not an absolute path")),
            "{stderr}"
        );
        assert!(!scene.project.join("~").exists() && !scene.project.join("rel").exists());
    }
}

/// A skill whose frontmatter hides what its hook runs behind an escape cannot be accepted:
/// `install` says at once that the agent's calls stay refused, naming the file.
#[test]
fn install_says_which_hook_files_it_could_not_accept() {
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let skill = scene.project.join(".claude/skills/fmt/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        "---\nname: fmt\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: \"/bin/sh tools\\x2frun.sh\"\n---\n",
    )
    .unwrap();
    let (code, stdout, stderr) = install(&scene, &home, &["install", "claude-code"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&format!(
            "Still refused after this install: hookhost cannot read {}, a file Claude Code reads hooks from: its frontmatter may declare hooks and holds an escape in a quoted text",
            skill.display()
        )),
        "{stdout}"
    );
}
