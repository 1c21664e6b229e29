//! The bubblewrap box, from the inside: real bwrap, real processes.
//!
//! Each test probes bwrap first. Where it truly cannot run, the test prints a loud
//! `SKIPPED <test>: bubblewrap cannot run here (…)` line to stderr and returns, or, with
//! `HOOKHOST_REQUIRE_BOX` set, fails.
//!
//! The file system, the process and the namespaces are here; the network and the kernel,
//! the probe and Landlock have modules of their own.

use crate::support::{self, Prerequisite, lossy};
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use hookhost::sandbox::{self, BoxSpec, Unavailable};

/// A project, a fake home with credentials, an outside folder and a private /tmp, all
/// under the target folder (not the host /tmp, which the box replaces).
struct Fixture {
    _root: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    home: PathBuf,
    spec: BoxSpec,
}

/// The fixture for `test`, or `None` where bubblewrap cannot run here (a `SKIPPED` line,
/// or a failure under `HOOKHOST_REQUIRE_BOX`: [`support::skip_or_fail`]).
fn fixture(test: &str) -> Option<Fixture> {
    let root = tempfile::Builder::new()
        .prefix("sbx")
        .tempdir_in(support::test_root())
        .expect("tempdir");
    let base = std::fs::canonicalize(root.path()).expect("canonical tempdir");
    let project = base.join("project");
    let outside = base.join("outside");
    let home = base.join("home");
    let private_tmp = base.join("private-tmp");
    for d in [&project, &outside, &home.join(".ssh"), &private_tmp] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::write(home.join(".ssh/id_rsa"), "SECRET KEY").expect("write key");
    std::fs::write(home.join(".netrc"), "machine x password SECRET").expect("write netrc");

    let over = std::env::var_os(sandbox::PROGRAM_ENV);
    let info = match sandbox::probe(
        over.as_deref().map(Path::new),
        std::env::var_os("PATH").as_deref(),
        &project,
    ) {
        Ok(info) => info,
        Err(e) => {
            support::skip_or_fail(test, Prerequisite::Bubblewrap, &e.to_string());
            return None;
        }
    };
    let spec = BoxSpec {
        project: project.clone(),
        writable: vec![],
        private_tmp,
        hide: sandbox::default_hidden(&home),
        program: info.path,
        entry: Some(PathBuf::from(env!("CARGO_BIN_EXE_hookhost"))),
    };
    Some(Fixture {
        _root: root,
        project,
        outside,
        home,
        spec,
    })
}

fn env() -> Vec<(OsString, OsString)> {
    vec![("PATH".into(), "/usr/bin:/bin".into())]
}

fn run_in(spec: &BoxSpec, argv: &[&str]) -> Output {
    let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
    spec.command(&argv, &env())
        .expect("command")
        .stdin(Stdio::null())
        .output()
        .expect("spawn bwrap")
}

fn sh(spec: &BoxSpec, script: &str) -> Output {
    run_in(spec, &["sh", "-c", script])
}

fn py(spec: &BoxSpec, code: &str) -> Output {
    run_in(spec, &["python3", "-c", code])
}

#[track_caller]
fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {:?}\nstdout: {}\nstderr: {}",
        o.status,
        lossy(&o.stdout),
        lossy(&o.stderr)
    );
    lossy(&o.stdout)
}

mod kernel;
mod landlock;
mod probe;

#[test]
fn writes_outside_the_project_fail_and_leave_nothing() {
    let Some(f) = fixture("writes_outside_the_project_fail_and_leave_nothing") else {
        return;
    };
    let targets = [
        f.outside.join("x"),
        f.home.join("x"),
        PathBuf::from("/etc/hookhost-sandbox-test"),
        PathBuf::from("/var/tmp/hookhost-sandbox-test"),
    ];
    for t in &targets {
        let o = sh(&f.spec, &format!("echo pwned > '{}'", t.display()));
        assert!(!o.status.success(), "write to {} succeeded", t.display());
        assert!(
            lossy(&o.stderr).contains("Read-only file system"),
            "{}",
            lossy(&o.stderr)
        );
        assert!(!t.exists(), "{} appeared on the host", t.display());
    }
}

