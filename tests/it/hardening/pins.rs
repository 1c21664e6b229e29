//! What `install` pins and the bridge checks on each call: the config, the pins file, the
//! hook scripts, the registered binary, the settings a refused change names, and the
//! modes `install` writes with.

use super::*;

/// hookhost's own config is pinned at install (issue 27 item 4; docs/threats.md#r5): the
/// config emptied the way an agent would (`: > config.toml`) is refused on the next call,
/// naming the file and the fix; a legitimate edit is refused too until `install` shows the
/// change and pins it, after which the hooks run as edited.
#[test]
fn an_emptied_config_is_refused_until_install_shows_the_change_and_pins_it() {
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    let config = m.config_file();
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "hookhost's config {} (1 hook: marker) is pinned with the registration: after you edit it, check it and run `hookhost install claude-code` again to pin it; until then hookhost blocks this agent's calls.",
            config.display()
        )),
        "{stdout}"
    );
    assert_eq!(
        denied(&m.bridge(&m.bash("echo FORBIDDEN"))).as_deref(),
        Some("blocked by the user's hook \"marker\": FORBIDDEN is not allowed")
    );

    // Emptied: the next call is refused, and so is every other call, until it is pinned.
    std::fs::write(&config, "").unwrap();
    let emptied = format!(
        "hookhost's config {} changed since `hookhost install claude-code` pinned it (1 hook: marker then, no hooks now), so hookhost blocks this agent's calls rather than run hooks it did not pin. If you made this change, check it (`hookhost check`), then run `hookhost install claude-code`, which shows the change and pins the config as it is now; if you did not, restore the file.",
        config.display()
    );
    for command in ["echo FORBIDDEN", "echo ok"] {
        assert_eq!(
            denied(&m.bridge(&m.bash(command))).as_deref(),
            Some(emptied.as_str()),
            "{command}"
        );
    }
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!("  ✗ config {}: {emptied}", config.display())),
        "{stdout}"
    );

    // The user's own edit (a second hook): refused until installed again, which says
    // what changed.
    m.write_marker_config(
        "\n[[hooks]]\nname = \"other\"\nevent = \"UserPromptSubmit\"\ncommand = [\"/bin/true\"]\n",
    );
    let reason = denied(&m.bridge(&m.bash("echo ok"))).unwrap_or_default();
    assert!(
        reason.contains("(1 hook: marker then, 2 hooks: marker, other now)"),
        "{reason}"
    );
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "hookhost is already installed for Claude Code in {}; nothing to change.",
            m.claude_settings().display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "hookhost's config {} changed since it was pinned: 1 hook: marker then, 2 hooks: marker, other now (hooks removed: none; added: other). It is pinned as it is now, for every agent whose registration loads it.",
            config.display()
        )),
        "{stdout}"
    );
    assert_eq!(denied(&m.bridge(&m.bash("echo ok"))), None);
    assert_eq!(
        denied(&m.bridge(&m.bash("echo FORBIDDEN"))).as_deref(),
        Some("blocked by the user's hook \"marker\": FORBIDDEN is not allowed")
    );
}

