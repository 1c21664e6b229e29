//! Where each agent the bridge serves keeps its login: the files and folders, relative to
//! the home folder, that the box hides by default (docs/threats.md#f8 and N12), so that
//! neither a sandboxed hook nor `hookhost box -- CMD` can read an agent's tokens.
//!
//! One entry per agent (the `credentials` of its [`Declaration`](super::Declaration), in
//! the agent's own file: a new agent does not build until it says where its login lives),
//! and [`hidden_paths`], every agent's entries in one list. The front end passes that list to the session
//! (`SessionOptions::extra_default_hidden`), and the box adds it to its own defaults
//! (`sandbox::default_hidden`: `.ssh`, `.aws`, `.config/gh`, …). Nothing below the front
//! ends knows an agent. As with every default hidden path, only a path that exists is
//! covered (a folder by an empty tmpfs, a file by `/dev/null`), and `[sandbox] hide`
//! replaces the whole list.
//!
//! Folder or file: a folder is named when everything in it is login state the agent
//! writes for itself (`.kimi-code/credentials`); otherwise only the files that hold a
//! token or a key are named, never the agent's whole folder, because people keep their
//! hook scripts there (`~/.cursor/hooks/`, `~/.copilot/hooks/`, `~/.qwen/hooks/`,
//! `~/.kimi-code/hooks/`, `~/.kiro/agents/`), and the path guard refuses a sandboxed hook
//! kept in a hidden folder. The settings files named below are hidden because they
//! can carry an API key or an MCP server's token (a hook has no need to read them); the
//! settings file hookhost's own install edits is named only where it can hold a key.
//! `.claude`, `.codex` and `.gemini` stay hidden whole, as since F8: their transcripts
//! and caches hold what the agent read, and `~/.claude/hooks/…` is refused at start (the
//! README says so).
//!
//! An agent whose folder a variable moves (its declaration's `home_variable`:
//! `CODEX_HOME`, `COPILOT_HOME`, `KIMI_CODE_HOME`, `QWEN_HOME`) keeps its login in the
//! moved folder, so [`hidden_paths_in`] names the same entries there too, from the
//! environment of the call (the agent's), when the variable holds an absolute path.
//! Variables the declarations do not know (`KIMI_SHARE_DIR`, `CURSOR_CONFIG_DIR`,
//! `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`) are covered at the default place only: list the
//! other one in `[sandbox] hide`. The administrator's session takes no folder from the
//! user's environment.

use std::path::{Path, PathBuf};

use super::AgentKind;

/// The credential files and folders of `agent`, relative to the home folder: its
/// declaration's [`credentials`](super::Declaration::credentials).
pub fn stores(agent: AgentKind) -> &'static [&'static str] {
    agent.declaration().credentials
}

/// Every agent's credential stores ([`stores`]), each once, in [`AgentKind::ALL`]'s
/// order: the extra default hidden paths the front end gives the session.
pub fn hidden_paths() -> Vec<PathBuf> {
    // A fixed list, made once per process: the warm server starts a session per call.
    static LIST: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    LIST.get_or_init(|| {
        let mut out: Vec<PathBuf> = Vec::new();
        // A set finds a repeat in a few comparisons where `out.contains` compared each
        // path with all before it.
        let mut seen = std::collections::BTreeSet::new();
        for agent in AgentKind::ALL {
            for path in stores(agent) {
                let path = PathBuf::from(path);
                if seen.insert(path.clone()) {
                    out.push(path);
                }
            }
        }
        out
    })
    .clone()
}

