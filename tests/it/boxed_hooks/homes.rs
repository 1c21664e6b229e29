//! The credential folders the box hides when HOME is unset or wrong, or the user has no home.

use super::*;

/// A bwrap that records its arguments (one file per run, one argument a line) and then
/// runs the real one.
fn recording_bwrap(scene: &Scene) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let real = hookhost::sandbox::probe(None, std::env::var_os("PATH").as_deref(), &scene.project)
        .unwrap()
        .path;
    let log = scene.root.path().join("bwrap-args");
    std::fs::create_dir_all(&log).unwrap();
    let wrapper = scene.root.path().join("bwrap");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'/$$\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    (wrapper, log)
}

/// The argument lists of every recorded bwrap run that ran a command in the box (not
/// the probe), and clears the log.
fn recorded_box_runs(log: &std::path::Path) -> Vec<Vec<String>> {
    let mut runs = Vec::new();
    for entry in std::fs::read_dir(log).unwrap() {
        let path = entry.unwrap().path();
        let args: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        // The probe runs `true` with `--chdir /`; a box runs in the project.
        let probe = args.windows(2).any(|w| w[0] == "--chdir" && w[1] == "/");
        if !probe {
            runs.push(args);
        }
        std::fs::remove_file(&path).unwrap();
    }
    runs
}

/// docs/threats.md#f14: with `HOME` unset or wrong, the box still hides the credential
/// folders of the real home (the password database's, for the real uid): the argument
/// list covers each one the real home holds, and a command in the box finds each there
/// and hidden (a folder an empty tmpfs, a file `/dev/null`, which cannot be opened).
#[test]
fn with_home_unset_or_wrong_the_real_homes_credentials_are_hidden() {
    let test = "with_home_unset_or_wrong_the_real_homes_credentials_are_hidden";
    if !support::bwrap_or_skip(test) {
        return;
    }
    let homes = hookhost::sandbox::Homes::find(None);
    let Some(real_home) = homes.passwd.clone() else {
        eprintln!("SKIPPED {test}: the password database has no home for this uid");
        return;
    };
    // Only paths that exist are covered (a missing one outside the writable folders
    // cannot be created in the box): look for those the real home has.
    let present: Vec<std::path::PathBuf> = hookhost::sandbox::default_hidden(&real_home)
        .into_iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    if present.is_empty() {
        eprintln!(
            "SKIPPED {test}: {} holds none of the default hidden paths, so the argument list cannot show them",
            real_home.display()
        );
        return;
    }
    // What a command sees of each path: a folder's entries, a file's size (never its
    // content, which is a credential), nothing for a file that is a device that reads
    // nothing (`/dev/null`, where the box has hidden one; on a nodev mount, so that it
    // cannot even be opened). Empty output: every path is there, and hidden.
    let show = r#"for p in "$@"; do
if [ -d "$p" ]; then ls -A "$p" | sed "s|^|$p holds |"
elif [ -c "$p" ]; then [ "$(head -c 1 "$p" 2>/dev/null | wc -c)" = 0 ] || echo "$p can be read"
elif [ -e "$p" ]; then echo "$p is a file of $(wc -c < "$p") bytes"
else echo "$p is missing"; fi
done"#;
    let shown_on_the_host = support::run(
        std::process::Command::new("sh")
            .args(["-c", show, "sh"])
            .args(&present),
    )
    .1;
    let scene = Scene::new();
    scene.write_config("");
    let (wrapper, log) = recording_bwrap(&scene);
    for home in [None, Some("/nonexistent-home-of-hookhost-test")] {
        let mut cmd = scene.hookhost();
        cmd.env("HOOKHOST_BWRAP", &wrapper)
            .args(["box", "--", "sh", "-c", show, "sh"])
            .args(&present);
        match home {
            None => cmd.env_remove("HOME"),
            Some(h) => cmd.env("HOME", h),
        };
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "HOME={home:?}: {stderr}");
        assert!(!stderr.contains("no home folder is known"), "{stderr}");
        // In the box every credential path of the real home is there, and empty.
        assert_eq!(
            stdout, "",
            "HOME={home:?}: the box shows the real home's credentials (the host shows:\n{shown_on_the_host})"
        );
        let runs = recorded_box_runs(&log);
        assert_eq!(runs.len(), 1, "HOME={home:?}: {runs:?}");
        let args = &runs[0];
        for path in &present {
            let path = path.to_str().unwrap();
            let covered = args.windows(2).any(|w| w[0] == "--tmpfs" && w[1] == path)
                || args
                    .windows(3)
                    .any(|w| w[0] == "--ro-bind" && w[1] == "/dev/null" && w[2] == path);
            assert!(covered, "HOME={home:?}: {path} is not hidden: {args:?}");
        }
    }
}

