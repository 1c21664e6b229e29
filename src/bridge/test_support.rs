//! What every agent's tests feed its `answer`: the outcomes of real verdicts.
use super::*;
use crate::dispatch::{Gate, HookOwner, block_message, failure_message, failure_warning};

pub(crate) const CALL: Gate<'static> = Gate::Call {
    tool_name: "bash",
    tool_use_id: "t",
};
pub(crate) const PROMPT: Gate<'static> = Gate::Prompt { prompt: "p" };

/// A hook blocked the call.
pub(crate) fn blocked_call() -> Ruling {
    Ruling::block(block_message(
        CALL,
        HookOwner::User,
        "no-force-push",
        "force-push is not allowed here",
    ))
}

/// A hook blocked the prompt.
pub(crate) fn blocked_prompt() -> Ruling {
    Ruling::block(block_message(
        PROMPT,
        HookOwner::User,
        "keywords",
        "not today",
    ))
}

/// A hook timed out with `on_failure = "block"`: the spec's fixed message and warning.
pub(crate) fn failed_call() -> Ruling {
    let kind = "timed out after 10 s";
    Ruling {
        block: Some(failure_message(
            CALL,
            HookOwner::User,
            "no-force-push",
            kind,
        )),
        warnings: vec![failure_warning(
            crate::config::Event::PreToolUse,
            HookOwner::User,
            "no-force-push",
            kind,
            true,
        )],
        ..Ruling::default()
    }
}

/// A hook failed with `on_failure = "continue"`: no objection and a warning.
pub(crate) fn continued_call() -> Ruling {
    Ruling {
        warnings: vec![failure_warning(
            crate::config::Event::PreToolUse,
            HookOwner::User,
            "audit",
            "exited with code 1",
            false,
        )],
        ..Ruling::default()
    }
}

/// A prompt hook added context.
pub(crate) fn context() -> Ruling {
    Ruling {
        context: Some("Context from the user's hook \"keywords\":\n<skill-suggestion>/ouroboros:seed</skill-suggestion>".into()),
        context_hooks: vec!["keywords".into()],
        ..Ruling::default()
    }
}

/// The session refused to start.
pub(crate) fn refused() -> Ruling {
    Ruling::refused(
        "hook no-force-push: /home/u/p/hooks/check.sh is in the project, so the agent could change it. Move it outside (for example ~/.local/share/harness/hooks/), or start with --no-hooks.",
    )
}

/// A payload from `examples/agents/`.
pub(crate) fn payload(text: &str) -> Value {
    serde_json::from_str(text).expect("a sample payload is JSON")
}

/// The reply's stdout as JSON.
pub(crate) fn stdout_json(reply: &Reply) -> Value {
    serde_json::from_str(&reply.stdout).expect("stdout is one JSON object")
}
