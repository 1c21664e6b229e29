//! An agent's folder moved by a `.env` file the agent reads before its settings (Qwen
//! Code's `QWEN_HOME` in `~/.qwen/.env` or `~/.env`): the agent then reads its settings
//! from the folder named there, where hookhost's registration is not, and runs none of
//! its hooks ([`crate::bridge::Settings::home_variable_files`]).

use std::path::{Path, PathBuf};

use super::dotenv::env_assignments;
use super::switch_offs::read_settings;
use crate::bridge::AgentKind;
use crate::env::Environment;

/// A message when a `.env` file moves `agent`'s folder away from the one `env` gives it
/// (its variable, else the home folder's): the first of the agent's files that sets the
/// variable decides, as the agent reads them. Nothing when `env` sets the variable itself
/// (the agent then reads it from no file), or for an agent without such files.
pub fn home_moved(agent: AgentKind, env: &Environment) -> Vec<String> {
    let mut found = moved_by_env_files(agent, env);
    found.extend(extras_moved(agent, env));
    found
}

/// A message when the agent's environment (the bridge's, which the agent hands its hooks)
/// names another home for the agent's files but its settings
/// ([`crate::bridge::Settings::extras_home_variable`], Gemini CLI's `GEMINI_CLI_HOME`,
/// which a project's `.env` can set): hookhost's registration still runs, but the agent
/// reads its extensions and trusted hooks from a folder hookhost does not read (seen: an
/// extension there rewrote a call in Gemini CLI 0.61.0). Nothing when it names the home.
fn extras_moved(agent: AgentKind, env: &Environment) -> Vec<String> {
    let settings = &agent.declaration().settings;
    let Some(variable) = settings.extras_home_variable else {
        return Vec::new();
    };
    let Some(value) = env.get(variable).filter(|v| !v.is_empty()) else {
        return Vec::new();
    };
    let Some(home) = env.home() else {
        return Vec::new();
    };
    let value = value.to_string_lossy();
    if !names_another_home(&value, &home) {
        return Vec::new();
    }
    let name = agent.display_name();
    vec![format!(
        "{name}'s environment sets {variable}={value} (a .env file {name} loads can set it): {name} then reads its extensions and trusted hooks from {}, where hookhost does not look for hooks that could rewrite a call, while its settings and hookhost's registration stay in {}; hookhost blocks this agent's calls while it is set. Remove {variable} from that .env file, or unset it.",
        Path::new(&*value).join(settings.home_folder).display(),
        home.join(settings.home_folder).display()
    )]
}

/// Whether `value` of an [`crate::bridge::Settings::extras_home_variable`] names another
/// folder than `home`, as the agent takes it: as written, `~` not expanded (Gemini CLI
/// 0.61.0 read `GEMINI_CLI_HOME=~` as a folder `~` of the one it runs in), a relative path
/// from its folder.
pub(super) fn names_another_home(value: &str, home: &Path) -> bool {
    let named = Path::new(value);
    !(named.is_absolute() && same_folder(named, home))
}

/// [`home_moved`] for a `.env` file the agent reads before its settings.
fn moved_by_env_files(agent: AgentKind, env: &Environment) -> Vec<String> {
    let settings = &agent.declaration().settings;
    let Some(variable) = settings.home_variable else {
        return Vec::new();
    };
    if settings.home_variable_files.is_empty() || env.get(variable).is_some_and(|v| !v.is_empty()) {
        return Vec::new();
    }
    let Some(home) = env.home() else {
        return Vec::new();
    };
    let name = agent.display_name();
    let folder = home.join(settings.home_folder);
    for file in settings.home_variable_files.iter().map(|f| home.join(f)) {
        let bytes = match read_settings(&file, |_| true) {
            None => continue,
            Some(Ok(bytes)) => bytes,
            Some(Err(why)) => {
                return vec![format!(
                    "hookhost cannot read {}, a .env file {name} reads {variable} from: {why}; it may move {name}'s settings away from hookhost's registration, so hookhost blocks this agent's calls while it is there.",
                    file.display()
                )];
            }
        };
        let Some(value) = env_assignments(&String::from_utf8_lossy(&bytes))
            .into_iter()
            .find(|(assigned, value)| assigned == variable && !value.is_empty())
            .map(|(_, value)| value)
        else {
            continue;
        };
        if named_folder(&value, &home).is_some_and(|named| same_folder(&named, &folder)) {
            return Vec::new();
        }
        return vec![format!(
            "{} sets {variable}={value}: {name} then reads its settings from that folder, not from {}, where hookhost is registered, and runs none of its hooks from its next session on; hookhost blocks this agent's calls while it is there. Remove that line, or install hookhost with {variable} set so.",
            file.display(),
            folder.display()
        )];
    }
    Vec::new()
}

