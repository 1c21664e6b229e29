//! Session records the agent cannot steer and other users cannot read, through the real
//! binary: `--log`/`--resume` files in agent-writable folders are refused (F4), a
//! resume of a record that lists fewer hooks than today's config warns (F4), records
//! are created 0600 in 0700 folders whatever the umask, and an existing record open to
//! others warns on resume and on `log show` (F12).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::{Scene, sh_hook, text};
use serde_json::Value;

const NO_SANDBOX: &str = "--no-sandbox";

/// A scene whose one hook blocks `git push --force`.
fn force_scene() -> Scene {
    let scene = Scene::new();
    let script = scene.script(
        "no-force-push.sh",
        "case \"$(cat)\" in *--force*) echo 'force-push is not allowed here' >&2; exit 2 ;; esac",
    );
    scene.write_config(&sh_hook("no-force-push", &script, "tools = [\"bash\"]"));
    scene
}

/// `pre-tool-use` on `git push --force` (text mode), with `extra` before the command.
fn force_push(scene: &Scene, extra: &[&str], log_flag: &[&str]) -> Output {
    scene
        .hookhost()
        .arg(NO_SANDBOX)
        .args(extra)
        .arg("pre-tool-use")
        .args(log_flag)
        .args([
            "--tool",
            "bash",
            "--input",
            r#"{"command":"git push --force"}"#,
        ])
        .output()
        .unwrap()
}

/// The text of the record at `path` with its `session.started` edited to list no hooks,
/// as an agent that knows the record's format would edit it: its hash chain recomputed,
/// so that only the path guard stands in the way.
fn listing_no_hooks(path: &Path) -> String {
    let mut prev: Option<String> = None;
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            if v["type"] == "session.started" {
                v["hooks"] = Value::Array(Vec::new());
            }
            if let Some(prev) = &prev {
                v["prev"] = Value::String(prev.clone());
            }
            let line = v.to_string();
            prev = Some(hookhost::record::chain::digest(line.as_bytes()));
            format!("{line}\n")
        })
        .collect()
}

/// Writes `text` as the record at `path` and the head that matches it: what an agent
/// that knows the scheme, and can write both files, would write.
fn write_with_head(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let head = hookhost::record::chain::Head {
        lines: lines.len(),
        end: text.len() as u64,
        last: lines
            .last()
            .map(|l| hookhost::record::chain::digest(l.as_bytes())),
    };
    std::fs::write(head_path(path), head.encode()).unwrap();
}

fn head_path(record: &Path) -> PathBuf {
    hookhost::record::chain::head_path(record)
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The `ready` (or `refused`) line of a `serve` started with `args`, then end of input.
fn serve_first_line(scene: &Scene, env: &[(&str, &Path)], args: &[&str]) -> (Value, Output) {
    let mut cmd = scene.hookhost();
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .arg(NO_SANDBOX)
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let line: Value = serde_json::from_str(&first)
        .unwrap_or_else(|e| panic!("{e}: {first:?}; stderr {}", text(&out).1));
    (line, out)
}

/// The review's reproduction: a record in the project, edited by the agent to list no
/// hooks, is refused on resume (one-shot and serve), and so is `--log` there.
#[test]
fn a_record_in_the_project_is_refused_for_log_and_resume() {
    let scene = force_scene();
    let inside = scene.project.join("session.jsonl");

    let out = force_push(&scene, &["--log", arg(&inside)], &[]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "session record {} is in the project, so the agent could change it, and a resume would trust the hooks it lists. Keep session records outside (for example in ~/.local/state/hookhost/), or start with --no-hooks.",
            inside.display()
        )
    );
    assert!(!inside.exists(), "a refused --log still wrote the record");

    // A record made elsewhere, then put in the project and edited to list no hooks.
    let outside = scene.root.path().join("state/session.jsonl");
    let out = force_push(&scene, &["--log", arg(&outside)], &[]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let tampered = listing_no_hooks(&outside);
    write_with_head(&inside, &tampered);
    std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o600)).unwrap();

    let out = force_push(&scene, &[], &["--resume", arg(&inside)]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "session record {} is in the project, so the agent could change it",
            inside.display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), tampered);

    let (line, out) = serve_first_line(&scene, &[], &["--resume", arg(&inside)]);
    assert_eq!(line["type"], "refused", "{line}");
    assert!(
        line["error"]
            .as_str()
            .unwrap()
            .contains("is in the project, so the agent could change it"),
        "{line}"
    );
    assert_eq!(out.status.code(), Some(2));

    // --no-hooks runs no guard and no hook: the way out, as for a config.
    let out = force_push(&scene, &["--no-hooks"], &["--resume", arg(&inside)]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
}