#[test]
fn writes_inside_the_project_land_on_the_host() {
    let Some(f) = fixture("writes_inside_the_project_land_on_the_host") else {
        return;
    };
    ok(&sh(&f.spec, "mkdir sub && echo hello > sub/out.txt"));
    assert_eq!(
        std::fs::read_to_string(f.project.join("sub/out.txt")).expect("read"),
        "hello\n"
    );
}

#[test]
fn extra_writable_folders_are_writable() {
    let Some(mut f) = fixture("extra_writable_folders_are_writable") else {
        return;
    };
    f.spec.writable.push(f.outside.clone());
    ok(&sh(
        &f.spec,
        &format!("echo w > '{}/w.txt'", f.outside.display()),
    ));
    assert!(f.outside.join("w.txt").exists());
}

#[test]
fn the_system_is_readable() {
    let Some(f) = fixture("the_system_is_readable") else {
        return;
    };
    assert!(ok(&sh(&f.spec, "cat /etc/passwd")).contains("root:"));
}

#[test]
fn hidden_folders_and_files_are_covered() {
    let Some(f) = fixture("hidden_folders_and_files_are_covered") else {
        return;
    };
    let key = f.home.join(".ssh/id_rsa");
    let o = sh(&f.spec, &format!("cat '{}'", key.display()));
    assert!(!o.status.success());
    assert!(!lossy(&o.stdout).contains("SECRET"));
    // The folder is an empty tmpfs.
    assert_eq!(
        ok(&sh(
            &f.spec,
            &format!("ls -A '{}'", f.home.join(".ssh").display())
        )),
        ""
    );
    // The file is /dev/null on a nodev mount: it cannot even be opened.
    let o = sh(
        &f.spec,
        &format!("cat '{}'", f.home.join(".netrc").display()),
    );
    assert!(
        !o.status.success() && o.stdout.is_empty(),
        "{}",
        lossy(&o.stdout)
    );
    assert!(
        lossy(&o.stderr).contains("Permission denied"),
        "{}",
        lossy(&o.stderr)
    );
    // Through a symlink the box can read, too.
    std::os::unix::fs::symlink(f.home.join(".ssh"), f.project.join("keys")).expect("symlink");
    let o = sh(&f.spec, "cat keys/id_rsa");
    assert!(!o.status.success() && !lossy(&o.stdout).contains("SECRET"));
}

#[test]
fn a_hidden_folder_that_is_a_symlink_hides_its_target() {
    let Some(mut f) = fixture("a_hidden_folder_that_is_a_symlink_hides_its_target") else {
        return;
    };
    let real = f.outside.join("real-aws");
    std::fs::create_dir(&real).expect("mkdir");
    std::fs::write(real.join("credentials"), "SECRET").expect("write");
    std::os::unix::fs::symlink(&real, f.home.join(".aws")).expect("symlink");
    f.spec.hide = sandbox::default_hidden(&f.home);
    let o = sh(
        &f.spec,
        &format!(
            "cat '{}/credentials' '{}/credentials'",
            f.home.join(".aws").display(),
            real.display()
        ),
    );
    assert!(
        !o.status.success() && !lossy(&o.stdout).contains("SECRET"),
        "{}",
        lossy(&o.stdout)
    );
}

#[test]
fn a_missing_hidden_path_in_a_writable_folder_cannot_be_created() {
    let Some(mut f) = fixture("a_missing_hidden_path_in_a_writable_folder_cannot_be_created")
    else {
        return;
    };
    let hidden = f.project.join(".secrets/token");
    f.spec.hide.push(hidden.clone());
    let o = sh(
        &f.spec,
        &format!(
            "mkdir -p '{0}' ; echo x > '{0}/t' ; ls '{0}'",
            hidden.display()
        ),
    );
    assert!(!o.status.success(), "{}", lossy(&o.stderr));
    // bwrap made the mount point on the host (documented); nothing went inside it.
    let first = f.project.join(".secrets");
    assert!(first.is_dir());
    assert_eq!(std::fs::read_dir(&first).expect("read_dir").count(), 0);
}

