//! `hookhost serve`: starts the session in [`Mode::Serve`] and serves stdin/stdout
//! ([`hookhost::serve`] is the protocol).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use hookhost::executor::CancellationToken;
use hookhost::serve::{Ended, refused_line, run_on_stdio};
use hookhost::session::{Mode, Session};
use hookhost::signals::{Stop, StopSignals};
use tokio::io::AsyncWriteExt;

use super::exit::Exit;
use super::{GlobalOptions, ResumeArgs, say};

/// Runs inside the multi-thread runtime [`super::main`] builds for `serve`. Exit status:
/// 0 at end of input, 2 when the session could not start (after the `refused` line),
/// 130 after SIGINT, 143 after SIGTERM, 141 when stdout could not be written.
pub async fn command(global: &GlobalOptions, resume: &ResumeArgs) -> Exit {
    // Listen before the session starts, so that no signal finds the default action.
    let interrupt = CancellationToken::new();
    const NO_SIGNAL: u8 = 0;
    const SIGTERM: u8 = 1;
    let stopped_by = Arc::new(AtomicU8::new(NO_SIGNAL));
    match StopSignals::listen() {
        Ok(mut signals) => {
            let interrupt = interrupt.clone();
            let stopped_by = stopped_by.clone();
            tokio::spawn(async move {
                if signals.recv().await == Stop::Terminate {
                    stopped_by.store(SIGTERM, Ordering::SeqCst);
                }
                interrupt.cancel();
            });
        }
        Err(e) => {
            say(&format!(
                "hookhost: cannot listen for SIGINT and SIGTERM: {e}"
            ));
            return Exit::CouldNotRun;
        }
    }
    let mut options = global.session_options(Mode::Serve);
    options.resume = resume.resume_from();
    let started = tokio::task::block_in_place(|| {
        // Its boxed hooks start the small entry program this binary carries; its host
        // hooks' namespaces are made ahead of their calls, by this binary.
        hookhost::sandbox::prepare_carried_entry();
        hookhost::process::prepare_host_namespaces_ahead_by_this_binary();
        Session::start(options)
    });
    let session = match started {
        Ok(session) => session,
        Err(e) => {
            let mut stdout = tokio::io::stdout();
            let mut line = refused_line(&e);
            line.push('\n');
            let _ = stdout.write_all(line.as_bytes()).await;
            let _ = stdout.flush().await;
            return Exit::CouldNotRun;
        }
    };
    match run_on_stdio(session, interrupt).await {
        Ok(Ended::EndOfInput) => Exit::Success,
        Ok(Ended::OutputClosed) => Exit::OutputClosed,
        Ok(Ended::Interrupted) => match stopped_by.load(Ordering::SeqCst) {
            SIGTERM => Exit::Terminated,
            _ => Exit::Interrupted,
        },
        Err(e) => {
            say(&format!("hookhost: serve stopped: {e}"));
            Exit::No
        }
    }
}
