//! What the agent cannot use against the bridge: a link at the record path, user advice in an exit-2 agent's answer, a project file that switches hooks off, steering from its environment.

use super::*;

/// N3: a link planted at a session's record path (dangling, or to a file elsewhere) is
/// refused, never followed, and the call is denied at once, not after looping past the
/// budget (which most agents read as "go ahead").
#[test]
fn bridge_refuses_a_link_at_the_record_path_at_once() {
    let scene = Scene::new();
    let marker = scene.script("marker.sh", "grep -q FORBIDDEN && exit 2; exit 0");
    config(
        &scene,
        &[pre_hook(
            "marker",
            &["/bin/sh", marker.to_str().unwrap()],
            "",
        )],
    );
    let dir = scene.state().join("hookhost/codex");
    std::fs::create_dir_all(&dir).unwrap();
    let elsewhere = scene.root.path().join("elsewhere.jsonl");
    std::fs::write(&elsewhere, "").unwrap();
    for (session, target) in [
        ("victim", scene.root.path().join("nonexistent/elsewhere")),
        ("victim-2", elsewhere.clone()),
    ] {
        let record = dir.join(format!("{session}.jsonl"));
        std::os::unix::fs::symlink(&target, &record).unwrap();
        let payload = with_session(
            with_command(sample(&scene, "codex/PreToolUse.json"), "echo ok"),
            session,
        );
        let started = Instant::now();
        let reply = bridge(
            &scene,
            &["--agent", "codex", "--budget-ms", "2000"],
            &payload.to_string(),
        );
        assert!(started.elapsed() < Duration::from_secs(2), "{reply:?}");
        let reason = deny_reason("codex", &reply).unwrap_or_default();
        assert!(
            reason.contains("is a symbolic link, which hookhost never follows"),
            "{session}: {reply:?}"
        );
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "");
    }
    // An empty session id is recorded nowhere, and shares nothing.
    let payload = with_session(
        with_command(sample(&scene, "codex/PreToolUse.json"), "echo ok"),
        "",
    );
    let reply = bridge(&scene, &["--agent", "codex"], &payload.to_string());
    assert_eq!(reply.0, 0, "{reply:?}");
    assert!(!dir.join(".jsonl").exists());
}

/// R12: the text Codex, Kimi Code and Kiro CLI hand the model (a deny's stderr) is the
/// spec's failure message for the model, never the user's warning with its
/// `--no-hooks` advice; Codex's own `. Command: …` follows it without a doubled period.
#[test]
fn bridge_the_model_reads_no_user_advice_from_an_exit_2_agent() {
    let scene = Scene::new();
    let slow = scene.script("slow.sh", "cat >/dev/null; sleep 10");
    config(
        &scene,
        &[pre_hook(
            "slow",
            &["/bin/sh", slow.to_str().unwrap()],
            "timeout = 1",
        )],
    );
    for (agent, pre, _) in AGENTS
        .iter()
        .filter(|(a, _, _)| matches!(*a, "codex" | "kimi-code" | "kiro"))
    {
        let (code, stdout, stderr) = bridge_json(&scene, agent, &sample(&scene, pre));
        assert_eq!((code, stdout.as_str()), (2, ""), "{agent}: {stderr}");
        assert!(!stderr.contains("--no-hooks"), "{agent}: {stderr}");
        assert!(
            stderr.starts_with(
                "the user's hook \"slow\" failed (timed out after 1 s), so this call was blocked."
            ),
            "{agent}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{agent}: {stderr}");
        if *agent == "codex" {
            assert!(
                stderr.ends_with("Tell the user their hook is failing\n"),
                "{stderr}"
            );
        }
    }
}

