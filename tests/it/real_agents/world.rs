//! One agent's machine: HOME, hookhost's registered copy and config, the project and its
//! bare remote, the scripted model; and how the agent is configured and run there.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::*;
use crate::support::{ModelServer, Prerequisite, Scene, run, skip_or_fail, test_root, wasm_dir};

/// The agent's binary under `target/agents/`, or `None` after [`skip_or_fail`].
fn agent_or_skip(test: &str, agent: &Agent) -> Option<PathBuf> {
    let path = agents_dir().join(agent.binary);
    let node = agent.node.map(|node| agents_dir().join(node));
    let missing = match &node {
        _ if !path.is_file() => path.clone(),
        Some(node) if !node.is_file() => node.clone(),
        _ => return Some(path),
    };
    skip_or_fail(
        test,
        Prerequisite::Agents,
        &format!(
            "{} {} is not installed: no {} (run scripts/agents.sh)",
            agent.package,
            agent.version,
            missing.display()
        ),
    );
    None
}

/// `target/agents/`, where `scripts/agents.sh` installs the agents.
pub(super) fn agents_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/agents")
}

/// A machine of the agent's own: HOME, the hookhost copy it calls, hookhost's config, a
/// project that is a git repository whose `main` has diverged from a bare remote (so a
/// force push shows as a changed remote `main`), and the scripted model.
pub(super) struct World {
    pub(super) agent: &'static Agent,
    pub(super) binary: PathBuf,
    pub(super) scene: Scene,
    pub(super) home: PathBuf,
    pub(super) hookhost: PathBuf,
    pub(super) remote: PathBuf,
    pub(super) model: ModelServer,
    /// The `hookhost warm` a registration made with `--warm-socket` hands its calls to.
    pub(super) warm: Option<WarmServer>,
}

/// A running `hookhost -v warm`, its stderr in a file.
pub(super) struct WarmServer {
    child: std::process::Child,
    log: PathBuf,
}

impl WarmServer {
    /// The lines of its log about calls: `answered` or `declined`.
    pub(super) fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("a bridged call"))
            .map(String::from)
            .collect()
    }
}

impl Drop for WarmServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one agent run did.
pub(super) struct Outcome {
    pub(super) code: i32,
    pub(super) stdout: String,
    pub(super) stderr: String,
}

impl World {
    pub(super) fn new(test: &str, agent: &'static Agent) -> Option<World> {
        World::with(test, agent, false)
    }

    /// [`World::new`] with the registration `hookhost install AGENT --warm-socket SOCKET`
    /// writes (`hookhost-client` beside the copy of hookhost) and `hookhost warm` running
    /// at that socket.
    pub(super) fn warm(test: &str, agent: &'static Agent) -> Option<World> {
        World::with(test, agent, true)
    }

    fn with(test: &str, agent: &'static Agent, warm: bool) -> Option<World> {
        let binary = agent_or_skip(test, agent)?;
        let scene = Scene::new();
        let root = scene.root.path().to_path_buf();
        let home = root.join("home");
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(home.join(".config/harness")).unwrap();
        std::fs::create_dir_all(root.join("tmp")).unwrap();

        // A copy of the binary, so that the registration names a file of this test.
        let hookhost = bin.join("hookhost");
        crate::support::copy_program(env!("CARGO_BIN_EXE_hookhost"), &hookhost);
        if warm {
            crate::support::copy_program(
                env!("CARGO_BIN_EXE_hookhost-client"),
                bin.join("hookhost-client"),
            );
        }

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

        let mut world = World {
            agent,
            binary,
            scene,
            home,
            hookhost,
            remote,
            model: ModelServer::start(),
            warm: None,
        };
        world.configure_agent();
        let mut install = vec!["install", agent.install];
        let socket = root.join("run/warm.sock");
        if warm {
            use std::os::unix::fs::PermissionsExt;
            let run_folder = socket.parent().unwrap();
            std::fs::create_dir_all(run_folder).unwrap();
            std::fs::set_permissions(run_folder, std::fs::Permissions::from_mode(0o700)).unwrap();
            let log = root.join("warm.log");
            let child = world
                .env(&mut Command::new(&world.hookhost))
                .args(["-v", "warm", "--warm-socket"])
                .arg(&socket)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .expect("start hookhost warm");
            let server = WarmServer { child, log };
            assert!(
                crate::support::wait_until(|| socket.exists()),
                "hookhost warm did not start: {:?}",
                std::fs::read_to_string(&server.log)
            );
            world.warm = Some(server);
            install.extend(["--warm-socket", socket.to_str().unwrap()]);
        }
        let (code, stdout, stderr) =
            run(world.env(&mut Command::new(&world.hookhost)).args(&install));
        assert_eq!(
            code, 0,
            "hookhost install {}: {stdout}{stderr}",
            agent.install
        );
        Some(world)
    }

    pub(super) fn project(&self) -> &Path {
        &self.scene.project
    }

