//! The real agent CLIs, with hookhost registered as their hook (issue 26, item 7): Claude
//! Code 2.1.332 and Codex CLI 0.171.0 (native binaries), Gemini CLI 0.61.0 (on the node on
//! PATH) and Copilot CLI 1.0.102 (a Node single executable, on its BYOK provider setting),
//! installed by `scripts/agents.sh` into `target/agents/`, each driven
//! offline against the scripted model on 127.0.0.1 ([`ModelServer`]). Each test gives the
//! agent a fresh HOME outside /tmp, a registered copy of the hookhost binary, `hookhost
//! install AGENT` as the only registration step, and hookhost's config in
//! `~/.config/harness/config.toml` with the hooks below, the WASM policies configured as
//! the README shows. It then judges outcomes: a marker file, the
//! bare remote's `main`, the requests the model got and what it read in them.
//!
//! Without an agent under `target/agents/` a test prints `SKIPPED …`; with
//! `HOOKHOST_REQUIRE_AGENTS` set (CI, after `scripts/agents.sh`) it fails instead.
//!
//!     bash scripts/agents.sh && cargo test --test it real_agents::

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{ModelServer, Prerequisite, Scene, run, skip_or_fail, test_root, wasm_dir};

/// Which agent: how it is configured, run and answered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
}

/// One real agent CLI, as `scripts/agents.sh` installs it (keep the versions alike).
struct Agent {
    kind: Kind,
    /// `hookhost install NAME`.
    install: &'static str,
    package: &'static str,
    version: &'static str,
    /// The binary, under `target/agents/`.
    binary: &'static str,
    /// The start of every request it sends the model (method and path).
    api: &'static str,
    /// The shell and file-write tools it offers the model, which the script calls.
    tools: &'static [&'static str],
}

impl Agent {
    /// The tool result the model reads when hookhost denies a call of `tool` (Claude
    /// Code's name) running `command`, for `reason`.
    fn denial(&self, tool: &str, reason: &str, command: &str) -> String {
        match self.kind {
            Kind::ClaudeCode => format!("PreToolUse:{tool} hook error: {reason}"),
            Kind::Codex => {
                // hookhost leaves its last period off: Codex adds one.
                let reason = reason.strip_suffix('.').unwrap_or(reason);
                format!("Command blocked by PreToolUse hook: {reason}. Command: {command}")
            }
            // The functionResponse's `error`.
            Kind::Gemini => format!("Tool execution blocked: {reason}"),
            Kind::Copilot => format!("Denied by preToolUse hook: {reason}"),
        }
    }
}

const CLAUDE_CODE: Agent = Agent {
    kind: Kind::ClaudeCode,
    install: "claude-code",
    package: "@anthropic-ai/claude-code",
    version: "2.1.332",
    binary: "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    api: "POST /v1/messages",
    tools: &["Bash", "Write"],
};

const CODEX: Agent = Agent {
    kind: Kind::Codex,
    install: "codex",
    package: "@openai/codex",
    version: "0.171.0",
    binary: "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    api: "POST /v1/responses",
    tools: &["exec_command", "apply_patch"],
};

const GEMINI: Agent = Agent {
    kind: Kind::Gemini,
    install: "gemini",
    package: "@google/gemini-cli",
    version: "0.61.0",
    binary: "node_modules/@google/gemini-cli/bundle/gemini.js",
    api: "POST /v1beta/models/gemini-2.5-flash:",
    tools: &["run_shell_command", "write_file"],
};

const COPILOT: Agent = Agent {
    kind: Kind::Copilot,
    install: "copilot",
    package: "@github/copilot",
    version: "1.0.102",
    binary: "node_modules/@github/copilot-linux-x64/copilot",
    api: "POST /v1/chat/completions",
    tools: &["bash", "create"],
};

/// How long one agent run may take before the test kills it and fails.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The marker hook's reason, which the model must read after a blocked call.
const MARKER_REASON: &str = "FORBIDDEN is not allowed here (marker hook)";
/// The prompt hook's context, which must reach the model.
const CONTEXT: &str = "CTX-TOKEN-93c1: context added by the test hook";

/// The shell hooks, one marker word each, so that one config serves every test.
const MARKER_SH: &str = "input=$(cat)\n\
    case \"$input\" in *FORBIDDEN*) echo 'FORBIDDEN is not allowed here (marker hook)' >&2; exit 2;; esac\n\
    exit 0";