/// Deleting or emptying the pins file does not turn the pin check off (N8): the bridge
/// finds hookhost's registration in the agent's settings with no pin, and refuses; a
/// settings change that also removes the registration is refused by `ConfigChange`.
#[test]
fn the_pins_file_removed_or_emptied_is_refused() {
    let m = Newcomer::with_claude_code_installed();
    assert_eq!(denied(&m.bridge(&m.bash("echo ok"))), None);
    let settings = m.claude_settings();
    let pins = m.pins();
    let unpinned = format!(
        "hookhost is registered with Claude Code in {}, but no pin covers it ({} is missing or holds no pin for it), so hookhost blocks this agent's calls: without its pin, a change to the registration or to hookhost's config would go unnoticed. If you did not remove the pins, something did: check {} and hookhost's config, then run `hookhost install claude-code` to pin them again.",
        settings.display(),
        pins.display(),
        settings.display()
    );
    std::fs::remove_file(&pins).unwrap();
    assert_eq!(
        denied(&m.bridge(&m.bash("echo ok"))).as_deref(),
        Some(unpinned.as_str())
    );
    std::fs::write(&pins, "{\"version\":1,\"pins\":[]}").unwrap();
    assert_eq!(
        denied(&m.bridge(&m.bash("echo ok"))).as_deref(),
        Some(unpinned.as_str())
    );
    // With the registration removed in the same command, Claude Code's ConfigChange (the
    // session's loaded hooks still call hookhost) refuses the change.
    std::fs::remove_file(&pins).unwrap();
    std::fs::write(&settings, "{}").unwrap();
    let change = json!({
        "session_id": "own-1", "transcript_path": null, "cwd": m.project,
        "permission_mode": "default", "hook_event_name": "ConfigChange",
        "source": "user_settings", "file_path": settings,
    });
    let (code, stdout, stderr) = m.bridge(&change);
    assert_eq!(code, 0, "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout:?}"));
    assert_eq!(answer["decision"], "block", "{answer}");
    assert_eq!(
        answer["reason"],
        format!(
            "Claude Code called hookhost's settings-change hook, so hookhost is registered, but no pin covers it ({} is missing or holds no pin for it); hookhost refuses this change to {}, so this session keeps hookhost's hooks. If you ran `hookhost uninstall claude-code`, they go with the next session; if not, something removed the pins: check {}, then run `hookhost install claude-code` to pin the registration again.",
            pins.display(),
            settings.display(),
            settings.display()
        )
    );
    // Installing again pins it all; the calls go ahead.
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    assert_eq!(denied(&m.bridge(&m.bash("echo ok"))), None);
}

/// B8: with the pins removed, a registration in a file hookhost's plan cannot read (a
/// lone surrogate Claude Code's `JSON.parse` takes, bytes that are not UTF-8, a file
/// past the cap) was "not registered", and the N8 check said nothing. Now a file that
/// names hookhost and cannot be planned, or cannot be read at all, is refused as one
/// that may hold an unpinned registration, naming the file and why.
#[test]
fn a_registration_hookhost_cannot_plan_with_the_pins_removed_is_refused() {
    let m = Newcomer::with_claude_code_installed();
    let settings = m.claude_settings();
    let installed = std::fs::read_to_string(&settings).unwrap();
    let pins = m.pins();
    std::fs::remove_file(&pins).unwrap();
    let cannot_tell = format!(
        "hookhost cannot tell whether {} registers it with Claude Code (",
        settings.display()
    );
    let registered = format!(
        "hookhost is registered with Claude Code in {}, but no pin covers it",
        settings.display()
    );
    let with_note = |note: &[u8]| {
        let mut bytes = b"{\"note\": \"".to_vec();
        bytes.extend_from_slice(note);
        bytes.extend_from_slice(b"\",");
        bytes.extend_from_slice(&installed.as_bytes()[1..]);
        bytes
    };
    let padding = "x".repeat(17 << 20);
    let cases = [
        (
            with_note(b"\\ud800"),
            &cannot_tell,
            "unexpected end of hex escape",
        ),
        // The same, with hookhost's name escaped in the registration.
        (
            String::from_utf8(with_note(b"\\ud800"))
                .unwrap()
                .replace("hookhost bridge", "\\u0068ookhost bridge")
                .into_bytes(),
            &cannot_tell,
            "unexpected end of hex escape",
        ),
        // Read as the agent reads it, U+FFFD for the byte: the registration is seen.
        (with_note(b"\xff"), &registered, ""),
        (
            with_note(padding.as_bytes()),
            &cannot_tell,
            "it is larger than 16 MiB",
        ),
    ];
    for (bytes, expected, why) in cases {
        std::fs::write(&settings, &bytes).unwrap();
        let reason = denied(&m.bridge(&m.bash("echo ok")));
        assert!(
            reason
                .as_ref()
                .is_some_and(|r| r.starts_with(expected.as_str()) && r.contains(why)),
            "{why}: {reason:?}"
        );
    }
}

