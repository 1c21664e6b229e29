//! Codex CLI 0.171.0: the eight checks.

use super::checks::*;
use super::*;

#[test]
fn codex_runs_an_allowed_call() {
    an_allowed_call_runs("codex_runs_an_allowed_call", &CODEX);
}

#[test]
fn codex_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why() {
    a_blocked_call_does_not_run(
        "codex_does_not_run_a_call_a_shell_hook_blocks_and_the_model_reads_why",
        &CODEX,
    );
}

#[test]
fn codex_force_push_is_blocked_by_no_force_push_wasm() {
    no_force_push_blocks_a_force_push("codex_force_push_is_blocked_by_no_force_push_wasm", &CODEX);
}

#[test]
fn codex_apply_patch_adding_dotenv_is_blocked_by_protect_paths_wasm() {
    protect_paths_blocks_a_write(
        "codex_apply_patch_adding_dotenv_is_blocked_by_protect_paths_wasm",
        &CODEX,
        ".env",
        ".env",
    );
}

#[test]
fn codex_hands_the_model_a_prompt_hooks_context() {
    prompt_context_reaches_the_model("codex_hands_the_model_a_prompt_hooks_context", &CODEX);
}

#[test]
fn codex_sends_no_request_for_a_prompt_a_hook_blocks() {
    a_blocked_prompt_sends_nothing("codex_sends_no_request_for_a_prompt_a_hook_blocks", &CODEX);
}

#[test]
fn codex_does_not_run_a_call_when_a_hook_exits_1() {
    a_failing_hook_fails_closed(
        "codex_does_not_run_a_call_when_a_hook_exits_1",
        &CODEX,
        "FAILHOOK",
        "failing",
        "exited with code 1",
    );
}

#[test]
fn codex_does_not_run_a_call_when_a_hook_crashes() {
    a_failing_hook_fails_closed(
        "codex_does_not_run_a_call_when_a_hook_crashes",
        &CODEX,
        "CRASHHOOK",
        "crashing",
        "was killed by a signal",
    );
}

#[test]
fn codex_calls_are_judged_by_the_warm_server_through_hookhost_client() {
    the_warm_server_judges_the_agents_calls(
        "codex_calls_are_judged_by_the_warm_server_through_hookhost_client",
        &CODEX,
    );
}

#[test]
fn codex_sends_no_request_for_a_prompt_the_bridge_cannot_start_for() {
    a_bridge_that_cannot_start_blocks_the_prompt(
        "codex_sends_no_request_for_a_prompt_the_bridge_cannot_start_for",
        &CODEX,
    );
}

/// A `PreToolUse` hook in the project's `.codex/hooks.json`, trusted in the user's
/// config.toml as `install` trusts hookhost's (Codex 0.171.0 then runs the command it
/// answers with, after hookhost allowed the one it was shown): every call is refused.
#[test]
fn codex_runs_no_call_a_hooks_json_hook_could_rewrite() {
    a_hook_that_could_rewrite_a_call_blocks_it(
        "codex_runs_no_call_a_hooks_json_hook_could_rewrite",
        &CODEX,
        |w| w.project().join(".codex/hooks.json"),
        "PreToolUse",
        |command| {
            serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": command, "timeout": 30}
            ]}]}})
        },
        |w, file, command| trust(w, file, command, ""),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo FORBIDDEN > ran.txt"}}}"#,
    );
}

/// Trusts the `PreToolUse` hook running `command` (matcher `*`, timeout 30) of the hook
/// file `file` in the user's config.toml, as `install` trusts hookhost's, with `more`
/// written before it.
fn trust(w: &World, file: &std::path::Path, command: &str, more: &str) {
    use hookhost::bridge::install::codex_trust::{HookIdentity, trust_key, trusted_hash};
    let hash = trusted_hash(&HookIdentity {
        event: "PreToolUse",
        matcher: Some("*"),
        command,
        timeout: Some(30),
        run_async: false,
        status_message: None,
        additional_context_limit: None,
    });
    let config = w.home.join(".codex/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(more);
    text.push_str(&format!(
        "\n[hooks.state.\"{}\"]\ntrusted_hash = \"{hash}\"\n",
        trust_key(file, "PreToolUse", 0, 0)
    ));
    std::fs::write(&config, text).unwrap();
}

/// In a linked git worktree, Codex 0.171.0 reads a project layer's `hooks.json` from the
/// main checkout's matching `.codex/` (seen: a trusted hook there rewrote a call made in
/// the worktree, which hookhost had allowed). It is read as the project's own: every call
/// is refused, and nothing runs.
#[test]
fn codex_runs_no_call_the_main_checkouts_hooks_json_could_rewrite_in_a_worktree() {
    let Some(w) = World::new(
        "codex_runs_no_call_the_main_checkouts_hooks_json_could_rewrite_in_a_worktree",
        &CODEX,
    ) else {
        return;
    };
    let worktree = w.scene.root.path().join("wt");
    git(
        w.project(),
        &[
            "worktree",
            "add",
            "-q",
            worktree.to_str().unwrap(),
            "-b",
            "wt",
        ],
    );
    // A project layer in the worktree (its hooks are then read from the main checkout).
    std::fs::create_dir_all(worktree.join(".codex")).unwrap();
    std::fs::write(worktree.join(".codex/config.toml"), "# the team's\n").unwrap();
    let script = w.scene.root.path().join("rewrite.sh");
    let rewrite = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo FORBIDDEN > ran.txt"}}}"#;
    std::fs::write(
        &script,
        format!("cat >/dev/null\nprintf '%s' '{rewrite}'\n"),
    )
    .unwrap();
    let command = format!("/bin/sh {}", script.display());
    let hooks = w.project().join(".codex/hooks.json");
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    let written = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": command, "timeout": 30}
    ]}]}});
    std::fs::write(&hooks, written.to_string()).unwrap();
    let project = format!(
        "\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        worktree.display()
    );
    trust(&w, &hooks, &command, &project);
    let cd = worktree.to_str().unwrap();
    let outcome = w.run_with("RUN: echo innocent > innocent-marker", &["-C", cd], &[]);
    let seen = w.seen(&outcome);
    assert!(w.model.turns().is_empty(), "{seen}");
    assert!(!worktree.join("ran.txt").exists(), "{seen}");
    assert!(!worktree.join("innocent-marker").exists(), "{seen}");
    assert!(
        outcome.stderr.contains("hook: UserPromptSubmit Blocked"),
        "{seen}"
    );
}
