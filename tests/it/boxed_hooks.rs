//! The path guard and the bubblewrap box through the real binary: refusals at start,
//! sandboxed hooks judged from inside the box, host hooks' PATH in a sandboxed session,
//! `hookhost box`, and a session where bwrap cannot run.

use crate::support;
use crate::support::{Prerequisite, Scene, hook, sh_hook};

#[test]
fn hooks_in_the_project_are_refused_and_every_one_is_reported() {
    let scene = Scene::new();
    let inside = scene.project.join("hooks/check.sh");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::write(&inside, "#!/bin/sh\nexit 0\n").unwrap();
    let ok = scene.script("ok.sh", "exit 0");
    scene.write_config(&format!(
        "{}{}{}{}",
        hook(
            "no-force-push",
            "PreToolUse",
            &[inside.to_str().unwrap()],
            ""
        ),
        hook(
            "rules",
            "PreToolUse",
            &["/bin/sh", ok.to_str().unwrap(), "--rules=hooks/r.yaml"],
            ""
        ),
        hook("missing", "PreToolUse", &["check-not-anywhere.sh"], ""),
        hook("fine", "PreToolUse", &["/bin/sh", ok.to_str().unwrap()], ""),
    ));
    for sandbox_flag in [&[][..], &["--no-sandbox"][..]] {
        let mut args = sandbox_flag.to_vec();
        args.push("check");
        let (code, stdout, stderr) = scene.run(&args);
        assert_eq!(code, 2, "{stderr}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(&format!(
            "hook no-force-push: {} is in the project, so the agent could change it. Move it outside (for example ~/.local/share/harness/hooks/), or start with --no-hooks.",
            inside.display()
        )), "{stderr}");
        assert!(
            stderr.contains("hook rules: hooks/r.yaml is in the project"),
            "{stderr}"
        );
        assert!(
            stderr.contains("hook missing: check-not-anywhere.sh was not found."),
            "{stderr}"
        );
        assert!(!stderr.contains("hook fine"), "{stderr}");
    }
    // --no-hooks runs no guard.
    let (code, stdout, _) = scene.run(&["--no-hooks", "check"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, "hooks: off (--no-hooks)\n");
}

