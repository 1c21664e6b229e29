//! What one run may use: memory and tables (the store's [`ResourceLimiter`], all the
//! run's memories and tables counted together), and time (fuel from the timeout, and
//! the wall-clock backstop the epoch callback enforces). [`WasmExecutor::arm`] puts
//! them all on a fresh store.

use std::time::{Duration, Instant};

use wasmtime::{ResourceLimiter, Store, Trap, UpdateDeadline};

use super::WasmExecutor;
use crate::executor::Failure;

/// The most table elements one run may hold (all tables together).
const TABLE_ELEMENTS_LIMIT: usize = 1 << 20;

/// Per-run limits on memory and tables (all memories/tables of the run together).
pub(super) struct Limits {
    memory_cap: usize,
    memory_used: usize,
    /// Set when a growth was refused: what to tell the user.
    pub(super) memory_hit: Option<String>,
    table_used: usize,
}

impl Limits {
    pub(super) fn new(memory_limit_mib: u64) -> Limits {
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

/// The fuel a timeout buys at `rate` fuel per second.
pub(super) fn fuel_for(timeout: Duration, rate: u64) -> u64 {
    let fuel = timeout.as_millis().saturating_mul(u128::from(rate)) / 1000;
    u64::try_from(fuel).unwrap_or(u64::MAX)
}

/// The wall-clock backstop for a timeout: the timeout plus a quarter of it (at least
/// 100 ms), so that fuel, which is deterministic, normally decides first.
pub(super) fn wall_limit(timeout: Duration) -> Duration {
    timeout + (timeout / 4).max(Duration::from_millis(100))
}

impl WasmExecutor {
    /// Fresh store settings shared by both kinds: fuel, the epoch callback that yields
    /// every tick and traps after the wall-clock limit, and the memory limiter.
    pub(super) fn arm<T: Send + 'static>(
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
}
