//! Variables that reach the shell an agent starts its hooks with before hookhost's code runs
//! ([`HookEnvironment`], docs/threats.md#n11): from the settings' `env` object (read with
//! the other switch-offs, `switch_offs`) and from the `.env` files the agent loads.
//!
//! The loader, the C library and the hook's shell read them before the hook's command
//! does: `LD_PRELOAD` runs a library of the agent's in the shell, `GLIBC_TUNABLES` or
//! `MALLOC_TOP_PAD_` can stop hookhost at its first allocation (which the agents read as
//! "go ahead"), bash sources `BASH_ENV` first (one with `exit 0` answers for hookhost),
//! and Claude Code runs every hook command through `CLAUDE_CODE_SHELL_PREFIX` (seen: no
//! hook ran). Set from a file the agent can write, each switches hookhost off; so each
//! refuses the calls while it is set there, and `doctor` names it.

use std::path::Path;

use super::dotenv::{env_assignments, read_env_files};
use super::switch_offs::ProjectFile;
use crate::bridge::{AgentKind, HookEnvironment};
use crate::env::Environment;

/// A variable read before the hook's command, with what it does there.
struct Before {
    name: &'static str,
    /// As a settings file's `env` spells it, for the switch-off's message.
    in_settings: &'static str,
    /// What it does, in words that follow the variable's name.
    does: &'static str,
    /// Read by bash alone.
    bash_only: bool,
}

const RUNS_A_LIBRARY: &str = "loads a library into the hook's shell before hookhost's code runs";
const CHOOSES_LIBRARIES: &str = "chooses the libraries the hook's shell loads";
const ALLOCATES: &str =
    "changes how the C library allocates memory, which can stop hookhost before it answers";

/// The variables the loader, the C library and the shell read first (Linux's and macOS's).
const BEFORE: &[Before] = &[
    Before {
        name: "LD_PRELOAD",
        in_settings: "\"env\": {\"LD_PRELOAD\": …}",
        does: RUNS_A_LIBRARY,
        bash_only: false,
    },
    Before {
        name: "LD_AUDIT",
        in_settings: "\"env\": {\"LD_AUDIT\": …}",
        does: RUNS_A_LIBRARY,
        bash_only: false,
    },
    Before {
        name: "LD_LIBRARY_PATH",
        in_settings: "\"env\": {\"LD_LIBRARY_PATH\": …}",
        does: CHOOSES_LIBRARIES,
        bash_only: false,
    },
    Before {
        name: "GLIBC_TUNABLES",
        in_settings: "\"env\": {\"GLIBC_TUNABLES\": …}",
        does: ALLOCATES,
        bash_only: false,
    },
    Before {
        name: "MALLOC_TOP_PAD_",
        in_settings: "\"env\": {\"MALLOC_TOP_PAD_\": …}",
        does: ALLOCATES,
        bash_only: false,
    },
    Before {
        name: "DYLD_INSERT_LIBRARIES",
        in_settings: "\"env\": {\"DYLD_INSERT_LIBRARIES\": …}",
        does: RUNS_A_LIBRARY,
        bash_only: false,
    },
    Before {
        name: "DYLD_LIBRARY_PATH",
        in_settings: "\"env\": {\"DYLD_LIBRARY_PATH\": …}",
        does: CHOOSES_LIBRARIES,
        bash_only: false,
    },
    Before {
        name: "DYLD_FRAMEWORK_PATH",
        in_settings: "\"env\": {\"DYLD_FRAMEWORK_PATH\": …}",
        does: CHOOSES_LIBRARIES,
        bash_only: false,
    },
    Before {
        name: "BASH_ENV",
        in_settings: "\"env\": {\"BASH_ENV\": …}",
        does: "names a script the hook's bash runs before the hook's command",
        bash_only: true,
    },
    Before {
        name: "CLAUDE_CODE_SHELL_PREFIX",
        in_settings: "\"env\": {\"CLAUDE_CODE_SHELL_PREFIX\": …}",
        does: "runs every hook command through the program it names, which decides whether hookhost runs",
        bash_only: false,
    },
];

