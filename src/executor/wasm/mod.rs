//! The WASM executor: hooks that are WebAssembly programs, run in wasmtime with WASI.
//!
//! # What a WASM hook is
//!
//! A hook whose `command[0]` ends in `.wasm` ([`is_wasm_command`]) is one of:
//!
//! - a **WASI preview 1 command module** (`wasm32-wasip1`; header `\0asm 01 00 00 00`),
//!   started through its `_start` export; or
//! - a **WASI preview 2 command component** (`wasm32-wasip2`; header `\0asm 0d 00 01 00`),
//!   started through its `wasi:cli/run` export. It lives in the world `wit/hook.wit`.
//!
//! Either way the hook gets the event JSON as its whole stdin, `argv[0]` = the file name
//! of the `.wasm` file followed by `command[1..]`, no environment variables at all, and
//! one preopened directory: the project, read-only, as `/project`. `/project` is also
//! reported as the initial cwd (`wasi:cli/environment.initial-cwd`), but today's
//! wasi-libc ignores that (p1 has no such notion at all), so relative paths do not
//! resolve: hooks must use absolute `/project/…` paths. stdout and stderr are captured
//! with the same 1 MiB caps as argv hooks.
//!
//! The exit status reads as for argv hooks: `proc_exit(n)` (p1) or
//! `wasi:cli/exit.exit-with-code(n)` (p2) gives `Code(n)`; returning from `_start` is 0;
//! `wasi:cli/exit.exit(err)` and `run` returning `Err(())` are 1. Note that today's
//! wasip2 toolchains (Rust std, wasi-libc before `exit-with-code`) turn every non-zero
//! `exit(n)` into `exit(err)`, i.e. 1: **component hooks should answer with JSON on
//! stdout** (`{"decision":"block","reason":…}`) rather than with exit code 2.
//!
//! # Sandbox
//!
//! Nothing is granted but the above: the project is preopened with
//! [`FsPerms::ReadOnly`] through cap-std (no writes; `..` and symlinks cannot leave it),
//! there are no sockets and no name lookups (wasmtime-wasi 48 denies them by default and
//! this module never enables them), and the component linker holds only the interfaces
//! listed in `wit/hook.wit` ([`HOOK_WORLD_IMPORTS`]). A component that imports
//! `wasi:sockets/*` or `wasi:http/*`, or anything else the host does not provide, is
//! refused when it is prepared, with a message that names the import.
//!
//! # Limits
//!
//! - **Time**: the hook's timeout becomes fuel (`timeout × fuel_per_second`), so a hook
//!   that computes too long runs out deterministically: the same hook on the same input
//!   always passes or always runs out. Wall-clock backstops cover what fuel cannot see (a
//!   guest blocked in `sleep`, a slow machine): an epoch ticker thread advances the
//!   engine's epoch every 10 ms, the store yields to tokio at each tick and traps once
//!   `timeout + slack` has passed, and the whole run sits under `tokio::time::timeout`.
//!   All of these read as [`Failure::TimedOut`].
//! - **Cancellation**: each run races the caller's [`CancellationToken`]; since the guest
//!   yields at every epoch tick, a busy guest is stopped within about 10 ms. Dropping the
//!   run's future drops its `Store`, which is all there is of a WASM run.
//! - **Memory**: all linear memories of one run together may hold at most
//!   `memory_limit_mib`; growing past that traps at once, and the failure says so
//!   ("crashed: memory limit of 64 MiB reached (…)"). Tables are capped likewise.
//!
//! # Speed
//!
//! One [`WasmEngine`] per process compiles each program once, when it is prepared,
//! caching the compiled artifact on disk (see the `cache` module) and pre-linking it into
//! an `InstancePre`; hooks that run the same bytes share that program. Each hook opens
//! the project folder once, when it is prepared, and every run shares that descriptor
//! (so a project folder replaced during a session, renamed away and recreated, is not
//! seen: the hooks keep the one they opened). Each run builds a fresh `Store` and WASI
//! context and instantiates from that: about 11 µs for a trivial hook with `serve`'s
//! pooling allocator when it resets memory by page scan, about 30 µs when it uses
//! `madvise` (see [`WasmEngine::resets_memory_by_page_scan`]).

