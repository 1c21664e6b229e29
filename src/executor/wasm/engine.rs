//! The engine: wasmtime's configuration (fuel and epoch instrumentation, the allocator
//! each [`EngineMode`] asks for, the page-scan reset of pooled memory), the `[wasm]`
//! settings and their defaults (with how the fuel rate was calibrated), the epoch
//! ticker, and preparing a program: compiling it (or loading it from the cache) once
//! per engine and pre-linking it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use wasmtime::component::Component;
use wasmtime::{
    Config, Enabled, Engine, EngineWeak, InstanceAllocationStrategy, Module,
    PoolingAllocationConfig,
};
use wasmtime_wasi::p2::bindings::CommandPre;

use super::cache;
use super::limits::{ADMISSION_UNITS, PoolFootprint, PoolTotals, fuel_for, store_caps};
use super::link::{
    check_component_imports, check_imports_before_compiling, check_module_imports, link_hook_world,
    link_preview1, open_project,
};
use super::run::{ComponentState, ModuleState};
use super::{WasmError, WasmExecutor};

/// The default memory cap of one run, in MiB (`[wasm] memory_limit_mib`).
pub const DEFAULT_MEMORY_LIMIT_MIB: u64 = 64;

/// The default fuel a hook gets per second of its timeout (`[wasm] fuel_per_second`).
///
/// Measured on this project's kind of machine (2 vCPU AMD EPYC shared with other builds,
/// wasmtime 48.0.8, Cranelift, fuel + epoch instrumentation) by the ignored test
/// `calibrate_fuel_per_second`, which times how long a busy-loop guest takes to burn a
/// known amount of fuel: the `fixture loop` guest (Rust, `opt-level = "s"`) burned
/// 0.89–1.36 × 10¹⁰ fuel per wall second, typically 1.15 × 10¹⁰, as a wasip1 module and
/// as a wasip2 component alike. (Compiled Rust burns fuel fast because `local.get`/`set`
/// cost fuel but no machine time; the research notes measured 1.5–2 × 10¹⁰ for a
/// serde_json hook. A degenerate `loop br 0` burns only ~1.1 × 10⁹.)
///
/// 10¹⁰ sits just under the typical compiled-code rate: a busy hook runs out of fuel
/// (deterministically) at roughly 0.75–0.9 × its timeout on an idle machine (0.74 s for
/// a 1 s timeout in `tests/it/wasm.rs`); code that burns fuel more slowly, or a loaded
/// machine, meets the wall-clock backstop at 1.25 × the timeout instead. Either way the
/// result is "timed out".
pub const DEFAULT_FUEL_PER_SECOND: u64 = 10_000_000_000;

/// How much dirty memory of a pooled slot is reset by copying pages back rather than
/// by `madvise` (see the pooling settings in [`WasmEngine::new`]).
const KEEP_RESIDENT: usize = 1 << 20;

/// How often the epoch ticker advances the engine's epoch.
pub(super) const TICK: Duration = Duration::from_millis(10);

/// The `[wasm]` settings of the user config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WasmSettings {
    /// The most memory one run may use, in MiB.
    pub memory_limit_mib: u64,
    /// The fuel a hook gets per second of its timeout.
    pub fuel_per_second: u64,
    /// Where compiled artifacts are cached; `None` compiles every time.
    ///
    /// The caller must have checked (path guard) that it is private to the user and not
    /// writable by the agent: artifacts are native code, loaded without verification.
    pub cache_dir: Option<PathBuf>,
    /// The longest a program may take to compile at start. A load from the cache is not
    /// under it: it runs on the calling thread, bounded by the artifact's size.
    pub compile_deadline: Duration,
    /// Whether the cache is written, and how (the user's private one, or the system one).
    pub cache_access: CacheAccess,
}

