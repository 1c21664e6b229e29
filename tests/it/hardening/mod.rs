//! The bridge, hardened (issue 19), through the real binary: `install` writes the
//! strictest failure setting the installed agent takes and pins what it wrote; a
//! settings file edited the way an agent would (registration removed, timeout lowered,
//! `onFailure` dropped, every hook switched off) is caught by the next bridged call, by
//! Claude Code's `ConfigChange` answer and by `doctor`; record lines carry a hash chain
//! that `log verify`, `replay` and a resume check.
//!
//! `doctor` for a newcomer and the pins have modules of their own; the machines they
//! start from ([`Machine`], [`Newcomer`]) are here.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{Prerequisite, Scene, run, run_with_stdin, skip_or_fail};

/// A home of its own, with a folder of fake agent programs first on PATH.
struct Machine {
    scene: Scene,
    home: PathBuf,
    bin: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let scene = Scene::new();
        let home = scene.root.path().join("home");
        let bin = scene.root.path().join("bin");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        scene.write_config("");
        Machine { scene, home, bin }
    }

    /// A `claude` on PATH that prints `version` for `--version`.
    fn claude(&self, version: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = self.bin.join("claude");
        std::fs::write(
            &path,
            format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn path_env(&self) -> String {
        format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    fn hookhost(&self) -> Command {
        let mut cmd = self.scene.hookhost();
        cmd.env("HOME", &self.home)
            .env("PATH", self.path_env())
            .env_remove("CODEX_HOME")
            .env_remove("COPILOT_HOME");
        cmd
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        run(self.hookhost().args(args))
    }

    /// One bridged call: `payload` on stdin.
    fn bridge(&self, agent: &str, payload: &Value) -> (i32, String, String) {
        run_with_stdin(
            self.hookhost()
                .args(["--no-sandbox", "bridge", "--agent", agent]),
            payload.to_string().as_bytes(),
        )
    }

    fn claude_settings(&self) -> PathBuf {
        self.home.join(".claude/settings.json")
    }

    fn call(&self) -> Value {
        json!({
            "session_id": "pin-1", "transcript_path": null, "cwd": self.scene.project,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1",
        })
    }

    fn config_change(&self, file: &Path) -> Value {
        json!({
            "session_id": "pin-1", "transcript_path": null, "cwd": self.scene.project,
            "permission_mode": "default", "hook_event_name": "ConfigChange",
            "source": "user_settings", "file_path": file,
        })
    }
}

/// An edit an agent would make to its settings to switch hookhost off.
type Weakening = fn(&mut Value);

/// The deny reason of a Claude Code pre-tool answer, or `None` when it is no objection.
fn denied(reply: &(i32, String, String)) -> Option<String> {
    let (code, stdout, stderr) = reply;
    assert_eq!(*code, 0, "{stdout}{stderr}");
    if stdout.is_empty() {
        return None;
    }
    let answer: Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    Some(
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

mod newcomer;
mod pins;

#[test]
fn install_writes_on_failure_block_for_a_claude_code_that_takes_it_and_says_so_otherwise() {
    let m = Machine::new();
    m.claude("2.1.300");
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(m.claude_settings()).unwrap();
    let settings: Value = serde_json::from_str(&text).unwrap();
    for event in ["PreToolUse", "UserPromptSubmit", "ConfigChange"] {
        assert_eq!(
            settings["hooks"][event][0]["hooks"][0]["onFailure"], "block",
            "{event}: {text}"
        );
    }
    assert!(
        stdout.contains(
            "Claude Code 2.1.300 (Claude Code) is on PATH: onFailure: \"block\" is written."
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("Claude Code blocks the call if hookhost is missing"),
        "{stdout}"
    );

    // An older Claude Code: not written, and the user is told what it does instead.
    m.claude("2.1.200");
    let (code, stdout, _) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0);
    assert!(
        !std::fs::read_to_string(m.claude_settings())
            .unwrap()
            .contains("onFailure")
    );
    assert!(stdout.contains("older than 2.1.295"), "{stdout}");
    assert!(
        stdout.contains("lets a call through when hookhost cannot answer"),
        "{stdout}"
    );

    // Cursor takes failClosed whatever its version.
    let (code, _, _) = m.run(&["install", "cursor"]);
    assert_eq!(code, 0);
    let cursor = std::fs::read_to_string(m.home.join(".cursor/hooks.json")).unwrap();
    assert!(cursor.contains("\"failClosed\": true"), "{cursor}");
}

#[test]
fn an_edited_registration_is_caught_by_the_next_call_config_change_and_doctor() {
    let m = Machine::new();
    m.claude("2.1.300");
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    let pins = m.scene.state().join("hookhost/pins.json");
    assert!(pins.exists(), "install pins what it wrote");
    let settings = m.claude_settings();
    let installed = std::fs::read_to_string(&settings).unwrap();

    // Untouched: the call goes ahead, ConfigChange has no objection, doctor is content
    // with this agent.
    assert_eq!(denied(&m.bridge("claude-code", &m.call())), None);
    let (code, stdout, _) = m.bridge("claude-code", &m.config_change(&settings));
    assert_eq!((code, stdout.as_str()), (0, ""));
    let (_, stdout, _) = m.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report["agents"][0]["registrations"][0]["state"], "pinned",
        "{report}"
    );

    // The user's own edit elsewhere in the file is not drift.
    let mut edited: Value = serde_json::from_str(&installed).unwrap();
    edited["model"] = json!("opus");
    std::fs::write(&settings, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    assert_eq!(denied(&m.bridge("claude-code", &m.call())), None);

    // The edits an agent would make to switch hookhost off.
    let weakenings: [(&str, Weakening); 4] = [
        ("timeout lowered", |s| {
            s["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = json!(1)
        }),
        ("onFailure dropped", |s| {
            for event in ["PreToolUse", "UserPromptSubmit", "ConfigChange"] {
                s["hooks"][event][0]["hooks"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("onFailure");
            }
        }),
        ("PreToolUse registration removed", |s| {
            s["hooks"].as_object_mut().unwrap().remove("PreToolUse");
        }),
        ("every hook switched off", |s| {
            s["disableAllHooks"] = json!(true)
        }),
    ];
    for (what, weaken) in weakenings {
        let mut settings_now: Value = serde_json::from_str(&installed).unwrap();
        weaken(&mut settings_now);
        std::fs::write(
            &settings,
            serde_json::to_string_pretty(&settings_now).unwrap(),
        )
        .unwrap();

        let reason = denied(&m.bridge("claude-code", &m.call()))
            .unwrap_or_else(|| panic!("{what}: the next call went ahead"));
        assert!(
            reason.contains("hookhost's registration with Claude Code in")
                && reason.contains("hookhost install claude-code"),
            "{what}: {reason}"
        );
        let (code, stdout, _) = m.bridge("claude-code", &m.config_change(&settings));
        assert_eq!(code, 0, "{what}");
        let answer: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|_| panic!("{what}: ConfigChange let it through: {stdout:?}"));
        assert_eq!(answer["decision"], "block", "{what}: {answer}");

        let (code, stdout, _) = m.run(&["doctor"]);
        assert_eq!(code, 1, "{what}: {stdout}");
        assert!(stdout.contains("✗ user scope"), "{what}: {stdout}");
        assert!(
            stdout.ends_with("not healthy: see the lines marked ✗\n"),
            "{stdout}"
        );
    }

    // Installing again restores and pins it; the calls go ahead again.
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    assert_eq!(denied(&m.bridge("claude-code", &m.call())), None);

    // A project's settings.local.json that switches every hook off is refused too.
    let local = m.scene.project.join(".claude/settings.local.json");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, "{\"disableAllHooks\": true}").unwrap();
    let (_, stdout, _) = m.bridge("claude-code", &m.config_change(&local));
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["decision"], "block");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("disableAllHooks")
    );

    // Uninstall unpins: nothing is left to drift.
    assert_eq!(m.run(&["uninstall", "claude-code"]).0, 0);
    let pinned: Value = serde_json::from_str(&std::fs::read_to_string(&pins).unwrap()).unwrap();
    assert_eq!(pinned["pins"], json!([]));
}

#[test]
fn doctor_reports_a_healthy_machine_and_json_for_scripts() {
    let m = Machine::new();
    m.claude("2.1.300");
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    // A record of a real session, chained.
    let (code, _, stderr) = m.run(&[
        "--no-sandbox",
        "--session-id",
        "doc-1",
        "--log",
        m.scene
            .state()
            .join("hookhost/doc-1.jsonl")
            .to_str()
            .unwrap(),
        "prompt",
        "hello",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = m.run(&["doctor"]);
    let bwrap_runs = stdout.contains("✓ box:");
    if !bwrap_runs {
        assert_eq!(code, 1, "{stdout}{stderr}");
        skip_or_fail(
            "doctor_reports_a_healthy_machine_and_json_for_scripts",
            Prerequisite::Bubblewrap,
            &format!("bubblewrap cannot run here, so the machine is not healthy: {stdout}"),
        );
        return;
    }
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("Claude Code: claude on PATH"), "{stdout}");
    assert!(stdout.contains("✓ user scope"), "{stdout}");
    assert!(stdout.contains("✓ WASM cache:"), "{stdout}");
    assert!(
        stdout.contains("✓ session records: 1 most recent checked, 0 broken"),
        "{stdout}"
    );
    assert!(stdout.ends_with("healthy\n"), "{stdout}");
    let (code, stdout, _) = m.run(&["doctor", "--json"]);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["healthy"], true);
    assert_eq!(
        report["agents"].as_array().unwrap().len(),
        hookhost::bridge::AgentKind::ALL.len()
    );
    assert_eq!(report["records"]["checked"], 1);
}

#[test]
fn a_record_edited_in_the_middle_fails_verify_replay_resume_and_doctor_at_that_line() {
    let m = Machine::new();
    let ok = m.scene.script("ok.sh", "cat >/dev/null; exit 0");
    m.scene.write_config(&crate::support::hook(
        "ok",
        "PreToolUse",
        &["/bin/sh", ok.to_str().unwrap()],
        "",
    ));
    let record = m.scene.state().join("hookhost/chain-1.jsonl");
    let gate = |first: bool| {
        let mut args = vec!["--no-sandbox"];
        let log = record.to_str().unwrap();
        if first {
            args.extend(["--session-id", "chain-1", "--log", log, "pre-tool-use"]);
        } else {
            args.extend(["pre-tool-use", "--resume", log]);
        }
        args.extend(["--tool", "bash", "--input", "{\"command\":\"ls\"}"]);
        m.run(&args)
    };
    assert_eq!(gate(true).0, 0);
    let (code, stdout, _) = m.run(&["log", "verify", record.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("intact:"), "{stdout}");
    assert!(stdout.contains("every one chained"), "{stdout}");

    // Change line 3 (an effect) the way an agent's sed would.
    let text = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[2].contains("\"type\":\"effect\""), "{}", lines[2]);
    let edited = text.replacen("\"exit_code\":0", "\"exit_code\":2", 1);
    assert_ne!(edited, text);
    std::fs::write(&record, &edited).unwrap();

    let (code, _, stderr) = m.run(&["log", "verify", record.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("the hash chain breaks at line 3:"),
        "{stderr}"
    );
    let (code, _, stderr) = m.run(&["replay", record.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--ignore-chain"), "{stderr}");
    let (code, stdout, stderr) = m.run(&["replay", "--ignore-chain", record.to_str().unwrap()]);
    assert!(
        stderr.contains("was changed after it was written"),
        "{stderr}"
    );
    assert_eq!(code, 1, "the edited effect no longer matches: {stdout}");
    let (code, _, stderr) = gate(false);
    assert_eq!(code, 2, "a resume of a changed record is refused");
    assert!(
        stderr.contains("was changed after it was written (line 3:"),
        "{stderr}"
    );
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("chain-1.jsonl: the hash chain breaks at line 3"),
        "{stdout}"
    );
}

/// Kiro CLI (issue 19 item 5): `install kiro` writes hookhost's own agent file with the
/// bridge on both events (`timeout_ms`, no answer cache), says how Kiro runs it, pins it;
/// a bridged call answers in Kiro's terms (exit 2 and the reason on stderr); an agent
/// that removes the registration or lowers its timeout is caught by the next call and by
/// `doctor`; `uninstall` removes the file it made.
#[test]
fn kiro_install_answers_and_drift_are_caught() {
    let m = Machine::new();
    let (code, stdout, stderr) = m.run(&["install", "kiro"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("Kiro CLI lets the call through")
            && stdout.contains("kiro-cli chat --agent hookhost"),
        "{stdout}"
    );
    let file = m.home.join(".kiro/agents/hookhost.json");
    let installed = std::fs::read_to_string(&file).unwrap();
    let agent: Value = serde_json::from_str(&installed).unwrap();
    assert_eq!(agent["name"], "hookhost");
    assert_eq!(agent["tools"], json!(["*"]));
    for event in ["preToolUse", "userPromptSubmit"] {
        let handler = &agent["hooks"][event][0];
        assert!(
            handler["command"]
                .as_str()
                .is_some_and(|c| c.contains("bridge --agent kiro")),
            "{event}: {agent}"
        );
        assert_eq!(handler["timeout_ms"], json!(13_000), "{event}: {agent}");
        assert_eq!(handler["cache_ttl_seconds"], json!(0), "{event}: {agent}");
        assert!(handler.get("matcher").is_none(), "every tool: {agent}");
    }

    let call = |command: &str| {
        json!({"hook_event_name": "preToolUse", "cwd": m.scene.project,
               "tool_name": "execute_bash", "tool_input": {"command": command}})
    };
    let (code, stdout, _) = m.bridge("kiro", &call("ls"));
    assert_eq!((code, stdout.as_str()), (0, ""));

    let weakenings: [(&str, Weakening); 2] = [
        ("preToolUse removed", |s| {
            s["hooks"].as_object_mut().unwrap().remove("preToolUse");
        }),
        ("timeout lowered", |s| {
            s["hooks"]["preToolUse"][0]["timeout_ms"] = json!(100)
        }),
    ];
    for (what, weaken) in weakenings {
        let mut now: Value = serde_json::from_str(&installed).unwrap();
        weaken(&mut now);
        std::fs::write(&file, serde_json::to_string_pretty(&now).unwrap()).unwrap();
        let (code, stdout, stderr) = m.bridge("kiro", &call("ls"));
        assert_eq!((code, stdout.as_str()), (2, ""), "{what}: {stderr}");
        assert!(
            stderr.contains("hookhost's registration with Kiro CLI in")
                && stderr.contains("hookhost install kiro"),
            "{what}: {stderr}"
        );
        let (code, stdout, _) = m.run(&["doctor"]);
        assert_eq!(code, 1, "{what}: {stdout}");
    }
    assert_eq!(m.run(&["install", "kiro"]).0, 0);
    assert_eq!(m.bridge("kiro", &call("ls")).0, 0);
    assert_eq!(m.run(&["uninstall", "kiro"]).0, 0);
    assert!(!file.exists(), "uninstall removes the agent file it made");
}

// ---- doctor for a newcomer (round three) -----------------------------------------------------

/// A machine with nothing on it: an empty home, no config, PATH a folder of fake agent
/// programs (none yet) then the system's own.
struct Newcomer {
    root: tempfile::TempDir,
    home: PathBuf,
    bin: PathBuf,
    project: PathBuf,
}

impl Newcomer {
    fn new() -> Newcomer {
        let root = tempfile::Builder::new()
            .prefix("newcomer-")
            .tempdir_in(crate::support::test_root())
            .unwrap();
        let (home, bin, project) = (
            root.path().join("home"),
            root.path().join("bin"),
            root.path().join("project"),
        );
        for dir in [&home, &bin, &project] {
            std::fs::create_dir_all(dir).unwrap();
        }
        Newcomer {
            root,
            home,
            bin,
            project,
        }
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        run(&mut self.command(env!("CARGO_BIN_EXE_hookhost"), args))
    }

    /// `binary ARGS` with this newcomer's environment: the default config (no `--config`),
    /// as the registered bridge loads it.
    fn command(&self, binary: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Command {
        let mut cmd = Command::new(binary);
        cmd.env_clear()
            .env("HOME", &self.home)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("XDG_STATE_HOME", self.root.path().join("state"))
            .env("XDG_CACHE_HOME", crate::support::test_root().join("cache"))
            .arg("--project")
            .arg(&self.project)
            .args(args);
        cmd
    }

    /// A newcomer with a `claude` on PATH, the marker hook configured, and `install
    /// claude-code` run (and succeeded).
    fn with_claude_code_installed() -> Newcomer {
        let m = Newcomer::new();
        m.claude();
        m.write_marker_config("");
        let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        m
    }

    /// A `claude` on PATH that takes `onFailure`.
    fn claude(&self) {
        use std::os::unix::fs::PermissionsExt;
        let claude = self.bin.join("claude");
        std::fs::write(&claude, "#!/bin/sh\necho '2.1.300 (Claude Code)'\n").unwrap();
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// One bridged Claude Code call of `payload`.
    fn bridge(&self, payload: &Value) -> (i32, String, String) {
        run_with_stdin(
            &mut self.command(
                env!("CARGO_BIN_EXE_hookhost"),
                &["--no-sandbox", "bridge", "--agent", "claude-code"],
            ),
            payload.to_string().as_bytes(),
        )
    }

    /// A Claude Code `Bash` call of `command`.
    fn bash(&self, command: &str) -> Value {
        json!({
            "session_id": "own-1", "transcript_path": null, "cwd": self.project,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "toolu_1",
        })
    }

    fn pins(&self) -> PathBuf {
        self.root.path().join("state/hookhost/pins.json")
    }

    fn claude_settings(&self) -> PathBuf {
        self.home.join(".claude/settings.json")
    }

    /// A config with the marker hook (it blocks a call that says FORBIDDEN), and `more`.
    fn write_marker_config(&self, more: &str) {
        use std::os::unix::fs::PermissionsExt;
        let hook = self.root.path().join("marker.sh");
        std::fs::write(
            &hook,
            "#!/bin/sh\ngrep -q FORBIDDEN && { echo 'FORBIDDEN is not allowed' >&2; exit 2; }\nexit 0\n",
        )
        .unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = self.config_file();
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(
            &config,
            format!("{}{more}", crate::support::sh_hook("marker", &hook, "")),
        )
        .unwrap();
    }

    fn doctor_json(&self) -> (i32, Value) {
        let (code, stdout, stderr) = self.run(&["doctor", "--json"]);
        let report = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stderr}"));
        (code, report)
    }

    fn config_file(&self) -> PathBuf {
        self.home.join(".config/harness/config.toml")
    }
}
