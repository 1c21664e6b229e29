//! Running a gate's hooks in file order and turning their answers into one [`Verdict`].
//!
//! The first block ends the run. A failure follows the hook's `on_failure`: `block`
//! blocks with the spec's fixed message, `continue` skips the hook; either way one
//! warning per hook per turn. Contexts are framed and cut; a block drops them all.
//! Every message here is the spec's, to the letter, for the user's hooks; a session of
//! the administrator's hooks ([`HookOwner`]) names them so instead
//! (docs/contract.md#verdict-messages lists both).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use sha2::{Digest, Sha256};
use tracing::Instrument;

use crate::answer::{self, Answer};
use crate::config::{Event, HookDef, OnFailure};
use crate::envelope::EnvelopeShape;
use crate::executor::{CancellationToken, Executor, Failure, RawOutput};

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

/// Whose hooks a session runs, as every message that names a hook says it: the user's own
/// (`[[hooks]]` in their config), or the administrator's (the system config of
/// `bridge --system`, docs/contract.md#system-mode). A property of the session, decided
/// where the session is made and recorded in its `session.started` line; the wording of
/// both lives here and nowhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HookOwner {
    /// The user's hooks: the spec's wording, to the letter.
    #[default]
    User,
    /// The administrator's system hooks, which the user cannot change.
    Administrator,
}

