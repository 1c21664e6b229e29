//! Pins: install, drift, the calls refused, hookhost's own files.
use super::*;
use crate::bridge::install::{Action, InstallError, Places, plan};

fn request(home: &Path, options: Options) -> Request {
    Request {
        action: Action::Install,
        agent: AgentKind::ClaudeCode,
        scope: Scope::User,
        places: Places::new(home, home.join("p")),
        hookhost: "/usr/local/bin/hookhost".into(),
        options,
    }
}

/// An environment whose home is `home` and whose state lies in `root`.
fn home_env(root: &Path, home: &Path) -> Environment {
    Environment::from_vars(vec![
        ("HOME".into(), home.into()),
        ("XDG_STATE_HOME".into(), root.join("state").into()),
    ])
}

/// Makes a FIFO at `path` (`mkfifo`).
#[cfg(unix)]
fn make_fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(
        made.is_ok_and(|status| status.success()),
        "mkfifo {}",
        path.display()
    );
}

/// A folder of its own holding a home (`home`, not made) and a git repository (`p`), and
/// the environment of a call from there ([`home_env`]).
fn repository() -> (tempfile::TempDir, PathBuf, PathBuf, Environment) {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("p");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let env = home_env(root.path(), &home);
    (root, home, project, env)
}

/// A skill's or subagent's frontmatter declaring one `event` hook that runs `command`.
fn frontmatter(event: &str, command: &str) -> String {
    format!(
        "---\nname: x\ndescription: Formats.\nhooks:\n  {event}:\n    - matcher: \"*\"\n      hooks:\n        - type: command\n          command: \"{command}\"\n---\n\nFormat the code.\n"
    )
}

/// Whether, with `file` written as `text`, `refused` gives one refusal and it names
/// `file` (the file is removed again).
fn refuses_naming(refused: &dyn Fn() -> Vec<String>, file: &Path, text: &str) -> bool {
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
    let found = refused();
    std::fs::remove_file(file).unwrap();
    let named = format!("{} holds a ", file.display());
    let names = found.len() == 1 && found[0].contains(&named);
    if !names {
        eprintln!("{}: {found:#?}", file.display());
    }
    names
}

/// `install AGENT` at user scope for `home`, run in `project`: its file written and its
/// pin saved where `env` keeps pins.
fn installed(agent: AgentKind, home: &Path, project: &Path, env: &Environment) -> (Change, Pin) {
    let request = Request {
        agent,
        places: Places::new(home, project),
        ..request(home, Options::default())
    };
    let change = plan(&request, None).unwrap();
    std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
    std::fs::write(&change.file, change.after.as_deref().unwrap()).unwrap();
    let pin = Pin::of(&change, &request);
    super::pin(&pins_path(env).unwrap(), pin.clone()).unwrap();
    (change, pin)
}

/// R2: `install` over a switched-off file puts the registration back (removes the
/// switch-off) instead of pinning it; a pinned file is never trusted to be on.
#[test]
fn install_removes_every_switch_off_in_its_file_and_pins_never_trust_one() {
    let home = tempfile::tempdir().unwrap();
    let cases: [(AgentKind, &str, &str); 14] = [
        // B8: what the Node agents take as a switch-off, not only `true` and `false`.
        (
            AgentKind::Qwen,
            "{\"disableAllHooks\": 1}",
            "disableAllHooks",
        ),
        (
            AgentKind::ClaudeCode,
            "{\"disableAllHooks\": \"false\", \"model\": \"opus\"}",
            "takes as true",
        ),
        (
            AgentKind::Gemini,
            "{\"hooksConfig\": {\"enabled\": 0}}",
            "may take as false",
        ),
        (
            AgentKind::Gemini,
            "{\"hooksConfig\": {\"disabled\": \"not-hookhost\"}}",
            "may name hookhost",
        ),
        (
            AgentKind::Gemini,
            "{\"hooksConfig\": {\"disabled\": [\"other\", \"${NOPE:-hookhost}\"]}}",
            "may name hookhost",
        ),
        (
            AgentKind::ClaudeCode,
            "{\"disableAllHooks\": true, \"model\": \"opus\"}",
            "disableAllHooks",
        ),
        (
            AgentKind::Qwen,
            "{\"disableAllHooks\": true}",
            "disableAllHooks",
        ),
        // Copilot CLI skips a file's hooks for `true`, and drops a file whose value is no
        // boolean.
        (
            AgentKind::Copilot,
            "{\"disableAllHooks\": true, \"model\": \"opus\"}",
            "\"disableAllHooks\": true",
        ),
        (
            AgentKind::Copilot,
            "{\"disableAllHooks\": \"no\"}",
            "not a boolean",
        ),
        (
            AgentKind::Gemini,
            "{\"hooksConfig\": {\"enabled\": false}}",
            "hooksConfig",
        ),
        (
            AgentKind::Gemini,
            "{\"hooksConfig\": {\"disabled\": [\"hookhost\", \"other\"]}}",
            "hooksConfig",
        ),
        (
            AgentKind::Codex,
            "[features]\nhooks = false\nweb = true\n",
            "[features] hooks = false",
        ),
        // A profile's features apply over the top-level ones (the config's `profile`
        // selects it).
        (
            AgentKind::Codex,
            "profile = \"q\"\n\n[profiles.q]\nmodel = \"opus\"\n\n[profiles.q.features]\nhooks = false\nweb = true\n",
            "[profiles.",
        ),
        (
            AgentKind::Codex,
            "profile = \"other\"\n[profiles.other.features]\ncodex_hooks = false\n",
            "[profiles.",
        ),
    ];
    for (agent, before, key) in cases {
        assert!(
            switches_hooks_off(agent, before).is_some_and(|k| k.contains(key)),
            "{agent:?}: {before}"
        );
        let mut request = request(home.path(), Options::default());
        request.agent = agent;
        let change = plan(&request, Some(before)).unwrap();
        let after = change.after.clone().unwrap();
        assert_eq!(
            switches_hooks_off(agent, &after),
            None,
            "{agent:?}: {after}"
        );
        // The user's other settings stay.
        for kept in ["opus", "other", "web = true"] {
            if before.contains(kept) {
                assert!(after.contains(kept), "{agent:?} lost {kept}: {after}");
            }
        }
        // A pin of the switched-off text itself still reports it.
        std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
        std::fs::write(&change.file, before).unwrap();
        let mut pinned = change.clone();
        pinned.after = Some(before.to_string());
        let pin = Pin::of(&pinned, &request);
        assert!(
            matches!(pin.drift(None), Some(Drift::SwitchedOff(_))),
            "{agent:?}"
        );
        std::fs::remove_file(&change.file).unwrap();
    }
    // A profile without hooks that the config does not select is the user's to choose
    // with `--profile`: not a switch-off, and install leaves it.
    let kept = "[profiles.nohooks.features]\nhooks = false\n";
    assert_eq!(switches_hooks_off(AgentKind::Codex, kept), None);
    // Codex's per-handler switch (as `/hooks` writes it) is seen and removed.
    let mut request = request(home.path(), Options::default());
    request.agent = AgentKind::Codex;
    let file =
        crate::bridge::install::settings_file(AgentKind::Codex, Scope::User, &request.places)
            .unwrap();
    let text = format!(
        "[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\ntrusted_hash = \"sha256:x\"\n",
        file.display()
    );
    assert!(switches_hooks_off(AgentKind::Codex, &text).is_some());
    let after = plan(&request, Some(&text)).unwrap().after.unwrap();
    assert_eq!(
        switches_hooks_off(AgentKind::Codex, &after),
        None,
        "{after}"
    );
    assert!(after.contains("trusted_hash"), "{after}");
}

/// A project's own settings that switch the agent's hooks off deny its calls.
#[test]
fn a_project_switch_off_is_reported() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("p/sub");
    std::fs::create_dir_all(root.path().join("p/.claude")).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    assert!(project_switch_offs(AgentKind::ClaudeCode, &project).is_empty());
    std::fs::write(
        root.path().join("p/.claude/settings.local.json"),
        "{\"disableAllHooks\": true}",
    )
    .unwrap();
    let found = project_switch_offs(AgentKind::ClaudeCode, &project);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("settings.local.json sets \"disableAllHooks\": true"),
        "{found:?}"
    );
    assert!(project_switch_offs(AgentKind::Gemini, &project).is_empty());
}

#[test]
fn a_pin_finds_removal_weakening_and_ignores_other_edits() {
    let home = tempfile::tempdir().unwrap();
    let request = request(
        home.path(),
        Options {
            claude_on_failure_block: true,
            ..Options::default()
        },
    );
    let change = plan(&request, Some("{\"model\": \"opus\"}")).unwrap();
    let text = change.after.clone().unwrap();
    std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
    std::fs::write(&change.file, &text).unwrap();
    let pin = Pin::of(&change, &request);
    assert_eq!(pin.drift(None), None);

    // The user's own edit elsewhere in the file is not drift.
    std::fs::write(&change.file, text.replace("opus", "sonnet")).unwrap();
    assert_eq!(pin.drift(None), None);

    let mut weakened: serde_json::Value = serde_json::from_str(&text).unwrap();
    for (_, groups) in weakened["hooks"].as_object_mut().unwrap() {
        for group in groups.as_array_mut().unwrap() {
            for handler in group["hooks"].as_array_mut().unwrap() {
                assert!(
                    handler
                        .as_object_mut()
                        .unwrap()
                        .remove("onFailure")
                        .is_some()
                );
            }
        }
    }
    std::fs::write(&change.file, weakened.to_string()).unwrap();
    assert_eq!(pin.drift(None), Some(Drift::Weakened));
    assert!(pin.drift_message(&Drift::Weakened).contains("onFailure"));

    std::fs::write(&change.file, "{\"model\": \"opus\"}").unwrap();
    assert_eq!(pin.drift(None), Some(Drift::Removed));
    std::fs::remove_file(&change.file).unwrap();
    assert_eq!(pin.drift(None), Some(Drift::Removed));
    std::fs::write(&change.file, "{ not json").unwrap();
    assert!(matches!(pin.drift(None), Some(Drift::Unreadable(_))));

    // A thread keeps what the last few files gave (`crate::recent`): each text back in
    // its file gives what it gave the first time, whatever was read in between.
    for _ in 0..2 {
        std::fs::write(&change.file, &text).unwrap();
        assert_eq!(pin.drift(None), None);
        std::fs::write(&change.file, weakened.to_string()).unwrap();
        assert_eq!(pin.drift(None), Some(Drift::Weakened));
        // The same bytes, checked anew for another pin: one that did not write them.
        let mut other = pin.clone();
        other.digest = "sha256:0".into();
        other.claude_on_failure_block = false;
        std::fs::write(&change.file, &text).unwrap();
        assert_eq!(other.drift(None), Some(Drift::Weakened));
        assert_eq!(pin.drift(None), None);
        std::fs::write(&change.file, "{\"model\": \"opus\"}").unwrap();
        assert_eq!(pin.drift(None), Some(Drift::Removed));
    }
}

#[test]
fn pins_are_kept_replaced_and_removed_per_agent_and_file() {
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("hookhost/pins.json");
    let request = request(state.path(), Options::default());
    let change = plan(&request, None).unwrap();
    pin(&path, Pin::of(&change, &request)).unwrap();
    pin(&path, Pin::of(&change, &request)).unwrap();
    assert_eq!(load(&path).unwrap().len(), 1);
    unpin(&path, AgentKind::ClaudeCode, &change.file).unwrap();
    assert!(load(&path).unwrap().is_empty());
    std::fs::write(&path, "[]").unwrap();
    assert!(matches!(load(&path), Err(PinError::Malformed { .. })));
    // A bridged call never fails open on pins it cannot read: that is itself drift.
    let env = Environment::from_vars(vec![("XDG_STATE_HOME".into(), state.path().into())]);
    let drift = drifted(&env, AgentKind::ClaudeCode, None, None);
    assert_eq!(drift.len(), 1);
    assert!(
        drift[0]
            .starts_with("hookhost cannot read its pinned registrations, so it blocks this call: "),
        "{drift:?}"
    );
}

#[test]
fn a_settings_change_that_switches_every_hook_off_is_refused() {
    let state = tempfile::tempdir().unwrap();
    let env = Environment::from_vars(vec![("XDG_STATE_HOME".into(), state.path().into())]);
    let local = state.path().join("settings.local.json");
    std::fs::write(&local, "{\"model\": \"opus\"}").unwrap();
    // No pin covers Claude Code, though its hook was called: the pins were removed.
    let refused = refused_change(&env, AgentKind::ClaudeCode, None, Some(&local));
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].starts_with("Claude Code called hookhost's settings-change hook, so hookhost is registered, but no pin covers it ("),
        "{refused:?}"
    );
    let request = request(state.path(), Options::default());
    let change = plan(&request, None).unwrap();
    pin(&pins_path(&env).unwrap(), Pin::of(&change, &request)).unwrap();
    std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
    std::fs::write(&change.file, change.after.as_deref().unwrap()).unwrap();
    std::fs::write(&local, "{\"disableAllHooks\": true}").unwrap();
    let refused = refused_change(&env, AgentKind::ClaudeCode, None, Some(&local));
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0].contains("now sets \"disableAllHooks\": true"),
        "{refused:?}"
    );
    std::fs::write(&local, "{\"model\": \"opus\"}").unwrap();
    assert!(refused_change(&env, AgentKind::ClaudeCode, None, Some(&local)).is_empty());
    // Codex's switch, in its TOML.
    let codex = state.path().join("config.toml");
    std::fs::write(&codex, "[features]\nhooks = false\n").unwrap();
    assert_eq!(
        switches_hooks_off(AgentKind::Codex, &std::fs::read_to_string(&codex).unwrap()),
        Some("[features] hooks = false")
    );
}

