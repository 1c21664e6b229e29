//! Running a gate's hooks in file order and turning their answers into one [`Verdict`].
//!
//! The first block ends the run. A failure follows the hook's `on_failure`: `block`
//! blocks with the spec's fixed message, `continue` skips the hook; either way one
//! warning per hook per turn. Contexts are framed and cut; a block drops them all.
//! Every message here is the spec's, to the letter, for the user's hooks; a session of
//! the administrator's hooks ([`HookOwner`]) names them so instead
//! (docs/contract.md#verdict-messages lists both).
//!
//! The verdict and its parts are in `verdict`, what a run tells its recorder in `events`,
//! whose hooks they are in `owner`, and every message, worded by that owner, in `messages`.

mod events;
mod messages;
mod owner;
mod verdict;

pub use events::{Recorder, RunEvent};
pub use messages::{
    block_message, context_cut_warning, failure_message, failure_warning, interrupted_message,
    unknown_tool_verdict, unnamed_block_message,
};
pub use owner::HookOwner;
pub use verdict::{ContextBlock, Decision, FailureKind, Outcome, Verdict};

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use tracing::Instrument;

use crate::answer::{self, Answer};
use crate::config::{Event, HookDef, OnFailure};
use crate::envelope::EnvelopeShape;
use crate::executor::{CancellationToken, Executor, Failure};

/// Contexts are cut to this many characters.
pub const CONTEXT_LIMIT: usize = 10_000;

/// Where a loaded hook runs; shown in the banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// An argv program on the host (sandbox = false, or a session with no sandbox).
    Host,
    /// An argv program inside the OS's box (bubblewrap, Seatbelt).
    Boxed,
    /// A WASM program under wasmtime.
    Wasm,
}

impl Placement {
    /// A short name for logs: `host`, `box` or `wasm`.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Host => "host",
            Placement::Boxed => "box",
            Placement::Wasm => "wasm",
        }
    }
}

/// A hook ready to run: its definition and its prepared executor.
pub struct LoadedHook {
    /// The definition as the session runs it.
    pub def: HookDef,
    /// Where it runs.
    pub placement: Placement,
    /// How it runs.
    pub executor: Arc<dyn Executor>,
}

/// What a gate protects: a tool call or a prompt.
#[derive(Debug, Clone, Copy)]
pub enum Gate<'a> {
    /// A tool call.
    Call {
        /// The tool's name.
        tool_name: &'a str,
        /// The call's id.
        tool_use_id: &'a str,
    },
    /// A prompt.
    Prompt {
        /// The prompt's text.
        prompt: &'a str,
    },
}

impl<'a> Gate<'a> {
    fn event(&self) -> Event {
        match self {
            Gate::Call { .. } => Event::PreToolUse,
            Gate::Prompt { .. } => Event::UserPromptSubmit,
        }
    }

    /// The tool's name, for a call (the `gate` span's `tool`).
    fn tool_name(&self) -> Option<&'a str> {
        match self {
            Gate::Call { tool_name, .. } => Some(tool_name),
            Gate::Prompt { .. } => None,
        }
    }
}

/// Per-turn state: which hooks have warned this turn.
#[derive(Debug, Default)]
pub struct Turn {
    warned: Mutex<HashSet<String>>,
}

impl Turn {
    /// Starts a new turn: warnings may be shown again.
    pub fn reset(&self) {
        if let Ok(mut warned) = self.warned.lock() {
            warned.clear();
        }
    }

    /// Marks `hooks` as having warned this turn: a session resumed within a turn (the
    /// next process of a bridged agent session) warns once per hook per turn, as one
    /// process would.
    pub fn seed(&self, hooks: impl IntoIterator<Item = String>) {
        if let Ok(mut warned) = self.warned.lock() {
            warned.extend(hooks);
        }
    }

    /// True the first time `hook` asks in this turn.
    fn first_warning(&self, hook: &str) -> bool {
        match self.warned.lock() {
            Ok(mut warned) => warned.insert(hook.to_string()),
            Err(_) => true,
        }
    }
}

/// A gate's input in each shape a hook may read ([`EnvelopeShape`]): the spec's envelope
/// always, Claude Code's shape when some hook of the gate reads it. Each hook gets the
/// one its `envelope` key names, or `default` (the session's) when it has none.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The spec's envelope, one line.
    pub spec: Arc<[u8]>,
    /// Claude Code's input, one line (`None` when no hook of the gate reads it).
    pub claude: Option<Arc<[u8]>>,
    /// The shape of a hook without an `envelope` key.
    pub default: EnvelopeShape,
}

impl Inputs {
    /// Only the spec's envelope: every hook reads it.
    pub fn spec(stdin: Arc<[u8]>) -> Inputs {
        Inputs {
            spec: stdin,
            claude: None,
            default: EnvelopeShape::Spec,
        }
    }

    /// The shape `hook` reads ([`HookDef::input_shape`]).
    pub fn shape_of(hook: &HookDef, default: EnvelopeShape) -> EnvelopeShape {
        hook.input_shape(default)
    }

    /// The bytes `hook` reads on stdin (the spec's envelope when Claude Code's shape was
    /// not built, which [`Inputs::shape_of`] lets the caller avoid).
    pub fn for_hook(&self, hook: &HookDef) -> &Arc<[u8]> {
        match &self.claude {
            Some(claude) if self.reads_claude(hook) => claude,
            _ => &self.spec,
        }
    }

