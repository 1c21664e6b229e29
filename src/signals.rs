//! The signals that stop a long-lived command, for front ends: listen once, early, then
//! wait for the first.
//!
//! On Linux these are SIGINT and SIGTERM (the crate-private `platform` module holds the OS calls), so that
//! `serve` can answer every request in flight before it exits as a shell reports the
//! signal.

use std::io;

use crate::platform::sys::signal as sys;

/// Which signal asked the process to stop: defined in the platform seam, whose listeners
/// return it, so that `platform` needs nothing from this module.
pub use crate::platform::Stop;

/// Listeners for [`Stop`] signals. Made before the work starts, so that no signal arriving
/// later finds the default action (which would end the process with nothing flushed).
#[derive(Debug)]
pub struct StopSignals(sys::Listeners);

impl StopSignals {
    /// Starts listening. Needs a Tokio runtime with signals enabled.
    pub fn listen() -> io::Result<StopSignals> {
        sys::Listeners::new().map(StopSignals)
    }

    /// Waits for the next stop signal.
    pub async fn recv(&mut self) -> Stop {
        self.0.recv().await
    }
}
