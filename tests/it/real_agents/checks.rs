//! The checks every agent gets, each judged by its outcome: a marker file, the remote's
//! `main`, what the model was sent.

use std::path::PathBuf;

use super::*;

// ---- (a) an allowed call runs

pub(super) fn an_allowed_call_runs(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let (result, outcome) = w.one_call("RUN: echo allowed > allowed-marker && echo wrote-it");
    assert_eq!(
        std::fs::read_to_string(w.project().join("allowed-marker")).unwrap(),
        "allowed\n",
        "{}",
        w.seen(&outcome)
    );
    assert!(result.contains("wrote-it"), "{}", w.seen(&outcome));
    assert_eq!(outcome.code, 0, "{}", w.seen(&outcome));
    // The agent asked the scripted model, and only it, for nothing but its API.
    let paths: Vec<String> = w
        .model
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(paths.iter().all(|p| p.starts_with(agent.api)), "{paths:?}");
    // The tools the scripted model was offered, by the names the tests rely on.
    let tools = w.model.turns()[0].tool_names();
    for name in agent.tools {
        assert!(tools.iter().any(|t| t == name), "{name} not in {tools:?}");
    }
    // The agent called the registered bridge: one session record holds the call.
    let records: Vec<PathBuf> =
        std::fs::read_dir(w.scene.state().join("hookhost").join(agent.install))
            .expect("a record folder for the agent")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    let record = std::fs::read_to_string(&records[0]).unwrap();
    assert!(record.contains("allowed-marker"), "{record}");
    if agent.kind == Kind::Codex {
        // Codex ran hooks it never showed in its /hooks review: the trust install wrote.
        let config = std::fs::read_to_string(w.home.join(".codex/config.toml")).unwrap();
        assert!(config.contains("trusted_hash = \"sha256:"), "{config}");
    }
}

// ---- (b) a call blocked by a shell hook does not run, and the model reads the reason

pub(super) fn a_blocked_call_does_not_run(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let (result, outcome) = w.one_call("RUN: echo FORBIDDEN > blocked-marker");
    assert!(
        !w.project().join("blocked-marker").exists(),
        "{}",
        w.seen(&outcome)
    );
    assert!(result.contains(MARKER_REASON), "{}", w.seen(&outcome));
    eprintln!("{test}: the model read {result:?}");
}

/// docs/threats.md#r14: a file the agent reads hooks from (`file`, holding `hooks` given
/// the handler's command, and trusted by `trust` where the agent asks for that) holds a
/// hook of its own for `event` that answers every shell call with another command
/// (`answer`, the agent's form of a rewrite): every call is refused, naming that hook (the
/// prompt first, so no request is sent), and neither command runs.
pub(super) fn a_hook_that_could_rewrite_a_call_blocks_it(
    test: &str,
    agent: &'static Agent,
    file: impl Fn(&World) -> PathBuf,
    event: &str,
    hooks: impl Fn(&str) -> serde_json::Value,
    trust: impl Fn(&World, &std::path::Path, &str),
    answer: &str,
) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let script = w.project().join(".rewrite.sh");
    std::fs::write(&script, format!("cat >/dev/null\nprintf '%s' '{answer}'\n")).unwrap();
    let file = file(&w);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let command = format!("/bin/sh {}", script.display());
    std::fs::write(&file, hooks(&command).to_string()).unwrap();
    trust(&w, &file, &command);
    // Every call is refused while it is there, the prompt first: no request is sent.
    let outcome = w.run("RUN: echo innocent > innocent-marker");
    let seen = w.seen(&outcome);
    assert!(w.model.turns().is_empty(), "{seen}");
    assert!(!w.project().join("ran.txt").exists(), "{seen}");
    assert!(!w.project().join("innocent-marker").exists(), "{seen}");
    let seen = if matches!(agent.kind, Kind::Codex | Kind::Qwen) {
        // `codex exec` shows the prompt "Blocked", and Qwen Code's `-p` an empty result,
        // not why: `doctor` names the hook.
        if agent.kind == Kind::Codex {
            assert!(
                outcome.stderr.contains("hook: UserPromptSubmit Blocked"),
                "{seen}"
            );
        }
        let (_, stdout, stderr) = crate::support::run(
            w.env(&mut std::process::Command::new(&w.hookhost))
                .arg("doctor"),
        );
        format!("{stdout}{stderr}")
    } else {
        seen
    };
    let message = format!(
        "{} holds a {event} hook that hookhost's `install` did not see",
        file.display()
    );
    assert!(plain(&seen).contains(&plain(&message)), "{seen}");
}

