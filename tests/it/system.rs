//! `hookhost bridge --system` and `hookhost check --system` through the real binary, as
//! root and as `nobody`, in a private mount namespace with the test's own `/etc` and
//! `/var/cache` ([`SystemRoot`]; docs/contract.md#system-mode): the administrator's
//! hooks cannot be removed, replaced or moved by what a same-user agent controls (its
//! environment, its files), files someone other than root could change are refused at
//! start, the user's own hooks still add policy, and a WASM hook runs only from the
//! cache `check --system` fills.

use std::path::Path;

use serde_json::{Value, json};

use crate::bridge::deny_reason;
use crate::support::{NOBODY, SystemRoot, chmod, chown, run, run_with_stdin, wasm_dir};

/// A system config with one PreToolUse hook running `/bin/sh SCRIPT` (on the host).
fn sh_hook(name: &str, script: &Path) -> String {
    format!(
        "[[hooks]]\nname = \"{name}\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/sh\", \"{}\"]\nsandbox = false\n",
        script.display()
    )
}

/// A script that blocks every call with `reason`.
fn blocking(reason: &str) -> String {
    format!("cat >/dev/null; echo '{reason}' >&2; exit 2\n")
}

/// A Claude Code PreToolUse call of Bash `command`, from a project in `nobody`'s home.
fn payload(root: &SystemRoot, command: &str) -> Value {
    let project = root.home.join("project");
    if !project.exists() {
        std::fs::create_dir(&project).unwrap();
        chown(&project, NOBODY);
    }
    json!({
        "session_id": "system-test",
        "transcript_path": "",
        "cwd": project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
}

/// `hookhost bridge --agent claude-code --system` as `nobody`, `payload` on stdin, with
/// `env` added.
fn bridge(root: &SystemRoot, payload: &Value, env: &[(&str, &Path)]) -> (i32, String, String) {
    let mut cmd = root.hookhost_as_nobody();
    cmd.args([
        "bridge",
        "--agent",
        "claude-code",
        "--system",
        "--budget-ms",
        "20000",
    ]);
    for (name, value) in env {
        cmd.env(name, value);
    }
    run_with_stdin(&mut cmd, payload.to_string().as_bytes())
}

/// The deny reason of a Claude Code answer (`None`: no deny).
fn denied(out: &(i32, String, String)) -> Option<String> {
    deny_reason("claude-code", out)
}

/// A system root with a system hook that blocks everything with "system says no".
fn blocking_root(test: &str) -> Option<(SystemRoot, std::path::PathBuf)> {
    let root = SystemRoot::new(test)?;
    let script = root.etc_file("hookhost/hooks/deny.sh", &blocking("system says no"), 0o755);
    root.write_config(&sh_hook("system-deny", &script));
    Some((root, script))
}

#[test]
fn a_system_hook_blocks_a_call_made_by_nobody() {
    let Some((root, _)) = blocking_root("a_system_hook_blocks_a_call_made_by_nobody") else {
        return;
    };
    let out = bridge(&root, &payload(&root, "ls"), &[]);
    // The message names the administrator's hook, not the user's.
    let blocked = "blocked by the administrator's hook \"system-deny\": system says no";
    assert_eq!(denied(&out).as_deref(), Some(blocked), "{out:?}");
    // The administrator's session keeps its record beside the user's, in the home the
    // password database names.
    let record = root
        .home
        .join(".local/state/hookhost/system/claude-code/system-test.jsonl");
    assert!(record.is_file(), "no record at {}", record.display());
    // The record says whose hooks they are, so that a replay and a transcript say what
    // the live call said.
    let text = std::fs::read_to_string(&record).unwrap();
    let started: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(started["owner"], "administrator", "{text}");
    let (code, stdout, stderr) = run(root.hookhost_as_nobody().arg("replay").arg(&record));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("1 of 1 verdicts matched"),
        "{stdout}{stderr}"
    );
    let (code, stdout, stderr) = run(root.hookhost_as_nobody().args(["log", "show"]).arg(&record));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains(blocked), "{stdout}{stderr}");
}

/// A failing system hook blocks with the administrator named, and the model is told the
/// user cannot fix it.
#[test]
fn a_failing_system_hook_sends_the_user_to_their_administrator() {
    let Some(root) = SystemRoot::new("a_failing_system_hook_sends_the_user_to_their_administrator")
    else {
        return;
    };
    let script = root.etc_file(
        "hookhost/hooks/broken.sh",
        "cat >/dev/null; exit 1\n",
        0o755,
    );
    root.write_config(&sh_hook("system-broken", &script));
    let out = bridge(&root, &payload(&root, "ls"), &[]);
    assert_eq!(
        denied(&out).as_deref(),
        Some(
            "the administrator's hook \"system-broken\" failed (exited with code 1), so this call was blocked. This is not a policy decision: retrying or rephrasing the call will not help. Tell the user their administrator's hook is failing. The user cannot fix it: only their administrator can."
        ),
        "{out:?}"
    );
    // The warning the user sees sends them to the administrator as well.
    let warning = "⚠ the administrator's hook system-broken is failing (exited with code 1), so the calls it covers are blocked. Only your administrator can fix it.";
    assert!(
        out.1.contains(warning) || out.2.contains(warning),
        "{out:?}"
    );
}