/// What `name` does before the hooks of an agent whose hooks start as `hooks` say; `None`:
/// nothing hookhost knows of.
fn before(hooks: &HookEnvironment, name: &str) -> Option<&'static Before> {
    BEFORE.iter().find(|b| {
        b.name == name
            && (!b.bash_only || hooks.bash)
            && (!b.name.starts_with("CLAUDE_CODE_") || hooks.rerouting.contains(&b.name))
    })
}

/// The variable of `settings` (an agent's settings file, parsed) whose `env` object hands
/// the agent's hooks one read before their command, as the switch-off's key.
pub(super) fn in_settings(agent: AgentKind, settings: &serde_json::Value) -> Option<&'static str> {
    let hooks = agent.declaration().hook_environment?;
    let env = settings.get(hooks.settings_env?)?.as_object()?;
    env.iter()
        // The agents take string values into the environment; an empty one sets nothing
        // the loader or a shell acts on.
        .filter(|(_, value)| value.as_str().is_some_and(|v| !v.is_empty()))
        .find_map(|(name, _)| before(hooks, name))
        .map(|b| b.in_settings)
}

/// The variables read before `agent`'s hooks that a `.env` file it loads sets, one
/// message each: in `cwd`, a folder above it or the home folder, and in its own folder of
/// the home. Empty for an agent that loads none.
pub fn in_env_files(agent: AgentKind, env: &Environment, cwd: &Path) -> Vec<String> {
    let Some(hooks) = agent.declaration().hook_environment else {
        return Vec::new();
    };
    let name = agent.display_name();
    let home = env.home();
    // The agent's folder in the home, or where its variable moves it (`$QWEN_HOME`,
    // `$CODEX_HOME`): Qwen Code loads the `.env` there too, Codex its own `.env` from there.
    let moved = agent
        .declaration()
        .settings
        .home_variable
        .and_then(|variable| env.get(variable))
        .filter(|folder| !folder.is_empty())
        .map(std::path::PathBuf::from);
    let mut files = if hooks.env_files.is_empty() {
        Vec::new()
    } else {
        let also = moved.as_ref().map(|folder| folder.join(".env"));
        read_env_files(hooks.env_files, cwd, home.as_deref(), also)
    };
    let own = moved.or_else(|| {
        home.as_ref()
            .map(|home| home.join(agent.declaration().settings.home_folder))
    });
    if let Some(own) = own {
        files.extend(hooks.own_env_files.iter().filter_map(|file| {
            let file = own.join(file);
            let bytes = super::switch_offs::read_settings(&file, |_| true)?;
            Some(ProjectFile {
                file,
                bytes,
                merged: true,
                registration: false,
            })
        }));
    }
    let mut found = Vec::new();
    for ProjectFile { file, bytes, .. } in &files {
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(why) => {
                found.push(format!(
                    "hookhost cannot read {}, a .env file {name} loads into its hooks' environment: {why}; a variable there may run before hookhost's code, so hookhost blocks this agent's calls while it is there.",
                    file.display()
                ));
                continue;
            }
        };
        for (assigned, value) in env_assignments(&String::from_utf8_lossy(bytes)) {
            if value.is_empty() {
                continue;
            }
            if let Some(b) = before(hooks, &assigned) {
                found.push(format!(
                    "{} sets {assigned}, which {}: {name} loads that file into its hooks' environment, so hookhost blocks this agent's calls while it is there. Remove that line.",
                    file.display(),
                    b.does
                ));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude Code's settings `env`: each variable read before the hooks, its own prefix
    /// among them; bash's `BASH_ENV` only for an agent whose hooks' shell is bash; empty
    /// and non-string values, other variables and agents say nothing.
    #[test]
    fn a_settings_env_that_runs_before_the_hooks_is_a_switch_off() {
        let claude = |env: serde_json::Value| {
            in_settings(AgentKind::ClaudeCode, &serde_json::json!({ "env": env }))
        };
        assert_eq!(
            claude(serde_json::json!({"CLAUDE_CODE_SHELL_PREFIX": "/p/x.sh"})),
            Some("\"env\": {\"CLAUDE_CODE_SHELL_PREFIX\": …}")
        );
        assert_eq!(
            claude(serde_json::json!({"A": "1", "LD_PRELOAD": "/p/x.so"})),
            Some("\"env\": {\"LD_PRELOAD\": …}")
        );
        for quiet in [
            serde_json::json!({"LD_PRELOAD": ""}),
            serde_json::json!({"LD_PRELOAD": 1}),
            serde_json::json!({"BASH_ENV": "/p/x.sh"}),
            serde_json::json!({"PATH": "/p"}),
            serde_json::json!("LD_PRELOAD"),
        ] {
            assert_eq!(claude(quiet.clone()), None, "{quiet}");
        }
        let qwen = serde_json::json!({"env": {"BASH_ENV": "/p/x.sh"}});
        assert!(in_settings(AgentKind::Qwen, &qwen).is_some());
        // Qwen Code has no prefix variable of Claude Code's.
        let qwen = serde_json::json!({"env": {"CLAUDE_CODE_SHELL_PREFIX": "/p/x.sh"}});
        assert_eq!(in_settings(AgentKind::Qwen, &qwen), None);
        let kimi = serde_json::json!({"env": {"LD_PRELOAD": "/p/x.so"}});
        assert_eq!(in_settings(AgentKind::Kimi, &kimi), None);
    }

    /// The `.env` files each agent loads: Gemini CLI's up from `cwd` and the home's,
    /// Codex's in `~/.codex/` alone; each variable named with its file.
    #[test]
    fn a_env_file_that_runs_before_the_hooks_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(home.join(".codex")).unwrap();
        std::fs::create_dir_all(project.join("sub")).unwrap();
        let env = Environment::from_vars(vec![("HOME".into(), home.clone().into())]);
        let cwd = project.join("sub");
        assert!(in_env_files(AgentKind::Gemini, &env, &cwd).is_empty());
        std::fs::write(project.join(".env"), "A=1\nBASH_ENV=./x.sh\nLD_PRELOAD=\n").unwrap();
        let found = in_env_files(AgentKind::Gemini, &env, &cwd);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].starts_with(&format!(
                "{} sets BASH_ENV, which names a script the hook's bash runs",
                project.join(".env").display()
            )),
            "{found:#?}"
        );
        // Codex reads no project `.env`, only its own.
        assert!(in_env_files(AgentKind::Codex, &env, &cwd).is_empty());
        std::fs::write(
            home.join(".codex/.env"),
            "GLIBC_TUNABLES=glibc.malloc.x=1\n",
        )
        .unwrap();
        let found = in_env_files(AgentKind::Codex, &env, &cwd);
        assert!(
            found.len() == 1 && found[0].contains("sets GLIBC_TUNABLES"),
            "{found:#?}"
        );
        // With `CODEX_HOME` set, Codex's own `.env` is there.
        let moved = dir.path().join("codex-home");
        std::fs::create_dir_all(&moved).unwrap();
        std::fs::write(moved.join(".env"), "LD_PRELOAD=/p/x.so\n").unwrap();
        let env = Environment::from_vars(vec![
            ("HOME".into(), home.clone().into()),
            ("CODEX_HOME".into(), moved.clone().into()),
        ]);
        let found = in_env_files(AgentKind::Codex, &env, &cwd);
        assert!(
            found.len() == 1 && found[0].starts_with(&moved.join(".env").display().to_string()),
            "{found:#?}"
        );
        // Claude Code loads no `.env`.
        assert!(in_env_files(AgentKind::ClaudeCode, &env, &cwd).is_empty());
    }
}
