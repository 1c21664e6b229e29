//! Config loading, load errors, the banner and the default config path, through the
//! real binary.

use crate::support;
use crate::support::{Scene, banner_of, hook, sh_hook};

fn check(scene: &Scene) -> (i32, String, String) {
    scene.run(&["--no-sandbox", "check"])
}

/// Each load error exits 2 and names the file, the hook and what is wrong.
#[test]
fn every_load_error_names_file_and_hook() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    let ok = ok.to_str().unwrap();
    let file = scene.config.display().to_string();
    let cases: Vec<(String, &str, &str)> = vec![
        (
            format!("{}matcher = \"Bash\"\n", hook("m", "PreToolUse", &[ok], "")),
            "hook m: unknown key \"matcher\"",
            "tools = [",
        ),
        (
            format!("{}type = \"command\"\n", hook("t", "PreToolUse", &[ok], "")),
            "hook t: unknown key \"type\"",
            "",
        ),
        (
            format!("{}if = \"x\"\n", hook("i", "PreToolUse", &[ok], "")),
            "hook i: unknown key \"if\"",
            "",
        ),
        (
            hook("e", "PostToolUse", &[ok], ""),
            "hook e: the event \"PostToolUse\" is not one of the two",
            "",
        ),
        (
            "[[hooks]]\nname = \"c\"\nevent = \"PreToolUse\"\ncommand = []\n".into(),
            "hook c: command is empty",
            "",
        ),
        (
            hook("u", "UserPromptSubmit", &[ok], "tools = [\"bash\"]"),
            "hook u: tools is for PreToolUse hooks",
            "",
        ),
        (
            hook("none", "PreToolUse", &[ok], "tools = []"),
            "hook none: tools = [] covers no tool, so this hook would never run",
            "",
        ),
        (
            format!(
                "[[hooks]]\nname = \"nul\"\nevent = \"PreToolUse\"\ncommand = [\"{ok}\", \"a\\u0000b\"]\n"
            ),
            "hook nul: command[1] holds a NUL character, which no program argument can carry",
            "",
        ),
        (
            format!(
                "[wasm]\nmemory_limit_mib = 8192\n\n{}",
                hook("w", "PreToolUse", &[ok], "")
            ),
            "[wasm] memory_limit_mib = 8192 is above 4096: a WASM hook's memory (32-bit) holds 4 GiB at most",
            "",
        ),
        (
            format!(
                "{}{}",
                hook("dup", "PreToolUse", &[ok], ""),
                hook("dup", "PreToolUse", &[ok], "")
            ),
            "hook dup: the name is used twice (hooks #1 and #2)",
            "",
        ),
        (
            hook("Bad Name", "PreToolUse", &[ok], ""),
            "the name \"Bad Name\" is malformed: use 1–32 of a-z, 0-9, \"-\", \"_\"",
            "",
        ),
        (
            hook("to", "PreToolUse", &[ok], "timeout = 601"),
            "hook to: timeout 601 is out of range: whole seconds from 1 to 600",
            "",
        ),
        (
            hook("t0", "PreToolUse", &[ok], "timeout = 0"),
            "hook t0: timeout 0 is out of range",
            "",
        ),
        (
            hook("of", "PreToolUse", &[ok], "on_failure = \"ignore\""),
            "hook of: on_failure \"ignore\" is not valid: use \"block\" or \"continue\"",
            "",
        ),
        (
            format!("[[hooks]]\nevent = \"PreToolUse\"\ncommand = [\"{ok}\"]\n"),
            "hook #1: name is missing",
            "",
        ),
        (
            format!("[[hooks]]\nname = \"ne\"\ncommand = [\"{ok}\"]\n"),
            "hook ne: event is missing",
            "",
        ),
        (
            "[[hooks]]\nname = \"nc\"\nevent = \"PreToolUse\"\n".into(),
            "hook nc: command is missing",
            "",
        ),
        (
            "[[hooks]]\nname = \"s\"\nevent = \"PreToolUse\"\ncommand = \"echo hi\"\n".into(),
            "hook s: command must be an argv list, not a string",
            "[\"sh\", \"-c\", \"…\"]",
        ),
    ];
    for (text, expected, also) in cases {
        scene.write_config(&text);
        let (code, stdout, stderr) = check(&scene);
        assert_eq!(code, 2, "config:\n{text}\nstderr: {stderr}");
        assert!(stdout.is_empty(), "no banner on a load error: {stdout}");
        assert!(
            stderr.contains(&format!("{file}: ")) && stderr.contains(expected),
            "expected {expected:?} naming {file}, got: {stderr}"
        );
        assert!(stderr.contains(also), "expected {also:?} in {stderr}");
    }
}

