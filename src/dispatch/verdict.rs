//! A gate's answer: the [`Verdict`], its [`Outcome`] and contexts, and why a hook's run
//! counted as a failure ([`FailureKind`]) or what was decided about it ([`Decision`]).

use serde::Serialize;

use super::HookOwner;
use crate::answer;
use crate::executor::Failure;

/// The verdict's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Go ahead (for a prompt: send it, with any context).
    Allow,
    /// Blocked by a hook or by a failing hook.
    Block,
    /// A hook was stopped (SIGINT or cancel); the call does not run.
    Interrupted,
}

/// One hook's context for a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextBlock {
    /// The hook that added it.
    pub hook: String,
    /// Its text, cut to [`super::CONTEXT_LIMIT`] characters.
    pub text: String,
    /// Whose hook it is (named in the frame; not part of the `--json` verdict).
    #[serde(skip)]
    pub owner: HookOwner,
}

impl ContextBlock {
    /// The block as the model reads it, framed.
    pub fn framed(&self) -> String {
        format!(
            "Context from {} hook \"{}\":\n{}",
            self.owner.possessive(),
            self.hook,
            self.text
        )
    }
}

/// The answer to one gate: the `--json` verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// Allow, block or interrupted.
    pub outcome: Outcome,
    /// What the model (or the user, for a prompt) reads when it is not an allow.
    pub message: Option<String>,
    /// The hook that blocked or was interrupted.
    pub hook: Option<String>,
    /// Contexts for a prompt, in file order (empty after a block).
    pub context: Vec<ContextBlock>,
    /// Warnings, the spec's lines.
    pub warnings: Vec<String>,
}

impl Verdict {
    /// A verdict with no hook involved.
    pub fn allow() -> Verdict {
        Verdict {
            outcome: Outcome::Allow,
            message: None,
            hook: None,
            context: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The end of a run that `hook` stopped (a block, a failure that blocks, an
    /// interrupt): its outcome and message; the contexts gathered so far are dropped,
    /// the warnings kept.
    pub(super) fn ended_by(mut self, outcome: Outcome, hook: &str, message: String) -> Verdict {
        self.outcome = outcome;
        self.message = Some(message);
        self.hook = Some(hook.to_string());
        self.context.clear();
        self
    }
}

/// Why a hook did not give a usable answer: from its run or from its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureKind {
    /// The executor's failure.
    Run(Failure),
    /// The output's failure.
    Answer(answer::AnswerFailure),
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FailureKind::Run(e) => e.fmt(f),
            FailureKind::Answer(e) => e.fmt(f),
        }
    }
}

/// What the dispatcher decided about one hook's run, for the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The hook blocked.
    Block,
    /// The hook failed and `on_failure = "block"` blocked.
    FailureBlocked,
    /// The hook failed and `on_failure = "continue"` let it through.
    FailureContinued,
    /// The hook was interrupted.
    Interrupted,
    /// The hook was not run (crash resume: changed since recorded).
    Skipped,
}