/// R4/N7: a project settings file that switches the agent's hooks off (for its next
/// session) makes every call of this session a deny naming the file and the key.
#[test]
fn bridge_denies_while_a_project_file_switches_the_agents_hooks_off() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    config(
        &scene,
        &[pre_hook("ok", &["/bin/sh", ok.to_str().unwrap()], "")],
    );
    let payload = |file: &str| sample(&scene, file).to_string();
    let cases = [
        (
            "claude-code",
            "claude-code/PreToolUse.json",
            ".claude/settings.local.json",
            "{\"disableAllHooks\": true}",
        ),
        (
            "qwen-code",
            "qwen-code/PreToolUse.json",
            ".qwen/settings.json",
            "{\"disableAllHooks\": true}",
        ),
        (
            "gemini",
            "gemini/BeforeTool.json",
            ".gemini/settings.json",
            "{\"hooksConfig\": {\"enabled\": false}}",
        ),
        (
            "codex",
            "codex/PreToolUse.json",
            ".codex/config.toml",
            "[features]\nhooks = false\n",
        ),
    ];
    for (agent, sample_file, settings, text) in cases {
        assert_no_objection(
            agent,
            &bridge(&scene, &["--agent", agent], &payload(sample_file)),
        );
        let file = scene.project.join(settings);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        let reply = bridge(&scene, &["--agent", agent], &payload(sample_file));
        let reason = deny_reason(agent, &reply).unwrap_or_default();
        assert!(
            reason.contains(&format!("{} sets", file.display())),
            "{agent}: {reply:?}"
        );
        std::fs::remove_file(&file).unwrap();
    }
}

/// B8: a project settings file is read as the agent reads it (Gemini CLI strips
/// comments), and one hookhost cannot read (larger than it reads, a FIFO an agent's
/// process writes into, JSON its parser refuses) is a deny that names the file and why:
/// the agent may read a switch-off there. Before, each was "no switch-off" and the call
/// went ahead.
#[test]
fn bridge_denies_while_a_project_file_it_cannot_read_may_switch_the_hooks_off() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    config(
        &scene,
        &[pre_hook("ok", &["/bin/sh", ok.to_str().unwrap()], "")],
    );
    let gemini = sample(&scene, "gemini/BeforeTool.json").to_string();
    let claude = sample(&scene, "claude-code/PreToolUse.json").to_string();
    let write = |relative: &str, text: &str| {
        let file = scene.project.join(relative);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        file
    };
    let file = write(
        ".gemini/settings.json",
        "// comments are Gemini CLI's\n{\"hooksConfig\": /* off */ {\"enabled\": false}}",
    );
    let reason = deny_reason("gemini", &bridge(&scene, &["--agent", "gemini"], &gemini));
    assert!(
        reason.as_ref().is_some_and(|r| r.contains(&format!(
            "{} sets \"hooksConfig\": {{\"enabled\": false}}",
            file.display()
        ))),
        "{reason:?}"
    );
    std::fs::remove_file(&file).unwrap();
    assert_no_objection("gemini", &bridge(&scene, &["--agent", "gemini"], &gemini));
    let padding = "x".repeat(17 << 20);
    let cases = [
        (
            format!("{{\"disableAllHooks\": true, \"padding\": \"{padding}\"}}"),
            "it is larger than 16 MiB",
        ),
        (
            "{\"note\": \"\\ud800\", \"disableAllHooks\": true}".to_string(),
            "it is malformed JSON (comments aside)",
        ),
    ];
    for (text, why) in cases {
        let file = write(".claude/settings.local.json", &text);
        let reason = deny_reason(
            "claude-code",
            &bridge(&scene, &["--agent", "claude-code"], &claude),
        );
        assert!(
            reason.as_ref().is_some_and(|r| r.contains(&format!(
                "hookhost cannot read {}, a settings file Claude Code reads: {why}",
                file.display()
            ))),
            "{why}: {reason:?}"
        );
        std::fs::remove_file(&file).unwrap();
    }
    // A FIFO: a process the agent left behind writes the switch-off into it for the
    // agent's read; hookhost reads only files.
    let fifo = scene.project.join(".claude/settings.local.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reason = deny_reason(
        "claude-code",
        &bridge(&scene, &["--agent", "claude-code"], &claude),
    );
    assert!(
        reason.as_ref().is_some_and(|r| r.contains(&format!(
            "hookhost cannot read {}, a settings file Claude Code reads: it is not a regular file",
            fifo.display()
        ))),
        "{reason:?}"
    );
}