mod cache;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use wasmtime::component::{Component, HasData, ResourceTable};
use wasmtime::{
    Config, Enabled, Engine, EngineWeak, InstanceAllocationStrategy, Module,
    PoolingAllocationConfig, ResourceLimiter, Store, Trap, UpdateDeadline,
};
use wasmtime_wasi::cli::{WasiCli, WasiCliView};
use wasmtime_wasi::clocks::{WasiClocks, WasiClocksView};
use wasmtime_wasi::filesystem::{WasiFilesystem, WasiFilesystemCtx, WasiFilesystemView};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::bindings::CommandPre;
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi::random::{WasiRandom, WasiRandomCtx};
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use super::{
    BoxFuture, CancellationToken, Executor, ExitStatus, Failure, OUTPUT_CAP, RawOutput, Stream,
};

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
/// a 1 s timeout in `tests/wasm.rs`); code that burns fuel more slowly, or a loaded
/// machine, meets the wall-clock backstop at 1.25 × the timeout instead. Either way the
/// result is "timed out".
pub const DEFAULT_FUEL_PER_SECOND: u64 = 10_000_000_000;

/// How much dirty memory of a pooled slot is reset by copying pages back rather than
/// by `madvise` (see the pooling settings in [`WasmEngine::new`]).
const KEEP_RESIDENT: usize = 1 << 20;

/// How often the epoch ticker advances the engine's epoch.
const TICK: Duration = Duration::from_millis(10);

/// The most table elements one run may hold (all tables together).
const TABLE_ELEMENTS_LIMIT: usize = 1 << 20;

/// The interfaces the host links for components: exactly the imports of the world in
/// `wit/hook.wit` (the unit tests check that the two agree).
pub const HOOK_WORLD_IMPORTS: &[&str] = &[
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/stderr",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:cli/terminal-stderr",
    "wasi:clocks/monotonic-clock",
    "wasi:clocks/wall-clock",
    "wasi:filesystem/types",
    "wasi:filesystem/preopens",
    "wasi:io/error",
    "wasi:io/poll",
    "wasi:io/streams",
    "wasi:random/random",
    "wasi:random/insecure",
    "wasi:random/insecure-seed",
];

/// Interface prefixes a hook may never import, whatever it is: the network.
const FORBIDDEN_PREFIXES: &[&str] = &["wasi:sockets/", "wasi:http/"];

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
}

impl Default for WasmSettings {
    fn default() -> Self {
        WasmSettings {
            memory_limit_mib: DEFAULT_MEMORY_LIMIT_MIB,
            fuel_per_second: DEFAULT_FUEL_PER_SECOND,
            cache_dir: None,
        }
    }
}

/// How long the engine lives, which decides how it allocates instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineMode {
    /// One hook call per process (`pre-tool-use`, `prompt`): on-demand allocation, which
    /// costs nothing to set up.
    OneShot,
    /// A long-lived process (`serve`): the pooling allocator, whose setup (reserving
    /// address space) pays for itself over many calls.
    Serve,
}

