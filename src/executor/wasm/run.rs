//! One run of a prepared hook: a fresh store and WASI context, instantiate, call
//! `_start` (modules) or `wasi:cli/run` (components), race the caller's cancellation and
//! the wall-clock backstop, collect the capped output, and read how the guest ended as
//! an exit status or a failure.

use std::sync::Arc;

use wasmtime::component::ResourceTable;
use wasmtime::{Store, Trap};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::bindings::CommandPre;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{I32Exit, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use super::WasmExecutor;
use super::engine::{Program, TICK};
use super::limits::{Limits, wall_limit};
use super::link::NoRequests;
use crate::executor::REASON_LIMIT;
use crate::executor::{
    BoxFuture, CancellationToken, Executor, ExitStatus, Failure, OUTPUT_CAP, RawOutput, Stream,
};

/// Store data of a preview 1 module run.
pub(super) struct ModuleState {
    pub(super) wasi: WasiP1Ctx,
    limits: Limits,
}

/// Store data of a preview 2 component run.
pub(super) struct ComponentState {
    pub(super) ctx: WasiCtx,
    pub(super) table: ResourceTable,
    http: WasiHttpCtx,
    no_requests: NoRequests,
    limits: Limits,
}

impl WasiHttpView for ComponentState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.no_requests,
        }
    }
}

impl WasiView for ComponentState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

/// How the guest ended, before it is read as an exit status or a failure.
struct GuestEnd {
    result: wasmtime::Result<i32>,
    memory_hit: Option<String>,
}

impl WasmExecutor {
    async fn run_module(
        &self,
        pre: &wasmtime::InstancePre<ModuleState>,
        mut wasi: WasiCtxBuilder,
    ) -> Result<GuestEnd, Failure> {
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
        Ok(GuestEnd {
            result,
            memory_hit: store.data_mut().limits.memory_hit.take(),
        })
    }

    async fn run_component(
        &self,
        pre: &CommandPre<ComponentState>,
        mut wasi: WasiCtxBuilder,
    ) -> Result<GuestEnd, Failure> {
        let mut ctx = wasi.build();
        self.share_project(&mut ctx);
        let state = ComponentState {
            ctx,
            table: ResourceTable::new(),
            http: WasiHttpCtx::new(),
            no_requests: NoRequests,
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
        Ok(GuestEnd {
            result,
            memory_hit: store.data_mut().limits.memory_hit.take(),
        })
    }

    /// Instantiates the program in a fresh store, as a run does, and returns the store
    /// without calling anything: what one run holds of the pool, held for the tests to
    /// count (`pool_footprint_is_what_a_run_holds`).
    #[cfg(test)]
    pub(super) async fn instantiate_idle(&self) -> wasmtime::Result<Box<dyn std::any::Any + Send>> {
        let stdout = MemoryOutputPipe::new(OUTPUT_CAP + 1);
        let stderr = MemoryOutputPipe::new(OUTPUT_CAP + 1);
        let mut wasi = self.wasi(b"", &stdout, &stderr);
        let limits = Limits::new(self.engine.settings.memory_limit_mib);
        match &self.program {
            Program::Module(pre) => {
                let mut wasi = wasi.build_p1();
                self.share_project(WasiView::ctx(&mut wasi).ctx);
                let state = ModuleState { wasi, limits };
                let mut store = Store::new(&self.engine.engine, state);
                self.arm(&mut store, |s| &mut s.limits)
                    .map_err(|e| wasmtime::Error::msg(e.to_string()))?;
                pre.instantiate_async(&mut store).await?;
                Ok(Box::new(store))
            }
            Program::Component(pre) => {
                let mut ctx = wasi.build();
                self.share_project(&mut ctx);
                let state = ComponentState {
                    ctx,
                    table: ResourceTable::new(),
                    http: WasiHttpCtx::new(),
                    no_requests: NoRequests,
                    limits,
                };
                let mut store = Store::new(&self.engine.engine, state);
                self.arm(&mut store, |s| &mut s.limits)
                    .map_err(|e| wasmtime::Error::msg(e.to_string()))?;
                pre.instantiate_async(&mut store).await?;
                Ok(Box::new(store))
            }
        }
    }

    /// Reads how the guest ended as an exit status or a failure; a crash shows what the
    /// guest wrote on `stderr` before it ([`crashed`]).
    fn classify(&self, ended: GuestEnd, stderr: &[u8]) -> Result<ExitStatus, Failure> {
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
            return Err(crashed(why, stderr));
        }
        Err(crashed(
            match trap {
                Some(trap) => trap.to_string(),
                None => format!("{error:#}"),
            },
            stderr,
        ))
    }
}

