//! Windows: Ctrl-C and Ctrl-Break as the stop signals (for [`crate::signals`]).

use std::io;

use tokio::signal::windows::{CtrlBreak, CtrlC, ctrl_break, ctrl_c};

use crate::platform::Stop;

/// One listener per stop event.
#[derive(Debug)]
pub(crate) struct Listeners {
    interrupt: CtrlC,
    terminate: CtrlBreak,
}

impl Listeners {
    pub(crate) fn new() -> io::Result<Listeners> {
        Ok(Listeners {
            interrupt: ctrl_c()?,
            terminate: ctrl_break()?,
        })
    }

    pub(crate) async fn recv(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
        }
    }
}
