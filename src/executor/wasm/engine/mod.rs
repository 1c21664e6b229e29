//! The engine: wasmtime's configuration (fuel and epoch instrumentation, the allocator
//! each [`EngineMode`] asks for, the page-scan reset of pooled memory), its linkers and
//! the programs it has prepared. Its parts, one file each: the `[wasm]` settings and
//! their defaults (`settings`), the epoch ticker (`ticker`), and preparing a program:
//! compiling it (or loading it from the cache) once per engine and pre-linking it
//! (`program`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicUsize;
#[cfg(test)]
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};
use wasmtime_wasi::filesystem::WasiFilesystemCtx;

mod many;
mod program;
mod settings;
mod shelf;
mod ticker;

pub use many::Request;
pub use shelf::EngineShelf;

use program::Prepared;
pub(super) use program::Program;
#[cfg(test)]
pub(super) use program::{Kind, kind_of};
pub use settings::{
    CacheAccess, DEFAULT_COMPILE_DEADLINE, DEFAULT_FUEL_PER_SECOND, DEFAULT_MEMORY_LIMIT_MIB,
    EngineMode, WasmSettings,
};
pub(super) use ticker::TICK;
use ticker::Ticker;
pub(super) use ticker::Ticking;

use super::cache;
use super::limits::{ADMISSION_UNITS, PoolTotals, fuel_for};
use super::link::{link_hook_world, link_preview1, open_project};
use super::run::{ComponentState, ModuleState};
use super::{WasmError, WasmExecutor};

/// How many prepared programs an engine keeps: far more than a config names, few enough
/// that a server running for weeks while its user edits hooks stays small.
const KEPT_PROGRAMS: usize = 64;

