//! hookhost's own exit statuses, decided here and nowhere else.
//!
//! These are the statuses of hookhost's own commands (`check`, `pre-tool-use`, `prompt`,
//! `serve`, `replay`, `eval`, `box`, `log`). The bridge answers in each calling agent's
//! exit-code language instead, where 2 means *deny*: it must never return an [`Exit`].

use std::process::ExitCode;

use hookhost::dispatch::Outcome;

/// Why a command ended, which fixes its exit status (docs/contract.md#command-line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: go ahead, the session can start, every case passed, every verdict matched.
    Success,
    /// 1: blocked, or a command's check said no (a case failed, a verdict differed), or
    /// `serve` stopped without an answer for every request.
    No,
    /// 2: could not run: a load error, a refusal at start, bad input, an unreadable file.
    CouldNotRun,
    /// 130: interrupted by SIGINT, as a shell reports it.
    Interrupted,
    /// 141: stdout could not be written (the reader went away), as a shell reports SIGPIPE.
    OutputClosed,
    /// 143: ended by SIGTERM, as a shell reports it.
    Terminated,
    /// `hookhost box`: the boxed command's own status (1 when it had none: a signal).
    Boxed(Option<i32>),
}

impl Exit {
    /// The status of a gate's verdict.
    pub fn of(outcome: Outcome) -> Exit {
        match outcome {
            Outcome::Allow => Exit::Success,
            Outcome::Block => Exit::No,
            Outcome::Interrupted => Exit::Interrupted,
        }
    }

    /// [`Exit::Success`] when `yes`, else [`Exit::No`].
    pub fn success_if(yes: bool) -> Exit {
        if yes { Exit::Success } else { Exit::No }
    }

    /// The number the process exits with.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::No => 1,
            Exit::CouldNotRun => 2,
            Exit::Interrupted => 130,
            Exit::OutputClosed => 141,
            Exit::Terminated => 143,
            Exit::Boxed(Some(code)) => u8::try_from(code).unwrap_or(1),
            Exit::Boxed(None) => 1,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statuses_are_designs() {
        assert_eq!(Exit::of(Outcome::Allow).code(), 0);
        assert_eq!(Exit::of(Outcome::Block).code(), 1);
        assert_eq!(Exit::of(Outcome::Interrupted).code(), 130);
        assert_eq!(Exit::CouldNotRun.code(), 2);
        assert_eq!(Exit::OutputClosed.code(), 141);
        assert_eq!(Exit::Terminated.code(), 143);
        assert_eq!(Exit::Boxed(Some(7)).code(), 7);
        assert_eq!(Exit::Boxed(Some(300)).code(), 1);
        assert_eq!(Exit::Boxed(None).code(), 1);
    }
}
