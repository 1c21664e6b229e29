//! A box's trial run at session start (bubblewrap's, Seatbelt's): the program once on
//! `true`, within a time limit, and why it failed.

use std::io;
use std::os::fd::AsRawFd;
use std::process::{ChildStderr, Command, ExitStatus};
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

/// How long the trial run's stderr is waited on before the program is polled again.
///
/// The wait ends early when the stderr pipe closes, that is, when the program (and what
/// it started) exited: bubblewrap's trial takes about 5 ms, so a fixed tick of this
/// length was itself about half of a boxed call's start (BENCHMARKS.md, fifteenth
/// sitting). The tick only matters when something keeps stderr open past the program's
/// exit, or when stderr is not piped.
const TICK: Duration = Duration::from_millis(5);

/// The most of its stderr a trial run keeps (its first non-blank line is reported).
const STDERR_KEPT: usize = 64 * 1024;

/// Runs `command` (stderr piped by the caller) once and waits at most [`TRIAL_TIMEOUT`].
pub(crate) fn trial_run(command: &mut Command) -> Result<(), TrialFailure> {
    trial_run_until(command, Instant::now() + TRIAL_TIMEOUT)
}

fn trial_run_until(command: &mut Command, deadline: Instant) -> Result<(), TrialFailure> {
    let mut child = command.spawn().map_err(TrialFailure::Spawn)?;
    let mut stderr = child.stderr.take();
    let mut said = Vec::new();
    // Once stderr closed, the program is in its exit: it is polled at a short interval
    // that grows, since the kernel closes its files just before it becomes waitable.
    let mut exit_poll = Duration::from_micros(50);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() < deadline => match stderr.as_mut() {
                Some(pipe) => {
                    let limit = TICK.min(deadline.saturating_duration_since(Instant::now()));
                    if read_or_wait(pipe, &mut said, limit) == Pipe::Closed {
                        stderr = None;
                    }
                }
                None => {
                    std::thread::sleep(exit_poll);
                    exit_poll = (exit_poll * 2).min(TICK);
                }
            },
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
    if let Some(mut pipe) = stderr {
        // The program exited; what is already in the pipe is read, without waiting (a
        // descendant may still hold the pipe open, and write to it).
        while said.len() < STDERR_KEPT
            && read_or_wait(&mut pipe, &mut said, Duration::ZERO) == Pipe::Read
        {}
    }
    let said = String::from_utf8_lossy(&said);
    let said = said
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .trim()
        .to_owned();
    Err(TrialFailure::Failed(status, said))
}

/// What [`read_or_wait`] found.
#[derive(PartialEq)]
enum Pipe {
    /// Something was read.
    Read,
    /// Nothing to read within the limit.
    Quiet,
    /// The pipe is closed (or can no longer be read).
    Closed,
}

/// Waits at most `limit` for `pipe` to have something to read or to close, and reads
/// what is there into `said` (kept up to [`STDERR_KEPT`]).
fn read_or_wait(pipe: &mut ChildStderr, said: &mut Vec<u8>, limit: Duration) -> Pipe {
    let mut poll_fd = libc::pollfd {
        fd: pipe.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // Rounded up, so that a limit under a millisecond still waits rather than spins.
    let timeout_ms = limit.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
    // SAFETY: one valid pollfd, borrowed for the call; the fd stays open (owned by `pipe`).
    let ready = unsafe { libc::poll(&mut poll_fd, 1, timeout_ms) };
    if ready < 0 {
        return match io::Error::last_os_error().kind() {
            io::ErrorKind::Interrupted => Pipe::Quiet,
            _ => Pipe::Closed,
        };
    }
    if ready == 0 {
        return Pipe::Quiet;
    }
    let mut buf = [0u8; 4096];
    match io::Read::read(pipe, &mut buf) {
        Ok(0) => Pipe::Closed,
        Ok(n) => {
            let room = STDERR_KEPT.saturating_sub(said.len());
            said.extend_from_slice(&buf[..n.min(room)]);
            Pipe::Read
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Pipe::Quiet,
        Err(_) => Pipe::Closed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;

    fn sh(script: &str) -> Command {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd
    }

    #[test]
    fn a_trial_that_succeeds_is_ok() {
        assert!(trial_run(&mut sh("exit 0")).is_ok());
    }

    #[test]
    fn a_failed_trial_says_its_first_line_of_stderr() {
        match trial_run(&mut sh(
            "echo >&2; echo '  no userns  ' >&2; echo more >&2; exit 3",
        )) {
            Err(TrialFailure::Failed(status, said)) => {
                assert_eq!(status.code(), Some(3));
                assert_eq!(said, "no userns");
            }
            _ => panic!("the trial should have failed"),
        }
        match trial_run(&mut sh("exit 1")) {
            Err(TrialFailure::Failed(_, said)) => assert_eq!(said, "no message"),
            _ => panic!("the trial should have failed"),
        }
    }

    #[test]
    fn a_descendant_holding_stderr_open_does_not_hold_up_the_trial() {
        // The program ends at once; what it started keeps stderr open (and writes to it)
        // for 20 s. The trial is decided by the program's exit, not the pipe's.
        let started = Instant::now();
        match trial_run(&mut sh(
            "(i=0; while [ $i -lt 200 ]; do echo noise >&2; sleep 0.1; i=$((i+1)); done) & echo gone >&2; exit 2",
        )) {
            Err(TrialFailure::Failed(status, said)) => {
                assert_eq!(status.code(), Some(2));
                assert!(said == "gone" || said == "noise", "{said}");
            }
            _ => panic!("the trial should have failed"),
        }
        assert!(trial_run(&mut sh("(sleep 20) & exit 0")).is_ok());
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the trial waited for the descendant"
        );
    }

    #[test]
    fn a_trial_past_its_time_is_too_slow_and_killed() {
        // A shorter deadline than TRIAL_TIMEOUT, the same loop.
        let mut cmd = sh("exec sleep 600");
        assert!(matches!(
            trial_run_until(&mut cmd, Instant::now() + Duration::from_millis(200)),
            Err(TrialFailure::TooSlow)
        ));
    }
}
