//! Session start, as a pipeline of named steps:
//! load → resume plan → folders → sandbox → guard → prepare hooks → banner,
//! then the session record (opened, resumed or the default one) once the hooks are known.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::banner;
use super::boxed::{Folders, SessionSandbox, may_box};
use super::options::Scope;
use super::prepare::{WasmHooks, host_launcher, prepare_argv_hook};
use super::{Mode, Session, SessionOptions, StartError};
use crate::config::{Config, HookDef};
use crate::dispatch::{LoadedHook, Placement};
use crate::env::Environment;
use crate::envelope::SessionInfo;
use crate::guard::{self, GuardContext, HookToGuard};
use crate::hook_env;
use crate::record::{self, RecordError, RecordWriter, ResumePlan};
use crate::sandbox;

impl Session {
    /// Loads, validates and guards the hooks and prepares their executors; opens the
    /// session record (`log`, or the default one in [`Mode::Serve`]) or resumes one
    /// (`resume`), and records from then on. When the config defines hooks, a `log` or
    /// `resume` file the agent could write is refused like such a config file
    /// ([`guard::check_record_file`]), and a default record there is not written (a
    /// warning says so).
    pub fn start(mut options: SessionOptions) -> Result<Session, StartError> {
        let resumed = Resumed::open(&options)?;
        if let Some(resumed) = &resumed {
            options.session_id = Some(resumed.plan.session_id.clone());
        }
        let session_id = options.decided_session_id();
        let env = Environment::injected_or_process(options.env.as_deref());
        let plan = resumed.as_ref().map(|r| &r.plan);
        let record = match (plan, &options.log) {
            (Some(plan), _) => Some(plan.file.clone()),
            (None, Some(path)) => Some(path.clone()),
            (None, None) if options.mode == Mode::Serve => record::default_path(&env, &session_id),
            (None, None) => None,
        };
        let (mut session, record_verdict) =
            Session::start_hooks(&options, &env, plan, record.as_deref())?;
        session.default_envelope = options.default_envelope;
        session.owner = options.scope.owner();
        if let Some(resumed) = &resumed {
            session
                .turn
                .seed(resumed.plan.warned_this_turn.iter().cloned());
        }
        let writer = match (resumed, &options.log, record) {
            (Some(resumed), _, _) => {
                Some(resumed.writer(&mut session, record_verdict, &session_id)?)
            }
            (None, Some(log), _) => {
                record_verdict.map_err(refused_record)?;
                Some((RecordWriter::create(log, &session_id)?, None))
            }
            (None, None, Some(default)) => {
                default_record(&default, &mut session, record_verdict, &session_id)
                    .map(|writer| (writer, None))
            }
            (None, None, None) => None,
        };
        if let Some((writer, plan)) = writer {
            session.begin_record(writer, plan.as_ref())?;
        }
        Ok(session)
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
            warned_this_turn: plan.map(|p| p.warned_this_turn.clone()),
            owner: self.owner,
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
    /// verdict on the session's `record` (in the same look at the file system as the
    /// hooks'), checked when the config defines hooks (before a resume keeps only the
    /// recorded ones): what to make of a refusal is the caller's.
    fn start_hooks(
        options: &SessionOptions,
        env: &Environment,
        plan: Option<&ResumePlan>,
        record: Option<&Path>,
    ) -> Result<(Session, Result<(), guard::Refusal>), StartError> {
        let project = match plan.and_then(|p| p.project.as_deref()) {
            // A recorded project that is no longer a folder (moved, deleted) gives way to
            // the call's own: refusing every later call of the session would not protect it.
            Some(recorded) if options.keep_recorded_project && recorded.is_dir() => {
                absolute_project(recorded)?
            }
            _ => absolute_project(&options.project)?,
        };
        let info = session_info(options, &project);
        if options.no_hooks {
            // No box is probed, but the temp folders of killed sessions go all the same.
            let _ =
                super::boxed::sweep_dead_tmps(&env.temp_folder(), options.private_tmp.as_deref());
            let banner = "hooks: off (--no-hooks)".to_string();
            let off = Session::from_parts(info, project, Vec::new(), banner, SessionSandbox::Off);
            return Ok((
                Session {
                    no_hooks: true,
                    ..off
                },
                Ok(()),
            ));
        }
        let mut config = load_config(options, env)?;
        let configured_hooks = !config.hooks.is_empty();
        let skipped = apply_resume_plan(&mut config, plan);

        // The session has a sandbox when a hook of it runs in the box (an argv hook with
        // `sandbox = true`), the OS's box runs here and --no-sandbox is not given; that
        // decides where hooks run and what the guard counts as writable. A session whose
        // hooks are all WASM or host hooks needs no box: it skips the probe (most of a
        // cold start, half of a bridged host hook's call) and, like a session without a
        // sandbox, counts the system temp folders as agent-writable, which only makes
        // the guard stricter; its host hooks still get a sandboxed session's scrubbed
        // PATH (`argv_path_without_box`), so nothing they get is weaker for the skip.
        // Where the OS has no box the probe costs nothing and says so, as before.
        let needs_box = config
            .hooks
            .iter()
            .any(|h| !h.is_wasm() && (h.sandbox || !crate::sandbox::EXISTS_ON_THIS_OS));
        // The homes are for the box alone (its default hide list, its warnings): looked up
        // only where a hook may run in it, since each lookup reads the password database
        // (~2 % of a warm WASM call, BENCHMARKS.md, twentieth sitting).
        let homes = may_box(options, needs_box).then(|| sandbox::Homes::find(env.home_variable()));
        let folders = Folders::new(options, &config, homes.as_ref());
        let sandbox = SessionSandbox::probe(
            options,
            &folders,
            &project,
            env,
            needs_box,
            &info.session_id,
        );
        let mut warnings = config.warnings.clone();
        if project.parent().is_none() {
            warnings.push(ROOT_PROJECT.into());
        }
        let banner_notes = sandbox_lines(&sandbox, options, &config, homes.as_ref(), &mut warnings);

        let guard_ctx = guard_context(options, env, &project, folders, &sandbox);
        if options.scope.is_system() {
            system_config_is_admin_only(&config)?;
        }
        let wasm = WasmHooks::new(
            &config,
            options.mode,
            env,
            options.scope,
            options.engines.clone(),
        );
        let wasm_cache = wasm
            .settings
            .cache_dir
            .as_deref()
            .filter(|_| config.hooks.iter().any(HookDef::is_wasm));
        let (guarded, record_verdict) = guard_session(
            options,
            &config,
            &sandbox,
            &guard_ctx,
            wasm_cache,
            record.filter(|_| configured_hooks),
            configured_hooks,
        )?;
        let hooks = prepare_hooks(
            (env, &options.withheld_from_hooks),
            &config,
            &sandbox,
            &guard_ctx,
            guarded,
            wasm,
            &mut warnings,
        )?;
        warnings.dedup();
        let banner = banner::with_notes(&hooks, banner_notes);
        // Host hooks that will try their namespace at spawn, this process not knowing yet
        // whether it can make one (see `prepare::host_launcher`).
        let namespace_untried = hooks.iter().any(|h| h.placement == Placement::Host)
            && crate::process::HookNamespace::known_failure().is_none();
        let session = Session {
            warnings,
            namespace_untried,
            skipped,
            ..Session::from_parts(info, project, hooks, banner, sandbox)
        };
        Ok((session, record_verdict))
    }
}

/// The project folder, made absolute (empty: the current directory), if it is usable.
/// The warning for a project of `/` (an agent started from the root, or a payload's
/// `cwd` of `/`): every path is then in the project.
pub const ROOT_PROJECT: &str = "⚠ the project is / (the whole file system), so every file counts as in the project: the agent may write everywhere the path guard looks, and hooks' paths are relative to /. Start the agent in the project's folder, or pass --project DIR.";

pub(super) fn absolute_project(project: &Path) -> Result<PathBuf, StartError> {
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

/// What every envelope of the session carries (the id decided by
/// [`SessionOptions::decided_session_id`] before any step runs).
fn session_info(options: &SessionOptions, project: &Path) -> SessionInfo {
    SessionInfo {
        session_id: options.session_id.clone().unwrap_or_default(),
        cwd: project.to_string_lossy().into_owned(),
        permission_mode: options.permission_mode.clone(),
    }
}

/// Load: the config named by `--config`, else the default one (which may be absent).
pub(super) fn load_config(
    options: &SessionOptions,
    env: &Environment,
) -> Result<Config, StartError> {
    match &options.config {
        Some(path) => Ok(Config::load_with_env(path, true, env).map_err(Box::new)?),
        None => {
            let path = env.config_file().ok_or(StartError::NoConfigPath)?;
            Ok(Config::load_with_env(&path, false, env).map_err(Box::new)?)
        }
    }
}

/// Resume plan: a crash resume that keeps the recorded hooks runs only those unchanged
/// since; returns the recorded hooks it does not run (the config's warnings say why).
fn apply_resume_plan(config: &mut Config, plan: Option<&ResumePlan>) -> Vec<HookDef> {
    let Some(plan) = plan.filter(|p| p.keeps_recorded()) else {
        return Vec::new();
    };
    let (kept, dropped, lines) = plan.apply(&config.hooks);
    config.hooks = kept;
    config.warnings.extend(lines);
    dropped
}

/// The sandbox's start-up lines: a box that cannot run is said in the banner and in the
/// warnings (returned: the banner's notes), one that hides or confines less than it
/// should in the warnings.
fn sandbox_lines(
    sandbox: &SessionSandbox,
    options: &SessionOptions,
    config: &Config,
    homes: Option<&sandbox::Homes>,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut banner_notes = Vec::new();
    if let SessionSandbox::Unavailable(why) = sandbox {
        let line = format!("⚠ {why}");
        banner_notes.push(line.clone());
        warnings.push(line);
    }
    warnings.extend(sandbox.warnings(options, config, homes));
    banner_notes
}

/// The guard's view of the session: what the agent can write, what the box hides.
fn guard_context(
    options: &SessionOptions,
    env: &Environment,
    project: &Path,
    folders: Folders,
    sandbox: &SessionSandbox,
) -> GuardContext {
    GuardContext {
        project: project.to_path_buf(),
        private_tmp: options.private_tmp.clone(),
        writable: folders.writable,
        sandboxed_session: sandbox.spec().is_some(),
        agent_outside_box: options.agent_outside_box,
        hidden: folders.hide,
        path_env: env.get("PATH").map(OsStr::to_os_string),
        tmpdir_env: env
            .get(crate::platform::sys::file_system::TEMP_ENV)
            .map(PathBuf::from),
        admin_only: options.scope.is_system(),
    }
}

/// System scope: the config file must be root's alone, hooks or none
/// (docs/contract.md#system-mode); a system config without hooks is still the
/// administrator's word that there are none.
fn system_config_is_admin_only(config: &Config) -> Result<(), StartError> {
    let Some(path) = &config.path else {
        return Err(StartError::Refused(vec![
            "the system config has no file, so this call was blocked.".into(),
        ]));
    };
    guard::check_admin_only_as(guard::Who::Config, path)
        .map_err(|refusal| StartError::Refused(vec![refusal.to_string()]))
}

/// The compile cache a session with WASM hooks loads from: the user's, refused where the
/// agent or others could write it; the system scope's, refused unless it is root's alone,
/// and when it is missing, named with what to run (filling it, it is made first).
fn check_wasm_cache(scope: Scope, guard_ctx: &GuardContext, dir: &Path) -> Result<(), StartError> {
    let refused = |refusal: guard::Refusal| StartError::Refused(vec![refusal.to_string()]);
    match scope {
        Scope::User => guard::check_cache_dir(guard_ctx, dir).map_err(refused),
        Scope::System { fill_cache } => {
            if fill_cache {
                crate::platform::sys::system_scope::make_admin_folder(dir).map_err(|e| {
                    StartError::Refused(vec![format!(
                        "the system compile cache {} cannot be made: {e}",
                        dir.display()
                    )])
                })?;
            } else if std::fs::symlink_metadata(dir).is_err() {
                return Err(StartError::Refused(vec![format!(
                    "the system compile cache {} does not exist, and hookhost bridge --system never compiles a WASM hook inside an agent's call, so this call was blocked. An administrator must run `{}`, which compiles the system hooks into it.",
                    dir.display(),
                    crate::system::CHECK_COMMAND
                )]));
            }
            guard::check_admin_only_as(guard::Who::CacheDir, dir).map_err(refused)
        }
    }
}

/// What the guard passed: each hook's program (absolute), in order, and the PATH an argv
/// hook gets.
struct Guarded {
    programs: Vec<PathBuf>,
    hook_path: Option<OsString>,
}

/// Guard: the config file, every hook, a host hook's PATH, the user's compile cache
/// (`cache_dir`, when a WASM hook uses it) and the session's `record` (its verdict kept
/// for the caller), as one look at the file system ([`guard::one_look`]: a folder or
/// path that several of them pass is asked of it once). Nothing is written meanwhile:
/// the system scope's compile cache, which `check --system` makes when it is missing,
/// is checked after.
fn guard_session(
    options: &SessionOptions,
    config: &Config,
    sandbox: &SessionSandbox,
    guard_ctx: &GuardContext,
    cache_dir: Option<&Path>,
    record: Option<&Path>,
    configured_hooks: bool,
) -> Result<(Guarded, Result<(), guard::Refusal>), StartError> {
    let guarded = guard::one_look(|| {
        let programs = run_guard(guard_ctx, config, configured_hooks)?;
        if let (Some(dir), Scope::User) = (cache_dir, options.scope) {
            check_wasm_cache(options.scope, guard_ctx, dir)?;
        }
        let record = record.map_or(Ok(()), |path| guard::check_record_file(guard_ctx, path));
        let hook_path = if argv_path_without_box(options, config, sandbox) {
            // As a sandboxed session scrubs it: see `needs_box` in `start_hooks`.
            guard::scrub_path_for_argv_hooks(&GuardContext {
                sandboxed_session: true,
                ..guard_ctx.clone()
            })
        } else {
            guard::scrub_path_for_argv_hooks(guard_ctx)
        };
        Ok::<_, StartError>((
            Guarded {
                programs,
                hook_path,
            },
            record,
        ))
    })?;
    if let (Some(dir), Scope::System { .. }) = (cache_dir, options.scope) {
        check_wasm_cache(options.scope, guard_ctx, dir)?;
    }
    Ok(guarded)
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
        .map(|h| HookToGuard::new(&h.name, &h.command, h.sandbox, h.is_wasm()))
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

/// Prepare hooks: every hook's executor, in file order, from what the guard passed; a
/// WASM hook that imports the network is refused. Argv hooks get `env` less what
/// [`hook_env`] withholds and the names `withheld` (the session's `withheld_from_hooks`)
/// that `keep_env` does not name.
fn prepare_hooks(
    (env, withheld): (&Environment, &[OsString]),
    config: &Config,
    sandbox: &SessionSandbox,
    guard_ctx: &GuardContext,
    guarded: Guarded,
    mut wasm: WasmHooks,
    warnings: &mut Vec<String>,
) -> Result<Vec<LoadedHook>, StartError> {
    let project = &guard_ctx.project;
    // Only argv hooks get an environment (a WASM hook gets none): a session of WASM hooks
    // alone matches no variable against the rules (each against ~100 name patterns).
    let mut hook_env = Vec::new();
    if config.hooks.iter().any(|h| !h.is_wasm()) {
        hook_env = hook_env::scrubbed(env.vars().iter().cloned(), &config.sandbox.env);
        // `keep_env` is the user's word for a name their hooks need.
        let kept = &config.sandbox.env.keep;
        hook_env.retain(|(name, _)| {
            !withheld.contains(name) || kept.iter().any(|k| std::ffi::OsStr::new(k) == name)
        });
    }
    let Guarded {
        programs,
        hook_path,
    } = guarded;
    let host_launcher = host_launcher(config, sandbox, warnings);
    let wasm_hooks = config.hooks.iter().zip(&programs);
    let wasm_hooks = wasm_hooks.filter(|(def, _)| def.is_wasm());
    wasm.prepare_ahead(wasm_hooks.map(|(def, p)| (def, p.as_path())), project);
    let mut hooks = Vec::with_capacity(config.hooks.len());
    for (def, program) in config.hooks.iter().zip(programs) {
        if def.is_wasm() {
            let (hook, hook_warnings) = wasm
                .prepare(def, &program, project)
                .map_err(|refusal| StartError::Refused(vec![refusal]))?;
            warnings.extend(hook_warnings);
            hooks.push(hook);
            continue;
        }
        hooks.push(prepare_argv_hook(
            def,
            program,
            project,
            sandbox,
            &host_launcher,
            &hook_env,
            hook_path.as_ref(),
        ));
    }
    Ok(hooks)
}

/// Whether the session has no box only because none of its hooks runs in one (no probe,
/// no `--no-sandbox`), and has host hooks: they get the PATH a sandboxed session gives
/// them, scrubbed of what the agent can write, as they did when every session with an
/// argv hook probed the box.
fn argv_path_without_box(
    options: &SessionOptions,
    config: &Config,
    sandbox: &SessionSandbox,
) -> bool {
    crate::sandbox::EXISTS_ON_THIS_OS
        && !options.no_sandbox
        && matches!(sandbox, SessionSandbox::Off)
        && config.hooks.iter().any(|h| !h.is_wasm())
}

/// A session record being resumed: the file (open for appending), the plan read from
/// it, and the warning when someone else could write it.
struct Resumed {
    file: record::LockedRecord,
    plan: ResumePlan,
    exposed: Option<String>,
}

impl Resumed {
    /// Opens and reads `--resume`'s record; `None` when the session is not a resume. A
    /// `--log` naming another file is an error.
    fn open(options: &SessionOptions) -> Result<Option<Resumed>, StartError> {
        let Some(from) = &options.resume else {
            return Ok(None);
        };
        if let Some(log) = options.log.as_ref().filter(|log| **log != from.file) {
            return Err(RecordError::LogMismatch {
                log: log.clone(),
                resume: from.file.clone(),
            }
            .into());
        }
        let (file, reading, exposed) = RecordWriter::resume(&from.file, !from.clean)?;
        let plan = ResumePlan::new(from, &reading)?;
        Ok(Some(Resumed {
            file,
            plan,
            exposed,
        }))
    }

    /// The writer that appends to the resumed record, once the guard has passed it. The
    /// resume's own lines (killed hooks, notes, who else can write it) go first among
    /// the session's warnings.
    fn writer(
        self,
        session: &mut Session,
        verdict: Result<(), guard::Refusal>,
        session_id: &str,
    ) -> Result<(RecordWriter, Option<ResumePlan>), StartError> {
        let Resumed {
            file,
            plan,
            exposed,
        } = self;
        verdict.map_err(refused_record)?;
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
        first.append(&mut session.warnings);
        session.warnings = first;
        Ok((
            RecordWriter::resumed(&plan.file, session_id, file, plan.last_line_digest.clone())?,
            Some(plan),
        ))
    }
}

/// A record the agent could change is refused like a config it could change: a resume
/// trusts the hooks it lists. Nothing is written before the guard's verdict on it.
fn refused_record(refusal: guard::Refusal) -> StartError {
    StartError::Refused(vec![refusal.to_string()])
}

/// The default record of a [`Mode::Serve`] session, at `path`. It is not the user's
/// choice: one the agent could change (`verdict`) is not written (a warning says so),
/// rather than refused.
fn default_record(
    path: &Path,
    session: &mut Session,
    verdict: Result<(), guard::Refusal>,
    session_id: &str,
) -> Option<RecordWriter> {
    let created = verdict
        .map_err(|r| r.to_string())
        .and_then(|()| RecordWriter::create(path, session_id).map_err(|e| e.to_string()));
    match created {
        Ok(writer) => Some(writer),
        Err(e) => {
            session
                .warnings
                .push(format!("⚠ {e} This session is not recorded."));
            None
        }
    }
}
