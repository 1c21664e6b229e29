//! The bridge, hardened (issue 19), through the real binary: `install` writes the
//! strictest failure setting the installed agent takes and pins what it wrote; a
//! settings file edited the way an agent would (registration removed, timeout lowered,
//! `onFailure` dropped, every hook switched off) is caught by the next bridged call, by
//! Claude Code's `ConfigChange` answer and by `doctor`; record lines carry a hash chain
//! that `log verify`, `replay` and a resume check.

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

/// The agent programs doctor looks for that the system itself has (none, usually).
fn system_agents() -> Vec<&'static str> {
    let programs = [
        "claude",
        "codex",
        "gemini",
        "cursor-agent",
        "copilot",
        "qwen",
        "kimi",
        "kiro-cli",
    ];
    programs
        .into_iter()
        .filter(|p| {
            ["/usr/bin", "/bin"]
                .iter()
                .any(|d| Path::new(d).join(p).is_file())
        })
        .collect()
}

#[test]
fn doctor_tells_a_newcomer_what_is_missing_and_the_command_that_fixes_it() {
    let m = Newcomer::new();
    let config = m.config_file();
    let no_config = format!(
        "✗ config: no config file at {}, so there are no hooks and every call goes ahead unchecked. To fix it: write [[hooks]] in {} (README: \"Using it\"), then run hookhost check",
        config.display(),
        config.display()
    );

    // Nothing at all: no agent calls hookhost, and there is no config.
    let (code, stdout, stderr) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "✗ agents: hookhost is registered with no agent, so no agent asks it anything"
        ),
        "{stdout}"
    );
    if system_agents().is_empty() {
        assert!(
            stdout
                .contains("none of the agents it answers was found here (on PATH: claude, codex,"),
            "{stdout}"
        );
    }
    assert!(stdout.contains(&no_config), "{stdout}");
    assert!(
        stdout.ends_with("not healthy: see the lines marked ✗\n"),
        "{stdout}"
    );
    let (code, report) = m.doctor_json();
    assert_eq!(code, 1);
    assert_eq!(report["healthy"], false);
    assert_eq!(report["missing"][0]["what"], "agent", "{report}");
    assert_eq!(report["missing"][1]["what"], "config", "{report}");
    assert_eq!(report["config"]["state"], "missing");
    assert_eq!(report["config"]["file"], json!(config));
    assert_eq!(report["config"]["hooks"], 0);

    // Claude Code is here: doctor names the command that registers hookhost with it.
    let claude = m.bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho '2.1.300 (Claude Code)'\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("Claude Code: claude on PATH"), "{stdout}");
    assert!(
        stdout.contains("  to use hookhost with it: hookhost install claude-code"),
        "{stdout}"
    );
    assert!(
        stdout.contains("✗ agents: hookhost is registered with no agent, so no agent asks it anything. To fix it, run: hookhost install claude-code"),
        "{stdout}"
    );
    let (_, report) = m.doctor_json();
    assert_eq!(
        report["agents"][0]["install"],
        "hookhost install claude-code"
    );
    assert!(
        report["missing"][0]["fix"]
            .as_array()
            .unwrap()
            .contains(&json!("hookhost install claude-code")),
        "{report}"
    );

    // Registered: only the config is missing now.
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(!stdout.contains("✗ agents"), "{stdout}");
    assert!(!stdout.contains("to use hookhost with it"), "{stdout}");
    assert!(stdout.contains(&no_config), "{stdout}");
    let (code, report) = m.doctor_json();
    assert_eq!(code, 1);
    assert_eq!(report["agents"][0]["install"], Value::Null);
    assert_eq!(report["missing"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["missing"][0]["what"], "config");

    // A config that does not load is a fault too (every session would refuse to start).
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[[hooks]\n").unwrap();
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!("✗ config {}: ", config.display())),
        "{stdout}"
    );
    assert_eq!(m.doctor_json().1["config"]["state"], "unreadable");

    // With a hook in it, nothing is missing.
    let hook = m.root.path().join("ok.sh");
    std::fs::write(&hook, "#!/bin/sh\ncat >/dev/null\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(&config, crate::support::sh_hook("ok", &hook, "")).unwrap();
    // The config changed since `install` pinned it (there was none then): doctor says so,
    // and installing again shows the change and pins it.
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "  ✗ config {}: hookhost's config {} changed since `hookhost install claude-code` pinned it (no file then, 1 hook: ok now), so hookhost blocks this agent's calls",
            config.display(),
            config.display()
        )),
        "{stdout}"
    );
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "hookhost's config {} changed since it was pinned: no file then, 1 hook: ok now (hooks removed: none; added: ok). It is pinned as it is now, for every agent whose registration loads it.",
            config.display()
        )),
        "{stdout}"
    );
    let (code, stdout, stderr) = m.run(&["doctor"]);
    assert!(
        stdout.contains(&format!("✓ config {}: 1 hook", config.display())),
        "{stdout}"
    );
    let (_, report) = m.doctor_json();
    assert_eq!(report["missing"], json!([]), "{report}");
    assert_eq!(report["config"]["state"], "ok");
    if !stdout.contains("✓ box:") {
        assert_eq!(code, 1, "{stdout}{stderr}");
        skip_or_fail(
            "doctor_tells_a_newcomer_what_is_missing_and_the_command_that_fixes_it",
            Prerequisite::Bubblewrap,
            &format!("bubblewrap cannot run here, so the machine is not healthy: {stdout}"),
        );
        return;
    }
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.ends_with("healthy\n"), "{stdout}");
}