/// How a session uses its compile cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheAccess {
    /// Read, and written with private modes (0700 folder, 0600 files): the user's cache.
    #[default]
    Private,
    /// Read, and written so that every user can read it (0755, 0644): the system cache,
    /// filled by `hookhost check --system` as root.
    Shared,
    /// Only read: a program without a usable entry is [`super::WasmError::NotCached`],
    /// never compiled (the bridge in system mode).
    ReadOnly,
}

/// The default [`WasmSettings::compile_deadline`].
///
/// Without one, a module built to be slow to compile (300,000 small functions in 7.9 MB)
/// held the start for 51 s and 1.9 GB here, with nothing said (security review F16).
/// CPython and StarlingMonkey as components (18 and 13 MB) compile in 9 and 11 s on 2
/// cores (release build; three times that in a debug build), so the default leaves a slow
/// machine room for them; `[wasm] compile_timeout` (seconds) tightens it, to 20 s say,
/// which stops that bomb.
pub const DEFAULT_COMPILE_DEADLINE: Duration = Duration::from_secs(120);

impl Default for WasmSettings {
    fn default() -> Self {
        WasmSettings {
            memory_limit_mib: DEFAULT_MEMORY_LIMIT_MIB,
            fuel_per_second: DEFAULT_FUEL_PER_SECOND,
            cache_dir: None,
            compile_deadline: DEFAULT_COMPILE_DEADLINE,
            cache_access: CacheAccess::Private,
        }
    }
}

/// How long the engine lives, which decides how it allocates instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineMode {
    /// One hook call per process (`pre-tool-use`, `prompt`): on-demand allocation, which
    /// costs nothing to set up.
    #[default]
    OneShot,
    /// A long-lived process (`serve`): the pooling allocator, whose setup (reserving
    /// address space) pays for itself over many calls.
    Serve,
}

/// The one wasmtime engine of a process, with its linkers and epoch ticker (each made
/// when first needed: a session of core modules never builds the component linker, and
/// no ticker runs before a guest does).
///
/// Cheap to clone (shared); every [`WasmExecutor`] it prepares keeps it alive.
#[derive(Clone)]
pub struct WasmEngine {
    pub(super) inner: Arc<EngineInner>,
}

/// What a [`WasmEngine`] shares with the executors it prepares.
pub(super) struct EngineInner {
    pub(super) engine: Engine,
    /// The preview-1 linker, built when the first core module is prepared (or why it
    /// could not be).
    module_linker: OnceLock<Result<wasmtime::Linker<ModuleState>, String>>,
    /// The hook world's linker (WASI p2, wasi:http), built when the first component is
    /// prepared: the larger of the two, and one a session of core modules never needs.
    component_linker: OnceLock<Result<wasmtime::component::Linker<ComponentState>, String>>,
    pub(super) settings: WasmSettings,
    /// The epoch ticker, started by the first run ([`EngineInner::start_ticker`]): the
    /// epoch matters only while a guest runs (each run's wall-clock deadline is checked
    /// at its ticks), so nothing is lost by not ticking before one does.
    ticker: OnceLock<Ticker>,
    /// The programs this engine has prepared, by the SHA-256 of their bytes: hooks that
    /// run the same file (often with different arguments) share one compiled program,
    /// so its code is loaded once and stays warm in the CPU's caches.
    programs: Mutex<HashMap<cache::ProgramDigest, Prepared>>,
    /// Whether pooled memory is reset by page scan (see [`page_scan_is_sound`]).
    reset_by_page_scan: bool,
    /// How many compile threads were started (a cache hit starts none; the tests read
    /// it through `compile_threads_started`).
    compile_threads: AtomicUsize,
    /// Admission to the pool ([`SERVE_POOL`]): [`ADMISSION_UNITS`] permits, of which a
    /// run takes its program's [`Prepared::permits`] for its length, so that a burst
    /// waits for room instead of failing with wasmtime's "maximum concurrent limit …
    /// reached"; `None` with the on-demand allocator, which has no such limit.
    pub(super) run_slots: Option<Arc<tokio::sync::Semaphore>>,
    /// `serve`'s pool for the guests' blocking calls (see `blocking`); `None` otherwise.
    pub(super) guest_pool: Option<super::blocking::GuestPool>,
}