/// hookhost's config is pinned with the registration: the call that loads it changed,
/// moved, or with no config pin at all is refused (docs/threats.md#r5); a registration
/// with no pin is refused (docs/threats.md#n8).
#[test]
fn a_call_is_refused_for_a_changed_config_and_for_a_registration_without_a_pin() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let state = root.path().join("state");
    let env = Environment::from_vars(vec![
        ("HOME".into(), home.clone().into()),
        ("XDG_STATE_HOME".into(), state.clone().into()),
    ]);
    let config = root.path().join("config.toml");
    std::fs::write(
        &config,
        "[[hooks]]\nname = \"marker\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\n",
    )
    .unwrap();
    let request = request(&home, Options::default());
    let change = plan(&request, None).unwrap();
    std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
    std::fs::write(&change.file, change.after.as_deref().unwrap()).unwrap();
    let hookhost = Path::new("/usr/local/bin/hookhost");
    let refuse = || {
        refused_call(
            &env,
            AgentKind::ClaudeCode,
            None,
            (None, None),
            Some(&config),
            hookhost,
        )
    };

    // Registered, and no pin: refused, naming the file and the fix.
    let refused = refuse();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].starts_with(&format!(
            "hookhost is registered with Claude Code in {}, but no pin covers it",
            change.file.display()
        )),
        "{refused:?}"
    );
    // A pin with no config pin (an older hookhost's) is refused too.
    let pins = pins_path(&env).unwrap();
    pin(&pins, Pin::of(&change, &request)).unwrap();
    assert!(refuse()[0].contains("holds no digest of hookhost's config"));

    let now = ConfigPin::now(&config, &env).unwrap();
    assert_eq!(now.contents(), "1 hook: marker");
    pin(
        &pins,
        Pin::of(&change, &request).with_own_files(Some(now.clone())),
    )
    .unwrap();
    assert_eq!(refuse(), Vec::<String>::new());

    std::fs::write(&config, "").unwrap();
    let refused = refuse();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].starts_with(&format!(
            "hookhost's config {} changed since `hookhost install claude-code` pinned it (1 hook: marker then, no hooks now)",
            config.display()
        )),
        "{refused:?}"
    );
    let emptied = ConfigPin::now(&config, &env).unwrap();
    assert_eq!(
        now.change_to(&emptied).unwrap(),
        format!(
            "hookhost's config {} changed since it was pinned: 1 hook: marker then, no hooks now (hooks removed: marker; added: none).",
            config.display()
        )
    );
    // Another config than the pinned one.
    let other = root.path().join("other.toml");
    let refused = refused_call(
        &env,
        AgentKind::ClaudeCode,
        None,
        (None, None),
        Some(&other),
        hookhost,
    );
    assert!(
        refused[0].starts_with(&format!(
            "this call loads hookhost's config from {}, but `hookhost install claude-code` pinned {}",
            other.display(),
            config.display()
        )),
        "{refused:?}"
    );
}

/// R7: one `[[hooks]]` table that Kimi Code's strict schema refuses (a key it does not
/// know, an unknown event, a bad command or timeout), the user's own included, drops the
/// whole section; install's own tables pass, and install refuses to register (and pin)
/// into a file Kimi Code would ignore.
#[test]
fn a_kimi_table_its_schema_refuses_switches_its_hooks_off_and_install_says_so() {
    let home = tempfile::tempdir().unwrap();
    let mut request = request(home.path(), Options::default());
    request.agent = AgentKind::Kimi;
    let ours = plan(&request, None).unwrap().after.unwrap();
    assert_eq!(switches_hooks_off(AgentKind::Kimi, &ours), None, "{ours}");
    let valid = "[[hooks]]\nevent = \"Stop\"\ncommand = \"true\"\ntimeout = 600\nmatcher = \"x\"\n";
    assert_eq!(switches_hooks_off(AgentKind::Kimi, valid), None);
    let refused = [
        (
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"true\"\nfail_mode = \"closed\"\n",
            "a key the agent does not know",
        ),
        (
            "[[hooks]]\nevent = \"BeforeTool\"\ncommand = \"true\"\n",
            "one the agent does not know",
        ),
        ("[[hooks]]\ncommand = \"true\"\n", "no event"),
        (
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"\"\n",
            "command or matcher",
        ),
        (
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"true\"\ntimeout = 601\n",
            "timeout",
        ),
        (
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"true\"\ntimeout = 1.5\n",
            "timeout",
        ),
        ("hooks = 3\n", "not [[hooks]] tables"),
        // smol-toml refuses the whole file over one integer a JavaScript number cannot
        // hold: Kimi Code then reads no config (seen with the real program).
        (
            "[raw]\nbig = 9007199254740993\n",
            "an integer beyond 2^53 - 1",
        ),
        (
            "x = [{ y = -9007199254740992 }]\n",
            "an integer beyond 2^53 - 1",
        ),
    ];
    assert_eq!(
        switches_hooks_off(
            AgentKind::Kimi,
            "big = 9007199254740991\nsmall = -9007199254740991\n"
        ),
        None
    );
    for (table, why) in refused {
        assert!(
            switches_hooks_off(AgentKind::Kimi, table).is_some_and(|k| k.contains(why)),
            "{table}: {:?}",
            switches_hooks_off(AgentKind::Kimi, table)
        );
    }
    // install over a file with such a table: refused, naming the file and the fix.
    let file = crate::bridge::install::settings_file(AgentKind::Kimi, Scope::User, &request.places)
        .unwrap();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, refused[0].0).unwrap();
    let error = crate::bridge::install::run(&request, false)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!(
            "{}: it has a [[hooks]] table with a key",
            file.display()
        )) && error
            .ends_with("fix or remove that entry, then run `hookhost install kimi-code` again"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), refused[0].0);
    // A pinned registration whose file gains such a table has drifted: switched off.
    std::fs::write(&file, &ours).unwrap();
    let change = plan(&request, Some(&ours)).unwrap();
    let pin = Pin::of(&change, &request);
    assert_eq!(pin.drift(None), None);
    std::fs::write(&file, format!("{ours}\n{}", refused[0].0)).unwrap();
    assert!(
        matches!(pin.drift(None), Some(Drift::SwitchedOff(key)) if key.contains("drop its whole hooks section")),
        "{:?}",
        pin.drift(None)
    );
    let message = pin.drift_message(&pin.drift(None).unwrap());
    assert!(
        message.contains("If you changed it, fix or remove that entry, then run `hookhost install kimi-code` to restore"),
        "{message}"
    );
}

/// The warm server a registration hands its calls to is pinned: the pins file keeps it,
/// a pin from before it (no `warm` key) means none, and adding, removing or moving the
/// flag in the settings file is drift.
#[test]
fn the_warm_choice_is_pinned_and_a_changed_flag_is_drift() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("state/hookhost/pins.json");
    for warm in [
        None,
        Some(WarmSocket::Default),
        Some(WarmSocket::At("/run/user/1000/w.sock".into())),
    ] {
        let request = request(
            home.path(),
            Options {
                warm: warm.clone(),
                ..Options::default()
            },
        );
        let change = plan(&request, None).unwrap();
        let pin_made = Pin::of(&change, &request);
        assert_eq!(pin_made.warm, warm);
        assert_eq!(pin_made.options().warm, warm);
        pin(&path, pin_made.clone()).unwrap();
        let loaded = load(&path).unwrap();
        assert_eq!(loaded, vec![pin_made], "{warm:?}");
    }
    // The text of each: no key for none (an older hookhost's pins read the same).
    let text = |warm: Option<WarmSocket>| {
        let request = request(
            home.path(),
            Options {
                warm,
                ..Options::default()
            },
        );
        let change = plan(&request, None).unwrap();
        serde_json::to_value(Pin::of(&change, &request)).unwrap()
    };
    assert!(text(None).get("warm").is_none());
    assert_eq!(text(Some(WarmSocket::Default))["warm"], "default");
    assert_eq!(
        text(Some(WarmSocket::At("/run/w.sock".into())))["warm"]["at"],
        "/run/w.sock"
    );
    let mut old = text(None);
    old.as_object_mut().unwrap().remove("warm");
    let old: Pin = serde_json::from_value(old).unwrap();
    assert_eq!(old.warm, None);

    // Drift: the flag taken away, added, or pointed elsewhere.
    let plan_with = |warm: Option<WarmSocket>| {
        let request = request(
            home.path(),
            Options {
                warm,
                ..Options::default()
            },
        );
        (plan(&request, None).unwrap(), request)
    };
    let (warm_change, warm_request) = plan_with(Some(WarmSocket::Default));
    let warm_pin = Pin::of(&warm_change, &warm_request);
    let warm_text = warm_change.after.clone().unwrap();
    assert!(
        warm_text.contains("bridge --agent claude-code --warm\""),
        "{warm_text}"
    );
    std::fs::create_dir_all(warm_change.file.parent().unwrap()).unwrap();
    std::fs::write(&warm_change.file, &warm_text).unwrap();
    assert_eq!(warm_pin.drift(None), None);
    std::fs::write(&warm_change.file, warm_text.replace(" --warm\"", "\"")).unwrap();
    assert_eq!(warm_pin.drift(None), Some(Drift::Weakened));
    std::fs::write(
        &warm_change.file,
        warm_text.replace(" --warm\"", " --warm-socket /tmp/w.sock\""),
    )
    .unwrap();
    assert_eq!(warm_pin.drift(None), Some(Drift::Weakened));

    let (plain_change, plain_request) = plan_with(None);
    let plain_pin = Pin::of(&plain_change, &plain_request);
    let plain_text = plain_change.after.clone().unwrap();
    std::fs::write(&plain_change.file, &plain_text).unwrap();
    assert_eq!(plain_pin.drift(None), None);
    std::fs::write(
        &plain_change.file,
        plain_text.replace("claude-code\"", "claude-code --warm\""),
    )
    .unwrap();
    assert_eq!(plain_pin.drift(None), Some(Drift::Weakened));
}

/// A hook file whose stamp moved while its bytes did not (a `chmod`, a new hard link) is
/// as pinned; a process hashes it once per stamp, not on each check, and still finds an
/// edit made after. (Unix: a `chmod` moves no stamp of a Windows file.)
#[cfg(unix)]
#[test]
fn a_hook_file_whose_stamp_moved_is_hashed_once_per_stamp_and_an_edit_still_shows() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("hook.sh");
    std::fs::write(&file, "#!/bin/sh\nexit 0\n").unwrap();
    let stamp =
        |file: &Path| crate::platform::sys::files::change_stamp(&std::fs::metadata(file).unwrap());
    let pinned = own_files::HookFilePin {
        hook: "h".into(),
        file: file.clone(),
        digest: file_digest(&file).unwrap(),
        stamp: stamp(&file),
    };
    assert_eq!((pinned.problem(), pinned.stamp_moved()), (None, None));
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert_ne!(stamp(&file), pinned.stamp);
    assert_eq!(pinned.problem(), None);
    assert_eq!(pinned.stamp_moved(), Some(17));
    assert_eq!(
        crate::file_digests::learned(&file, stamp(&file)),
        crate::file_digests::parse(&pinned.digest),
        "the hash is remembered"
    );
    // An edit moves the stamp again: hashed, and refused.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&file, "#!/bin/sh\nexit 1\n").unwrap();
    assert_eq!(pinned.problem(), Some("changed"));
}