    /// Whether `hook` reads Claude Code's shape (built for this gate).
    pub fn reads_claude(&self, hook: &HookDef) -> bool {
        self.claude.is_some() && Inputs::shape_of(hook, self.default) == EnvelopeShape::ClaudeCode
    }
}

/// `sha256:` and the hex digest of `bytes`.
pub fn input_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// Runs `hooks` (already filtered to those that cover the gate) in order with `stdin`.
///
/// Operators' logs (off unless a subscriber is installed): a `gate` span around the run
/// and a `hook` span per hook with its name, executor kind, outcome and failure kind.
/// The envelope itself is logged at trace level only, since it carries the agent's
/// prompts and tool inputs.
#[tracing::instrument(
    level = "debug",
    name = "gate",
    skip_all,
    fields(event = gate.event().as_str(), tool = gate.tool_name(), hooks = hooks.len())
)]
pub async fn run_gate(
    hooks: &[&LoadedHook],
    owner: HookOwner,
    gate: Gate<'_>,
    inputs: &Inputs,
    turn: &Turn,
    recorder: Option<&dyn Recorder>,
    cancel: &CancellationToken,
) -> Verdict {
    let event = gate.event();
    // Each shape's digest once per gate, and only when the gate is recorded: hooks of
    // one gate may read different shapes, but never need a digest computed twice.
    let digests = recorder.map(|_| {
        (
            input_digest(&inputs.spec),
            inputs.claude.as_deref().map(input_digest),
        )
    });
    let mut verdict = Verdict::allow();
    for hook in hooks {
        let name = hook.def.name.as_str();
        let stdin = inputs.for_hook(&hook.def);
        tracing::trace!(hook = name, envelope = %String::from_utf8_lossy(stdin), "hook input");
        let digest = match (&digests, inputs.reads_claude(&hook.def)) {
            (None, _) => "",
            (Some((_, Some(claude))), true) => claude.as_str(),
            (Some((spec, _)), _) => spec.as_str(),
        };
        if let Some(r) = recorder {
            r.record(RunEvent::HookStarted {
                hook: name,
                input_digest: digest,
                gate,
            });
        }
        let span = tracing::debug_span!(
            "hook",
            hook = name,
            executor = hook.placement.name(),
            outcome = tracing::field::Empty,
            failure = tracing::field::Empty,
        );
        let result = if cancel.is_cancelled() {
            Err(Failure::Interrupted)
        } else {
            hook.executor
                .run(stdin.clone(), cancel)
                .instrument(span.clone())
                .await
        };
        if let Some(r) = recorder {
            r.record(RunEvent::Effect {
                hook: name,
                input_digest: digest,
                result: &result,
            });
        }
        let said = match &result {
            Ok(output) => Ok(answer::interpret(event, output)),
            Err(Failure::Interrupted) => {
                span.record("outcome", "interrupted");
                decide(recorder, name, gate, Decision::Interrupted, "interrupted");
                let message = interrupted_message(gate, owner, name);
                return verdict.ended_by(Outcome::Interrupted, name, message);
            }
            Err(failure) => Err(FailureKind::Run(failure.clone())),
        };
        let kind = match said {
            Ok(Answer::NoObjection) => {
                span.record("outcome", "no objection");
                continue;
            }
            Ok(Answer::Block(reason)) => {
                span.record("outcome", "block");
                decide(recorder, name, gate, Decision::Block, &reason);
                let message = block_message(gate, owner, name, &reason);
                return verdict.ended_by(Outcome::Block, name, message);
            }
            Ok(Answer::Context(text)) => {
                span.record("outcome", "context");
                let text = cut_context(owner, name, text, &mut verdict.warnings);
                if let Some(r) = recorder {
                    r.record(RunEvent::Context {
                        hook: name,
                        text: &text,
                    });
                }
                verdict.context.push(ContextBlock {
                    hook: name.to_string(),
                    text,
                    owner,
                });
                continue;
            }
            Ok(Answer::Failed(kind)) => FailureKind::Answer(kind),
            Err(kind) => kind,
        };
        let kind = kind.to_string();
        let blocks = hook.def.on_failure == OnFailure::Block;
        span.record(
            "outcome",
            if blocks {
                "failed, blocked"
            } else {
                "failed, continued"
            },
        );
        span.record("failure", kind.as_str());
        let decision = if blocks {
            Decision::FailureBlocked
        } else {
            Decision::FailureContinued
        };
        decide(recorder, name, gate, decision, &kind);
        if turn.first_warning(name) {
            verdict
                .warnings
                .push(failure_warning(event, owner, name, &kind, blocks));
        }
        if blocks {
            let message = failure_message(gate, owner, name, &kind);
            return verdict.ended_by(Outcome::Block, name, message);
        }
    }
    verdict
}

/// `text` cut to [`CONTEXT_LIMIT`] characters, with a warning when it was longer.
fn cut_context(owner: HookOwner, hook: &str, text: String, warnings: &mut Vec<String>) -> String {
    match text.char_indices().nth(CONTEXT_LIMIT) {
        None => text,
        Some((cut, _)) => {
            warnings.push(context_cut_warning(owner, hook, text.chars().count()));
            text[..cut].to_string()
        }
    }
}

fn decide(
    recorder: Option<&dyn Recorder>,
    hook: &str,
    gate: Gate<'_>,
    decision: Decision,
    reason: &str,
) {
    if let Some(r) = recorder {
        r.record(RunEvent::Decided {
            hook,
            gate,
            decision,
            reason,
        });
    }
}

#[cfg(test)]
mod tests;
