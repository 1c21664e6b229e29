//! The path guard and the bubblewrap box through the real binary: refusals at start,
//! sandboxed hooks judged from inside the box, host hooks' PATH in a sandboxed session,
//! `hookhost box`, and a session where bwrap cannot run.

mod common;

use common::{Scene, hook, sh_hook};

fn run(scene: &Scene, args: &[&str]) -> (i32, String, String) {
    let out = scene.hookhost().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

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
        let (code, stdout, stderr) = run(&scene, &args);
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
    let (code, stdout, _) = run(&scene, &["--no-hooks", "check"]);
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
    if !common::bwrap_or_skip("a_sandboxed_hook_is_judged_from_inside_the_box") {
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
echo x > {outside} 2>/dev/null && r="$r outside-written" || r="$r outside-refused"
echo x > in-project.txt && r="$r project-written"
echo x > /tmp/x && r="$r tmp-written"
cat {home}/.ssh/id_rsa >/dev/null 2>&1 && r="$r key-read" || r="$r key-hidden"
head -c 1 /etc/passwd >/dev/null && r="$r etc-read"
r="$r key=${{ANTHROPIC_API_KEY-absent}} procs=$(ls /proc | grep -c '^[0-9]') maxpid=$(ls /proc | grep '^[0-9]' | sort -n | tail -1) cwd=$(pwd)"
echo "$r" >&2; exit 2"#,
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
    let v = common::verdict(&out);
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
    assert!(
        words.contains(&format!("cwd={}", scene.project.display()).as_str()),
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
    let (_, stdout, _) = run(
        &scene,
        &["--private-tmp", private_tmp.to_str().unwrap(), "check"],
    );
    assert_eq!(stdout, "hooks: inside (bash)\n");
}

#[test]
fn a_host_hook_in_a_sandboxed_session_loses_agent_writable_path_entries() {
    if !common::bwrap_or_skip(
        "a_host_hook_in_a_sandboxed_session_loses_agent_writable_path_entries",
    ) {
        return;
    }
    let scene = Scene::new();
    let planted = scene.project.join("bin");
    std::fs::create_dir_all(&planted).unwrap();
    let script = scene.script("path.sh", "echo \"$PATH|$(pwd)\" >&2; exit 2");
    scene.write_config(&sh_hook("notify", &script, "sandbox = false"));
    let path = format!("{}:/usr/bin:relative/bin::/bin", planted.display());
    let out = scene
        .hookhost()
        .env("PATH", &path)
        .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
        .output()
        .unwrap();
    let v = common::verdict(&out);
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
    let v = common::verdict(&out);
    assert_eq!(
        v["message"],
        format!("blocked by the user's hook \"notify\": {path}|/")
    );
}

#[test]
fn hookhost_box_runs_a_command_in_the_hooks_box() {
    if !common::bwrap_or_skip("hookhost_box_runs_a_command_in_the_hooks_box") {
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
    assert_eq!(stdout, "hooks: h (every tool, on the host)\n", "{stdout}");
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

/// Killing the host (SIGKILL, no chance to clean up) ends a sandboxed hook's whole box,
/// and a host hook's own process: nothing outlives a killed host that could be reached.
#[test]
fn no_hook_outlives_a_killed_host() {
    if !common::bwrap_or_skip("no_hook_outlives_a_killed_host") {
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
            common::wait_until(|| common::process_alive(last)),
            "the hook did not start"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let gone = common::wait_until(|| markers.iter().all(|m| !common::process_alive(m)));
        assert!(gone, "{markers:?} outlived the killed host");
    }
}

/// `--die-with-parent` follows the *thread* that forked bwrap. Hooks are forked from
/// hookhost's long-lived spawner thread, so a box started on behalf of a thread that
/// then ends (a tokio worker, a blocking-pool thread) keeps running.
#[test]
fn a_box_outlives_the_thread_that_asked_for_it() {
    if !common::bwrap_or_skip("a_box_outlives_the_thread_that_asked_for_it") {
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
        bwrap,
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
        common::process_alive("sleep 66.61"),
        "the box died with the thread that asked for it"
    );
    hookhost::process::kill_group(pid);
    // SAFETY: kill with a plain pid and signal number.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    assert!(
        common::wait_until(|| !common::process_alive("sleep 66.61")),
        "killing bwrap did not end the box"
    );
}

/// Security review F1, through the binary as the review ran it: a sandboxed hook (and
/// `hookhost box`, the agent's commands) run as root writes back the host's
/// `kernel.core_pattern`. Today's box refuses with EROFS, so the hook falls through to
/// "no objection" and `box` exits with the shell's failure.
#[test]
fn as_root_a_boxed_hook_cannot_write_the_hosts_sysctls() {
    let test = "as_root_a_boxed_hook_cannot_write_the_hosts_sysctls";
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED {test}: not root, and only root's writes reach /proc/sys");
        return;
    }
    if !common::bwrap_or_skip(test) {
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

    let (code, stdout, stderr) = run(
        &scene,
        &[
            "box",
            "--",
            "sh",
            "-c",
            &format!("{write_back} && echo WROTE"),
        ],
    );
    assert_ne!(code, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("WROTE"), "{stdout}");
    assert!(stderr.contains("Read-only file system"), "{stderr}");
}