/// A program compiled (or loaded from the cache) and pre-linked, and where it came from.
#[derive(Clone)]
struct Prepared {
    /// The program (declared before `backing`, which must outlive it).
    program: Program,
    from_cache: bool,
    cache_file: Option<PathBuf>,
    /// It imports network interfaces (linked, every use denied).
    network: bool,
    /// What one run holds of the pool.
    footprint: PoolFootprint,
    /// The admission permits one run takes ([`PoolTotals::admission`]; 0 where the
    /// engine has no pool).
    permits: u32,
    /// The memory the program runs from when it was loaded in place ([`cache::Backing`]).
    backing: Option<cache::Backing>,
}

/// Stops the epoch ticker thread when the engine goes away.
struct Ticker {
    stop: Arc<AtomicBool>,
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Ticker {
    fn start(engine: EngineWeak) -> std::io::Result<Ticker> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        std::thread::Builder::new()
            .name("hookhost-wasm-epoch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(TICK);
                    match engine.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })?;
        Ok(Ticker { stop })
    }
}

/// What `serve`'s pooling allocator holds across all runs at once. A run holds one
/// stack, and one component instance if it is a component, so at most 64 run at once.
/// Per run, a Rust core module takes 1 core instance, 1 memory and 1 table; a Rust
/// wasip2 component 3, 1 and 2; componentize-js's 4, 1 and 2; componentize-py's 14, 1
/// and 2 (counted by `pool_footprint_is_what_a_run_holds`). Runs are admitted by what
/// they take of each ([`PoolTotals::admission`]), never by their number alone; the rest
/// wait: so 18 Python runs at once (14 × 18 of 256 core instances), 64 of the others.
///
/// Core instances are only counted by wasmtime (nothing is reserved for them), but more
/// of them would not make a burst faster: with 1,024, 64 Python runs at once answered
/// 2,000 calls no sooner on 2 cores (8.4 s against 8.1–9.4 s) and peaked at 748 MiB of
/// RSS against 479 (`cargo bench --bench serve_throughput -- burst-languages`).
pub(super) const SERVE_POOL: PoolTotals = PoolTotals {
    core_instances: 256,
    memories: 128,
    tables: 256,
    component_instances: POOL_RUNS as u32,
    stacks: POOL_RUNS as u32,
};

/// The most WASM runs at once in `serve`: one fiber stack each.
pub(super) const POOL_RUNS: usize = 64;

