//! A machine of the test's own for the system scope (docs/contract.md#system-mode): a
//! copy of `/etc` and an empty `/var/cache`, bind-mounted over the real ones in a private
//! mount namespace for one command, so that the machine's `/etc` and `/var/cache` are
//! never touched. Needs root ([`Prerequisite::Root`]: skipped without it, a failure
//! under `HOOKHOST_REQUIRE_ROOT`).
//!
//! Any program runs inside ([`SystemRoot::command`]), as root or as the unprivileged
//! `nobody` ([`SystemRoot::as_nobody`]) with a HOME of its own: the copy's password
//! database gives `nobody` that home, so what hookhost reads from the password database
//! and what the environment says agree. A real agent started this way sees the test's
//! `/etc` (its managed settings included) and runs as an ordinary user.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

use super::prerequisite::{Prerequisite, root_or_skip, skip_or_fail};

/// The unprivileged user's uid and gid.
pub const NOBODY: u32 = 65534;

/// The shell line that mounts the copies and runs the rest of its arguments: `/etc` and
/// `/var/cache` (`$1`, `$2`), the binary under test on `$4` (from `$3`), and the real
/// agents' folder on `$6` (from `$5`, when there is one).
const MOUNT_AND_RUN: &str = r#"mount --bind "$1" /etc && mount --bind "$2" /var/cache && mount --bind "$3" "$4" && { [ ! -d "$5" ] || mount --bind "$5" "$6"; } && shift 6 && exec "$@""#;

/// The real agents' folder (`scripts/agents.sh`).
fn agents_outside() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/agents")
}

/// The test's `/etc` and `/var/cache`, and a home for `nobody`.
pub struct SystemRoot {
    /// Holds everything; removed on drop.
    pub dir: TempDir,
    /// The copy mounted on `/etc`.
    pub etc: PathBuf,
    /// The folder mounted on `/var/cache` (root's, 0755, empty at first).
    pub cache: PathBuf,
    /// `nobody`'s home (its own, 0755), in the copy's password database.
    pub home: PathBuf,
}