/// B9: a `cwd` 200 folders deep, each with a link to the project's `.claude` (two
/// settings files of 8 MiB): the per-call check read both files at every level and held
/// them all (3 GB; under a 2 GB limit the bridge died, and the call went ahead). A file
/// met again is read once, so the call is judged: the marker's block holds. Files of
/// their own at every level stop at what one call reads in all, with a deny naming where.
#[test]
fn bridge_reads_the_settings_on_a_deep_folders_way_once_and_within_a_bound() {
    let scene = marker_scene();
    let claude = scene.project.join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let zeros = |n: usize| format!("{{\"x\": \"{}\"}}", "0".repeat(2 * n));
    std::fs::write(claude.join("settings.json"), zeros(4 << 20)).unwrap();
    std::fs::write(claude.join("settings.local.json"), zeros((4 << 20) - 1)).unwrap();
    let mut deep = scene.project.clone();
    for _ in 0..200 {
        deep.push("a");
        std::fs::create_dir(&deep).unwrap();
        std::os::unix::fs::symlink(&claude, deep.join(".claude")).unwrap();
    }
    let limited = |cwd: &Path| {
        let mut payload = forbidden_call(&scene);
        payload["cwd"] = cwd.to_str().unwrap().into();
        deny_reason("claude-code", &bridge_in_2_gb(&scene, &payload))
    };
    assert_eq!(
        limited(&deep).as_deref(),
        Some("blocked by the user's hook \"marker\": no")
    );
    // Three files of 12 MiB each, one a level: past 32 MiB in all.
    std::fs::remove_file(claude.join("settings.json")).unwrap();
    let (a, b) = (scene.project.join("x"), scene.project.join("x/y"));
    std::fs::create_dir_all(&b).unwrap();
    for (i, folder) in [&scene.project, &a, &b].into_iter().enumerate() {
        let file = folder.join(".claude/settings.local.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, zeros((6 << 20) + i)).unwrap();
    }
    let reason = limited(&b);
    assert!(
        reason.as_ref().is_some_and(|r| r.contains(&format!(
            "hookhost cannot read {}, a settings file Claude Code reads: with the settings files below it, it is more than the 32 MiB hookhost reads of them for one call",
            scene.project.join(".claude/settings.local.json").display()
        ))),
        "{reason:?}"
    );
}

/// B5: a project's `.codex/config.toml` of 13 KB whose dotted keys times inline tables
/// nest six thousand levels overflowed the stack of the bridge that read it for
/// switch-offs (a dead bridge: the call went ahead). Now the file counts as one hookhost
/// cannot read (B8), and the call is a deny naming it.
#[test]
fn bridge_denies_while_a_project_toml_nests_past_what_it_reads() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    config(
        &scene,
        &[pre_hook("ok", &["/bin/sh", ok.to_str().unwrap()], "")],
    );
    let payload = sample(&scene, "codex/PreToolUse.json").to_string();
    let key = vec!["a"; 79].join(".");
    let mut nested = String::from("1");
    for _ in 0..78 {
        nested = format!("{{ {key} = {nested} }}");
    }
    let file = scene.project.join(".codex/config.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, format!("{key} = {nested}\n")).unwrap();
    let reply = bridge(&scene, &["--agent", "codex"], &payload);
    let reason = deny_reason("codex", &reply).unwrap_or_else(|| panic!("not denied: {reply:?}"));
    assert!(
        reason.contains(&format!(
            "hookhost cannot read {}, a settings file Codex reads: it has tables and arrays nested more than 64 levels deep (line 1), more than hookhost reads",
            file.display()
        )),
        "{reason}"
    );
}

/// B6: `RUST_MIN_STACK=1`, which a project's settings can put in the bridge's
/// environment, gave every thread std starts a stack of a few KiB, and the first to
/// start the session overflowed it; a size no thread can have started none (the bridge
/// died either way; the call went ahead). The bridge now forgets the variable and judges
/// the call: the marker's block holds.
#[test]
fn bridge_judges_the_call_with_a_tiny_thread_stack_asked_in_its_environment() {
    let scene = marker_scene();
    for size in ["1", "16384", "1000000000000000", "not a number"] {
        let reply = run_with_stdin(
            scene
                .hookhost()
                .env("RUST_MIN_STACK", size)
                .arg("--no-sandbox")
                .args(["bridge", "--agent", "claude-code"]),
            forbidden_call(&scene).to_string().as_bytes(),
        );
        let reason = deny_reason("claude-code", &reply)
            .unwrap_or_else(|| panic!("RUST_MIN_STACK={size}: not denied: {reply:?}"));
        assert_eq!(
            reason, "blocked by the user's hook \"marker\": no",
            "RUST_MIN_STACK={size}"
        );
    }
}

/// B6: `HOOKHOST_LOG`, which a project's settings can put in the bridge's environment,
/// is read before the call's watchdog is armed. A field value in it was compiled as a
/// regular expression, whose automaton has no bound: `[ab]*a[ab][ab]…` (26 classes)
/// held the bridge for minutes at full CPU, past the agent's timeout (the call went
/// ahead). Values are now matched as text: the bridge starts at once and judges the
/// call (the test's wrapper kills a bridge still running after 20 s).
#[test]
fn bridge_judges_the_call_with_a_log_filter_no_automaton_could_hold() {
    let scene = marker_scene();
    let classes = "[ab]".repeat(26);
    let filter = format!("[{{x=[ab]*a{classes}}}]=trace");
    let setting = format!("HOOKHOST_LOG={filter}");
    let wrapper = ["/usr/bin/env", setting.as_str(), "timeout", "20"];
    let reply = bridge_through(&scene, &wrapper, &[], &forbidden_call(&scene));
    let reason =
        deny_reason("claude-code", &reply).unwrap_or_else(|| panic!("not denied: {reply:?}"));
    assert_eq!(reason, "blocked by the user's hook \"marker\": no");
}

/// B7: a project's `.git` file names a worktree whose common folder is reached through
/// 40 links, each adding 2,000 parts, to a missing part: the guard's walk of it spelt
/// a path of 160 KB and kept a copy at each of its 80,000 steps (6 GB; under a 2 GB
/// limit the bridge died: the call went ahead). Now the walk stops at the longest path
/// the OS names, and the call is judged: the marker's block holds, within the limit.
#[cfg(unix)]
#[test]
fn bridge_judges_the_call_while_the_worktree_folder_spells_past_any_path() {
    let scene = marker_scene();
    let gitdir = scene.project.join("wt");
    std::fs::create_dir_all(&gitdir).unwrap();
    std::fs::write(scene.project.join(".git"), "gitdir: wt\n").unwrap();
    std::fs::write(gitdir.join("commondir"), "l1\n").unwrap();
    let tail = "/a".repeat(2_000);
    for i in 1..=40 {
        let target = match i {
            40 => "missing".to_owned(),
            _ => format!("l{}{tail}", i + 1),
        };
        std::os::unix::fs::symlink(target, gitdir.join(format!("l{i}"))).unwrap();
    }
    let reply = bridge_in_2_gb(&scene, &forbidden_call(&scene));
    let reason =
        deny_reason("claude-code", &reply).unwrap_or_else(|| panic!("not denied: {reply:?}"));
    assert_eq!(reason, "blocked by the user's hook \"marker\": no");
}

/// Claude Code's `payload` through the scene's bridge, with its address space limited to
/// 2 GB: a bridge that needs gigabytes dies there, as it would on a smaller machine.
fn bridge_in_2_gb(scene: &Scene, payload: &Value) -> (i32, String, String) {
    let wrapper = ["/bin/sh", "-c", "ulimit -v 2000000 && exec \"$0\" \"$@\""];
    bridge_through(scene, &wrapper, &[], payload)
}

/// Claude Code's `payload` through the scene's bridge (with `extra` arguments), started
/// by the command `wrapper`, which ends by running the command line after its own.
fn bridge_through(
    scene: &Scene,
    wrapper: &[&str],
    extra: &[&str],
    payload: &Value,
) -> (i32, String, String) {
    let hookhost = scene.hookhost();
    let mut wrapped = Command::new(wrapper[0]);
    wrapped
        .args(&wrapper[1..])
        .arg(hookhost.get_program())
        .args(hookhost.get_args())
        .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
        .args(extra);
    for (name, value) in hookhost.get_envs() {
        match value {
            Some(value) => wrapped.env(name, value),
            None => wrapped.env_remove(name),
        };
    }
    run_with_stdin(&mut wrapped, payload.to_string().as_bytes())
}

/// Mounts a FUSE file system that never answers at its first argument (in the mount
/// namespace it runs in), then runs the rest as a child: every look at the mount waits,
/// as on a network mount that stopped answering or a FUSE mount whose server an agent's
/// process stopped. The child is killed after 30 s (status 137), so an old bridge that
/// waits for ever ends the test.
const NEVER_ANSWERING_MOUNT: &str = r#"
import ctypes, os, signal, sys, time
target, argv = sys.argv[1], sys.argv[2:]
libc = ctypes.CDLL(None, use_errno=True)
fuse = os.open("/dev/fuse", os.O_RDWR)  # never read: no request is ever answered
options = "fd=%d,rootmode=40000,user_id=%d,group_id=%d" % (fuse, os.getuid(), os.getgid())
if libc.mount(b"never-answers", target.encode(), b"fuse", 0, options.encode()) != 0:
    sys.exit("mount: " + os.strerror(ctypes.get_errno()))
child = os.fork()
if child == 0:
    os.execvp(argv[0], argv)
deadline = time.monotonic() + 30
while True:
    pid, status = os.waitpid(child, os.WNOHANG)
    if pid:
        sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
    if time.monotonic() > deadline:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        sys.exit(137)
    time.sleep(0.02)
"#;

/// B10: the project's `.claude`, which the bridge reads for a switch-off before the
/// session starts, lies on a file system that never answers. Before, the bridge waited
/// on it past the agent's timeout (most agents read that as "go ahead"; the test's
/// helper killed it after 30 s); now its watchdog denies at the budget and a grace,
/// saying what it was doing. The hooks' folder on such a mount holds the session's start
/// (the path guard looks at it): that is the start's deny, at the deadline (N6).
#[test]
fn bridge_denies_at_its_budget_while_a_file_it_reads_never_answers() {
    const TEST: &str = "bridge_denies_at_its_budget_while_a_file_it_reads_never_answers";
    if !crate::support::root_or_skip(
        TEST,
        "not root, so no FUSE file system can be mounted in a namespace of the test's own",
    ) {
        return;
    }
    if !Path::new("/dev/fuse").exists() {
        crate::support::skip_or_fail(
            TEST,
            crate::support::Prerequisite::Root,
            "no /dev/fuse, so no FUSE file system can be mounted",
        );
        return;
    }
    let scene = marker_scene();
    let claude = scene.project.join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let helper = scene.root.path().join("never_answering_mount.py");
    std::fs::write(&helper, NEVER_ANSWERING_MOUNT).unwrap();
    let payload = with_command(sample(&scene, "claude-code/PreToolUse.json"), "echo ok");
    let on_mount = |folder: &Path, extra: &[&str]| {
        let wrapper = [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "python3",
            helper.to_str().unwrap(),
            folder.to_str().unwrap(),
        ];
        let started = Instant::now();
        let mut args = vec!["--budget-ms", "2000"];
        args.extend(extra);
        let reply = bridge_through(&scene, &wrapper, &args, &payload);
        (reply, started.elapsed())
    };
    let (reply, took) = on_mount(&claude, &[]);
    // The payload read, the deny of this tool call, as a hook's block of it is written.
    let reason = deny_reason("claude-code", &reply).unwrap_or_else(|| panic!("{reply:?}"));
    assert!(
        reason.starts_with(
            "hookhost did not answer this call within 2000 ms, the bridge's budget for one call: it was still checking hookhost's files and the agent's settings, so this call was blocked."
        ),
        "{reason}"
    );
    // The budget, the watchdog's grace of 1 s, and room for a slow machine; the agent's
    // own timeout is 5 s past the budget.
    assert!(took < Duration::from_secs(6), "answered after {took:?}");
    let (reply, took) = on_mount(&scene.hooks, &[]);
    assert!(is_late_start_deny(&reply, 2000), "{reply:?}");
    assert!(took < Duration::from_secs(5), "answered after {took:?}");
    // The warm server's socket in a folder on such a mount: the hand-over's first look
    // at it waits, before the call is read, and the process's watchdog answers.
    let warm = scene.root.path().join("warm");
    std::fs::create_dir_all(&warm).unwrap();
    let socket = warm.join("warm.sock");
    let (reply, took) = on_mount(&warm, &["--warm-socket", socket.to_str().unwrap()]);
    let (code, stdout, reason) = &reply;
    assert_eq!((*code, stdout.as_str()), (2, ""), "{reply:?}");
    assert!(
        reason.starts_with(
            "hookhost did not answer this call within 2000 ms, the bridge's budget for one call: it was still reading the agent's call or handing it to the warm server, so this call was blocked."
        ),
        "{reason}"
    );
    assert!(took < Duration::from_secs(6), "answered after {took:?}");
}

/// B10: an agent that never closes the bridge's input holds its read, which came before
/// any deadline (the agents close it; a wrapper in between may not). The process's
/// watchdog, armed before the read, denies at the budget and its grace.
#[test]
fn bridge_denies_at_its_budget_while_its_input_never_ends() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let scene = marker_scene();
    let payload = with_command(sample(&scene, "claude-code/PreToolUse.json"), "echo ok");
    let started = Instant::now();
    let mut child = scene
        .hookhost()
        .args(["--no-sandbox", "bridge", "--agent", "claude-code"])
        .args(["--budget-ms", "1000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Written, and never closed while the bridge runs.
    let mut input = child.stdin.take().unwrap();
    input.write_all(payload.to_string().as_bytes()).unwrap();
    let ended = crate::support::wait_until(|| child.try_wait().unwrap().is_some());
    if !ended {
        let _ = child.kill();
        panic!("the bridge still waited for its input after 20 s");
    }
    let status = child.wait().unwrap();
    let took = started.elapsed();
    drop(input);
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!((status.code(), stdout.as_str()), (Some(2), ""), "{stderr}");
    assert!(
        stderr.starts_with(
            "hookhost did not answer this call within 1000 ms, the bridge's budget for one call: it was still reading the agent's call or handing it to the warm server, so this call was blocked."
        ),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(5), "answered after {took:?}");
}

/// A scene whose one hook, `marker`, blocks a command that says FORBIDDEN.
fn marker_scene() -> Scene {
    let scene = Scene::new();
    let marker = scene.script(
        "marker.sh",
        "grep -q FORBIDDEN && { echo no >&2; exit 2; }; exit 0",
    );
    config(
        &scene,
        &[pre_hook(
            "marker",
            &["/bin/sh", marker.to_str().unwrap()],
            "",
        )],
    );
    scene
}

/// Claude Code's call of `echo FORBIDDEN`, which `marker` blocks.
fn forbidden_call(scene: &Scene) -> Value {
    with_command(
        sample(scene, "claude-code/PreToolUse.json"),
        "echo FORBIDDEN",
    )
}

/// N11: an environment the agent's settings can set does not steer the bridge: a box
/// program (`HOOKHOST_BWRAP`) is ignored, and `HARNESS_HOME`/`XDG_STATE_HOME` inside the
/// project are ignored, each with a warning naming it; the user's own config still runs.
#[test]
fn bridge_takes_no_steering_from_the_agents_environment() {
    let scene = marker_scene();
    // What an agent would plant: an empty config and a "box" that runs anything on the host.
    let planted = scene.project.join(".agent");
    std::fs::create_dir_all(&planted).unwrap();
    std::fs::write(planted.join("config.toml"), "").unwrap();
    let fake_box = planted.join("bwrap");
    std::fs::write(&fake_box, "#!/bin/sh\ntouch \"$0.ran\"\nexit 0\n").unwrap();
    let payload = forbidden_call(&scene);
    let out = crate::support::run_with_stdin(
        scene
            .hookhost()
            .env("HARNESS_HOME", &planted)
            .env("XDG_STATE_HOME", planted.join("state"))
            // The state the ignored XDG_STATE_HOME falls back to is this test's own.
            .env("HOME", scene.root.path().join("home"))
            .env("HOOKHOST_BWRAP", &fake_box)
            .args(["bridge", "--agent", "claude-code"]),
        payload.to_string().as_bytes(),
    );
    let reason = deny_reason("claude-code", &out);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("blocked by the user's hook \"marker\"")),
        "{out:?}"
    );
    for name in ["HOOKHOST_BWRAP", "HARNESS_HOME", "XDG_STATE_HOME"] {
        assert!(
            out.1.contains(&format!("hookhost bridge ignores {name}=")),
            "{name}: {out:?}"
        );
    }
    assert!(!planted.join("bwrap.ran").exists());
    assert!(!planted.join("state").exists());
}