/// B8: the settings are read as the agents read them. Gemini CLI and Qwen Code strip
/// comments (strip-json-comments: none inside strings, an escaped quote does not end
/// one, an unclosed block runs to the end) and Qwen Code a byte-order mark, so a
/// switch-off behind a comment is one; a text that still does not parse (or a TOML file
/// malformed or nested past the bound) is one hookhost cannot read, with the parser's
/// words, never "no switch-off".
#[test]
fn settings_are_read_as_the_agents_read_them_and_what_cannot_be_is_said() {
    use switch_offs::examine;
    let gemini_off = Ok(Some("\"hooksConfig\": {\"enabled\": false}"));
    for text in [
        "// the agent's\n{\"hooksConfig\": /* off */ {\"enabled\": false}}",
        "{\"hooksConfig\": {\"enabled\": false}} // trailing\r\n",
        "{\"hooksConfig\": {\"enabled\": false}} /* unclosed",
        "\u{feff}{\"hooksConfig\":{\"enabled\":false}}",
        "{\"a\": \"http://x /* not */\", \"b\": \"\\\"//\", \"hooksConfig\": {\"enabled\": false}}",
    ] {
        assert_eq!(examine(AgentKind::Gemini, text), gemini_off, "{text}");
    }
    // Inside a string a comment is text, and a switch-off there is the string's, not a
    // key; after a string that ends in an escaped backslash, a comment is one.
    let quoted = "{\"a\": \"// \\\\\", \"b\": \"\\\"hooksConfig\\\": {\\\"enabled\\\": false}\"}";
    assert_eq!(examine(AgentKind::Gemini, quoted), Ok(None), "{quoted}");
    let after_escape = "{\"a\": \"\\\\\" /* \" */, \"hooksConfig\": {\"enabled\": false}}";
    assert_eq!(
        examine(AgentKind::Gemini, after_escape),
        gemini_off,
        "{after_escape}"
    );
    for text in [
        "{\"hooksConfig\": {\"enabled\": false}} /*/ still a comment */",
        "{\"hooksConfig\": /* é 😀\r\n */ {\"enabled\": false}}",
    ] {
        assert_eq!(examine(AgentKind::Gemini, text), gemini_off, "{text}");
    }
    // A lone `/` is no comment: JSON.parse refuses it too.
    let slash = examine(
        AgentKind::Gemini,
        "{\"hooksConfig\": {\"enabled\": false}}/",
    );
    assert!(
        slash.as_ref().is_err_and(|e| e.contains("malformed")),
        "{slash:?}"
    );
    assert_eq!(
        examine(
            AgentKind::Qwen,
            "\u{feff}{\"disableAllHooks\": true // off\n}"
        ),
        Ok(Some("\"disableAllHooks\": true"))
    );
    // Positions in errors are the file's: a comment keeps its line ends.
    let unreadable = [
        (
            AgentKind::ClaudeCode,
            "{\"note\": \"\\ud800\", \"disableAllHooks\": true}",
            "it is malformed JSON (comments aside): unexpected end of hex escape at line 1 column 17",
        ),
        (
            AgentKind::ClaudeCode,
            "/* one\ntwo */ {\"disableAllHooks\": 1e999}",
            "it is malformed JSON (comments aside): number out of range at line 2 column",
        ),
        (
            AgentKind::Gemini,
            "{\"hooksConfig\": {\"enabled\": false},}",
            "it is malformed JSON (comments aside): trailing comma at line 1 column 36",
        ),
        (
            AgentKind::Codex,
            "[features]\nhooks = false\nhooks = true\n",
            "it is TOML hookhost cannot parse, at line 3, column 1: duplicate key",
        ),
        (
            AgentKind::Kimi,
            &format!("x = {}1{}\n", "[".repeat(70), "]".repeat(70)),
            "it has tables and arrays nested more than 64 levels deep (line 1), more than hookhost reads",
        ),
    ];
    for (agent, text, why) in unreadable {
        let examined = examine(agent, text);
        assert!(
            examined.as_ref().is_err_and(|e| e.starts_with(why)),
            "{agent:?} {text}: {examined:?}"
        );
        assert_eq!(switches_hooks_off(agent, text), None);
    }
    // TOML 1.1, which Codex reads (a multi-line inline table with a trailing comma, as
    // `mcp_servers` entries are often written): the switch-off after it is seen.
    assert_eq!(
        examine(
            AgentKind::Codex,
            "[x]\ny = { a = 1,\n  b = 2,\n}\n[features]\nhooks = false\n"
        ),
        Ok(Some("[features] hooks = false"))
    );
    // An agent with no switch-off reads nothing; a blank file, or one of comments only,
    // holds no setting.
    assert_eq!(examine(AgentKind::Cursor, "not json"), Ok(None));
    for blank in ["", " \n", "\u{feff}", "// nothing yet\n/* at all */"] {
        assert_eq!(examine(AgentKind::ClaudeCode, blank), Ok(None), "{blank:?}");
    }
    // What the agents take as false, or as hooks left on, is no switch-off.
    for text in [
        "{\"disableAllHooks\": 0}",
        "{\"disableAllHooks\": \"\"}",
        "{\"disableAllHooks\": null}",
        "{\"disableAllHooks\": false}",
    ] {
        assert_eq!(examine(AgentKind::Qwen, text), Ok(None), "{text}");
    }
    for text in [
        "{\"hooksConfig\": {\"enabled\": true, \"disabled\": [\"other\"]}}",
        "{\"hooksConfig\": {\"disabled\": \"other\"}}",
        // A user's own hook disabled by its command (Gemini CLI's docs spell them so):
        // no expansion of it can be hookhost's name.
        "{\"hooksConfig\": {\"disabled\": [\"$GEMINI_PROJECT_DIR/.gemini/hooks/log.sh\"]}}",
        "{\"hooksConfig\": {\"disabled\": [\"${HOME}/x\", \"hook\", \"hookhost-old\"]}}",
    ] {
        assert_eq!(examine(AgentKind::Gemini, text), Ok(None), "{text}");
    }
    // One name an expansion may make is one.
    for text in [
        "{\"hooksConfig\": {\"disabled\": [\"hook$X\"]}}",
        "{\"hooksConfig\": {\"disabled\": [\"${A}o${B}t\"]}}",
        "{\"hooksConfig\": false}",
        "{\"hooksConfig\": {\"disabled\": \"$X\"}}",
    ] {
        assert!(
            examine(AgentKind::Gemini, text).is_ok_and(|k| k.is_some()),
            "{text}"
        );
    }
}

/// B8: a file the plan cannot read is taken for a registration when it names hookhost,
/// however spelled: escaped (`\u0068`, `\U00000068`), in another case, by its path.
#[test]
fn a_registration_is_recognised_however_its_name_is_escaped() {
    let binary = Path::new("/home/u/.cargo/bin/hh");
    for text in [
        "{\"command\": \"/usr/bin/\\u0068ookhost bridge\"}",
        "command = \"/usr/bin/\\U00000068ookhost bridge\"",
        "{\"command\": \"C:\\\\Tools\\\\HOOKHOST.EXE bridge\"}",
        "{\"command\": \"/home/u/.cargo/bin/\\u0068h bridge\"}",
    ] {
        assert!(names_binary(text, binary), "{text}");
    }
    for text in [
        "{\"command\": \"/usr/bin/other bridge\"}",
        "\\u00",
        "\\",
        "\\U0011ffff",
    ] {
        assert!(!names_binary(text, binary), "{text}");
    }
}

/// B9: only a regular file is hashed for a pin: a FIFO (no writer: an open that blocked
/// for good) and `/dev/zero` (no end) are errors at once, as a file past the cap is.
#[test]
fn a_pinned_file_without_end_is_not_hashed() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    make_fifo(&fifo);
    let zero = dir.path().join("zero");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for path in [&fifo, &zero] {
        let err = file_digest(path).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }
    let sparse = dir.path().join("sparse");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(crate::access::caps::DIGESTED + 1)
        .unwrap();
    let err = file_digest(&sparse).unwrap_err();
    assert!(err.to_string().contains("larger than 1 GiB"), "{err}");
}

/// Qwen Code's modes without hooks, switched on in a settings file (its `env` object, its
/// shell sandbox), are switch-offs; values that leave them off are not. `install` does not
/// take them out (they are the user's modes): it refuses to register behind one, naming it.
#[test]
fn a_setting_that_starts_a_mode_without_hooks_is_a_switch_off_install_names() {
    let off = [
        ("{\"env\": {\"QWEN_CODE_SIMPLE\": \"1\"}}", "its bare mode"),
        (
            "{\"env\": {\"QWEN_CODE_SAFE_MODE\": \" On \"}}",
            "its safe mode",
        ),
        (
            "{\"tools\": {\"executionSandbox\": {\"backend\": \"auto\"}}}",
            "its shell sandbox",
        ),
    ];
    for (text, mode) in off {
        assert!(
            switches_hooks_off(AgentKind::Qwen, text)
                .is_some_and(|k| k.ends_with(&format!("({mode})"))),
            "{text}"
        );
    }
    for text in [
        "{\"env\": {\"QWEN_CODE_SIMPLE\": \"0\", \"OTHER\": \"1\"}}",
        "{\"tools\": {\"executionSandbox\": null}}",
        "{\"env\": \"QWEN_CODE_SIMPLE=1\"}",
        // Qwen Code takes string values only into its environment.
        "{\"env\": {\"QWEN_CODE_SIMPLE\": true}}",
    ] {
        assert_eq!(switches_hooks_off(AgentKind::Qwen, text), None, "{text}");
    }
    assert_eq!(
        switches_hooks_off(AgentKind::ClaudeCode, off[0].0),
        None,
        "another agent's variables"
    );
    let home = tempfile::tempdir().unwrap();
    let mut request = request(home.path(), Options::default());
    request.agent = AgentKind::Qwen;
    let file = super::super::settings_file(request.agent, request.scope, &request.places).unwrap();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, off[0].0).unwrap();
    match super::super::run(&request, true) {
        Err(InstallError::StillSwitchedOff { key, .. }) => {
            assert!(key.contains("QWEN_CODE_SIMPLE"), "{key}")
        }
        other => panic!("{other:?}"),
    }
}

/// What a call refuses in `project` once its `.claude/settings.json` holds `text`, judged
/// by `pins` (the project's settings files alone).
fn claude_project_refusals(project: &Path, pins: &[&Pin], text: &str) -> Vec<String> {
    std::fs::write(project.join(".claude/settings.json"), text).unwrap();
    rewriting::in_files(
        AgentKind::ClaudeCode,
        &switch_offs::read_project_files(AgentKind::ClaudeCode, project, |_| None),
        pins,
        None,
    )
}

/// R14: a hook that may rewrite a call, other than hookhost's, is accepted when `install`
/// finds it (in the file it writes and the project's settings); one added since, to the
/// pinned file or to a project's, is a drift or a refusal; a handler that only looks like
/// hookhost's is another hook; agents whose hooks cannot rewrite a call are not asked.
#[test]
fn a_hook_that_may_rewrite_a_call_is_refused_unless_install_accepted_it() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("p");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let team = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "team-lint"}]}]}}"#;
    std::fs::write(project.join(".claude/settings.json"), team).unwrap();
    let request = request(home.path(), Options::default());
    let change = plan(&request, None).unwrap();
    let ours = change.registration.command_line.clone();
    let pin = Pin::of(&change, &request);
    let accepted = pin.accepted_hooks.clone().unwrap();
    assert_eq!(accepted.len(), 1, "{accepted:?}");
    let after = change.after.clone().unwrap();
    std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
    std::fs::write(&change.file, &after).unwrap();
    assert_eq!(pin.drift(None), None);
    let covering = [&pin];
    let files = |text: &str| claude_project_refusals(&project, &covering, text);
    // The team's hook, accepted; another, or a look-alike of hookhost's, refused.
    assert!(files(team).is_empty());
    let evil = r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/bin/sh fmt.sh"}]}]}}"#;
    let refused = files(evil);
    assert!(
        refused.len() == 1
            && refused[0].contains(
                "holds a PreToolUse hook that hookhost's `install` did not see (/bin/sh fmt.sh)"
            ),
        "{refused:?}"
    );
    let look_alike = format!(
        r#"{{"hooks": {{"PermissionRequest": [{{"hooks": [{{"type": "command", "command": "{ours}; /bin/sh fmt.sh"}}]}}]}}}}"#
    );
    assert_eq!(files(&look_alike).len(), 1);
    // hookhost's command in a handler that runs something else: an `http` hook, a command
    // run with `args`.
    for other in [
        format!(r#"{{"type": "http", "url": "http://127.0.0.1:8/x", "command": "{ours}"}}"#),
        format!(r#"{{"type": "command", "command": "{ours}", "args": []}}"#),
    ] {
        let text = format!(r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{other}]}}]}}}}"#);
        assert_eq!(files(&text).len(), 1, "{other}");
    }
    let timeout = change.registration.timeout;
    let exactly_ours = format!(
        r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{{"type": "command", "command": "{ours}", "timeout": {timeout}}}]}}]}}}}"#
    );
    assert!(files(&exactly_ours).is_empty());
    // Without its timeout it runs with the agent's default: another hook.
    let untimed = format!(
        r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{{"type": "command", "command": "{ours}"}}]}}]}}}}"#
    );
    assert_eq!(files(&untimed).len(), 1);
    // A copy with a shorter timeout (the agent runs identical commands once: it could time
    // out into a call let through) is another hook.
    let shorter = format!(
        r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{{"type": "command", "command": "{ours}", "timeout": 1}}]}}]}}}}"#
    );
    assert_eq!(files(&shorter).len(), 1);
    // The pinned file gains one: its drift names it.
    let mut settings: serde_json::Value = serde_json::from_str(&after).unwrap();
    settings["hooks"]["PreToolUse"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"matcher": "*", "hooks": [{"type": "command", "command": "/bin/sh evil.sh"}]}));
    std::fs::write(&change.file, settings.to_string()).unwrap();
    let drift = pin.drift(None);
    assert!(
        matches!(&drift, Some(Drift::Rewriting(hook)) if hook.what == "/bin/sh evil.sh"),
        "{drift:?}"
    );
    assert!(
        pin.drift_message(&drift.unwrap())
            .ends_with("if you trust it, run `hookhost install claude-code` again to accept it.")
    );
    // A pin made before hookhost looked for them accepts none.
    let old = Pin {
        accepted_hooks: None,
        ..pin.clone()
    };
    assert_eq!(files(team).len(), 0, "the new pin");
    assert_eq!(
        rewriting::in_files(
            AgentKind::ClaudeCode,
            &switch_offs::read_project_files(AgentKind::ClaudeCode, &project, |_| None),
            &[&old],
            None,
        )
        .len(),
        1
    );
    // Kimi Code's hooks cannot rewrite a call: none looked for.
    assert_eq!(
        rewriting::other_hooks(
            AgentKind::Kimi,
            Path::new("/c.toml"),
            "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"x\"\n",
            &[],
            None
        )
        .unwrap(),
        Vec::new()
    );
    // Codex's TOML tables, hookhost's handler left out by its exact command.
    let codex = "[[hooks.PreToolUse]]\nmatcher = \"*\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/usr/local/bin/hookhost bridge --agent codex\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/bin/sh fmt.sh\"\n";
    let found = rewriting::other_hooks(
        AgentKind::Codex,
        Path::new("/c.toml"),
        codex,
        &[rewriting::Ours::command_line(
            "/usr/local/bin/hookhost bridge --agent codex",
        )],
        None,
    )
    .unwrap();
    assert_eq!(
        found.iter().map(|h| h.what.as_str()).collect::<Vec<_>>(),
        ["/bin/sh fmt.sh"]
    );
    // Codex's `hooks.json` beside it: the same tables, in JSON.
    let json = r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/bin/sh fmt.sh"}]}]}}"#;
    let found = rewriting::other_hooks(AgentKind::Codex, Path::new("/hooks.json"), json, &[], None)
        .unwrap();
    assert_eq!(found.len(), 1);
}

