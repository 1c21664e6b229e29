//! Shared test scaffolding: a scene with a project, a hooks folder outside it and a
//! config, and a way to run the real `hookhost` binary against it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use tempfile::TempDir;

/// Where tests keep their files: cargo's target temp folder, unless the checkout itself
/// lies under a system temp folder (a CI clone in /tmp), which the path guard rightly
/// counts as agent-writable and the box covers with its private /tmp; then a folder
/// under `/var/tmp`, which neither counts (and which an unprivileged user can reach, as
/// one test needs).
pub fn test_root() -> PathBuf {
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let canonical = std::fs::canonicalize(&target).unwrap_or_else(|_| target.clone());
    let temp_folders = [PathBuf::from("/tmp"), std::env::temp_dir()];
    let in_temp = temp_folders.iter().any(|t| {
        let t = std::fs::canonicalize(t).unwrap_or_else(|_| t.clone());
        canonical.starts_with(&t)
    });
    if !in_temp {
        return target;
    }
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    let root = PathBuf::from(format!("/var/tmp/hookhost-tests-{uid}"));
    std::fs::create_dir_all(&root).expect("create the test folder under /var/tmp");
    root
}

/// A project, a hooks folder outside it and a config file, all under [`test_root`]
/// (not /tmp, which a session without a sandbox counts as agent-writable).
pub struct Scene {
    pub root: TempDir,
    pub project: PathBuf,
    pub hooks: PathBuf,
    pub config: PathBuf,
}

impl Scene {
    pub fn new() -> Scene {
        Scene::new_in(&test_root())
    }

    /// A scene in a fresh folder under `parent`.
    pub fn new_in(parent: &Path) -> Scene {
        let root = tempfile::Builder::new()
            .prefix("scene-")
            .tempdir_in(parent)
            .expect("temp dir");
        let project = root.path().join("project");
        let hooks = root.path().join("hooks");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&hooks).unwrap();
        let config = root.path().join("config.toml");
        Scene {
            root,
            project,
            hooks,
            config,
        }
    }

    /// Writes an executable `/bin/sh` script into the hooks folder.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.hooks.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// Writes the config file.
    pub fn write_config(&self, text: &str) {
        std::fs::write(&self.config, text).unwrap();
    }

    /// `hookhost --config CONFIG --project PROJECT`, with a clean environment.
    pub fn hookhost(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        cmd.arg("--config")
            .arg(&self.config)
            .arg("--project")
            .arg(&self.project)
            .env_remove("HARNESS_HOME")
            .env_remove("XDG_CONFIG_HOME")
            // Records and the WASM compile cache stay inside the test folders.
            .env("XDG_STATE_HOME", self.root.path().join("state"))
            .env("XDG_CACHE_HOME", test_root().join("cache"));
        cmd
    }

    /// Runs a PreToolUse gate with `--json` and returns (exit code, verdict).
    pub fn gate(&self, extra: &[&str], tool: &str, input: &str) -> (i32, serde_json::Value) {
        let out = self
            .hookhost()
            .args(extra)
            .args(["pre-tool-use", "--json", "--tool", tool, "--input", input])
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), verdict(&out))
    }

    /// Runs a prompt gate with `--json` and returns (exit code, verdict).
    pub fn prompt(&self, extra: &[&str], text: &str) -> (i32, serde_json::Value) {
        let out = self
            .hookhost()
            .args(extra)
            .args(["prompt", "--json", text])
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), verdict(&out))
    }
}

/// The JSON verdict on stdout; panics with stderr when there is none.
pub fn verdict(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON verdict ({e}); status {:?}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A `[[hooks]]` table.
pub fn hook(name: &str, event: &str, command: &[&str], extra: &str) -> String {
    let argv: Vec<String> = command.iter().map(|c| format!("{c:?}")).collect();
    format!(
        "[[hooks]]\nname = \"{name}\"\nevent = \"{event}\"\ncommand = [{}]\n{extra}\n",
        argv.join(", ")
    )
}

/// `[[hooks]]` for a PreToolUse hook running `/bin/sh SCRIPT`.
pub fn sh_hook(name: &str, script: &Path, extra: &str) -> String {
    hook(
        name,
        "PreToolUse",
        &["/bin/sh", script.to_str().unwrap()],
        extra,
    )
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

/// Builds the WASM plugins once per test binary and returns `target/wasm`.
pub fn wasm_dir() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let status = Command::new("bash")
            .arg(repo.join("plugins/build.sh"))
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run plugins/build.sh");
        assert!(status.success(), "plugins/build.sh failed");
        repo.join("target/wasm")
    })
}

/// Whether bubblewrap can run here; prints a loud SKIPPED line when it cannot.
pub fn bwrap_or_skip(test: &str) -> bool {
    let probe = hookhost::sandbox::probe(
        None,
        std::env::var_os("PATH").as_deref(),
        Path::new("/nonexistent-project"),
    );
    match probe {
        Ok(_) => true,
        Err(why) => {
            eprintln!("SKIPPED {test}: bubblewrap cannot run here: {why}");
            false
        }
    }
}

/// Polls `condition` every 25 ms for up to 10 s; true as soon as it holds.
pub fn wait_until(mut condition: impl FnMut() -> bool) -> bool {
    for _ in 0..400 {
        if condition() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    condition()
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
    /// A fresh world, or `None` (with a `SKIPPED {test}: …` line) when `/var/tmp`
    /// cannot hold one.
    pub fn new(test: &str) -> Option<OtherUserWorld> {
        use std::os::unix::fs::PermissionsExt;
        let root = match tempfile::Builder::new()
            .prefix("hookhost-other-user-")
            .tempdir_in("/var/tmp")
        {
            Ok(root) => root,
            Err(e) => {
                eprintln!(
                    "SKIPPED {test}: cannot make a folder another user can reach under /var/tmp: {e}"
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
        std::fs::copy(from, &to).expect("copy the executable into the other user's world");
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
/// prints a `SKIPPED {test}: …` line when it cannot.
pub fn nobody_or_skip(test: &str) -> bool {
    let ok = as_nobody().arg("true").status().is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED {test}: cannot switch to an unprivileged user with setpriv (not root?)");
    }
    ok
}
