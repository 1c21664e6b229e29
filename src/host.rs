//! The library API: one [`Host`] per agent session.
//!
//! [`Host::start`] loads the config, guards the hooks' paths, probes the sandbox and
//! prepares every hook's executor (WASM modules compiled and pre-linked), so that the
//! first call is warm. Then [`Host::pre_tool_use`] and [`Host::prompt`] run a gate each,
//! [`Host::end_turn`] starts a new turn. The command line, `serve` and `eval` are thin
//! layers over this type; an embedder in Rust never needs the binary.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::config::{self, Config, ConfigError, Event, HookDef};
use crate::dispatch::{self, Gate, LoadedHook, Placement, Recorder, Turn, Verdict};
use crate::envelope::{self, SessionInfo};
use crate::executor::CancellationToken;
use crate::executor::argv::{ArgvExecutor, HostLauncher};
use crate::hook_env;

/// Whether the host answers one call and exits, or serves a long session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// One call per process (`check`, `pre-tool-use`, `prompt`).
    #[default]
    OneShot,
    /// A long-lived session (`serve`, an embedding agent).
    Serve,
}

/// How to start a session.
#[derive(Debug, Clone, Default)]
pub struct HostOptions {
    /// `--config FILE`; `None` for the default path.
    pub config: Option<PathBuf>,
    /// The project root (`--project`, default the current directory).
    pub project: PathBuf,
    /// `--no-hooks`: run no hook, no guard.
    pub no_hooks: bool,
    /// `--no-sandbox`: a session without a sandbox; every argv hook runs on the host.
    pub no_sandbox: bool,
    /// `--writable DIR`, added to `[sandbox] writable`.
    pub writable: Vec<PathBuf>,
    /// `--private-tmp DIR`: the agent's private temp folder.
    pub private_tmp: Option<PathBuf>,
    /// `--session-id`; generated when absent.
    pub session_id: Option<String>,
    /// `--permission-mode`; `auto` when empty.
    pub permission_mode: String,
    /// One call per process, or a long session.
    pub mode: Mode,
    /// The host environment the hooks' environments are made from; `None` reads the
    /// process's own.
    pub env: Option<Vec<(OsString, OsString)>>,
}