const FAILING_SH: &str = "input=$(cat)\ncase \"$input\" in *FAILHOOK*) exit 1;; esac\nexit 0";
/// Dies by a real SIGSEGV (a fault is delivered even to a PID namespace's first process).
const CRASHING_SH: &str = "input=$(cat)\n\
    case \"$input\" in *CRASHHOOK*) exec /usr/bin/python3 -c 'import ctypes; ctypes.string_at(0)';; esac\n\
    exit 0";
const CONTEXT_SH: &str = "input=$(cat)\n\
    case \"$input\" in *CONTEXT-PLEASE*) echo 'CTX-TOKEN-93c1: context added by the test hook';; esac\n\
    exit 0";
const HUSH_SH: &str = "input=$(cat)\n\
    case \"$input\" in *hush-marker*) echo 'prompt refused by the hush hook' >&2; exit 2;; esac\n\
    exit 0";

/// The agent's binary under `target/agents/`, or `None` after [`skip_or_fail`].
fn agent_or_skip(test: &str, agent: &Agent) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/agents")
        .join(agent.binary);
    if path.is_file() {
        return Some(path);
    }
    skip_or_fail(
        test,
        Prerequisite::Agents,
        &format!(
            "{} {} is not installed at {} (run scripts/agents.sh)",
            agent.package,
            agent.version,
            path.display()
        ),
    );
    None
}

/// A machine of the agent's own: HOME, the hookhost copy it calls, hookhost's config, a
/// project that is a git repository whose `main` has diverged from a bare remote (so a
/// force push shows as a changed remote `main`), and the scripted model.
struct World {
    agent: &'static Agent,
    binary: PathBuf,
    scene: Scene,
    home: PathBuf,
    hookhost: PathBuf,
    remote: PathBuf,
    model: ModelServer,
}

/// What one agent run did.
struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