#[test]
fn doctor_says_which_hook_programs_have_other_names_and_whether_that_matters() {
    let m = Machine::new();
    m.claude("2.1.300");
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    // A copy of /bin/sh outside the project with perf's kind of second name.
    let root = m.scene.root.path();
    let sh = root.join("usr/bin/sh");
    std::fs::create_dir_all(sh.parent().unwrap()).unwrap();
    std::fs::copy("/bin/sh", &sh).unwrap();
    let cache = root.join("root/.debug/usr/bin/sh/0123456789abcdef");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::hard_link(&sh, cache.join("elf")).unwrap();
    let ok = m.scene.script("ok.sh", "cat >/dev/null; exit 0");
    m.scene.write_config(&crate::support::hook(
        "h",
        "PreToolUse",
        &[sh.to_str().unwrap(), ok.to_str().unwrap()],
        "",
    ));
    let (_, stdout, _) = m.run(&["doctor"]);
    let fine = format!(
        "✓ hook h: {} has 2 names (hard links); none is in a folder the agent can write (looked through {}",
        sh.display(),
        m.scene.project.display()
    );
    assert!(stdout.contains(&fine), "{stdout}");
    assert!(stdout.contains("that does not matter"), "{stdout}");
    let (_, stdout, _) = m.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let file = &report["hook_files"][0];
    assert_eq!(
        (&file["hook"], &file["names"], &file["matters"]),
        (&json!("h"), &json!(2), &json!(false)),
        "{report}"
    );
    assert_eq!(file["path"], json!(sh));

    // A name in the project matters: doctor says where it is.
    let inside = m.scene.project.join("sh");
    std::fs::hard_link(&sh, &inside).unwrap();
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "✗ hook h: {} has 3 names (hard links), and {} is in the project, so the agent could change it through that name: the hook is refused. Give the hook a copy of its own",
            sh.display(),
            inside.display()
        )),
        "{stdout}"
    );
    let (_, stdout, _) = m.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["hook_files"][0]["matters"], true, "{report}");
    assert_eq!(report["healthy"], false);
}

