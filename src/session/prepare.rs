//! Preparing each hook's executor at start: WASM hooks compiled (or loaded from the
//! cache) and pre-linked on the session's engine, argv hooks given their argv,
//! environment, folder and launcher (the box, or the host, in a PID namespace of the
//! session's own where one can be made).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::Mode;
use super::boxed::SessionSandbox;
use super::options::Scope;
use crate::config::{Config, HookDef};
use crate::dispatch::{LoadedHook, Placement};
use crate::env::Environment;
use crate::executor::argv::{ArgvExecutor, HostLauncher, IsolatedHostLauncher, Launcher};
use crate::executor::wasm::{
    CacheAccess, EngineShelf, Request, WasmEngine, WasmError, WasmExecutor, WasmSettings,
};
use crate::executor::{Executor, Unstartable};

/// The session's WASM engine (made on first use) and its settings.
pub(super) struct WasmHooks {
    pub(super) settings: WasmSettings,
    mode: Mode,
    /// Where the engine comes from when the process keeps engines across sessions.
    shelf: Option<EngineShelf>,
    engine: Option<Result<WasmEngine, String>>,
    /// The programs this start has prepared, by path: a second hook of the same file
    /// shares the first's program without reading and hashing the file again (this
    /// lives for one start only, so a later start reads the file afresh).
    by_path: HashMap<PathBuf, Arc<WasmExecutor>>,
    /// The programs [`WasmHooks::prepare_ahead`] prepared, by path, each for the first
    /// hook of its file, which takes it (result and all) when its turn comes.
    ahead: HashMap<PathBuf, Result<WasmExecutor, WasmError>>,
}

impl WasmHooks {
    /// The engine's settings from the config, and the compile cache `scope` uses: the
    /// system scope's is fixed (docs/contract.md#system-mode), only read unless
    /// `hookhost check --system` fills it; the user's is `[wasm] cache_dir`, else the
    /// environment's default.
    pub(super) fn new(
        config: &Config,
        mode: Mode,
        env: &Environment,
        scope: Scope,
        shelf: Option<EngineShelf>,
    ) -> WasmHooks {
        let defaults = WasmSettings::default();
        let (cache_dir, cache_access) = match scope {
            Scope::System { fill_cache } => (
                Some(PathBuf::from(crate::platform::sys::system_scope::CACHE)),
                match fill_cache {
                    true => CacheAccess::Shared,
                    false => CacheAccess::ReadOnly,
                },
            ),
            Scope::User => (
                config
                    .wasm
                    .cache_dir
                    .clone()
                    .or_else(|| env.wasm_cache_dir()),
                CacheAccess::Private,
            ),
        };
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
                compile_deadline: config
                    .wasm
                    .compile_timeout
                    .map_or(defaults.compile_deadline, Duration::from_secs),
                cache_access,
            },
            mode,
            shelf,
            engine: None,
            by_path: HashMap::new(),
            ahead: HashMap::new(),
        }
    }

    /// Compiles (or loads) and pre-links a WASM hook. One that cannot be compiled or
    /// linked (an import the host does not provide, say) becomes a hook whose every run
    /// fails with "could not start: …", and a start-up warning says so.
    /// The compile cache's warnings (a damaged cache file compiled again, a cache that
    /// cannot be written) become start-up warnings too. The error: a read-only cache (the
    /// system scope's) without the hook's entry, which refuses the start, so that the
    /// call is denied within its budget with what to run.
    pub(super) fn prepare(
        &mut self,
        def: &HookDef,
        program: &Path,
        project: &Path,
    ) -> Result<(LoadedHook, Vec<String>), String> {
        let (executor, warnings): (Arc<dyn Executor>, Vec<String>) =
            match self.compile(def, program, project) {
                Ok(executor) => {
                    let cache = executor.cache_warnings().iter().map(|w| format!("⚠ {w}"));
                    let cache = cache.collect();
                    (executor, cache)
                }
                Err(e @ WasmError::NotCached { .. }) => {
                    return Err(format!("hook {}: {e}.", def.name));
                }
                Err(e) => {
                    let why = e.to_string();
                    (
                        Arc::new(Unstartable(why.clone())),
                        vec![format!("⚠ hook {} could not start: {why}", def.name)],
                    )
                }
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

    /// Prepares the programs of `hooks` (WASM hooks with their absolute programs, in
    /// config order) in parallel ([`WasmEngine::prepare_many`]) when there are two
    /// files or more not prepared yet, each for the first hook of its file: then each
    /// hook's [`WasmHooks::prepare`] gives what it would have given in turn, in turn
    /// (its warnings, its error, the first refusal). With one file, nothing is done
    /// here: it is prepared on the calling thread when its hook's turn comes.
    pub(super) fn prepare_ahead<'a>(
        &mut self,
        hooks: impl IntoIterator<Item = (&'a HookDef, &'a Path)>,
        project: &Path,
    ) {
        let mut firsts: Vec<(&HookDef, &Path)> = Vec::new();
        for (def, program) in hooks {
            let known = self.by_path.contains_key(program) || self.ahead.contains_key(program);
            if !known && !firsts.iter().any(|(_, p)| *p == program) {
                firsts.push((def, program));
            }
        }
        if firsts.len() < 2 {
            return;
        }
        let Ok(engine) = self.engine() else {
            return; // each hook says so in turn
        };
        let requests: Vec<Request<'_>> = firsts
            .iter()
            .map(|(def, program)| Request {
                wasm: program,
                args: &def.command[1..],
                project,
                timeout: def.timeout(),
            })
            .collect();
        let results = engine.prepare_many(&requests);
        for ((_, program), result) in firsts.into_iter().zip(results) {
            self.ahead.insert(program.to_path_buf(), result);
        }
    }

    /// The session's engine, made on first use (or why it cannot be).
    fn engine(&mut self) -> Result<&WasmEngine, WasmError> {
        // The engine's own message is kept, so that re-wrapping it below says it once.
        let engine = self.engine.get_or_insert_with(|| {
            let made = match &self.shelf {
                Some(shelf) => shelf.engine(&self.settings),
                None => WasmEngine::new(&self.settings, self.mode),
            };
            made.map_err(|e| match e {
                WasmError::Engine(message) => message,
                other => other.to_string(),
            })
        });
        match engine {
            Ok(engine) => Ok(engine),
            Err(e) => Err(WasmError::Engine(e.clone())),
        }
    }

    /// [`WasmHooks::prepare`]'s compile and link, on the engine made on first use; the
    /// error is why the hook cannot start (every run fails with "could not start: " and it).
    fn compile(
        &mut self,
        def: &HookDef,
        program: &Path,
        project: &Path,
    ) -> Result<Arc<WasmExecutor>, WasmError> {
        if let Some(first) = self.by_path.get(program) {
            let args = &def.command[1..];
            return first
                .for_another_hook(args, project, def.timeout())
                .map(Arc::new);
        }
        let executor = match self.ahead.remove(program) {
            Some(prepared) => Arc::new(prepared?),
            None => Arc::new(self.engine()?.prepare(
                program,
                &def.command[1..],
                project,
                def.timeout(),
            )?),
        };
        self.by_path
            .insert(program.to_path_buf(), Arc::clone(&executor));
        Ok(executor)
    }
}

