//! What a gate's run tells whoever records the session: a [`RunEvent`] per step, in
//! order, to a [`Recorder`].

use super::{Decision, Gate, Verdict};
use crate::executor::{Failure, RawOutput};

/// What happens during a gate, in order, for whoever records the session.
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// A hook is about to run with this input.
    HookStarted {
        /// The hook.
        hook: &'a str,
        /// `sha256:` of the exact stdin bytes.
        input_digest: &'a str,
        /// What it gates.
        gate: Gate<'a>,
    },
    /// A hook ran: its output or its failure.
    Effect {
        /// The hook.
        hook: &'a str,
        /// `sha256:` of the exact stdin bytes.
        input_digest: &'a str,
        /// What came back from the executor.
        result: &'a Result<RawOutput, Failure>,
    },
    /// A block, failure, interrupt or skipped run.
    Decided {
        /// The hook.
        hook: &'a str,
        /// What it gates.
        gate: Gate<'a>,
        /// The decision.
        decision: Decision,
        /// The reason or the failure kind.
        reason: &'a str,
    },
    /// A context was kept.
    Context {
        /// The hook.
        hook: &'a str,
        /// The text as kept.
        text: &'a str,
    },
    /// A gate that ran hooks has its verdict (sent by the host after the run, with what
    /// replay needs to rebuild the hooks' input).
    Verdict {
        /// What it gated.
        gate: Gate<'a>,
        /// The call's arguments as the hooks saw them (paths made relative); `None` for
        /// a prompt.
        tool_input: Option<&'a serde_json::Value>,
        /// The verdict.
        verdict: &'a Verdict,
        /// A bridged gate whose hooks read Claude Code's shape: what it was made from.
        bridged: Option<&'a crate::call::ClaudeInputSource>,
    },
    /// A new turn began (warnings may be shown again).
    TurnEnded,
}

/// Receives a gate's [`RunEvent`]s (the session record implements it).
pub trait Recorder: Send + Sync {
    /// Called for each event, in order.
    fn record(&self, event: RunEvent<'_>);
}