#[test]
fn all_problems_of_a_file_are_reported_at_once() {
    let scene = Scene::new();
    scene.write_config(
        "[[hooks]]\nname = \"a\"\nevent = \"Nope\"\ncommand = [\"/bin/true\"]\ntimeout = 0\n",
    );
    let (code, _, stderr) = check(&scene);
    assert_eq!(code, 2);
    assert!(stderr.contains("hook a: the event \"Nope\""), "{stderr}");
    assert!(
        stderr.contains("hook a: timeout 0 is out of range"),
        "{stderr}"
    );
}

#[test]
fn malformed_toml_gives_line_and_column() {
    let scene = Scene::new();
    scene.write_config("model = \"x\"\n[[hooks]]\nname = = \"a\"\n");
    let (code, _, stderr) = check(&scene);
    assert_eq!(code, 2);
    let expected = format!(
        "{}: malformed TOML at line 3, column 8",
        scene.config.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
}

#[test]
fn unknown_tool_is_a_warning_with_the_spec_line() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    scene.write_config(&sh_hook("no-force-push", &ok, "tools = [\"Bash\"]"));
    let (code, stdout, stderr) = check(&scene);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(
        "⚠ hook no-force-push lists \"Bash\", which is not a tool here; tool names are lower case, such as bash."
    ), "{stderr}");
    assert_eq!(
        banner_of(&stdout),
        "hooks: no-force-push (Bash, on the host)\n"
    );
}

#[test]
fn foreign_top_level_keys_are_ignored_and_defaults_apply() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    scene.write_config(&format!(
        "model = \"m\"\n[mcp.servers.github]\ncommand = \"x\"\n\n{}",
        sh_hook("a", &ok, "")
    ));
    let (code, stdout, stderr) = check(&scene);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(banner_of(&stdout), "hooks: a (every tool, on the host)\n");
}

#[test]
fn banner_is_the_spec_line() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    let ok = ok.to_str().unwrap();
    scene.write_config(&format!(
        "{}{}{}",
        hook(
            "no-force-push",
            "PreToolUse",
            &["/bin/sh", ok],
            "tools = [\"bash\", \"exec\"]"
        ),
        hook("keywords", "UserPromptSubmit", &["/bin/sh", ok], ""),
        hook("notify", "PreToolUse", &["/bin/sh", ok], "sandbox = false"),
    ));
    let (code, stdout, stderr) = check(&scene);
    assert_eq!(code, 0, "{stderr}");
    // A session without a sandbox runs every argv hook on the host.
    assert_eq!(
        banner_of(&stdout),
        "hooks: no-force-push (bash, exec, on the host) · keywords (prompts, on the host) · notify (every tool, on the host)\n"
    );
}