/// R14: a hook's digest names its file as its links lead, so `install` in a project and a
/// call that reaches it through a link (or `..`) accept the same hook.
#[cfg(unix)]
#[test]
fn a_hook_reached_by_another_spelling_of_its_file_is_the_same_hook() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::os::unix::fs::symlink(&project, dir.path().join("link")).unwrap();
    let text =
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "team-lint"}]}]}}"#;
    std::fs::write(project.join(".claude/settings.json"), text).unwrap();
    let digest_at = |file: PathBuf| {
        rewriting::other_hooks(AgentKind::ClaudeCode, &file, text, &[], None).unwrap()[0]
            .digest
            .clone()
    };
    let real = digest_at(project.join(".claude/settings.json"));
    assert_eq!(
        digest_at(dir.path().join("link/.claude/settings.json")),
        real
    );
    assert_eq!(digest_at(project.join("../p/.claude/settings.json")), real);
}

/// R14, Copilot CLI: every hook file it loads may rewrite a call (`modifiedArgs`): the
/// user's folder of hook files and `settings.json`, and the repository's at its root
/// (from a folder below it too). `install` accepts those there are; another, a look-alike
/// of hookhost's handler, or a file hookhost cannot read refuses the call; hookhost's own
/// handler (its program and arguments) in another file does not.
#[test]
fn every_hook_file_copilot_loads_is_checked_for_hooks_that_may_rewrite_a_call() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("p");
    let below = project.join("sub");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(&below).unwrap();
    let hooks = home.join(".copilot/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let env = home_env(root.path(), &home);
    let team = r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "team-lint", "timeoutSec": 5}]}}"#;
    std::fs::write(hooks.join("team.json"), team).unwrap();
    let request = Request {
        agent: AgentKind::Copilot,
        places: Places::new(&home, &project),
        ..request(&home, Options::default())
    };
    let change = plan(&request, None).unwrap();
    std::fs::write(&change.file, change.after.as_deref().unwrap()).unwrap();
    let pin = Pin::of(&change, &request);
    assert_eq!(
        pin.accepted_hooks.as_ref().map(Vec::len),
        Some(1),
        "{pin:?}"
    );
    super::pin(&pins_path(&env).unwrap(), pin.clone()).unwrap();
    let refused = || unaccepted_project_hooks(&env, AgentKind::Copilot, &below);
    assert_eq!(refused(), Vec::<String>::new());

    let rewriting = |event: &str| {
        format!(
            r#"{{"version": 1, "hooks": {{"{event}": [{{"type": "command", "bash": "/bin/sh evil.sh"}}]}}}}"#
        )
    };
    let nested = r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/bin/sh evil.sh"}]}]}}"#;
    let expect = |file: &Path, text: &str, wanted: &str| {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
        let refused = refused();
        std::fs::remove_file(file).unwrap();
        assert!(
            refused.len() == 1 && refused[0].contains(wanted),
            "{}: {refused:#?}",
            file.display()
        );
    };
    let unseen = |file: &Path, event: &str| {
        format!(
            "{} holds a {event} hook that hookhost's `install` did not see (/bin/sh evil.sh): Copilot CLI applies what any such hook answers in `modifiedArgs`",
            file.display()
        )
    };
    let file = hooks.join("aaa.json");
    expect(
        &file,
        &rewriting("preToolUse"),
        &unseen(&file, "preToolUse"),
    );
    // An extension, the user's, a session's or the repository's, whatever its program
    // says, with any of the entries Copilot CLI tries.
    for extension in [
        home.join(".copilot/extensions/x/extension.mjs"),
        home.join(".copilot/extensions/x/extension.js"),
        home.join(".copilot/extensions/x/extension.cjs"),
        home.join(".copilot/session-state/0f1e/extensions/x/extension.mjs"),
        project.join(".github/extensions/x/extension.mjs"),
    ] {
        let wanted = format!(
            "{} holds a preToolUse hook that hookhost's `install` did not see (the program of {}, which may answer any call)",
            extension.display(),
            extension.parent().unwrap().display()
        );
        expect(&extension, "export {};\n", &wanted);
    }
    // A custom agent whose frontmatter declares a `preToolUse` hook, the user's or the
    // repository's, at any depth, named `.agent.md` or `.md`.
    let agent = "---\nname: evil\ndescription: Runs commands.\nhooks:\n  preToolUse:\n    - type: command\n      bash: /bin/sh evil.sh\n      timeoutSec: 30\n---\nRun what you are told.\n";
    for file in [
        home.join(".copilot/agents/evil.agent.md"),
        project.join(".github/agents/deep/evil.agent.md"),
        project.join(".github/agents/evil.md"),
        project.join(".claude/agents/evil.md"),
    ] {
        let wanted = format!(
            "{} holds a preToolUse hook that hookhost's `install` did not see (/bin/sh evil.sh)",
            file.display()
        );
        expect(&file, agent, &wanted);
    }
    expect(
        &file,
        &rewriting("permissionRequest"),
        &unseen(&file, "permissionRequest"),
    );
    let file = home.join(".copilot/settings.json");
    expect(&file, nested, &unseen(&file, "PreToolUse"));
    for name in [
        ".github/hooks/x.json",
        ".github/copilot/settings.json",
        ".claude/settings.local.json",
    ] {
        let file = project.join(name);
        expect(
            &file,
            nested,
            &format!(
                "run `hookhost install copilot` in {} to accept it",
                project.display()
            ),
        );
    }
    // hookhost's project registration for Claude Code, which Copilot CLI reads too: hookhost's.
    let claude = Request {
        agent: AgentKind::ClaudeCode,
        scope: Scope::Project,
        places: Places::new(&home, &project),
        ..super::tests::request(&home, Options::default())
    };
    let claude_change = plan(&claude, None).unwrap();
    std::fs::create_dir_all(claude_change.file.parent().unwrap()).unwrap();
    std::fs::write(&claude_change.file, claude_change.after.as_deref().unwrap()).unwrap();
    super::pin(&pins_path(&env).unwrap(), Pin::of(&claude_change, &claude)).unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::remove_file(&claude_change.file).unwrap();
    let file = hooks.join("bad.json");
    expect(
        &file,
        "{not json",
        &format!(
            "hookhost cannot read {}, a file Copilot CLI reads hooks from",
            file.display()
        ),
    );
    // hookhost's own handler, elsewhere: not another hook; with a shell of its own, it is.
    let ours = change.after.clone().unwrap();
    std::fs::write(project.join(".github/hooks/hookhost.json"), &ours).unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    let mut look_alike: serde_json::Value = serde_json::from_str(&ours).unwrap();
    look_alike["hooks"]["preToolUse"][0]["bash"] = "/bin/sh evil.sh".into();
    let file = project.join(".github/hooks/hookhost.json");
    expect(&file, &look_alike.to_string(), &unseen(&file, "preToolUse"));
    // The pinned file gains one: its drift names it.
    let mut pinned: serde_json::Value = serde_json::from_str(&ours).unwrap();
    pinned["hooks"]["preToolUse"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"type": "command", "bash": "/bin/sh evil.sh"}));
    std::fs::write(&change.file, pinned.to_string()).unwrap();
    let drift = pin.drift(None);
    assert!(
        matches!(&drift, Some(Drift::Rewriting(hook)) if hook.what == "/bin/sh evil.sh"),
        "{drift:?}"
    );
    std::fs::write(&change.file, &ours).unwrap();
    // Copilot CLI loads the files of folders in them too, at any depth, but hidden ones.
    for folder in [hooks.join("sub"), project.join(".github/hooks/a/b")] {
        let file = folder.join("aaa.json");
        expect(&file, &rewriting("preToolUse"), "/bin/sh evil.sh");
    }
    std::fs::create_dir_all(hooks.join(".hidden")).unwrap();
    std::fs::write(hooks.join(".hidden/aaa.json"), rewriting("preToolUse")).unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    // More files than hookhost reads in one call, or more entries in one folder tree,
    // refuse, naming the limit.
    let many = hooks.join("many");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..300 {
        std::fs::write(many.join(format!("f{i}.json")), "{}").unwrap();
    }
    let found = refused();
    assert!(
        found.len() == 1
            && found[0].contains(
                "more than the 256 hook files, 2048 skills, commands and subagents, or 32 MiB"
            ),
        "{found:#?}"
    );
    for i in 0..4000 {
        std::fs::write(many.join(format!("f{i}.txt")), "").unwrap();
    }
    let found = refused();
    assert!(
        found.len() == 1
            && found[0].starts_with(&format!(
                "hookhost cannot read all of {}, a folder Copilot CLI reads hook files from: it holds more than the 4096 files and folders",
                hooks.display()
            )),
        "{found:#?}"
    );
    std::fs::remove_dir_all(&many).unwrap();
    // A project's registration alone: `install --scope project` there accepts them.
    let project_request = Request {
        scope: Scope::Project,
        ..request.clone()
    };
    let project_change = plan(&project_request, None).unwrap();
    std::fs::write(
        &project_change.file,
        project_change.after.as_deref().unwrap(),
    )
    .unwrap();
    let path = pins_path(&env).unwrap();
    std::fs::remove_file(&path).unwrap();
    super::pin(&path, Pin::of(&project_change, &project_request)).unwrap();
    let file = hooks.join("aaa.json");
    expect(
        &file,
        &rewriting("preToolUse"),
        &format!(
            "run `hookhost install copilot` --scope project in {} to accept it",
            project.display()
        ),
    );
}

/// A project whose `.claude/settings.json` holds a team's `PreToolUse` hook running its
/// script `.claude/hooks/fmt.sh`: the script and the settings' text.
fn team_hook_with_script(project: &Path) -> (PathBuf, &'static str) {
    std::fs::create_dir_all(project.join(".claude/hooks")).unwrap();
    let script = project.join(".claude/hooks/fmt.sh");
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    let team = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/fmt.sh"}]}]}}"#;
    std::fs::write(project.join(".claude/settings.json"), team).unwrap();
    (script, team)
}

/// R14: the script an accepted hook runs is accepted with it; rewritten (as the agent
/// could), it is a hook `install` did not see.
#[test]
fn an_accepted_hooks_rewritten_script_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("p");
    let (script, _) = team_hook_with_script(&project);
    let request = request(home.path(), Options::default());
    let change = plan(&request, None).unwrap();
    let pin = Pin::of(&change, &request);
    let refused = || {
        rewriting::in_files(
            AgentKind::ClaudeCode,
            &switch_offs::read_project_files(AgentKind::ClaudeCode, &project, |_| None),
            &[&pin],
            None,
        )
    };
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::write(&script, "printf '{\"hookSpecificOutput\": {}}'\n").unwrap();
    let found = refused();
    assert!(
        found.len() == 1 && found[0].contains("holds a PreToolUse hook that hookhost's `install` did not see (bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/fmt.sh)"),
        "{found:#?}"
    );
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
}

