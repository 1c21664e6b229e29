//! The path guard and the bubblewrap box through the real binary: refusals at start,
//! sandboxed hooks judged from inside the box, host hooks' PATH in a sandboxed session,
//! `hookhost box`, and a session where bwrap cannot run.
//!
//! The refusals and the judging from inside the box are here; probing, lifetimes and
//! the hidden homes have modules of their own.

use crate::support;
use crate::support::{Prerequisite, Scene, hook, sh_hook};

mod homes;
mod lifetimes;
mod probing;

#[test]
fn hooks_in_the_project_are_refused_and_every_one_is_reported() {
    let scene = Scene::new();
    let inside = scene.project.join("hooks/check.sh");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::write(&inside, "#!/bin/sh\nexit 0\n").unwrap();
    let ok = scene.script("ok.sh", "exit 0");
    scene.write_config(&format!(
        "{}{}{}{}",
        hook(
            "no-force-push",
            "PreToolUse",
            &[inside.to_str().unwrap()],
            ""
        ),
        hook(
            "rules",
            "PreToolUse",
            &["/bin/sh", ok.to_str().unwrap(), "--rules=hooks/r.yaml"],
            ""
        ),
        hook("missing", "PreToolUse", &["check-not-anywhere.sh"], ""),
        hook("fine", "PreToolUse", &["/bin/sh", ok.to_str().unwrap()], ""),
    ));
    for sandbox_flag in [&[][..], &["--no-sandbox"][..]] {
        let mut args = sandbox_flag.to_vec();
        args.push("check");
        let (code, stdout, stderr) = scene.run(&args);
        assert_eq!(code, 2, "{stderr}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(&format!(
            "hook no-force-push: {} is in the project, so the agent could change it. Move it outside (for example ~/.local/share/harness/hooks/), or start with --no-hooks.",
            inside.display()
        )), "{stderr}");
        assert!(
            stderr.contains("hook rules: hooks/r.yaml is in the project"),
            "{stderr}"
        );
        assert!(
            stderr.contains("hook missing: check-not-anywhere.sh was not found."),
            "{stderr}"
        );
        assert!(!stderr.contains("hook fine"), "{stderr}");
    }
    // --no-hooks runs no guard.
    let (code, stdout, _) = scene.run(&["--no-hooks", "check"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, "hooks: off (--no-hooks)\n");
}

/// docs/threats.md#b2: an agent that can write the home links a default hidden path
/// through itself (`~/.aws -> .aws/x`). The boxed hook cannot start, its call is blocked
/// and the message names the path; before, resolving it overflowed the stack and the
/// process died (exit 134), which some agents read as "go ahead".
#[test]
fn a_hidden_path_linked_through_itself_blocks_the_call_instead_of_crashing() {
    let test = "a_hidden_path_linked_through_itself_blocks_the_call_instead_of_crashing";
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let home = scene.root.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::os::unix::fs::symlink(".aws/x", home.join(".aws")).unwrap();
    let ok = scene.script("ok.sh", "cat >/dev/null; exit 0");
    scene.write_config(&sh_hook("boxed", &ok, ""));
    let out = scene
        .hookhost()
        .env("HOME", &home)
        .args(["pre-tool-use", "--tool", "bash", "--input"])
        .arg(r#"{"command":"ls"}"#)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let why = format!(
        "a hidden path {} cannot be used: too many levels of symbolic links",
        home.join(".aws").display()
    );
    assert!(
        stdout.contains(&format!("{why}), so this call was blocked")),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!("{why}), so the calls it covers are blocked")),
        "{stderr}"
    );
}