/// N11: the agent runs outside hookhost's box and writes the temp folders, so under the
/// bridge they are the agent's even when the session has a box: a host hook's PATH
/// loses a folder there, as it loses the project's. The agent's settings can set the
/// PATH hooks get, and a `grep` planted there would answer for `marker`'s.
#[test]
fn bridge_gives_a_host_hook_no_path_folder_in_the_temp_folder() {
    if !crate::support::bwrap_or_skip("bridge_gives_a_host_hook_no_path_folder_in_the_temp_folder")
    {
        return;
    }
    let scene = Scene::new();
    let marker = scene.script(
        "marker.sh",
        "grep -q FORBIDDEN && { echo no >&2; exit 2; }; exit 0",
    );
    let boxed = scene.script("boxed.sh", "exit 0");
    config(
        &scene,
        &[
            pre_hook(
                "marker",
                &["/bin/sh", marker.to_str().unwrap()],
                "sandbox = false",
            ),
            // A boxed hook, so that the session has a box.
            pre_hook("boxed", &["/bin/sh", boxed.to_str().unwrap()], ""),
        ],
    );
    let planted = tempfile::Builder::new()
        .prefix("hookhost-planted-")
        .tempdir_in("/tmp")
        .unwrap();
    let grep = planted.path().join("grep");
    std::fs::write(&grep, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&grep, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = crate::support::run_with_stdin(
        scene
            .hookhost()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", planted.path().display()),
            )
            .args(["bridge", "--agent", "claude-code"]),
        forbidden_call(&scene).to_string().as_bytes(),
    );
    let reason = deny_reason("claude-code", &out);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("blocked by the user's hook \"marker\": no")),
        "{out:?}"
    );
}