impl World {
    fn new(test: &str, agent: &'static Agent) -> Option<World> {
        let binary = agent_or_skip(test, agent)?;
        let scene = Scene::new();
        let root = scene.root.path().to_path_buf();
        let home = root.join("home");
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(home.join(".config/harness")).unwrap();

        // A copy of the binary, so that the registration names a file of this test.
        let hookhost = bin.join("hookhost");
        std::fs::copy(env!("CARGO_BIN_EXE_hookhost"), &hookhost).unwrap();

        // The WASM policies where the README keeps them, and the shell hooks.
        let wasm = home.join(".local/share/harness/hooks");
        std::fs::create_dir_all(&wasm).unwrap();
        for name in ["no-force-push.wasm", "protect-paths.wasm"] {
            std::fs::copy(wasm_dir().join(name), wasm.join(name)).unwrap();
        }
        let bash = |name: &str, body: &str| {
            let path = scene.script(name, body);
            format!("[\"/bin/bash\", \"{}\"]", path.display())
        };
        let config = format!(
            "[[hooks]]\nname = \"no-force-push\"\nevent = \"PreToolUse\"\ntools = [\"bash\", \"exec\"]\n\
             command = [\"{wasm}/no-force-push.wasm\"]\n\n\
             [[hooks]]\nname = \"protect-paths\"\nevent = \"PreToolUse\"\ntools = [\"write_file\", \"edit_file\"]\n\
             command = [\"{wasm}/protect-paths.wasm\", \".env\", \".git/\", \"secrets/*.pem\"]\n\n\
             [[hooks]]\nname = \"marker\"\nevent = \"PreToolUse\"\ntools = [\"bash\"]\ncommand = {marker}\n\n\
             [[hooks]]\nname = \"failing\"\nevent = \"PreToolUse\"\ntools = [\"bash\"]\ncommand = {failing}\n\n\
             [[hooks]]\nname = \"crashing\"\nevent = \"PreToolUse\"\ntools = [\"bash\"]\ncommand = {crashing}\n\n\
             [[hooks]]\nname = \"context\"\nevent = \"UserPromptSubmit\"\ncommand = {context}\n\n\
             [[hooks]]\nname = \"hush\"\nevent = \"UserPromptSubmit\"\ncommand = {hush}\n",
            wasm = wasm.display(),
            marker = bash("marker.sh", MARKER_SH),
            failing = bash("failing.sh", FAILING_SH),
            crashing = bash("crashing.sh", CRASHING_SH),
            context = bash("context.sh", CONTEXT_SH),
            hush = bash("hush.sh", HUSH_SH),
        );
        std::fs::write(home.join(".config/harness/config.toml"), config).unwrap();

        // The project and its remote.
        let remote = root.join("remote.git");
        let project = scene.project.clone();
        git(&root, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
        git(&project, &["init", "-q", "-b", "main"]);
        std::fs::write(project.join("README"), "one\n").unwrap();
        git(&project, &["add", "README"]);
        git(&project, &["commit", "-q", "-m", "one"]);
        git(
            &project,
            &["remote", "add", "origin", remote.to_str().unwrap()],
        );
        git(&project, &["push", "-q", "origin", "main"]);
        git(
            &project,
            &["commit", "-q", "--amend", "-m", "one, rewritten"],
        );

        let world = World {
            agent,
            binary,
            scene,
            home,
            hookhost,
            remote,
            model: ModelServer::start(),
        };
        world.configure_agent();
        let (code, stdout, stderr) = run(world
            .env(&mut Command::new(&world.hookhost))
            .args(["install", agent.install]));
        assert_eq!(
            code, 0,
            "hookhost install {}: {stdout}{stderr}",
            agent.install
        );
        Some(world)
    }

    fn project(&self) -> &Path {
        &self.scene.project
    }

    /// The agent's own settings, before `hookhost install` merges its registration in:
    /// only what it takes to reach the scripted model offline.
    fn configure_agent(&self) {
        if self.agent.kind == Kind::Gemini {
            let gemini = self.home.join(".gemini");
            std::fs::create_dir_all(&gemini).unwrap();
            // An API key's auth (with a base URL and no setting it would be "gateway"), a
            // model named (the auto model first asks another for a complexity score), and
            // nothing that reaches out: updates, usage statistics, telemetry.
            let settings = serde_json::json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "model": {"name": "gemini-2.5-flash"},
                "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
            });
            std::fs::write(gemini.join("settings.json"), settings.to_string()).unwrap();
            // `-p` runs only in a trusted folder (else exit 55).
            let trusted = serde_json::json!({ self.project().to_str().unwrap(): "TRUST_FOLDER" });
            std::fs::write(gemini.join("trustedFolders.json"), trusted.to_string()).unwrap();
        }
        if self.agent.kind == Kind::Codex {
            let codex = self.home.join(".codex");
            std::fs::create_dir_all(&codex).unwrap();
            // gpt-5.5: a slug Codex has metadata for, or it offers no apply_patch.
            let config = format!(
                "model = \"gpt-5.5\"\nmodel_provider = \"scripted\"\napproval_policy = \"never\"\n\
                 sandbox_mode = \"danger-full-access\"\ncheck_for_update_on_startup = false\n\n\
                 [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{url}/v1\"\n\
                 wire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n\
                 request_max_retries = 0\nstream_max_retries = 0\n\n\
                 [analytics]\nenabled = false\n\n\
                 [projects.\"{project}\"]\ntrust_level = \"trusted\"\n",
                url = self.model.url(),
                project = self.project().display(),
            );
            std::fs::write(codex.join("config.toml"), config).unwrap();
        }
    }

    /// The environment every program of this world runs with, and nothing else.
    fn env<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        let agent_dir = self.binary.parent().unwrap();
        cmd.env_clear()
            .env("HOME", &self.home)
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", agent_dir.display()),
            )
            .env("SHELL", "/bin/bash")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("USER", "root")
            // hookhost's records and WASM cache stay in the test folders.
            .env("XDG_STATE_HOME", self.scene.state())
            .env("XDG_CACHE_HOME", test_root().join("cache"))
            .current_dir(self.project())
    }

    /// Runs the agent on `prompt` to its end, stdin from /dev/null.
    fn run(&self, prompt: &str) -> Outcome {
        let prompt = &prompt.replace("@PROJECT@", self.project().to_str().unwrap());
        let mut cmd = Command::new(&self.binary);
        self.env(&mut cmd);
        if self.agent.kind == Kind::Gemini {
            cmd.args(["-p", prompt, "--yolo"])
                .env("GOOGLE_GEMINI_BASE_URL", self.model.url())
                .env("GEMINI_API_KEY", "scripted");
        } else if self.agent.kind == Kind::ClaudeCode {
            cmd.args(["-p", prompt, "--output-format", "json"])
                .args(["--allowedTools", "Bash,Write"])
                .env("ANTHROPIC_BASE_URL", self.model.url())
                .env("ANTHROPIC_API_KEY", "scripted")
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_TELEMETRY", "1")
                .env("DISABLE_AUTOUPDATER", "1")
                .env("DISABLE_UPDATES", "1")
                .env("DISABLE_ERROR_REPORTING", "1")
                .env("CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "1");
        } else if self.agent.kind == Kind::Copilot {
            // BYOK (`copilot help providers`): the scripted model, no GitHub sign-in, no
            // network; the JS the executable unpacks is kept outside the throw-away HOME.
            cmd.args(["-p", prompt, "--allow-all-tools", "--no-auto-update"])
                .env(
                    "COPILOT_PROVIDER_BASE_URL",
                    format!("{}/v1", self.model.url()),
                )
                .env("COPILOT_MODEL", "gpt-4.1")
                .env("COPILOT_OFFLINE", "true")
                .env("COPILOT_AUTO_UPDATE", "false")
                .env("COPILOT_PKG_CACHE_HOME", test_root().join("cache/copilot"));
        } else {
            // No shared background server: nothing outlives the run.
            cmd.args(["--no-daemon", "exec", "--skip-git-repo-check", prompt])
                .env("SCRIPTED_API_KEY", "scripted");
        }
        let started = Instant::now();
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the agent");
        let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let read = |mut r: Box<dyn std::io::Read + Send>| {
            std::thread::spawn(move || {
                let mut s = Vec::new();
                let _ = r.read_to_end(&mut s);
                String::from_utf8_lossy(&s).into_owned()
            })
        };
        let (out, err) = (read(Box::new(out)), read(Box::new(err)));
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > RUN_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{} did not finish in {RUN_LIMIT:?}: {}{}",
                    self.agent.package,
                    out.join().unwrap(),
                    err.join().unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let outcome = Outcome {
            code: status.code().unwrap_or(-1),
            stdout: out.join().unwrap(),
            stderr: err.join().unwrap(),
        };
        // Nothing the run started outlives it (Codex's background server, a hook).
        let left = self.leftovers();
        for pid in &left {
            // SAFETY: kill has no preconditions; the pid is one of this world's processes.
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
        assert!(
            left.is_empty(),
            "processes left behind by the run: {left:?}"
        );
        eprintln!(
            "{} {}: {prompt:?} took {:.1} s, exit {}",
            self.agent.package,
            self.agent.version,
            started.elapsed().as_secs_f64(),
            outcome.code
        );
        outcome
    }

    /// The processes still running with this world's HOME in their environment.
    fn leftovers(&self) -> Vec<i32> {
        let needle = format!("HOME={}\0", self.home.display());
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.windows(needle.len()).any(|w| w == needle.as_bytes()))
            })
            .collect()
    }

    /// The commit the bare remote's `main` names.
    fn remote_main(&self) -> String {
        let (code, stdout, stderr) = run(Command::new("git")
            .arg("--git-dir")
            .arg(&self.remote)
            .args(["rev-parse", "main"]));
        assert_eq!(code, 0, "{stderr}");
        stdout.trim().to_string()
    }

    /// What the model was handed as tool results, for a failure's message.
    fn seen(&self, outcome: &Outcome) -> String {
        format!(
            "tool results: {:?}\nagent exit {}\nstdout: {}\nstderr: {}",
            self.model.tool_results(),
            outcome.code,
            outcome.stdout,
            outcome.stderr
        )
    }

    /// Runs `RUN: command`, and returns the one tool result the model got.
    fn one_call(&self, script: &str) -> (String, Outcome) {
        let outcome = self.run(script);
        let results = self.model.tool_results();
        assert_eq!(results.len(), 1, "{}", self.seen(&outcome));
        (results[0].clone(), outcome)
    }
}