#[test]
fn no_hooks_banner_and_nothing_is_loaded() {
    let scene = Scene::new();
    scene.write_config("this is not toml = = =");
    let out = scene
        .hookhost()
        .args(["--no-hooks", "check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "hooks: off (--no-hooks)\n"
    );
}

#[test]
fn default_config_path_follows_harness_home_then_xdg_then_home() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    let base = scene.root.path();
    let write = |dir: &std::path::Path, name: &str| {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("config.toml"), sh_hook(name, &ok, "")).unwrap();
    };
    write(&base.join("hh"), "from-harness-home");
    write(&base.join("xdg/harness"), "from-xdg");
    write(&base.join("home/.config/harness"), "from-home");
    let run = |vars: &[(&str, std::path::PathBuf)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"));
        cmd.args(["--no-sandbox", "--project"])
            .arg(&scene.project)
            .arg("check")
            .env_remove("HARNESS_HOME")
            .env_remove("XDG_CONFIG_HOME");
        for (k, v) in vars {
            cmd.env(k, v);
        }
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
    };
    let all = [
        ("HARNESS_HOME", base.join("hh")),
        ("XDG_CONFIG_HOME", base.join("xdg")),
        ("HOME", base.join("home")),
    ];
    assert!(run(&all).starts_with("hooks: from-harness-home "));
    assert!(run(&all[1..]).starts_with("hooks: from-xdg "));
    assert!(run(&all[2..]).starts_with("hooks: from-home "));
    // No config file at the default path: no hooks, and the session starts.
    assert_eq!(run(&[("HOME", base.join("nowhere"))]), "hooks: none\n");
}

#[test]
fn a_named_config_that_does_not_exist_is_an_error() {
    let scene = Scene::new();
    let (code, _, stderr) = check(&scene);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read the config"), "{stderr}");
}

