//! `serve`'s stdin and stdout, read and written on the runtime's event loop.
//!
//! tokio's `stdin()`/`stdout()` run every read and every write on its blocking thread
//! pool: a request line crossed a reader thread, a worker and a writer thread before
//! its answer reached the agent, a thread wake-up at each step (most of a sequential
//! call's latency on a two-core machine). An agent talks to `serve` over a pipe or a
//! socket, both of which epoll can watch, so those are put in non-blocking mode and
//! driven by the runtime's reactor directly. When either is anything else (a terminal,
//! a file), or the reactor cannot take it, both keep tokio's thread-backed streams.
//!
//! Non-blocking mode belongs to the open file description, which the other holders of
//! the same pipe end share; [`FoundFlags`] puts back the flags serve found when it is
//! dropped, after the last answer.

use std::io::{self, Write};

use crate::platform::sys;

pub use crate::platform::sys::stdio::{FoundFlags, Input, Output};

/// The process's stdin and stdout as async streams, and how to leave them.
pub struct Stdio {
    /// Requests.
    pub input: Input,
    /// Answers.
    pub output: Output,
    /// Restores fds 0 and 1 when dropped.
    pub flags: FoundFlags,
}

impl Stdio {
    /// Opens fds 0 and 1: both on the event loop when both are pipes or sockets, both
    /// through tokio's blocking pool otherwise. Must run inside a runtime with I/O
    /// enabled.
    pub fn open() -> Stdio {
        let (input, output, found) = sys::stdio::on_event_loop();
        match (input, output) {
            (Some(Ok(input)), Some(Ok(output))) => Stdio {
                input,
                output,
                flags: found,
            },
            (input, output) => {
                // All or nothing: stdin and stdout may be one socket, whose mode the
                // thread-backed stream of the other half needs blocking.
                let failures = [input.and_then(Result::err), output.and_then(Result::err)];
                for failed in failures.into_iter().flatten() {
                    let _ = writeln!(
                        io::stderr(),
                        "hookhost: serve uses threads for stdio ({failed})"
                    );
                }
                found.restore();
                Stdio {
                    input: Box::new(tokio::io::stdin()),
                    output: Box::new(tokio::io::stdout()),
                    flags: FoundFlags::none(),
                }
            }
        }
    }
}