/// The other agent-writable folders: `[sandbox] writable`, `--writable`, and the system
/// temp folder in a session without a sandbox.
#[test]
fn a_record_in_any_agent_writable_folder_is_refused() {
    let scene = force_scene();
    let scratch = scene.root.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let config = std::fs::read_to_string(&scene.config).unwrap();
    scene.write_config(&format!(
        "[sandbox]\nwritable = [{:?}]\n\n{config}",
        arg(&scratch)
    ));
    let log = scratch.join("s.jsonl");
    let out = force_push(&scene, &["--log", arg(&log)], &[]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "session record {} is in a folder the agent can write ({}, from [sandbox] writable or --writable), so the agent could change it",
            log.display(),
            scratch.display()
        )),
        "{stderr}"
    );
    assert!(!log.exists());

    let tmp_log = PathBuf::from(format!(
        "/tmp/hookhost-record-trust-{}.jsonl",
        std::process::id()
    ));
    let out = force_push(&scene, &["--log", arg(&tmp_log)], &[]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("(/tmp, a system temp folder, in a session without a sandbox)"),
        "{stderr}"
    );
    assert!(!tmp_log.exists());
}

/// serve's default record inside the project (XDG_STATE_HOME there) is not written;
/// the ready line says so, and the session still runs its hooks.
#[test]
fn a_default_record_the_agent_could_change_is_not_written() {
    let scene = force_scene();
    let state = scene.project.join("state");
    let (line, out) = serve_first_line(&scene, &[("XDG_STATE_HOME", &state)], &[]);
    assert_eq!(line["type"], "ready", "{line}");
    let warnings = line["warnings"].to_string();
    assert!(
        warnings.contains("is in the project, so the agent could change it")
            && warnings.contains("This session is not recorded."),
        "{line}"
    );
    assert!(
        !state.exists(),
        "the default record was written in the project"
    );
    assert_eq!(out.status.code(), Some(0));
}

