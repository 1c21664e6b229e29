//! Running processes and looking at them: the one `(code, stdout, stderr)` runner,
//! whether a process is alive, whether bubblewrap runs here, and a world another
//! (unprivileged) user can reach.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

use super::Scene;
use super::prerequisite::{Prerequisite, skip_or_fail};

/// Copies the program at `from` to `to`, to be run there. Copied by `cp`, not by this
/// process: a file this process had open for writing would be inherited by any child
/// another test thread forks meanwhile, and executing it then fails with "Text file
/// busy" (ETXTBSY) until that child execs.
/// (Windows has no fork: there `std::fs::copy` is as good.)
pub fn copy_program(from: impl AsRef<Path>, to: impl AsRef<Path>) {
    let (from, to) = (from.as_ref(), to.as_ref());
    if cfg!(windows) {
        std::fs::copy(from, to).expect("copy the program");
        return;
    }
    let copied = Command::new("cp")
        .arg(from)
        .arg(to)
        .status()
        .expect("run cp");
    assert!(
        copied.success(),
        "cp {} {}: {copied}",
        from.display(),
        to.display()
    );
}

/// Runs `cmd` to its end and returns (exit code, stdout, stderr); -1 for a signal.
pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run the command");
    let (stdout, stderr) = text(&out);
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// Runs `cmd` with `input` as its whole stdin, to its end: (exit code, stdout, stderr).
pub fn run_with_stdin(cmd: &mut Command, input: &[u8]) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the command");
    // A command may exit without reading its input: a broken pipe is not the test's.
    let _ = child.stdin.take().expect("stdin piped").write_all(input);
    let out = child.wait_with_output().expect("wait for the command");
    let (stdout, stderr) = text(&out);
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// A finished process's (stdout, stderr), decoded lossily.
pub fn text(out: &Output) -> (String, String) {
    (lossy(&out.stdout), lossy(&out.stderr))
}

/// Bytes as text, invalid UTF-8 replaced.
pub fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Whether any process's command line contains `marker`.
pub fn process_alive(marker: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .map(|c| {
                let line = String::from_utf8_lossy(&c).replace('\0', " ");
                line.contains(marker)
            })
            .unwrap_or(false)
    })
}

/// Whether bubblewrap can run here (the host's own probe), or why not.
pub fn bwrap_available() -> Result<(), String> {
    hookhost::sandbox::probe(
        None,
        std::env::var_os("PATH").as_deref(),
        Path::new("/nonexistent-project"),
    )
    .map(|_| ())
    .map_err(|why| why.to_string())
}

/// Whether bubblewrap can run here; where it cannot, [`skip_or_fail`]s
/// ([`Prerequisite::Bubblewrap`]: a loud SKIPPED line, or a failure under
/// `HOOKHOST_REQUIRE_BOX`).
#[track_caller]
pub fn bwrap_or_skip(test: &str) -> bool {
    match bwrap_available() {
        Ok(()) => true,
        Err(why) => {
            skip_or_fail(test, Prerequisite::Bubblewrap, &why);
            false
        }
    }
}

/// A world an unprivileged user can reach, outside the checkout: a checkout in a 0700
/// home (root's, say) cannot be entered by anyone else, so a test that runs hookhost as
/// another user copies what it needs here. Under `/var/tmp` (world-writable and sticky
/// on every Linux system, and not a folder the path guard counts as agent-writable),
/// 0755 all the way down; removed on drop.
pub struct OtherUserWorld {
    pub root: TempDir,
}

impl OtherUserWorld {
    /// A fresh world, or `None` when `/var/tmp` cannot hold one (a `SKIPPED {test}: …`
    /// line, or a failure under `HOOKHOST_REQUIRE_OTHER_USER`: [`skip_or_fail`]).
    #[track_caller]
    pub fn new(test: &str) -> Option<OtherUserWorld> {
        use std::os::unix::fs::PermissionsExt;
        let root = match tempfile::Builder::new()
            .prefix("hookhost-other-user-")
            .tempdir_in("/var/tmp")
        {
            Ok(root) => root,
            Err(e) => {
                skip_or_fail(
                    test,
                    Prerequisite::OtherUser,
                    &format!("cannot make a folder another user can reach under /var/tmp: {e}"),
                );
                return None;
            }
        };
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod the other user's world");
        Some(OtherUserWorld { root })
    }

    /// Copies the executable at `from` into the world (0755) and returns its new path.
    pub fn copy_executable(&self, from: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let to = self
            .root
            .path()
            .join(from.file_name().expect("a file name"));
        copy_program(from, &to);
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        to
    }

    /// A [`Scene`] inside the world, every folder 0755 so the other user can enter it.
    pub fn scene(&self) -> Scene {
        use std::os::unix::fs::PermissionsExt;
        let scene = Scene::new_in(self.root.path());
        std::fs::set_permissions(scene.root.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        scene
    }
}

/// `setpriv` running what follows as the unprivileged user 65534, no groups.
pub fn as_nobody() -> Command {
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
    cmd
}

/// Whether this process can run commands as the unprivileged user (root with setpriv);
/// where it cannot, [`skip_or_fail`]s ([`Prerequisite::OtherUser`]: a `SKIPPED {test}: …`
/// line, or a failure under `HOOKHOST_REQUIRE_OTHER_USER`).
#[track_caller]
pub fn nobody_or_skip(test: &str) -> bool {
    let ok = as_nobody().arg("true").status().is_ok_and(|s| s.success());
    if !ok {
        skip_or_fail(
            test,
            Prerequisite::OtherUser,
            "cannot switch to an unprivileged user with setpriv (not root?)",
        );
    }
    ok
}