/// N11: a variable the agent's project settings hand its hooks reaches no hook of
/// hookhost's, whatever its value, though the model's `cd` moved the call's `cwd` out of
/// the project (the review saw a hook that read `HOOK_OFF` stand down after a `cd` to a
/// folder beside it); `[sandbox] keep_env` is the user's word that a hook needs it.
#[test]
fn bridge_hands_no_hook_a_variable_the_projects_settings_set() {
    let scene = Scene::new();
    let hook = scene.script(
        "off.sh",
        "[ -n \"$HOOK_OFF\" ] && exit 0; grep -q FORBIDDEN && { echo no >&2; exit 2; }; exit 0",
    );
    let hooks = pre_hook(
        "off",
        &["/bin/sh", hook.to_str().unwrap()],
        "sandbox = false",
    );
    std::fs::create_dir_all(scene.project.join(".claude")).unwrap();
    std::fs::write(
        scene.project.join(".claude/settings.local.json"),
        r#"{"env": {"HOOK_OFF": 9007199254740993}}"#,
    )
    .unwrap();
    let beside = scene.root.path().join("beside");
    std::fs::create_dir_all(&beside).unwrap();
    let call = |cwd: &Path| {
        let mut payload = forbidden_call(&scene);
        payload["cwd"] = cwd.to_str().unwrap().into();
        let out = crate::support::run_with_stdin(
            scene
                .hookhost()
                .env("CLAUDE_PROJECT_DIR", &scene.project)
                // As Claude Code hands it (JavaScript's `String` of that number).
                .env("HOOK_OFF", "9007199254740992")
                .args(["bridge", "--agent", "claude-code"]),
            payload.to_string().as_bytes(),
        );
        deny_reason("claude-code", &out)
    };
    config(&scene, std::slice::from_ref(&hooks));
    for cwd in [&scene.project, &beside] {
        let reason = call(cwd);
        assert!(
            reason
                .as_deref()
                .is_some_and(|r| r.contains("blocked by the user's hook \"off\": no")),
            "{}: {reason:?}",
            cwd.display()
        );
    }
    config(
        &scene,
        &[format!("{hooks}\n[sandbox]\nkeep_env = [\"HOOK_OFF\"]\n")],
    );
    assert_eq!(call(&beside), None);
}

