//! What reads a record: the transcript, replay (served from the record, starting nothing), and a tolerant reader.

use super::*;

#[test]
fn transcript_shows_the_spec_rows() {
    let r = Recorded::new();
    r.session();
    let out = r
        .scene
        .hookhost()
        .args(["log", "show"])
        .arg(&r.log)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rows: Vec<&str> = stdout.lines().collect();
    assert!(
        rows[0].starts_with("hooks: no-force-push (bash, exec"),
        "{stdout}"
    );
    for row in [
        "· hook flaky failed (exited with code 1); the call went ahead",
        "blocked by the user's hook \"no-force-push\": force-push is not allowed here",
        "· hook keywords added context (18 characters)",
    ] {
        assert!(rows.contains(&row), "missing {row:?} in\n{stdout}");
    }

    // A prompt hook's failure that continue let through, and a prompt block.
    let scene = Scene::new();
    let fail = scene.script("fail.sh", "exit 1");
    let block = scene.script("block.sh", "echo 'no ooo today' >&2; exit 2");
    scene.write_config(
        &[
            hook(
                "flaky",
                "UserPromptSubmit",
                &["/bin/sh", fail.to_str().unwrap()],
                "on_failure = \"continue\"",
            ),
            hook(
                "keywords",
                "UserPromptSubmit",
                &["/bin/sh", block.to_str().unwrap()],
                "",
            ),
        ]
        .concat(),
    );
    let log = scene.root.path().join("p.jsonl");
    let out = scene
        .hookhost()
        .args([NO_SANDBOX, "--log"])
        .arg(&log)
        .args(["prompt", "ooo go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = scene
        .hookhost()
        .args(["log", "show"])
        .arg(&log)
        .output()
        .unwrap();
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("· hook flaky failed (exited with code 1); the prompt went ahead\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("✗ prompt blocked by hook \"keywords\": no ooo today\n"),
        "{stdout}"
    );
}

#[test]
fn replay_matches_starting_nothing_and_reports_a_tampered_effect() {
    let r = Recorded::new();
    r.session();
    let runs = r.marker_runs();
    assert_eq!(runs, 4);

    let out = r.replay();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("replay: 3 of 3 verdicts matched; 4 hook runs served from the record"),
        "{stdout}"
    );
    assert_eq!(r.marker_runs(), runs, "replay ran a hook");

    // With the hooks' programs gone it still matches: nothing is started.
    std::fs::remove_dir_all(&r.scene.hooks).unwrap();
    let out = r.replay();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));

    // Tamper with the blocking effect: exit 2 becomes 0.
    let original = std::fs::read_to_string(&r.log).unwrap();
    let tampered = original.replacen("\"exit_code\":2", "\"exit_code\":0", 1);
    assert_ne!(tampered, original);
    std::fs::write(&r.log, &tampered).unwrap();
    // The hash chain shows the change: replay refuses it unless told otherwise.
    let out = r.replay();
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("was changed after it was written (line "),
        "{stderr}"
    );
    let out = r.replay_changed();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("✗ bash T2: recorded block (blocked by the user's hook \"no-force-push\": force-push is not allowed here), replayed allow"),
        "{stdout}"
    );
    assert!(
        stdout.contains("replay: 2 of 3 verdicts matched"),
        "{stdout}"
    );

    // An input that is not in the record is reported, never run.
    let changed = original.replacen(
        "\"tool_input\":{\"command\":\"ls\"}",
        "\"tool_input\":{\"command\":\"ls -l\"}",
        1,
    );
    assert_ne!(changed, original);
    std::fs::write(&r.log, &changed).unwrap();
    let out = r.replay_changed();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("✗ hook no-force-push: input sha256:")
            && stdout.contains("is not in the record; it was not run"),
        "{stdout}"
    );

    // A file that cannot be read at all: 2.
    let out = r
        .scene
        .hookhost()
        .arg("replay")
        .arg(r.scene.root.path().join("nope.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn torn_last_line_and_unknown_types_are_tolerated() {
    let r = Recorded::new();
    r.session();
    let mut text_before = std::fs::read_to_string(&r.log).unwrap();
    let lines = text_before.lines().count();
    // A record type from a later hookhost, chained as it would write it.
    let prev = hookhost::record::chain::digest(text_before.lines().last().unwrap().as_bytes());
    text_before.push_str(&format!(
        r#"{{"type":"future.thing","at":"2025-05-01T12:00:00.000Z","session_id":"S1","prev":"{prev}"}}"#
    ));
    text_before.push('\n');
    text_before.push_str(r#"{"type":"effect","at":"2025-05-01T12:00:00.000Z","sess"#);
    std::fs::write(&r.log, &text_before).unwrap();

    let out = r
        .scene
        .hookhost()
        .args(["log", "show"])
        .arg(&r.log)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr.contains(&format!(
            "note: line {} has an unknown record type \"future.thing\"; ignored\n",
            lines + 1
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "note: line {} is torn (a crash mid-write?); ignored\n",
            lines + 2
        )),
        "{stderr}"
    );
    assert!(stdout.contains("· hook keywords added context (18 characters)"));
    let out = r.replay();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));

    // Resuming after a torn line starts the next record on a line of its own.
    let out = r.call("bash", r#"{"command":"ls"}"#, "T9");
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let after = std::fs::read_to_string(&r.log).unwrap();
    let last: Value = serde_json::from_str(after.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "gate.verdict");
    let out = r.replay();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
}
