//! The WASM executor: hooks that are WebAssembly programs, run in wasmtime with WASI.
//!
//! # What a WASM hook is
//!
//! A hook whose `command[0]` ends in `.wasm`
//! ([`HookDef::is_wasm`](crate::config::HookDef::is_wasm)) is one of:
//!
//! - a **WASI preview 1 command module** (`wasm32-wasip1`; header `\0asm 01 00 00 00`),
//!   started through its `_start` export; or
//! - a **WASI preview 2 command component** (`wasm32-wasip2`; header `\0asm 0d 00 01 00`),
//!   started through its `wasi:cli/run` export. It lives in the world `wit/hook.wit`.
//!
//! Either way the hook gets the event JSON as its whole stdin, `argv[0]` = the file name
//! of the `.wasm` file followed by `command[1..]`, no environment variables at all, and
//! the project, read-only, preopened twice: as `/project`, and as `.`, the preopen
//! through which wasi-libc resolves a relative path (it ignores the initial cwd, which is
//! `/project` too, and p1 has no such notion at all), so that `notes.txt`, `./notes.txt`
//! and `/project/notes.txt` all read the project. stdout and stderr are captured
//! with the same 1 MiB caps as argv hooks.
//!
//! The exit status reads as for argv hooks: `proc_exit(n)` (p1) or
//! `wasi:cli/exit.exit-with-code(n)` (p2) gives `Code(n)`; returning from `_start` is 0;
//! `wasi:cli/exit.exit(err)` and `run` returning `Err(())` are 1. `exit-with-code` is
//! WASI 0.2.12's and linked; a guest that calls it from its bindings (Python, JavaScript)
//! delivers its 2, but the languages' own exits turn every non-zero `exit(n)` into
//! `exit(err)`, i.e. 1 (Rust's std on wasip2, Python's `sys.exit`; the tests
//! `languages::exit_status_two_by_toolchain` pin which): **component hooks should
//! answer with JSON on stdout** (`{"decision":"block","reason":…}`), as the Python and
//! JavaScript helpers in `plugins/` do.
//!
//! # Sandbox
//!
//! Nothing is granted but the above: the project is preopened with
//! [`FsPerms::ReadOnly`](wasmtime_wasi::FsPerms::ReadOnly) through cap-std (no writes;
//! `..` and symlinks cannot leave it), and the component linker holds the interfaces
//! listed in `wit/hook.wit` ([`HOOK_WORLD_IMPORTS`]) and `wasi:sockets`
//! ([`NETWORK_IMPORTS`]), which toolchains' standard libraries import whether or not
//! a hook uses the network, and `wasi:http` ([`HTTP_IMPORTS`]), which componentize-js's
//! runtime imports: linked so that such a component runs, with no TCP, no UDP, no name
//! lookup, no address allowed and no HTTP request sent, so every use fails at run time
//! with an error the guest can handle. A component that imports anything else the host
//! does not provide cannot start, with a message that names the import.
//!
//! # Limits
//!
//! - **Time**: the hook's timeout becomes fuel (`timeout × fuel_per_second`), so a hook
//!   that computes too long runs out deterministically: the same hook on the same input
//!   always passes or always runs out. Wall-clock backstops cover what fuel cannot see (a
//!   guest blocked in `sleep`, a slow machine): the whole run sits under
//!   `tokio::time::timeout`, and the guest yields to tokio every 10 ms: in `serve` and
//!   `hookhost warm` at the ticks of an epoch ticker thread (the store traps once
//!   `timeout + slack` has passed), in a one-shot engine every 10 ms worth of fuel and at
//!   the first host call 10 ms after the last yield (a host call past `timeout + slack`
//!   traps), with no thread of its own. All of these read as
//!   [`Failure::TimedOut`](super::Failure::TimedOut).
//! - **Cancellation**: each run races the caller's
//!   [`CancellationToken`](super::CancellationToken); since the guest yields every
//!   10 ms, a busy guest is stopped within about that. Dropping the run's future
//!   drops its `Store`, which is all there is of a WASM run.
//! - **Memory**: all linear memories of one run together may hold at most
//!   `memory_limit_mib`; growing past that traps at once, and the failure says so
//!   ("crashed: memory limit of 64 MiB reached (…)"). Tables are capped likewise.
//! - **The pool** (`serve`): wasmtime's pooling allocator holds so many core instances,
//!   memories, tables, component instances and stacks across all runs at once. What one
//!   run of a program takes of each is counted once, when it is prepared
//!   ([`WasmExecutor::pool_footprint`]; a componentize-py component is 14 core
//!   instances), and a run waits until there is room for all of it, so a burst of any
//!   size and mix gets the verdicts of its calls one by one, only later. A program that
//!   could never fit (nor fit one run's caps) cannot start, with a message naming it and
//!   the limit.
//!
//! # Speed
//!
//! One [`WasmEngine`] per process compiles each program once, when it is prepared,
//! caching the compiled artifact on disk (see the `cache` module) and pre-linking it into
//! an `InstancePre`; hooks that run the same bytes share that program. A file whose
//! digest this process has learned under its current stamp (`crate::file_digests`: the
//! bridge's pin check, or an earlier read) is not read again: its program is found by
//! that digest, among the engine's or in the cache. Each hook opens
//! the project folder once, when it is prepared, and every run shares that descriptor
//! (so a project folder replaced during a session, renamed away and recreated, is not
//! seen: the hooks keep the one they opened). Each run builds a fresh `Store` and WASI
//! context and instantiates from that: about 11 µs for a trivial hook with `serve`'s
//! pooling allocator when it resets memory by page scan, about 30 µs when it uses
//! `madvise` (see [`WasmEngine::resets_memory_by_page_scan`]).
//!
//! # Files
//!
//! - `engine/`: [`WasmEngine`], one file per concept: `mod.rs` the engine itself
//!   (wasmtime's configuration, the pooling allocator and its page-scan reset, the
//!   linkers, the programs it has prepared), `settings.rs` its settings ([`EngineMode`],
//!   [`WasmSettings`], how the default fuel rate was calibrated), `ticker.rs` the epoch
//!   ticker, `program.rs` preparing a program once per engine (cache or compile, the
//!   compile bounded by [`WasmSettings::compile_deadline`], pre-linking);
//! - `link.rs`: what a hook can reach: the two linkers, the import policy
//!   ([`HOOK_WORLD_IMPORTS`]; the network and HTTP linked, every use denied), and the
//!   WASI context of each run;
//! - `limits.rs`: what one run may use: the store limiter (memory and tables), fuel and
//!   the wall-clock backstop;
//! - `run.rs`: one run: instantiate, call, collect the output, read how the guest ended;
//! - `blocking.rs`: in `serve`, the guests' own blocking pool, and freeing a call stuck
//!   there (a FIFO's `open`) when its run is abandoned;
//! - `cache/`: the on-disk cache of compiled artifacts, and the memos of their checks.

