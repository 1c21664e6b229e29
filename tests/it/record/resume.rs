//! Crash resume: unchanged hooks kept, changed ones skipped, a session killed while a hook ran.

use super::*;

#[test]
fn resume_keeps_unchanged_hooks_and_skips_changed_ones() {
    let r = Recorded::new();
    r.session();
    let config = std::fs::read_to_string(&r.scene.config).unwrap();

    // no-force-push's timeout changed; a new blocking hook appeared.
    let newcomer = r.scene.script("newcomer.sh", "echo 'new rule' >&2; exit 2");
    let changed =
        config.replacen("timeout = 10", "timeout = 11", 1) + &sh_hook("newcomer", &newcomer, "");
    r.scene.write_config(&changed);
    let out = r
        .scene
        .hookhost()
        .arg(NO_SANDBOX)
        .args(["pre-tool-use", "--resume"])
        .arg(&r.log)
        .args([
            "--tool",
            "bash",
            "--input",
            r#"{"command":"git push --force"}"#,
        ])
        .args(["--tool-use-id", "T3"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains("⚠ hook no-force-push is not run in this session: it is changed in your config since the session was recorded. Resume cleanly to use today's hooks.\n"),
        "{stderr}"
    );
    assert!(
        stderr.starts_with(
            "hooks: flaky (every tool, on the host) · keywords (prompts, on the host)\n"
        ),
        "{stderr}"
    );
    let recs = records(&r.log);
    let resumed = *of_type(&recs, "session.resumed").last().unwrap();
    assert_eq!(resumed["skipped"], serde_json::json!(["no-force-push"]));
    assert_eq!(resumed["clean"], false);
    let skipped: Vec<_> = of_type(&recs, "hook.decided")
        .into_iter()
        .filter(|d| d["decision"] == "skipped")
        .collect();
    assert_eq!(skipped.len(), 1);
    let skipped = skipped[0];
    assert_eq!(skipped["hook"], "no-force-push");
    assert_eq!(skipped["tool_use_id"], "T3");

    // A hook gone from today's config entirely: the same warning.
    r.scene
        .write_config(&config.replacen("name = \"flaky\"", "name = \"flaky2\"", 1));
    let out = r
        .scene
        .hookhost()
        .arg(NO_SANDBOX)
        .args(["prompt", "--resume"])
        .arg(&r.log)
        .arg("hi")
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("⚠ hook flaky is not run in this session: it is changed in your config since the session was recorded. Resume cleanly to use today's hooks.\n"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("hook no-force-push is not run"),
        "{stderr}"
    );

    // A clean resume reads today's config: the newcomer runs and blocks.
    r.scene.write_config(&changed);
    let out = r
        .scene
        .hookhost()
        .arg(NO_SANDBOX)
        .args(["pre-tool-use", "--json", "--clean", "--resume"])
        .arg(&r.log)
        .args(["--tool", "bash", "--input", r#"{"command":"ls"}"#])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    assert_eq!(
        v["message"],
        "blocked by the user's hook \"newcomer\": new rule"
    );
    let recs = records(&r.log);
    let resumed = *of_type(&recs, "session.resumed").last().unwrap();
    assert_eq!(resumed["clean"], true);
    assert_eq!(resumed["hooks"].as_array().unwrap().len(), 4);
    assert_eq!(resumed["hooks"][0]["timeout"], 11);
    assert!(recs.iter().all(|r| r["session_id"] == "S1"));

    // The whole record, resumes included, still replays.
    let out = r.replay();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
}

fn hand_record(path: &Path, tail: &str) {
    let start = r#"{"type":"session.started","at":"2025-05-01T12:00:00.000Z","session_id":"K1","cwd":"/","permission_mode":"auto","no_hooks":false,"hooks":[],"banner":"hooks: none"}"#;
    std::fs::write(path, format!("{start}\n{tail}\n")).unwrap();
}

#[test]
fn a_session_killed_while_a_hook_ran_says_so_on_resume() {
    let scene = Scene::new();
    scene.write_config("");
    let log = scene.root.path().join("k.jsonl");
    hand_record(
        &log,
        r#"{"type":"hook.started","at":"2025-05-01T12:00:01.000Z","session_id":"K1","hook":"keywords","input_digest":"sha256:00","prompt":"ooo"}"#,
    );
    let out = scene
        .hookhost()
        .args(["prompt", "--resume"])
        .arg(&log)
        .arg("again")
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains(
            "This session was killed while a prompt hook ran. The prompt was not sent.\n"
        ),
        "{stderr}"
    );
    // Said once: the resumed session finished its start.
    let out = scene
        .hookhost()
        .args(["prompt", "--resume"])
        .arg(&log)
        .arg("again")
        .output()
        .unwrap();
    assert!(!text(&out).1.contains("killed"), "{}", text(&out).1);

    // A real kill: SIGKILL while a call's hook sleeps.
    let sleeper = scene.script("sleeper.sh", "sleep 3");
    scene.write_config(&sh_hook("slow", &sleeper, "tools = [\"bash\"]"));
    let log = scene.root.path().join("real.jsonl");
    let mut child = logged_call(&scene, &log)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&log, "hook.started");
    child.kill().unwrap();
    child.wait().unwrap();
    // Killed before its verdict: the head covers no line yet, the chain the two lines
    // written, and the record verifies with a note saying so.
    let (code, stdout, stderr) = scene.run(&["log", "verify", log.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("; its head covers no line yet"), "{stdout}");
    assert!(
        stderr.contains("note: lines 1 to 2 were written after the record's head was last updated"),
        "{stderr}"
    );
    let out = scene
        .hookhost()
        .arg(NO_SANDBOX)
        .args([
            "pre-tool-use",
            "--tool",
            "read_file",
            "--input",
            "{}",
            "--resume",
        ])
        .arg(&log)
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("This session was killed before bash ran. It never ran.\n"),
        "{stderr}"
    );
    // The resume's end is the head's again.
    let (code, stdout, stderr) = scene.run(&["log", "verify", log.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let lines = std::fs::read_to_string(&log).unwrap().lines().count();
    assert!(
        stdout.contains(&format!("its end matches its head (line {lines})")),
        "{stdout}"
    );
    assert!(stderr.is_empty(), "{stderr}");
    let out = scene
        .hookhost()
        .args(["log", "show"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(text(&out).0.contains("hooks: slow (bash, on the host)\n"));
    assert!(
        text(&out)
            .0
            .ends_with("This session was killed before bash ran. It never ran.\n")
    );
}