/// A hidden path behind a link that leads through itself (the agent can make one in the
/// project) is a loop: the box command is refused, naming the path, and nothing runs
/// (docs/threats.md B2). Before, resolving it recursed until the stack overflowed.
#[test]
fn a_hidden_path_behind_a_link_through_itself_refuses_the_box() {
    let Some(mut f) = fixture("a_hidden_path_behind_a_link_through_itself_refuses_the_box") else {
        return;
    };
    std::os::unix::fs::symlink("secrets/x", f.project.join("secrets")).expect("symlink");
    let hidden = f.project.join("secrets/token");
    f.spec.hide.push(hidden.clone());
    let argv = [OsString::from("true")];
    let err = f
        .spec
        .command(&argv, &env())
        .expect_err("the box command is refused");
    let said = err.to_string();
    assert!(
        said.contains(&hidden.display().to_string()) && said.contains("too many levels"),
        "{said}"
    );
}

#[test]
fn the_environment_is_exactly_the_one_given() {
    let Some(f) = fixture("the_environment_is_exactly_the_one_given") else {
        return;
    };
    // The test process has CARGO_* and more in its environment; none may come through.
    assert!(std::env::vars_os().count() > 2);
    let given = vec![
        (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
        (OsString::from("HOOK_MARK"), OsString::from("1")),
    ];
    let cmd = f
        .spec
        .command(&[OsString::from("env")], &given)
        .expect("command");
    let envs: Vec<(&OsStr, Option<&OsStr>)> = cmd.get_envs().collect();
    assert_eq!(envs.len(), 2);
    let mut cmd = cmd;
    let out = ok(&cmd.stdin(Stdio::null()).output().expect("spawn"));
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    // bwrap itself sets PWD (to the --chdir folder); nothing else is added.
    let pwd = format!("PWD={}", f.project.display());
    assert_eq!(lines, ["HOOK_MARK=1", "PATH=/usr/bin:/bin", pwd.as_str()]);
    assert!(!out.contains("ANTHROPIC_API_KEY"));
}

#[test]
fn proc_shows_only_the_box() {
    let Some(f) = fixture("proc_shows_only_the_box") else {
        return;
    };
    let out = ok(&py(
        &f.spec,
        "import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))",
    ));
    let pids: Vec<u32> = out
        .trim()
        .trim_matches(['[', ']'])
        .split(", ")
        .map(|p| p.parse().expect("pid"))
        .collect();
    assert!(pids.len() <= 3 && pids.iter().all(|&p| p < 10), "{pids:?}");
}

#[test]
fn only_stdio_fds_reach_the_command() {
    let Some(f) = fixture("only_stdio_fds_reach_the_command") else {
        return;
    };
    let out = ok(&py(
        &f.spec,
        "import os; print(sorted(os.listdir('/proc/self/fd'), key=int))",
    ));
    // 0, 1, 2, and the fd listdir itself holds open.
    assert_eq!(out.trim(), "['0', '1', '2', '3']", "{out}");
}

#[test]
fn tmp_is_the_private_temp_folder() {
    let Some(f) = fixture("tmp_is_the_private_temp_folder") else {
        return;
    };
    ok(&sh(&f.spec, "echo t > /tmp/x"));
    assert_eq!(
        std::fs::read_to_string(f.spec.private_tmp.join("x")).expect("read"),
        "t\n"
    );
}

#[test]
fn the_working_directory_is_the_project_root() {
    let Some(f) = fixture("the_working_directory_is_the_project_root") else {
        return;
    };
    assert_eq!(
        ok(&sh(&f.spec, "pwd")).trim(),
        f.project.to_str().expect("utf-8")
    );
}

fn pgrep(marker: &str) -> usize {
    let o = Command::new("pgrep")
        .args(["-f", marker])
        .output()
        .expect("pgrep");
    lossy(&o.stdout).lines().count()
}

#[test]
fn killing_bwrap_kills_everything_in_the_box() {
    let Some(f) = fixture("killing_bwrap_kills_everything_in_the_box") else {
        return;
    };
    let marker = format!("hookhost-box-marker-{}", std::process::id());
    let sleeper = format!("python3 -c \"import time; time.sleep(1000)\" {marker}");
    // Two children, one in its own session, one double-forked (orphaned to PID 1).
    let script =
        format!("{sleeper} & {sleeper} & setsid {sleeper} & (sh -c '{sleeper} &' &) ; sleep 1000");
    let argv: Vec<OsString> = ["sh", "-c", &script, &marker]
        .iter()
        .map(OsString::from)
        .collect();
    let mut child = f
        .spec
        .command(&argv, &env())
        .expect("command")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("spawn");
    // bwrap (outer and the box's PID 1), sh (its $0 is the marker), four sleepers.
    let deadline = Instant::now() + Duration::from_secs(10);
    while pgrep(&marker) < 7 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(pgrep(&marker) >= 7, "the box did not start its children");
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: killpg on the process group this test created for the child.
    assert_eq!(unsafe { libc::killpg(pid, libc::SIGKILL) }, 0);
    child.wait().expect("wait");
    let deadline = Instant::now() + Duration::from_secs(5);
    while pgrep(&marker) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(pgrep(&marker), 0, "something in the box survived");
}

#[test]
fn private_tmp_is_fresh_and_0700() {
    let a = sandbox::create_private_tmp(&std::env::temp_dir(), "sess/../1").expect("create");
    let b = sandbox::create_private_tmp(&std::env::temp_dir(), "sess/../1").expect("create");
    assert_ne!(a, b);
    for d in [&a, &b] {
        let m = std::fs::metadata(d).expect("stat");
        assert_eq!(m.permissions().mode() & 0o777, 0o700);
        assert!(
            d.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("hookhost-sess1-"))
        );
        std::fs::remove_dir(d).expect("rmdir");
    }
}

