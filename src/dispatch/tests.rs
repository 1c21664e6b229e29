//! Whose hook the messages name: the user's wording is the spec's, to the letter; a
//! system session's names the administrator.

use super::*;
use crate::config::OnFailure;
use crate::executor::{BoxFuture, ExitStatus, RawOutput};

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

/// A context cut to its limit warns in the owner's words: the user's is the spec's.
#[tokio::test]
async fn a_cut_context_warning_names_whose_hook_it_is() {
    let prompt = Gate::Prompt { prompt: "p" };
    let long = "é".repeat(CONTEXT_LIMIT + 5);
    let cut = |owner| {
        let said = exited(0, &long, "");
        async move {
            let verdict = run(owner, prompt, hook(Event::UserPromptSubmit, said)).await;
            assert_eq!(verdict.context[0].text.chars().count(), CONTEXT_LIMIT);
            verdict.warnings
        }
    };
    assert_eq!(
        cut(HookOwner::User).await,
        ["⚠ hook x added 10005 characters of context; only the first 10,000 are kept."]
    );
    assert_eq!(
        cut(HookOwner::Administrator).await,
        [
            "⚠ the administrator's hook x added 10005 characters of context; only the first 10,000 are kept."
        ]
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
