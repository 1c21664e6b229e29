//! The library API: one [`Session`] per agent session.
//!
//! [`Session::start`] loads the config, guards the hooks' paths, probes the sandbox and
//! prepares every hook's executor (WASM modules compiled and pre-linked), so that the
//! first call is warm. Then [`Session::pre_tool_use`] and [`Session::prompt`] run a gate each,
//! [`Session::end_turn`] starts a new turn. The command line, `serve` and `eval` are thin
//! layers over this type; an embedder in Rust needs the binary only as the box's
//! Landlock entry point ([`SessionOptions::box_entry`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::config::{self, Config, ConfigError, Event, HookDef};
use crate::dispatch::{
    self, Decision, Gate, LoadedHook, Placement, Recorder, RunEvent, Turn, Verdict,
};
use crate::envelope::{self, SessionInfo};
use crate::executor::argv::{ArgvExecutor, HostLauncher, IsolatedHostLauncher, Launcher};
use crate::executor::wasm::{EngineMode, WasmEngine, WasmError, WasmSettings};
use crate::executor::{CancellationToken, Executor, Unstartable};
use crate::guard::{self, GuardContext, HookToGuard};
use crate::hook_env;
use crate::record::{self, RecordError, RecordWriter, ResumePlan};
use crate::sandbox::{self, BoxSpec};

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
pub struct SessionOptions {
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
    /// `--log FILE`: the session record. `None`: a [`Mode::Serve`] session records to
    /// [`record::default_path`], a one-shot one records nothing.
    pub log: Option<PathBuf>,
    /// `--resume FILE [--clean]`: resume the session recorded there, appending to it.
    pub resume: Option<crate::record::ResumeFrom>,
    /// The box's entry point ([`BoxSpec::entry`]), which confines the box's writes with
    /// Landlock. The command line passes `/proc/self/exe`; an embedder passes a hookhost
    /// binary (or its own, if its `main` calls [`sandbox::box_entry_main`]). `None`: the
    /// box runs without Landlock, and a start-up warning says so.
    pub box_entry: Option<PathBuf>,
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
    /// `hookhost box`: there is no box to run in.
    #[error("{0}")]
    NoBox(String),
    /// No config path could be worked out (no HOME, no XDG_CONFIG_HOME).
    #[error("no config path: set HARNESS_HOME, XDG_CONFIG_HOME or HOME, or pass --config FILE")]
    NoConfigPath,
    /// The session record could not be opened, read or written.
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// One agent session's hooks, ready to run.
pub struct Session {
    session: SessionInfo,
    project: PathBuf,
    hooks: Vec<LoadedHook>,
    banner: String,
    warnings: Vec<String>,
    turn: Turn,
    recorder: Option<Arc<dyn Recorder>>,
    no_hooks: bool,
    /// Crash resume: recorded hooks this session does not run (changed since recorded).
    skipped: Vec<HookDef>,
    _sandbox: SessionSandbox,
}

impl Session {
    /// Loads, validates and guards the hooks and prepares their executors; opens the
    /// session record (`log`, or the default one in [`Mode::Serve`]) or resumes one
    /// (`resume`), and records from then on. When the config defines hooks, a `log` or
    /// `resume` file the agent could write is refused like such a config file
    /// ([`guard::check_record_file`]), and a default record there is not written (a
    /// warning says so).
    pub fn start(mut options: SessionOptions) -> Result<Session, StartError> {
        let resumed = match options.resume.clone() {
            Some(from) => {
                if let Some(log) = options.log.as_ref().filter(|log| **log != from.file) {
                    return Err(RecordError::LogMismatch {
                        log: log.clone(),
                        resume: from.file,
                    }
                    .into());
                }
                let (file, text, exposed) = RecordWriter::resume(&from.file)?;
                let plan = ResumePlan::new(&from, &record::read_str(&text))?;
                options.session_id = Some(plan.session_id.clone());
                Some((file, plan, exposed))
            }
            None => None,
        };
        let session_id = options
            .session_id
            .get_or_insert_with(envelope::generate_session_id)
            .clone();
        let (log, mode) = (options.log.clone(), options.mode);
        let env = options.env.clone();
        let (mut host, guard_ctx) =
            Session::start_hooks(options, resumed.as_ref().map(|(_, plan, _)| plan))?;
        // A record the agent could change is refused like a config it could change: a
        // resume trusts the hooks it lists. Nothing is written before this check.
        let check_record = |path: &Path| match &guard_ctx {
            Some(ctx) => guard::check_record_file(ctx, path),
            None => Ok(()),
        };
        let refused = |refusal: guard::Refusal| StartError::Refused(vec![refusal.to_string()]);
        let writer = match resumed {
            Some((file, plan, exposed)) => {
                check_record(&plan.file).map_err(refused)?;
                let notes = plan
                    .notes
                    .iter()
                    .map(|n| format!("note: {}: {n}", plan.file.display()));
                let mut first: Vec<String> = plan
                    .killed
                    .iter()
                    .cloned()
                    .chain(notes)
                    .chain(exposed)
                    .collect();
                first.append(&mut host.warnings);
                host.warnings = first;
                Some((
                    RecordWriter::resumed(&plan.file, &session_id, file)?,
                    Some(plan),
                ))
            }
            None => match log {
                Some(path) => {
                    check_record(&path).map_err(refused)?;
                    Some((RecordWriter::create(&path, &session_id)?, None))
                }
                None if mode == Mode::Serve => {
                    let env = env.unwrap_or_else(|| std::env::vars_os().collect());
                    let get =
                        |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
                    // The default record is not the user's choice: one the agent could
                    // change is not written (a warning says so), rather than refused.
                    let created = record::default_path(&get, &session_id).map(|p| {
                        check_record(&p).map_err(|r| r.to_string()).and_then(|()| {
                            RecordWriter::create(&p, &session_id).map_err(|e| e.to_string())
                        })
                    });
                    match created {
                        Some(Ok(writer)) => Some((writer, None)),
                        Some(Err(e)) => {
                            host.warnings
                                .push(format!("⚠ {e} This session is not recorded."));
                            None
                        }
                        None => None,
                    }
                }
                None => None,
            },
        };
        if let Some((writer, plan)) = writer {
            host.begin_record(writer, plan.as_ref())?;
        }
        Ok(host)
    }

