//! A panic said as an answer, never as a missing one.
//!
//! hookhost answers every call, and an answer that never comes is read as "go ahead" by
//! most agents (a process that died) or waited for without end (a `serve` embedder). So
//! the front ends run each call's work through [`catching_panics`] and answer a panic
//! the way they answer any failure: refused, saying it is a bug in hookhost.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::Poll;

/// Runs `work` to its end, or to a panic in it, which is then said as text (the panic's
/// message, when it has one). Polled where it is awaited: a panic on this thread would
/// otherwise end the thread, or the process, with nothing answered.
pub async fn catching_panics<T>(work: impl Future<Output = T>) -> Result<T, String> {
    let mut work = std::pin::pin!(work);
    std::future::poll_fn(
        |cx| match catch_unwind(AssertUnwindSafe(|| work.as_mut().poll(cx))) {
            Ok(Poll::Ready(done)) => Poll::Ready(Ok(done)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(panic_message(panic.as_ref()))),
        },
    )
    .await
}

/// A panic's message: its text when it has one.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::catching_panics;

    /// A panic in the call is its message, whatever its payload; a call that ends is its
    /// result; and a call that waits is waited for.
    #[test]
    fn a_panic_in_the_call_is_said_and_an_ended_call_is_its_result() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let said = runtime.block_on(catching_panics(async {
            tokio::task::yield_now().await;
            panic!("boom at {}", 3);
        }));
        assert_eq!(said, Err::<(), _>("boom at 3".to_string()));
        let said = runtime.block_on(catching_panics(async { std::panic::panic_any(7u8) }));
        assert_eq!(said, Err::<(), _>("a panic".to_string()));
        let ended = runtime.block_on(catching_panics(async {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            42
        }));
        assert_eq!(ended, Ok(42));
    }
}