    /// The agent's own settings, before `hookhost install` merges its registration in:
    /// only what it takes to reach the scripted model offline.
    pub(super) fn configure_agent(&self) {
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
        if self.agent.kind == Kind::Qwen {
            let qwen = self.home.join(".qwen");
            std::fs::create_dir_all(&qwen).unwrap();
            // Nothing that reaches out: usage statistics, telemetry, updates.
            let settings = serde_json::json!({
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
                "general": {"enableAutoUpdate": false, "disableAutoUpdate": true,
                    "disableUpdateNag": true},
            });
            std::fs::write(qwen.join("settings.json"), settings.to_string()).unwrap();
        }
        if self.agent.kind == Kind::Kimi {
            let kimi = self.home.join(".kimi-code");
            std::fs::create_dir_all(&kimi).unwrap();
            // An OpenAI-compatible provider: the scripted model.
            let config = format!(
                "default_model = \"scripted\"\n\n\
                 [providers.scripted]\ntype = \"openai\"\nbase_url = \"{url}/v1\"\napi_key = \"scripted\"\n\n\
                 [models.scripted]\nprovider = \"scripted\"\nmodel = \"gpt-4.1\"\n\
                 max_context_size = 128000\ncapabilities = [\"tool_use\"]\n",
                url = self.model.url(),
            );
            std::fs::write(kimi.join("config.toml"), config).unwrap();
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
    pub(super) fn env<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        let agent_dir = self.binary.parent().unwrap();
        // The agent's own node first, so that a node it starts is the one it runs on.
        let node_dir = self
            .agent
            .node
            .map(|node| format!("{}:", agents_dir().join(node).parent().unwrap().display()))
            .unwrap_or_default();
        cmd.env_clear()
            .env("HOME", &self.home)
            .env(
                "PATH",
                format!(
                    "{node_dir}{}:/usr/local/bin:/usr/bin:/bin",
                    agent_dir.display()
                ),
            )
            .env("SHELL", "/bin/bash")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("USER", "root")
            // hookhost's records and WASM cache stay in the test folders.
            .env("XDG_STATE_HOME", self.scene.state())
            .env("XDG_CACHE_HOME", test_root().join("cache"))
            // The agents' own temp folders too (Claude Code leaves a `claude-UID` tree of
            // per-project folders and watcher probes in the temp folder at every run).
            .env("TMPDIR", self.scene.root.path().join("tmp"))
            .current_dir(self.project())
    }

    /// Runs the agent on `prompt` to its end, stdin from /dev/null.
    pub(super) fn run(&self, prompt: &str) -> Outcome {
        self.run_with(prompt, &[], &[])
    }

    /// [`World::run`], with `args` after the agent's own and `env` over its own: a set-up
    /// one run needs (a tool the agent offers only to some models, say).
    pub(super) fn run_with(&self, prompt: &str, args: &[&str], env: &[(&str, &str)]) -> Outcome {
        let prompt = &prompt.replace("@PROJECT@", self.project().to_str().unwrap());
        let mut cmd = match self.agent.node {
            Some(node) => {
                let mut cmd = Command::new(agents_dir().join(node));
                cmd.arg(&self.binary);
                cmd
            }
            None => Command::new(&self.binary),
        };
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
        } else if self.agent.kind == Kind::Qwen {
            // The OpenAI-compatible provider, from the environment; no telemetry.
            cmd.args(["-p", prompt, "--output-format", "json", "--yolo"])
                .env("OPENAI_BASE_URL", format!("{}/v1", self.model.url()))
                .env("OPENAI_API_KEY", "scripted")
                .env("OPENAI_MODEL", "gpt-4.1")
                .env("QWEN_TELEMETRY_ENABLED", "false")
                .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
        } else if self.agent.kind == Kind::Kimi {
            // `-p` runs in its auto permission mode; the provider is in its config.
            cmd.args(["-p", prompt])
                .env("KIMI_CODE_NO_AUTO_UPDATE", "1");
        } else {
            // No shared background server: nothing outlives the run.
            cmd.args(["--no-daemon", "exec", "--skip-git-repo-check", prompt])
                .env("SCRIPTED_API_KEY", "scripted");
        }
        cmd.args(args).envs(env.iter().copied());
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
    pub(super) fn leftovers(&self) -> Vec<i32> {
        let needle = format!("HOME={}\0", self.home.display());
        // The warm server outlives every run, as it should.
        let server = self.warm.as_ref().map(|w| w.child.id() as i32);
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| Some(*pid) != server)
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.windows(needle.len()).any(|w| w == needle.as_bytes()))
            })
            .collect()
    }

    /// The commit the bare remote's `main` names.
    pub(super) fn remote_main(&self) -> String {
        let (code, stdout, stderr) = run(Command::new("git")
            .arg("--git-dir")
            .arg(&self.remote)
            .args(["rev-parse", "main"]));
        assert_eq!(code, 0, "{stderr}");
        stdout.trim().to_string()
    }

    /// What the model was handed as tool results, for a failure's message.
    pub(super) fn seen(&self, outcome: &Outcome) -> String {
        format!(
            "tool results: {:?}\nagent exit {}\nstdout: {}\nstderr: {}",
            self.model.tool_results(),
            outcome.code,
            outcome.stdout,
            outcome.stderr
        )
    }

    /// Runs `RUN: command`, and returns the one tool result the model got.
    pub(super) fn one_call(&self, script: &str) -> (String, Outcome) {
        let outcome = self.run(script);
        let results = self.model.tool_results();
        assert_eq!(results.len(), 1, "{}", self.seen(&outcome));
        (results[0].clone(), outcome)
    }
}

pub(super) fn git(dir: &Path, args: &[&str]) {
    let (code, stdout, stderr) = run(Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1"));
    assert_eq!(code, 0, "git {args:?}: {stdout}{stderr}");
}
