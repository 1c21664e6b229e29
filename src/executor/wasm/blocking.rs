//! The WASM guests' blocking pool (`serve`): where wasmtime-wasi runs a guest's
//! filesystem calls, apart from everything else, and how a call stuck there is freed.
//!
//! wasmtime-wasi runs each filesystem call of a guest on tokio's blocking pool, and an
//! `open` of a FIFO with no writer (which any agent can make in the project) never
//! returns: the run times out and is dropped, but the thread stays blocked for good.
//! Sharing the caller's pool, 512 such calls starved every other blocking task of
//! `serve`, argv gates included (docs/threats.md#f2). So guest runs poll with this
//! pool's runtime entered, which sends their blocking calls here and nowhere else; and a
//! run that had to be abandoned (timed out, cancelled) interrupts this pool's threads
//! with a signal that makes a blocked call return `EINTR` (see
//! `platform::sys::interrupt`), so that a stuck thread comes back. Regular files never
//! block that way, and an interrupted call of another guest fails with an error it can
//! handle.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::runtime::{Handle, Runtime};

use crate::platform::sys::interrupt;

/// At most this many guest filesystem calls run at once; more wait for a thread. Each
/// run holds one of `POOL_RUNS` slots and makes one call at a time, so this is room for
/// every slot and some to spare while interrupted threads come back.
const MAX_THREADS: usize = 128;

/// An idle thread of the pool ends after this long.
const KEEP_ALIVE: Duration = Duration::from_secs(2);

/// The pool, made on first use; `None` where the interrupt could not be installed (then
/// guests use the caller's pool, as one-shot commands do).
fn pool() -> Option<&'static Runtime> {
    static POOL: OnceLock<Option<Runtime>> = OnceLock::new();
    POOL.get_or_init(|| {
        if let Err(e) = interrupt::install() {
            tracing::warn!("WASM guests share the blocking pool: no interrupt signal: {e}");
            return None;
        }
        let built = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(MAX_THREADS)
            .thread_keep_alive(KEEP_ALIVE)
            .thread_name("hookhost-wasm-io")
            .on_thread_start(interrupt::register_current_thread)
            .on_thread_stop(interrupt::unregister_current_thread)
            .enable_all()
            .build();
        match built {
            Ok(runtime) => Some(runtime),
            Err(e) => {
                tracing::warn!("WASM guests share the blocking pool: cannot start one: {e}");
                None
            }
        }
    })
    .as_ref()
}

/// The guests' pool, as a `serve` engine holds it (chosen once, when the engine is made).
#[derive(Clone)]
pub(super) struct GuestPool {
    handle: Handle,
}

impl GuestPool {
    /// The process's pool; `None` where it cannot be made (see [`pool`]).
    pub(super) fn get() -> Option<GuestPool> {
        pool().map(|p| GuestPool {
            handle: p.handle().clone(),
        })
    }

    /// `run`, polled with the pool entered, so that its blocking calls go there.
    pub(super) fn enter<F: Future>(&self, run: F) -> InGuestPool<F> {
        InGuestPool {
            handle: self.handle.clone(),
            run: Box::pin(run),
        }
    }

    /// Frees the pool's threads blocked in a call that will not return (a run was
    /// abandoned): each returns `EINTR`.
    pub(super) fn interrupt_blocked_calls(&self) {
        interrupt::interrupt_registered();
    }
}

/// See [`GuestPool::enter`].
pub(super) struct InGuestPool<F> {
    handle: Handle,
    run: Pin<Box<F>>,
}

impl<F: Future> Future for InGuestPool<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        let _entered = this.handle.enter();
        this.run.as_mut().poll(cx)
    }
}
