//! The epoch ticker: the thread that advances an engine's epoch, at which each run's
//! wall-clock deadline is checked.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use wasmtime::EngineWeak;

/// How often the epoch ticker advances the engine's epoch.
pub(in crate::executor::wasm) const TICK: Duration = Duration::from_millis(10);

/// Stops the epoch ticker thread when the engine goes away.
pub(super) struct Ticker {
    stop: Arc<AtomicBool>,
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Ticker {
    pub(super) fn start(engine: EngineWeak) -> std::io::Result<Ticker> {
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
