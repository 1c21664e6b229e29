//! The epoch ticker: the thread that advances an engine's epoch, at which each run's
//! wall-clock deadline is checked.
//!
//! It ticks only while a run holds a [`Ticking`] and sleeps parked otherwise: the
//! engines of `serve` and `hookhost warm` live for days, mostly idle, and a thread
//! waking a hundred times a second keeps a laptop's cores out of their sleep states
//! for nothing. A run's deadline is counted in ticks from its own start (`arm` sets it
//! relative to the epoch then), so an epoch that stood still while nothing ran changes
//! no run's limits.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::Thread;
use std::time::Duration;

use wasmtime::EngineWeak;

/// How often the epoch ticker advances the engine's epoch while a run is in progress.
pub(in crate::executor::wasm) const TICK: Duration = Duration::from_millis(10);

/// What the ticker thread and its owners share.
#[derive(Default)]
struct Shared {
    /// Set when the engine goes away.
    stop: AtomicBool,
    /// Runs in progress ([`Ticking`]s held).
    runs: AtomicUsize,
    /// Ticks made so far (the tests read it).
    ticks: AtomicU64,
}

/// The epoch ticker thread, stopped when the engine goes away.
pub(super) struct Ticker {
    shared: Arc<Shared>,
    thread: Thread,
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// One run in progress: the ticker ticks while any is held.
pub(in crate::executor::wasm) struct Ticking {
    shared: Arc<Shared>,
}

impl Drop for Ticking {
    fn drop(&mut self) {
        self.shared.runs.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Ticker {
    pub(super) fn start(engine: EngineWeak) -> std::io::Result<Ticker> {
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("hookhost-wasm-epoch".into())
            .spawn(move || {
                while !theirs.stop.load(Ordering::Acquire) {
                    if theirs.runs.load(Ordering::Acquire) == 0 {
                        // `Ticker::ticking` unparks after counting its run, so a run
                        // that starts between the load and the park is not missed
                        // (an unpark before the park makes the park return at once).
                        std::thread::park();
                        continue;
                    }
                    std::thread::sleep(TICK);
                    match engine.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                    theirs.ticks.fetch_add(1, Ordering::Relaxed);
                }
            })?;
        Ok(Ticker {
            shared,
            thread: handle.thread().clone(),
        })
    }

    /// Counts a run in progress until the [`Ticking`] is dropped, and wakes the ticker.
    pub(super) fn ticking(&self) -> Ticking {
        self.shared.runs.fetch_add(1, Ordering::AcqRel);
        self.thread.unpark();
        Ticking {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Ticks made so far.
    #[cfg(test)]
    pub(super) fn ticks(&self) -> u64 {
        self.shared.ticks.load(Ordering::Relaxed)
    }
}