/// Operator logs: off by default; `HOOKHOST_LOG=debug` or `-v` writes a span per gate and
/// per hook run to stderr (hook name, executor, outcome, failure kind, duration), never
/// to stdout, never an environment value, and the envelope only at trace level.
#[test]
fn logs_are_off_by_default_and_on_with_hookhost_log_or_v() {
    let scene = Scene::new();
    let blocks = scene.script("blocks.sh", "cat >/dev/null; echo no >&2; exit 2");
    let fails = scene.script("fails.sh", "cat >/dev/null; exit 3");
    scene.write_config(&format!(
        "{}{}",
        sh_hook("flaky", &fails, "on_failure = \"continue\""),
        sh_hook("guard", &blocks, "")
    ));
    let input = r#"{"command":"echo ENVELOPE-MARKER"}"#;
    let run = |env: Option<&str>, flags: &[&str]| {
        let mut cmd = scene.hookhost();
        cmd.env_remove("HOOKHOST_LOG")
            .env("SOME_SETTING", "ENV-VALUE-MARKER")
            .arg("--no-sandbox")
            .args(flags)
            .args(["pre-tool-use", "--json", "--tool", "bash", "--input", input]);
        if let Some(filter) = env {
            cmd.env("HOOKHOST_LOG", filter);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let verdict = support::verdict(&out);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(verdict["hook"], "guard");
        (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
    };

    let (quiet_out, quiet) = run(None, &[]);
    assert!(!quiet.contains("hook{"), "logs without asking: {quiet}");

    for (env, flags) in [(Some("debug"), &[][..]), (None, &["-v"][..])] {
        let (stdout, stderr) = run(env, flags);
        assert_eq!(stdout, quiet_out, "logs changed stdout");
        let hook_line = |name: &str| {
            stderr
                .lines()
                .find(|l| l.contains(&format!("hook{{hook=\"{name}\"")) && l.contains("close"))
                .unwrap_or_else(|| panic!("no closed span for {name}: {stderr}"))
                .to_string()
        };
        let flaky = hook_line("flaky");
        assert!(flaky.contains("executor=\"host\""), "{flaky}");
        assert!(flaky.contains("outcome=\"failed, continued\""), "{flaky}");
        assert!(flaky.contains("failure=\"exited with code 3\""), "{flaky}");
        assert!(flaky.contains("time.busy="), "{flaky}");
        assert!(hook_line("guard").contains("outcome=\"block\""), "{stderr}");
        assert!(
            stderr.contains("gate{event=\"PreToolUse\" tool=\"bash\""),
            "{stderr}"
        );
        assert!(!stderr.contains("ENV-VALUE-MARKER"), "{stderr}");
        assert!(!stderr.contains("ENVELOPE-MARKER"), "{stderr}");
    }

    let (_, trace) = run(Some("trace"), &[]);
    assert!(trace.contains("ENVELOPE-MARKER"), "{trace}");
    assert!(!trace.contains("ENV-VALUE-MARKER"), "{trace}");

    let out = scene
        .hookhost()
        .env("HOOKHOST_LOG", "hookhost=[")
        .arg("check")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("HOOKHOST_LOG=\"hookhost=[\" is not a log filter"),
        "{stderr}"
    );
}

/// A project or config that exists but cannot be entered says "permission denied" and
/// which folder, not "is not a folder"; a missing one says which part is missing. Run as
/// the unprivileged user against a 0700 folder of root's (root enters anything).
#[test]
fn unreachable_paths_say_permission_denied_and_where() {
    use std::os::unix::fs::PermissionsExt;
    let test = "unreachable_paths_say_permission_denied_and_where";
    if !support::nobody_or_skip(test) {
        return;
    }
    let Some(world) = support::OtherUserWorld::new(test) else {
        return;
    };
    let hookhost = world.copy_executable(std::path::Path::new(env!("CARGO_BIN_EXE_hookhost")));
    let scene = world.scene();
    scene.write_config("");
    let private = world.root.path().join("private");
    std::fs::create_dir_all(private.join("project")).unwrap();
    std::fs::write(private.join("config.toml"), "").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let run = |config: &std::path::Path, project: &std::path::Path| {
        let out = support::as_nobody()
            .arg(&hookhost)
            .arg("--config")
            .arg(config)
            .arg("--project")
            .arg(project)
            .arg("check")
            .env("HOME", "/")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let closed = format!(
        "permission denied ({} cannot be entered by this user)",
        private.display()
    );

    let (code, stderr) = run(&scene.config, &private.join("project"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the project {}: {closed}",
            private.join("project").display()
        )),
        "{stderr}"
    );

    let (code, stderr) = run(&private.join("config.toml"), &scene.project);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot read the config: {closed}")),
        "{stderr}"
    );

    let missing = world.root.path().join("gone");
    let (code, stderr) = run(&scene.config, &missing.join("project"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "does not exist ({} is missing)",
            missing.display()
        )),
        "{stderr}"
    );
}

/// docs/threats.md#f14: relative `[sandbox]` paths were accepted by `check` and then
/// failed every run; they are load errors naming the key and the entry.
#[test]
fn relative_sandbox_paths_are_load_errors() {
    let scene = Scene::new();
    scene.write_config(
        "[sandbox]\nhide = [\"relative/secret\"]\nwritable = [\"/abs\", \"also-relative\"]\n",
    );
    for extra in [&[][..], &["--no-sandbox"][..]] {
        let out = scene.hookhost().args(extra).arg("check").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        let file = scene.config.display();
        assert!(
            stderr.contains(&format!(
                "{file}: [sandbox] hide: \"relative/secret\" is not an absolute path (write it in full, or start it with ~/)"
            )),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!(
                "{file}: [sandbox] writable: \"also-relative\" is not an absolute path"
            )),
            "{stderr}"
        );
    }
}

/// A project of `/` makes every path "in the project": said at start, not silently
/// accepted (docs/threats.md#f23).
#[test]
fn a_project_of_the_root_is_warned_about() {
    let scene = Scene::new();
    scene.write_config("");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("--config")
        .arg(&scene.config)
        .args(["--project", "/", "check"])
        .env("XDG_STATE_HOME", scene.state())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("⚠ the project is / (the whole file system)"),
        "{stderr}"
    );
}