    /// A session over hooks prepared elsewhere (replay): no config, no guard, no
    /// sandbox, no record.
    pub fn with_hooks(session: SessionInfo, hooks: Vec<LoadedHook>) -> Session {
        Session {
            project: PathBuf::from(&session.cwd),
            banner: banner(&hooks),
            session,
            hooks,
            warnings: Vec::new(),
            turn: Turn::default(),
            recorder: None,
            no_hooks: false,
            skipped: Vec::new(),
            _sandbox: SessionSandbox::Off,
        }
    }

    /// Writes `session.started` (or `session.resumed`) and records from now on.
    fn begin_record(
        &mut self,
        writer: RecordWriter,
        plan: Option<&ResumePlan>,
    ) -> Result<(), StartError> {
        let body = record::SessionBody {
            cwd: self.session.cwd.clone(),
            permission_mode: self.session.permission_mode.clone(),
            no_hooks: self.no_hooks,
            hooks: self.hooks().cloned().collect(),
            banner: self.banner.clone(),
            clean: plan.map(|p| p.clean),
            skipped: self.skipped.iter().map(|h| h.name.clone()).collect(),
            warnings: if plan.is_some() {
                self.warnings.clone()
            } else {
                Vec::new()
            },
            version: env!("CARGO_PKG_VERSION").into(),
        };
        let body = match plan {
            Some(_) => record::Body::Resumed(body),
            None => record::Body::Started(body),
        };
        writer.write(&body)?;
        self.recorder = Some(Arc::new(writer));
        Ok(())
    }