fn git(dir: &Path, args: &[&str]) {
    let (code, stdout, stderr) = run(Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1"));
    assert_eq!(code, 0, "git {args:?}: {stdout}{stderr}");
}

// ---- (a) an allowed call runs

fn an_allowed_call_runs(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let (result, outcome) = w.one_call("RUN: echo allowed > allowed-marker && echo wrote-it");
    assert_eq!(
        std::fs::read_to_string(w.project().join("allowed-marker")).unwrap(),
        "allowed\n",
        "{}",
        w.seen(&outcome)
    );
    assert!(result.contains("wrote-it"), "{}", w.seen(&outcome));
    assert_eq!(outcome.code, 0, "{}", w.seen(&outcome));
    // The agent asked the scripted model, and only it, for nothing but its API.
    let paths: Vec<String> = w
        .model
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(paths.iter().all(|p| p.starts_with(agent.api)), "{paths:?}");
    // The tools the scripted model was offered, by the names the tests rely on.
    let tools = w.model.turns()[0].tool_names();
    for name in agent.tools {
        assert!(tools.iter().any(|t| t == name), "{name} not in {tools:?}");
    }
    // The agent called the registered bridge: one session record holds the call.
    let records: Vec<PathBuf> =
        std::fs::read_dir(w.scene.state().join("hookhost").join(agent.install))
            .expect("a record folder for the agent")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    let record = std::fs::read_to_string(&records[0]).unwrap();
    assert!(record.contains("allowed-marker"), "{record}");
    if agent.kind == Kind::Codex {
        // Codex ran hooks it never showed in its /hooks review: the trust install wrote.
        let config = std::fs::read_to_string(w.home.join(".codex/config.toml")).unwrap();
        assert!(config.contains("trusted_hash = \"sha256:"), "{config}");
    }
}

#[test]
fn claude_code_runs_an_allowed_call() {
    an_allowed_call_runs("claude_code_runs_an_allowed_call", &CLAUDE_CODE);
}

#[test]
fn codex_runs_an_allowed_call() {
    an_allowed_call_runs("codex_runs_an_allowed_call", &CODEX);
}

// ---- (b) a call blocked by a shell hook does not run, and the model reads the reason

fn a_blocked_call_does_not_run(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let (result, outcome) = w.one_call("RUN: echo FORBIDDEN > blocked-marker");
    assert!(
        !w.project().join("blocked-marker").exists(),
        "{}",
        w.seen(&outcome)
    );
    assert!(result.contains(MARKER_REASON), "{}", w.seen(&outcome));
    eprintln!("{test}: the model read {result:?}");
}

#[test]
fn claude_code_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why() {
    a_blocked_call_does_not_run(
        "claude_code_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why",
        &CLAUDE_CODE,
    );
}

#[test]
fn codex_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why() {
    a_blocked_call_does_not_run(
        "codex_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why",
        &CODEX,
    );
}

// ---- (c) the shipped WASM policies, configured as the README shows

fn no_force_push_blocks_a_force_push(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let before = w.remote_main();
    let command = "git push --force origin main";
    let (result, outcome) = w.one_call(&format!("RUN: {command}"));
    assert_eq!(w.remote_main(), before, "{}", w.seen(&outcome));
    let reason = "blocked by the user's hook \"no-force-push\": force-push is not allowed here \
                  (git push --force)";
    assert_eq!(
        result,
        agent.denial("Bash", reason, command),
        "{}",
        w.seen(&outcome)
    );
    // The same push, not through the agent, does change the remote: the block was real.
    git(w.project(), &["push", "-q", "--force", "origin", "main"]);
    assert_ne!(w.remote_main(), before);
}

#[test]
fn claude_code_force_push_is_blocked_by_no_force_push_wasm() {
    no_force_push_blocks_a_force_push(
        "claude_code_force_push_is_blocked_by_no_force_push_wasm",
        &CLAUDE_CODE,
    );
}

#[test]
fn codex_force_push_is_blocked_by_no_force_push_wasm() {
    no_force_push_blocks_a_force_push("codex_force_push_is_blocked_by_no_force_push_wasm", &CODEX);
}

/// A write of `file` (relative to the project; `@PROJECT@/` before it where the agent
/// takes absolute paths) is blocked by protect-paths' `pattern`, and no file appears.
fn protect_paths_blocks_a_write(test: &str, agent: &'static Agent, file: &str, pattern: &str) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let path = match agent.kind {
        Kind::ClaudeCode | Kind::Copilot => format!("@PROJECT@/{file}"),
        Kind::Codex | Kind::Gemini => file.to_string(),
    };
    let (result, outcome) = w.one_call(&format!("WRITE: {path} SECRET=1"));
    assert!(!w.project().join(file).exists(), "{}", w.seen(&outcome));
    let reason = format!(
        "blocked by the user's hook \"protect-paths\": write_file on {file} is not allowed: the \
         path is protected (pattern {pattern})"
    );
    // Claude Code's Write; Codex's apply_patch, the patch being what it calls the command.
    let patch = format!("*** Begin Patch\n*** Add File: {file}\n+SECRET=1\n*** End Patch\n");
    assert_eq!(
        result,
        agent.denial("Write", &reason, &patch),
        "{}",
        w.seen(&outcome)
    );
}