/// docs/threats.md#f1: as root, the box's uid 0 is the host's uid 0, and the kernel lets
/// the global root write every 0644 sysctl. Each write puts back the value just read, so
/// a box that is still open changes nothing on the host. Not root: the kernel refuses
/// these writes anyway, so the test says it proves nothing and stops.
#[test]
fn as_root_the_box_cannot_write_the_hosts_kernel_settings() {
    let test = "as_root_the_box_cannot_write_the_hosts_kernel_settings";
    if !support::root_or_skip(test, "not root, and only root's writes reach /proc/sys") {
        return;
    }
    let Some(f) = fixture(test) else { return };
    let out = py(
        &f.spec,
        r#"
import os
for name in ["kernel/hostname", "kernel/core_pattern", "kernel/domainname"]:
    path = "/proc/sys/" + name
    value = open(path).read()
    try:
        with open(path, "w") as out:
            out.write(value)
        print("WROTE", name)
    except OSError as e:
        print("refused", name, e.errno)
if os.path.exists("/proc/sysrq-trigger"):
    # Opening is enough to show the mount: nothing is written.
    try:
        os.close(os.open("/proc/sysrq-trigger", os.O_WRONLY))
        print("OPENED sysrq-trigger")
    except OSError as e:
        print("refused sysrq-trigger", e.errno)
"#,
    );
    let said = ok(&out);
    assert!(
        !said.contains("WROTE"),
        "a sysctl was written from the box:\n{said}"
    );
    assert!(
        !said.contains("OPENED"),
        "sysrq-trigger opened for writing:\n{said}"
    );
    assert_eq!(said.matches("refused kernel/").count(), 3, "{said}");
}

/// The box has its own UTS namespace, so even a hostname it could set stays inside.
#[test]
fn the_box_has_its_own_hostname_namespace() {
    let Some(f) = fixture("the_box_has_its_own_hostname_namespace") else {
        return;
    };
    let host = std::fs::read_link("/proc/self/ns/uts").expect("host uts ns");
    let out = run_in(&f.spec, &["readlink", "/proc/self/ns/uts"]);
    let inside = ok(&out);
    assert!(inside.starts_with("uts:["), "{inside}");
    assert_ne!(
        inside.trim(),
        host.to_string_lossy(),
        "the box shares the host's UTS namespace"
    );
}