/// Why a WASM hook could not be prepared. The `Display` text is what follows
/// "could not start: " in the hook's failure.
#[derive(Debug, thiserror::Error)]
pub enum WasmError {
    /// The engine could not be set up.
    #[error("cannot set up the WASM engine: {0}")]
    Engine(String),
    /// The `.wasm` file could not be read.
    #[error("cannot read {}: {}", .path.display(), crate::access::explain(.path, .source))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a WebAssembly module or component.
    #[error("{} is not a WebAssembly module or component (bad header)", .path.display())]
    NotWasm {
        /// The file.
        path: PathBuf,
    },
    /// The program does not compile (corrupt or unsupported).
    #[error("{} does not compile: {message}", .path.display())]
    Compile {
        /// The file.
        path: PathBuf,
        /// The compiler's error.
        message: String,
    },
    /// The program imports the network.
    #[error("{} imports {import}, which hooks may not use (no network)", .path.display())]
    Forbidden {
        /// The file.
        path: PathBuf,
        /// The import, as the program names it.
        import: String,
    },
    /// The program imports something the host does not provide.
    #[error("{} imports {import}, which the host does not provide (see wit/hook.wit)", .path.display())]
    UnknownImport {
        /// The file.
        path: PathBuf,
        /// The import, as the program names it.
        import: String,
    },
    /// The program cannot be linked (unknown import, wrong type, no entry point).
    #[error("{} cannot be linked: {message}", .path.display())]
    Link {
        /// The file.
        path: PathBuf,
        /// The linker's error, naming what is missing.
        message: String,
    },
    /// The project folder cannot be preopened.
    #[error("the project folder {} cannot be opened: {reason}", .path.display())]
    Project {
        /// The folder.
        path: PathBuf,
        /// Missing, not a folder, or not allowed (see [`crate::access`]).
        reason: String,
    },
}

/// Whether a hook's `command[0]` names a WASM hook.
pub fn is_wasm_command(command0: &str) -> bool {
    command0.ends_with(".wasm")
}

/// The one wasmtime engine of a process, with its linkers and epoch ticker.
///
/// Cheap to clone (shared); every [`WasmExecutor`] it prepares keeps it alive.
#[derive(Clone)]
pub struct WasmEngine {
    inner: Arc<EngineInner>,
}

struct EngineInner {
    engine: Engine,
    module_linker: wasmtime::Linker<ModuleState>,
    component_linker: wasmtime::component::Linker<ComponentState>,
    settings: WasmSettings,
    _ticker: Ticker,
    /// The programs this engine has prepared, by the SHA-256 of their bytes: hooks that
    /// run the same file (often with different arguments) share one compiled program,
    /// so its code is loaded once and stays warm in the CPU's caches.
    programs: Mutex<HashMap<cache::ProgramDigest, Prepared>>,
    /// Whether pooled memory is reset by page scan (see [`page_scan_is_sound`]).
    reset_by_page_scan: bool,
}