impl WasmEngine {
    /// Creates the engine: fuel and epoch instrumentation and the allocator `mode` asks
    /// for. The linkers are built when a program of their kind is first prepared, and the
    /// epoch ticker thread (which ends with the engine) starts with the first run.
    pub fn new(settings: &WasmSettings, mode: EngineMode) -> Result<Self, WasmError> {
        let engine_error = |e: wasmtime::Error| WasmError::Engine(format!("{e:#}"));
        let mut config = Config::new();
        config.consume_fuel(true).epoch_interruption(true);
        // No wasm backtraces: every run ends in an error (`proc_exit` raises `I32Exit`,
        // even for status 0), and capturing and symbolicating a backtrace for it was the
        // largest single cost of a warm run. Failures are read from the trap code and
        // the error itself, never from a backtrace.
        config.wasm_backtrace_max_frames(None);
        // Where a cache hit runs from the mapping of its file, code is made executable by
        // hookhost's publisher (see `cache::code_memory`); elsewhere by wasmtime.
        config.with_custom_code_memory(cache::code_memory());
        let reset_by_page_scan = mode == EngineMode::Serve && page_scan_is_sound();
        if mode == EngineMode::Serve {
            let memory = usize::try_from(settings.memory_limit_mib.saturating_mul(1 << 20))
                .unwrap_or(usize::MAX);
            let mut pool = PoolingAllocationConfig::new();
            pool.total_component_instances(SERVE_POOL.component_instances)
                .total_core_instances(SERVE_POOL.core_instances)
                .total_memories(SERVE_POOL.memories)
                .total_tables(SERVE_POOL.tables)
                .total_stacks(SERVE_POOL.stacks)
                // wasmtime's own check, at compile, that one component fits the whole
                // pool (backing the count of `prepare`, which refuses one first).
                .max_core_instances_per_component(SERVE_POOL.core_instances)
                .max_memories_per_component(SERVE_POOL.memories)
                .max_tables_per_component(SERVE_POOL.tables)
                .max_memory_size(memory);
            if reset_by_page_scan {
                // Reset a returned slot by copying back only the pages the run wrote
                // (found with Linux's PAGEMAP_SCAN) instead of `madvise`: a hook writes
                // a few dozen pages, and each `madvise` was a syscall plus TLB
                // shootdowns on every core running the host. Beyond 1 MiB of written
                // pages wasmtime still uses `madvise`. Without the scan, keep-resident
                // would memset the first 1 MiB blindly, which costs more than it saves,
                // so it stays off.
                pool.linear_memory_keep_resident(KEEP_RESIDENT)
                    .table_keep_resident(KEEP_RESIDENT)
                    .pagemap_scan(Enabled::Yes);
            }
            config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        }
        let engine = Engine::new(&config).map_err(engine_error)?;
        Ok(WasmEngine {
            inner: Arc::new(EngineInner {
                engine,
                module_linker: OnceLock::new(),
                component_linker: OnceLock::new(),
                settings: settings.clone(),
                ticker: OnceLock::new(),
                programs: Mutex::default(),
                reset_by_page_scan,
                compile_threads: AtomicUsize::new(0),
                run_slots: (mode == EngineMode::Serve)
                    .then(|| Arc::new(tokio::sync::Semaphore::new(ADMISSION_UNITS as usize))),
                guest_pool: if mode == EngineMode::Serve {
                    super::blocking::GuestPool::get()
                } else {
                    None
                },
            }),
        })
    }

