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