    /// Loads and guards the hooks and prepares their executors. Also returns the guard's
    /// view of the session when the config defines hooks (before a resume keeps only
    /// the recorded ones), for the record's own check.
    fn start_hooks(
        options: SessionOptions,
        plan: Option<&ResumePlan>,
    ) -> Result<(Session, Option<GuardContext>), StartError> {
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
            let host = Session {
                session,
                project,
                hooks: Vec::new(),
                banner: "hooks: off (--no-hooks)".into(),
                warnings: Vec::new(),
                turn: Turn::default(),
                recorder: None,
                no_hooks: true,
                skipped: Vec::new(),
                _sandbox: SessionSandbox::Off,
            };
            return Ok((host, None));
        }
        let mut config = load_config(&options, &get)?;
        let configured_hooks = !config.hooks.is_empty();
        let mut skipped = Vec::new();
        if let Some(plan) = plan.filter(|p| p.keeps_recorded()) {
            let (kept, dropped, lines) = plan.apply(&config.hooks);
            config.hooks = kept;
            skipped = dropped;
            config.warnings.extend(lines);
        }
        let mut warnings = config.warnings.clone();
        let home = get("HOME").map(PathBuf::from);
        let homes = sandbox::Homes::find(get("HOME").as_deref());
        let path_env = get("PATH");

        // The session has a sandbox when it has argv hooks, bubblewrap runs here and
        // --no-sandbox is not given; that decides where hooks run and what the guard
        // counts as writable. A session of WASM hooks only needs no box: it skips the
        // probe (most of a cold start) and, like a session without a sandbox, counts
        // the system temp folders as agent-writable, which only makes the guard stricter.
        let needs_box = config.hooks.iter().any(|h| !h.is_wasm());
        let folders = Folders::new(&options, &config, &homes);
        let sandbox = SessionSandbox::probe(
            &options,
            &folders,
            &project,
            &get,
            needs_box,
            &session.session_id,
        );
        let mut banner_notes = Vec::new();
        if let SessionSandbox::Unavailable(why) = &sandbox {
            let line = format!("⚠ {why}");
            banner_notes.push(line.clone());
            warnings.push(line);
        }
        warnings.extend(sandbox.warnings(&options, &config, &homes));

        let guard_ctx = GuardContext {
            project: project.clone(),
            private_tmp: options.private_tmp.clone(),
            writable: folders.writable,
            sandboxed_session: sandbox.spec().is_some(),
            hidden: folders.hide,
            path_env: path_env.clone(),
            tmpdir_env: get("TMPDIR").map(PathBuf::from),
        };
        let programs = run_guard(&guard_ctx, &config, configured_hooks)?;

        let hook_env = hook_env::scrubbed(env.iter().cloned(), &config.sandbox.env);
        let host_path = guard::scrub_path_for_host_hook(&guard_ctx);
        let mut wasm = WasmHooks::new(&config, options.mode, &get, home.as_deref());
        if let Some(dir) = wasm.settings.cache_dir.clone()
            && config.hooks.iter().any(HookDef::is_wasm)
            && let Err(refusal) = guard::check_cache_dir(&guard_ctx, &dir)
        {
            return Err(StartError::Refused(vec![refusal.to_string()]));
        }
        let host_launcher = host_launcher(&config, &sandbox, &mut warnings);
        let mut hooks = Vec::with_capacity(config.hooks.len());
        let mut refusals = Vec::new();
        for (def, program) in config.hooks.iter().zip(programs) {
            if def.is_wasm() {
                match wasm.prepare(def, &program, &project) {
                    Ok((hook, hook_warnings)) => {
                        warnings.extend(hook_warnings);
                        hooks.push(hook);
                    }
                    Err(refusal) => refusals.push(refusal),
                }
                continue;
            }
            hooks.push(prepare_argv_hook(
                def,
                program,
                &project,
                &sandbox,
                &host_launcher,
                &hook_env,
                host_path.as_ref(),
                path_env.as_ref(),
            ));
        }
        if !refusals.is_empty() {
            return Err(StartError::Refused(refusals));
        }
        warnings.dedup();
        let mut banner = banner(&hooks);
        for note in banner_notes {
            banner.push('\n');
            banner.push_str(&note);
        }
        let host = Session {
            session,
            project,
            hooks,
            banner,
            warnings,
            turn: Turn::default(),
            recorder: None,
            no_hooks: false,
            skipped,
            _sandbox: sandbox,
        };
        Ok((host, configured_hooks.then_some(guard_ctx)))
    }

