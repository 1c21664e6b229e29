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
//! Agents that move their folder with a variable (`CODEX_HOME`, `COPILOT_HOME`,
//! `KIMI_CODE_HOME`, `KIMI_SHARE_DIR`, `QWEN_HOME`, `CURSOR_CONFIG_DIR`) are covered at the
//! default place only: list the other one in `[sandbox] hide`.

use std::path::PathBuf;

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