/// R6: Codex runs a user hook only once it is trusted, as it is now, in its `/hooks`
/// review, and skips it silently otherwise. `install codex` trusts hookhost's own handlers;
/// `doctor` calls one Codex would skip (never trusted, trusted as it was before, switched
/// off) not working, with the fix, which works.
#[test]
fn doctor_reports_a_codex_hook_codex_would_skip_and_install_trusts_it() {
    let m = Machine::new();
    let (code, stdout, stderr) = m.run(&["install", "codex"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("hookhost trusted its own hook in Codex's /hooks review"),
        "{stdout}"
    );
    let config = m.home.join(".codex/config.toml");
    let trusted = std::fs::read_to_string(&config).unwrap();
    let key = |event: &str| format!("[hooks.state.\"{}:{event}:0:0\"]\n", config.display());
    for event in ["pre_tool_use", "user_prompt_submit"] {
        assert!(trusted.contains(&key(event)), "{trusted}");
    }
    assert_eq!(trusted.matches("trusted_hash = \"sha256:").count(), 2);
    let codex_line = |stdout: &str| {
        let file = format!("user scope, {}:", config.display());
        stdout
            .lines()
            .find(|l| l.contains(&file))
            .unwrap_or_default()
            .to_string()
    };
    let doctor_ok = || {
        let (_, stdout, _) = m.run(&["doctor"]);
        assert!(codex_line(&stdout).starts_with("  ✓ "), "{stdout}");
    };
    doctor_ok();

    let untrusted = trusted[..=trusted.find("\n[hooks.state.").unwrap()].to_string();
    // The timeout changed by hand: the trust is of the handler as it was.
    let stale = trusted.replacen("timeout = 55", "timeout = 30", 1);
    let pre = key("pre_tool_use");
    let off = trusted.replace(&pre, &format!("{pre}enabled = false\n"));
    let cases = [
        // As an install from before hookhost trusted its hook left it (and no pin).
        (
            untrusted,
            "its PreToolUse hook is not trusted in Codex's /hooks review; its UserPromptSubmit hook is not trusted",
            "not run by the agent",
        ),
        (
            stale,
            "its PreToolUse hook is trusted as it was before it changed (\"Modified\" in Codex's /hooks review)",
            "drifted",
        ),
        (
            off,
            "its PreToolUse hook is switched off in Codex's /hooks review (enabled = false)",
            "drifted",
        ),
    ];
    for (edited, said, state) in cases {
        std::fs::write(&config, edited).unwrap();
        if state == "not run by the agent" {
            std::fs::remove_file(m.scene.state().join("hookhost/pins.json")).unwrap();
        }
        let (code, stdout, _) = m.run(&["doctor"]);
        assert_eq!(code, 1, "{stdout}");
        let line = codex_line(&stdout);
        assert!(line.starts_with("  ✗ "), "{stdout}");
        assert!(
            line.contains(&format!("Codex does not run hookhost here: {said}")),
            "{line}"
        );
        assert!(
            line.contains(
                "To fix it: run `hookhost install codex`, which trusts hookhost's own hook and switches it back on"
            ),
            "{line}"
        );
        let (_, json, _) = m.run(&["doctor", "--json"]);
        let report: Value = serde_json::from_str(&json).unwrap();
        let codex = report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == "codex")
            .unwrap();
        assert_eq!(codex["registrations"][0]["state"], state, "{codex}");
        // The fix: install trusts it again, and switches it back on.
        assert_eq!(m.run(&["install", "codex"]).0, 0);
        let fixed = std::fs::read_to_string(&config).unwrap();
        assert_eq!(fixed.trim_end(), trusted.trim_end());
        doctor_ok();
    }

    // Uninstall takes away exactly what install wrote.
    assert_eq!(m.run(&["uninstall", "codex"]).0, 0);
    assert!(!config.exists());
}