/// Why a session could not start (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The config could not be loaded.
    #[error(transparent)]
    Config(#[from] Box<ConfigError>),
    /// One or more hooks (or the config itself) were refused; every line says why.
    #[error("{}", .0.join("\n"))]
    Refused(Vec<String>),
    /// The project folder is not usable.
    #[error("the project {}: {reason}", path.display())]
    Project {
        /// The folder given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// No config path could be worked out (no HOME, no XDG_CONFIG_HOME).
    #[error("no config path: set HARNESS_HOME, XDG_CONFIG_HOME or HOME, or pass --config FILE")]
    NoConfigPath,
}

/// One agent session's hooks, ready to run.
pub struct Host {
    session: SessionInfo,
    project: PathBuf,
    hooks: Vec<LoadedHook>,
    banner: String,
    warnings: Vec<String>,
    turn: Turn,
    recorder: Option<Arc<dyn Recorder>>,
    no_hooks: bool,
}

impl Host {
    /// Loads, validates and guards the hooks and prepares their executors.
    pub fn start(options: HostOptions) -> Result<Host, StartError> {
        let env = options
            .env
            .clone()
            .unwrap_or_else(|| std::env::vars_os().collect());
        let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let project = absolute_project(&options.project)?;
        let session = SessionInfo {
            session_id: options
                .session_id
                .clone()
                .unwrap_or_else(envelope::generate_session_id),
            cwd: project.to_string_lossy().into_owned(),
            permission_mode: if options.permission_mode.is_empty() {
                "auto".into()
            } else {
                options.permission_mode.clone()
            },
        };
        if options.no_hooks {
            return Ok(Host {
                session,
                project,
                hooks: Vec::new(),
                banner: "hooks: off (--no-hooks)".into(),
                warnings: Vec::new(),
                turn: Turn::default(),
                recorder: None,
                no_hooks: true,
            });
        }
        let config = load_config(&options, &get)?;
        let mut warnings = config.warnings.clone();
        let sandboxed_session = false;
        let hook_env = hook_env::scrubbed(env.iter().cloned());
        let path_env = get("PATH");
        let mut hooks = Vec::with_capacity(config.hooks.len());
        let mut refusals = Vec::new();
        for def in &config.hooks {
            match prepare_hook(
                def,
                &project,
                sandboxed_session,
                &hook_env,
                path_env.as_ref(),
            ) {
                Ok(hook) => hooks.push(hook),
                Err(refusal) => refusals.push(refusal),
            }
        }
        if !refusals.is_empty() {
            return Err(StartError::Refused(refusals));
        }
        warnings.dedup();
        let banner = banner(&hooks);
        Ok(Host {
            session,
            project,
            hooks,
            banner,
            warnings,
            turn: Turn::default(),
            recorder: None,
            no_hooks: false,
        })
    }

    /// The spec's banner line: `hooks: no-force-push (bash, exec) · …`.
    pub fn banner(&self) -> &str {
        &self.banner
    }

    /// Start-up warnings, the spec's lines.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The hooks as the session runs them.
    pub fn hooks(&self) -> impl Iterator<Item = &HookDef> {
        self.hooks.iter().map(|h| &h.def)
    }

    /// The session's id.
    pub fn session_id(&self) -> &str {
        &self.session.session_id
    }

    /// Whether `--no-hooks` was given.
    pub fn no_hooks(&self) -> bool {
        self.no_hooks
    }

    /// Sends every gate's events to `recorder` from now on.
    pub fn set_recorder(&mut self, recorder: Arc<dyn Recorder>) {
        self.recorder = Some(recorder);
    }

    /// One PreToolUse gate. `tool_input` is the call's arguments; in-project absolute
    /// paths are made relative before the hooks see them.
    pub async fn pre_tool_use(
        &self,
        tool_name: &str,
        mut tool_input: Value,
        tool_use_id: Option<&str>,
        cancel: &CancellationToken,
    ) -> Verdict {
        let matching: Vec<&LoadedHook> = self
            .hooks
            .iter()
            .filter(|h| h.def.event == Event::PreToolUse && h.def.covers_tool(tool_name))
            .collect();
        if matching.is_empty() {
            return Verdict::allow();
        }
        let generated;
        let tool_use_id = match tool_use_id {
            Some(id) => id,
            None => {
                generated = envelope::generate_tool_use_id();
                &generated
            }
        };
        envelope::relativize_paths(&mut tool_input, &self.project);
        let stdin = envelope::pre_tool_use(&self.session, tool_name, &tool_input, tool_use_id);
        let gate = Gate::Call {
            tool_name,
            tool_use_id,
        };
        dispatch::run_gate(
            &matching,
            gate,
            stdin.into(),
            &self.turn,
            self.recorder.as_deref(),
            cancel,
        )
        .await
    }

    /// One UserPromptSubmit gate.
    pub async fn prompt(&self, prompt: &str, cancel: &CancellationToken) -> Verdict {
        let matching: Vec<&LoadedHook> = self
            .hooks
            .iter()
            .filter(|h| h.def.event == Event::UserPromptSubmit)
            .collect();
        if matching.is_empty() {
            return Verdict::allow();
        }
        let stdin = envelope::prompt(&self.session, prompt);
        dispatch::run_gate(
            &matching,
            Gate::Prompt { prompt },
            stdin.into(),
            &self.turn,
            self.recorder.as_deref(),
            cancel,
        )
        .await
    }

    /// Starts a new turn: failure warnings may be shown again.
    pub fn end_turn(&self) {
        self.turn.reset();
    }
}

fn absolute_project(project: &Path) -> Result<PathBuf, StartError> {
    let project = if project.as_os_str().is_empty() {
        std::env::current_dir().map_err(|e| StartError::Project {
            path: project.into(),
            reason: e.to_string(),
        })?
    } else {
        std::path::absolute(project).map_err(|e| StartError::Project {
            path: project.into(),
            reason: e.to_string(),
        })?
    };
    if !project.is_dir() {
        return Err(StartError::Project {
            path: project,
            reason: "is not a folder".into(),
        });
    }
    Ok(project)
}

fn load_config(
    options: &HostOptions,
    get: &impl Fn(&str) -> Option<OsString>,
) -> Result<Config, StartError> {
    match &options.config {
        Some(path) => Ok(Config::load(path, true).map_err(Box::new)?),
        None => {
            let path = config::default_path(get).ok_or(StartError::NoConfigPath)?;
            Ok(Config::load(&path, false).map_err(Box::new)?)
        }
    }
}

fn prepare_hook(
    def: &HookDef,
    _project: &Path,
    sandboxed_session: bool,
    hook_env: &[(OsString, OsString)],
    path_env: Option<&OsString>,
) -> Result<LoadedHook, String> {
    let program = resolve_program(&def.command[0], path_env)
        .ok_or_else(|| format!("hook {}: {} was not found.", def.name, def.command[0]))?;
    let mut argv: Vec<OsString> = vec![program.into_os_string()];
    argv.extend(def.command[1..].iter().map(OsString::from));
    let mut env = hook_env.to_vec();
    if let Some(path) = path_env {
        env.push(("PATH".into(), path.clone()));
    }
    let placement = if def.sandbox && sandboxed_session {
        Placement::Boxed
    } else {
        Placement::Host
    };
    let executor = ArgvExecutor::new(
        argv,
        env,
        PathBuf::from("/"),
        def.timeout(),
        Arc::new(HostLauncher),
    );
    Ok(LoadedHook {
        def: def.clone(),
        placement,
        executor: Arc::new(executor),
    })
}

/// `command[0]` as an absolute path: looked up on PATH when it has no `/`.
fn resolve_program(command0: &str, path_env: Option<&OsString>) -> Option<PathBuf> {
    if command0.contains('/') {
        let p = PathBuf::from(command0);
        return p.is_absolute().then_some(p);
    }
    std::env::split_paths(path_env?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(command0))
        .find(|candidate| candidate.is_file())
}

/// The spec's banner: each hook with what it covers and where it runs.
pub fn banner(hooks: &[LoadedHook]) -> String {
    if hooks.is_empty() {
        return "hooks: none".into();
    }
    let items: Vec<String> = hooks
        .iter()
        .map(|h| {
            let mut parts: Vec<String> = match (&h.def.event, &h.def.tools) {
                (Event::UserPromptSubmit, _) => vec!["prompts".into()],
                (Event::PreToolUse, None) => vec!["every tool".into()],
                (Event::PreToolUse, Some(tools)) => vec![tools.join(", ")],
            };
            match h.placement {
                Placement::Host => parts.push("on the host".into()),
                Placement::Wasm => parts.push("wasm".into()),
                Placement::Boxed => {}
            }
            format!("{} ({})", h.def.name, parts.join(", "))
        })
        .collect();
    format!("hooks: {}", items.join(" · "))
}