/// N11: a `HOME` ignored with nothing to put in its place (a uid with no home in the
/// password database, as in a container run with `--user N`) leaves no config and no
/// pins to find. The call was refused as "no config path: set … HOME", advice to set what
/// the bridge had just ignored; now the refusal says why.
#[test]
fn bridge_blocks_when_an_ignored_home_leaves_it_none() {
    let test = "bridge_blocks_when_an_ignored_home_leaves_it_none";
    if !crate::support::nobody_or_skip(test) {
        return;
    }
    let Some(world) = crate::support::OtherUserWorld::new(test) else {
        return;
    };
    let hookhost = world.copy_executable(Path::new(env!("CARGO_BIN_EXE_hookhost")));
    let scene = world.scene();
    let planted = scene.project.join(".agent-home");
    std::fs::create_dir_all(&planted).unwrap();
    let payload = forbidden_call(&scene);
    let out = run_with_stdin(
        Command::new("setpriv")
            .args(["--reuid=54321", "--regid=54321", "--clear-groups"])
            .arg(&hookhost)
            .args(["bridge", "--agent", "claude-code"])
            .env_clear()
            .env("HOME", &planted)
            .env("PATH", "/usr/bin:/bin")
            .current_dir(&scene.project),
        payload.to_string().as_bytes(),
    );
    let reason = deny_reason("claude-code", &out).unwrap_or_else(|| panic!("{out:?}"));
    assert!(
        reason.starts_with("hookhost ignored the HOME it was given (it lies where the agent can write), and this user has no home in the password database"),
        "{reason}"
    );
}