/// A record (outside the project, so not refused) edited to list fewer hooks than
/// today's config: the resume warns and names the missing hooks, in the one-shot
/// commands' start-up warnings and in serve's ready line.
#[test]
fn a_resume_of_a_record_listing_fewer_hooks_names_them() {
    let scene = force_scene();
    let log = scene.root.path().join("state/session.jsonl");
    let out = force_push(&scene, &["--log", arg(&log)], &[]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let edited = listing_no_hooks(&log);
    write_with_head(&log, &edited);
    let warning = format!(
        "⚠ hook no-force-push in your config is not listed in the session record {}, so this resumed session does not run it. If you did not add it since the session was recorded, the record was changed. Resume cleanly (--clean) to use today's hooks.",
        log.display()
    );

    let out = force_push(&scene, &[], &["--resume", arg(&log)]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.lines().any(|l| l == warning), "{stderr}");

    let (line, _) = serve_first_line(&scene, &[], &["--resume", arg(&log)]);
    assert_eq!(line["type"], "ready", "{line}");
    let warnings: Vec<&str> = line["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(warnings.contains(&warning.as_str()), "{line}");

    // A clean resume runs today's hooks, and says nothing about the record's list.
    let out = force_push(&scene, &[], &["--resume", arg(&log), "--clean"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        !stderr.contains("not listed in the session record"),
        "{stderr}"
    );
}

/// `sh -c 'umask U; exec hookhost …'`, with the scene's options.
fn with_umask(scene: &Scene, umask: &str, args: &[&str]) -> Command {
    let cmd = scene.hookhost();
    let program = cmd.get_program().to_owned();
    let mut argv: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    argv.extend(args.iter().map(|a| a.to_string()));
    let mut sh = Command::new("/bin/sh");
    sh.arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(program)
        .args(argv);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    sh
}

/// Records and the folders made for them are private whatever the umask: `--log` and
/// serve's default record.
#[test]
fn records_are_created_private_whatever_the_umask() {
    let scene = force_scene();
    for umask in ["000", "022", "277"] {
        let base = scene.root.path().join(format!("logs-{umask}"));
        let log = base.join("a/b/session.jsonl");
        let out = with_umask(
            &scene,
            umask,
            &[
                NO_SANDBOX,
                "--log",
                arg(&log),
                "pre-tool-use",
                "--tool",
                "bash",
                "--input",
                r#"{"command":"ls"}"#,
            ],
        )
        .output()
        .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "umask {umask}: {:?}",
            text(&out)
        );
        assert_eq!(mode(&log), 0o600, "umask {umask}");
        assert_eq!(mode(&head_path(&log)), 0o600, "umask {umask}: the head");
        for dir in [base.join("a/b"), base.join("a"), base.clone()] {
            assert_eq!(mode(&dir), 0o700, "umask {umask}: {}", dir.display());
        }
    }

    let state = scene.root.path().join("state-000");
    let mut child = with_umask(
        &scene,
        "000",
        &[NO_SANDBOX, "--session-id", "private-1", "serve"],
    )
    .env("XDG_STATE_HOME", &state)
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"id\":1,\"type\":\"user_prompt_submit\",\"prompt\":\"my db password is hunter2\"}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let record = state.join("hookhost/private-1.jsonl");
    assert_eq!(mode(&record), 0o600);
    assert_eq!(mode(&state.join("hookhost")), 0o700);
    assert_eq!(mode(&state), 0o700);
}

/// An existing record open to others: resume warns (and still resumes), `log show` and
/// `replay` warn on stderr; a private one gets no warning.
#[test]
fn a_record_open_to_others_warns_on_resume_and_show() {
    let scene = force_scene();
    let log = scene.root.path().join("state/session.jsonl");
    let out = force_push(&scene, &["--log", arg(&log)], &[]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let warning = format!(
        "⚠ the session record {} is open to other users (mode 0644), and it holds prompts and tool inputs. Make it private: chmod 600 {}",
        log.display(),
        log.display()
    );
    let show = |command: &str| {
        let out = scene.hookhost().arg(command).arg(&log).output().unwrap();
        text(&out).1
    };
    let log_show = |_: ()| {
        let out = scene
            .hookhost()
            .args(["log", "show"])
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        text(&out).1
    };

    // Private (as written): no warning anywhere.
    let out = force_push(&scene, &[], &["--resume", arg(&log)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !text(&out).1.contains("open to other users"),
        "{:?}",
        text(&out)
    );
    assert!(!log_show(()).contains("open to other users"));

    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = force_push(&scene, &[], &["--resume", arg(&log)]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.lines().any(|l| l == warning), "{stderr}");
    let (line, _) = serve_first_line(&scene, &[], &["--resume", arg(&log)]);
    assert!(
        line["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w == warning.as_str()),
        "{line}"
    );
    assert!(log_show(()).lines().any(|l| l == warning));
    assert!(show("replay").lines().any(|l| l == warning));
    // Nothing changed the mode: it is the user's to fix.
    assert_eq!(mode(&log), 0o644);
}

/// A config in the project is refused even when a resume keeps none of its hooks (a
/// record edited to list none): the refusal looked at the hooks the resume kept.
#[test]
fn a_config_in_the_project_is_refused_on_a_resume_that_keeps_no_hooks() {
    let scene = force_scene();
    let log = scene.root.path().join("state/session.jsonl");
    let out = force_push(&scene, &["--log", arg(&log)], &[]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let edited = listing_no_hooks(&log);
    write_with_head(&log, &edited);
    let inside = scene.project.join("config.toml");
    std::fs::copy(&scene.config, &inside).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("--config")
        .arg(&inside)
        .arg("--project")
        .arg(&scene.project)
        .args([NO_SANDBOX, "pre-tool-use", "--resume", arg(&log)])
        .args([
            "--tool",
            "bash",
            "--input",
            r#"{"command":"git push --force"}"#,
        ])
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("config {} is in the project", inside.display())),
        "{stderr}"
    );
}

/// N13: three calls of one session, each a process of its own as behind the bridge (the
/// first creates the record, the others resume it): `git status`, a force push, `ls`.
/// Returns the record, whose last line is the last call's `gate.verdict`.
fn three_calls(scene: &Scene) -> PathBuf {
    let log = scene.root.path().join("state/n13.jsonl");
    for (command, code) in [("git status", 0), ("git push --force", 1), ("ls", 0)] {
        let flag = if log.exists() { "--resume" } else { "--log" };
        let out = scene
            .hookhost()
            .arg(NO_SANDBOX)
            .arg("pre-tool-use")
            .args([flag, arg(&log)])
            .args(["--tool", "bash", "--input"])
            .arg(serde_json::json!({ "command": command }).to_string())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{command}: {:?}", text(&out));
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains("\"type\":\"gate.verdict\""),
        "{text}"
    );
    log
}

/// `log verify FILE`: (exit code, stdout, stderr).
fn log_verify(scene: &Scene, log: &Path) -> (i32, String, String) {
    scene.run(&["log", "verify", arg(log)])
}

/// The record's lines, each with its newline.
fn lines_of(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The next call of the session refuses a record whose end was changed, naming the line,
/// and leaves it as it is: the change is not sealed in by the lines it would append.
fn next_call_refuses(scene: &Scene, log: &Path, line: usize) {
    let before = std::fs::read(log).unwrap();
    let out = force_push(scene, &[], &["--resume", arg(log)]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("was changed after it was written (line ")
            && stderr.contains(&format!("line {line}:")),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(log).unwrap(),
        before,
        "the refused call wrote"
    );
}

/// An intact record verifies to its end: the head beside it (0600, one fixed-size line)
/// names its last line, and every call of the session kept it so.
#[test]
fn log_verify_passes_an_intact_record_to_its_head() {
    let scene = force_scene();
    let log = three_calls(&scene);
    let lines = lines_of(&log).len();
    let (code, stdout, stderr) = log_verify(&scene, &log);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "intact: {lines} lines, every one chained; its end matches its head (line {lines})"
        )),
        "{stdout}"
    );
    assert!(stderr.is_empty(), "{stderr}");
    let head = head_path(&log);
    assert_eq!(mode(&head), 0o600);
    assert_eq!(
        std::fs::metadata(&head).unwrap().len(),
        hookhost::record::chain::HEAD_LEN as u64
    );
    // The next call resumes it as ever.
    let out = force_push(&scene, &[], &["--resume", arg(&log)]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    assert_eq!(log_verify(&scene, &log).0, 0);
}

/// N13 case 2b: a plain `sed` of the last line (the last verdict) is a break at that line.
#[test]
fn log_verify_fails_when_the_last_line_is_edited() {
    let scene = force_scene();
    let log = three_calls(&scene);
    let mut lines = lines_of(&log);
    let n = lines.len();
    let last = lines[n - 1].replace(
        "\"outcome\":\"allow\"",
        "\"outcome\":\"block\",\"message\":\"edited by the agent\"",
    );
    assert_ne!(last, lines[n - 1], "{}", lines[n - 1]);
    lines[n - 1] = last;
    std::fs::write(&log, lines.concat()).unwrap();
    let (code, stdout, stderr) = log_verify(&scene, &log);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "the hash chain breaks at line {n}: changed after it was written"
        )),
        "{stderr}"
    );
    next_call_refuses(&scene, &log, n);
}