#[test]
fn the_environment_does_not_remove_or_replace_the_system_hooks() {
    let Some((root, _)) =
        blocking_root("the_environment_does_not_remove_or_replace_the_system_hooks")
    else {
        return;
    };
    // An empty config where HARNESS_HOME and XDG_CONFIG_HOME point (outside the project,
    // so that user mode would take them), and a box program the agent wrote.
    // A boxed system hook too, so that the session looks for its box program.
    let boxed = root.etc_file("hookhost/hooks/allow.sh", "cat >/dev/null; exit 0\n", 0o755);
    let config = std::fs::read_to_string(root.outside(Path::new("/etc/hookhost/config.toml")));
    root.write_config(&format!(
        "{}\n[[hooks]]\nname = \"boxed\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/sh\", \"{}\"]\n",
        config.unwrap(),
        boxed.display()
    ));
    let empty = root.home_file("empty/config.toml", "", 0o644);
    let empty_dir = empty.parent().unwrap().to_path_buf();
    let marker = root.home.join("fake-bwrap-ran");
    let fake = root.home_file(
        "bin/bwrap",
        &format!("#!/bin/sh\ntouch {}\nexit 0\n", marker.display()),
        0o755,
    );
    let out = bridge(
        &root,
        &payload(&root, "ls"),
        &[
            ("HARNESS_HOME", &empty_dir),
            ("XDG_CONFIG_HOME", &empty_dir),
            ("HOOKHOST_BWRAP", &fake),
        ],
    );
    let reason = denied(&out);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("system says no")),
        "{out:?}"
    );
    let said = format!("{}{}", out.1, out.2);
    assert!(
        said.contains(
            "hookhost bridge --system ignores HARNESS_HOME, XDG_CONFIG_HOME, HOOKHOST_BWRAP"
        ),
        "{out:?}"
    );
    // Named once, without its value.
    assert_eq!(said.matches("HOOKHOST_BWRAP").count(), 1, "{out:?}");
    assert!(!marker.exists(), "the agent's box program ran");
}

/// Each way someone other than root could write a system file is refused at start,
/// naming the file and what to run.
#[test]
fn a_system_file_nobody_could_write_is_refused_at_start() {
    let test = "a_system_file_nobody_could_write_is_refused_at_start";
    type Spoil = fn(&SystemRoot, &Path, &Path);
    let cases: [(&str, Spoil, &str, &str); 5] = [
        (
            "config owned by nobody",
            |r, config, _| chown(&r.outside(config), NOBODY),
            "config /etc/hookhost/config.toml is owned by uid 65534, not by root",
            "sudo chown root /etc/hookhost/config.toml",
        ),
        (
            "config world-writable",
            |r, config, _| chmod(&r.outside(config), 0o666),
            "config /etc/hookhost/config.toml is group- or world-writable",
            "sudo chmod go-w /etc/hookhost/config.toml",
        ),
        (
            "script owned by nobody",
            |r, _, script| chown(&r.outside(script), NOBODY),
            "hook system-deny: /etc/hookhost/hooks/deny.sh is owned by uid 65534, not by root",
            "sudo chown root /etc/hookhost/hooks/deny.sh",
        ),
        (
            "script's folder group-writable",
            |r, _, script| chmod(r.outside(script).parent().unwrap(), 0o775),
            "hook system-deny: /etc/hookhost/hooks/deny.sh lies under /etc/hookhost/hooks, which is group- or world-writable",
            "sudo chmod go-w /etc/hookhost/hooks",
        ),
        (
            "script's folder owned by nobody",
            |r, _, script| chown(r.outside(script).parent().unwrap(), NOBODY),
            "hook system-deny: /etc/hookhost/hooks/deny.sh lies under /etc/hookhost/hooks, which is owned by uid 65534, not by root",
            "sudo chown root /etc/hookhost/hooks",
        ),
    ];
    for (what, spoil, names, fix) in cases {
        let Some(root) = SystemRoot::new(test) else {
            return;
        };
        // A script that allows: a refusal cannot be mistaken for its answer.
        let script = root.etc_file("hookhost/hooks/deny.sh", "exit 0\n", 0o755);
        let config = root.write_config(&sh_hook("system-deny", &script));
        spoil(&root, &config, &script);
        let out = bridge(&root, &payload(&root, "ls"), &[]);
        let reason = denied(&out).unwrap_or_else(|| panic!("{what}: not refused: {out:?}"));
        assert!(reason.contains(names), "{what}: {reason}");
        assert!(reason.contains(fix), "{what}: {reason}");
        assert!(
            reason.contains("someone other than the administrator"),
            "{what}: {reason}"
        );
    }
}