/// Every agent's credential stores ([`hidden_paths`]), then those of each agent whose
/// folder `lookup` (the environment the agent runs in) moves: the entries under the
/// agent's folder, named again under the folder its variable gives, as absolute paths.
///
/// A value that is not an absolute path, or a folder that holds `project` or `home` (the
/// box would hide the project, or every home's file, from the hook), moves nothing here:
/// the agent keeps its login elsewhere than hookhost can tell, and hiding the project
/// would break every hook.
pub fn hidden_paths_in(
    lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
    project: &Path,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    let mut out = hidden_paths();
    for path in moved_stores(lookup, project, home) {
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// The credential stores of the agents whose folder `lookup` moves ([`hidden_paths_in`]).
fn moved_stores(
    lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
    project: &Path,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for agent in AgentKind::ALL {
        let settings = &agent.declaration().settings;
        let Some(moved) = settings
            .home_variable
            .and_then(&lookup)
            .map(PathBuf::from)
            .filter(|folder| folder.is_absolute())
            .map(|folder| crate::paths::lexical(&folder))
        else {
            continue;
        };
        // A folder holding the project or a home would hide what the hook works on: by
        // spelling, and through links.
        let real_moved = std::fs::canonicalize(&moved).ok();
        let holds = |place: &Path| {
            if place.as_os_str().is_empty() {
                return false;
            }
            let place = std::path::absolute(place).unwrap_or_else(|_| place.to_path_buf());
            crate::paths::lexical(&place).starts_with(&moved)
                || matches!(
                    (&real_moved, std::fs::canonicalize(&place)),
                    (Some(real), Ok(place)) if place.starts_with(real)
                )
        };
        if holds(project) || home.is_some_and(holds) {
            continue;
        }
        let folder = Path::new(settings.home_folder);
        for store in stores(agent) {
            if let Ok(inside) = Path::new(store).strip_prefix(folder) {
                // `.codex` is hidden whole: its moved folder is, as it is named.
                let path = if inside.as_os_str().is_empty() {
                    moved.clone()
                } else {
                    moved.join(inside)
                };
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_declares_its_stores() {
        for agent in AgentKind::ALL {
            assert!(!stores(agent).is_empty(), "{agent:?}");
        }
    }

    #[test]
    fn the_paths_are_relative_plain_and_listed_once() {
        let all = hidden_paths();
        for p in &all {
            assert!(p.is_relative(), "{}", p.display());
            assert!(
                p.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{}",
                p.display()
            );
        }
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len());
    }

    #[test]
    fn a_moved_agent_folder_hides_its_stores_there_unless_it_holds_the_project() {
        let lookup = |name: &str| match name {
            "CODEX_HOME" => Some("/srv/codex".into()),
            "QWEN_HOME" => Some("/srv/qwen".into()),
            "COPILOT_HOME" => Some("relative/copilot".into()),
            "KIMI_CODE_HOME" => Some("/work".into()),
            _ => None,
        };
        let all = hidden_paths_in(
            lookup,
            Path::new("/work/project"),
            Some(Path::new("/home/u")),
        );
        let moved: Vec<&PathBuf> = all.iter().filter(|p| p.is_absolute()).collect();
        // Codex's folder whole, Qwen's files; a relative folder and one that holds the
        // project move nothing.
        assert_eq!(
            moved,
            [
                Path::new("/srv/codex"),
                Path::new("/srv/qwen/oauth_creds.json"),
                Path::new("/srv/qwen/mcp-oauth-tokens.json"),
                Path::new("/srv/qwen/settings.json"),
                Path::new("/srv/qwen/.env"),
            ]
        );
        assert_eq!(all.len(), hidden_paths().len() + moved.len());
        // A folder that holds the home moves nothing either.
        let home_moved = |name: &str| (name == "CODEX_HOME").then(|| "/home".into());
        assert_eq!(
            hidden_paths_in(home_moved, Path::new("/p"), Some(Path::new("/home/u"))),
            hidden_paths()
        );
    }

    #[test]
    fn the_reviews_readable_stores_are_listed() {
        let all = hidden_paths();
        for p in [
            ".qwen/oauth_creds.json",
            ".kimi-code/credentials",
            ".kimi/credentials",
            ".copilot/config.json",
            ".cursor/cli-config.json",
            ".local/share/kiro-cli",
            ".aws/amazonq",
        ] {
            assert!(all.contains(&PathBuf::from(p)), "{p}");
        }
        // The folders people keep hooks in are not hidden whole.
        for p in [
            ".qwen",
            ".cursor",
            ".copilot",
            ".kiro",
            ".kimi-code",
            ".kimi",
        ] {
            assert!(!all.contains(&PathBuf::from(p)), "{p}");
        }
    }
}
