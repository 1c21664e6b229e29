//! Where bubblewrap cannot run, and which sessions probe the box at all.

use super::*;

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
    fake_bwrap(scene, "echo 'no user namespaces' >&2\nexit 1\n")
}

/// A bwrap that notes each run as [`failing_bwrap`] does, then runs `rest` (shell).
fn fake_bwrap(scene: &Scene, rest: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let log = scene.root.path().join("bwrap-runs");
    std::fs::create_dir_all(&log).unwrap();
    let bwrap = scene.root.path().join("bwrap");
    std::fs::write(
        &bwrap,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'/$$\n{rest}",
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

/// A bwrap that notes each run and then is the real one.
fn noting_bwrap(scene: &Scene, real: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    fake_bwrap(scene, &format!("exec '{}' \"$@\"\n", real.display()))
}

/// The trial runs among the noted ones: bwrap on `true`, where a hook's run ends with the
/// hook's own command.
fn trials_of(log: &std::path::Path) -> usize {
    std::fs::read_dir(log)
        .unwrap()
        .filter(|e| {
            let args = std::fs::read_to_string(e.as_ref().unwrap().path()).unwrap();
            args.ends_with("--\ntrue\n")
        })
        .count()
}

/// A passed trial of the box is remembered for the boot (`box-trial` in the user's cache
/// folder): the next session start runs only the hook in the box. A bwrap changed since
/// is tried again; a trial that fails leaves no memo, so each start tries again and says
/// why the box cannot run.
#[test]
fn a_passed_trial_of_the_box_is_not_run_again_in_the_same_boot() {
    if !support::bwrap_or_skip("a_passed_trial_of_the_box_is_not_run_again_in_the_same_boot") {
        return;
    }
    let real = hookhost::sandbox::probe(
        None,
        std::env::var_os("PATH").as_deref(),
        std::path::Path::new("/nonexistent-project"),
    )
    .expect("bwrap runs")
    .path;
    let scene = Scene::new();
    let cache = scene.root.path().join("cache");
    let memo = cache.join("hookhost").join("box-trial");
    let (bwrap, log) = noting_bwrap(&scene, &real);
    let boxed = scene.script("boxed.sh", "cat >/dev/null; exit 0");
    scene.write_config(&sh_hook("boxed", &boxed, ""));
    let gate = |bwrap: &std::path::Path| {
        let out = scene
            .hookhost()
            .env("XDG_CACHE_HOME", &cache)
            .env("HOOKHOST_BWRAP", bwrap)
            .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (support::verdict(&out)["outcome"].clone(), stderr)
    };

    let (outcome, stderr) = gate(&bwrap);
    assert_eq!(outcome, "allow", "{stderr}");
    assert_eq!(
        (runs_of(&log), trials_of(&log)),
        (2, 1),
        "a trial, then the hook"
    );
    assert!(memo.is_file(), "no memo after a passed trial");
    let (outcome, stderr) = gate(&bwrap);
    assert_eq!(outcome, "allow", "{stderr}");
    assert_eq!((runs_of(&log), trials_of(&log)), (3, 1), "tried again");

    // bwrap changed since (its change time moves): tried again, and remembered again.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bwrap, std::fs::Permissions::from_mode(0o700)).unwrap();
    let (outcome, stderr) = gate(&bwrap);
    assert_eq!(outcome, "allow", "{stderr}");
    assert_eq!(
        (runs_of(&log), trials_of(&log)),
        (5, 2),
        "not tried after a change"
    );
    gate(&bwrap);
    assert_eq!((runs_of(&log), trials_of(&log)), (6, 2));

    // A bwrap that cannot run: tried at every start, never remembered, and said.
    std::fs::remove_file(&memo).unwrap();
    let other = Scene::new();
    let (failing, failed_log) = failing_bwrap(&other);
    for round in 1..=2 {
        let out = scene
            .hookhost()
            .env("XDG_CACHE_HOME", &cache)
            .env("HOOKHOST_BWRAP", &failing)
            .arg("check")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("⚠ bubblewrap cannot run here"), "{stderr}");
        assert_eq!(runs_of(&failed_log), round, "not tried at this start");
    }
    assert!(!memo.exists(), "a failed trial was remembered");
}