/// hookhost's refusal of a call it cannot read stands though a hook after it answers
/// `allow`: shown with a bridge fed a payload it cannot read (`settings`, under the home,
/// gains a group of two hooks on `event`: that bridge, then one answering `allow`), all
/// accepted by `install`, on a call hookhost's policy allows. The call does not run, and
/// the model reads why.
pub(super) fn a_refusal_holds_though_a_later_hook_allows(
    test: &str,
    agent: &'static Agent,
    settings: &str,
    event: &str,
    allow: &str,
) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let allow_script = w.project().join(".allow.sh");
    std::fs::write(
        &allow_script,
        format!("cat >/dev/null\nprintf '%s' '{allow}'\n"),
    )
    .unwrap();
    let settings_file = w.home.join(settings);
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_file).unwrap()).unwrap();
    // Quoted: the checkout's path may hold a blank.
    let unread = format!(
        "printf 'not json' | '{}' bridge --agent {}",
        w.hookhost.display(),
        agent.install
    );
    json["hooks"][event].as_array_mut().unwrap().push(
        serde_json::json!({"matcher": "*", "hooks": [
            {"type": "command", "command": unread},
            {"type": "command", "command": format!("/bin/sh '{}'", allow_script.display())},
        ]}),
    );
    std::fs::write(&settings_file, json.to_string()).unwrap();
    let (code, stdout, stderr) = crate::support::run(
        w.env(&mut std::process::Command::new(&w.hookhost))
            .args(["install", agent.install]),
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let outcome = w.run("RUN: echo innocent > ran.txt");
    let seen = w.seen(&outcome);
    assert!(!w.project().join("ran.txt").exists(), "{seen}");
    let results = w.model.tool_results();
    assert_eq!(results.len(), 1, "{seen}");
    assert!(
        plain(&results[0]).contains("hookhost could not read this call"),
        "{seen}"
    );
}