mod blocking;
mod cache;
mod engine;
mod limits;
mod link;
mod run;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wasmtime_wasi::filesystem::WasiFilesystemCtx;

pub use engine::{
    CacheAccess, DEFAULT_COMPILE_DEADLINE, DEFAULT_FUEL_PER_SECOND, DEFAULT_MEMORY_LIMIT_MIB,
    EngineMode, EngineShelf, Request, WasmEngine, WasmSettings,
};
pub use limits::{PoolFootprint, PoolTotals};
pub use link::{HOOK_WORLD_IMPORTS, HTTP_IMPORTS, NETWORK_IMPORTS};

use engine::{EngineInner, Program};

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
    /// The program takes longer than [`WasmSettings::compile_deadline`] to compile.
    #[error(
        "{} did not compile within {} s (a module this large or this complex is refused; \
         rebuild it smaller, or split the hook)",
        .path.display(),
        .deadline.as_secs()
    )]
    CompileTooSlow {
        /// The file.
        path: PathBuf,
        /// The deadline it missed.
        deadline: Duration,
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
    /// One run of the program needs more of something than a run may ever have: it
    /// could never run, so it is refused when it is prepared (not on every call).
    #[error(
        "{} needs {needs} {kind} per run, more than the {limit} {within}, so it can never \
         run (rebuild it smaller, or split the hook)",
        .path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// How many it needs.
        needs: u32,
        /// Of what ("core instances", "memories", "tables", …).
        kind: &'static str,
        /// The most there are.
        limit: u32,
        /// Where the limit holds ("one run may have", "`serve`'s WASM pool holds …").
        within: &'static str,
    },
    /// A read-only compile cache (system mode) has no usable entry for the program, and
    /// compiling it inside an agent's call would run past the budget
    /// (docs/contract.md#system-mode).
    #[error(
        "{} has no entry in the system compile cache {} ({why}), and hookhost bridge --system never compiles: an administrator must run `{}`, which compiles the system hooks into it",
        .path.display(), .cache.display(), crate::system::CHECK_COMMAND
    )]
    NotCached {
        /// The `.wasm` file.
        path: PathBuf,
        /// The cache folder.
        cache: PathBuf,
        /// What was found instead (no file, a file that is not root's, a damaged one).
        why: String,
    },
    /// The project folder cannot be preopened.
    #[error("the project folder {} cannot be opened: {reason}", .path.display())]
    Project {
        /// The folder.
        path: PathBuf,
        /// Missing, not a folder, or not allowed (see `crate::access`).
        reason: String,
    },
}