#[test]
fn a_config_inside_the_project_is_refused() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    let config = scene.project.join(".harness/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, sh_hook("a", &ok, "")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("--project")
        .arg(&scene.project)
        .args(["--no-sandbox", "check"])
        .env("HARNESS_HOME", config.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "config {} is in the project, so the agent could change its [[hooks]].",
            config.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_sandboxed_hook_is_judged_from_inside_the_box() {
    if !support::bwrap_or_skip("a_sandboxed_hook_is_judged_from_inside_the_box") {
        return;
    }
    let scene = Scene::new();
    let private_tmp = scene.root.path().join("private-tmp");
    std::fs::create_dir_all(&private_tmp).unwrap();
    let home = scene.root.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    let outside = scene.root.path().join("outside.txt");
    let script = scene.script(
        "inside.sh",
        &format!(
            r#"r=""
echo x > '{outside}' 2>/dev/null && r="$r outside-written" || r="$r outside-refused"
echo x > in-project.txt && r="$r project-written"
echo x > /tmp/x && r="$r tmp-written"
cat '{home}/.ssh/id_rsa' >/dev/null 2>&1 && r="$r key-read" || r="$r key-hidden"
head -c 1 /etc/passwd >/dev/null && r="$r etc-read"
r="$r key=${{ANTHROPIC_API_KEY-absent}} procs=$(ls /proc | grep -c '^[0-9]') maxpid=$(ls /proc | grep '^[0-9]' | sort -n | tail -1)"
echo "$r" >&2; echo "cwd=$(pwd)" >&2; exit 2"#,
            outside = outside.display(),
            home = home.display()
        ),
    );
    scene.write_config(&sh_hook("inside", &script, "tools = [\"bash\"]"));
    let out = scene
        .hookhost()
        .arg("--private-tmp")
        .arg(&private_tmp)
        .env("HOME", &home)
        .env("ANTHROPIC_API_KEY", "sk-ant-secret")
        .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    let message = v["message"].as_str().unwrap();
    let reason = message
        .strip_prefix("blocked by the user's hook \"inside\": ")
        .unwrap();
    let words: Vec<&str> = reason.split_whitespace().collect();
    for expected in [
        "outside-refused",
        "project-written",
        "tmp-written",
        "key-hidden",
        "etc-read",
        "key=absent",
    ] {
        assert!(
            words.contains(&expected),
            "{expected} missing from {reason}"
        );
    }
    let procs: usize = words
        .iter()
        .find_map(|w| w.strip_prefix("procs="))
        .unwrap()
        .parse()
        .unwrap();
    let max_pid: usize = words
        .iter()
        .find_map(|w| w.strip_prefix("maxpid="))
        .unwrap()
        .parse()
        .unwrap();
    // Its own PID namespace: bwrap's init, the hook's shell and this pipeline, no more.
    assert!(
        procs <= 6 && max_pid < 20,
        "the box sees {procs} processes, up to pid {max_pid}"
    );
    // On a line of its own: a checkout path may hold spaces.
    assert!(
        reason
            .lines()
            .any(|l| l == format!("cwd={}", scene.project.display())),
        "{reason}"
    );
    assert!(
        !outside.exists(),
        "a write outside the project reached the host"
    );
    assert!(scene.project.join("in-project.txt").exists());
    assert!(
        private_tmp.join("x").exists(),
        "/tmp/x did not land in the private temp folder"
    );
    // The banner: a sandboxed hook is not marked as on the host.
    let (_, stdout, _) = scene.run(&["--private-tmp", private_tmp.to_str().unwrap(), "check"]);
    assert_eq!(crate::support::banner_of(&stdout), "hooks: inside (bash)\n");
}

#[test]
fn a_host_hook_in_a_sandboxed_session_loses_agent_writable_path_entries() {
    if !support::bwrap_or_skip(
        "a_host_hook_in_a_sandboxed_session_loses_agent_writable_path_entries",
    ) {
        return;
    }
    let scene = Scene::new();
    let planted = scene.project.join("bin");
    std::fs::create_dir_all(&planted).unwrap();
    let script = scene.script("path.sh", "echo \"$PATH|$(pwd)\" >&2; exit 2");
    // A sandboxed hook too, so that the session has a box (without one it would not
    // probe: `only_a_session_with_a_sandboxed_hook_probes_the_box`).
    let boxed = scene.script("boxed.sh", "exit 0");
    scene.write_config(&format!(
        "{}{}",
        sh_hook("boxed", &boxed, ""),
        sh_hook("notify", &script, "sandbox = false")
    ));
    let path = format!("{}:/usr/bin:relative/bin::/bin", planted.display());
    let out = scene
        .hookhost()
        .env("PATH", &path)
        .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    assert_eq!(
        v["message"],
        "blocked by the user's hook \"notify\": /usr/bin:/bin|/"
    );
    // Without a sandbox PATH is unchanged.
    let out = scene
        .hookhost()
        .env("PATH", &path)
        .args([
            "--no-sandbox",
            "pre-tool-use",
            "--json",
            "--tool",
            "bash",
            "--input",
            "{}",
        ])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    assert_eq!(
        v["message"],
        format!("blocked by the user's hook \"notify\": {path}|/")
    );
}

#[test]
fn hookhost_box_runs_a_command_in_the_hooks_box() {
    if !support::bwrap_or_skip("hookhost_box_runs_a_command_in_the_hooks_box") {
        return;
    }
    let scene = Scene::new();
    scene.write_config("");
    let out = scene
        .hookhost()
        .env("OPENAI_API_KEY", "sk-secret")
        .args([
            "box",
            "--",
            "sh",
            "-c",
            "touch /etc/hookhost-box-test 2>/dev/null; echo ${OPENAI_API_KEY-absent}; pwd; exit 7",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("absent\n{}\n", scene.project.display())
    );
    assert!(!std::path::Path::new("/etc/hookhost-box-test").exists());
}

#[test]
fn where_bwrap_cannot_run_the_session_says_so_and_runs_hooks_on_the_host() {
    let scene = Scene::new();
    let script = scene.script("h.sh", "exit 0");
    scene.write_config(&sh_hook("h", &script, ""));
    let (code, stdout, stderr) = {
        let out = scene
            .hookhost()
            .env("HOOKHOST_BWRAP", "/nonexistent/bwrap")
            .arg("check")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, 0, "{stderr}");
    let notice = "⚠ bubblewrap cannot run here (bwrap was not found at /nonexistent/bwrap (HOOKHOST_BWRAP)), so this session has no sandbox: every hook runs on the host.";
    // The banner on stdout, each warning once on stderr: the notice is not repeated
    // around the banner (it is part of serve's ready banner, not of check's output twice).
    assert_eq!(
        crate::support::banner_of(&stdout),
        "hooks: h (every tool, on the host)\n",
        "{stdout}"
    );
    assert_eq!(stderr.matches(notice).count(), 1, "{stderr}");
    // A text-mode gate prints the banner and the warnings on stderr: still once.
    let out = scene
        .hookhost()
        .env("HOOKHOST_BWRAP", "/nonexistent/bwrap")
        .args(["pre-tool-use", "--tool", "bash", "--input", "{}"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches(notice).count(), 1, "{stderr}");
    // `hookhost box` refuses rather than run on the host.
    let out = scene
        .hookhost()
        .env("HOOKHOST_BWRAP", "/nonexistent/bwrap")
        .args(["box", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A bwrap that notes each run (its arguments, in a file of its own under the returned
/// folder) and fails, as one that cannot run here would.
fn failing_bwrap(scene: &Scene) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let log = scene.root.path().join("bwrap-runs");
    std::fs::create_dir_all(&log).unwrap();
    let bwrap = scene.root.path().join("bwrap");
    std::fs::write(
        &bwrap,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'/$$\necho 'no user namespaces' >&2\nexit 1\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&bwrap, std::fs::Permissions::from_mode(0o755)).unwrap();
    (bwrap, log)
}

fn runs_of(log: &std::path::Path) -> usize {
    std::fs::read_dir(log).unwrap().count()
}

/// A session whose hooks are only WASM and host hooks never probes the box (a bwrap that
/// would fail is not even started): it starts, judges and says exactly what it would
/// with a box, and its host hooks still get the scrubbed PATH. Add one sandboxed hook and
/// the probe runs again, with today's notice when the box cannot run.
#[test]
fn only_a_session_with_a_sandboxed_hook_probes_the_box() {
    let scene = Scene::new();
    let (bwrap, log) = failing_bwrap(&scene);
    let planted = scene.project.join("bin");
    std::fs::create_dir_all(&planted).unwrap();
    let path = format!("{}:/usr/bin:/bin", planted.display());
    let host = scene.script(
        "host.sh",
        "grep -q force && { echo \"no force pushes, PATH=$PATH\" >&2; exit 2; }; exit 0",
    );
    let wasm = crate::support::plugin(&scene, "fixture-p1.wasm");
    let hooks = format!(
        "{}{}",
        sh_hook("host", &host, "sandbox = false"),
        hook("wasm", "PreToolUse", &[wasm.to_str().unwrap(), "allow"], ""),
    );
    scene.write_config(&hooks);
    let run = |args: &[&str]| {
        scene
            .hookhost()
            .env("HOOKHOST_BWRAP", &bwrap)
            .env("PATH", &path)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        crate::support::banner_of(&String::from_utf8_lossy(&out.stdout)),
        "hooks: host (every tool, on the host) · wasm (every tool, wasm)\n"
    );
    assert!(!stderr.contains("bubblewrap"), "{stderr}");
    let gate = |command: &str| {
        let input = serde_json::json!({ "command": command }).to_string();
        support::verdict(&run(&[
            "pre-tool-use",
            "--json",
            "--tool",
            "bash",
            "--input",
            &input,
        ]))
    };
    assert_eq!(gate("git status")["outcome"], "allow");
    let v = gate("git push --force");
    assert_eq!(
        v["message"],
        "blocked by the user's hook \"host\": no force pushes, PATH=/usr/bin:/bin"
    );
    assert_eq!(runs_of(&log), 0, "the box was probed");

    let boxed = scene.script("boxed.sh", "exit 0");
    scene.write_config(&format!("{hooks}{}", sh_hook("boxed", &boxed, "")));
    let out = run(&["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("⚠ bubblewrap cannot run here (a trial run of bwrap failed with exit status: 1: no user namespaces"),
        "{stderr}"
    );
    assert_eq!(runs_of(&log), 1, "the box was not probed once");
}

/// Killing the host (SIGKILL, no chance to clean up) ends a sandboxed hook's whole box,
/// and a host hook's own process: nothing outlives a killed host that could be reached.
#[test]
fn no_hook_outlives_a_killed_host() {
    if !support::bwrap_or_skip("no_hook_outlives_a_killed_host") {
        return;
    }
    let scene = Scene::new();
    let boxed = scene.script("boxed.sh", "sleep 88.11 & sleep 88.12; wait");
    let host = scene.script("host.sh", "exec sleep 88.13");
    for (script, extra, markers) in [
        (&boxed, "", &["sleep 88.11", "sleep 88.12"][..]),
        (&host, "sandbox = false", &["sleep 88.13"][..]),
    ] {
        scene.write_config(&sh_hook("slow", script, &format!("timeout = 120\n{extra}")));
        let mut child = scene
            .hookhost()
            .args(["pre-tool-use", "--tool", "bash", "--input", "{}"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let last = markers[markers.len() - 1];
        assert!(
            support::wait_until(|| support::process_alive(last)),
            "the hook did not start"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let gone = support::wait_until(|| markers.iter().all(|m| !support::process_alive(m)));
        assert!(gone, "{markers:?} outlived the killed host");
    }
}

/// `--die-with-parent` follows the *thread* that forked bwrap. Hooks are forked from
/// hookhost's long-lived spawner thread, so a box started on behalf of a thread that
/// then ends (a tokio worker, a blocking-pool thread) keeps running.
#[test]
fn a_box_outlives_the_thread_that_asked_for_it() {
    if !support::bwrap_or_skip("a_box_outlives_the_thread_that_asked_for_it") {
        return;
    }
    let scene = Scene::new();
    let bwrap = hookhost::sandbox::probe(None, std::env::var_os("PATH").as_deref(), &scene.project)
        .unwrap()
        .path;
    let spec = hookhost::sandbox::BoxSpec {
        project: scene.project.clone(),
        writable: vec![],
        private_tmp: scene.root.path().to_path_buf(),
        hide: vec![],
        program: bwrap,
        entry: Some(env!("CARGO_BIN_EXE_hookhost").into()),
    };
    let command = spec
        .command(
            &["sleep".into(), "66.61".into()],
            &[("PATH".into(), "/usr/bin:/bin".into())],
        )
        .unwrap();
    let pid = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let child = hookhost::process::spawn(tokio::process::Command::from(command))
                .await
                .unwrap();
            let pid = child.id().unwrap();
            hookhost::process::forget(pid);
            std::mem::forget(child);
            pid
        })
    })
    .join()
    .unwrap();
    // The asking thread and its runtime are gone; the box must still run.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        support::process_alive("sleep 66.61"),
        "the box died with the thread that asked for it"
    );
    hookhost::process::kill_group(pid);
    // SAFETY: kill with a plain pid and signal number.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    assert!(
        support::wait_until(|| !support::process_alive("sleep 66.61")),
        "killing bwrap did not end the box"
    );
}

/// docs/threats.md#f6 through the binary: `hookhost box` (and so every sandboxed hook)
/// cannot feed a host FIFO outside the writable folders.
#[test]
fn hookhost_box_cannot_write_a_host_fifo() {
    let test = "hookhost_box_cannot_write_a_host_fifo";
    if !support::bwrap_or_skip(test) {
        return;
    }
    if hookhost::sandbox::landlock_abi().is_none() {
        eprintln!(
            "SKIPPED {test}: this kernel has no Landlock, so the box can write host FIFOs (as the README says)"
        );
        return;
    }
    use std::io::Read;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    let scene = Scene::new();
    scene.write_config("");
    let fifo = scene.root.path().join("ctl.fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0);
    // A reader that never waits: the box's open for writing need not wait either.
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let script = format!("echo BOX-WROTE > '{}'", fifo.display());
    let (code, _, stderr) = scene.run(&["box", "--", "sh", "-c", &script]);
    assert_ne!(code, 0, "the write into the host FIFO succeeded");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    let mut got = Vec::new();
    let mut buf = [0u8; 64];
    while let Ok(n @ 1..) = reader.read(&mut buf) {
        got.extend_from_slice(&buf[..n]);
    }
    assert_eq!(String::from_utf8_lossy(&got), "", "the host received it");
}

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

/// Runs what follows with `landlock_create_ruleset` failing ENOSYS, as on a kernel
/// without Landlock (a seccomp filter installed by python3, then exec).
const WITHOUT_LANDLOCK: &str = r#"
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
ld_nr = struct.pack("HBBI", 0x20, 0, 0, 0)
is_landlock = struct.pack("HBBI", 0x15, 0, 1, 444)
enosys = struct.pack("HBBI", 0x06, 0, 0, 0x00050000 | 38)
allow = struct.pack("HBBI", 0x06, 0, 0, 0x7FFF0000)
code = ctypes.create_string_buffer(ld_nr + is_landlock + enosys + allow)
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
prog = Prog(4, ctypes.cast(code, ctypes.c_void_p))
ul = ctypes.c_ulong
if libc.prctl(38, ul(1), ul(0), ul(0), ul(0)) != 0 or libc.prctl(22, ul(2), ctypes.byref(prog), ul(0), ul(0)) != 0:
    sys.exit("cannot install the filter: errno %d" % ctypes.get_errno())
os.execv(sys.argv[1], sys.argv[1:])
"#;

/// Where the kernel has no Landlock the box still runs (it does not fail closed), and
/// `check` (only `check`) says what that leaves open.
#[test]
fn without_landlock_the_box_runs_and_check_says_so() {
    let test = "without_landlock_the_box_runs_and_check_says_so";
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let script = scene.script("h.sh", "exit 0");
    scene.write_config(&sh_hook("h", &script, ""));
    let note = "⚠ this kernel has no Landlock (Linux 5.13+ with Landlock enabled), so a sandboxed hook can write into a host FIFO it can see; the rest of the box holds.";
    let without = |args: &[&str]| {
        let plain = scene.hookhost();
        let mut cmd = std::process::Command::new("python3");
        cmd.args(["-c", WITHOUT_LANDLOCK])
            .arg(plain.get_program())
            .args(plain.get_args())
            .args(args);
        for (k, v) in plain.get_envs() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        cmd.output().unwrap()
    };
    let out = without(&["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(note), "{stderr}");
    let out = without(&["box", "--", "sh", "-c", "echo ran"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ran\n");
    // Not on every gate; and not at all where the kernel has Landlock.
    let out = without(&["pre-tool-use", "--tool", "bash", "--input", "{}"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("Landlock"));
    if hookhost::sandbox::landlock_abi().is_some() {
        let (code, _, stderr) = scene.run(&["check"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(!stderr.contains("Landlock"), "{stderr}");
    }
}

/// docs/threats.md#f1, through the binary as the review ran it: a sandboxed hook (and
/// `hookhost box`, the agent's commands) run as root writes back the host's
/// `kernel.core_pattern`. Today's box refuses with EROFS, so the hook falls through to
/// "no objection" and `box` exits with the shell's failure.
#[test]
fn as_root_a_boxed_hook_cannot_write_the_hosts_sysctls() {
    let test = "as_root_a_boxed_hook_cannot_write_the_hosts_sysctls";
    if !support::root_or_skip(test, "not root, and only root's writes reach /proc/sys") {
        return;
    }
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let write_back = "cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern";
    let script = scene.script(
        "sysctl.sh",
        &format!(
            "cat >/dev/null; {write_back} && echo 'wrote kernel.core_pattern' >&2 && exit 2; exit 0"
        ),
    );
    scene.write_config(&sh_hook("sysctl", &script, "sandbox = true"));
    let (code, verdict) = scene.gate(&[], "bash", r#"{"command":"ls"}"#);
    assert_eq!(code, 0, "{verdict}");
    assert_eq!(verdict["outcome"], "allow", "{verdict}");

    let (code, stdout, stderr) = scene.run(&[
        "box",
        "--",
        "sh",
        "-c",
        &format!("{write_back} && echo WROTE"),
    ]);
    assert_ne!(code, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("WROTE"), "{stdout}");
    assert!(stderr.contains("Read-only file system"), "{stderr}");
}

/// A boxed hook killed by a signal reads "was killed by a signal", as a host hook does,
/// not "exited with code 139" (bwrap's report of it; docs/threats.md#f20).
#[test]
fn a_boxed_hook_killed_by_a_signal_says_so() {
    let scene = Scene::new();
    let script = scene.script("crash.sh", "cat >/dev/null; kill -SEGV $$");
    scene.write_config(&sh_hook("crash", &script, "sandbox = true"));
    let (code, verdict) = scene.gate(&[], "bash", "{}");
    assert_eq!(code, 1, "{verdict}");
    let message = verdict["message"].as_str().unwrap_or_default();
    assert!(message.contains("was killed by a signal"), "{verdict}");
    let (_, host) = scene.gate(&["--no-sandbox"], "bash", "{}");
    assert_eq!(
        host["message"], verdict["message"],
        "box and host read alike"
    );
}