/// The folder a value of the variable names, as the agent resolves it: `~` is the home
/// folder; `None` for a relative path, which the agent takes from the folder it runs in
/// (a project's, for a session started there): never the folder hookhost registered in.
fn named_folder(value: &str, home: &Path) -> Option<PathBuf> {
    match value.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            Some(home.join(rest.trim_start_matches('/')))
        }
        _ => Some(PathBuf::from(value)).filter(|path| path.is_absolute()),
    }
}

/// Whether two paths name one folder: once tidied, equal or equal with links resolved.
fn same_folder(a: &Path, b: &Path) -> bool {
    super::same_path(&crate::paths::lexical(a), &crate::paths::lexical(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Qwen Code's `QWEN_HOME` from `~/.qwen/.env`, else `~/.env`: a folder elsewhere is
    /// named, its own folder is not, and a variable in the environment wins over both.
    #[test]
    fn a_env_file_that_moves_the_agents_folder_is_named() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        std::fs::create_dir_all(home.join(".qwen")).unwrap();
        let env = |vars: &[(&str, &str)]| {
            let mut all = vec![("HOME".to_string(), home.to_str().unwrap().to_string())];
            all.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            Environment::from_vars(all.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
        };
        assert!(home_moved(AgentKind::Qwen, &env(&[])).is_empty());
        std::fs::write(home.join(".env"), "QWEN_HOME=~/.qwen\n").unwrap();
        assert!(home_moved(AgentKind::Qwen, &env(&[])).is_empty());
        std::fs::write(home.join(".env"), "QWEN_HOME=/srv/elsewhere\n").unwrap();
        let found = home_moved(AgentKind::Qwen, &env(&[]));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(&format!(
                "{} sets QWEN_HOME=/srv/elsewhere: Qwen Code then reads its settings from that folder",
                home.join(".env").display()
            )),
            "{}",
            found[0]
        );
        // `~/.qwen/.env` is read first: what it sets decides.
        std::fs::write(
            home.join(".qwen/.env"),
            format!("QWEN_HOME={}\n", home.join(".qwen").display()),
        )
        .unwrap();
        assert!(home_moved(AgentKind::Qwen, &env(&[])).is_empty());
        std::fs::write(home.join(".qwen/.env"), "QWEN_HOME=moved\n").unwrap();
        assert_eq!(home_moved(AgentKind::Qwen, &env(&[])).len(), 1);
        // Relative, it is taken from the folder the agent runs in: never hookhost's.
        std::fs::write(home.join(".qwen/.env"), "QWEN_HOME=.qwen\n").unwrap();
        assert_eq!(home_moved(AgentKind::Qwen, &env(&[])).len(), 1);
        // Set in the environment, no file moves it.
        assert!(home_moved(AgentKind::Qwen, &env(&[("QWEN_HOME", "/srv/q")])).is_empty());
        assert!(home_moved(AgentKind::Codex, &env(&[])).is_empty());
    }

    /// Gemini CLI's `GEMINI_CLI_HOME` in the bridge's environment (a project's `.env` sets
    /// it): another folder than the home is named; the home itself, or none, is not.
    #[test]
    fn another_home_for_the_agents_extensions_is_named() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let env = |value: Option<&str>| {
            let mut all = vec![("HOME".to_string(), home.to_str().unwrap().to_string())];
            all.extend(value.map(|v| ("GEMINI_CLI_HOME".to_string(), v.to_string())));
            Environment::from_vars(all.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
        };
        assert!(home_moved(AgentKind::Gemini, &env(None)).is_empty());
        assert!(home_moved(AgentKind::Gemini, &env(Some(""))).is_empty());
        assert!(home_moved(AgentKind::Gemini, &env(Some(home.to_str().unwrap()))).is_empty());
        // `~` is a folder of that name where the agent runs.
        assert_eq!(home_moved(AgentKind::Gemini, &env(Some("~"))).len(), 1);
        let trailing = format!("{}/", home.display());
        assert!(home_moved(AgentKind::Gemini, &env(Some(&trailing))).is_empty());
        let found = home_moved(AgentKind::Gemini, &env(Some("/p/.agent-home")));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(
                "Gemini CLI's environment sets GEMINI_CLI_HOME=/p/.agent-home (a .env file Gemini CLI loads can set it): Gemini CLI then reads its extensions and trusted hooks from /p/.agent-home/.gemini,"
            ),
            "{}",
            found[0]
        );
        assert_eq!(home_moved(AgentKind::Gemini, &env(Some("rel"))).len(), 1);
        assert!(home_moved(AgentKind::ClaudeCode, &env(Some("/p/x"))).is_empty());
    }
}