#[test]
fn claude_code_write_of_dotenv_is_blocked_by_protect_paths_wasm() {
    protect_paths_blocks_a_write(
        "claude_code_write_of_dotenv_is_blocked_by_protect_paths_wasm",
        &CLAUDE_CODE,
        ".env",
        ".env",
    );
}

#[test]
fn codex_apply_patch_adding_dotenv_is_blocked_by_protect_paths_wasm() {
    protect_paths_blocks_a_write(
        "codex_apply_patch_adding_dotenv_is_blocked_by_protect_paths_wasm",
        &CODEX,
        ".env",
        ".env",
    );
}

// ---- (d) prompt context reaches the model; a blocked prompt sends no request

fn prompt_context_reaches_the_model(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let outcome = w.run("CONTEXT-PLEASE: say hello");
    assert_eq!(outcome.code, 0, "{}", w.seen(&outcome));
    let turns = w.model.turns();
    assert!(!turns.is_empty(), "{}", w.seen(&outcome));
    // The message of the first turn that holds the context: its role and its text.
    let (role, text) = turns[0]
        .messages()
        .into_iter()
        .find(|(_, text)| text.contains(CONTEXT))
        .unwrap_or_else(|| panic!("the first request lacks the context: {}", turns[0].raw));
    let wrapped = format!("Context from the user's hook \"context\":\n{CONTEXT}");
    if agent.kind == Kind::ClaudeCode {
        // A system-role message in the conversation.
        assert_eq!(role, "system");
        assert!(
            text.contains(&format!(
                "UserPromptSubmit hook additional context: {wrapped}\n"
            )),
            "{text}"
        );
    } else if agent.kind == Kind::Codex {
        // A developer message of its own, after the prompt.
        assert_eq!(role, "developer");
        assert_eq!(text, wrapped);
    } else if agent.kind == Kind::Copilot {
        // A system reminder at the end of the user's message, after the prompt.
        assert_eq!(role, "user");
        assert!(
            text.ends_with(&format!(
                "CONTEXT-PLEASE: say hello\n\n<system_reminder>\n{wrapped}\n</system_reminder>"
            )),
            "{text:?}"
        );
    } else {
        // Appended to the prompt in the user's message.
        assert_eq!(role, "user");
        assert!(
            text.ends_with(&format!(
                "CONTEXT-PLEASE: say hello\n<hook_context>{wrapped}</hook_context>"
            )),
            "{text}"
        );
    }
    // Exactly once, and not for a prompt without the marker word (the other tests).
    assert_eq!(
        turns[0].raw.matches("CTX-TOKEN-93c1").count(),
        1,
        "{}",
        turns[0].raw
    );
}