    /// The spec's banner line: `hooks: no-force-push (bash, exec) · …`.
    pub fn banner(&self) -> &str {
        &self.banner
    }

    /// Whether this session's sandboxed hooks run in a box (bubblewrap runs here and the
    /// session has argv hooks).
    pub fn has_box(&self) -> bool {
        self._sandbox.spec().is_some()
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
        let covers = |h: &HookDef| h.event == Event::PreToolUse && h.covers_tool(tool_name);
        let matching: Vec<&LoadedHook> = self.hooks.iter().filter(|h| covers(&h.def)).collect();
        // The common case, no hook for this tool, costs no id, no envelope, no record.
        if matching.is_empty() && !self.skipped.iter().any(covers) {
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
        let gate = Gate::Call {
            tool_name,
            tool_use_id,
        };
        self.record_skipped(gate, covers);
        if matching.is_empty() {
            return Verdict::allow();
        }
        envelope::relativize_paths(&mut tool_input, &self.project);
        let stdin = envelope::pre_tool_use(&self.session, tool_name, &tool_input, tool_use_id);
        self.run_gate(&matching, gate, stdin, Some(&tool_input), cancel)
            .await
    }

    /// One UserPromptSubmit gate.
    pub async fn prompt(&self, prompt: &str, cancel: &CancellationToken) -> Verdict {
        let gate = Gate::Prompt { prompt };
        self.record_skipped(gate, |h| h.event == Event::UserPromptSubmit);
        let matching: Vec<&LoadedHook> = self
            .hooks
            .iter()
            .filter(|h| h.def.event == Event::UserPromptSubmit)
            .collect();
        if matching.is_empty() {
            return Verdict::allow();
        }
        let stdin = envelope::prompt(&self.session, prompt);
        self.run_gate(&matching, gate, stdin, None, cancel).await
    }

    /// Runs the gate's hooks and records its verdict.
    async fn run_gate(
        &self,
        hooks: &[&LoadedHook],
        gate: Gate<'_>,
        stdin: Vec<u8>,
        tool_input: Option<&Value>,
        cancel: &CancellationToken,
    ) -> Verdict {
        let verdict = dispatch::run_gate(
            hooks,
            gate,
            stdin.into(),
            &self.turn,
            self.recorder.as_deref(),
            cancel,
        )
        .await;
        self.record_verdict(gate, tool_input, &verdict);
        verdict
    }

    /// Starts a new turn: failure warnings may be shown again.
    pub fn end_turn(&self) {
        self.turn.reset();
        if let Some(r) = &self.recorder {
            r.record(RunEvent::TurnEnded);
        }
    }

    /// Records a skipped run for each recorded hook this resumed session does not run
    /// and that would have covered `gate`.
    fn record_skipped(&self, gate: Gate<'_>, covers: impl Fn(&HookDef) -> bool) {
        let Some(r) = &self.recorder else { return };
        for hook in self.skipped.iter().filter(|h| covers(h)) {
            r.record(RunEvent::Decided {
                hook: &hook.name,
                gate,
                decision: Decision::Skipped,
                reason: "changed in your config since the session was recorded",
            });
        }
    }

    fn record_verdict(&self, gate: Gate<'_>, tool_input: Option<&Value>, verdict: &Verdict) {
        if let Some(r) = &self.recorder {
            r.record(RunEvent::Verdict {
                gate,
                tool_input,
                verdict,
            });
        }
    }
}

/// The box a sandboxed hook of this session would run in, for `hookhost box -- CMD`:
/// the same probe, folders, hidden paths and environment.
pub struct SessionBox {
    sandbox: SessionSandbox,
    env: Vec<(OsString, OsString)>,
    warnings: Vec<String>,
}

impl SessionBox {
    /// Sets up the box as [`Session::start`] would for a sandboxed hook. Fails when
    /// bubblewrap cannot run (never runs the command on the host instead).
    pub fn start(options: &SessionOptions) -> Result<SessionBox, StartError> {
        let env = options
            .env
            .clone()
            .unwrap_or_else(|| std::env::vars_os().collect());
        let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let project = absolute_project(&options.project)?;
        let config = load_config(options, &get)?;
        let homes = sandbox::Homes::find(get("HOME").as_deref());
        let session_id = options
            .session_id
            .clone()
            .unwrap_or_else(envelope::generate_session_id);
        let folders = Folders::new(options, &config, &homes);
        let sandbox = SessionSandbox::probe(options, &folders, &project, &get, true, &session_id);
        match &sandbox {
            SessionSandbox::Boxed { .. } => {}
            SessionSandbox::Unavailable(why) => return Err(StartError::NoBox(why.to_string())),
            SessionSandbox::Off => {
                return Err(StartError::NoBox(
                    "--no-sandbox was given, so there is no box to run in".into(),
                ));
            }
        }
        let mut hook_env = hook_env::scrubbed(env.iter().cloned(), &config.sandbox.env);
        if let Some(path) = get("PATH") {
            hook_env.push(("PATH".into(), path));
        }
        let warnings = sandbox.warnings(options, &config, &homes);
        Ok(SessionBox {
            sandbox,
            env: hook_env,
            warnings,
        })
    }