/// With neither `HOME` nor a password-database entry, the box hides nothing by
/// default, and `check` and `hookhost box` say so.
#[test]
fn a_user_with_no_home_is_told_the_box_hides_nothing() {
    let test = "a_user_with_no_home_is_told_the_box_hides_nothing";
    let setpriv = || {
        let mut cmd = std::process::Command::new("setpriv");
        cmd.args(["--reuid=54321", "--regid=54321", "--clear-groups"]);
        cmd
    };
    if !setpriv().arg("true").status().is_ok_and(|s| s.success()) {
        support::skip_or_fail(
            test,
            Prerequisite::OtherUser,
            "cannot switch to uid 54321 with setpriv (not root?)",
        );
        return;
    }
    let Some(world) = support::OtherUserWorld::new(test) else {
        return;
    };
    let hookhost = world.copy_executable(std::path::Path::new(env!("CARGO_BIN_EXE_hookhost")));
    let scene = world.scene();
    let script = scene.script("h.sh", "exit 0");
    scene.write_config(&sh_hook("h", &script, ""));
    let warning = "⚠ no home folder is known (HOME is unset and the password database has no entry for uid 54321), so the box hides no credential folders by default; set HOME or list them in [sandbox] hide.";
    let run_as_stranger = |args: &[&str]| {
        setpriv()
            .arg(&hookhost)
            .arg("--config")
            .arg(&scene.config)
            .arg("--project")
            .arg(&scene.project)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap()
    };
    let out = run_as_stranger(&["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The start-up warnings are on stderr (stdout holds only the banner).
    if stderr.contains("bubblewrap cannot run here") {
        support::skip_or_fail(
            test,
            Prerequisite::Bubblewrap,
            &format!("bubblewrap cannot run as uid 54321 here: {}", stderr.trim()),
        );
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(warning), "{stderr}");
    let out = run_as_stranger(&["box", "--", "true"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(warning), "{stderr}");
}

/// docs/threats.md#f8: an agent whose folder its variable moves (`CODEX_HOME`,
/// `COPILOT_HOME`, `QWEN_HOME`, `KIMI_CODE_HOME`) keeps its login there, and the box hides
/// it there too: through `hookhost box` (this process's environment) and for a boxed hook
/// of a bridged call (the call's environment). The hook files kept beside the login stay
/// readable, and on the host every secret reads (the test wrote what it meant to).
#[test]
fn the_logins_in_moved_agent_folders_are_hidden_in_the_box() {
    let test = "the_logins_in_moved_agent_folders_are_hidden_in_the_box";
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    let moved = scene.root.path().join("moved");
    let folders = [
        ("CODEX_HOME", "codex", "auth.json"),
        ("COPILOT_HOME", "copilot", "config.json"),
        ("QWEN_HOME", "qwen", "oauth_creds.json"),
        ("KIMI_CODE_HOME", "kimi", "credentials/kimi-code.json"),
    ];
    let mut script = String::new();
    for (_, folder, secret) in folders {
        let path = moved.join(folder).join(secret);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("SECRET {folder}\n")).unwrap();
        script.push_str(&format!("cat '{}' 2>/dev/null; ", path.display()));
    }
    let kept = moved.join("copilot/hooks/hookhost.json");
    std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::fs::write(&kept, "KEPT\n").unwrap();
    script.push_str(&format!("cat '{}'; ", kept.display()));
    let with_folders = |cmd: &mut std::process::Command| {
        cmd.env("HOME", &home);
        for (variable, folder, _) in folders {
            cmd.env(variable, moved.join(folder));
        }
    };

    // On the host, every one reads.
    let host = support::run(std::process::Command::new("sh").args(["-c", &script])).1;
    assert_eq!(host.matches("SECRET ").count(), folders.len(), "{host}");

    scene.write_config("");
    let mut cmd = scene.hookhost();
    with_folders(&mut cmd);
    let out = cmd
        .args(["box", "--", "sh", "-c", &script])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::lossy(&out.stderr));
    assert_eq!(
        support::lossy(&out.stdout),
        "KEPT\n",
        "hookhost box: a moved agent folder's login was readable, or its hook file hidden"
    );

    // A boxed hook of a bridged call objects if it reads a secret.
    let hook = scene.script(
        "reads.sh",
        &format!("echo ran > ran.txt; read=$({script}) ; case \"$read\" in *SECRET*) echo \"$read\" >&2; exit 2;; esac; exit 0\n"),
    );
    scene.write_config(&sh_hook("reads", &hook, "sandbox = true"));
    let payload = serde_json::json!({
        "session_id": "moved-folders",
        "transcript_path": "",
        "cwd": scene.project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "true"},
    });
    let mut cmd = scene.hookhost();
    with_folders(&mut cmd);
    let reply = support::run_with_stdin(
        cmd.args(["bridge", "--agent", "claude-code"]),
        payload.to_string().as_bytes(),
    );
    assert_eq!(reply.0, 0, "{reply:?}");
    assert_eq!(
        reply.1, "",
        "a boxed hook read a moved agent folder's login: {reply:?}"
    );
    assert!(
        scene.project.join("ran.txt").exists(),
        "the hook did not run"
    );
}