/// A crash (`what` trapped) and what the guest wrote on stderr before it: a toolchain's
/// runtime says why there and then traps (componentize-py prints the Python traceback,
/// a `ModuleNotFoundError` say, then executes `unreachable`), so without it the failure
/// would say only "wasm `unreachable` instruction executed".
///
/// The text is trimmed and cut to [`REASON_LIMIT`] characters like a reason, but keeping
/// its end, which is what says what went wrong (a traceback's last line), with "…"
/// where it was cut: ``wasm trap: wasm `unreachable` instruction executed; stderr: …``.
fn crashed(what: String, stderr: &[u8]) -> Failure {
    let stderr = String::from_utf8_lossy(stderr);
    let stderr = stderr.trim();
    if stderr.is_empty() {
        return Failure::Trapped(what);
    }
    let count = stderr.chars().count();
    let tail = match stderr
        .char_indices()
        .nth(count.saturating_sub(REASON_LIMIT))
    {
        Some((cut, _)) if cut > 0 => format!("…{}", stderr[cut..].trim_start()),
        _ => stderr.to_string(),
    };
    Failure::Trapped(format!("{what}; stderr: {tail}"))
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
            // Room in the pool first (serve): the permits of what this run holds of it
            // (its program's core instances, memories, tables, stack; see
            // `PoolTotals::admission`), taken in one acquire. Waiting for them is not the
            // hook's time, which starts with its store below.
            let _slot = match &self.engine.run_slots {
                Some(slots) => tokio::select! {
                    biased;
                    _ = cancel.cancelled() => return Err(Failure::Interrupted),
                    slot = slots.clone().acquire_many_owned(self.permits) => Some(slot.map_err(|_| {
                        Failure::CouldNotStart("the WASM engine is shutting down".into())
                    })?),
                },
                None => None,
            };
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
            // In `serve`, a guest's blocking calls go to a pool of their own, whose
            // stuck calls an abandoned run frees (see `blocking`).
            let pool = self.engine.guest_pool.as_ref();
            let abandoned = || pool.map(|p| p.interrupt_blocked_calls());
            let work = async {
                match pool {
                    Some(pool) => pool.enter(work).await,
                    None => work.await,
                }
            };
            // The epoch callback normally ends a late run inside wasm; this catches a
            // guest blocked in a host call (sleep, a read, an open of a FIFO) a little
            // after that, and a one-shot engine's late guest at one of its yields (by fuel
            // or at a host call: `limits`' `arm`).
            let backstop = wall_limit(self.timeout) + 2 * TICK;
            let ended = tokio::select! {
                biased;
                _ = cancel.cancelled() => {
                    abandoned();
                    return Err(Failure::Interrupted);
                }
                ended = tokio::time::timeout(backstop, work) => match ended {
                    Err(_elapsed) => {
                        abandoned();
                        return Err(Failure::TimedOut(self.timeout));
                    }
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
            let status = self.classify(ended, &stderr)?;
            Ok(RawOutput {
                status,
                stdout: stdout.to_vec(),
                stderr: stderr.to_vec(),
            })
        })
    }

    fn imports_network(&self) -> bool {
        self.network
    }
}
