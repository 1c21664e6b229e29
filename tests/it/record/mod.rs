//! Session records through the real binary: what is recorded, replay (served from the
//! record, starting nothing), crash resume, the transcript, and a tolerant reader.
//!
//! What is written is here; what reads a record and the crash resume have modules of
//! their own.

use crate::support;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{Scene, hook, sh_hook, text, wait_until};
use serde_json::Value;
use sha2::{Digest, Sha256};

const NO_SANDBOX: &str = "--no-sandbox";

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn of_type<'a>(recs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    recs.iter().filter(|r| r["type"] == kind).collect()
}

/// A one-shot `pre-tool-use` on `bash` with input `{}`, recorded to `log`.
fn logged_call(scene: &Scene, log: &Path) -> std::process::Command {
    let mut cmd = scene.hookhost();
    cmd.args([NO_SANDBOX, "--log"]).arg(log).args([
        "pre-tool-use",
        "--tool",
        "bash",
        "--input",
        "{}",
    ]);
    cmd
}

fn sha256(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    format!(
        "sha256:{}",
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// A scene with a blocking hook that keeps each stdin it reads, a failing
/// `on_failure = "continue"` hook, a prompt hook that adds context, and a marker every
/// run appends to.
struct Recorded {
    scene: Scene,
    log: PathBuf,
    marker: PathBuf,
}

impl Recorded {
    fn new() -> Recorded {
        let scene = Scene::new();
        let marker = scene.hooks.join("marker");
        let seen = scene.hooks.join("seen");
        std::fs::create_dir_all(&seen).unwrap();
        let nf = scene.script(
            "no-force-push.sh",
            &format!(
                "echo run >> '{m}'\ninput=$(cat)\nprintf '%s\\n' \"$input\" > '{seen}'/$(date +%s%N)\ncase \"$input\" in *\"--force\"*) echo 'force-push is not allowed here' >&2; exit 2 ;; esac\nexit 0",
                m = marker.display(),
                seen = seen.display()
            ),
        );
        let flaky = scene.script(
            "flaky.sh",
            &format!("echo run >> '{}'\nexit 1", marker.display()),
        );
        let kw = scene.script(
            "keywords.sh",
            &format!(
                "echo run >> '{}'\necho 'use the seed skill'",
                marker.display()
            ),
        );
        let config = [
            sh_hook(
                "no-force-push",
                &nf,
                "tools = [\"bash\", \"exec\"]\ntimeout = 10",
            ),
            sh_hook("flaky", &flaky, "on_failure = \"continue\""),
            hook(
                "keywords",
                "UserPromptSubmit",
                &["/bin/sh", kw.to_str().unwrap()],
                "",
            ),
        ]
        .concat();
        scene.write_config(&config);
        let log = scene.root.path().join("state/session.jsonl");
        Recorded { scene, log, marker }
    }

    /// Runs a gate: the first call starts the record, later ones resume it.
    fn call(&self, tool: &str, input: &str, id: &str) -> Output {
        let mut cmd = self.scene.hookhost();
        cmd.arg(NO_SANDBOX);
        if self.log.exists() {
            cmd.args(["pre-tool-use", "--resume"]).arg(&self.log);
        } else {
            cmd.args(["--session-id", "S1", "--log"])
                .arg(&self.log)
                .arg("pre-tool-use");
        }
        cmd.args([
            "--json",
            "--tool",
            tool,
            "--input",
            input,
            "--tool-use-id",
            id,
        ])
        .output()
        .unwrap()
    }

    fn prompt(&self, text: &str) -> Output {
        self.scene
            .hookhost()
            .arg(NO_SANDBOX)
            .args(["prompt", "--json", "--resume"])
            .arg(&self.log)
            .arg(text)
            .output()
            .unwrap()
    }

    /// A session: an allowed call (the flaky hook fails and continues), a blocked call,
    /// a prompt with context.
    fn session(&self) {
        assert_eq!(
            self.call("bash", r#"{"command":"ls"}"#, "T1").status.code(),
            Some(0)
        );
        assert_eq!(
            self.call("bash", r#"{"command":"git push --force"}"#, "T2")
                .status
                .code(),
            Some(1)
        );
        let out = self.prompt("ooo seed my requirements");
        assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    }

    fn replay(&self) -> Output {
        self.scene
            .hookhost()
            .arg("replay")
            .arg(&self.log)
            .output()
            .unwrap()
    }

    /// `replay --ignore-chain`: a record changed on purpose, replayed as it is now.
    fn replay_changed(&self) -> Output {
        self.scene
            .hookhost()
            .args(["replay", "--ignore-chain"])
            .arg(&self.log)
            .output()
            .unwrap()
    }

    fn marker_runs(&self) -> usize {
        std::fs::read_to_string(&self.marker)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }
}

mod reading;
mod resume;

#[test]
fn every_record_type_is_written_with_its_fields() {
    let r = Recorded::new();
    r.session();
    let recs = records(&r.log);
    for rec in &recs {
        assert_eq!(rec["session_id"], "S1", "{rec}");
        let at = rec["at"].as_str().unwrap();
        assert!(at.ends_with('Z') && at.len() == 24, "{at}");
    }

    let started = of_type(&recs, "session.started");
    assert_eq!(started.len(), 1);
    let s = started[0];
    assert_eq!(s["no_hooks"], false);
    assert_eq!(s["permission_mode"], "auto");
    assert_eq!(s["cwd"], r.scene.project.to_str().unwrap());
    let nf = &s["hooks"][0];
    assert_eq!(nf["name"], "no-force-push");
    assert_eq!(nf["event"], "PreToolUse");
    assert_eq!(nf["tools"], serde_json::json!(["bash", "exec"]));
    assert_eq!(nf["timeout"], 10);
    assert_eq!(nf["sandbox"], true);
    assert_eq!(nf["on_failure"], "block");
    assert_eq!(nf["command"][0], "/bin/sh");
    assert_eq!(s["hooks"][1]["on_failure"], "continue");
    assert_eq!(s["hooks"][2]["event"], "UserPromptSubmit");
    assert!(
        s["banner"]
            .as_str()
            .unwrap()
            .starts_with("hooks: no-force-push (bash, exec")
    );
    assert_eq!(of_type(&recs, "session.resumed").len(), 2);

    // hook.started before each run, then its effect with the same digest.
    let hs = of_type(&recs, "hook.started");
    let effects = of_type(&recs, "effect");
    assert_eq!(hs.len(), 4, "nf+flaky, nf (blocks), keywords");
    assert_eq!(effects.len(), 4);
    for (h, e) in hs.iter().zip(&effects) {
        assert_eq!(h["hook"], e["hook"]);
        assert_eq!(h["input_digest"], e["input_digest"]);
    }
    assert_eq!(hs[0]["tool"], "bash");
    assert_eq!(hs[0]["tool_use_id"], "T1");
    assert_eq!(hs[3]["prompt"], "ooo seed my requirements");
    assert_eq!(effects[1]["exit_code"], 1);
    assert_eq!(effects[2]["exit_code"], 2);
    assert_eq!(effects[2]["stderr"], "force-push is not allowed here\n");
    assert_eq!(effects[3]["stdout"], "use the seed skill\n");

    // The digests are sha256 of the exact stdin the hook read.
    let mut seen: Vec<PathBuf> = std::fs::read_dir(r.scene.hooks.join("seen"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    seen.sort();
    assert_eq!(seen.len(), 2);
    for (file, digest) in seen.iter().zip([&hs[0], &hs[2]]) {
        let bytes = std::fs::read(file).unwrap();
        assert_eq!(digest["input_digest"], sha256(&bytes), "{file:?}");
        assert!(bytes.starts_with(b"{\"session_id\":\"S1\",\"hook_event_name\":\"PreToolUse\""));
    }

    let decided = of_type(&recs, "hook.decided");
    assert_eq!(decided.len(), 2);
    assert_eq!(decided[0]["hook"], "flaky");
    assert_eq!(decided[0]["decision"], "failure_continued");
    assert_eq!(decided[0]["reason"], "exited with code 1");
    assert_eq!(decided[0]["tool"], "bash");
    assert_eq!(decided[1]["hook"], "no-force-push");
    assert_eq!(decided[1]["decision"], "block");
    assert_eq!(decided[1]["reason"], "force-push is not allowed here");
    assert_eq!(decided[1]["tool_use_id"], "T2");

    let ctx = of_type(&recs, "hook.context");
    assert_eq!(ctx.len(), 1);
    assert_eq!(ctx[0]["hook"], "keywords");
    assert_eq!(ctx[0]["characters"], 18);
    assert_eq!(ctx[0]["text"], "use the seed skill");

    let verdicts = of_type(&recs, "gate.verdict");
    assert_eq!(verdicts.len(), 3);
    assert_eq!(verdicts[1]["tool_input"]["command"], "git push --force");
    assert_eq!(verdicts[1]["verdict"]["outcome"], "block");
    assert_eq!(verdicts[2]["prompt"], "ooo seed my requirements");
    assert_eq!(verdicts[2]["verdict"]["context"][0]["hook"], "keywords");

    // --no-hooks is recorded too.
    let off = r.scene.root.path().join("off.jsonl");
    let out = r
        .scene
        .hookhost()
        .args(["--no-hooks", "--log"])
        .arg(&off)
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let recs = records(&off);
    assert_eq!(recs[0]["type"], "session.started");
    assert_eq!(recs[0]["no_hooks"], true);
    assert_eq!(recs[0]["banner"], "hooks: off (--no-hooks)");
}

#[test]
fn one_shot_commands_record_nothing_without_log() {
    let scene = Scene::new();
    let state = scene.root.path().join("xdg-state");
    let nf = scene.script("nf.sh", "exit 0");
    scene.write_config(&sh_hook("nf", &nf, ""));
    let out = scene
        .hookhost()
        .env("XDG_STATE_HOME", &state)
        .args([
            NO_SANDBOX,
            "--session-id",
            "S9",
            "pre-tool-use",
            "--tool",
            "bash",
        ])
        .args(["--input", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !state.exists(),
        "a one-shot call without --log left a record"
    );
}

/// Waits until the file at `path` holds `needle`.
fn wait_for(path: &Path, needle: &str) {
    assert!(
        wait_until(|| std::fs::read_to_string(path).is_ok_and(|s| s.contains(needle))),
        "{needle} never appeared in {path:?}"
    );
}

#[test]
fn two_sessions_never_write_one_file() {
    let scene = Scene::new();
    let sleeper = scene.script("sleeper.sh", "sleep 2");
    scene.write_config(&sh_hook("slow", &sleeper, ""));
    let log = scene.root.path().join("busy.jsonl");
    let mut first = logged_call(&scene, &log)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&log, "hook.started");
    let out = scene
        .hookhost()
        .arg(NO_SANDBOX)
        .args([
            "pre-tool-use",
            "--tool",
            "bash",
            "--input",
            "{}",
            "--resume",
        ])
        .arg(&log)
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr,
        format!(
            "another session is writing the session record {}; two sessions never write one file.\n",
            log.display()
        )
    );
    assert!(first.wait().unwrap().success());

    // A new session never writes into an existing record.
    let out = logged_call(&scene, &log).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).1.contains(&format!(
            "the session record {} already exists",
            log.display()
        )),
        "{}",
        text(&out).1
    );
    assert_eq!(of_type(&records(&log), "session.started").len(), 1);
}

#[test]
fn large_output_is_capped_in_the_record() {
    let scene = Scene::new();
    let big = scene.script("big.sh", "head -c 200000 /dev/zero | tr '\\0' a");
    scene.write_config(&hook(
        "big",
        "UserPromptSubmit",
        &["/bin/sh", big.to_str().unwrap()],
        "",
    ));
    let log = scene.root.path().join("big.jsonl");
    let out = scene
        .hookhost()
        .args([NO_SANDBOX, "--log"])
        .arg(&log)
        .args(["prompt", "--json", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size < 100_000, "record is {size} bytes");
    let recs = records(&log);
    let effect = of_type(&recs, "effect")[0];
    assert_eq!(effect["stdout_truncated"], true);
    assert_eq!(effect["stdout_len"], 200_000);
    assert_eq!(effect["stdout_sha256"], sha256(&[b'a'; 200_000]));
    assert_eq!(effect["stdout"].as_str().unwrap().len(), 64 * 1024);
    // The context as kept (10,000 characters) is whole in hook.context.
    assert_eq!(of_type(&recs, "hook.context")[0]["characters"], 10_000);

    let out = scene.hookhost().arg("replay").arg(&log).output().unwrap();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("cannot be served exactly: its stdout (200000 bytes) was cut to 65536 bytes in the record; it was not run"),
        "{stdout}"
    );
}

#[test]
fn a_serve_session_records_to_the_default_file() {
    use hookhost::session::{Mode, Session, SessionOptions};
    let scene = Scene::new();
    scene.write_config("");
    let state = scene.root.path().join("xdg-state");
    let options = SessionOptions {
        config: Some(scene.config.clone()),
        project: scene.project.clone(),
        session_id: Some("S/7".into()),
        mode: Mode::Serve,
        env: Some(vec![
            ("XDG_STATE_HOME".into(), state.clone().into()),
            ("PATH".into(), "/usr/bin:/bin".into()),
        ]),
        ..SessionOptions::default()
    };
    let session = Session::start(options.clone()).unwrap();
    // `S/7` is no plain file name: it is named by its digest (one file per id).
    let file = state
        .join("hookhost")
        .join(hookhost::record::file_name_for("S/7").unwrap());
    assert!(
        file.to_str().unwrap().contains("sha256="),
        "{}",
        file.display()
    );
    let recs = records(&file);
    assert_eq!(recs[0]["type"], "session.started");
    assert_eq!(recs[0]["session_id"], "S/7");
    drop(session);
    // The same id again: not recorded into the other session's file, and it says so.
    let session = Session::start(options).unwrap();
    assert!(
        session.warnings().iter().any(|w| w.starts_with(&format!(
            "⚠ the session record {} already exists",
            file.display()
        )) && w.ends_with("This session is not recorded.")),
        "{:?}",
        session.warnings()
    );
    assert_eq!(records(&file).len(), 1);
}

#[test]
fn what_a_hook_did_is_on_disk_before_the_next_hook_runs() {
    // Records are appended and flushed one by one (DESIGN.md): the second hook copies
    // the record as it stands while it runs, and everything before its start is there.
    let scene = Scene::new();
    let log = scene.root.path().join("session.jsonl");
    let copy = scene.root.path().join("copy.jsonl");
    let first = scene.script("first.sh", "cat >/dev/null; echo 'first ran' >&2; exit 1");
    let second = scene.script(
        "second.sh",
        &format!("cat >/dev/null; cat {:?} > {:?}", log, copy),
    );
    scene.write_config(&format!(
        "{}{}",
        sh_hook("first", &first, "on_failure = \"continue\""),
        sh_hook("second", &second, "")
    ));
    let out = logged_call(&scene, &log).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let seen = records(&copy);
    let kinds: Vec<(&str, &str)> = seen
        .iter()
        .filter(|r| r["hook"].is_string())
        .map(|r| (r["type"].as_str().unwrap(), r["hook"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("hook.started", "first"),
            ("effect", "first"),
            ("hook.decided", "first"),
            ("hook.started", "second"),
        ],
        "{seen:#?}"
    );
    // And the whole gate, verdict included, once the call has returned.
    let all = records(&log);
    assert_eq!(of_type(&all, "gate.verdict").len(), 1, "{all:#?}");
    assert_eq!(of_type(&all, "effect").len(), 2, "{all:#?}");
}