/// hookhost's own config is pinned at install (issue 27 item 4; docs/threats.md#r5): the
/// config emptied the way an agent would (`: > config.toml`) is refused on the next call,
/// naming the file and the fix; a legitimate edit is refused too until `install` shows the
/// change and pins it, after which the hooks run as edited.
#[test]
fn an_emptied_config_is_refused_until_install_shows_the_change_and_pins_it() {
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    let config = m.config_file();
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "hookhost's config {} (1 hook: marker) is pinned with the registration: after you edit it, check it and run `hookhost install claude-code` again to pin it; until then hookhost blocks this agent's calls.",
            config.display()
        )),
        "{stdout}"
    );
    assert_eq!(
        denied(&m.bridge(&m.bash("echo FORBIDDEN"))).as_deref(),
        Some("blocked by the user's hook \"marker\": FORBIDDEN is not allowed")
    );

    // Emptied: the next call is refused, and so is every other call, until it is pinned.
    std::fs::write(&config, "").unwrap();
    let emptied = format!(
        "hookhost's config {} changed since `hookhost install claude-code` pinned it (1 hook: marker then, no hooks now), so hookhost blocks this agent's calls rather than run hooks it did not pin. If you made this change, check it (`hookhost check`), then run `hookhost install claude-code`, which shows the change and pins the config as it is now; if you did not, restore the file.",
        config.display()
    );
    for command in ["echo FORBIDDEN", "echo ok"] {
        assert_eq!(
            denied(&m.bridge(&m.bash(command))).as_deref(),
            Some(emptied.as_str()),
            "{command}"
        );
    }
    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!("  ✗ config {}: {emptied}", config.display())),
        "{stdout}"
    );

    // The user's own edit (a second hook): refused until installed again, which says
    // what changed.
    m.write_marker_config(
        "\n[[hooks]]\nname = \"other\"\nevent = \"UserPromptSubmit\"\ncommand = [\"/bin/true\"]\n",
    );
    let reason = denied(&m.bridge(&m.bash("echo ok"))).unwrap_or_default();
    assert!(
        reason.contains("(1 hook: marker then, 2 hooks: marker, other now)"),
        "{reason}"
    );
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "hookhost is already installed for Claude Code in {}; nothing to change.",
            m.claude_settings().display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "hookhost's config {} changed since it was pinned: 1 hook: marker then, 2 hooks: marker, other now (hooks removed: none; added: other). It is pinned as it is now, for every agent whose registration loads it.",
            config.display()
        )),
        "{stdout}"
    );
    assert_eq!(denied(&m.bridge(&m.bash("echo ok"))), None);
    assert_eq!(
        denied(&m.bridge(&m.bash("echo FORBIDDEN"))).as_deref(),
        Some("blocked by the user's hook \"marker\": FORBIDDEN is not allowed")
    );
}

/// Deleting or emptying the pins file does not turn the pin check off (N8): the bridge
/// finds hookhost's registration in the agent's settings with no pin, and refuses; a
/// settings change that also removes the registration is refused by `ConfigChange`.
#[test]
fn the_pins_file_removed_or_emptied_is_refused() {
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    assert_eq!(denied(&m.bridge(&m.bash("echo ok"))), None);
    let settings = m.claude_settings();
    let pins = m.pins();
    let unpinned = format!(
        "hookhost is registered with Claude Code in {}, but no pin covers it ({} is missing or holds no pin for it), so hookhost blocks this agent's calls: without its pin, a change to the registration or to hookhost's config would go unnoticed. If you did not remove the pins, something did: check {} and hookhost's config, then run `hookhost install claude-code` to pin them again.",
        settings.display(),
        pins.display(),
        settings.display()
    );
    std::fs::remove_file(&pins).unwrap();
    assert_eq!(
        denied(&m.bridge(&m.bash("echo ok"))).as_deref(),
        Some(unpinned.as_str())
    );
    std::fs::write(&pins, "{\"version\":1,\"pins\":[]}").unwrap();
    assert_eq!(
        denied(&m.bridge(&m.bash("echo ok"))).as_deref(),
        Some(unpinned.as_str())
    );
    // With the registration removed in the same command, Claude Code's ConfigChange (the
    // session's loaded hooks still call hookhost) refuses the change.
    std::fs::remove_file(&pins).unwrap();
    std::fs::write(&settings, "{}").unwrap();
    let change = json!({
        "session_id": "own-1", "transcript_path": null, "cwd": m.project,
        "permission_mode": "default", "hook_event_name": "ConfigChange",
        "source": "user_settings", "file_path": settings,
    });
    let (code, stdout, stderr) = m.bridge(&change);
    assert_eq!(code, 0, "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout:?}"));
    assert_eq!(answer["decision"], "block", "{answer}");
    assert_eq!(
        answer["reason"],
        format!(
            "Claude Code called hookhost's settings-change hook, so hookhost is registered, but no pin covers it ({} is missing or holds no pin for it); hookhost refuses this change to {}, so this session keeps hookhost's hooks. If you ran `hookhost uninstall claude-code`, they go with the next session; if not, something removed the pins: check {}, then run `hookhost install claude-code` to pin the registration again.",
            pins.display(),
            settings.display(),
            settings.display()
        )
    );
    // Installing again pins it all; the calls go ahead.
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    assert_eq!(denied(&m.bridge(&m.bash("echo ok"))), None);
}