/// A WASM hook, compiled and pre-linked, ready to run any number of times.
pub struct WasmExecutor {
    engine: Arc<EngineInner>,
    /// The program.
    program: Program,
    argv: Vec<String>,
    project: PathBuf,
    /// The project's preopen, opened once (see [`link::open_project`]).
    preopens: WasiFilesystemCtx,
    timeout: Duration,
    fuel: u64,
    from_cache: bool,
    cache_file: Option<PathBuf>,
    cache_warnings: Vec<String>,
    /// It imports network interfaces (linked, every use denied).
    network: bool,
    /// What one run holds of `serve`'s pool.
    footprint: limits::PoolFootprint,
    /// The pool's admission permits one run takes (0 without a pool).
    permits: u32,
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
    /// (a cache file that failed its checksum and was compiled again, one that could
    /// not be written), each naming the file; empty for a later hook sharing the program.
    pub fn cache_warnings(&self) -> &[String] {
        &self.cache_warnings
    }

    /// The same program for another hook, with its own `args` (`command[1..]`), project
    /// and timeout, without reading, hashing or loading the file again: what
    /// [`WasmEngine::prepare`] would give for a second hook of the same file, but for the
    /// cost of the per-hook parts (the arguments, the fuel, the project preopen when the
    /// project differs). It has no cache warnings (they went with this one).
    ///
    /// Meant for the hooks of one start, which read each file once: the program is the
    /// bytes this executor was prepared from, so a file changed since is not seen (use
    /// [`WasmEngine::prepare`] to read it again).
    pub fn for_another_hook(
        &self,
        args: &[String],
        project: &Path,
        timeout: Duration,
    ) -> Result<WasmExecutor, WasmError> {
        let preopens = match project == self.project {
            true => self.preopens.clone(),
            false => link::open_project(project)?,
        };
        let mut argv = Vec::with_capacity(args.len() + 1);
        argv.extend(self.argv.first().cloned());
        argv.extend(args.iter().cloned());
        Ok(WasmExecutor {
            engine: Arc::clone(&self.engine),
            program: self.program.clone(),
            argv,
            project: project.to_path_buf(),
            preopens,
            timeout,
            fuel: limits::fuel_for(timeout, self.engine.settings.fuel_per_second),
            from_cache: self.from_cache,
            cache_file: self.cache_file.clone(),
            cache_warnings: Vec::new(),
            network: self.network,
            footprint: self.footprint,
            permits: self.permits,
        })
    }

    /// The fuel each run starts with (`timeout × fuel_per_second`).
    pub fn fuel(&self) -> u64 {
        self.fuel
    }

    /// The guest's arguments (`argv[0]` is the file name).
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// What one run holds of the pooling allocator (core instances, memories, tables,
    /// …), as counted once when the program was prepared; in `serve`, runs are admitted
    /// by it, so that a burst waits rather than passes a limit of the pool. (A one-shot
    /// engine, which has no pool, does not count a component's core instances:
    /// [`PoolFootprint::counted`] says so.)
    pub fn pool_footprint(&self) -> PoolFootprint {
        self.footprint
    }
}

#[cfg(test)]
mod tests;
