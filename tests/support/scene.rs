//! The scene every test and bench runs in: a project, a hooks folder outside it and a
//! config, under [`test_root`], and the real `hookhost` binary run against them; with
//! the config tables and verdicts the tests write and read.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
        self.executable(name, &format!("#!/bin/sh\n{body}\n"))
    }

    /// Writes an executable file (0755) with exactly `text` into the hooks folder.
    pub fn executable(&self, name: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.hooks.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// Two programs no spawn can start, in this scene, each with the end of the message a
    /// run that tries one fails with (`"{program} {why}"`): a plain file that is not
    /// executable, and a path where there is nothing.
    pub fn programs_that_cannot_start(&self) -> [(PathBuf, &'static str); 2] {
        use std::os::unix::fs::PermissionsExt;
        let not_executable = self.root.path().join("plain.txt");
        std::fs::write(&not_executable, "echo hi\n").unwrap();
        std::fs::set_permissions(&not_executable, std::fs::Permissions::from_mode(0o644)).unwrap();
        [
            (not_executable, "is not executable (permission denied)"),
            (self.root.path().join("missing"), "was not found"),
        ]
    }

    /// Writes the config file.
    pub fn write_config(&self, text: &str) {
        std::fs::write(&self.config, text).unwrap();
    }

    /// Writes a further config file `name` beside the scene's own and returns its path.
    pub fn config_file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.root.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Where [`Scene::hookhost`] keeps records (`XDG_STATE_HOME`).
    pub fn state(&self) -> PathBuf {
        self.root.path().join("state")
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
            .env("XDG_STATE_HOME", self.state())
            .env("XDG_CACHE_HOME", test_root().join("cache"));
        cmd
    }

    /// [`Scene::hookhost`] through `hookhost-client`, the program `install --warm`
    /// registers (it hands a bridged call to the warm server, else runs hookhost).
    pub fn client(&self) -> Command {
        let hookhost = self.hookhost();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hookhost-client"));
        cmd.args(hookhost.get_args());
        for (name, value) in hookhost.get_envs() {
            match value {
                Some(value) => cmd.env(name, value),
                None => cmd.env_remove(name),
            };
        }
        cmd
    }

    /// `hookhost ARGS` in this scene: (exit code, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        super::run(self.hookhost().args(args))
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

/// A verdict's `message`, or "" when it has none.
pub fn message(v: &serde_json::Value) -> &str {
    v["message"].as_str().unwrap_or_default()
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
