//! Every message a gate's run gives (blocks, failures, interrupts, warnings), worded by
//! whose hooks the session runs ([`HookOwner`]). The user's are the spec's, to the letter;
//! docs/contract.md#messages lists both wordings.

use super::{Gate, HookOwner, Outcome, Verdict};
use crate::config::Event;

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

/// The message of a block whose verdict carries none (every block of a gate's run has
/// one; a verdict built elsewhere may not): whose hook it was, as every other message says.
pub fn unnamed_block_message(owner: HookOwner) -> String {
    format!("blocked by {} hook", owner.possessive())
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

/// The warning for a context of `total` characters, cut to the first
/// [`super::CONTEXT_LIMIT`]. The user's is the spec's; the administrator's names the
/// administrator, as the failing-hook warning does.
pub fn context_cut_warning(owner: HookOwner, hook: &str, total: usize) -> String {
    let whose = match owner {
        HookOwner::User => format!("hook {hook}"),
        HookOwner::Administrator => format!("the administrator's hook {hook}"),
    };
    format!("⚠ {whose} added {total} characters of context; only the first 10,000 are kept.")
}