/// `doctor` checks, per installed agent, the registered binary against its pinned digest
/// (a bridge whose binary was replaced runs none of hookhost's checks; docs/threats.md#r5)
/// and the project's switch-offs (N7).
#[test]
fn doctor_reports_a_project_switch_off_and_a_replaced_binary() {
    use sha2::Digest;
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    // The binary registered is a second name of the test's; it is replaced below by a
    // rename, which leaves the test's own binary as it is.
    let registered = m.root.path().join("installed/hookhost");
    std::fs::create_dir_all(registered.parent().unwrap()).unwrap();
    std::fs::hard_link(env!("CARGO_BIN_EXE_hookhost"), &registered).unwrap();
    let (code, stdout, stderr) = run(&mut m.command(&registered, &["install", "claude-code"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let digest = |path: &Path| {
        let mut file = std::fs::File::open(path).unwrap();
        let mut hasher = sha2::Sha256::new();
        std::io::copy(&mut file, &mut hasher).unwrap();
        format!("sha256:{}", &hex::encode(hasher.finalize())[..12])
    };
    let then = digest(&registered);
    let (_, stdout, _) = m.run(&["doctor"]);
    assert!(
        stdout.contains(&format!("  ✓ binary {}: as pinned ", registered.display())),
        "{stdout}"
    );

    let fake = m.root.path().join("installed/fake");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::rename(&fake, &registered).unwrap();
    let now = digest(&registered);
    let local = m.project.join(".claude/settings.local.json");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, "{\"disableAllHooks\": true}").unwrap();

    let (code, stdout, _) = m.run(&["doctor"]);
    assert_eq!(code, 1, "{stdout}");
    let binary = format!(
        "the hookhost binary {} changed since `hookhost install claude-code` pinned it ({then}… then, {now}… now): the agent runs whatever is there, and a replaced binary need not run hookhost's checks at all. If you upgraded hookhost, run `hookhost install claude-code` to pin it; if not, reinstall hookhost, then run it",
        registered.display()
    );
    let switch_off = format!(
        "{} sets \"disableAllHooks\": true, which switches off every Claude Code hook, hookhost's among them, so hookhost blocks this agent's calls. Remove it from {} if you did not put it there (`hookhost doctor` lists every switch-off it finds).",
        local.display(),
        local.display()
    );
    assert!(
        stdout.contains(&format!("  ✗ binary {}: {binary}\n", registered.display())),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("  ✗ {switch_off}\n")), "{stdout}");
    let (code, report) = m.doctor_json();
    assert_eq!(code, 1);
    let claude = &report["agents"][0];
    assert_eq!(claude["switch_offs"], json!([switch_off]), "{report}");
    let own = claude["own_files"].as_array().unwrap();
    assert!(
        own.contains(&json!({"what": "binary", "file": registered, "ok": false, "detail": binary})),
        "{report}"
    );
    assert!(
        own.iter().any(|f| f["what"] == "config" && f["ok"] == true),
        "{report}"
    );
}

/// `install claude-code` asks `claude --version` of a `claude` in an absolute PATH folder
/// only: one that a relative entry (`.`) would find in the project never runs, and the
/// note says why onFailure is not written (docs/threats.md#n16).
#[test]
fn install_never_runs_a_claude_the_project_put_on_a_relative_path_entry() {
    use std::os::unix::fs::PermissionsExt;
    let m = Machine::new();
    let marker = m.scene.root.path().join("ran");
    let planted = m.scene.project.join("claude");
    std::fs::write(
        &planted,
        format!(
            "#!/bin/sh\ntouch '{}'\necho '2.1.300 (Claude Code)'\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, stdout, stderr) = run(m
        .hookhost()
        .current_dir(&m.scene.project)
        .env("PATH", format!(".:{}", m.bin.display()))
        .args(["install", "claude-code"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!marker.exists(), "the project's claude ran");
    assert!(
        stdout.contains(
            "No Claude Code found to ask its version (`claude` is in no absolute folder of PATH), so onFailure is not written"
        ),
        "{stdout}"
    );
    let settings = std::fs::read_to_string(m.claude_settings()).unwrap();
    assert!(!settings.contains("onFailure"), "{settings}");
}

/// A settings file and folders `install` creates are 0644 and 0755 whatever the umask
/// (docs/threats.md#n15): under `umask 000` they were 0666 and 0777, so that any local
/// user could register their own hook, run as this user.
#[test]
fn install_creates_settings_no_other_user_can_write_under_umask_000() {
    use std::os::unix::fs::PermissionsExt;
    let m = Machine::new();
    let hookhost = m.hookhost();
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(hookhost.get_program())
        .args(hookhost.get_args())
        .args(["install", "gemini"]);
    for (name, value) in hookhost.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let (code, stdout, stderr) = run(&mut command);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let folder = m.home.join(".gemini");
    assert_eq!(mode(&folder), 0o755);
    assert_eq!(mode(&folder.join("settings.json")), 0o644);
}

/// The files a hook runs are pinned with the config (issue 27 item 4): the marker hook's
/// script rewritten to let everything through (what an agent would do) is refused on the
/// next call, naming the file and the hook, until `install` shows the change and pins it.
#[test]
fn a_rewritten_hook_script_is_refused_until_install_pins_it() {
    let m = Newcomer::new();
    m.claude();
    m.write_marker_config("");
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let script = m.root.path().join("marker.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    let refused = format!(
        "the file {} that hookhost's hook \"marker\" runs changed since `hookhost install claude-code` pinned it, so hookhost blocks this agent's calls rather than run a hook it did not pin. If you made this change, check it (`hookhost check`), then run `hookhost install claude-code` to pin it as it is now; if you did not, restore the file.",
        script.display()
    );
    for command in ["echo FORBIDDEN", "echo ok"] {
        assert_eq!(
            denied(&m.bridge(&m.bash(command))).as_deref(),
            Some(refused.as_str()),
            "{command}"
        );
    }
    // The same bytes again (only its change time moved): as pinned.
    m.write_marker_config("");
    assert_eq!(
        denied(&m.bridge(&m.bash("echo FORBIDDEN"))).as_deref(),
        Some("blocked by the user's hook \"marker\": FORBIDDEN is not allowed")
    );
    // The user's own change, pinned by install, which says what changed.
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    let (code, stdout, stderr) = m.run(&["install", "claude-code"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "the files hookhost's hooks run changed since they were pinned: {} (hook marker).",
            script.display()
        )),
        "{stdout}"
    );
    assert_eq!(denied(&m.bridge(&m.bash("echo FORBIDDEN"))), None);
}

/// A settings change that `ConfigChange` refuses blocks the rest of that session, naming
/// the file and the key, even once the change is undone (docs/threats.md#r4): the user
/// learns of it at once. Another session is not blocked; `install` run again (pins
/// changed) lets the session go on.
#[test]
fn a_refused_settings_change_blocks_the_rest_of_its_session_until_install() {
    let m = Machine::new();
    m.claude("2.1.300");
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    assert_eq!(denied(&m.bridge("claude-code", &m.call())), None);
    let local = m.scene.project.join(".claude/settings.local.json");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, "{\"disableAllHooks\": true}").unwrap();
    let (_, stdout, _) = m.bridge("claude-code", &m.config_change(&local));
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    // The agent undoes its change at once, to hide it.
    std::fs::remove_file(&local).unwrap();
    let reason = denied(&m.bridge("claude-code", &m.call())).expect("the session goes on");
    assert!(
        reason.starts_with(
            "Earlier in this session hookhost refused a change to Claude Code's settings, so it blocks the rest of this session: "
        ) && reason.contains(&format!(
            "{} now sets \"disableAllHooks\": true",
            local.display()
        )) && reason.ends_with(
            "run `hookhost install claude-code` again, which pins them and lets this session go on, or start a new session."
        ),
        "{reason}"
    );
    // Another session of the same agent is not blocked.
    let mut other = m.call();
    other["session_id"] = json!("pin-other");
    assert_eq!(denied(&m.bridge("claude-code", &other)), None);
    // install again: the pins change, and the session goes on.
    assert_eq!(m.run(&["install", "claude-code"]).0, 0);
    assert_eq!(denied(&m.bridge("claude-code", &m.call())), None);
}
