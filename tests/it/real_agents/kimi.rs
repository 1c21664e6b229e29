//! Kimi Code 2.1.0: the eight checks.

use super::checks::*;
use super::*;

#[test]
fn kimi_runs_an_allowed_call() {
    an_allowed_call_runs("kimi_runs_an_allowed_call", &KIMI);
}

#[test]
fn kimi_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why() {
    a_blocked_call_does_not_run(
        "kimi_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why",
        &KIMI,
    );
}

#[test]
fn kimi_force_push_is_blocked_by_no_force_push_wasm() {
    no_force_push_blocks_a_force_push("kimi_force_push_is_blocked_by_no_force_push_wasm", &KIMI);
}

#[test]
fn kimi_write_of_a_pem_is_blocked_by_protect_paths_wasm() {
    // Kimi Code refuses a write of .env itself, before any hook (".env" matches a
    // sensitive-file pattern), so its test writes a file only the policy protects.
    protect_paths_blocks_a_write(
        "kimi_write_of_a_pem_is_blocked_by_protect_paths_wasm",
        &KIMI,
        "secrets/k.pem",
        "secrets/*.pem",
    );
}

#[test]
fn kimi_hands_the_model_a_prompt_hooks_context() {
    prompt_context_reaches_the_model("kimi_hands_the_model_a_prompt_hooks_context", &KIMI);
}

#[test]
fn kimi_sends_no_request_for_a_prompt_a_hook_blocks() {
    a_blocked_prompt_sends_nothing("kimi_sends_no_request_for_a_prompt_a_hook_blocks", &KIMI);
}

#[test]
fn kimi_does_not_run_a_call_when_a_hook_exits_1() {
    a_failing_hook_fails_closed(
        "kimi_does_not_run_a_call_when_a_hook_exits_1",
        &KIMI,
        "FAILHOOK",
        "failing",
        "exited with code 1",
    );
}

#[test]
fn kimi_does_not_run_a_call_when_a_hook_crashes() {
    a_failing_hook_fails_closed(
        "kimi_does_not_run_a_call_when_a_hook_crashes",
        &KIMI,
        "CRASHHOOK",
        "crashing",
        "was killed by a signal",
    );
}