#[test]
fn the_binary_in_a_folder_nobody_can_write_is_refused() {
    let Some((root, _)) = blocking_root("the_binary_in_a_folder_nobody_can_write_is_refused")
    else {
        return;
    };
    // Root's folder, but anyone may write it (no sticky bit): nobody could swap the binary.
    let copy = root.hookhost();
    let bin = copy.parent().unwrap().to_path_buf();
    chmod(&bin, 0o777);
    let mut cmd = root.as_nobody(&copy);
    cmd.args(["bridge", "--agent", "claude-code", "--system"]);
    let out = run_with_stdin(&mut cmd, payload(&root, "ls").to_string().as_bytes());
    let reason = denied(&out).unwrap_or_default();
    let expected = format!(
        "hookhost binary {} lies under {}, which is group- or world-writable without the sticky bit",
        copy.display(),
        bin.display()
    );
    assert!(reason.contains(&expected), "{out:?}");
}

#[test]
fn the_users_hooks_add_a_block_after_a_system_allow() {
    let Some(root) = SystemRoot::new("the_users_hooks_add_a_block_after_a_system_allow") else {
        return;
    };
    let script = root.etc_file("hookhost/hooks/allow.sh", "cat >/dev/null; exit 0\n", 0o755);
    root.write_config(&sh_hook("system-allow", &script));
    // No user config: the system's allow is the answer.
    let out = bridge(&root, &payload(&root, "ls"), &[]);
    assert_eq!(denied(&out), None, "{out:?}");
    // The user's own hook adds a block.
    let user_script = root.home_file("hooks/no.sh", &blocking("user says no"), 0o755);
    root.home_file(
        ".config/harness/config.toml",
        &sh_hook("user-deny", &user_script),
        0o644,
    );
    let out = bridge(&root, &payload(&root, "ls"), &[]);
    // The user's hook is named as the user's, to the letter of the spec.
    assert_eq!(
        denied(&out).as_deref(),
        Some("blocked by the user's hook \"user-deny\": user says no"),
        "{out:?}"
    );
    // A broken user config is a deny naming it.
    let config = root.home_file(".config/harness/config.toml", "[[hooks]\n", 0o644);
    let out = bridge(&root, &payload(&root, "ls"), &[]);
    let reason = denied(&out).unwrap_or_default();
    assert!(reason.contains(&config.display().to_string()), "{out:?}");
}