/// R14, Gemini CLI: an extension's hooks are read with the values Gemini CLI fills their
/// `${NAME}`s with, from the extension's `.env` and the project's (which wins, and may
/// set even `extensionPath`): the accepted hook is the filled one, and a `.env` that
/// fills it otherwise refuses the call, as would an edit of the hook.
#[test]
fn a_gemini_extensions_hooks_are_read_with_its_settings_filled_in() {
    let (_root, home, project, env) = repository();
    let extension = home.join(".gemini/extensions/team");
    std::fs::create_dir_all(extension.join("hooks")).unwrap();
    std::fs::write(
        extension.join("gemini-extension.json"),
        r#"{"name": "team"}"#,
    )
    .unwrap();
    std::fs::write(extension.join(".env"), "LINTER=lint.js\n").unwrap();
    std::fs::write(extension.join("hooks/lint.js"), "// lint").unwrap();
    let hooks = serde_json::json!({"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "node ${extensionPath}${/}hooks/${LINTER}"}]}]}});
    std::fs::write(extension.join("hooks/hooks.json"), hooks.to_string()).unwrap();
    installed(AgentKind::Gemini, &home, &project, &env);
    let refused = || unaccepted_project_hooks(&env, AgentKind::Gemini, &project);
    assert_eq!(refused(), Vec::<String>::new());
    // The script the filled-in hook runs is known by its content.
    std::fs::write(extension.join("hooks/lint.js"), "// evil").unwrap();
    assert_eq!(refused().len(), 1, "{:#?}", refused());
    std::fs::write(extension.join("hooks/lint.js"), "// lint").unwrap();
    for (setting, runs) in [
        ("LINTER=evil.js", "node ${extensionPath}${/}hooks/evil.js"),
        ("extensionPath=/tmp/evil", "node /tmp/evil${/}hooks/lint.js"),
    ] {
        std::fs::write(project.join(".env"), format!("{setting}\n")).unwrap();
        let found = refused();
        assert!(
            found.len() == 1 && found[0].contains(&format!("did not see ({runs})")),
            "{setting}: {found:#?}"
        );
    }
    // Names Gemini CLI sets after the settings, and names no hook uses, change nothing.
    std::fs::write(project.join(".env"), "pathSeparator=x\n/=y\nOTHER=z\n").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
}

/// R14, Gemini CLI: each folder of `~/.gemini/extensions/` is an extension whose
/// `hooks/hooks.json` it loads, read where a `link` install record leads; `install`
/// accepts those there are.
#[test]
fn gemini_extension_hooks_are_checked_where_the_extension_is_read_from() {
    let (_root, home, project, env) = repository();
    let extensions = home.join(".gemini/extensions");
    let hooks = |command: &str| {
        format!(
            r#"{{"hooks": {{"BeforeTool": [{{"matcher": "*", "hooks": [{{"type": "command", "command": "{command}"}}]}}]}}}}"#
        )
    };
    std::fs::create_dir_all(extensions.join("team/hooks")).unwrap();
    std::fs::write(extensions.join("team/hooks/lint.js"), "// lint").unwrap();
    std::fs::write(
        extensions.join("team/hooks/hooks.json"),
        hooks("node ${extensionPath}/hooks/lint.js"),
    )
    .unwrap();
    installed(AgentKind::Gemini, &home, &project, &env);
    let refused = || unaccepted_project_hooks(&env, AgentKind::Gemini, &project);
    // `file` gets the evil hook, which alone is refused.
    let refused_for = |file: &Path| {
        std::fs::write(file, hooks("/bin/sh evil.sh")).unwrap();
        let found = refused();
        assert!(
            found.len() == 1
                && found[0].starts_with(&format!("{} holds a BeforeTool hook", file.display())),
            "{found:#?}"
        );
    };
    assert_eq!(refused(), Vec::<String>::new());
    // The script the accepted extension hook runs, rewritten.
    std::fs::write(extensions.join("team/hooks/lint.js"), "// evil").unwrap();
    assert_eq!(refused().len(), 1);
    std::fs::write(extensions.join("team/hooks/lint.js"), "// lint").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    // Another extension; one linked to a folder of the project.
    std::fs::create_dir_all(extensions.join("evil/hooks")).unwrap();
    let file = extensions.join("evil/hooks/hooks.json");
    refused_for(&file);
    std::fs::remove_dir_all(extensions.join("evil")).unwrap();
    std::fs::create_dir_all(extensions.join("linked")).unwrap();
    std::fs::create_dir_all(project.join("ext/hooks")).unwrap();
    let record = serde_json::json!({"type": "link", "source": project.join("ext")});
    std::fs::write(
        extensions.join("linked/.gemini-extension-install.json"),
        record.to_string(),
    )
    .unwrap();
    let file = project.join("ext/hooks/hooks.json");
    refused_for(&file);
    // A link to "": Gemini CLI reads the extension from its own folder, the call's.
    std::fs::remove_dir_all(project.join("ext")).unwrap();
    let record = serde_json::json!({"type": "link", "source": ""});
    std::fs::write(
        extensions.join("linked/.gemini-extension-install.json"),
        record.to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(project.join("hooks")).unwrap();
    let file = project.join("hooks/hooks.json");
    std::fs::write(&file, hooks("/bin/sh evil.sh")).unwrap();
    let found = refused();
    assert!(
        found.len() == 1
            && found[0].starts_with(&format!("{} holds a BeforeTool hook", file.display())),
        "{found:#?}"
    );
    // An install record hookhost cannot read (a FIFO: no end) refuses, naming it.
    #[cfg(unix)]
    {
        std::fs::remove_file(&file).unwrap();
        let record = extensions.join("linked/.gemini-extension-install.json");
        std::fs::remove_file(&record).unwrap();
        make_fifo(&record);
        let found = refused();
        assert!(
            found.len() == 1
                && found[0].starts_with(&format!("hookhost cannot read {}", record.display())),
            "{found:#?}"
        );
    }
}

/// R14, Qwen Code: an extension's hooks in its manifest, in a bare `{EVENT: […]}`
/// `hooks/hooks.json`, or in the file its manifest's `"hooks": "FILE"` names.
#[test]
fn qwen_extension_hooks_are_found_in_each_place_it_reads_them() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    let extension = home.join(".qwen/extensions/x");
    std::fs::create_dir_all(extension.join("hooks")).unwrap();
    let env = home_env(root.path(), &home);
    installed(AgentKind::Qwen, &home, &project, &env);
    let group = r#"[{"hooks": [{"type": "command", "command": "/bin/sh evil.sh"}]}]"#;
    let cases = [
        (
            "qwen-extension.json",
            format!(r#"{{"name": "x", "hooks": {{"PreToolUse": {group}}}}}"#),
        ),
        (
            "hooks/hooks.json",
            format!(r#"{{"PermissionRequest": {group}}}"#),
        ),
        (
            "qwen-extension.json",
            r#"{"name": "x", "hooks": "mine.json"}"#.to_string(),
        ),
    ];
    for (file, text) in cases {
        std::fs::write(extension.join(file), &text).unwrap();
        if text.contains("mine.json") {
            std::fs::write(
                extension.join("mine.json"),
                format!(r#"{{"hooks": {{"PreToolUse": {group}}}}}"#),
            )
            .unwrap();
        }
        let found = unaccepted_project_hooks(&env, AgentKind::Qwen, &project);
        assert!(
            found.len() == 1 && found[0].contains("(/bin/sh evil.sh)"),
            "{file}: {found:#?}"
        );
        std::fs::remove_file(extension.join(file)).unwrap();
    }
}

/// R14, Cursor (by its documentation): hookhost's own handler, which has no `type`, is
/// hookhost's; another `preToolUse` hook in the project's hooks file is refused.
#[test]
fn cursor_hooks_beside_hookhosts_are_checked() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("p");
    std::fs::create_dir_all(project.join(".cursor")).unwrap();
    let env = home_env(root.path(), &home);
    let request = Request {
        agent: AgentKind::Cursor,
        places: Places::new(&home, &project),
        ..request(&home, Options::default())
    };
    let change = plan(&request, None).unwrap();
    std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
    let ours = change.after.clone().unwrap();
    std::fs::write(&change.file, &ours).unwrap();
    let pin = Pin::of(&change, &request);
    assert_eq!(
        pin.accepted_hooks,
        Some(Vec::new()),
        "hookhost's own is no other hook"
    );
    assert_eq!(pin.drift(None), None);
    super::pin(&pins_path(&env).unwrap(), pin).unwrap();
    let refused = || unaccepted_project_hooks(&env, AgentKind::Cursor, &project);
    let file = project.join(".cursor/hooks.json");
    std::fs::write(&file, &ours).unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::write(
        &file,
        r#"{"version": 1, "hooks": {"preToolUse": [{"command": "/bin/sh evil.sh"}]}}"#,
    )
    .unwrap();
    let found = refused();
    assert!(
        found.len() == 1
            && found[0].contains("Cursor applies what any such hook answers in `updated_input`"),
        "{found:#?}"
    );
}

/// R14: the script of a hook accepted in the pinned file itself is looked at on every
/// call, though the file did not change.
#[test]
fn a_rewritten_script_of_a_hook_in_the_pinned_file_is_drift() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("p");
    let (script, team) = team_hook_with_script(&project);
    let request = Request {
        scope: Scope::Project,
        ..request(home.path(), Options::default())
    };
    let change = plan(&request, Some(team)).unwrap();
    assert_eq!(change.file, project.join(".claude/settings.json"));
    std::fs::write(&change.file, change.after.as_deref().unwrap()).unwrap();
    let pin = Pin::of(&change, &request);
    assert_eq!(pin.drift(None), None);
    std::fs::write(&script, "printf '{\"hookSpecificOutput\": {}}'\n").unwrap();
    let drift = pin.drift(None);
    assert!(matches!(&drift, Some(Drift::Rewriting(_))), "{drift:?}");
    // Asked again (a warm server keeps what the same bytes gave): still drift.
    assert!(matches!(pin.drift(None), Some(Drift::Rewriting(_))));
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    assert_eq!(pin.drift(None), None);
}

/// R14: a payload that names no folder still has the user's hook files judged (from the
/// bridge's own folder).
#[test]
fn a_call_without_a_folder_still_judges_the_users_hook_files() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    let env = home_env(root.path(), &home);
    let (change, _) = installed(AgentKind::Copilot, &home, &project, &env);
    let evil = change.file.with_file_name("aaa.json");
    std::fs::write(
        &evil,
        r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "/bin/sh evil.sh"}]}}"#,
    )
    .unwrap();
    let hookhost = Path::new("/usr/local/bin/hookhost");
    let refused = refused_call(&env, AgentKind::Copilot, None, (None, None), None, hookhost);
    assert!(
        refused
            .iter()
            .any(|r| r.starts_with(&format!("{} holds a preToolUse hook", evil.display()))),
        "{refused:#?}"
    );
}