/// N13 case 4: the line before a torn last line edited (and the last line torn to hide
/// its link) is a break at that line; so is an edit of the last whole line before a
/// crash's torn line.
#[test]
fn log_verify_fails_when_the_line_before_a_torn_last_line_is_edited() {
    let scene = force_scene();
    let log = three_calls(&scene);
    let lines = lines_of(&log);
    let n = lines.len();

    // Edit line n-1 and drop the last byte of line n (its newline and brace).
    let mut edited = lines.clone();
    edited[n - 2] = edited[n - 2].replacen("\"at\":\"", "\"at\":\"1", 1);
    assert_ne!(edited[n - 2], lines[n - 2]);
    let mut text = edited.concat();
    text.truncate(text.len() - 2);
    std::fs::write(&log, &text).unwrap();
    let (code, stdout, stderr) = log_verify(&scene, &log);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!("the hash chain breaks at line {}:", n - 1)),
        "{stderr}"
    );
    next_call_refuses(&scene, &log, n - 1);

    // A crash tore the next line; then the last whole line is edited.
    let mut text = lines.concat();
    text.push_str("{\"prev\":\"sha256:00");
    let last = lines[n - 1].replacen("\"at\":\"", "\"at\":\"1", 1);
    let text = text.replacen(&lines[n - 1], &last, 1);
    std::fs::write(&log, &text).unwrap();
    let (code, stdout, stderr) = log_verify(&scene, &log);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "the hash chain breaks at line {n}: changed after it was written"
        )),
        "{stderr}"
    );
    next_call_refuses(&scene, &log, n);
}