/// How much dirty memory of a pooled slot is reset by copying pages back rather than
/// by `madvise` (see the pooling settings in [`WasmEngine::new`]).
const KEEP_RESIDENT: usize = 1 << 20;

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
    /// The epoch ticker, started by the first run ([`EngineInner::ticking`]): the
    /// epoch matters only while a guest runs (each run's wall-clock deadline is checked
    /// at its ticks), so nothing is lost by not ticking before one does.
    ticker: OnceLock<Ticker>,
    /// Whether runs yield by fuel and look at the clock at their host calls instead of at
    /// the ticker's ticks (the one-shot engine: see `limits`' `arm`).
    pub(super) yields_by_fuel: bool,
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
                yields_by_fuel: mode == EngineMode::OneShot,
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
        let known = match crate::file_digests::current(wasm) {
            Some(digest) => self.prepare_known(wasm, &digest)?,
            None => None,
        };
        let (prepared, preopens, cache_warnings) = match known {
            Some((prepared, warnings)) => (prepared, open_project(project)?, warnings),
            None => self.read_and_prepare(wasm, project)?,
        };
        Ok(self.executor(
            wasm,
            args,
            project,
            timeout,
            preopens,
            prepared,
            cache_warnings,
        ))
    }

    /// [`WasmEngine::prepare`] for a file whose digest this process has learned under
    /// its current stamp ([`crate::file_digests`]: the bridge's pin check, or this or
    /// another engine reading it), without reading the file: the program of that digest
    /// this engine has prepared, or else its artifact from the cache. `None` when there
    /// is neither, or when the engine is pooled and has not prepared it (a pool counts a
    /// component's instances from its bytes): then the file is read as always.
    fn prepare_known(
        &self,
        wasm: &Path,
        digest: &cache::ProgramDigest,
    ) -> Result<Option<(Prepared, Vec<String>)>, WasmError> {
        if let Some(prepared) = self.programs().get(digest).cloned() {
            return Ok(Some((prepared, Vec::new())));
        }
        if self.inner.run_slots.is_some() {
            return Ok(None);
        }
        let Some((prepared, warnings)) = self.load_cached(wasm, digest)? else {
            return Ok(None);
        };
        self.keep(*digest, prepared.clone());
        Ok(Some((prepared, warnings)))
    }

    /// [`WasmEngine::prepare`] for a file whose bytes must be read (and hashed): the
    /// program, the project opened for it, and the cache's warnings, which go with the
    /// first hook that prepares a program only.
    fn read_and_prepare(
        &self,
        wasm: &Path,
        project: &Path,
    ) -> Result<(Prepared, WasiFilesystemCtx, Vec<String>), WasmError> {
        // The stamp before the read: a write during it moves the stamp, and the next
        // session reads the file again.
        let stamp = crate::file_digests::stamp(wasm);
        let (bytes, preopens, digest) = read_program(wasm, project)?;
        if let Some(stamp) = stamp {
            crate::file_digests::learn(wasm, stamp, digest);
        }
        let known = self.programs().get(&digest).cloned();
        match known {
            Some(prepared) => Ok((prepared, preopens, Vec::new())),
            None => {
                let (prepared, warnings) = self.compile(wasm, bytes, &digest)?;
                self.keep(digest, prepared.clone());
                Ok((prepared, preopens, warnings))
            }
        }
    }

    /// The executor of a program prepared for one hook.
    #[allow(clippy::too_many_arguments)]
    fn executor(
        &self,
        wasm: &Path,
        args: &[String],
        project: &Path,
        timeout: Duration,
        preopens: WasiFilesystemCtx,
        prepared: Prepared,
        cache_warnings: Vec<String>,
    ) -> WasmExecutor {
        let Prepared {
            program,
            from_cache,
            cache_file,
            network,
            footprint,
            permits,
        } = prepared;

        let name = wasm
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| wasm.to_string_lossy().into_owned());
        let mut argv = Vec::with_capacity(args.len() + 1);
        argv.push(name);
        argv.extend(args.iter().cloned());
        let fuel = fuel_for(timeout, self.inner.settings.fuel_per_second);
        WasmExecutor {
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
        }
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

    /// Keeps a prepared program for the engine's later sessions. An engine that lives for
    /// many sessions (the warm server's, `serve`'s) sees a new digest at every edit of a
    /// hook: past [`KEPT_PROGRAMS`] the kept ones are let go (those in use live on with
    /// their executors; the others are loaded from the compile cache when next needed).
    fn keep(&self, digest: cache::ProgramDigest, prepared: Prepared) {
        let mut programs = self.programs();
        if programs.len() >= KEPT_PROGRAMS {
            programs.clear();
        }
        programs.insert(digest, prepared);
    }

    /// The engine's programs, by digest.
    fn programs(&self) -> std::sync::MutexGuard<'_, HashMap<cache::ProgramDigest, Prepared>> {
        // A panic while holding the lock leaves the map whole (inserts are single calls).
        self.inner
            .programs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Epoch ticks made so far (0 before the first run).
    #[cfg(test)]
    pub(super) fn ticks(&self) -> u64 {
        self.inner.ticker.get().map_or(0, Ticker::ticks)
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

    /// A run in progress, for which the epoch ticker ticks (started here if it is not
    /// running yet): taken by every run before its guest starts (in [`super::limits`]'s
    /// `arm`) and held until the run's store is dropped, since the run's wall-clock
    /// deadline is checked only at ticks. Two first runs at once may both start one; the
    /// one not kept is dropped, which ends its thread.
    pub(super) fn ticking(&self) -> std::io::Result<Ticking> {
        if self.ticker.get().is_none() {
            let _ = self.ticker.set(Ticker::start(self.engine.weak())?);
        }
        match self.ticker.get() {
            Some(ticker) => Ok(ticker.ticking()),
            None => Err(std::io::Error::other("the epoch ticker was not kept")),
        }
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
    PoolingAllocationConfig::is_pagemap_scan_available()
        && !crate::platform::sys::memory::swap_in_use()
}

/// Reads the program at `wasm` (capped), opens `project` for it, and hashes the bytes:
/// the first part of [`WasmEngine::prepare`], errors in its order.
fn read_program(
    wasm: &Path,
    project: &Path,
) -> Result<(Vec<u8>, WasiFilesystemCtx, cache::ProgramDigest), WasmError> {
    let bytes = crate::access::read_capped(wasm, crate::access::caps::WASM).map_err(|source| {
        WasmError::Read {
            path: wasm.to_path_buf(),
            source,
        }
    })?;
    let preopens = open_project(project)?;
    let digest = cache::program_digest(&bytes);
    Ok((bytes, preopens, digest))
}