#[test]
fn claude_code_hands_the_model_a_prompt_hooks_context() {
    prompt_context_reaches_the_model(
        "claude_code_hands_the_model_a_prompt_hooks_context",
        &CLAUDE_CODE,
    );
}

#[test]
fn codex_hands_the_model_a_prompt_hooks_context() {
    prompt_context_reaches_the_model("codex_hands_the_model_a_prompt_hooks_context", &CODEX);
}

fn a_blocked_prompt_sends_nothing(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let outcome = w.run("hush-marker\nRUN: echo ran > hushed-marker");
    assert_eq!(w.model.requests().len(), 0, "{}", w.seen(&outcome));
    assert!(!w.project().join("hushed-marker").exists());
    if agent.kind == Kind::Copilot {
        // `-p` exits 1 and shows the reason hookhost gave as a `!` line, on stderr.
        assert_eq!(outcome.code, 1, "{}", w.seen(&outcome));
        assert!(
            outcome.stderr.starts_with(
                "! ✗ prompt blocked by hook \"hush\": prompt refused by the hush hook\n"
            ),
            "{}",
            outcome.stderr
        );
        assert_eq!(outcome.stdout, "");
        return;
    }
    assert_eq!(outcome.code, 0, "{}", w.seen(&outcome));
    if agent.kind == Kind::ClaudeCode {
        // `-p` reports no error, and its result names the hook and its reason.
        let answer: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
        assert_eq!(answer["is_error"], false);
        assert_eq!(answer["num_turns"], 0);
        let result = answer["result"].as_str().unwrap();
        assert!(
            result.starts_with(
                "UserPromptSubmit operation blocked by hook:\n✗ prompt blocked by hook \"hush\": \
                 prompt refused by the hush hook\n"
            ),
            "{result}"
        );
    } else if agent.kind == Kind::Gemini {
        // Gemini CLI 0.61.0 says why on stderr, and exits 0 with nothing on stdout.
        assert!(
            outcome.stderr.contains(
                "[WARNING] Agent execution blocked: ✗ prompt blocked by hook \"hush\": prompt refused by the hush hook\n"
            ),
            "{}",
            outcome.stderr
        );
        assert_eq!(outcome.stdout, "", "{}", outcome.stderr);
    } else {
        // `codex exec` says the prompt was blocked, and never prints the reason.
        assert!(
            outcome.stderr.contains("hook: UserPromptSubmit Blocked\n"),
            "{}",
            outcome.stderr
        );
        assert!(!outcome.stderr.contains("hush hook"), "{}", outcome.stderr);
        assert_eq!(outcome.stdout, "");
    }
}