/// F1's second half: a nested user namespace (with its own PID namespace, as mounting
/// procfs requires) must not get a fresh, writable procfs next to the locked cover.
#[test]
fn a_nested_namespace_cannot_mount_a_fresh_procfs() {
    let Some(f) = fixture("a_nested_namespace_cannot_mount_a_fresh_procfs") else {
        return;
    };
    let out = py(
        &f.spec,
        r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000 | 0x00020000 | 0x20000000) != 0:
    print("unshare refused", ctypes.get_errno())
else:
    pid = os.fork()
    if pid == 0:
        os.makedirs("/tmp/fresh-proc", exist_ok=True)
        if libc.mount(b"proc", b"/tmp/fresh-proc", b"proc", 0, None) != 0:
            print("mount refused", ctypes.get_errno(), flush=True)
        else:
            print("MOUNTED", flush=True)
            try:
                path = "/tmp/fresh-proc/sys/kernel/hostname"
                value = open(path).read()
                open(path, "w").write(value)
                print("WROTE", flush=True)
            except OSError as e:
                print("write refused", e.errno, flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
"#,
    );
    let said = ok(&out);
    assert!(
        !said.contains("MOUNTED"),
        "a nested namespace mounted procfs:\n{said}"
    );
    assert!(said.contains("refused"), "{said}");
}

#[test]
fn the_argument_list() {
    let Some(f) = fixture("the_argument_list") else {
        return;
    };
    let args = f
        .spec
        .bwrap_args(7, Some(9), &[OsString::from("true")])
        .expect("args");
    let shown: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    eprintln!("bwrap {}", shown.join(" "));
    let p = f.project.to_string_lossy().into_owned();
    let joined = shown.join(" ");
    assert!(joined.starts_with("--unshare-user --unshare-pid --unshare-ipc --unshare-net --unshare-uts --new-session --die-with-parent --cap-drop ALL --ro-bind / / --dev /dev --proc /proc --ro-bind /proc/sys /proc/sys --ro-bind-try /proc/sysrq-trigger /proc/sysrq-trigger --bind "));
    assert!(joined.contains(&format!("--bind {p} {p}")));
    assert!(joined.contains(&format!("--tmpfs {}", f.home.join(".ssh").display())));
    assert!(joined.contains(&format!(
        "--ro-bind /dev/null {}",
        f.home.join(".netrc").display()
    )));
    let tmp = f.spec.private_tmp.display();
    assert!(joined.contains(&format!("--bind {tmp} /tmp --bind {p} {p}")));
    // bwrap runs the entry point (fd 9), which confines writes to the box's writable
    // folders, then execs the command.
    assert!(joined.ends_with(&format!(
        "--seccomp 7 --chdir {p} -- /proc/self/fd/9 {} /tmp {p} -- true",
        sandbox::BOX_ENTRY_ARG
    )));
    // Without an entry point the command comes right after bwrap's arguments.
    let args = f
        .spec
        .bwrap_args(7, None, &[OsString::from("true")])
        .expect("args");
    let last: Vec<String> = args[args.len() - 6..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        last,
        ["--seccomp", "7", "--chdir", p.as_str(), "--", "true"]
    );
}

/// The pitfall the module documents: `--die-with-parent` follows the *thread* that
/// spawned bwrap. A box spawned from a thread that then ends is killed with it; callers
/// spawn from one long-lived thread.
#[test]
fn a_box_dies_with_the_thread_that_spawned_it() {
    let Some(f) = fixture("a_box_dies_with_the_thread_that_spawned_it") else {
        return;
    };
    let spec = f.spec.clone();
    let mut child = std::thread::spawn(move || {
        let argv: Vec<OsString> = ["sleep", "30"].iter().map(OsString::from).collect();
        let child = spec
            .command(&argv, &env())
            .expect("command")
            .stdin(Stdio::null())
            .spawn()
            .expect("spawn");
        // Let bwrap arm PR_SET_PDEATHSIG first (it does so after exec; a thread that ends
        // sooner escapes the signal: the race of bubblewrap PR #730).
        std::thread::sleep(Duration::from_secs(1));
        child
    })
    .join()
    .expect("spawner thread");
    let started = Instant::now();
    let status = child.wait().expect("wait");
    assert!(!status.success(), "{status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the box outlived its spawner thread"
    );
}