/// N11: a `HOME` in the project (an agent's settings can set it, with a planted config and
/// no pins under it) is not the bridge's home: it is ignored with a warning naming it, and
/// the user's hooks still judge the call. So it is when the model's `cd` moved the call's
/// `cwd` into a subfolder (it was compared with `cwd` alone, and taken): the project the
/// agent states for its hooks counts too.
#[test]
fn bridge_takes_no_home_from_the_project() {
    let scene = marker_scene();
    let planted = scene.project.join(".agent-home");
    std::fs::create_dir_all(planted.join(".config/hookhost")).unwrap();
    std::fs::write(planted.join(".config/hookhost/config.toml"), "").unwrap();
    let sub = scene.project.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    for cwd in [&scene.project, &sub] {
        let mut payload = forbidden_call(&scene);
        payload["cwd"] = cwd.to_str().unwrap().into();
        let out = crate::support::run_with_stdin(
            scene
                .hookhost()
                .env("HOME", &planted)
                .env("CLAUDE_PROJECT_DIR", &scene.project)
                .env("XDG_STATE_HOME", scene.root.path().join("state"))
                .env("XDG_CACHE_HOME", scene.root.path().join("cache"))
                .args(["bridge", "--agent", "claude-code"]),
            payload.to_string().as_bytes(),
        );
        assert!(
            deny_reason("claude-code", &out)
                .is_some_and(|r| r.contains("blocked by the user's hook \"marker\"")),
            "{cwd:?}: {out:?}"
        );
        assert!(
            out.1.contains(&format!(
                "hookhost bridge ignores HOME={}",
                planted.display()
            )),
            "{cwd:?}: {out:?}"
        );
    }
}
