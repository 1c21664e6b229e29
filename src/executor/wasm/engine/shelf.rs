//! Engines kept for the life of a process that starts many sessions, one after another or
//! at once: the warm server (docs/contract.md#the-warm-server), where each bridged call
//! starts a session of its own.
//!
//! A one-shot session makes its engine, loads its programs from the compile cache, and
//! drops them all when the call ends: for a warm server that is most of a call's work,
//! done again each time. From the shelf, a session takes the engine made for its settings
//! (each `[wasm]` setting and cache decides the engine, so two configs never share one
//! they would set up differently), and with it every program that engine has prepared.
//! A program is still found by the digest of its file's bytes, and the file is read and
//! hashed again whenever its metadata stamp (inode, change time, size) moved, so an edited
//! hook is never run from an older compile.

use std::sync::{Arc, Mutex};

use super::{EngineMode, WasmEngine, WasmError, WasmSettings};

/// How many engines a shelf keeps: one per distinct `[wasm]` settings in use; past this,
/// the one made first is dropped (its sessions keep it until they end). Each keeps its
/// programs' code in memory and reserves a pool of address space for its runs.
const KEPT: usize = 4;

/// Engines, one per settings, shared by every session of the process given the shelf.
#[derive(Clone, Default)]
pub struct EngineShelf {
    engines: Arc<Mutex<Vec<(WasmSettings, WasmEngine)>>>,
}

impl std::fmt::Debug for EngineShelf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EngineShelf")
    }
}

impl EngineShelf {
    /// An empty shelf.
    pub fn new() -> EngineShelf {
        EngineShelf::default()
    }

    /// The engine for `settings`, made now when the shelf has none: a serve-mode engine
    /// (pooled instances, admission, the guests' blocking pool), since its runs come from
    /// many sessions, some at once, for as long as the process lives.
    pub fn engine(&self, settings: &WasmSettings) -> Result<WasmEngine, WasmError> {
        let mut engines = self.engines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, engine)) = engines.iter().find(|(s, _)| s == settings) {
            return Ok(engine.clone());
        }
        let engine = WasmEngine::new(settings, EngineMode::Serve)?;
        if engines.len() >= KEPT {
            engines.remove(0);
        }
        engines.push((settings.clone(), engine.clone()));
        Ok(engine)
    }
}