#[test]
fn a_config_inside_the_project_is_refused() {
    let scene = Scene::new();
    let ok = scene.script("ok.sh", "exit 0");
    let config = scene.project.join(".harness/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, sh_hook("a", &ok, "")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("--project")
        .arg(&scene.project)
        .args(["--no-sandbox", "check"])
        .env("HARNESS_HOME", config.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "config {} is in the project, so the agent could change its [[hooks]].",
            config.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_sandboxed_hook_is_judged_from_inside_the_box() {
    if !support::bwrap_or_skip("a_sandboxed_hook_is_judged_from_inside_the_box") {
        return;
    }
    let scene = Scene::new();
    let private_tmp = scene.root.path().join("private-tmp");
    std::fs::create_dir_all(&private_tmp).unwrap();
    let home = scene.root.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    let outside = scene.root.path().join("outside.txt");
    let script = scene.script(
        "inside.sh",
        &format!(
            r#"r=""
echo x > '{outside}' 2>/dev/null && r="$r outside-written" || r="$r outside-refused"
echo x > in-project.txt && r="$r project-written"
echo x > /tmp/x && r="$r tmp-written"
cat '{home}/.ssh/id_rsa' >/dev/null 2>&1 && r="$r key-read" || r="$r key-hidden"
head -c 1 /etc/passwd >/dev/null && r="$r etc-read"
r="$r key=${{ANTHROPIC_API_KEY-absent}} procs=$(ls /proc | grep -c '^[0-9]') maxpid=$(ls /proc | grep '^[0-9]' | sort -n | tail -1)"
echo "$r" >&2; echo "cwd=$(pwd)" >&2; exit 2"#,
            outside = outside.display(),
            home = home.display()
        ),
    );
    scene.write_config(&sh_hook("inside", &script, "tools = [\"bash\"]"));
    let out = scene
        .hookhost()
        .arg("--private-tmp")
        .arg(&private_tmp)
        .env("HOME", &home)
        .env("ANTHROPIC_API_KEY", "sk-ant-secret")
        .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    let message = v["message"].as_str().unwrap();
    let reason = message
        .strip_prefix("blocked by the user's hook \"inside\": ")
        .unwrap();
    let words: Vec<&str> = reason.split_whitespace().collect();
    for expected in [
        "outside-refused",
        "project-written",
        "tmp-written",
        "key-hidden",
        "etc-read",
        "key=absent",
    ] {
        assert!(
            words.contains(&expected),
            "{expected} missing from {reason}"
        );
    }
    let procs: usize = words
        .iter()
        .find_map(|w| w.strip_prefix("procs="))
        .unwrap()
        .parse()
        .unwrap();
    let max_pid: usize = words
        .iter()
        .find_map(|w| w.strip_prefix("maxpid="))
        .unwrap()
        .parse()
        .unwrap();
    // Its own PID namespace: bwrap's init, the hook's shell and this pipeline, no more.
    assert!(
        procs <= 6 && max_pid < 20,
        "the box sees {procs} processes, up to pid {max_pid}"
    );
    // On a line of its own: a checkout path may hold spaces.
    assert!(
        reason
            .lines()
            .any(|l| l == format!("cwd={}", scene.project.display())),
        "{reason}"
    );
    assert!(
        !outside.exists(),
        "a write outside the project reached the host"
    );
    assert!(scene.project.join("in-project.txt").exists());
    assert!(
        private_tmp.join("x").exists(),
        "/tmp/x did not land in the private temp folder"
    );
    // The banner: a sandboxed hook is not marked as on the host.
    let (_, stdout, _) = scene.run(&["--private-tmp", private_tmp.to_str().unwrap(), "check"]);
    assert_eq!(crate::support::banner_of(&stdout), "hooks: inside (bash)\n");
}

#[test]
fn a_host_hook_in_a_sandboxed_session_loses_agent_writable_path_entries() {
    if !support::bwrap_or_skip(
        "a_host_hook_in_a_sandboxed_session_loses_agent_writable_path_entries",
    ) {
        return;
    }
    let scene = Scene::new();
    let planted = scene.project.join("bin");
    std::fs::create_dir_all(&planted).unwrap();
    let script = scene.script("path.sh", "echo \"$PATH|$(pwd)\" >&2; exit 2");
    // A sandboxed hook too, so that the session has a box (without one it would not
    // probe: `only_a_session_with_a_sandboxed_hook_probes_the_box`).
    let boxed = scene.script("boxed.sh", "exit 0");
    scene.write_config(&format!(
        "{}{}",
        sh_hook("boxed", &boxed, ""),
        sh_hook("notify", &script, "sandbox = false")
    ));
    let path = format!("{}:/usr/bin:relative/bin::/bin", planted.display());
    let out = scene
        .hookhost()
        .env("PATH", &path)
        .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    assert_eq!(
        v["message"],
        "blocked by the user's hook \"notify\": /usr/bin:/bin|/"
    );
    // Without a sandbox PATH is unchanged.
    let out = scene
        .hookhost()
        .env("PATH", &path)
        .args([
            "--no-sandbox",
            "pre-tool-use",
            "--json",
            "--tool",
            "bash",
            "--input",
            "{}",
        ])
        .output()
        .unwrap();
    let v = support::verdict(&out);
    assert_eq!(
        v["message"],
        format!("blocked by the user's hook \"notify\": {path}|/")
    );
}

/// A hook in the box loses them too: the box shows it the project read-only, but the
/// agent writes there from outside, so a program it plants in a folder of the project
/// on PATH would answer for the hook's own (docs/threats.md#n11). Nor does it get the
/// variables that choose what code its programs load (`PYTHONPATH`), unless `keep_env`
/// names them.
#[test]
fn a_boxed_hook_loses_agent_writable_path_entries_and_code_loading_variables() {
    if !support::bwrap_or_skip(
        "a_boxed_hook_loses_agent_writable_path_entries_and_code_loading_variables",
    ) {
        return;
    }
    let scene = Scene::new();
    let planted = scene.project.join("bin");
    std::fs::create_dir_all(&planted).unwrap();
    let script = scene.script(
        "path.sh",
        "echo \"$PATH|${PYTHONPATH-none}|${NODE_OPTIONS-none}\" >&2; exit 2",
    );
    let path = format!("{}:/usr/bin:/bin", planted.display());
    let gate = |keep: &str| {
        scene.write_config(&format!(
            "[sandbox]\nkeep_env = [{keep}]\n\n{}",
            sh_hook("boxed", &script, "")
        ));
        let out = scene
            .hookhost()
            .env("PATH", &path)
            .env("PYTHONPATH", &planted)
            .env("NODE_OPTIONS", "--require ./x.js")
            .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
            .output()
            .unwrap();
        support::verdict(&out)["message"].clone()
    };
    assert_eq!(
        gate(""),
        "blocked by the user's hook \"boxed\": /usr/bin:/bin|none|none"
    );
    assert_eq!(
        gate("\"PYTHONPATH\""),
        format!(
            "blocked by the user's hook \"boxed\": /usr/bin:/bin|{}|none",
            planted.display()
        )
    );
}

#[test]
fn hookhost_box_runs_a_command_in_the_hooks_box() {
    if !support::bwrap_or_skip("hookhost_box_runs_a_command_in_the_hooks_box") {
        return;
    }
    let scene = Scene::new();
    scene.write_config("");
    let out = scene
        .hookhost()
        .env("OPENAI_API_KEY", "sk-secret")
        .args([
            "box",
            "--",
            "sh",
            "-c",
            "touch /etc/hookhost-box-test 2>/dev/null; echo ${OPENAI_API_KEY-absent}; pwd; exit 7",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("absent\n{}\n", scene.project.display())
    );
    assert!(!std::path::Path::new("/etc/hookhost-box-test").exists());
}

/// Runs what follows with `landlock_create_ruleset` failing ENOSYS, as on a kernel
/// without Landlock (a seccomp filter installed by python3, then exec).
const WITHOUT_LANDLOCK: &str = r#"
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
ld_nr = struct.pack("HBBI", 0x20, 0, 0, 0)
is_landlock = struct.pack("HBBI", 0x15, 0, 1, 444)
enosys = struct.pack("HBBI", 0x06, 0, 0, 0x00050000 | 38)
allow = struct.pack("HBBI", 0x06, 0, 0, 0x7FFF0000)
code = ctypes.create_string_buffer(ld_nr + is_landlock + enosys + allow)
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
prog = Prog(4, ctypes.cast(code, ctypes.c_void_p))
ul = ctypes.c_ulong
if libc.prctl(38, ul(1), ul(0), ul(0), ul(0)) != 0 or libc.prctl(22, ul(2), ctypes.byref(prog), ul(0), ul(0)) != 0:
    sys.exit("cannot install the filter: errno %d" % ctypes.get_errno())
os.execv(sys.argv[1], sys.argv[1:])
"#;

/// Where the kernel has no Landlock the box still runs (it does not fail closed), and
/// `check` (only `check`) says what that leaves open.
#[test]
fn without_landlock_the_box_runs_and_check_says_so() {
    let test = "without_landlock_the_box_runs_and_check_says_so";
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let script = scene.script("h.sh", "exit 0");
    scene.write_config(&sh_hook("h", &script, ""));
    let note = "⚠ this kernel has no Landlock (Linux 5.13+ with Landlock enabled), so a sandboxed hook can write into a host FIFO it can see; the rest of the box holds.";
    let without = |args: &[&str]| {
        let plain = scene.hookhost();
        let mut cmd = std::process::Command::new("python3");
        cmd.args(["-c", WITHOUT_LANDLOCK])
            .arg(plain.get_program())
            .args(plain.get_args())
            .args(args);
        for (k, v) in plain.get_envs() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        cmd.output().unwrap()
    };
    let out = without(&["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(note), "{stderr}");
    let out = without(&["box", "--", "sh", "-c", "echo ran"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ran\n");
    // Not on every gate; and not at all where the kernel has Landlock.
    let out = without(&["pre-tool-use", "--tool", "bash", "--input", "{}"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("Landlock"));
    if hookhost::sandbox::landlock_abi().is_some() {
        let (code, _, stderr) = scene.run(&["check"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(!stderr.contains("Landlock"), "{stderr}");
    }
}

/// docs/threats.md#f1, through the binary as the review ran it: a sandboxed hook (and
/// `hookhost box`, the agent's commands) run as root writes back the host's
/// `kernel.core_pattern`. Today's box refuses with EROFS, so the hook falls through to
/// "no objection" and `box` exits with the shell's failure.
#[test]
fn as_root_a_boxed_hook_cannot_write_the_hosts_sysctls() {
    let test = "as_root_a_boxed_hook_cannot_write_the_hosts_sysctls";
    if !support::root_or_skip(test, "not root, and only root's writes reach /proc/sys") {
        return;
    }
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let write_back = "cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern";
    let script = scene.script(
        "sysctl.sh",
        &format!(
            "cat >/dev/null; {write_back} && echo 'wrote kernel.core_pattern' >&2 && exit 2; exit 0"
        ),
    );
    scene.write_config(&sh_hook("sysctl", &script, "sandbox = true"));
    let (code, verdict) = scene.gate(&[], "bash", r#"{"command":"ls"}"#);
    assert_eq!(code, 0, "{verdict}");
    assert_eq!(verdict["outcome"], "allow", "{verdict}");

    let (code, stdout, stderr) = scene.run(&[
        "box",
        "--",
        "sh",
        "-c",
        &format!("{write_back} && echo WROTE"),
    ]);
    assert_ne!(code, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("WROTE"), "{stdout}");
    assert!(stderr.contains("Read-only file system"), "{stderr}");
}

/// A boxed hook killed by a signal reads "was killed by a signal", as a host hook does,
/// not "exited with code 139" (bwrap's report of it; docs/threats.md#f20).
#[test]
fn a_boxed_hook_killed_by_a_signal_says_so() {
    let scene = Scene::new();
    let script = scene.script("crash.sh", "cat >/dev/null; kill -SEGV $$");
    scene.write_config(&sh_hook("crash", &script, "sandbox = true"));
    let (code, verdict) = scene.gate(&[], "bash", "{}");
    assert_eq!(code, 1, "{verdict}");
    let message = verdict["message"].as_str().unwrap_or_default();
    assert!(message.contains("was killed by a signal"), "{verdict}");
    let (_, host) = scene.gate(&["--no-sandbox"], "bash", "{}");
    assert_eq!(
        host["message"], verdict["message"],
        "box and host read alike"
    );
}
