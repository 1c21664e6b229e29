//! The agent's modes that run no hook at all, switched on by a variable from its
//! environment or a `.env` file it loads (Qwen Code's bare and safe modes,
//! [`ModesWithoutHooks`]). The settings that switch them on are read with the agent's
//! other switch-offs (`switch_offs`).

use super::dotenv::env_assignments;
use super::switch_offs::{ProjectFile, switches_a_mode_on};
use crate::bridge::AgentKind;
use crate::env::Environment;

/// What switches on one of `agent`'s modes without hooks, one message each: a variable
/// set so in the bridge's environment, or in a `.env` file the agent loads (`files`, read
/// by [`super::hook_environment::loaded_env_files`]: in `cwd`, a folder above it, or the
/// home folder). Empty for an agent without such modes.
pub(super) fn modes_without_hooks(
    agent: AgentKind,
    env: &Environment,
    files: &[ProjectFile],
) -> Vec<String> {
    let Some(modes) = agent.declaration().modes_without_hooks else {
        return Vec::new();
    };
    let name = agent.display_name();
    let mut found = Vec::new();
    for variable in modes.variables {
        if let Some(value) = env.get(variable.name)
            && switches_a_mode_on(modes, &value.to_string_lossy())
        {
            found.push(format!(
                "{name} runs with {}={} in its environment, which starts {}, where it runs no hook; hookhost blocks this agent's calls. Start {name} without it.",
                variable.name,
                value.to_string_lossy(),
                variable.mode
            ));
        }
    }
    for ProjectFile { file, bytes, .. } in files {
        let bytes = match bytes {
            Ok(bytes) => bytes,
            // One the agent may read whole (larger than hookhost reads, not a regular
            // file, past what one call reads): a variable it may set is one hookhost
            // cannot rule out.
            Err(why) => {
                found.push(format!(
                    "hookhost cannot read {}, a .env file {name} loads: {why}; it may start a mode of {name}'s that runs no hook, so hookhost blocks this agent's calls while it is there.",
                    file.display()
                ));
                continue;
            }
        };
        for (assigned, value) in env_assignments(&String::from_utf8_lossy(bytes)) {
            let Some(variable) = modes.variables.iter().find(|v| v.name == assigned) else {
                continue;
            };
            if switches_a_mode_on(modes, &value) {
                found.push(format!(
                    "{} sets {assigned}={value}: {name} loads that file and starts {}, where it runs no hook, from its next session on; hookhost blocks this agent's calls while it is there. Remove that line.",
                    file.display(),
                    variable.mode
                ));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Qwen Code's bare and safe modes, from the bridge's environment, a project's `.env`
    /// files up the `cwd` and the home folder's, each named; values that leave the mode
    /// off, and other agents, say nothing.
    #[test]
    fn a_variable_that_starts_a_mode_without_hooks_is_found_where_the_agent_reads_it() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let project = root.path().join("p");
        let cwd = project.join("sub");
        std::fs::create_dir_all(home.join(".qwen")).unwrap();
        std::fs::create_dir_all(cwd.join(".qwen")).unwrap();
        let env = |vars: &[(&str, &str)]| {
            let mut all = vec![("HOME".to_string(), home.to_str().unwrap().to_string())];
            all.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            Environment::from_vars(all.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
        };
        assert!(super::super::environment_switch_offs(AgentKind::Qwen, &env(&[]), &cwd).is_empty());
        std::fs::write(
            project.join(".env"),
            "QWEN_CODE_SIMPLE=0\nQWEN_CODE_SAFE_MODE=off\n",
        )
        .unwrap();
        assert!(super::super::environment_switch_offs(AgentKind::Qwen, &env(&[]), &cwd).is_empty());
        std::fs::write(project.join(".env"), "export QWEN_CODE_SIMPLE=\"Yes\"\n").unwrap();
        std::fs::write(cwd.join(".qwen/.env"), "QWEN_CODE_SAFE_MODE=1\n").unwrap();
        std::fs::write(home.join(".env"), "QWEN_CODE_SIMPLE=on\n").unwrap();
        let found = super::super::environment_switch_offs(
            AgentKind::Qwen,
            &env(&[("QWEN_CODE_SAFE_MODE", "TRUE")]),
            &cwd,
        );
        assert_eq!(found.len(), 4, "{found:#?}");
        assert!(found[0].starts_with("Qwen Code runs with QWEN_CODE_SAFE_MODE=TRUE in its environment, which starts its safe mode"), "{}", found[0]);
        assert!(found.iter().any(|m| m.starts_with(&format!("{} sets QWEN_CODE_SAFE_MODE=1: Qwen Code loads that file and starts its safe mode", cwd.join(".qwen/.env").display()))), "{found:#?}");
        assert!(
            found.iter().any(|m| m.starts_with(&format!(
                "{} sets QWEN_CODE_SIMPLE=Yes",
                project.join(".env").display()
            ))),
            "{found:#?}"
        );
        assert!(
            found.iter().any(|m| m.starts_with(&format!(
                "{} sets QWEN_CODE_SIMPLE=on",
                home.join(".env").display()
            ))),
            "{found:#?}"
        );
        // With its folder moved, that folder's `.env` too; a folder named `.env` (a
        // virtual environment) is no file the agent reads.
        let moved = root.path().join("qwen-home");
        std::fs::create_dir_all(&moved).unwrap();
        std::fs::write(moved.join(".env"), "QWEN_CODE_SIMPLE=true\n").unwrap();
        std::fs::remove_file(project.join(".env")).unwrap();
        std::fs::create_dir_all(project.join(".env")).unwrap();
        let found = super::super::environment_switch_offs(
            AgentKind::Qwen,
            &env(&[("QWEN_HOME", moved.to_str().unwrap())]),
            &cwd,
        );
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(
            found.iter().any(|m| m.starts_with(&format!(
                "{} sets QWEN_CODE_SIMPLE=true",
                moved.join(".env").display()
            ))),
            "{found:#?}"
        );
        assert!(
            super::super::environment_switch_offs(
                AgentKind::ClaudeCode,
                &env(&[("QWEN_CODE_SIMPLE", "1")]),
                &cwd
            )
            .is_empty()
        );
    }
}