/// A pinned settings file rewritten with an indent of a mebibyte and an array of 200,000
/// zeros (docs/threats.md#b4): checking the pin plans the file written back in its own
/// style, which was 200 GB and killed the bridge (a dead bridge is "go ahead" to the
/// agent). Now the plan stops at its bound and the call is refused, naming the file.
#[test]
fn a_settings_file_that_would_be_written_back_into_terabytes_blocks_the_call() {
    let m = Newcomer::with_claude_code_installed();
    let settings = m.claude_settings();
    let installed: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let zeros = vec!["0"; 200_000].join(",");
    let indent = " ".repeat(1 << 20);
    std::fs::write(
        &settings,
        format!(
            "{{\n{indent}\"x\": [{zeros}],\n{indent}\"hooks\": {}\n}}\n",
            installed["hooks"]
        ),
    )
    .unwrap();
    let reply = m.bridge(&m.bash("echo ok"));
    assert_eq!(reply.0, 0, "{reply:?}");
    let reason = denied(&reply).unwrap_or_else(|| panic!("not refused: {reply:?}"));
    assert!(
        reason.contains(&format!(
            "cannot be checked: {}: written back in its own style (1048576 characters of indentation a level) it would be over 16 MiB, more than hookhost reads of a settings file",
            settings.display()
        )),
        "{reason}"
    );
}

