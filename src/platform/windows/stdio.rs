//! Windows: `serve` reads and writes its stdio through tokio's blocking-thread streams
//! (anonymous pipes cannot join an I/O completion port once opened), so nothing is put
//! on the event loop and no flags change.

use std::io;

use tokio::io::{AsyncRead, AsyncWrite};

/// The input half.
pub type Input = Box<dyn AsyncRead + Unpin + Send>;
/// The output half.
pub type Output = Box<dyn AsyncWrite + Unpin + Send>;

/// Nothing to put back on Windows.
pub struct FoundFlags(());

impl FoundFlags {
    /// Nothing to put back.
    pub(crate) fn none() -> FoundFlags {
        FoundFlags(())
    }

    /// Nothing to put back.
    pub(crate) fn restore(self) {}
}

/// Never an event-loop stream here: the callers fall back to tokio's stdio.
pub(crate) fn on_event_loop() -> (
    Option<io::Result<Input>>,
    Option<io::Result<Output>>,
    FoundFlags,
) {
    (None, None, FoundFlags::none())
}