/// How this session starts host hooks: in a PID namespace of their own where this
/// process can make one, else directly, with a warning that says why (once per start).
///
/// Nothing is probed here: each hook's spawn tries the namespace, and one whose set-up
/// fails before exec starts the hook without it ([`IsolatedHostLauncher`]). A process
/// that knows already that it cannot make one (this OS has none, or a probe or spawn
/// found out) warns now; otherwise the session's start-up warnings ask at the first
/// look ([`super::Session::warnings`]), so that what is shown before any hook runs is as
/// with an up-front probe, and the bridge, which shows none, pays for no probe.
pub(super) fn host_launcher(
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
    match crate::process::HookNamespace::at_spawn() {
        Ok(namespace) => Arc::new(IsolatedHostLauncher::new(namespace)),
        Err(why) => {
            warnings.push(crate::process::no_namespace_warning(&why));
            Arc::new(HostLauncher)
        }
    }
}

pub(super) fn prepare_argv_hook(
    def: &HookDef,
    program: PathBuf,
    project: &Path,
    sandbox: &SessionSandbox,
    host_launcher: &Arc<dyn Launcher>,
    hook_env: &[(OsString, OsString)],
    path: Option<&OsString>,
) -> LoadedHook {
    let mut argv: Vec<OsString> = vec![program.into_os_string()];
    argv.extend(def.command[1..].iter().map(OsString::from));
    let mut env = hook_env.to_vec();
    let boxed = sandbox.spec().filter(|_| def.sandbox);
    // In a sandboxed session every argv hook, on the host or in the box, gets the
    // scrubbed PATH (none at all when nothing is left): a program the agent plants in a
    // folder of the project on PATH is not found by name, though the box sees the
    // project read-only (docs/threats.md#n11). In a session without a sandbox PATH is
    // as is.
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