    /// What makes this box weaker than it should be (no home known, no Landlock entry
    /// point), one line each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// A command that runs `argv` in the box, with the hooks' environment.
    pub fn command(&self, argv: &[OsString]) -> std::io::Result<std::process::Command> {
        let spec = self
            .sandbox
            .spec()
            .ok_or_else(|| std::io::Error::other("no box"))?;
        spec.command(argv, &self.env).map_err(std::io::Error::other)
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
    if let Some(reason) = crate::access::folder_problem(&project) {
        return Err(StartError::Project {
            path: project,
            reason,
        });
    }
    Ok(project)
}

fn load_config(
    options: &SessionOptions,
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

/// Runs the path guard over the config file and every hook; returns each hook's
/// program (absolute) in order, or every refusal. `configured_hooks`: the config file
/// defines hooks (a resume may keep none of them: the file is checked all the same).
fn run_guard(
    ctx: &GuardContext,
    config: &Config,
    configured_hooks: bool,
) -> Result<Vec<PathBuf>, StartError> {
    let mut refusals = Vec::new();
    if configured_hooks
        && let Some(path) = &config.path
        && let Err(refusal) = guard::check_config_file(ctx, path)
    {
        refusals.push(refusal.to_string());
    }
    let to_guard: Vec<HookToGuard> = config
        .hooks
        .iter()
        .map(|h| HookToGuard {
            name: &h.name,
            // A WASM hook's arguments are the guest's, not host paths: it can open
            // nothing but the read-only project, so only its module is checked.
            command: if h.is_wasm() {
                &h.command[..1]
            } else {
                &h.command
            },
            sandbox: h.sandbox && !h.is_wasm(),
        })
        .collect();
    let guarded = match guard::check_hooks(ctx, &to_guard) {
        Ok(guarded) => guarded,
        Err(found) => {
            refusals.extend(found.iter().map(ToString::to_string));
            Vec::new()
        }
    };
    if !refusals.is_empty() {
        return Err(StartError::Refused(refusals));
    }
    Ok(guarded.into_iter().map(|g| g.program).collect())
}

/// The folders the agent's commands may write, and those the box hides.
struct Folders {
    writable: Vec<PathBuf>,
    hide: Vec<PathBuf>,
}

impl Folders {
    fn new(options: &SessionOptions, config: &Config, homes: &sandbox::Homes) -> Folders {
        let mut writable = config.sandbox.writable.clone();
        writable.extend(options.writable.iter().cloned());
        let hide = match &config.sandbox.hide {
            Some(list) => list.clone(),
            None => homes.default_hidden(),
        };
        Folders { writable, hide }
    }
}

/// The session's sandbox: the box hooks run in, or why there is none.
enum SessionSandbox {
    /// `--no-sandbox`, or no hook that would use it.
    Off,
    /// bubblewrap cannot run here; hooks run on the host and the banner says so.
    Unavailable(sandbox::Unavailable),
    /// The box, and the private temp folder we created for it (locked while the
    /// session lives, removed on drop).
    Boxed {
        spec: Arc<BoxSpec>,
        _created_tmp: Option<sandbox::PrivateTmp>,
    },
}

impl SessionSandbox {
    fn probe(
        options: &SessionOptions,
        folders: &Folders,
        project: &Path,
        get: &impl Fn(&str) -> Option<OsString>,
        needs_box: bool,
        session_id: &str,
    ) -> SessionSandbox {
        if options.no_sandbox || !needs_box {
            return SessionSandbox::Off;
        }
        let override_path = get(sandbox::BWRAP_ENV).map(PathBuf::from);
        let path_env = get("PATH");
        let info = match sandbox::probe(override_path.as_deref(), path_env.as_deref(), project) {
            Ok(info) => info,
            Err(why) => return SessionSandbox::Unavailable(why),
        };
        let (private_tmp, created_tmp) = match &options.private_tmp {
            Some(dir) => (dir.clone(), None),
            None => match sandbox::create_private_tmp(session_id) {
                Ok(tmp) => (tmp.path().to_path_buf(), Some(tmp)),
                Err(e) => {
                    return SessionSandbox::Unavailable(sandbox::Unavailable {
                        reason: e.to_string(),
                        advice: "Pass --private-tmp DIR, or make the temp folder writable.".into(),
                    });
                }
            },
        };
        SessionSandbox::Boxed {
            spec: Arc::new(BoxSpec {
                project: project.to_path_buf(),
                writable: folders.writable.clone(),
                private_tmp,
                hide: folders.hide.clone(),
                bwrap: info.path,
                entry: options.box_entry.clone(),
            }),
            _created_tmp: created_tmp,
        }
    }

    fn spec(&self) -> Option<&Arc<BoxSpec>> {
        match self {
            SessionSandbox::Boxed { spec, .. } => Some(spec),
            _ => None,
        }
    }

    /// Start-up warnings about a box that hides or confines less than it should.
    fn warnings(
        &self,
        options: &SessionOptions,
        config: &Config,
        homes: &sandbox::Homes,
    ) -> Vec<String> {
        let mut out = Vec::new();
        if self.spec().is_none() {
            return out;
        }
        if config.sandbox.hide.is_none() {
            out.extend(homes.unknown_warning());
        }
        if options.box_entry.is_none() {
            out.push("⚠ the box has no entry point (SessionOptions::box_entry), so it runs without Landlock: a sandboxed hook can write into host FIFOs it can see.".into());
        }
        out
    }
}

/// The session's WASM engine (made on first use) and its settings.
struct WasmHooks {
    settings: WasmSettings,
    mode: EngineMode,
    engine: Option<Result<WasmEngine, String>>,
}

impl WasmHooks {
    fn new(
        config: &Config,
        mode: Mode,
        get: &impl Fn(&str) -> Option<OsString>,
        home: Option<&Path>,
    ) -> WasmHooks {
        let defaults = WasmSettings::default();
        let cache_dir = config.wasm.cache_dir.clone().or_else(|| {
            let base = get("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.map(|h| h.join(".cache")))?;
            Some(base.join("hookhost").join("wasm"))
        });
        WasmHooks {
            settings: WasmSettings {
                memory_limit_mib: config
                    .wasm
                    .memory_limit_mib
                    .unwrap_or(defaults.memory_limit_mib),
                fuel_per_second: config
                    .wasm
                    .fuel_per_second
                    .unwrap_or(defaults.fuel_per_second),
                cache_dir,
            },
            mode: match mode {
                Mode::OneShot => EngineMode::OneShot,
                Mode::Serve => EngineMode::Serve,
            },
            engine: None,
        }
    }

    /// Compiles (or loads) and pre-links a WASM hook. A hook that imports the network
    /// is refused (the `Err` line); one that cannot be compiled or linked becomes a hook
    /// whose every run fails with "could not start: …", and a start-up warning says so.
    /// The compile cache's warnings (a damaged cache file compiled again, a cache that
    /// cannot be written) become start-up warnings too.
    fn prepare(
        &mut self,
        def: &HookDef,
        program: &Path,
        project: &Path,
    ) -> Result<(LoadedHook, Vec<String>), String> {
        let engine = self.engine.get_or_insert_with(|| {
            WasmEngine::new(&self.settings, self.mode).map_err(|e| e.to_string())
        });
        let prepared = match engine {
            Ok(engine) => engine
                .prepare(program, &def.command[1..], project, def.timeout())
                .map_err(|e| match e {
                    WasmError::Forbidden { .. } => Err(format!("hook {}: {e}.", def.name)),
                    other => Ok(other.to_string()),
                }),
            Err(e) => Err(Ok(e.clone())),
        };
        let (executor, warnings): (Arc<dyn Executor>, Vec<String>) = match prepared {
            Ok(executor) => {
                let cache = executor.cache_warnings().iter().map(|w| format!("⚠ {w}"));
                let cache = cache.collect();
                (Arc::new(executor), cache)
            }
            Err(Err(refusal)) => return Err(refusal),
            Err(Ok(why)) => (
                Arc::new(Unstartable(why.clone())),
                vec![format!("⚠ hook {} could not start: {why}", def.name)],
            ),
        };
        Ok((
            LoadedHook {
                def: def.clone(),
                placement: Placement::Wasm,
                executor,
            },
            warnings,
        ))
    }
}

/// How this session starts host hooks: in a PID namespace of their own where this
/// process can make one, else directly, with a warning that says why (once per start).
fn host_launcher(
    config: &Config,
    sandbox: &SessionSandbox,
    warnings: &mut Vec<String>,
) -> Arc<dyn Launcher> {
    let boxed = sandbox.spec().is_some();
    // Argv hooks run on the host unless they go in this session's box.
    let runs_on_host = |h: &HookDef| !(h.is_wasm() || boxed && h.sandbox);
    let any_on_host = config.hooks.iter().any(runs_on_host);
    if !any_on_host {
        return Arc::new(HostLauncher);
    }
    match crate::process::HookNamespace::for_this_process() {
        Ok(namespace) => Arc::new(IsolatedHostLauncher::new(namespace)),
        Err(why) => {
            warnings.push(format!(
                "⚠ host hooks run without a PID namespace of their own, so they can see your other processes, the agent's included: making one failed: {why}."
            ));
            Arc::new(HostLauncher)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn prepare_argv_hook(
    def: &HookDef,
    program: PathBuf,
    project: &Path,
    sandbox: &SessionSandbox,
    host_launcher: &Arc<dyn Launcher>,
    hook_env: &[(OsString, OsString)],
    host_path: Option<&OsString>,
    path_env: Option<&OsString>,
) -> LoadedHook {
    let mut argv: Vec<OsString> = vec![program.into_os_string()];
    argv.extend(def.command[1..].iter().map(OsString::from));
    let mut env = hook_env.to_vec();
    let boxed = sandbox.spec().filter(|_| def.sandbox);
    // A host hook in a sandboxed session gets the scrubbed PATH (none at all when
    // nothing is left); in the box, and in a session without a sandbox, PATH is as is.
    let path = if boxed.is_none() { host_path } else { path_env };
    if let Some(path) = path {
        env.push(("PATH".into(), path.clone()));
    }
    let (placement, cwd, launcher): (Placement, PathBuf, Arc<dyn Launcher>) = match boxed {
        Some(spec) => (Placement::Boxed, project.to_path_buf(), spec.clone()),
        None => (Placement::Host, PathBuf::from("/"), host_launcher.clone()),
    };
    let executor = ArgvExecutor::new(argv, env, cwd, def.timeout(), launcher);
    LoadedHook {
        def: def.clone(),
        placement,
        executor: Arc::new(executor),
    }
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