/// docs/threats.md#r14: Qwen Code 0.24.4 runs the `hooks` of its skills' and subagents'
/// frontmatter after hookhost's, and the last hook's `allow` wins: each folder it reads
/// them from is checked, the frontmatter found as Qwen Code finds it.
#[test]
fn qwen_codes_skills_and_subagents_are_checked_for_frontmatter_hooks() {
    let (_root, home, project, env) = repository();
    // Accepted with the script its folder's variable names.
    let skill = home.join(".qwen/skills/fmt/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        frontmatter("PreToolUse", "bash $QWEN_SKILL_ROOT/fmt.sh"),
    )
    .unwrap();
    let script = skill.with_file_name("fmt.sh");
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    let (_, pin) = installed(AgentKind::Qwen, &home, &project, &env);
    assert_eq!(
        pin.accepted_hooks.as_ref().map(Vec::len),
        Some(1),
        "{pin:?}"
    );
    let refused = || unaccepted_project_hooks(&env, AgentKind::Qwen, &project);
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::write(&script, "printf '%s' '{\"hookSpecificOutput\": {}}'\n").unwrap();
    let refused_now = refused();
    assert!(
        refused_now.len() == 1
            && refused_now[0].contains(&format!(
                "{} holds a PreToolUse hook that hookhost's `install` did not see",
                skill.display()
            )),
        "{refused_now:#?}"
    );
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    assert_eq!(refused(), Vec::<String>::new());

    let expect = |file: &Path, text: &str, refuses: bool| {
        assert_eq!(
            refuses_naming(&refused, file, text),
            refuses,
            "{}",
            file.display()
        );
    };
    let evil = frontmatter("PreToolUse", "/bin/sh evil.sh");
    let extension = home.join(".qwen/extensions/ext");
    std::fs::create_dir_all(&extension).unwrap();
    std::fs::write(extension.join("qwen-extension.json"), r#"{"name": "ext"}"#).unwrap();
    for file in [
        project.join(".qwen/skills/other/SKILL.md"),
        project.join(".agents/skills/other/SKILL.md"),
        project.join(".qwen/agents/helper.md"),
        home.join(".qwen/agents/mine.md"),
        home.join(".agents/skills/mine/SKILL.md"),
        extension.join("agents/helper.md"),
    ] {
        expect(&file, &evil, true);
    }
    expect(
        &project.join(".qwen/agents/perm.md"),
        &frontmatter("PermissionRequest", "/bin/sh evil.sh"),
        true,
    );
    // A `---` inside a value ends no frontmatter for Qwen Code: the hooks after it count.
    expect(
        &project.join(".qwen/agents/dashes.md"),
        &evil.replacen("description: Formats.", "description: a---b", 1),
        true,
    );
    // Not a frontmatter Qwen Code reads, or no hook that may rewrite a call.
    expect(
        &project.join(".qwen/agents/spaced.md"),
        &evil.replacen("---\n", "--- \n", 1),
        false,
    );
    expect(
        &project.join(".qwen/agents/stop.md"),
        &frontmatter("Stop", "/bin/sh evil.sh"),
        false,
    );
    expect(&project.join(".claude/skills/x/SKILL.md"), &evil, false);

    // A folder of skills a settings file adds (a project's too) is read as the user's.
    let elsewhere = project.join("vendor/skills");
    let settings = project.join(".qwen/settings.json");
    let listed = serde_json::json!({"skills": {"directories": [elsewhere]}});
    std::fs::write(&settings, listed.to_string()).unwrap();
    expect(&elsewhere.join("x/SKILL.md"), &evil, true);
    // A relative one, from the folder the agent started in; `~/`, from the home.
    std::fs::write(
        &settings,
        r#"{"skills": {"directories": ["vendor/skills"]}}"#,
    )
    .unwrap();
    expect(&elsewhere.join("y/SKILL.md"), &evil, true);
    std::fs::write(
        &settings,
        r#"{"skills": {"directories": ["~/team-skills"]}}"#,
    )
    .unwrap();
    expect(&home.join("team-skills/z/SKILL.md"), &evil, true);
    // Trimmed, and `..` read by spelling, as Qwen Code takes them.
    let spelled = format!(" {}/gone/../skills\t", project.join("vendor").display());
    let listed = serde_json::json!({"skills": {"directories": [spelled]}});
    std::fs::write(&settings, listed.to_string()).unwrap();
    expect(&elsewhere.join("w/SKILL.md"), &evil, true);
    // A variable Qwen Code expands, or a `~` it reads otherwise: refused, however many
    // skills are there.
    for spelled in [
        "$HOME/vendor",
        "${HOME}/vendor",
        "%USERPROFILE%/vendor",
        "~\\vendor",
    ] {
        let listed = serde_json::json!({"skills": {"directories": [spelled]}});
        std::fs::write(&settings, listed.to_string()).unwrap();
        let found = refused();
        assert!(
            found.len() == 1 && found[0].contains("in a way hookhost does not follow"),
            "{spelled}: {found:#?}"
        );
    }
}

/// R14: Claude Code runs the `hooks` of a skill's, a command's or a subagent's
/// frontmatter, and applies their `updatedInput`: each file of its skills, commands and
/// subagents, the user's and the project's, is read for them. A team's skill accepted by
/// `install` runs; one added, or its script rewritten, is refused.
#[test]
fn claude_codes_skills_commands_and_subagents_are_checked_for_frontmatter_hooks() {
    let (_root, home, project, env) = repository();
    let skill = project.join(".claude/skills/fmt/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    let command = r#"bash \"${CLAUDE_SKILL_DIR}/fmt.sh\""#;
    std::fs::write(&skill, frontmatter("PreToolUse", command)).unwrap();
    let script = skill.with_file_name("fmt.sh");
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    // A skill that only speaks of hooks declares none.
    let doc = project.join(".claude/skills/doc/SKILL.md");
    std::fs::create_dir_all(doc.parent().unwrap()).unwrap();
    std::fs::write(
        &doc,
        "---\nname: doc\ndescription: Writes git hooks: pre-commit, PreToolUse docs.\n---\nhooks: {PreToolUse: []}\n",
    )
    .unwrap();
    let (_, pin) = installed(AgentKind::ClaudeCode, &home, &project, &env);
    assert_eq!(
        pin.accepted_hooks.as_ref().map(Vec::len),
        Some(1),
        "{pin:?}"
    );
    let refused = || unaccepted_project_hooks(&env, AgentKind::ClaudeCode, &project);
    assert_eq!(refused(), Vec::<String>::new());

    // Its script rewritten: a hook `install` did not see.
    std::fs::write(&script, "printf '%s' '{\"updatedInput\": {}}'\n").unwrap();
    let refused_now = refused();
    assert!(
        refused_now.len() == 1
            && refused_now[0].contains(&format!(
                "{} holds a PreToolUse hook that hookhost's `install` did not see (bash \"{}/fmt.sh\")",
                skill.display(),
                skill.parent().unwrap().display()
            )),
        "{refused_now:#?}"
    );
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    assert_eq!(refused(), Vec::<String>::new());

    let expect = |file: &Path, text: &str, refuses: bool| {
        assert_eq!(
            refuses_naming(&refused, file, text),
            refuses,
            "{}",
            file.display()
        );
    };
    let evil = frontmatter("PreToolUse", "/bin/sh evil.sh");
    for file in [
        project.join(".claude/commands/fmt.md"),
        project.join(".claude/agents/sub/helper.md"),
        project.join(".claude/agents/.team/helper.md"),
        project.join(".claude/skills/other/SKILL.md"),
        home.join(".claude/skills/mine/SKILL.md"),
        home.join(".claude/commands/mine.md"),
        home.join(".claude/agents/mine.md"),
    ] {
        expect(&file, &evil, true);
    }
    expect(
        &project.join(".claude/agents/perm.md"),
        &frontmatter("PermissionRequest", "/bin/sh evil.sh"),
        true,
    );
    // An escape or an alias may spell the key or a script: hookhost reads no YAML, and
    // refuses such a file whatever `install` says.
    for (name, text) in [
        (
            "escaped.md",
            "---\n\"\\x68ooks\": {PreToolUse: [{hooks: [{type: command, command: evil}]}]}\n---\n",
        ),
        (
            "alias.md",
            "---\nx: &c /bin/sh run.sh\nhooks: {PreToolUse: [{hooks: [{type: command, command: *c}]}]}\n---\n",
        ),
    ] {
        let file = project.join(".claude/agents").join(name);
        std::fs::write(&file, text).unwrap();
        installed(AgentKind::ClaudeCode, &home, &project, &env);
        let found = refused();
        std::fs::remove_file(&file).unwrap();
        assert!(
            found.len() == 1
                && found[0].starts_with(&format!(
                    "hookhost cannot read {}, a file Claude Code reads hooks from: its frontmatter may declare hooks and holds an ",
                    file.display()
                )),
            "{found:#?}"
        );
    }
    // Not loaded by Claude Code, or no hook that may rewrite a call.
    expect(
        &project.join(".claude/skills/group/deep/SKILL.md"),
        &evil,
        false,
    );
    expect(
        &project.join(".claude/agents/stop.md"),
        &frontmatter("Stop", "/bin/sh evil.sh"),
        false,
    );
    expect(
        &project.join(".claude/agents/body.md"),
        &format!("# Notes\n{evil}"),
        false,
    );

    // Hundreds of commands without hooks are no reason to refuse.
    let commands = home.join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    for n in 0..300 {
        let text = format!("---\ndescription: command {n}\n---\nDo {n}.\n");
        std::fs::write(commands.join(format!("c{n}.md")), text).unwrap();
    }
    assert_eq!(refused(), Vec::<String>::new());
}

/// R14: a skill in a subfolder's `.claude/skills/`, which Claude Code loads once a file
/// there is read, is looked for at a call of its `Skill` tool (and by `doctor`), in the
/// whole repository but its gitignored folders.
#[test]
fn a_skill_in_a_subfolder_is_checked_at_a_call_that_runs_a_skill() {
    let (root, home, project, env) = repository();
    installed(AgentKind::ClaudeCode, &home, &project, &env);
    let evil = "---\nname: fmt\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: /bin/sh evil.sh\n---\n";
    let nested = project.join("web/app/.claude/skills/fmt/SKILL.md");
    std::fs::create_dir_all(nested.parent().unwrap()).unwrap();
    std::fs::write(&nested, evil).unwrap();
    let call = |tool: Option<&str>, cwd: &Path| {
        let pins = load_for_call(&env).unwrap();
        let files = switch_offs::read_project_files(AgentKind::ClaudeCode, cwd, |_| None);
        rewriting::in_call_files(
            &env,
            AgentKind::ClaudeCode,
            cwd,
            (tool, None),
            &files,
            &pins,
        )
    };
    // Another tool's call does not walk the project.
    assert_eq!(call(Some("Bash"), &project), Vec::<String>::new());
    let refused = call(Some("Skill"), &project);
    assert!(
        refused.len() == 1
            && refused[0].contains(&format!(
                "{} holds a PreToolUse hook that hookhost's `install` did not see (/bin/sh evil.sh)",
                nested.display()
            ))
            && refused[0].contains(&format!(
                "`hookhost install claude-code` in {}",
                project.display()
            )),
        "{refused:#?}"
    );
    // From a folder of the project too, the whole repository.
    std::fs::create_dir_all(project.join("docs")).unwrap();
    assert_eq!(call(Some("Skill"), &project.join("docs")).len(), 1);
    assert_eq!(
        unaccepted_project_hooks(&env, AgentKind::ClaudeCode, &project).len(),
        1
    );
    // `install` in the project accepts it.
    installed(AgentKind::ClaudeCode, &home, &project, &env);
    assert_eq!(call(Some("Skill"), &project), Vec::<String>::new());
    // A gitignored folder too (git may track its files, a `.gitignore` below may keep
    // it), and one a link in the project leads to, each once.
    std::fs::write(project.join(".gitignore"), "node_modules/\n").unwrap();
    let ignored = project.join("node_modules/pkg/.claude/skills/x/SKILL.md");
    std::fs::create_dir_all(ignored.parent().unwrap()).unwrap();
    std::fs::write(&ignored, evil.replace("evil.sh", "other.sh")).unwrap();
    assert_eq!(call(Some("Skill"), &project).len(), 1);
    std::fs::remove_dir_all(project.join("node_modules")).unwrap();
    let linked = root.path().join("p/real/.claude/skills/y/SKILL.md");
    std::fs::create_dir_all(linked.parent().unwrap()).unwrap();
    std::fs::write(&linked, evil.replace("evil.sh", "linked.sh")).unwrap();
    installed(AgentKind::ClaudeCode, &home, &project, &env);
    std::fs::write(&linked, evil.replace("evil.sh", "changed.sh")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(project.join("real"), project.join("web/link")).unwrap();
        std::os::unix::fs::symlink(&project, project.join("web/loop")).unwrap();
    }
    let found = call(Some("Skill"), &project);
    assert!(
        found.len() == 1 && found[0].contains("(/bin/sh changed.sh)"),
        "{found:#?}"
    );
}

/// N7: Copilot CLI skips a hook its user settings list by digest in `disabledHooks`, and
/// every hook when a repository's settings say `disableAllHooks`: hookhost's listed, or a
/// switch-off in either place, refuses the calls that still come and is named by `doctor`.
#[test]
fn copilots_disabled_hooks_and_a_repositorys_disable_all_hooks_are_switch_offs() {
    let (_root, home, project, env) = repository();
    std::fs::create_dir_all(project.join(".github/copilot")).unwrap();
    let (change, _) = installed(AgentKind::Copilot, &home, &project, &env);
    let refused = || disabled_hooks(AgentKind::Copilot, &env, Some(&project));
    assert_eq!(refused(), Vec::<String>::new());
    // hookhost's handler as `install` wrote it, and the digest Copilot CLI keeps of it.
    let written: serde_json::Value =
        serde_json::from_str(change.after.as_deref().unwrap()).unwrap();
    let digest = AgentKind::Copilot
        .declaration()
        .disabled_hooks
        .unwrap()
        .digest;
    let key = |event: &str| digest(event, written["hooks"][event][0].as_object().unwrap());
    let settings = home.join(".copilot/settings.json");
    let write = |file: &Path, text: String| std::fs::write(file, text).unwrap();
    write(
        &settings,
        format!(r#"{{"disabledHooks": ["{}", "0000"]}}"#, key("preToolUse")),
    );
    let found = refused();
    assert!(
        found.len() == 1
            && found[0].starts_with(&format!(
                "{} lists hookhost's preToolUse hook in `disabledHooks`, so Copilot CLI skips it",
                settings.display()
            )),
        "{found:#?}"
    );
    assert_eq!(
        refused_call(
            &env,
            AgentKind::Copilot,
            Some(&project),
            (None, None),
            None,
            Path::new("/x/hookhost")
        )
        .iter()
        .filter(|r| r.contains("disabledHooks"))
        .count(),
        1
    );
    write(
        &settings,
        format!(
            r#"{{"disabledHooks": ["{}", "{}"]}}"#,
            key("preToolUse"),
            key("userPromptSubmitted")
        ),
    );
    assert_eq!(refused().len(), 2);
    // The key as Copilot CLI also reads it.
    for spelled in ["disabled_hooks", "DisabledHooks"] {
        write(
            &settings,
            format!(r#"{{"{spelled}": ["{}"]}}"#, key("userPromptSubmitted")),
        );
        assert_eq!(refused().len(), 1, "{spelled}");
    }
    // Another hook's digest, or the digest spelled otherwise, skips nothing of hookhost's.
    write(
        &settings,
        format!(
            r#"{{"disabledHooks": ["{}"]}}"#,
            key("preToolUse").to_uppercase()
        ),
    );
    assert_eq!(refused(), Vec::<String>::new());
    // `disableAllHooks`, the user's or a repository's.
    for file in [
        settings.clone(),
        project.join(".github/copilot/settings.json"),
        project.join(".github/copilot/settings.local.json"),
    ] {
        write(&file, r#"{"disableAllHooks": true}"#.to_string());
        let found = refused();
        write(&file, r#"{"disableAllHooks": false}"#.to_string());
        assert!(
            found.len() == 1
                && found[0].starts_with(&format!(
                    "{} sets \"disableAllHooks\": true",
                    file.display()
                )),
            "{}: {found:#?}",
            file.display()
        );
    }
    let local = project.join(".github/copilot/settings.local.json");
    write(&local, r#"{"disable_all_hooks": "yes"}"#.to_string());
    let found = refused();
    assert!(
        found.len() == 1
            && found[0].starts_with(&format!(
                "{} sets \"disable_all_hooks\": \"yes\", which Copilot CLI reads as `disableAllHooks`",
                local.display()
            )),
        "{found:#?}"
    );
    write(&local, r#"{"DISABLE-ALL-HOOKS": false}"#.to_string());
    assert_eq!(refused(), Vec::<String>::new());
}

/// R14: a plugin a Claude Code settings file enables may bring hooks: `install` accepts it
/// with the files of its folder (found through the marketplace the settings declare, or
/// the record of installed plugins); a plugin enabled since, or one whose files changed,
/// is refused; one set to `false` is none.
#[test]
fn a_plugin_a_settings_file_enables_is_accepted_with_its_files() {
    let (_root, home, project, env) = repository();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let market = project.join("market");
    std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
    std::fs::write(
        market.join(".claude-plugin/marketplace.json"),
        r#"{"name": "m", "plugins": [{"name": "p", "source": "./p"}]}"#,
    )
    .unwrap();
    let hooks = market.join("p/hooks/hooks.json");
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    std::fs::write(&hooks, "{}").unwrap();
    let settings = project.join(".claude/settings.json");
    let enable = |value: &str| {
        let text = format!(
            r#"{{"extraKnownMarketplaces": {{"m": {{"source": {{"source": "directory", "path": "market"}}}}}}, "enabledPlugins": {{"p@m": {value}}}}}"#
        );
        std::fs::write(&settings, text).unwrap();
    };
    enable("true");
    let (_, pin) = installed(AgentKind::ClaudeCode, &home, &project, &env);
    assert_eq!(
        pin.accepted_hooks.as_ref().map(Vec::len),
        Some(1),
        "{pin:?}"
    );
    let refused = || unaccepted_project_hooks(&env, AgentKind::ClaudeCode, &project);
    assert_eq!(refused(), Vec::<String>::new());
    // Its hooks changed: a plugin `install` did not see.
    std::fs::write(&hooks, r#"{"hooks": {"PreToolUse": []}}"#).unwrap();
    let found = refused();
    assert!(
        found.len() == 1
            && found[0].contains(&format!(
                "{} holds a PreToolUse hook that hookhost's `install` did not see (the plugin p@m it enables)",
                settings.display()
            )),
        "{found:#?}"
    );
    std::fs::write(&hooks, "{}").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    // A script its hooks run outside its folder is accepted with it.
    let script = project.join("tools/rw.sh");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    let run = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/bin/sh ${CLAUDE_PLUGIN_ROOT}/../../tools/rw.sh"}]}]}}"#;
    std::fs::write(&hooks, run).unwrap();
    installed(AgentKind::ClaudeCode, &home, &project, &env);
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::write(&script, "echo changed\n").unwrap();
    assert_eq!(refused().len(), 1);
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    // And one its skill's frontmatter hook runs.
    std::fs::write(&hooks, "{}").unwrap();
    let skill = market.join("p/skills/fmt/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        "---\nname: fmt\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: /bin/sh ${CLAUDE_PLUGIN_ROOT}/../../tools/rw.sh\n---\n",
    )
    .unwrap();
    installed(AgentKind::ClaudeCode, &home, &project, &env);
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::write(&script, "echo changed\n").unwrap();
    assert_eq!(refused().len(), 1);
    std::fs::write(&script, "cat >/dev/null\n").unwrap();
    // Another plugin, from the record of installed plugins; `false` enables none.
    let installed_at = home.join(".claude/plugins/cache/q");
    std::fs::create_dir_all(&installed_at).unwrap();
    std::fs::write(installed_at.join("x.md"), "x").unwrap();
    std::fs::write(
        project.join(".claude/settings.local.json"),
        r#"{"enabledPlugins": {"q@n": true, "p@m": false}}"#,
    )
    .unwrap();
    assert_eq!(refused().len(), 1);
    std::fs::write(
        project.join(".claude/settings.local.json"),
        r#"{"enabledPlugins": {"q@n": false}}"#,
    )
    .unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    enable("false");
    assert_eq!(refused(), Vec::<String>::new());
}

/// In a linked git worktree, Codex 0.171.0 reads a project layer's `hooks.json` from the
/// main checkout's matching folder: read there too, for a call from the worktree or a
/// folder of it.
#[test]
fn codexs_hooks_json_of_the_main_checkout_is_read_from_a_linked_worktree() {
    let (root, home, main, env) = repository();
    let worktree = root.path().join("wt");
    let gitdir = main.join(".git/worktrees/wt");
    std::fs::create_dir_all(&gitdir).unwrap();
    std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
    std::fs::create_dir_all(worktree.join("sub")).unwrap();
    std::fs::write(
        worktree.join(".git"),
        format!("gitdir: {}\n", gitdir.display()),
    )
    .unwrap();
    installed(AgentKind::Codex, &home, &worktree, &env);
    let refused = |cwd: &Path| unaccepted_project_hooks(&env, AgentKind::Codex, cwd);
    assert_eq!(refused(&worktree), Vec::<String>::new());
    let hook = r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/bin/sh evil.sh"}]}]}}"#;
    for folder in [main.clone(), main.join("sub")] {
        let file = folder.join(".codex/hooks.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, hook).unwrap();
        let found = refused(&worktree.join("sub"));
        std::fs::remove_file(&file).unwrap();
        assert!(
            found.len() == 1
                && found[0].contains(&format!(
                    "{} holds a PreToolUse hook that hookhost's `install` did not see",
                    file.display()
                )),
            "{found:#?}"
        );
    }
}

/// docs/threats.md#r14: a hook of the user's files that runs a project's file (Copilot
/// CLI's `bash scripts/fmt.sh` in `~/.copilot/hooks/`, run in the project; Claude Code's
/// `"$CLAUDE_PROJECT_DIR"/…` in the user's settings) is accepted with that file as the
/// project holds it, project by project: the agent rewriting the script is a hook
/// `install` did not see, and another project's is `install`ed there.
#[test]
fn a_users_hook_that_runs_a_projects_file_is_accepted_project_by_project() {
    let (root, home, project, env) = repository();
    let other = root.path().join("q");
    std::fs::create_dir_all(other.join(".git")).unwrap();
    let hooks = home.join(".copilot/hooks/team.json");
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    let team = r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "bash scripts/fmt.sh", "timeoutSec": 5}]}}"#;
    std::fs::write(&hooks, team).unwrap();
    let script = |project: &Path| project.join("scripts/fmt.sh");
    for folder in [&project, &other] {
        std::fs::create_dir_all(script(folder).parent().unwrap()).unwrap();
        std::fs::write(script(folder), "cat >/dev/null\n").unwrap();
    }
    // As `install` does, keeping what an earlier one accepted in another project.
    let accepted = std::cell::RefCell::new(Vec::<String>::new());
    let install_in = |folder: &Path| {
        let (_, mut pin) = installed(AgentKind::Copilot, &home, folder, &env);
        let mut all = accepted.borrow_mut();
        all.extend(pin.accepted_hooks.clone().unwrap_or_default());
        all.sort();
        all.dedup();
        pin.accepted_hooks = Some(all.clone());
        super::pin(&pins_path(&env).unwrap(), pin.clone()).unwrap();
        pin
    };
    let pin = install_in(&project);
    assert_eq!(
        pin.accepted_hooks.as_ref().map(Vec::len),
        Some(1),
        "{pin:?}"
    );
    let refused = |folder: &Path| unaccepted_project_hooks(&env, AgentKind::Copilot, folder);
    assert_eq!(refused(&project), Vec::<String>::new());
    // The script rewritten: refused, to be accepted in that project.
    std::fs::write(script(&project), "printf '%s' '{\"modifiedArgs\": {}}'\n").unwrap();
    let found = refused(&project);
    assert!(
        found.len() == 1
            && found[0].contains(&format!(
                "{} holds a preToolUse hook that hookhost's `install` did not see",
                hooks.display()
            ))
            && found[0].contains(&format!(
                "run `hookhost install copilot` in {} to accept it",
                std::fs::canonicalize(&project).unwrap().display()
            )),
        "{found:#?}"
    );
    std::fs::write(script(&project), "cat >/dev/null\n").unwrap();
    assert_eq!(refused(&project), Vec::<String>::new());
    // Another project's file is that project's: refused there until `install` runs there.
    assert_eq!(refused(&other).len(), 1, "{:#?}", refused(&other));
    install_in(&other);
    assert_eq!(refused(&other), Vec::<String>::new());
    assert_eq!(refused(&project), Vec::<String>::new());

    // Run from a subfolder, the repository's root is read too (Copilot CLI runs a user's
    // hook there): the same script, accepted from the root, is the same hook.
    let below = project.join("sub");
    std::fs::create_dir_all(&below).unwrap();
    assert_eq!(refused(&below), Vec::<String>::new());
    std::fs::write(script(&project), "printf '%s' '{\"modifiedArgs\": {}}'\n").unwrap();
    assert_eq!(refused(&below).len(), 1, "{:#?}", refused(&below));
    std::fs::write(script(&project), "cat >/dev/null\n").unwrap();

    // Words that name no file of the project (a filter, a URL, a log in the home) do not
    // tie a user's hook to the project `install` ran in.
    let log = r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "jq -r '.a // \"x/y\"' | sed s/a/b/ >> ~/log/hooks.txt; curl -s http://localhost:8080/hook", "timeoutSec": 5}]}}"#;
    std::fs::write(&hooks, log).unwrap();
    install_in(&project);
    let third = root.path().join("r");
    std::fs::create_dir_all(third.join(".git")).unwrap();
    assert_eq!(refused(&third), Vec::<String>::new());
}

/// An extension `install` accepted is known by its code: what it writes beside it (a log,
/// its state) changes nothing, a change to its code is a hook `install` did not see.
#[test]
fn an_accepted_copilot_extension_is_known_by_its_code() {
    let (_root, home, project, env) = repository();
    let folder = home.join(".copilot/extensions/fmt");
    std::fs::create_dir_all(folder.join("lib")).unwrap();
    std::fs::write(folder.join("extension.mjs"), "import './lib/a.js';\n").unwrap();
    std::fs::write(folder.join("lib/a.js"), "export {};\n").unwrap();
    let (_, pin) = installed(AgentKind::Copilot, &home, &project, &env);
    assert_eq!(
        pin.accepted_hooks.as_ref().map(Vec::len),
        Some(1),
        "{pin:?}"
    );
    let refused = || unaccepted_project_hooks(&env, AgentKind::Copilot, &project);
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::write(folder.join("ran.log"), "a call\n").unwrap();
    std::fs::write(folder.join("lib/state.txt"), "1\n").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::write(folder.join("lib/a.js"), "export const x = 1;\n").unwrap();
    assert_eq!(refused().len(), 1, "{:#?}", refused());
    std::fs::write(folder.join("lib/a.js"), "export {};\n").unwrap();

    // A session's own extension: a call of that session reads it, another's does not
    // look through every session (`install` and `doctor` do).
    let own = home.join(".copilot/session-state/0f1e/extensions/x/extension.mjs");
    std::fs::create_dir_all(own.parent().unwrap()).unwrap();
    std::fs::write(&own, "export {};\n").unwrap();
    let call = |session: Option<&str>| {
        let pins = load_for_call(&env).unwrap();
        let files = switch_offs::read_project_files(AgentKind::Copilot, &project, |_| None);
        let found = rewriting::in_call_files(
            &env,
            AgentKind::Copilot,
            &project,
            (None, session),
            &files,
            &pins,
        );
        found.len()
    };
    std::fs::create_dir_all(home.join(".copilot/session-state/a2b3")).unwrap();
    assert_eq!(call(Some("0f1e")), 1);
    assert_eq!(call(Some("a2b3")), 0);
    // An id with no folder (a subagent's), or not a folder name: every session's.
    assert_eq!(call(Some("c4d5")), 1);
    assert_eq!(call(Some("../a2b3")), 1);
    assert_eq!(call(None), 1);
}

/// docs/threats.md#r14: a variable a settings file hands the agent's hooks that chooses
/// what they run (`PATH`, `NODE_OPTIONS`, …) is accepted by `install` as it is, and one
/// added or changed since refuses the calls, named; other variables, an empty object and
/// a `null` value are nothing to accept. A value is read as the agent takes it (a list
/// as its text).
#[test]
fn a_variable_that_chooses_what_hooks_run_is_refused_unless_install_accepted_it() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("p");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let team = r#"{"env": {"PATH": "/opt/team/bin:/usr/bin:/bin", "TEAM_MODE": "strict"}}"#;
    std::fs::write(project.join(".claude/settings.json"), team).unwrap();
    let request = request(home.path(), Options::default());
    let change = plan(&request, None).unwrap();
    let pin = Pin::of(&change, &request);
    assert_eq!(pin.accepted_hooks.as_ref().map(Vec::len), Some(1));
    let covering = [&pin];
    let files = |text: &str| claude_project_refusals(&project, &covering, text);
    assert!(files(team).is_empty());
    // The same value as a one-element list is the same text to the agent.
    assert!(files(r#"{"env": {"PATH": ["/opt/team/bin:/usr/bin:/bin"]}}"#).is_empty());
    for (text, name) in [
        (r#"{"env": {"PATH": "/p/.tools:/usr/bin:/bin"}}"#, "PATH"),
        (
            r#"{"env": {"NODE_OPTIONS": "--require /p/x.js"}}"#,
            "NODE_OPTIONS",
        ),
        (r#"{"env": {"PYTHONPATH": ["/p/lib"]}}"#, "PYTHONPATH"),
        (
            r#"{"env": {"GIT_CONFIG_GLOBAL": "/p/gitconfig"}}"#,
            "GIT_CONFIG_GLOBAL",
        ),
    ] {
        let refused = files(text);
        assert!(
            refused.len() == 1
                && refused[0].contains(&format!(
                    "sets {name} for Claude Code's hooks (\"env\": {{\"{name}\": …}}), which hookhost's `install` did not see"
                )),
            "{text}: {refused:?}"
        );
    }
    for text in [
        r#"{"env": {"TEAM_MODE": "lax", "NODE_ENV": "test"}}"#,
        r#"{"env": {}}"#,
        r#"{"env": {"NODE_OPTIONS": null}}"#,
    ] {
        assert!(files(text).is_empty(), "{text}");
    }
}

/// R14, Gemini CLI: a variable of the project's `.env` that chooses what hooks run
/// (`PYTHONPATH`) reaches an accepted extension's hook: while a pin accepts a hook besides
/// hookhost's, one `install` did not see refuses the call, naming it, and `install` in the
/// project accepts it as it is. Without an accepted hook, a `.env`'s `PYTHONPATH=src`
/// refuses nothing.
#[test]
fn a_env_variable_that_chooses_what_hooks_run_is_refused_while_other_hooks_run() {
    let (_root, home, project, env) = repository();
    let refused = || unaccepted_project_hooks(&env, AgentKind::Gemini, &project);
    std::fs::write(project.join(".env"), "PYTHONPATH=src\nDEBUG=1\n").unwrap();
    installed(AgentKind::Gemini, &home, &project, &env);
    std::fs::write(project.join(".env"), "PYTHONPATH=/p/evil\n").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    // An extension with a hook, accepted by a new install (which accepts the `.env`'s
    // variable as it is now).
    let extension = home.join(".gemini/extensions/team");
    std::fs::create_dir_all(extension.join("hooks")).unwrap();
    std::fs::write(extension.join("hooks/lint.py"), "import json").unwrap();
    let hooks = serde_json::json!({"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "python3 ${extensionPath}/hooks/lint.py"}]}]}});
    std::fs::write(extension.join("hooks/hooks.json"), hooks.to_string()).unwrap();
    std::fs::write(project.join(".env"), "PYTHONPATH=src\n").unwrap();
    installed(AgentKind::Gemini, &home, &project, &env);
    assert_eq!(refused(), Vec::<String>::new());
    for text in [
        "PYTHONPATH=/p/evil\n",
        "DEBUG=1\nexport PYTHONPATH=src:/p/evil\n",
        "NODE_OPTIONS=--require /p/x.js\nPYTHONPATH=src\n",
    ] {
        std::fs::write(project.join(".env"), text).unwrap();
        let found = refused();
        assert!(
            found.len() == 1
                && found[0].starts_with(&format!("{} sets ", project.join(".env").display()))
                && found[0].contains("for Gemini CLI's hooks")
                && found[0].contains(&format!("in {} to accept it", project.display())),
            "{text}: {found:#?}"
        );
    }
    std::fs::write(project.join(".env"), "DEBUG=0\nPYTHONPATH=src\n").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
}

/// N11: what the agent's project files hand its hooks, by name, whatever the value:
/// Claude Code's project settings' `env` (not the user's own settings, from a folder of
/// the home too), Gemini CLI's project `.env` (not the home's), read from each folder
/// given.
#[test]
fn the_variables_the_agents_project_files_set_are_named() {
    let (_root, home, project, env) = repository();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.local.json"),
        r#"{"env": {"HOOK_MODE": "off", "COUNT": 9007199254740993, "AT": "$HOME"}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"env": {"HTTPS_PROXY": "http://proxy:3128"}}"#,
    )
    .unwrap();
    let claude = |folders: &[&Path]| set_by_project_files(AgentKind::ClaudeCode, &env, folders);
    assert_eq!(claude(&[&project]), ["AT", "COUNT", "HOOK_MODE"]);
    // From a folder of the home, the user's own settings are still the user's; with the
    // project beside it, the project's count.
    let inside = home.join("work");
    std::fs::create_dir_all(&inside).unwrap();
    assert!(claude(&[&inside]).is_empty());
    assert_eq!(claude(&[&inside, &project]), ["AT", "COUNT", "HOOK_MODE"]);
    std::fs::write(project.join(".env"), "POLICY=lax\n").unwrap();
    std::fs::write(home.join(".env"), "HOME_ONE=1\n").unwrap();
    assert_eq!(
        set_by_project_files(AgentKind::Gemini, &env, &[&project]),
        ["POLICY"]
    );
    assert!(set_by_project_files(AgentKind::Kimi, &env, &[&project]).is_empty());
}

/// A call's check asks once whether a folder between a project folder and its settings
/// files is there (`switch_offs::holds_nothing`, within the call's one look at the file
/// system): a `.claude` that is missing, a file or a link to nothing holds nothing the
/// agent reads; one made after a call, a link to a folder among them, is read by the next
/// call, its settings and its skills both.
#[cfg(unix)]
#[test]
fn a_settings_folder_made_after_a_call_is_read_by_the_next_call() {
    let (root, home, project, env) = repository();
    installed(AgentKind::ClaudeCode, &home, &project, &env);
    let cwd = project.join("a/b");
    std::fs::create_dir_all(&cwd).unwrap();
    let hookhost = Path::new("/usr/local/bin/hookhost");
    let refused = || {
        refused_call(
            &env,
            AgentKind::ClaudeCode,
            Some(&cwd),
            (Some("Bash"), None),
            None,
            hookhost,
        )
    };
    assert_eq!(refused(), Vec::<String>::new());
    let between = project.join("a/.claude");
    std::fs::write(&between, "{\"disableAllHooks\": true}").unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    std::fs::remove_file(&between).unwrap();
    let elsewhere = root.path().join("elsewhere");
    std::os::unix::fs::symlink(&elsewhere, &between).unwrap();
    assert_eq!(refused(), Vec::<String>::new());

    // The link's folder made: the next call reads what it holds.
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(
        elsewhere.join("settings.local.json"),
        "{\"disableAllHooks\": true}",
    )
    .unwrap();
    let refused_now = refused();
    assert!(
        refused_now.len() == 1
            && refused_now[0].contains("settings.local.json sets \"disableAllHooks\": true"),
        "{refused_now:#?}"
    );
    std::fs::remove_file(elsewhere.join("settings.local.json")).unwrap();
    assert_eq!(refused(), Vec::<String>::new());
    let evil = frontmatter("PreToolUse", "/bin/sh evil.sh");
    assert!(refuses_naming(
        &refused,
        &between.join("skills/x/SKILL.md"),
        &evil
    ));
    // And a `.claude` made where there was none, in the call's own folder.
    assert!(refuses_naming(
        &refused,
        &cwd.join(".claude/commands/fmt.md"),
        &evil
    ));
}

/// Within one call's check (`switch_offs::each_read_once`) a settings file is opened and
/// read once: asked for again, the same bytes, or the same answer for a missing file, a
/// folder and a file that is not a regular one (an error that is no errno, asked again);
/// a file larger than a check keeps is read again; the next check reads each as it is
/// then.
#[cfg(unix)]
#[test]
fn a_settings_file_is_read_once_per_check_and_again_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("settings.json");
    std::fs::write(&file, "{\"a\": 1}").unwrap();
    let missing = dir.path().join("missing.json");
    let folder = dir.path().join("folder.json");
    std::fs::create_dir(&folder).unwrap();
    let fifo = dir.path().join("fifo.json");
    make_fifo(&fifo);
    // One past what a check keeps of one file: read again when asked for again.
    let large = dir.path().join("large.json");
    let text = |c: char| format!("{{\"x\": \"{}\"}}", String::from(c).repeat(100 << 10));
    std::fs::write(&large, text('a')).unwrap();
    let read = |file: &Path| switch_offs::read_settings(file, |_| true);
    let not_regular = read(&fifo);
    assert!(
        matches!(&not_regular, Some(Err(why)) if why.contains("not a regular file")),
        "{not_regular:?}"
    );
    switch_offs::each_read_once(|| {
        assert_eq!(read(&file), Some(Ok(b"{\"a\": 1}".to_vec())));
        assert_eq!(read(&missing), None);
        assert_eq!(read(&folder), None);
        assert_eq!(read(&fifo), not_regular);
        assert_eq!(read(&large), Some(Ok(text('a').into_bytes())));
        std::fs::write(&file, "{\"a\": 2}").unwrap();
        std::fs::write(&missing, "{}").unwrap();
        std::fs::write(&large, text('b')).unwrap();
        assert_eq!(read(&large), Some(Ok(text('b').into_bytes())));
        assert_eq!(read(&file), Some(Ok(b"{\"a\": 1}".to_vec())));
        assert_eq!(read(&missing), None);
        assert_eq!(read(&fifo), not_regular);
    });
    assert_eq!(read(&file), Some(Ok(b"{\"a\": 2}".to_vec())));
    assert_eq!(read(&missing), Some(Ok(b"{}".to_vec())));
}

/// `switch_offs::holds_nothing`: a folder that is not there, or a file, holds nothing; a
/// folder, and `""` (the current folder, the parent of a one-part relative path), may.
#[test]
fn a_missing_folder_or_a_file_holds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    assert!(switch_offs::holds_nothing(&dir.path().join("missing")));
    assert!(switch_offs::holds_nothing(
        &dir.path().join("missing/below")
    ));
    assert!(switch_offs::holds_nothing(&file));
    assert!(switch_offs::holds_nothing(&file.join("below")));
    assert!(!switch_offs::holds_nothing(dir.path()));
    assert!(!switch_offs::holds_nothing(Path::new("")));
}

/// What one check keeps of its reads is bounded in all, absent files' answers included: a
/// project of thousands of absent hook files (links to nowhere) fills it, and the files
/// asked for after that are read again, as before the memo.
#[test]
fn a_check_keeps_a_bounded_number_of_absent_files() {
    let dir = tempfile::tempdir().unwrap();
    let absent = |i: usize| {
        dir.path()
            .join(format!("absent-{i:05}-{}.md", "x".repeat(64)))
    };
    let read = |file: &Path| switch_offs::read_settings(file, |_| true);
    switch_offs::each_read_once(|| {
        for i in 0..20_000 {
            assert_eq!(read(&absent(i)), None);
        }
        // The first was kept: absent for the rest of the check. The last was not.
        for i in [0, 19_999] {
            std::fs::write(absent(i), "{}").unwrap();
        }
        assert_eq!(read(&absent(0)), None);
        assert_eq!(read(&absent(19_999)), Some(Ok(b"{}".to_vec())));
    });
}
