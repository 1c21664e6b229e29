//! The session record's disk: full, a folder that cannot be written, a folder that becomes unwritable under an open record.

use super::*;

/// Item 6a: the session record's disk fills up mid-session. Verdicts are unchanged
/// (blocks stay blocks), one warning names the record, and the record is cut back to
/// whole lines, so that `log show` does not read a kill into it (review F23) and
/// `replay` matches what it holds.
#[test]
fn a_full_disk_under_the_record_cuts_it_cleanly_and_changes_no_verdict() {
    let test = "a_full_disk_under_the_record_cuts_it_cleanly_and_changes_no_verdict";
    let scene = Scene::new();
    let Some(disk) = Tmpfs::mount(test, &scene.root.path().join("disk"), "size=32k") else {
        return;
    };
    let script = policy_script(&scene, "policy.sh");
    scene.write_config(&direct_hook("policy", &script, "\"bash\"", ""));
    let record = disk.dir.join("session.jsonl");
    let mut cmd = scene.hookhost();
    cmd.args(["--no-sandbox", "--log", record.to_str().unwrap(), "serve"]);
    let mut server = Server::ready(cmd);
    let padding = "p".repeat(1500);
    for i in 0..60 {
        let danger = i % 2 == 0;
        let command = if danger {
            format!("danger {padding}")
        } else {
            format!("fine {padding}")
        };
        let answer = server.call(&format!("c{i}"), "bash", &command);
        let want = if danger { "block" } else { "allow" };
        assert_eq!(answer["outcome"], want, "call {i}: {answer}");
    }
    let (code, stderr) = server.finish();
    assert_eq!(code, 0, "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with('⚠')).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains(record.to_str().unwrap())
            && warnings[0].contains("No space left on device"),
        "{stderr}"
    );
    let shown = record_reads_back(&scene, &record);
    // Whether the cut marker fits depends on where the disk filled; when it does, the
    // transcript says so.
    let text = std::fs::read_to_string(&record).unwrap();
    if text.contains("\"record.cut\"") {
        assert!(shown.contains("the record stops here"), "{shown}");
    }

    // A session that cannot write its first record at all says so and does not start.
    let other = disk.dir.join("another.jsonl");
    let (code, _, stderr) = scene.run(&[
        "--no-sandbox",
        "--log",
        other.to_str().unwrap(),
        "pre-tool-use",
        "--tool",
        "bash",
        "--input",
        r#"{"command":"danger"}"#,
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(other.to_str().unwrap()), "{stderr}");
}

/// Item 6a: serve's default record folder cannot be written (a read-only disk). The
/// session runs unrecorded, says so in its `ready` line, and blocks what it blocks.
#[test]
fn an_unwritable_record_folder_leaves_the_session_unrecorded_and_says_so() {
    let test = "an_unwritable_record_folder_leaves_the_session_unrecorded_and_says_so";
    let scene = Scene::new();
    let state = scene.root.path().join("state");
    let Some(_disk) = Tmpfs::mount(test, &state.join("hookhost"), "ro,size=16k") else {
        return;
    };
    let script = policy_script(&scene, "policy.sh");
    scene.write_config(&direct_hook("policy", &script, "\"bash\"", ""));
    let mut cmd = scene.hookhost();
    cmd.args(["--no-sandbox", "--session-id", "unrecorded", "serve"]);
    let (mut server, ready) = Server::start(cmd);
    assert_eq!(ready["type"], "ready", "{ready}");
    let warning = ready["warnings"][0]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        warning.contains(
            &state
                .join("hookhost/unrecorded.jsonl")
                .display()
                .to_string()
        ) && warning.contains("not recorded"),
        "{ready}"
    );
    assert_eq!(server.call("1", "bash", "danger")["outcome"], "block");
    assert_eq!(server.call("2", "bash", "fine")["outcome"], "allow");
    let (code, stderr) = server.finish();
    assert_eq!(code, 0, "{stderr}");
}

/// [`support::as_nobody`], or `None` when that cannot be done (a `SKIPPED` line, or a
/// failure under `HOOKHOST_REQUIRE_OTHER_USER`: [`support::nobody_or_skip`]).
fn as_nobody(test: &str) -> Option<Command> {
    support::nobody_or_skip(test).then(support::as_nobody)
}

/// Item 6a: the record's folder, and the record itself, are made unwritable
/// mid-session. The session's open record is not affected: every call is recorded and
/// no warning is given. As an unprivileged user, since root writes through any mode.
#[test]
fn an_open_record_outlives_its_folder_becoming_unwritable() {
    let test = "an_open_record_outlives_its_folder_becoming_unwritable";
    let Some(mut cmd) = as_nobody(test) else {
        return;
    };
    let Some(world) = support::OtherUserWorld::new(test) else {
        return;
    };
    let hookhost = world.copy_executable(Path::new(env!("CARGO_BIN_EXE_hookhost")));
    let scene = world.scene();
    let script = policy_script(&scene, "policy.sh");
    scene.write_config(&direct_hook("policy", &script, "\"bash\"", ""));
    let records = scene.root.path().join("records");
    std::fs::create_dir(&records).unwrap();
    std::os::unix::fs::chown(&records, Some(65534), Some(65534)).unwrap();
    let record = records.join("session.jsonl");
    cmd.arg(&hookhost)
        .arg("--config")
        .arg(&scene.config)
        .arg("--project")
        .arg(&scene.project)
        .args(["--no-sandbox", "--log", record.to_str().unwrap(), "serve"])
        .env("HOME", "/");
    let mut server = Server::ready(cmd);
    assert_eq!(server.call("1", "bash", "danger")["outcome"], "block");
    std::fs::set_permissions(&record, std::fs::Permissions::from_mode(0o400)).unwrap();
    std::fs::set_permissions(&records, std::fs::Permissions::from_mode(0o500)).unwrap();
    assert_eq!(server.call("2", "bash", "danger")["outcome"], "block");
    assert_eq!(server.call("3", "bash", "fine")["outcome"], "allow");
    let (code, stderr) = server.finish();
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains('⚠'), "{stderr}");
    let text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(text.matches("\"gate.verdict\"").count(), 3, "{text}");
    record_reads_back(&scene, &record);
}