/// `doctor` checks, per installed agent, the registered binary against its pinned digest
/// (a bridge whose binary was replaced runs none of hookhost's checks; docs/threats.md#r5)
/// and the project's switch-offs (N7).
#[test]
fn doctor_reports_a_project_switch_off_and_a_replaced_binary() {
    use sha2::Digest;
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    // The binary registered is a copy of the test's, replaced below by a rename. A copy,
    // not a second name: a link changes the test binary's change time, and a warm server
    // of it that another test runs meanwhile would stop as "its binary was replaced".
    let registered = m.root.path().join("installed/hookhost");
    std::fs::create_dir_all(registered.parent().unwrap()).unwrap();
    crate::support::copy_program(env!("CARGO_BIN_EXE_hookhost"), &registered);
    let (code, stdout, stderr) = run(&mut m.command(&registered, &["install", "claude-code"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let digest = |path: &Path| {
        let mut file = std::fs::File::open(path).unwrap();
        let mut hasher = sha2::Sha256::new();
        std::io::copy(&mut file, &mut hasher).unwrap();
        format!("sha256:{}", &hex::encode(hasher.finalize())[..12])
    };
    let then = digest(&registered);
    let (_, stdout, _) = m.run(&["doctor"]);
    assert!(
        stdout.contains(&format!("  ✓ binary {}: as pinned ", registered.display())),
        "{stdout}"
    );

    let fake = m.root.path().join("installed/fake");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::rename(&fake, &registered).unwrap();
    let now = digest(&registered);
    let local = m.project.join(".claude/settings.local.json");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, "{\"disableAllHooks\": true}").unwrap();

    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    let binary = format!(
        "the hookhost binary {} changed since `hookhost install claude-code` pinned it ({then}… then, {now}… now): the agent runs whatever is there, and a replaced binary need not run hookhost's checks at all. If you upgraded hookhost, run `hookhost install claude-code` to pin it; if not, reinstall hookhost, then run it",
        registered.display()
    );
    let switch_off = format!(
        "{} sets \"disableAllHooks\": true, which switches off every Claude Code hook, hookhost's among them, so hookhost blocks this agent's calls. Remove it from {} if you did not put it there (`hookhost doctor` lists every switch-off it finds).",
        local.display(),
        local.display()
    );
    assert!(
        stdout.contains(&format!("  ✗ binary {}: {binary}\n", registered.display())),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("  ✗ {switch_off}\n")), "{stdout}");
    let (code, report) = m.doctor_json();
    assert_eq!(code, 1);
    let claude = &report["agents"][0];
    assert_eq!(claude["switch_offs"], json!([switch_off]), "{report}");
    let own = claude["own_files"].as_array().unwrap();
    assert!(
        own.contains(&json!({"what": "binary", "file": registered, "ok": false, "detail": binary})),
        "{report}"
    );
    assert!(
        own.iter().any(|f| f["what"] == "config" && f["ok"] == true),
        "{report}"
    );
}

/// `install claude-code` asks `claude --version` of a `claude` in an absolute PATH folder
/// only: one that a relative entry (`.`) would find in the project never runs, and the
/// note says why onFailure is not written (docs/threats.md#n16).
#[test]
fn install_never_runs_a_claude_the_project_put_on_a_relative_path_entry() {
    use std::os::unix::fs::PermissionsExt;
    let m = Machine::new();
    let marker = m.scene.root.path().join("ran");
    let planted = m.scene.project.join("claude");
    std::fs::write(
        &planted,
        format!(
            "#!/bin/sh\ntouch '{}'\necho '2.1.300 (Claude Code)'\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, stdout, stderr) = run(m
        .hookhost()
        .current_dir(&m.scene.project)
        .env("PATH", format!(".:{}", m.bin.display()))
        .args(["install", "claude-code"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!marker.exists(), "the project's claude ran");
    assert!(
        stdout.contains(
            "No Claude Code found to ask its version (`claude` is in no absolute folder of PATH), so onFailure is not written"
        ),
        "{stdout}"
    );
    let settings = std::fs::read_to_string(m.claude_settings()).unwrap();
    assert!(!settings.contains("onFailure"), "{settings}");
}

/// A settings file and folders `install` creates are 0644 and 0755 whatever the umask
/// (docs/threats.md#n15): under `umask 000` they were 0666 and 0777, so that any local
/// user could register their own hook, run as this user.
#[test]
fn install_creates_settings_no_other_user_can_write_under_umask_000() {
    use std::os::unix::fs::PermissionsExt;
    let m = Machine::new();
    let hookhost = m.hookhost();
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(hookhost.get_program())
        .args(hookhost.get_args())
        .args(["install", "gemini"]);
    for (name, value) in hookhost.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let (code, stdout, stderr) = run(&mut command);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let folder = m.home.join(".gemini");
    assert_eq!(mode(&folder), 0o755);
    assert_eq!(mode(&folder.join("settings.json")), 0o644);
}

/// The files a hook runs are pinned with the config (issue 27 item 4): the marker hook's
/// script rewritten to let everything through (what an agent would do) is refused on the
/// next call, naming the file and the hook, until `install` shows the change and pins it.
#[test]
fn a_rewritten_hook_script_is_refused_until_install_pins_it() {
    let m = Newcomer::with_claude_code_installed();
    let script = m.root.path().join("marker.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    let refused = format!(
        "the file {} that hookhost's hook \"marker\" runs changed since `hookhost install claude-code` pinned it, so hookhost blocks this agent's calls rather than run a hook it did not pin. If you made this change, check it (`hookhost check`), then run `hookhost install claude-code` to pin it as it is now; if you did not, restore the file.",
        script.display()
    );
    for command in ["echo FORBIDDEN", "echo ok"] {
        assert_eq!(
            denied(&m.bridge(&m.bash(command))).as_deref(),
            Some(refused.as_str()),
            "{command}"
        );
    }
    // The same bytes again (only its change time moved): as pinned.
    m.write_marker_config("");
    assert_eq!(
        denied(&m.bridge(&m.bash("echo FORBIDDEN"))).as_deref(),
        Some("blocked by the user's hook \"marker\": FORBIDDEN is not allowed")
    );
    // `doctor` says what that costs: each call hashes the file again, until install.
    let moved = format!(
        "the metadata of {} changed since (same bytes), so every bridged call hashes 1 KB again to check them: `hookhost install claude-code` pins them as they are now",
        script.display()
    );
    let (_, doctor, _) = m.run(&["doctor"]);
    assert!(doctor.contains(&moved), "{doctor}");
    // The user's own change, pinned by install, which says what changed.
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "the files hookhost's hooks run changed since they were pinned: {} (hook marker).",
            script.display()
        )),
        "{stdout}"
    );
    assert_eq!(denied(&m.bridge(&m.bash("echo FORBIDDEN"))), None);
    let (_, doctor, _) = m.run(&["doctor"]);
    assert!(!doctor.contains("changed since (same bytes)"), "{doctor}");
}

/// B9: a pinned hook script swapped for a FIFO, a link to `/dev/zero` or a sparse file
/// of 100 GB: the pin check hashed it without end (or for minutes), past the agent's
/// timeout, which most agents take for "go ahead". Another size is "changed" at once, and
/// only a regular file is ever hashed, up to its cap.
#[test]
fn a_hook_script_swapped_for_a_file_without_end_is_refused_at_once() {
    let m = Newcomer::with_claude_code_installed();
    let script = m.root.path().join("marker.sh");
    let refused = format!(
        "the file {} that hookhost's hook \"marker\" runs changed since `hookhost install claude-code` pinned it",
        script.display()
    );
    type Swap = (&'static str, fn(&Path));
    let swaps: [Swap; 3] = [
        ("a FIFO", |p| {
            assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
        }),
        ("a link to /dev/zero", |p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap();
        }),
        ("a sparse file of 100 GB", |p| {
            std::fs::File::create(p)
                .unwrap()
                .set_len(100 << 30)
                .unwrap();
        }),
    ];
    for (what, swap) in swaps {
        std::fs::remove_file(&script).unwrap();
        swap(&script);
        let reason = denied(&m.bridge(&m.bash("echo ok")));
        assert!(
            reason.as_ref().is_some_and(|r| r.starts_with(&refused)),
            "{what}: {reason:?}"
        );
    }
}

/// A settings change that `ConfigChange` refuses blocks the rest of that session, naming
/// the file and the key, even once the change is undone (docs/threats.md#r4): the user
/// learns of it at once. Another session is not blocked; `install` run again (pins
/// changed) lets the session go on.
#[test]
fn a_refused_settings_change_blocks_the_rest_of_its_session_until_install() {
    let m = Machine::new();
    m.claude("2.1.300");
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    assert_eq!(denied(&m.bridge("claude-code", &m.call())), None);
    let local = m.scene.project.join(".claude/settings.local.json");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, "{\"disableAllHooks\": true}").unwrap();
    let (_, stdout, _) = m.bridge("claude-code", &m.config_change(&local));
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    // The agent undoes its change at once, to hide it.
    std::fs::remove_file(&local).unwrap();
    let reason = denied(&m.bridge("claude-code", &m.call())).expect("the session goes on");
    assert!(
        reason.starts_with(
            "Earlier in this session hookhost refused a change to Claude Code's settings, so it blocks the rest of this session: "
        ) && reason.contains(&format!(
            "{} now sets \"disableAllHooks\": true",
            local.display()
        )) && reason.ends_with(
            "run `hookhost install claude-code` again, which pins them and lets this session go on, or start a new session."
        ),
        "{reason}"
    );
    // Another session of the same agent is not blocked.
    let mut other = m.call();
    other["session_id"] = json!("pin-other");
    assert_eq!(denied(&m.bridge("claude-code", &other)), None);
    // install again: the pins change, and the session goes on.
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    assert_eq!(denied(&m.bridge("claude-code", &m.call())), None);
}

