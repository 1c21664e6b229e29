//! A box's trial run at session start (bubblewrap's, Seatbelt's): the program once on
//! `true`, within a time limit, and why it failed.

use std::io;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// How long a trial run may take.
pub(crate) const TRIAL_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a trial run failed.
pub(crate) enum TrialFailure {
    /// The program could not be started.
    Spawn(io::Error),
    /// It did not finish within [`TRIAL_TIMEOUT`] (it was killed).
    TooSlow,
    /// Waiting for it failed.
    Wait(io::Error),
    /// It ended unsuccessfully, with the first line it wrote to stderr (or "no message").
    Failed(ExitStatus, String),
}

/// Runs `command` (stderr piped by the caller) once and waits at most [`TRIAL_TIMEOUT`].
pub(crate) fn trial_run(command: &mut Command) -> Result<(), TrialFailure> {
    let mut child = command.spawn().map_err(TrialFailure::Spawn)?;
    let deadline = Instant::now() + TRIAL_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(TrialFailure::TooSlow);
            }
            Err(e) => return Err(TrialFailure::Wait(e)),
        }
    };
    if status.success() {
        return Ok(());
    }
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = io::Read::read_to_string(&mut e, &mut stderr);
    }
    let said = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .trim()
        .to_owned();
    Err(TrialFailure::Failed(status, said))
}
