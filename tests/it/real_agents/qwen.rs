//! Qwen Code 0.24.4: the eight checks.

use super::checks::*;
use super::*;

#[test]
fn qwen_runs_an_allowed_call() {
    an_allowed_call_runs("qwen_runs_an_allowed_call", &QWEN);
}

#[test]
fn qwen_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why() {
    a_blocked_call_does_not_run(
        "qwen_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why",
        &QWEN,
    );
}

#[test]
fn qwen_force_push_is_blocked_by_no_force_push_wasm() {
    no_force_push_blocks_a_force_push("qwen_force_push_is_blocked_by_no_force_push_wasm", &QWEN);
}

#[test]
fn qwen_write_file_of_dotenv_is_blocked_by_protect_paths_wasm() {
    protect_paths_blocks_a_write(
        "qwen_write_file_of_dotenv_is_blocked_by_protect_paths_wasm",
        &QWEN,
        ".env",
        ".env",
    );
}

#[test]
fn qwen_hands_the_model_a_prompt_hooks_context() {
    prompt_context_reaches_the_model("qwen_hands_the_model_a_prompt_hooks_context", &QWEN);
}

#[test]
fn qwen_sends_no_request_for_a_prompt_a_hook_blocks() {
    a_blocked_prompt_sends_nothing("qwen_sends_no_request_for_a_prompt_a_hook_blocks", &QWEN);
}

#[test]
fn qwen_does_not_run_a_call_when_a_hook_exits_1() {
    a_failing_hook_fails_closed(
        "qwen_does_not_run_a_call_when_a_hook_exits_1",
        &QWEN,
        "FAILHOOK",
        "failing",
        "exited with code 1",
    );
}

#[test]
fn qwen_does_not_run_a_call_when_a_hook_crashes() {
    a_failing_hook_fails_closed(
        "qwen_does_not_run_a_call_when_a_hook_crashes",
        &QWEN,
        "CRASHHOOK",
        "crashing",
        "was killed by a signal",
    );
}

/// Qwen Code 0.24.4 fires its prompt event again when it sends a tool result on, with an
/// empty `prompt` (docs/agents.md): that is not a prompt, so the prompt hooks' context
/// reaches the model once, not once per send.
#[test]
fn qwen_adds_a_prompt_hooks_context_once_even_after_a_tool_result() {
    let test = "qwen_adds_a_prompt_hooks_context_once_even_after_a_tool_result";
    let Some(w) = World::new(test, &QWEN) else {
        return;
    };
    let (result, outcome) = w.one_call("CONTEXT-PLEASE\nRUN: echo context-run");
    assert!(result.contains("context-run"), "{}", w.seen(&outcome));
    let turns = w.model.turns();
    assert_eq!(turns.len(), 2, "{}", w.seen(&outcome));
    for turn in &turns {
        assert_eq!(
            turn.raw.matches("CTX-TOKEN-93c1").count(),
            1,
            "{}",
            turn.raw
        );
    }
}