    /// Compiles the program at `wasm` (or loads it from the cache), checks its imports,
    /// and pre-links it, ready to run with `args` (`command[1..]`) against `project`
    /// under `timeout`. Errors name the file.
    ///
    /// A program this engine has already prepared (the same bytes, whatever the file's
    /// name or the arguments) is not compiled or loaded again: the executors share it.
    pub fn prepare(
        &self,
        wasm: &Path,
        args: &[String],
        project: &Path,
        timeout: Duration,
    ) -> Result<WasmExecutor, WasmError> {
        let path = wasm.to_path_buf();
        let bytes =
            crate::access::read_capped(wasm, crate::access::caps::WASM).map_err(|source| {
                WasmError::Read {
                    path: path.clone(),
                    source,
                }
            })?;
        let preopens = open_project(project)?;
        let digest = cache::program_digest(&bytes);
        let known = self.programs().get(&digest).cloned();
        // The cache's warnings go with the first hook that prepares a program only.
        let (prepared, cache_warnings) = match known {
            Some(prepared) => (prepared, Vec::new()),
            None => {
                let (prepared, warnings) = self.compile(&path, bytes, &digest)?;
                self.programs().insert(digest, prepared.clone());
                (prepared, warnings)
            }
        };
        let Prepared {
            program,
            from_cache,
            cache_file,
            network,
            footprint,
            permits,
            backing,
        } = prepared;

        let name = wasm
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| wasm.to_string_lossy().into_owned());
        let mut argv = Vec::with_capacity(args.len() + 1);
        argv.push(name);
        argv.extend(args.iter().cloned());
        let fuel = fuel_for(timeout, self.inner.settings.fuel_per_second);
        Ok(WasmExecutor {
            engine: Arc::clone(&self.inner),
            program,
            argv,
            project: project.to_path_buf(),
            preopens,
            timeout,
            fuel,
            from_cache,
            cache_file,
            cache_warnings,
            network,
            footprint,
            permits,
            backing,
        })
    }

    /// Whether this engine resets pooled memory by copying back only the pages a run
    /// wrote (PAGEMAP_SCAN), rather than with `madvise`: a `serve` engine on Linux 6.7+
    /// with no swap in use.
    pub fn resets_memory_by_page_scan(&self) -> bool {
        self.inner.reset_by_page_scan
    }

    /// How many of the pooling allocator's memory slots have been used and are free
    /// now (`None` for an on-demand engine): runs that reuse slots leave this flat.
    pub fn warm_memory_slots(&self) -> Option<u32> {
        self.inner
            .engine
            .pooling_allocator_metrics()
            .map(|m| m.unused_warm_memories())
    }

    /// The engine's programs, by digest.
    fn programs(&self) -> std::sync::MutexGuard<'_, HashMap<cache::ProgramDigest, Prepared>> {
        // A panic while holding the lock leaves the map whole (inserts are single calls).
        self.inner
            .programs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Which of the parts made on first use exist: the preview-1 linker, the component
    /// linker, the epoch ticker.
    #[cfg(test)]
    pub(super) fn built(&self) -> (bool, bool, bool) {
        let inner = &self.inner;
        (
            inner.module_linker.get().is_some(),
            inner.component_linker.get().is_some(),
            inner.ticker.get().is_some(),
        )
    }

    /// How many compile threads this engine has started: one per program that had to
    /// be compiled, none for a program loaded from the cache.
    #[cfg(test)]
    pub(super) fn compile_threads_started(&self) -> usize {
        self.inner.compile_threads.load(Ordering::Relaxed)
    }

    /// Compiles the program `bytes` (read from `path`) on a thread of its own, given up
    /// after the settings' `compile_deadline`, after a cache [`cache::Lookup::Miss`]. The
    /// thread cannot be stopped: it finishes in the background and its result is dropped
    /// (a session refuses the hook, and a one-shot command exits, which ends it).
    fn compile_within_deadline(
        &self,
        path: &Path,
        bytes: &Arc<Vec<u8>>,
        kind: Kind,
        cache_file: Option<PathBuf>,
        warnings: Vec<String>,
    ) -> Result<wasmtime::Result<Loaded>, WasmError> {
        let deadline = self.inner.settings.compile_deadline;
        let (done, result) = std::sync::mpsc::channel();
        let engine = self.clone();
        let bytes = Arc::clone(bytes);
        self.inner.compile_threads.fetch_add(1, Ordering::Relaxed);
        std::thread::Builder::new()
            .name("hookhost-compile".into())
            .spawn(move || {
                let inner = &engine.inner;
                let (engine, access) = (&inner.engine, inner.settings.cache_access);
                let compiled = match kind {
                    Kind::Module => {
                        cache::compile_and_store(engine, access, &bytes, cache_file, warnings)
                            .map(Loaded::Module)
                    }
                    Kind::Component => {
                        cache::compile_and_store(engine, access, &bytes, cache_file, warnings)
                            .map(Loaded::Component)
                    }
                };
                let _ = done.send(compiled);
            })
            .map_err(|e| WasmError::Engine(format!("cannot start a compiler thread: {e}")))?;
        match result.recv_timeout(deadline) {
            Ok(compiled) => Ok(compiled),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(WasmError::CompileTooSlow {
                path: path.to_path_buf(),
                deadline,
            }),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(WasmError::Compile {
                path: path.to_path_buf(),
                message: "the compiler stopped without an answer".into(),
            }),
        }
    }

    /// Checks the imports (first, so that a program the host cannot link is refused
    /// without being compiled), loads `bytes` (read from `path`) from the cache or
    /// compiles them, and pre-links the program; also returns the cache's warnings.
    ///
    /// A cache hit is loaded here, on the calling thread: a load is bounded by the
    /// artifact's size (and the bridge runs the whole start on a thread it waits for only
    /// until its budget ends), and starting and joining a thread for it cost more than
    /// the load of a small module. Only a compile, which has no such bound (security
    /// review F16), runs on a thread given up after the compile deadline.
    fn compile(
        &self,
        path: &Path,
        bytes: Vec<u8>,
        digest: &cache::ProgramDigest,
    ) -> Result<(Prepared, Vec<String>), WasmError> {
        let path = path.to_path_buf();
        let engine = &self.inner.engine;
        let cache_dir = self.inner.settings.cache_dir.as_deref();
        let access = self.inner.settings.cache_access;
        let compile_error = |e: wasmtime::Error| match e.downcast_ref::<cache::NotCached>() {
            Some(not_cached) => WasmError::NotCached {
                path: path.clone(),
                cache: cache_dir.map(Path::to_path_buf).unwrap_or_default(),
                why: not_cached.0.clone(),
            },
            None => WasmError::Compile {
                path: path.clone(),
                message: format!("{e:#}"),
            },
        };
        let link_error = |e: wasmtime::Error| WasmError::Link {
            path: path.clone(),
            message: format!("{e:#}"),
        };

        let kind = kind_of(&bytes).ok_or_else(|| WasmError::NotWasm { path: path.clone() })?;
        // Refused at once rather than after a compile of seconds (or minutes).
        check_imports_before_compiling(&path, &bytes, kind == Kind::Component)?;
        let looked_up = match kind {
            Kind::Module => cache::lookup::<Module>(engine, cache_dir, access, digest)
                .map(|found| found.map(Loaded::Module)),
            Kind::Component => cache::lookup::<Component>(engine, cache_dir, access, digest)
                .map(|found| found.map(Loaded::Component)),
        }
        .map_err(compile_error)?;
        let bytes = Arc::new(bytes);
        let loaded = match looked_up {
            cache::Lookup::Hit(loaded) => loaded,
            cache::Lookup::Miss {
                cache_file,
                warnings,
            } => self
                .compile_within_deadline(&path, &bytes, kind, cache_file, warnings)?
                .map_err(compile_error)?,
        };

        let mut network = false;
        let footprint;
        // Each arm binds the artifact after `loaded`, so that on every way out the
        // artifact is dropped before the rest of `loaded`, its backing memory included.
        let (program, from_cache, cache_file, warnings, backing) = match loaded {
            Loaded::Module(loaded) => {
                let module = loaded.artifact;
                if module.get_export("_start").is_none() {
                    return Err(WasmError::Link {
                        path,
                        message: "it exports no `_start` (not a WASI command module)".into(),
                    });
                }
                check_module_imports(&path, &module)?;
                footprint = PoolFootprint::of_module(&module);
                let pre = self
                    .inner
                    .module_linker()?
                    .instantiate_pre(&module)
                    .map_err(link_error)?;
                (
                    Program::Module(pre),
                    loaded.from_cache,
                    loaded.cache_file,
                    loaded.warnings,
                    loaded.backing,
                )
            }
            Loaded::Component(loaded) => {
                let component = loaded.artifact;
                network = check_component_imports(&path, engine, &component)?;
                let pooled = self.inner.run_slots.is_some();
                footprint = PoolFootprint::of_component(&component, &bytes, pooled);
                let pre = self
                    .inner
                    .component_linker()?
                    .instantiate_pre(&component)
                    .map_err(link_error)?;
                let pre = CommandPre::new(pre).map_err(|e| WasmError::Link {
                    path: path.clone(),
                    message: format!("it does not export wasi:cli/run: {e:#}"),
                })?;
                (
                    Program::Component(pre),
                    loaded.from_cache,
                    loaded.cache_file,
                    loaded.warnings,
                    loaded.backing,
                )
            }
        };

        // What a run holds, checked against what it may ever hold: a program that could
        // never run is refused here, once, rather than failing every call.
        let too_large = |(needs, limit, kind), within| WasmError::TooLarge {
            path: path.clone(),
            needs,
            kind,
            limit,
            within,
        };
        store_caps(&footprint).map_err(|e| too_large(e, "one run may have"))?;
        let permits = match self.inner.run_slots {
            Some(_) => SERVE_POOL
                .admission(&footprint)
                .map_err(|e| too_large(e, "`serve`'s WASM pool holds for all runs at once"))?,
            None => 0,
        };
        let prepared = Prepared {
            program,
            from_cache,
            cache_file,
            network,
            footprint,
            permits,
            backing,
        };
        Ok((prepared, warnings))
    }
}