/// The hand-over to `hookhost warm` is opt-in and pinned: `install --warm` registers a
/// bridge with `--warm`, the calls through it go ahead while the registration is as
/// written, and the flag taken out of the settings (or put in, or moved) is a drifted
/// registration the next call refuses. The system bridge never takes it.
#[test]
fn the_warm_flag_is_registered_pinned_and_its_removal_refused() {
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    let (code, stdout, stderr) = m.run(&["install", "claude-code", "--warm"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let settings = m.claude_settings();
    let installed = std::fs::read_to_string(&settings).unwrap();
    let written: Value = serde_json::from_str(&installed).unwrap();
    for event in ["PreToolUse", "UserPromptSubmit"] {
        let command = written["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("{installed}"));
        // The program is `hookhost-client`, beside the hookhost that installed it.
        let client = Path::new(env!("CARGO_BIN_EXE_hookhost-client"));
        assert!(
            command.contains(client.to_str().unwrap())
                && command.ends_with(" bridge --agent claude-code --warm"),
            "{command}"
        );
    }
    // Bridged as registered (no server at the user's default socket: run here), through
    // the client the registration names.
    let bridge = |payload: &Value, warm: bool| {
        let mut args = vec!["--no-sandbox", "bridge", "--agent", "claude-code"];
        let mut program = env!("CARGO_BIN_EXE_hookhost");
        if warm {
            args.push("--warm");
            program = env!("CARGO_BIN_EXE_hookhost-client");
        }
        run_with_stdin(
            &mut m.command(program, &args),
            payload.to_string().as_bytes(),
        )
    };
    assert_eq!(denied(&bridge(&m.bash("echo ok"), true)), None);
    assert_eq!(
        denied(&bridge(&m.bash("echo FORBIDDEN"), true)).as_deref(),
        Some("blocked by the user's hook \"marker\": FORBIDDEN is not allowed")
    );

    // The flag taken out: the registration drifted, whichever bridge is called.
    std::fs::write(&settings, installed.replace(" --warm\"", "\"")).unwrap();
    for warm in [false, true] {
        let reason = denied(&bridge(&m.bash("echo ok"), warm))
            .unwrap_or_else(|| panic!("warm {warm}: the call went ahead"));
        assert!(
            reason.contains(&format!(
                "hookhost's registration with Claude Code in {}",
                settings.display()
            )) && reason.contains("hookhost install claude-code"),
            "{reason}"
        );
    }
    // Installing again without it is accepted and pinned as such; putting it back by hand
    // is drift in turn.
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(denied(&bridge(&m.bash("echo ok"), false)), None);
    std::fs::write(&settings, installed).unwrap();
    assert!(denied(&bridge(&m.bash("echo ok"), true)).is_some());

    // Never with the system scope (refused before the administrator's checks), and a
    // socket only by its absolute path.
    let (code, stdout, stderr) = m.run(&["install", "claude-code", "--scope", "system", "--warm"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.starts_with(
            "hookhost: --warm cannot be used with --scope system: the system bridge never hands a call to a user's warm server"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = m.run(&[
        "install",
        "claude-code",
        "--scope",
        "system",
        "--warm-socket",
        "/run/w.sock",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("hookhost: --warm-socket cannot be used with --scope system"),
        "{stderr}"
    );
    let (code, _, stderr) = m.run(&["install", "claude-code", "--warm-socket", "w.sock"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with(
            "hookhost: --warm-socket w.sock: the warm server's socket must be an absolute path"
        ),
        "{stderr}"
    );
    let (code, _, _) = m.run(&[
        "install",
        "claude-code",
        "--warm",
        "--warm-socket",
        "/run/w.sock",
    ]);
    assert_eq!(code, 2, "clap keeps the two apart");
}

/// `install --warm` registers the `hookhost-client` beside hookhost, refuses when there is
/// none, and pins its digest, which `doctor` checks like hookhost's own (a client replaced
/// by `exit 0` would let every call through; docs/threats.md#r5).
#[test]
fn the_client_a_warm_registration_names_is_pinned_and_checked() {
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    let installed = m.root.path().join("installed");
    std::fs::create_dir_all(&installed).unwrap();
    let hookhost = installed.join("hookhost");
    // A copy: a link would change the test binary's change time, and other tests' warm
    // servers of it would stop as "its binary was replaced".
    crate::support::copy_program(env!("CARGO_BIN_EXE_hookhost"), &hookhost);
    let client = installed.join("hookhost-client");

    let (code, stdout, stderr) =
        run(&mut m.command(&hookhost, &["install", "claude-code", "--warm"]));
    assert_eq!(code, 2, "{stdout}");
    assert_eq!(
        stderr,
        format!(
            "hookhost: --warm registers {}, the small program that hands calls to the warm server, and there is none beside {}: install both (`cargo install` and `cargo build --release` build both), or register without --warm\n",
            client.display(),
            hookhost.display()
        )
    );
    assert!(!m.claude_settings().exists());

    crate::support::copy_program(env!("CARGO_BIN_EXE_hookhost-client"), &client);
    let (code, stdout, stderr) =
        run(&mut m.command(&hookhost, &["install", "claude-code", "--warm"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let settings = std::fs::read_to_string(m.claude_settings()).unwrap();
    assert!(settings.contains(client.to_str().unwrap()), "{settings}");
    let pins: Value = serde_json::from_str(
        &std::fs::read_to_string(m.root.path().join("state/hookhost/pins.json")).unwrap(),
    )
    .unwrap();
    let pin = &pins["pins"][0];
    assert_eq!(pin["hookhost"], json!(hookhost), "{pins}");
    assert!(
        pin["client_digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:")),
        "{pins}"
    );
    // Called as the agent calls it, it judges (no server: the hookhost beside it runs).
    let forbidden = json!({
        "session_id": "client-1", "transcript_path": null, "cwd": m.project,
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "echo FORBIDDEN"}
    });
    let reply = run_with_stdin(
        &mut m.command(
            &client,
            &["--no-sandbox", "bridge", "--agent", "claude-code", "--warm"],
        ),
        forbidden.to_string().as_bytes(),
    );
    assert_eq!(
        denied(&reply).as_deref(),
        Some("blocked by the user's hook \"marker\": FORBIDDEN is not allowed"),
        "{reply:?}"
    );
    let (code, stdout, _) = run(&mut m.command(&hookhost, &["doctor"]));
    assert!(
        stdout.contains(&format!("  ✓ binary {}: as pinned ", hookhost.display())),
        "{code} {stdout}"
    );

    let fake = installed.join("fake");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::rename(&fake, &client).unwrap();
    let (code, stdout, _) = run(&mut m.command(&hookhost, &["doctor"]));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "  ✗ binary {}: the hookhost-client {} changed since `hookhost install claude-code` pinned it (",
            hookhost.display(),
            client.display()
        )),
        "{stdout}"
    );
}

/// `doctor` says where a `--warm-socket` registration's calls go: nowhere yet (✓, they run
/// in their own processes), to the server a bridge vouches for (✓, with its pid), or past
/// something a bridge would not hand a call to (✗: here a listener that never greets).
#[test]
fn doctor_says_where_a_warm_registrations_calls_go() {
    use std::os::unix::fs::PermissionsExt;
    use std::process::Stdio;
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    let run_folder = m.root.path().join("run");
    std::fs::create_dir_all(&run_folder).unwrap();
    std::fs::set_permissions(&run_folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    let socket = run_folder.join("w.sock");
    let socket_arg = socket.to_str().unwrap();
    let (code, stdout, stderr) = m.run(&["install", "claude-code", "--warm-socket", socket_arg]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let warm_line = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.contains("warm server:"))
            .unwrap_or_else(|| panic!("{stdout}"))
            .to_string()
    };

    let (_, stdout, _) = m.run(&["doctor"]);
    let line = warm_line(&stdout);
    assert!(
        line.starts_with("✓ warm server: claude-code: no warm server at")
            && line.contains("so its calls run in their own processes"),
        "{line}"
    );

    let mut server = m
        .command(
            env!("CARGO_BIN_EXE_hookhost"),
            &["warm", "--warm-socket", socket_arg],
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(crate::support::wait_until(|| socket.exists()));
    let (_, stdout, _) = m.run(&["doctor"]);
    let line = warm_line(&stdout);
    assert!(
        line.starts_with(&format!(
            "✓ warm server: claude-code: handed to the warm server at {} (pid {}",
            socket.display(),
            server.id()
        )),
        "{line}"
    );
    // From a process confined otherwise (no-new-privileges, as sandboxes set it): the
    // server greets it and takes none of its calls, and doctor says so.
    let mut confined = m.command(env!("CARGO_BIN_EXE_hookhost"), &["doctor"]);
    // SAFETY: prctl is async-signal-safe and touches only the child.
    unsafe {
        use std::os::unix::process::CommandExt;
        confined.pre_exec(|| {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let (_, stdout, _) = run(&mut confined);
    let line = warm_line(&stdout);
    assert!(
        line.starts_with(&format!(
            "✓ warm server: claude-code: the warm server at {} (pid {}) takes no call from this process (it is confined otherwise than the server",
            socket.display(),
            server.id()
        )) && line.ends_with("so calls made from here run in their own processes"),
        "{line}"
    );
    let _ = server.kill();
    let _ = server.wait();

    // Something that takes connections and never greets.
    let _ = std::fs::remove_file(&socket);
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let (code, stdout, _) = m.run(&["doctor"]);
    let line = warm_line(&stdout);
    assert!(
        line.starts_with(&format!(
            "✗ warm server: claude-code: what listens at {} gets no call (its greeting",
            socket.display()
        )) && line.contains("start `hookhost warm` again"),
        "{line}"
    );
    assert_eq!(code, 1, "{stdout}");
    let (_, json) = m.doctor_json();
    assert_eq!(json["warm"]["ok"], false, "{json}");
}