#[test]
fn a_system_wasm_hook_runs_only_from_the_cache_check_system_fills() {
    let Some(root) =
        SystemRoot::new("a_system_wasm_hook_runs_only_from_the_cache_check_system_fills")
    else {
        return;
    };
    let wasm = std::fs::read(wasm_dir().join("no-force-push.wasm")).unwrap();
    let module = root.etc_file("hookhost/hooks/no-force-push.wasm", "", 0o644);
    std::fs::write(root.outside(&module), wasm).unwrap();
    root.write_config(&format!(
        "[[hooks]]\nname = \"no-force-push\"\nevent = \"PreToolUse\"\ncommand = [\"{}\"]\ntools = [\"bash\"]\n",
        module.display()
    ));
    let push = payload(&root, "git push --force origin main");
    let started = std::time::Instant::now();
    let out = bridge(&root, &push, &[]);
    let reason = denied(&out).unwrap_or_default();
    assert!(reason.contains("sudo hookhost check --system"), "{out:?}");
    // Nothing was compiled: the deny comes in the time a call takes, not a compile's.
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");

    // Not as nobody: only root may fill the system cache.
    let (code, _, stderr) = run(root.hookhost_as_nobody().args(["check", "--system"]));
    assert_ne!(code, 0);
    assert!(stderr.contains("run it as root"), "{stderr}");

    let (code, stdout, stderr) = run(root.hookhost_as_root().args(["check", "--system"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let out = bridge(&root, &push, &[]);
    let reason = denied(&out).unwrap_or_default();
    assert!(reason.contains("no-force-push"), "{out:?}");
    assert!(!reason.contains("check --system"), "{out:?}");
    let out = bridge(&root, &payload(&root, "git status"), &[]);
    assert_eq!(denied(&out), None, "{out:?}");
}

/// A prompt's context: the administrator's first, then the user's.
#[test]
fn contexts_join_the_administrators_first() {
    let Some(root) = SystemRoot::new("contexts_join_the_administrators_first") else {
        return;
    };
    let prompt_hook = |name: &str, script: &Path| {
        format!(
            "[[hooks]]\nname = \"{name}\"\nevent = \"UserPromptSubmit\"\ncommand = [\"/bin/sh\", \"{}\"]\nsandbox = false\n",
            script.display()
        )
    };
    let system = root.etc_file(
        "hookhost/hooks/context.sh",
        "cat >/dev/null; echo from-the-administrator\n",
        0o755,
    );
    root.write_config(&prompt_hook("system-context", &system));
    let user = root.home_file(
        "hooks/context.sh",
        "cat >/dev/null; echo from-the-user\n",
        0o755,
    );
    root.home_file(
        ".config/harness/config.toml",
        &prompt_hook("user-context", &user),
        0o644,
    );
    let mut payload = payload(&root, "ls");
    payload["hook_event_name"] = json!("UserPromptSubmit");
    payload["prompt"] = json!("hello");
    let (code, stdout, stderr) = bridge(&root, &payload, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let answer: Value = serde_json::from_str(&stdout).expect(&stdout);
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    // Each frame names whose hook it is.
    let (first, second) = (
        context.find(
            "Context from the administrator's hook \"system-context\":\nfrom-the-administrator",
        ),
        context.find("Context from the user's hook \"user-context\":\nfrom-the-user"),
    );
    assert!(
        matches!((first, second), (Some(a), Some(b)) if a < b),
        "{context}"
    );
}

/// docs/system-scope.md: Qwen Code's bare mode runs no hook at all, the administrator's
/// included, and a same-user agent can switch it on from a `.env` file Qwen loads; so
/// `bridge --system` refuses the call while one says so, as the user-scope bridge does.
#[test]
fn a_qwen_mode_without_hooks_in_a_users_env_file_refuses_a_system_call() {
    let Some(root) =
        SystemRoot::new("a_qwen_mode_without_hooks_in_a_users_env_file_refuses_a_system_call")
    else {
        return;
    };
    let dotenv = root.home.join(".env");
    a_users_file_refuses_a_system_call(
        &root,
        ("qwen-code", "run_shell_command"),
        (&dotenv, "QWEN_CODE_SIMPLE=1\n"),
        &format!("{} sets QWEN_CODE_SIMPLE=1", dotenv.display()),
    );
}

/// docs/threats.md#n11: Claude Code runs every hook command, the administrator's too,
/// through the program `CLAUDE_CODE_SHELL_PREFIX` names, which a project's settings `env`
/// can set; so `bridge --system` refuses the call while one does.
#[test]
fn a_shell_prefix_in_a_projects_claude_settings_refuses_a_system_call() {
    let Some(root) =
        SystemRoot::new("a_shell_prefix_in_a_projects_claude_settings_refuses_a_system_call")
    else {
        return;
    };
    let settings = root.home.join("project/.claude/settings.json");
    a_users_file_refuses_a_system_call(
        &root,
        ("claude-code", "Bash"),
        (
            &settings,
            r#"{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/tmp/skip.sh"}}"#,
        ),
        &format!(
            "{} sets \"env\": {{\"CLAUDE_CODE_SHELL_PREFIX\": …}}",
            settings.display()
        ),
    );
}

/// With a system hook that allows every call, `agent`'s call of `tool` is allowed by
/// `bridge --system`; once the user's `file` (made the user's, its folders too) holds
/// `text`, it is refused with a reason that starts with `refusal`.
fn a_users_file_refuses_a_system_call(
    root: &SystemRoot,
    (agent, tool): (&str, &str),
    (file, text): (&std::path::Path, &str),
    refusal: &str,
) {
    let script = root.etc_file("hookhost/hooks/allow.sh", "cat >/dev/null; exit 0\n", 0o755);
    root.write_config(&sh_hook("system-allow", &script));
    let mut call = payload(root, "ls");
    call["tool_name"] = json!(tool);
    let bridge = |call: &Value| {
        let mut cmd = root.hookhost_as_nobody();
        cmd.args([
            "bridge",
            "--agent",
            agent,
            "--system",
            "--budget-ms",
            "20000",
        ]);
        run_with_stdin(&mut cmd, call.to_string().as_bytes())
    };
    let out = bridge(&call);
    assert_eq!(deny_reason(agent, &out), None, "{out:?}");

    let mut made = Vec::new();
    for folder in file.ancestors().skip(1) {
        if folder.exists() {
            break;
        }
        made.push(folder.to_path_buf());
    }
    for folder in made.iter().rev() {
        std::fs::create_dir(folder).unwrap();
        chown(folder, NOBODY);
    }
    std::fs::write(file, text).unwrap();
    chown(file, NOBODY);
    let out = bridge(&call);
    let reason = deny_reason(agent, &out).unwrap_or_default();
    assert!(reason.starts_with(refusal), "{out:?}");
}
