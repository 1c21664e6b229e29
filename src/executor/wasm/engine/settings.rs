//! The `[wasm]` settings and their defaults (with how the fuel rate was calibrated), the
//! cache's access and the engine's mode.

use std::path::PathBuf;
use std::time::Duration;

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
/// a 1 s timeout in `tests/it/wasm/time.rs`); code that burns fuel more slowly, or a loaded
/// machine, meets the wall-clock backstop at 1.25 × the timeout instead. Either way the
/// result is "timed out".
pub const DEFAULT_FUEL_PER_SECOND: u64 = 10_000_000_000;

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