/// N13 case 1: the last line removed (the record cut back to an earlier line boundary)
/// is a break naming the line removed; so are two lines.
#[test]
fn log_verify_fails_when_the_last_line_is_removed() {
    let scene = force_scene();
    let log = three_calls(&scene);
    let lines = lines_of(&log);
    let n = lines.len();
    for removed in [1, 2] {
        std::fs::write(&log, lines[..n - removed].concat()).unwrap();
        let (code, stdout, stderr) = log_verify(&scene, &log);
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert!(
            stderr.contains(&format!(
                "the hash chain breaks at line {}: removed: the record ends at line {}, but its head",
                n - removed + 1,
                n - removed
            )),
            "{stderr}"
        );
        next_call_refuses(&scene, &log, n - removed + 1);
    }
    // The head removed too: the record says it keeps one.
    std::fs::remove_file(head_path(&log)).unwrap();
    let (code, _, stderr) = log_verify(&scene, &log);
    assert_eq!(code, 1);
    assert!(stderr.contains("is missing (removed?)"), "{stderr}");
}

/// A crash's torn last line is no break: `log verify` notes it and exits 0, and the next
/// call closes it, links past it and leaves the record intact to its new end.
#[test]
fn log_verify_passes_a_torn_last_line_from_a_crash() {
    let scene = force_scene();
    let log = three_calls(&scene);
    let lines = lines_of(&log);
    let n = lines.len();
    // The first bytes of the next call's first line, as a crash mid-write leaves them.
    let mut torn = lines.concat();
    let prev = hookhost::record::chain::digest(lines[n - 1].trim_end().as_bytes());
    torn.push_str(&format!("{{\"prev\":\"{prev}\",\"type\":\"session.res"));
    std::fs::write(&log, &torn).unwrap();
    let (code, stdout, stderr) = log_verify(&scene, &log);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "note: line {} is not a record (torn by a crash?)",
            n + 1
        )),
        "{stderr}"
    );
    assert!(
        stdout.contains(&format!("its end matches its head (line {n})")),
        "{stdout}"
    );
    let out = force_push(&scene, &[], &["--resume", arg(&log)]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let after = lines_of(&log);
    assert!(after[n + 1].contains("\"torn_prev\":"), "{}", after[n + 1]);
    let (code, stdout, stderr) = log_verify(&scene, &log);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("its end matches its head (line {})", after.len())),
        "{stdout}"
    );
}
