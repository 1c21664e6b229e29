//! Preparing a program: its kind, loading it from the cache or compiling it (a compile
//! on a thread of its own, under the compile deadline), and pre-linking it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use wasmtime::Module;
use wasmtime::component::Component;
use wasmtime_wasi::p2::bindings::CommandPre;

use super::super::WasmError;
use super::super::cache;
use super::super::limits::{PoolFootprint, store_caps};
use super::super::link::{
    check_component_imports, check_imports_before_compiling, check_module_imports,
};
use super::super::run::{ComponentState, ModuleState};
use super::{SERVE_POOL, WasmEngine};

/// A program compiled (or loaded from the cache) and pre-linked, and where it came from.
#[derive(Clone)]
pub(super) struct Prepared {
    /// The program.
    pub(super) program: Program,
    pub(super) from_cache: bool,
    pub(super) cache_file: Option<PathBuf>,
    /// It imports network interfaces (linked, every use denied).
    pub(super) network: bool,
    /// What one run holds of the pool.
    pub(super) footprint: PoolFootprint,
    /// The admission permits one run takes ([`PoolTotals::admission`]; 0 where the
    /// engine has no pool).
    pub(super) permits: u32,
}

impl WasmEngine {
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
    pub(super) fn compile(
        &self,
        path: &Path,
        bytes: Vec<u8>,
        digest: &cache::ProgramDigest,
    ) -> Result<(Prepared, Vec<String>), WasmError> {
        let path = path.to_path_buf();
        let cache_dir = self.inner.settings.cache_dir.as_deref();
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
        let kind = kind_of(&bytes).ok_or_else(|| WasmError::NotWasm { path: path.clone() })?;
        // Refused at once rather than after a compile of seconds (or minutes).
        check_imports_before_compiling(&path, &bytes, kind == Kind::Component)?;
        let looked_up = self.look_up(kind, digest).map_err(compile_error)?;
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
        self.link_and_admit(path, loaded, &bytes)
    }

    /// The program with digest `digest` from the cache alone (its file's bytes are not
    /// read: the digest was learned under the file's stamp, `crate::file_digests`),
    /// pre-linked; `None` when the cache has no
    /// artifact for it, or cannot give one (a damaged file, a read-only cache without
    /// it): the caller then reads the file, and a compile or the cache's error follows
    /// as for any other program. Not for a pooled engine, which counts a component's
    /// core instances from its bytes.
    pub(super) fn load_cached(
        &self,
        path: &Path,
        digest: &cache::ProgramDigest,
    ) -> Result<Option<(Prepared, Vec<String>)>, WasmError> {
        debug_assert!(self.inner.run_slots.is_none());
        for kind in [Kind::Module, Kind::Component] {
            if let Ok(cache::Lookup::Hit(loaded)) = self.look_up(kind, digest) {
                // The import checks before a compile were made on these bytes when the
                // artifact was compiled; those after loading run on it here.
                return self
                    .link_and_admit(path.to_path_buf(), loaded, &[])
                    .map(Some);
            }
        }
        Ok(None)
    }

    /// The cache's artifact for the program of `kind` with digest `digest`, or where to
    /// store it once compiled.
    fn look_up(
        &self,
        kind: Kind,
        digest: &cache::ProgramDigest,
    ) -> wasmtime::Result<cache::Lookup<Loaded>> {
        let engine = &self.inner.engine;
        let cache_dir = self.inner.settings.cache_dir.as_deref();
        let access = self.inner.settings.cache_access;
        match kind {
            Kind::Module => cache::lookup::<Module>(engine, cache_dir, access, digest)
                .map(|found| found.map(Loaded::Module)),
            Kind::Component => cache::lookup::<Component>(engine, cache_dir, access, digest)
                .map(|found| found.map(Loaded::Component)),
        }
    }

    /// Checks a loaded or compiled program's exports and imports, pre-links it and admits
    /// it to the engine's limits. `bytes`: the program's file (only a pooled engine reads
    /// them, to count a component's core instances).
    fn link_and_admit(
        &self,
        path: PathBuf,
        loaded: Loaded,
        bytes: &[u8],
    ) -> Result<(Prepared, Vec<String>), WasmError> {
        let engine = &self.inner.engine;
        let link_error = |e: wasmtime::Error| WasmError::Link {
            path: path.clone(),
            message: format!("{e:#}"),
        };
        let mut network = false;
        let footprint;
        let (program, from_cache, cache_file, warnings) = match loaded {
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
                )
            }
            Loaded::Component(loaded) => {
                let component = loaded.artifact;
                network = check_component_imports(&path, engine, &component)?;
                let pooled = self.inner.run_slots.is_some();
                footprint = PoolFootprint::of_component(&component, bytes, pooled);
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
        let permits = store_caps(&footprint)
            .map_err(|e| too_large(e, "one run may have"))
            .and_then(|()| match self.inner.run_slots {
                Some(_) => SERVE_POOL
                    .admission(&footprint)
                    .map_err(|e| too_large(e, "`serve`'s WASM pool holds for all runs at once")),
                None => Ok(0),
            });
        let permits = permits?;
        let prepared = Prepared {
            program,
            from_cache,
            cache_file,
            network,
            footprint,
            permits,
        };
        Ok((prepared, warnings))
    }
}

/// A program's artifact from the cache or the compiler, of either kind.
pub(super) enum Loaded {
    Module(cache::Loaded<Module>),
    Component(cache::Loaded<Component>),
}

/// What kind of program a `.wasm` file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::executor::wasm) enum Kind {
    /// A WASI preview 1 core module.
    Module,
    /// A WASI preview 2 component.
    Component,
}

/// Tells a core module from a component by the header.
pub(in crate::executor::wasm) fn kind_of(bytes: &[u8]) -> Option<Kind> {
    match bytes.get(..8)? {
        [0, b'a', b's', b'm', 1, 0, 0, 0] => Some(Kind::Module),
        [0, b'a', b's', b'm', 0x0d, 0, 1, 0] => Some(Kind::Component),
        _ => None,
    }
}

/// A compiled, pre-linked program of either kind.
#[derive(Clone)]
pub(in crate::executor::wasm) enum Program {
    Module(wasmtime::InstancePre<ModuleState>),
    Component(CommandPre<ComponentState>),
}
