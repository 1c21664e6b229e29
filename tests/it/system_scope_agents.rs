//! Real agents with a system-scope hook, run as an ordinary user (`nobody`), inside a
//! private mount namespace whose `/etc` is a copy: the machine's `/etc` is never touched
//! (docs/system-scope.md). Driven offline by the scripted model, as `real_agents.rs` does.
//!
//! Claude Code: a managed `PreToolUse` hook blocks a shell call, and `disableAllHooks:
//! true` in the user's and the project's settings does not stop it (the agent's own rule,
//! on which the system scope rests). The hook here is a plain script, not the bridge: the
//! bridge's `--system` mode is another branch's. Without root, or without Claude Code
//! under `target/agents/`, the test is SKIPPED (a failure under CI's switches).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{ModelServer, Prerequisite, root_or_skip, skip_or_fail};

/// Claude Code's binary, as `scripts/agents.sh` installs it.
const CLAUDE: &str = "node_modules/@anthropic-ai/claude-code-linux-x64/claude";

/// The managed hook: refuses every tool call, naming itself.
const BLOCK_SH: &str =
    "#!/bin/sh\ncat > /dev/null\necho 'blocked by the managed hook' >&2\nexit 2\n";

fn claude_or_skip(test: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/agents")
        .join(CLAUDE);
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "Claude Code is not installed at {} (run scripts/agents.sh)",
        path.display()
    );
    skip_or_fail(test, Prerequisite::Agents, &why);
    None
}

/// A machine for one run: `/etc`'s copy, a home and a project for `nobody`.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        let copy = Command::new("cp")
            .args(["-a", "/etc"])
            .arg(root.join("etc"))
            .status();
        assert!(
            root.join("etc/passwd").exists(),
            "the copy of /etc failed: {copy:?}"
        );
        for folder in ["home/.claude", "project/.claude"] {
            std::fs::create_dir_all(root.join(folder)).unwrap_or_else(|e| panic!("{e}"));
        }
        let hook = root.join("block.sh");
        std::fs::write(&hook, BLOCK_SH).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        World { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes the managed settings (in `/etc`'s copy, root-owned 0644) and the user's and
    /// the project's, which belong to `nobody`.
    fn settings(&self, managed: &str, user: &str, project: &str) {
        let folder = self.path("etc/claude-code");
        std::fs::create_dir_all(&folder).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(folder.join("managed-settings.json"), managed)
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(self.path("home/.claude/settings.json"), user)
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(self.path("project/.claude/settings.json"), project)
            .unwrap_or_else(|e| panic!("{e}"));
        let status = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(self.path("home"))
            .arg(self.path("project"))
            .status();
        assert!(
            status.as_ref().is_ok_and(|s| s.success()),
            "chown: {status:?}"
        );
    }

    /// Runs Claude Code as `nobody` on a prompt asking for `touch marker` in the project;
    /// returns whether the marker was made.
    fn run_touch(&self, claude: &Path, model: &ModelServer) -> bool {
        let marker = self.path("project/marker");
        let _ = std::fs::remove_file(&marker);
        let script = "mount --bind \"$ROOT/etc\" /etc || exit 99\n\
            cd \"$ROOT/project\" && exec setpriv --reuid=65534 --regid=65534 --clear-groups \
            env -i PATH=/usr/bin:/bin HOME=\"$ROOT/home\" LANG=C.UTF-8 TERM=dumb \
            ANTHROPIC_BASE_URL=\"$MODEL\" ANTHROPIC_API_KEY=scripted \
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
            DISABLE_AUTOUPDATER=1 DISABLE_UPDATES=1 DISABLE_ERROR_REPORTING=1 \
            CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1 \
            timeout 120 \"$CLAUDE\" -p \"$PROMPT\" --output-format json --allowedTools Bash,Write";
        let output = Command::new("unshare")
            .args(["--mount", "--propagation", "private", "sh", "-c", script])
            .env("ROOT", self.dir.path())
            .env("CLAUDE", claude)
            .env("MODEL", model.url())
            .env("PROMPT", format!("RUN: touch {}", marker.display()))
            .output()
            .unwrap_or_else(|e| panic!("unshare: {e}"));
        assert_ne!(
            output.status.code(),
            Some(99),
            "the bind mount failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        marker.exists()
    }
}

#[test]
fn claude_code_a_managed_hook_blocks_a_call_under_a_users_and_a_projects_disable_all_hooks() {
    let test = "claude_code_a_managed_hook_blocks_a_call_under_disable_all_hooks";
    if !root_or_skip(
        test,
        "the managed settings are written as root, in a mount namespace",
    ) {
        return;
    }
    let Some(claude) = claude_or_skip(test) else {
        return;
    };
    let world = World::new();
    let hook = world.path("block.sh");
    let managed = format!(
        r#"{{"hooks":{{"PreToolUse":[{{"matcher":"*","hooks":[{{"type":"command","command":"{}","timeout":30}}]}}]}}}}"#,
        hook.display()
    );
    let off = r#"{"disableAllHooks": true}"#;

    // The control: with no managed hook, the call runs.
    let model = ModelServer::start();
    world.settings("{}", "{}", "{}");
    assert!(
        world.run_touch(&claude, &model),
        "the unguarded call did not run: {:?}",
        model.requests().len()
    );

    // The managed hook blocks it, with the user's and the project's switch-off in place.
    let model = ModelServer::start();
    world.settings(&managed, off, off);
    assert!(
        !world.run_touch(&claude, &model),
        "the call ran under the managed hook"
    );
    let results = model.tool_results().join("\n");
    assert!(
        results.contains("blocked by the managed hook"),
        "the model read: {results}"
    );
}