impl HookOwner {
    /// `the user's` or `the administrator's`, as in `blocked by the user's hook "x"`.
    pub fn possessive(self) -> &'static str {
        match self {
            HookOwner::User => "the user's",
            HookOwner::Administrator => "the administrator's",
        }
    }

    /// Whether these are the user's own hooks (the record leaves the field out then).
    pub fn is_user(&self) -> bool {
        *self == HookOwner::User
    }

    /// What the model is asked to tell the user about a failing hook: the spec's
    /// sentence for the user's own, and for the administrator's, that the user cannot
    /// fix it.
    fn failing_advice(self) -> &'static str {
        match self {
            HookOwner::User => "Tell the user their hook is failing.",
            HookOwner::Administrator => {
                "Tell the user their administrator's hook is failing. The user cannot fix it: only their administrator can."
            }
        }
    }

    /// Who can let a call of an unknown tool through, and where.
    fn unknown_tools_advice(self) -> &'static str {
        match self {
            HookOwner::User => {
                "tell the user, who can let such calls through with unknown_tools = \"allow\" in that hook or at the top of their hookhost config."
            }
            HookOwner::Administrator => {
                "tell the user. The user cannot change it: only their administrator can let such calls through, with unknown_tools = \"allow\" in that hook or at the top of the system hookhost config."
            }
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

impl Gate<'_> {
    fn event(&self) -> Event {
        match self {
            Gate::Call { .. } => Event::PreToolUse,
            Gate::Prompt { .. } => Event::UserPromptSubmit,
        }
    }
}

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
    /// Its text, cut to [`CONTEXT_LIMIT`] characters.
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
    fn ended_by(mut self, outcome: Outcome, hook: &str, message: String) -> Verdict {
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
pub async fn run_gate(
    hooks: &[&LoadedHook],
    owner: HookOwner,
    gate: Gate<'_>,
    inputs: &Inputs,
    turn: &Turn,
    recorder: Option<&dyn Recorder>,
    cancel: &CancellationToken,
) -> Verdict {
    let span = match gate {
        Gate::Call { tool_name, .. } => {
            tracing::debug_span!(
                "gate",
                event = "PreToolUse",
                tool = tool_name,
                hooks = hooks.len()
            )
        }
        Gate::Prompt { .. } => {
            tracing::debug_span!("gate", event = "UserPromptSubmit", hooks = hooks.len())
        }
    };
    run_hooks(hooks, owner, gate, inputs, turn, recorder, cancel)
        .instrument(span)
        .await
}

/// [`run_gate`]'s work, inside its span.
async fn run_hooks(
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
                let text = cut_context(name, text, &mut verdict.warnings);
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

/// What the model reads when a hook blocks a call, or what the user sees for a prompt.
pub fn block_message(gate: Gate<'_>, owner: HookOwner, hook: &str, reason: &str) -> String {
    match gate {
        Gate::Call { .. } => format!(
            "blocked by {} hook \"{hook}\": {reason}",
            owner.possessive()
        ),
        Gate::Prompt { .. } => format!("✗ prompt blocked by hook \"{hook}\": {reason}"),
    }
}

/// The verdict on a call of `agent`'s tool `tool`, which hookhost has no name for, blocked
/// because hook `hook` lists `tools` and has `unknown_tools = "block"`
/// (docs/contract.md#unknown_tools). The model reads the message (and most agents show
/// it to the user): it names the tool, the agent, whose hook it is and the key to change.
pub fn unknown_tool_verdict(
    owner: HookOwner,
    hook: &str,
    tools: &[String],
    agent: &str,
    tool: &str,
) -> Verdict {
    let listed: Vec<String> = tools.iter().map(|t| format!("{t:?}")).collect();
    let message = format!(
        "hookhost has no name for {agent}'s tool \"{tool}\", so {} hook \"{hook}\" (tools = [{}]) cannot tell whether this call is one it guards, and the call was blocked (unknown_tools = \"block\"). This is not a judgement of the call: {}",
        owner.possessive(),
        listed.join(", "),
        owner.unknown_tools_advice()
    );
    Verdict::allow().ended_by(Outcome::Block, hook, message)
}

/// The fixed message for a failure that `on_failure = "block"` turned into a block.
pub fn failure_message(gate: Gate<'_>, owner: HookOwner, hook: &str, kind: &str) -> String {
    match gate {
        Gate::Call { .. } => format!(
            "{} hook \"{hook}\" failed ({kind}), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. {}",
            owner.possessive(),
            owner.failing_advice()
        ),
        Gate::Prompt { .. } => format!("✗ prompt blocked: hook \"{hook}\" failed ({kind})"),
    }
}

/// The once-per-turn warning for a failing hook. The user's is the spec's; the
/// administrator's names the administrator and says that only they can fix it (the
/// user can neither change the hook nor start without it).
pub fn failure_warning(
    event: Event,
    owner: HookOwner,
    hook: &str,
    kind: &str,
    blocks: bool,
) -> String {
    let (covered, through) = match event {
        Event::PreToolUse => ("the calls it covers are blocked", "the call"),
        Event::UserPromptSubmit => ("your prompts are blocked", "the prompt"),
    };
    if owner == HookOwner::Administrator {
        return if blocks {
            format!(
                "⚠ the administrator's hook {hook} is failing ({kind}), so {covered}. Only your administrator can fix it."
            )
        } else {
            format!(
                "⚠ the administrator's hook {hook} failed ({kind}); on_failure = \"continue\" let {through} through."
            )
        };
    }
    if blocks {
        format!(
            "⚠ hook {hook} is failing ({kind}), so {covered}. Fix it, set on_failure = \"continue\", or restart with --no-hooks."
        )
    } else {
        format!("⚠ hook {hook} failed ({kind}); on_failure = \"continue\" let {through} through.")
    }
}

/// What the model (or the user) reads when a hook was interrupted.
pub fn interrupted_message(gate: Gate<'_>, owner: HookOwner, hook: &str) -> String {
    match gate {
        Gate::Call { .. } => format!(
            "interrupted while {} hook \"{hook}\" ran; the call did not run.",
            owner.possessive()
        ),
        Gate::Prompt { .. } => {
            format!("✗ prompt interrupted while hook \"{hook}\" ran; the prompt was not sent.")
        }
    }
}

fn cut_context(hook: &str, text: String, warnings: &mut Vec<String>) -> String {
    match text.char_indices().nth(CONTEXT_LIMIT) {
        None => text,
        Some((cut, _)) => {
            let total = text.chars().count();
            warnings.push(format!(
                "⚠ hook {hook} added {total} characters of context; only the first 10,000 are kept."
            ));
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
mod tests {
    //! Whose hook the messages name: the user's wording is the spec's, to the letter; a
    //! system session's names the administrator.
    use super::*;
    use crate::config::OnFailure;
    use crate::executor::{BoxFuture, ExitStatus};

    /// A hook that always gives the same result.
    struct Fixed(Result<RawOutput, Failure>);

    impl Executor for Fixed {
        fn run<'a>(
            &'a self,
            _stdin: Arc<[u8]>,
            _cancel: &'a CancellationToken,
        ) -> BoxFuture<'a, Result<RawOutput, Failure>> {
            Box::pin(std::future::ready(self.0.clone()))
        }
    }

    fn hook(event: Event, result: Result<RawOutput, Failure>) -> LoadedHook {
        LoadedHook {
            def: HookDef {
                name: "x".into(),
                event,
                command: vec!["/hooks/x".into()],
                tools: None,
                timeout: 10,
                sandbox: false,
                on_failure: OnFailure::Block,
                envelope: None,
            },
            placement: Placement::Host,
            executor: Arc::new(Fixed(result)),
        }
    }

    fn exited(code: i32, stdout: &str, stderr: &str) -> Result<RawOutput, Failure> {
        Ok(RawOutput {
            status: ExitStatus::Code(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
        })
    }

    const CALL: Gate<'static> = Gate::Call {
        tool_name: "bash",
        tool_use_id: "t",
    };

    async fn run(owner: HookOwner, gate: Gate<'_>, hook: LoadedHook) -> Verdict {
        let inputs = Inputs::spec(Arc::from(&b"{}\n"[..]));
        let cancel = CancellationToken::new();
        run_gate(
            &[&hook],
            owner,
            gate,
            &inputs,
            &Turn::default(),
            None,
            &cancel,
        )
        .await
    }

    async fn call_message(owner: HookOwner, result: Result<RawOutput, Failure>) -> String {
        let verdict = run(owner, CALL, hook(Event::PreToolUse, result)).await;
        verdict.message.unwrap_or_default()
    }

    #[tokio::test]
    async fn a_block_names_whose_hook_it_is() {
        let no = || exited(2, "", "force-push is not allowed here");
        assert_eq!(
            call_message(HookOwner::User, no()).await,
            "blocked by the user's hook \"x\": force-push is not allowed here"
        );
        assert_eq!(
            call_message(HookOwner::Administrator, no()).await,
            "blocked by the administrator's hook \"x\": force-push is not allowed here"
        );
    }

    #[tokio::test]
    async fn a_failure_tells_whom_to_ask() {
        let late = || Err(Failure::TimedOut(std::time::Duration::from_secs(10)));
        assert_eq!(
            call_message(HookOwner::User, late()).await,
            "the user's hook \"x\" failed (timed out after 10 s), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their hook is failing."
        );
        assert_eq!(
            call_message(HookOwner::Administrator, late()).await,
            "the administrator's hook \"x\" failed (timed out after 10 s), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their administrator's hook is failing. The user cannot fix it: only their administrator can."
        );
    }

    #[tokio::test]
    async fn a_failure_warning_says_who_can_fix_it() {
        let warnings = |owner| async move {
            let verdict = run(owner, CALL, hook(Event::PreToolUse, exited(1, "", ""))).await;
            verdict.warnings
        };
        assert_eq!(
            warnings(HookOwner::User).await,
            [
                "⚠ hook x is failing (exited with code 1), so the calls it covers are blocked. Fix it, set on_failure = \"continue\", or restart with --no-hooks."
            ]
        );
        assert_eq!(
            warnings(HookOwner::Administrator).await,
            [
                "⚠ the administrator's hook x is failing (exited with code 1), so the calls it covers are blocked. Only your administrator can fix it."
            ]
        );
        assert_eq!(
            failure_warning(
                Event::UserPromptSubmit,
                HookOwner::Administrator,
                "x",
                "exited with code 1",
                false
            ),
            "⚠ the administrator's hook x failed (exited with code 1); on_failure = \"continue\" let the prompt through."
        );
    }

    #[tokio::test]
    async fn an_interrupt_names_whose_hook_it_is() {
        let stopped = || Err(Failure::Interrupted);
        assert_eq!(
            call_message(HookOwner::User, stopped()).await,
            "interrupted while the user's hook \"x\" ran; the call did not run."
        );
        assert_eq!(
            call_message(HookOwner::Administrator, stopped()).await,
            "interrupted while the administrator's hook \"x\" ran; the call did not run."
        );
    }

    #[tokio::test]
    async fn a_context_is_framed_with_whose_hook_it_is() {
        let prompt = Gate::Prompt { prompt: "p" };
        let context = |owner| async move {
            let said = exited(0, "use the seed skill", "");
            let verdict = run(owner, prompt, hook(Event::UserPromptSubmit, said)).await;
            verdict
                .context
                .iter()
                .map(ContextBlock::framed)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            context(HookOwner::User).await,
            ["Context from the user's hook \"x\":\nuse the seed skill"]
        );
        assert_eq!(
            context(HookOwner::Administrator).await,
            ["Context from the administrator's hook \"x\":\nuse the seed skill"]
        );
        // The owner is not part of the `--json` verdict.
        let verdict = run(
            HookOwner::Administrator,
            prompt,
            hook(Event::UserPromptSubmit, exited(0, "c", "")),
        )
        .await;
        assert_eq!(
            serde_json::to_value(&verdict.context).unwrap(),
            serde_json::json!([{"hook": "x", "text": "c"}])
        );
    }

    #[test]
    fn an_unknown_tool_says_who_can_let_it_through() {
        let tools = ["bash".to_string()];
        let message = |owner| {
            unknown_tool_verdict(owner, "x", &tools, "Claude Code", "Frobnicate")
                .message
                .unwrap_or_default()
        };
        assert_eq!(
            message(HookOwner::User),
            "hookhost has no name for Claude Code's tool \"Frobnicate\", so the user's hook \"x\" (tools = [\"bash\"]) cannot tell whether this call is one it guards, and the call was blocked (unknown_tools = \"block\"). This is not a judgement of the call: tell the user, who can let such calls through with unknown_tools = \"allow\" in that hook or at the top of their hookhost config."
        );
        assert_eq!(
            message(HookOwner::Administrator),
            "hookhost has no name for Claude Code's tool \"Frobnicate\", so the administrator's hook \"x\" (tools = [\"bash\"]) cannot tell whether this call is one it guards, and the call was blocked (unknown_tools = \"block\"). This is not a judgement of the call: tell the user. The user cannot change it: only their administrator can let such calls through, with unknown_tools = \"allow\" in that hook or at the top of the system hookhost config."
        );
    }

    #[test]
    fn prompt_messages_name_no_owner() {
        let prompt = Gate::Prompt { prompt: "p" };
        for owner in [HookOwner::User, HookOwner::Administrator] {
            assert_eq!(
                block_message(prompt, owner, "x", "no"),
                "✗ prompt blocked by hook \"x\": no"
            );
            assert_eq!(
                failure_message(prompt, owner, "x", "timed out after 5 s"),
                "✗ prompt blocked: hook \"x\" failed (timed out after 5 s)"
            );
        }
    }
}