/// `text` as Copilot CLI shows a message, and as written alike: wrapped, without the
/// backticks.
pub(super) fn plain(text: &str) -> String {
    text.replace('`', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A settings file's `{"hooks": {EVENT: [GROUP]}}` with one group of one handler running
/// `command` (Claude Code's, Gemini CLI's, Qwen Code's shape).
pub(super) fn one_hook_group(event: &str, command: &str) -> serde_json::Value {
    serde_json::json!({"hooks": {event: [{"matcher": "*", "hooks": [
        {"type": "command", "command": command}
    ]}]}})
}

// ---- (c) the shipped WASM policies, configured as the README shows

/// The agent asked to force-push: the remote's `main` stays, and the model reads
/// no-force-push's reason in the agent's form of a denial. Returns the remote's `main`.
fn force_push_is_blocked(w: &World) -> String {
    let before = w.remote_main();
    let command = "git push --force origin main";
    let (result, outcome) = w.one_call(&format!("RUN: {command}"));
    assert_eq!(w.remote_main(), before, "{}", w.seen(&outcome));
    let reason = "blocked by the user's hook \"no-force-push\": force-push is not allowed here \
                  (git push --force)";
    assert_eq!(
        w.agent.shown("Bash", &result),
        w.agent.denial("Bash", reason, command),
        "{}",
        w.seen(&outcome)
    );
    before
}

/// Registered with `install --warm-socket`, the agent calls `hookhost-client`, which hands
/// each call to `hookhost warm`: a force push and a write of `.env` are blocked there, an
/// allowed call runs, and the server answered every one of them (none declined).
pub(super) fn the_warm_server_judges_the_agents_calls(test: &str, agent: &'static Agent) {
    let Some(w) = World::warm(test, agent) else {
        return;
    };
    force_push_is_blocked(&w);
    // Two more runs (the scripted model's results accumulate: judged by their effects).
    let dotenv = match agent.kind {
        Kind::ClaudeCode | Kind::Copilot | Kind::Qwen => "@PROJECT@/.env",
        Kind::Codex | Kind::Gemini | Kind::Kimi => ".env",
    };
    let outcome = w.run(&format!("WRITE: {dotenv} SECRET=1"));
    assert!(!w.project().join(".env").exists(), "{}", w.seen(&outcome));
    let outcome = w.run("RUN: echo allowed > allowed-marker");
    assert_eq!(
        std::fs::read_to_string(w.project().join("allowed-marker"))
            .ok()
            .as_deref(),
        Some("allowed\n"),
        "{}",
        w.seen(&outcome)
    );
    let calls = w.warm.as_ref().unwrap().calls();
    assert!(
        calls.len() >= 3 && calls.iter().all(|l| l.contains("answered")),
        "{calls:#?}"
    );
}

pub(super) fn no_force_push_blocks_a_force_push(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let before = force_push_is_blocked(&w);
    // The same push, not through the agent, does change the remote: the block was real.
    git(w.project(), &["push", "-q", "--force", "origin", "main"]);
    assert_ne!(w.remote_main(), before);
}

/// A write of `file` (relative to the project; `@PROJECT@/` before it where the agent
/// takes absolute paths) is blocked by protect-paths' `pattern`, and no file appears.
pub(super) fn protect_paths_blocks_a_write(
    test: &str,
    agent: &'static Agent,
    file: &str,
    pattern: &str,
) {
    protect_paths_blocks_a_write_spelled(test, agent, file, file, pattern);
}

/// [`protect_paths_blocks_a_write`], the model naming `file` as `written` (an agent may
/// open a path other than the one it was given: Gemini CLI's `@secrets/k.pem`).
pub(super) fn protect_paths_blocks_a_write_spelled(
    test: &str,
    agent: &'static Agent,
    written: &str,
    file: &str,
    pattern: &str,
) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let path = match agent.kind {
        Kind::ClaudeCode | Kind::Copilot | Kind::Qwen => format!("@PROJECT@/{written}"),
        Kind::Codex | Kind::Gemini | Kind::Kimi => written.to_string(),
    };
    let (result, outcome) = w.one_call(&format!("WRITE: {path} SECRET=1"));
    assert!(!w.project().join(file).exists(), "{}", w.seen(&outcome));
    let reason = format!(
        "blocked by the user's hook \"protect-paths\": write_file on {file} is not allowed: the \
         path is protected (pattern {pattern})"
    );
    // Claude Code's Write; Codex's apply_patch, the patch being what it calls the command.
    let patch = format!("*** Begin Patch\n*** Add File: {file}\n+SECRET=1\n*** End Patch\n");
    assert_eq!(
        agent.shown("Write", &result),
        agent.denial("Write", &reason, &patch),
        "{}",
        w.seen(&outcome)
    );
}

// ---- (d) prompt context reaches the model; a blocked prompt sends no request

pub(super) fn prompt_context_reaches_the_model(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let outcome = w.run("CONTEXT-PLEASE: say hello");
    assert_eq!(outcome.code, 0, "{}", w.seen(&outcome));
    let turns = w.model.turns();
    assert!(!turns.is_empty(), "{}", w.seen(&outcome));
    // The message of the first turn that holds the context: its role and its text.
    let (role, text) = turns[0]
        .messages()
        .into_iter()
        .find(|(_, text)| text.contains(CONTEXT))
        .unwrap_or_else(|| panic!("the first request lacks the context: {}", turns[0].raw));
    let wrapped = format!("Context from the user's hook \"context\":\n{CONTEXT}");
    if agent.kind == Kind::ClaudeCode {
        // A system-role message in the conversation.
        assert_eq!(role, "system");
        assert!(
            text.contains(&format!(
                "UserPromptSubmit hook additional context: {wrapped}\n"
            )),
            "{text}"
        );
    } else if agent.kind == Kind::Codex {
        // A developer message of its own, after the prompt.
        assert_eq!(role, "developer");
        assert_eq!(text, wrapped);
    } else if agent.kind == Kind::Copilot {
        // A system reminder at the end of the user's message, after the prompt.
        assert_eq!(role, "user");
        assert!(
            text.ends_with(&format!(
                "CONTEXT-PLEASE: say hello\n\n<system_reminder>\n{wrapped}\n</system_reminder>"
            )),
            "{text:?}"
        );
    } else if agent.kind == Kind::Qwen {
        // A text part of the user's message, after the prompt's.
        assert_eq!(role, "user");
        assert!(
            text.ends_with(&format!(
                "CONTEXT-PLEASE: say hello\n<qwen:user-prompt-submit-context>\n{wrapped}\n\
                 </qwen:user-prompt-submit-context>"
            )),
            "{text:?}"
        );
    } else if agent.kind == Kind::Kimi {
        // hookhost prints the context as plain text; Kimi Code makes it a user message of
        // its own.
        assert_eq!(role, "user");
        assert_eq!(
            text.trim_end(),
            format!("<hook_result hook_event=\"UserPromptSubmit\">\n{wrapped}\n</hook_result>"),
            "{text:?}"
        );
    } else {
        // Appended to the prompt in the user's message.
        assert_eq!(role, "user");
        assert!(
            text.ends_with(&format!(
                "CONTEXT-PLEASE: say hello\n<hook_context>{wrapped}</hook_context>"
            )),
            "{text}"
        );
    }
    // Exactly once, and not for a prompt without the marker word (the other tests).
    assert_eq!(
        turns[0].raw.matches("CTX-TOKEN-93c1").count(),
        1,
        "{}",
        turns[0].raw
    );
}

/// A bridge that cannot set itself up (an operator log filter that does not parse, in the
/// environment the agent hands its hooks) refuses the prompt in the form a hook's block of
/// it takes: the model gets no request. (Copilot CLI sent it when the bridge only exited 2.)
pub(super) fn a_bridge_that_cannot_start_blocks_the_prompt(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let outcome = w.run_with(
        "RUN: echo ran > unstarted-marker",
        &[],
        &[("HOOKHOST_LOG", "hookhost=[")],
    );
    assert_eq!(w.model.requests().len(), 0, "{}", w.seen(&outcome));
    assert!(!w.project().join("unstarted-marker").exists());
}

pub(super) fn a_blocked_prompt_sends_nothing(test: &str, agent: &'static Agent) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let outcome = w.run("hush-marker\nRUN: echo ran > hushed-marker");
    assert_eq!(w.model.requests().len(), 0, "{}", w.seen(&outcome));
    assert!(!w.project().join("hushed-marker").exists());
    if agent.kind == Kind::Copilot {
        // `-p` exits 1 and shows the reason hookhost gave as a `!` line, on stderr.
        assert_eq!(outcome.code, 1, "{}", w.seen(&outcome));
        assert!(
            outcome.stderr.starts_with(
                "! ✗ prompt blocked by hook \"hush\": prompt refused by the hush hook\n"
            ),
            "{}",
            outcome.stderr
        );
        assert_eq!(outcome.stdout, "");
        return;
    }
    if agent.kind == Kind::Kimi {
        // `-p` exits 1 and shows the reason hookhost gave on stdout.
        assert_eq!(outcome.code, 1, "{}", w.seen(&outcome));
        assert_eq!(
            outcome.stdout,
            "• UserPromptSubmit hook blocked\n\n  ✗ prompt blocked by hook \"hush\": prompt \
             refused by the hush hook\n\n",
            "{}",
            w.seen(&outcome)
        );
        assert!(
            outcome
                .stderr
                .contains("error: failed to run prompt: Prompt hook blocked the request.\n"),
            "{}",
            outcome.stderr
        );
        return;
    }
    assert_eq!(outcome.code, 0, "{}", w.seen(&outcome));
    if agent.kind == Kind::ClaudeCode {
        // `-p` reports no error, and its result names the hook and its reason.
        let answer: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
        assert_eq!(answer["is_error"], false);
        assert_eq!(answer["num_turns"], 0);
        let result = answer["result"].as_str().unwrap();
        assert!(
            result.starts_with(
                "UserPromptSubmit operation blocked by hook:\n✗ prompt blocked by hook \"hush\": \
                 prompt refused by the hush hook\n"
            ),
            "{result}"
        );
    } else if agent.kind == Kind::Gemini {
        // Gemini CLI 0.61.0 says why on stderr, and exits 0 with nothing on stdout.
        assert!(
            outcome.stderr.contains(
                "[WARNING] Agent execution blocked: ✗ prompt blocked by hook \"hush\": prompt refused by the hush hook\n"
            ),
            "{}",
            outcome.stderr
        );
        assert_eq!(outcome.stdout, "", "{}", outcome.stderr);
    } else if agent.kind == Kind::Qwen {
        // Qwen Code 0.24.4 tells the user nothing: exit 0, an empty result, no reason.
        eprintln!(
            "QWEN-STDOUT {}\nQWEN-STDERR {}",
            outcome.stdout, outcome.stderr
        );
        let messages: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
        let last = messages
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or_default();
        assert_eq!(last["type"], "result", "{last}");
        assert_eq!(last["result"], "", "{last}");
        assert!(!outcome.stdout.contains("hush hook"), "{}", outcome.stdout);
        assert!(!outcome.stderr.contains("hush hook"), "{}", outcome.stderr);
    } else {
        // `codex exec` says the prompt was blocked, and never prints the reason.
        assert!(
            outcome.stderr.contains("hook: UserPromptSubmit Blocked\n"),
            "{}",
            outcome.stderr
        );
        assert!(!outcome.stderr.contains("hush hook"), "{}", outcome.stderr);
        assert_eq!(outcome.stdout, "");
    }
}

// ---- (e) a failing hook fails closed

pub(super) fn a_failing_hook_fails_closed(
    test: &str,
    agent: &'static Agent,
    word: &str,
    hook: &str,
    kind: &str,
) {
    let Some(w) = World::new(test, agent) else {
        return;
    };
    let marker = format!("{hook}-marker");
    let (result, outcome) = w.one_call(&format!("RUN: echo {word} > {marker}"));
    assert!(!w.project().join(&marker).exists(), "{}", w.seen(&outcome));
    let reason = format!(
        "the user's hook \"{hook}\" failed ({kind}), so this call was blocked. This is not a \
         policy decision: retrying or rephrasing the call will not help. Tell the user their \
         hook is failing."
    );
    let command = format!("echo {word} > {marker}");
    assert_eq!(
        agent.shown("Bash", &result),
        agent.denial("Bash", &reason, &command),
        "{}",
        w.seen(&outcome)
    );
}