impl EngineInner {
    /// The preview-1 linker, built on first use.
    fn module_linker(&self) -> Result<&wasmtime::Linker<ModuleState>, WasmError> {
        self.module_linker
            .get_or_init(|| {
                let mut linker = wasmtime::Linker::new(&self.engine);
                link_preview1(&mut linker)
                    .map(|()| linker)
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| WasmError::Engine(e.clone()))
    }

    /// The hook world's component linker, built on first use.
    fn component_linker(&self) -> Result<&wasmtime::component::Linker<ComponentState>, WasmError> {
        self.component_linker
            .get_or_init(|| {
                let mut linker = wasmtime::component::Linker::new(&self.engine);
                link_hook_world(&mut linker)
                    .map(|()| linker)
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| WasmError::Engine(e.clone()))
    }

    /// Starts the epoch ticker if it is not running yet: called by every run before its
    /// guest starts (in [`super::limits`]'s `arm`), since the run's wall-clock deadline
    /// is checked only at ticks. Two first runs at once may both start one; the one not
    /// kept is dropped, which stops its thread at its next tick.
    pub(super) fn start_ticker(&self) -> std::io::Result<()> {
        if self.ticker.get().is_none() {
            let _ = self.ticker.set(Ticker::start(self.engine.weak())?);
        }
        Ok(())
    }
}

/// A program's artifact from the cache or the compiler, of either kind.
enum Loaded {
    Module(cache::Loaded<Module>),
    Component(cache::Loaded<Component>),
}

/// Whether the pooling allocator may reset memory by PAGEMAP_SCAN: the kernel has the
/// ioctl (Linux 6.7+) and this process could open `/proc/self/pagemap` (see
/// [`crate::process::harden_host_process`]), and no swap is in use.
///
/// Swap matters because wasmtime 48's scan looks for written pages that are *present*:
/// a written page swapped out during a run is neither copied back nor decommitted, so
/// the next run in that slot would read it (bytecodealliance/wasmtime#14357, open).
/// Without swap an anonymous page leaves memory only for the instant the kernel
/// migrates it (compaction); a scan landing in that instant would miss that one page.
/// What could cross is what an earlier WASM run of the session held in memory: hook
/// input and bytes read from the read-only project, both of which every WASM hook of
/// the session can read anyway. Swap turned on later in a long `serve` session is not
/// seen; restart the session after `swapon`.
fn page_scan_is_sound() -> bool {
    PoolingAllocationConfig::is_pagemap_scan_available()
        && !crate::platform::sys::memory::swap_in_use()
}

/// What kind of program a `.wasm` file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A WASI preview 1 core module.
    Module,
    /// A WASI preview 2 component.
    Component,
}

/// Tells a core module from a component by the header.
pub(super) fn kind_of(bytes: &[u8]) -> Option<Kind> {
    match bytes.get(..8)? {
        [0, b'a', b's', b'm', 1, 0, 0, 0] => Some(Kind::Module),
        [0, b'a', b's', b'm', 0x0d, 0, 1, 0] => Some(Kind::Component),
        _ => None,
    }
}

/// A compiled, pre-linked program of either kind.
#[derive(Clone)]
pub(super) enum Program {
    Module(wasmtime::InstancePre<ModuleState>),
    Component(CommandPre<ComponentState>),
}