#[test]
fn claude_code_sends_no_request_for_a_prompt_a_hook_blocks() {
    a_blocked_prompt_sends_nothing(
        "claude_code_sends_no_request_for_a_prompt_a_hook_blocks",
        &CLAUDE_CODE,
    );
}

#[test]
fn codex_sends_no_request_for_a_prompt_a_hook_blocks() {
    a_blocked_prompt_sends_nothing("codex_sends_no_request_for_a_prompt_a_hook_blocks", &CODEX);
}

// ---- (e) a failing hook fails closed

fn a_failing_hook_fails_closed(
    test: &str,
    agent: &'static Agent,
    word: &str,
    hook: &str,
    kind: &str,
) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let marker = format!("{hook}-marker");
    let (result, outcome) = w.one_call(&format!("RUN: echo {word} > {marker}"));
    assert!(!w.project().join(&marker).exists(), "{}", w.seen(&outcome));
    let reason = format!(
        "the user's hook \"{hook}\" failed ({kind}), so this call was blocked. This is not a \
         policy decision: retrying or rephrasing the call will not help. Tell the user their \
         hook is failing."
    );
    let command = format!("echo {word} > {marker}");
    assert_eq!(
        result,
        agent.denial("Bash", &reason, &command),
        "{}",
        w.seen(&outcome)
    );
}

#[test]
fn claude_code_does_not_run_a_call_when_a_hook_exits_1() {
    a_failing_hook_fails_closed(
        "claude_code_does_not_run_a_call_when_a_hook_exits_1",
        &CLAUDE_CODE,
        "FAILHOOK",
        "failing",
        "exited with code 1",
    );
}

#[test]
fn codex_does_not_run_a_call_when_a_hook_exits_1() {
    a_failing_hook_fails_closed(
        "codex_does_not_run_a_call_when_a_hook_exits_1",
        &CODEX,
        "FAILHOOK",
        "failing",
        "exited with code 1",
    );
}

#[test]
fn claude_code_does_not_run_a_call_when_a_hook_crashes() {
    a_failing_hook_fails_closed(
        "claude_code_does_not_run_a_call_when_a_hook_crashes",
        &CLAUDE_CODE,
        "CRASHHOOK",
        "crashing",
        "was killed by a signal",
    );
}

