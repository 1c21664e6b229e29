//! The one seam between "how a hook runs" and "what its answer means".
//!
//! An [`Executor`] is a hook prepared to run: an argv program (on the host or in the
//! box: bubblewrap, Seatbelt) or a WASM module compiled and pre-linked. Given the exact stdin bytes
//! it returns the hook's raw outcome (exit status, stdout, stderr) or a [`Failure`], and
//! it honours cancellation. Verdicts, warnings, records and replay live above this trait;
//! nothing above it knows which kind of hook it is running.

pub mod argv;
pub mod wasm;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

pub use tokio_util::sync::CancellationToken;

/// The most each of stdout and stderr may hold; more is a failure that says so.
pub const OUTPUT_CAP: usize = 1 << 20;

/// The most characters of a text a hook wrote that an answer's reason or a failure's
/// message carries (a crash's stderr tail included), so that what the agent shows stays short.
pub const REASON_LIMIT: usize = 2000;

/// A boxed future, so that executors stay object-safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How a hook ended when it ran to completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this code (0 no objection or JSON, 2 block, other a failure).
    Code(i32),
    /// It was killed by this signal (argv hooks only).
    Signal(i32),
}

/// What a hook that ran printed, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawOutput {
    /// How it ended.
    pub status: ExitStatus,
    /// Its stdout, at most [`OUTPUT_CAP`] bytes.
    pub stdout: Vec<u8>,
    /// Its stderr, at most [`OUTPUT_CAP`] bytes.
    pub stderr: Vec<u8>,
}

/// Which of the two output streams a failure is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// A run that did not produce a usable [`RawOutput`].
///
/// The `Display` text is the spec's failure kind, as it appears inside
/// `failed (KIND)`: "timed out after 10 s", "could not start: …".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The hook's timeout ran out (or, for WASM, its fuel).
    #[error("timed out after {} s", .0.as_secs())]
    TimedOut(Duration),
    /// The hook could not be started at all.
    #[error("could not start: {0}")]
    CouldNotStart(String),
    /// The hook was killed by a signal it did not ask for.
    ///
    /// No executor reports this (a signal ends a run as [`ExitStatus::Signal`], which
    /// reads as [`crate::answer::AnswerFailure::KilledBySignal`]); it stays because the
    /// session record's effect format names it (`killed_by_signal`), so such a record
    /// still reads and replays.
    #[error("was killed by a signal")]
    KilledBySignal,
    /// The hook printed more than [`OUTPUT_CAP`] bytes on one stream.
    #[error("printed more than 1 MiB on {}", match .0 { Stream::Stdout => "stdout", Stream::Stderr => "stderr" })]
    OutputTooLarge(Stream),
    /// A WASM hook trapped (panic, unreachable, out-of-bounds, memory limit…).
    #[error("crashed: {0}")]
    Trapped(String),
    /// The run was cancelled (SIGINT, or `serve`'s cancel); the verdict is `interrupted`.
    #[error("was interrupted")]
    Interrupted,
}

/// A hook prepared to run. Implemented by the argv executor (host or box), the WASM
/// executor, and replay ([`crate::replay::served`]: recorded outputs, nothing started).
pub trait Executor: Send + Sync {
    /// Runs the hook once with `stdin` as its whole standard input.
    ///
    /// Must return promptly once `cancel` fires (with [`Failure::Interrupted`]) and when
    /// the hook's own timeout runs out (with [`Failure::TimedOut`]), leaving nothing of
    /// the run alive.
    fn run<'a>(
        &'a self,
        stdin: Arc<[u8]>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<RawOutput, Failure>>;

    /// Whether the hook imports network interfaces it is linked to but may never use
    /// (a WASM component's `wasi:sockets`), for `check` to say so.
    fn imports_network(&self) -> bool {
        false
    }
}

/// A hook that cannot start (a WASM program that does not compile or link): every run
/// fails with [`Failure::CouldNotStart`], so that `on_failure` decides what it does.
#[derive(Debug, Clone)]
pub struct Unstartable(pub String);

impl Executor for Unstartable {
    fn run<'a>(
        &'a self,
        _stdin: Arc<[u8]>,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<RawOutput, Failure>> {
        Box::pin(std::future::ready(Err(Failure::CouldNotStart(
            self.0.clone(),
        ))))
    }
}
