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

/// Kimi Code opens `~/…` in the home folder (`expandUserPath`): the policy sees the file
/// it opens, not a folder named `~` in the project (docs/agents.md#every-file-a-call-touches).
#[test]
fn kimi_write_of_a_pem_under_the_home_is_blocked_by_protect_paths_wasm() {
    protect_paths_blocks_a_write_spelled(
        "kimi_write_of_a_pem_under_the_home_is_blocked_by_protect_paths_wasm",
        &KIMI,
        "~/../project/secrets/k.pem",
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

/// What Kimi Code does instead with a `.env` write: it refuses it itself, before any hook
/// (so hookhost's record holds no call), and the model reads its reason.
#[test]
fn kimi_refuses_a_write_of_dotenv_itself_before_any_hook() {
    let test = "kimi_refuses_a_write_of_dotenv_itself_before_any_hook";
    let Some(w) = World::new(test, &KIMI) else {
        return;
    };
    let (result, outcome) = w.one_call("WRITE: .env SECRET=1");
    assert!(!w.project().join(".env").exists(), "{}", w.seen(&outcome));
    assert_eq!(
        result,
        "<system>ERROR: Tool execution failed.</system>\n\".env\" matches a sensitive-file \
         pattern (env / credential / SSH key). Access is blocked to protect secrets.",
        "{}",
        w.seen(&outcome)
    );
    // No PreToolUse reached the bridge: no call's gate (one with `tool_input`) was
    // recorded, only the prompt's.
    let folder = w.scene.state().join("hookhost/kimi-code");
    let records: String = std::fs::read_dir(&folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    assert!(records.contains("gate.verdict"), "{records}");
    assert!(!records.contains("\"tool_input\""), "{records}");
}

#[test]
fn kimi_sends_no_request_for_a_prompt_the_bridge_cannot_start_for() {
    a_bridge_that_cannot_start_blocks_the_prompt(
        "kimi_sends_no_request_for_a_prompt_the_bridge_cannot_start_for",
        &KIMI,
    );
}