#[test]
fn codex_does_not_run_a_call_when_a_hook_crashes() {
    a_failing_hook_fails_closed(
        "codex_does_not_run_a_call_when_a_hook_crashes",
        &CODEX,
        "CRASHHOOK",
        "crashing",
        "was killed by a signal",
    );
}

// ---- Gemini CLI 0.61.0: the same tests

#[test]
fn gemini_runs_an_allowed_call() {
    an_allowed_call_runs("gemini_runs_an_allowed_call", &GEMINI);
}

#[test]
fn gemini_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why() {
    a_blocked_call_does_not_run(
        "gemini_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why",
        &GEMINI,
    );
}

#[test]
fn gemini_force_push_is_blocked_by_no_force_push_wasm() {
    no_force_push_blocks_a_force_push(
        "gemini_force_push_is_blocked_by_no_force_push_wasm",
        &GEMINI,
    );
}

#[test]
fn gemini_write_file_of_a_pem_is_blocked_by_protect_paths_wasm() {
    // Gemini CLI refuses a write of .env itself, before any hook ("Path not in workspace"),
    // so its test writes a file only the policy protects.
    protect_paths_blocks_a_write(
        "gemini_write_file_of_a_pem_is_blocked_by_protect_paths_wasm",
        &GEMINI,
        "secrets/k.pem",
        "secrets/*.pem",
    );
}

#[test]
fn gemini_hands_the_model_a_prompt_hooks_context() {
    prompt_context_reaches_the_model("gemini_hands_the_model_a_prompt_hooks_context", &GEMINI);
}

#[test]
fn gemini_sends_no_request_for_a_prompt_a_hook_blocks() {
    a_blocked_prompt_sends_nothing(
        "gemini_sends_no_request_for_a_prompt_a_hook_blocks",
        &GEMINI,
    );
}

#[test]
fn gemini_does_not_run_a_call_when_a_hook_exits_1() {
    a_failing_hook_fails_closed(
        "gemini_does_not_run_a_call_when_a_hook_exits_1",
        &GEMINI,
        "FAILHOOK",
        "failing",
        "exited with code 1",
    );
}

#[test]
fn gemini_does_not_run_a_call_when_a_hook_crashes() {
    a_failing_hook_fails_closed(
        "gemini_does_not_run_a_call_when_a_hook_crashes",
        &GEMINI,
        "CRASHHOOK",
        "crashing",
        "was killed by a signal",
    );
}

// ---- Copilot CLI 1.0.102: the same tests

#[test]
fn copilot_runs_an_allowed_call() {
    an_allowed_call_runs("copilot_runs_an_allowed_call", &COPILOT);
}

#[test]
fn copilot_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why() {
    a_blocked_call_does_not_run(
        "copilot_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why",
        &COPILOT,
    );
}

#[test]
fn copilot_force_push_is_blocked_by_no_force_push_wasm() {
    no_force_push_blocks_a_force_push(
        "copilot_force_push_is_blocked_by_no_force_push_wasm",
        &COPILOT,
    );
}

#[test]
fn copilot_create_of_dotenv_is_blocked_by_protect_paths_wasm() {
    protect_paths_blocks_a_write(
        "copilot_create_of_dotenv_is_blocked_by_protect_paths_wasm",
        &COPILOT,
        ".env",
        ".env",
    );
}

#[test]
fn copilot_hands_the_model_a_prompt_hooks_context() {
    prompt_context_reaches_the_model("copilot_hands_the_model_a_prompt_hooks_context", &COPILOT);
}

#[test]
fn copilot_sends_no_request_for_a_prompt_a_hook_blocks() {
    a_blocked_prompt_sends_nothing(
        "copilot_sends_no_request_for_a_prompt_a_hook_blocks",
        &COPILOT,
    );
}

#[test]
fn copilot_does_not_run_a_call_when_a_hook_exits_1() {
    a_failing_hook_fails_closed(
        "copilot_does_not_run_a_call_when_a_hook_exits_1",
        &COPILOT,
        "FAILHOOK",
        "failing",
        "exited with code 1",
    );
}

#[test]
fn copilot_does_not_run_a_call_when_a_hook_crashes() {
    a_failing_hook_fails_closed(
        "copilot_does_not_run_a_call_when_a_hook_crashes",
        &COPILOT,
        "CRASHHOOK",
        "crashing",
        "was killed by a signal",
    );
}