impl SystemRoot {
    /// A fresh system root, or `None` (a `SKIPPED` line, or a failure with
    /// `HOOKHOST_REQUIRE_ROOT` set) when this process is not root or cannot make a mount
    /// namespace.
    #[track_caller]
    pub fn new(test: &str) -> Option<SystemRoot> {
        if !root_or_skip(test, "the system scope's files must be root's") {
            return None;
        }
        // Under /var/tmp, not the checkout: `nobody` must reach it, and a checkout may lie
        // in a folder only root can enter (CI's clone does). The binary under test and the
        // agents are bind-mounted into it inside the namespace, not copied (the debug
        // binary is hundreds of MB).
        let dir = tempfile::Builder::new()
            .prefix("hookhost-system-root-")
            .tempdir_in("/var/tmp")
            .expect("temp dir under /var/tmp");
        chmod(dir.path(), 0o755);
        for folder in ["bin", "agents"] {
            fs::create_dir(dir.path().join(folder)).expect("a mount point");
            chmod(&dir.path().join(folder), 0o755);
        }
        fs::write(dir.path().join("bin/hookhost"), "").expect("the binary's mount point");
        chmod(&dir.path().join("bin/hookhost"), 0o755);
        let (etc, cache, home) = (
            dir.path().join("etc"),
            dir.path().join("cache"),
            dir.path().join("home"),
        );
        let copied = Command::new("cp")
            .args([OsStr::new("-a"), OsStr::new("/etc"), etc.as_os_str()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(copied, "cp -a /etc {}", etc.display());
        fs::create_dir(&cache).expect("cache");
        chmod(&cache, 0o755);
        fs::create_dir(&home).expect("home");
        chown(&home, NOBODY);
        chmod(&home, 0o755);
        let root = SystemRoot {
            dir,
            etc,
            cache,
            home,
        };
        root.give_nobody_the_home();
        let works = root.command("true").status().is_ok_and(|s| s.success());
        if !works {
            skip_or_fail(
                test,
                Prerequisite::Root,
                "cannot bind-mount over /etc in a private mount namespace (unshare --mount)",
            );
            return None;
        }
        Some(root)
    }

    /// `nobody`'s entry in the copy's `/etc/passwd`, with [`SystemRoot::home`].
    fn give_nobody_the_home(&self) {
        let path = self.etc.join("passwd");
        let text = fs::read_to_string(&path).unwrap_or_default();
        let home = self.home.display();
        let line = format!("nobody:x:{NOBODY}:{NOBODY}:nobody:{home}:/usr/sbin/nologin");
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with("nobody:"))
            .map(str::to_owned)
            .collect();
        lines.push(line);
        fs::write(&path, lines.join("\n") + "\n").expect("write the copy's passwd");
    }

    /// `program` run inside the namespace, as root, with the test's `/etc` and
    /// `/var/cache` mounted (its environment is the caller's to set).
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new("unshare");
        cmd.args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            MOUNT_AND_RUN,
            "sh",
        ])
        .arg(&self.etc)
        .arg(&self.cache)
        .arg(env!("CARGO_BIN_EXE_hookhost"))
        .arg(self.hookhost())
        .arg(agents_outside())
        .arg(self.agents())
        .arg(program);
        cmd
    }

    /// Where the binary under test is, inside the namespace: a folder of root's alone
    /// that `nobody` can reach.
    pub fn hookhost(&self) -> PathBuf {
        self.dir.path().join("bin/hookhost")
    }

    /// Where the real agents' folder (`target/agents/`) is, inside the namespace.
    pub fn agents(&self) -> PathBuf {
        self.dir.path().join("agents")
    }

    /// `program` run inside the namespace as `nobody` (no groups), with only HOME (its
    /// own), PATH and LANG set.
    pub fn as_nobody(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = self.command("setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(program)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LANG", "C.UTF-8");
        cmd
    }

    /// The `hookhost` binary under test, run inside as `nobody`.
    pub fn hookhost_as_nobody(&self) -> Command {
        self.as_nobody(self.hookhost())
    }

    /// The `hookhost` binary under test, run inside as root (`check --system`).
    pub fn hookhost_as_root(&self) -> Command {
        let mut cmd = self.command(self.hookhost());
        cmd.env_remove("XDG_CACHE_HOME").env_remove("HARNESS_HOME");
        cmd
    }

    /// A file in the copy of `/etc` (`rel` below it), root's, with `mode`; its folders
    /// made root's and 0755. Returns the path it has inside (`/etc/rel`).
    pub fn etc_file(&self, rel: &str, text: &str, mode: u32) -> PathBuf {
        let path = self.etc.join(rel);
        let parent = path.parent().expect("a folder");
        fs::create_dir_all(parent).expect("create the folder");
        chmod(parent, 0o755);
        fs::write(&path, text).expect("write");
        chmod(&path, mode);
        Path::new("/etc").join(rel)
    }

    /// The system config, `/etc/hookhost/config.toml`, root's, 0644.
    pub fn write_config(&self, text: &str) -> PathBuf {
        self.etc_file("hookhost/config.toml", text, 0o644)
    }

    /// The path inside of `inside` (`/etc/…`) in the copy, for changing it from outside.
    pub fn outside(&self, inside: &Path) -> PathBuf {
        let rel = inside.strip_prefix("/etc").expect("a path under /etc");
        self.etc.join(rel)
    }

    /// A file in `nobody`'s home (`rel` below it), `nobody`'s, 0644 (scripts 0755).
    pub fn home_file(&self, rel: &str, text: &str, mode: u32) -> PathBuf {
        let path = self.home.join(rel);
        let mut dir = path.parent().expect("a folder").to_path_buf();
        fs::create_dir_all(&dir).expect("create the folder");
        while dir.starts_with(&self.home) {
            chown(&dir, NOBODY);
            if !dir.pop() {
                break;
            }
        }
        fs::write(&path, text).expect("write");
        chmod(&path, mode);
        chown(&path, NOBODY);
        path
    }
}

/// Sets `path`'s mode.
pub fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Gives `path` (not following a link) to `uid`, group the same number.
pub fn chown(path: &Path, uid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid)).expect("chown");
}