/// The credential stores of the agents hookhost serves, and of gh, npm, pip and git,
/// are hidden by default (docs/threats.md#f8).
#[test]
fn the_agents_credential_stores_are_hidden_by_default() {
    let Some(mut f) = fixture("the_agents_credential_stores_are_hidden_by_default") else {
        return;
    };
    // The agents' stores are the front end's to name: the command line passes them.
    f.spec.hide =
        sandbox::default_hidden_with(&f.home, &hookhost::bridge::credentials::hidden_paths());
    let stores = [
        ".claude/.credentials.json",
        ".codex/auth.json",
        ".gemini/oauth_creds.json",
        ".config/gh/hosts.yml",
        ".config/anthropic/api_key",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
    ];
    let mut script = String::new();
    for store in stores {
        let path = f.home.join(store);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, format!("SECRET {store}\n")).expect("write");
        script.push_str(&format!("cat '{}' 2>/dev/null; ", path.display()));
    }
    script.push_str("echo end");
    let out = ok(&sh(&f.spec, &script));
    assert_eq!(out, "end\n", "a credential store was readable in the box");
}

/// Security review N12: through the real binary (`hookhost box`, whose front end passes
/// every agent's credential stores), each path of the bridge's list is unreadable under
/// `$HOME` (a file reads empty, a folder is empty), while the files people keep beside
/// them (hooks, agents, settings hookhost's install edits) stay readable.
#[test]
fn hookhost_box_hides_every_agents_credential_stores() {
    let test = "hookhost_box_hides_every_agents_credential_stores";
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = support::Scene::new();
    scene.write_config("");
    let home = scene.root.path().join("home");
    let stores = hookhost::bridge::credentials::hidden_paths();
    let mut script = String::new();
    for store in &stores {
        let path = home.join(store);
        // A file has an extension (`oauth_creds.json`, `config.json.bak`) or is `.env`;
        // the others are folders, with a token file inside.
        let is_file = path.extension().is_some() || store.as_os_str() == ".env";
        let secret = if is_file {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            path.clone()
        } else {
            std::fs::create_dir_all(&path).unwrap();
            path.join("token.json")
        };
        std::fs::write(&secret, format!("SECRET {}\n", store.display())).unwrap();
        script.push_str(&format!("cat '{}' 2>/dev/null; ", secret.display()));
    }
    let kept = [
        ".qwen/hooks/check.sh",
        ".cursor/hooks.json",
        ".cursor/hooks/audit.sh",
        ".copilot/hooks/hookhost.json",
        ".kiro/agents/hookhost.json",
        ".kimi-code/hooks/check.sh",
        ".kimi/logs/kimi.log",
    ];
    for k in kept {
        let path = home.join(k);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("KEPT {k}\n")).unwrap();
        script.push_str(&format!("cat '{}'; ", path.display()));
    }
    script.push_str("echo end");
    let out = scene
        .hookhost()
        .env("HOME", &home)
        .args(["box", "--", "sh", "-c", &script])
        .output()
        .unwrap();
    let stdout = lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", lossy(&out.stderr));
    let expected: String = kept.iter().map(|k| format!("KEPT {k}\n")).collect();
    assert_eq!(
        stdout,
        format!("{expected}end\n"),
        "an agent's credential store was readable in the box, or a hook file was hidden"
    );
    // On the host every one of them reads (the test wrote what it meant to).
    let host = support::run(Command::new("sh").args(["-c", &script])).1;
    assert_eq!(host.matches("SECRET ").count(), stores.len(), "{host}");
}
