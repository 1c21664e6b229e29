//! Listening for SIGINT and SIGTERM (for [`crate::signals`]).

use std::io;

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::platform::Stop;

/// One listener per stop signal.
#[derive(Debug)]
pub(crate) struct Listeners {
    interrupt: Signal,
    terminate: Signal,
}

impl Listeners {
    pub(crate) fn new() -> io::Result<Listeners> {
        Ok(Listeners {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    pub(crate) async fn recv(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
        }
    }
}