/// A program compiled (or loaded from the cache) and pre-linked, and where it came from.
#[derive(Clone)]
struct Prepared {
    program: Program,
    from_cache: bool,
    cache_file: Option<PathBuf>,
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

/// Per-run limits on memory and tables (all memories/tables of the run together).
struct Limits {
    memory_cap: usize,
    memory_used: usize,
    /// Set when a growth was refused: what to tell the user.
    memory_hit: Option<String>,
    table_used: usize,
}

impl Limits {
    fn new(memory_limit_mib: u64) -> Limits {
        let cap = memory_limit_mib
            .saturating_mul(1 << 20)
            .try_into()
            .unwrap_or(usize::MAX);
        Limits {
            memory_cap: cap,
            memory_used: 0,
            memory_hit: None,
            table_used: 0,
        }
    }
}

impl ResourceLimiter for Limits {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let extra = desired.saturating_sub(current);
        match self.memory_used.checked_add(extra) {
            Some(total) if total <= self.memory_cap => {
                self.memory_used = total;
                Ok(true)
            }
            _ => {
                let why = format!(
                    "memory limit of {} MiB reached (asked for {} MiB more with {} MiB in use)",
                    self.memory_cap >> 20,
                    extra.div_ceil(1 << 20),
                    self.memory_used >> 20
                );
                self.memory_hit = Some(why.clone());
                Err(wasmtime::Error::msg(why))
            }
        }
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let extra = desired.saturating_sub(current);
        match self.table_used.checked_add(extra) {
            Some(total) if total <= TABLE_ELEMENTS_LIMIT => {
                self.table_used = total;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn instances(&self) -> usize {
        64
    }

    fn tables(&self) -> usize {
        64
    }

    fn memories(&self) -> usize {
        16
    }
}

/// Store data of a preview 1 module run.
struct ModuleState {
    wasi: WasiP1Ctx,
    limits: Limits,
}

/// Store data of a preview 2 component run.
struct ComponentState {
    ctx: WasiCtx,
    table: ResourceTable,
    limits: Limits,
}

impl WasiView for ComponentState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

/// `HasData` for the `wasi:io` interfaces, which work on the resource table.
struct Io;

impl HasData for Io {
    type Data<'a> = &'a mut ResourceTable;
}

fn io_table(state: &mut ComponentState) -> &mut ResourceTable {
    &mut state.table
}

fn random_ctx(state: &mut ComponentState) -> &mut WasiRandomCtx {
    state.ctx.random()
}

/// Links exactly [`HOOK_WORLD_IMPORTS`], with the async bindings: what
/// `wasmtime_wasi::p2::add_to_linker_async` does, minus `wasi:sockets`.
fn link_hook_world(l: &mut wasmtime::component::Linker<ComponentState>) -> wasmtime::Result<()> {
    use wasmtime_wasi::p2::bindings::{cli, clocks, filesystem, io, random};
    type S = ComponentState;

    io::error::add_to_linker::<S, Io>(l, io_table)?;
    io::poll::add_to_linker::<S, Io>(l, io_table)?;
    io::streams::add_to_linker::<S, Io>(l, io_table)?;
    clocks::wall_clock::add_to_linker::<S, WasiClocks>(l, S::clocks)?;
    clocks::monotonic_clock::add_to_linker::<S, WasiClocks>(l, S::clocks)?;
    filesystem::types::add_to_linker::<S, WasiFilesystem>(l, S::filesystem)?;
    filesystem::preopens::add_to_linker::<S, WasiFilesystem>(l, S::filesystem)?;
    random::random::add_to_linker::<S, WasiRandom>(l, random_ctx)?;
    random::insecure::add_to_linker::<S, WasiRandom>(l, random_ctx)?;
    random::insecure_seed::add_to_linker::<S, WasiRandom>(l, random_ctx)?;
    cli::exit::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::environment::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stdin::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stdout::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stderr::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_input::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_output::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stdin::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stdout::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stderr::add_to_linker::<S, WasiCli>(l, S::cli)?;
    Ok(())
}

/// Links WASI preview 1 (async), with a `proc_exit` that keeps every exit code.
///
/// wasmtime-wasi's own `proc_exit` turns a status ≥ 126 into a plain error that loses
/// the number; this one always raises [`I32Exit`] with the guest's status.
fn link_preview1(l: &mut wasmtime::Linker<ModuleState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p1::add_to_linker_async(l, |s: &mut ModuleState| &mut s.wasi)?;
    l.allow_shadowing(true);
    l.func_wrap(
        "wasi_snapshot_preview1",
        "proc_exit",
        |status: i32| -> wasmtime::Result<()> { Err(wasmtime::Error::new(I32Exit(status))) },
    )?;
    l.allow_shadowing(false);
    Ok(())
}

impl WasmEngine {
    /// Creates the engine: fuel and epoch instrumentation, the allocator `mode` asks for,
    /// the two linkers, and the epoch ticker thread (which ends with the engine).
    pub fn new(settings: &WasmSettings, mode: EngineMode) -> Result<Self, WasmError> {
        let engine_error = |e: wasmtime::Error| WasmError::Engine(format!("{e:#}"));
        let mut config = Config::new();
        config.consume_fuel(true).epoch_interruption(true);
        // No wasm backtraces: every run ends in an error (`proc_exit` raises `I32Exit`,
        // even for status 0), and capturing and symbolicating a backtrace for it was the
        // largest single cost of a warm run. Failures are read from the trap code and
        // the error itself, never from a backtrace.
        config.wasm_backtrace_max_frames(None);
        let reset_by_page_scan = mode == EngineMode::Serve && page_scan_is_sound();
        if mode == EngineMode::Serve {
            let memory = usize::try_from(settings.memory_limit_mib.saturating_mul(1 << 20))
                .unwrap_or(usize::MAX);
            let mut pool = PoolingAllocationConfig::new();
            pool.total_component_instances(64)
                .total_core_instances(256)
                .total_memories(128)
                .total_tables(256)
                .total_stacks(64)
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

        let mut module_linker = wasmtime::Linker::new(&engine);
        link_preview1(&mut module_linker).map_err(engine_error)?;
        let mut component_linker = wasmtime::component::Linker::new(&engine);
        link_hook_world(&mut component_linker).map_err(engine_error)?;

        let ticker = Ticker::start(engine.weak())
            .map_err(|e| WasmError::Engine(format!("cannot start the epoch ticker: {e}")))?;
        Ok(WasmEngine {
            inner: Arc::new(EngineInner {
                engine,
                module_linker,
                component_linker,
                settings: settings.clone(),
                _ticker: ticker,
                programs: Mutex::default(),
                reset_by_page_scan,
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
        let bytes = std::fs::read(wasm).map_err(|source| WasmError::Read {
            path: path.clone(),
            source,
        })?;
        let preopens = open_project(project)?;
        let digest = cache::program_digest(&bytes);
        let known = self.programs().get(&digest).cloned();
        // The cache's warnings go with the first hook that prepares a program only.
        let (prepared, cache_warnings) = match known {
            Some(prepared) => (prepared, Vec::new()),
            None => {
                let (prepared, warnings) = self.compile(&path, &bytes, &digest)?;
                self.programs().insert(digest, prepared.clone());
                (prepared, warnings)
            }
        };
        let Prepared {
            program,
            from_cache,
            cache_file,
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

    /// Compiles `bytes` (read from `path`) or loads them from the cache, checks the
    /// imports, and pre-links the program; also returns the cache's warnings.
    fn compile(
        &self,
        path: &Path,
        bytes: &[u8],
        digest: &cache::ProgramDigest,
    ) -> Result<(Prepared, Vec<String>), WasmError> {
        let path = path.to_path_buf();
        let engine = &self.inner.engine;
        let cache_dir = self.inner.settings.cache_dir.as_deref();
        let compile_error = |e: wasmtime::Error| WasmError::Compile {
            path: path.clone(),
            message: format!("{e:#}"),
        };
        let link_error = |e: wasmtime::Error| WasmError::Link {
            path: path.clone(),
            message: format!("{e:#}"),
        };

        let (program, from_cache, cache_file, warnings) = match kind_of(bytes) {
            None => return Err(WasmError::NotWasm { path }),
            Some(Kind::Module) => {
                let loaded = cache::load_or_compile::<Module>(engine, cache_dir, bytes, digest)
                    .map_err(compile_error)?;
                let module = loaded.artifact;
                if module.get_export("_start").is_none() {
                    return Err(WasmError::Link {
                        path,
                        message: "it exports no `_start` (not a WASI command module)".into(),
                    });
                }
                for import in module.imports() {
                    if import.module() != "wasi_snapshot_preview1" {
                        return Err(WasmError::UnknownImport {
                            path,
                            import: format!("`{}::{}`", import.module(), import.name()),
                        });
                    }
                }
                let pre = self
                    .inner
                    .module_linker
                    .instantiate_pre(&module)
                    .map_err(link_error)?;
                (
                    Program::Module(pre),
                    loaded.from_cache,
                    loaded.cache_file,
                    loaded.warnings,
                )
            }
            Some(Kind::Component) => {
                let loaded = cache::load_or_compile::<Component>(engine, cache_dir, bytes, digest)
                    .map_err(compile_error)?;
                let component = loaded.artifact;
                check_component_imports(&path, engine, &component)?;
                let pre = self
                    .inner
                    .component_linker
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
                )
            }
        };

        let prepared = Prepared {
            program,
            from_cache,
            cache_file,
        };
        Ok((prepared, warnings))
    }
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
    PoolingAllocationConfig::is_pagemap_scan_available() && !swap_in_use(&read_swaps())
}

fn read_swaps() -> String {
    // Unreadable /proc/swaps: assume swap, the safe side.
    std::fs::read_to_string("/proc/swaps").unwrap_or_else(|_| "?\n?".into())
}

/// Whether `/proc/swaps` (a header line, then one line per swap area) lists an area.
fn swap_in_use(swaps: &str) -> bool {
    swaps.lines().skip(1).any(|line| !line.trim().is_empty())
}

/// Opens `project` once, as the read-only `/project` preopen every run of a hook shares.
///
/// Opening it per run walked the whole path each time (a tenth of a warm run). Sharing
/// the descriptor is safe: every guest access is relative to it (`openat` and friends
/// through wasmtime-wasi's sandboxed primitives), and directory listings open a
/// descriptor of their own, so runs never share a position.
fn open_project(project: &Path) -> Result<WasiFilesystemCtx, WasmError> {
    let refused = |reason: String| WasmError::Project {
        path: project.to_path_buf(),
        reason,
    };
    if let Some(reason) = crate::access::folder_problem(project) {
        return Err(refused(reason));
    }
    let mut builder = WasiCtxBuilder::new();
    builder
        .preopened_dir(project, "/project", FsPerms::ReadOnly)
        .map_err(|e| refused(e.to_string()))?;
    Ok(builder.build().filesystem().clone())
}

/// The fuel a timeout buys at `rate` fuel per second.
fn fuel_for(timeout: Duration, rate: u64) -> u64 {
    let fuel = timeout.as_millis().saturating_mul(u128::from(rate)) / 1000;
    u64::try_from(fuel).unwrap_or(u64::MAX)
}

/// The wall-clock backstop for a timeout: the timeout plus a quarter of it (at least
/// 100 ms), so that fuel, which is deterministic, normally decides first.
fn wall_limit(timeout: Duration) -> Duration {
    timeout + (timeout / 4).max(Duration::from_millis(100))
}

/// Refuses network imports and anything the hook world does not provide.
fn check_component_imports(
    path: &Path,
    engine: &Engine,
    component: &Component,
) -> Result<(), WasmError> {
    for (name, _) in component.component_type().imports(engine) {
        if FORBIDDEN_PREFIXES.iter().any(|p| name.starts_with(p)) {
            return Err(WasmError::Forbidden {
                path: path.to_path_buf(),
                import: name.to_string(),
            });
        }
        let unversioned = name.split('@').next().unwrap_or(name);
        if !HOOK_WORLD_IMPORTS.contains(&unversioned) {
            return Err(WasmError::UnknownImport {
                path: path.to_path_buf(),
                import: name.to_string(),
            });
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Module,
    Component,
}

/// Tells a core module from a component by the header.
fn kind_of(bytes: &[u8]) -> Option<Kind> {
    match bytes.get(..8)? {
        [0, b'a', b's', b'm', 1, 0, 0, 0] => Some(Kind::Module),
        [0, b'a', b's', b'm', 0x0d, 0, 1, 0] => Some(Kind::Component),
        _ => None,
    }
}

#[derive(Clone)]
enum Program {
    Module(wasmtime::InstancePre<ModuleState>),
    Component(CommandPre<ComponentState>),
}

/// A WASM hook, compiled and pre-linked, ready to run any number of times.
pub struct WasmExecutor {
    engine: Arc<EngineInner>,
    program: Program,
    argv: Vec<String>,
    project: PathBuf,
    /// The project's preopen, opened once (see [`open_project`]).
    preopens: WasiFilesystemCtx,
    timeout: Duration,
    fuel: u64,
    from_cache: bool,
    cache_file: Option<PathBuf>,
    cache_warnings: Vec<String>,
}

impl std::fmt::Debug for WasmExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmExecutor")
            .field("argv", &self.argv)
            .field("project", &self.project)
            .field("timeout", &self.timeout)
            .field("fuel", &self.fuel)
            .field("from_cache", &self.from_cache)
            .finish_non_exhaustive()
    }
}

/// How the guest ended, before it is read as an exit status or a failure.
struct Ended {
    result: wasmtime::Result<i32>,
    memory_hit: Option<String>,
}

impl WasmExecutor {
    /// Whether the compiled artifact was loaded from the disk cache rather than compiled,
    /// when this engine first prepared the program.
    pub fn from_cache(&self) -> bool {
        self.from_cache
    }

    /// The cache file of this program, if the engine has a cache folder.
    pub fn cache_file(&self) -> Option<&Path> {
        self.cache_file.as_deref()
    }

    /// What went wrong with the compile cache when this hook's program was prepared
    /// (a cache file that failed its SHA-256 check and was compiled again, one that could
    /// not be written), each naming the file; empty for a later hook sharing the program.
    pub fn cache_warnings(&self) -> &[String] {
        &self.cache_warnings
    }

    /// Whether this hook is a preview 2 component (rather than a preview 1 module).
    pub fn is_component(&self) -> bool {
        matches!(self.program, Program::Component(_))
    }

    /// The fuel each run starts with (`timeout × fuel_per_second`).
    pub fn fuel(&self) -> u64 {
        self.fuel
    }

    /// The guest's arguments (`argv[0]` is the file name).
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The run's WASI context, less the project preopen ([`Self::share_project`] adds
    /// it once built): its stdin, the capped output pipes and the arguments; no
    /// environment, no sockets.
    fn wasi(
        &self,
        stdin: &[u8],
        stdout: &MemoryOutputPipe,
        stderr: &MemoryOutputPipe,
    ) -> WasiCtxBuilder {
        let mut b = WasiCtxBuilder::new();
        b.stdin(MemoryInputPipe::new(stdin.to_vec()))
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .args(&self.argv)
            .initial_cwd("/project");
        b
    }

    /// Gives a built context the project preopen this hook opened at start.
    fn share_project(&self, ctx: &mut WasiCtx) {
        *ctx.filesystem() = self.preopens.clone();
    }

    /// Fresh store settings shared by both kinds: fuel, the epoch callback that yields
    /// every tick and traps after the wall-clock limit, and the memory limiter.
    fn arm<T: Send + 'static>(
        &self,
        store: &mut Store<T>,
        limits: fn(&mut T) -> &mut Limits,
    ) -> Result<(), Failure> {
        store.limiter(move |s| limits(s) as &mut dyn ResourceLimiter);
        store
            .set_fuel(self.fuel)
            .map_err(|e| Failure::CouldNotStart(format!("cannot set fuel: {e}")))?;
        let deadline = Instant::now() + wall_limit(self.timeout);
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(move |_| {
            if Instant::now() >= deadline {
                Err(Trap::Interrupt.into())
            } else {
                Ok(UpdateDeadline::Yield(1))
            }
        });
        Ok(())
    }

    async fn run_module(
        &self,
        pre: &wasmtime::InstancePre<ModuleState>,
        mut wasi: WasiCtxBuilder,
    ) -> Result<Ended, Failure> {
        let mut wasi = wasi.build_p1();
        self.share_project(WasiView::ctx(&mut wasi).ctx);
        let state = ModuleState {
            wasi,
            limits: Limits::new(self.engine.settings.memory_limit_mib),
        };
        let mut store = Store::new(&self.engine.engine, state);
        self.arm(&mut store, |s| &mut s.limits)?;
        let result = async {
            let instance = pre.instantiate_async(&mut store).await?;
            let start = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
            start.call_async(&mut store, ()).await?;
            Ok(0)
        }
        .await;
        Ok(Ended {
            result,
            memory_hit: store.data_mut().limits.memory_hit.take(),
        })
    }

    async fn run_component(
        &self,
        pre: &CommandPre<ComponentState>,
        mut wasi: WasiCtxBuilder,
    ) -> Result<Ended, Failure> {
        let mut ctx = wasi.build();
        self.share_project(&mut ctx);
        let state = ComponentState {
            ctx,
            table: ResourceTable::new(),
            limits: Limits::new(self.engine.settings.memory_limit_mib),
        };
        let mut store = Store::new(&self.engine.engine, state);
        self.arm(&mut store, |s| &mut s.limits)?;
        let result = async {
            let command = pre.instantiate_async(&mut store).await?;
            match command.wasi_cli_run().call_run(&mut store).await? {
                Ok(()) => Ok(0),
                Err(()) => Ok(1),
            }
        }
        .await;
        Ok(Ended {
            result,
            memory_hit: store.data_mut().limits.memory_hit.take(),
        })
    }

    /// Reads how the guest ended as an exit status or a failure.
    fn classify(&self, ended: Ended) -> Result<ExitStatus, Failure> {
        let error = match ended.result {
            Ok(code) => return Ok(ExitStatus::Code(code)),
            Err(error) => error,
        };
        if let Some(exit) = error.downcast_ref::<I32Exit>() {
            return Ok(ExitStatus::Code(exit.0));
        }
        let trap = error.downcast_ref::<Trap>().copied();
        if matches!(trap, Some(Trap::OutOfFuel | Trap::Interrupt)) {
            return Err(Failure::TimedOut(self.timeout));
        }
        if let Some(why) = ended.memory_hit {
            return Err(Failure::Trapped(why));
        }
        Err(Failure::Trapped(match trap {
            Some(trap) => trap.to_string(),
            None => format!("{error:#}"),
        }))
    }
}

impl Executor for WasmExecutor {
    fn run<'a>(
        &'a self,
        stdin: Arc<[u8]>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<RawOutput, Failure>> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(Failure::Interrupted);
            }
            // One byte over the cap: a full pipe makes the guest's write fail, so a guest
            // that printed more than the cap is seen as having printed cap + 1.
            let stdout = MemoryOutputPipe::new(OUTPUT_CAP + 1);
            let stderr = MemoryOutputPipe::new(OUTPUT_CAP + 1);
            let wasi = self.wasi(&stdin, &stdout, &stderr);
            let work = async {
                match &self.program {
                    Program::Module(pre) => self.run_module(pre, wasi).await,
                    Program::Component(pre) => self.run_component(pre, wasi).await,
                }
            };
            // The epoch callback normally ends a late run inside wasm; this catches a
            // guest blocked in a host call (sleep, a read) a little after that.
            let backstop = wall_limit(self.timeout) + 2 * TICK;
            let ended = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(Failure::Interrupted),
                ended = tokio::time::timeout(backstop, work) => match ended {
                    Err(_elapsed) => return Err(Failure::TimedOut(self.timeout)),
                    Ok(ended) => ended?,
                },
            };
            let stdout = stdout.contents();
            let stderr = stderr.contents();
            if stdout.len() > OUTPUT_CAP {
                return Err(Failure::OutputTooLarge(Stream::Stdout));
            }
            if stderr.len() > OUTPUT_CAP {
                return Err(Failure::OutputTooLarge(Stream::Stderr));
            }
            let status = self.classify(ended)?;
            Ok(RawOutput {
                status,
                stdout: stdout.to_vec(),
                stderr: stderr.to_vec(),
            })
        })
    }
}

#[cfg(test)]
mod tests;
