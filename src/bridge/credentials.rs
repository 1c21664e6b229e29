//! Where each agent the bridge serves keeps its login: the files and folders, relative to
//! the home folder, that the box hides by default (docs/threats.md#f8 and N12), so that
//! neither a sandboxed hook nor `hookhost box -- CMD` can read an agent's tokens.
//!
//! One entry per agent ([`stores`], a `match` over [`AgentKind`]: a new agent does not
//! build until it says where its login lives), and [`hidden_paths`], every agent's
//! entries in one list. The front end passes that list to the session
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

/// The credential files and folders of `agent`, relative to the home folder.
pub fn stores(agent: AgentKind) -> &'static [&'static str] {
    match agent {
        AgentKind::ClaudeCode => &[
            // The whole folder: `.credentials.json` (the login, on Linux; the macOS
            // Keychain elsewhere), and the transcripts (F8).
            ".claude",
            // User-scope MCP servers with their `env` (`claude mcp add -e KEY=…`), and
            // the API key approved at login in some builds (`primaryApiKey`).
            ".claude.json",
            // The Anthropic API key file of Anthropic's tools (docs/threats.md#f8).
            ".config/anthropic",
        ],
        AgentKind::Codex => &[
            // `$CODEX_HOME/auth.json` (openai/codex `codex-rs/login`), whole as since F8.
            ".codex",
        ],
        AgentKind::Gemini => &[
            // `oauth_creds.json`, `google_accounts.json`, `mcp-oauth-tokens.json`, `.env`
            // (google-gemini/gemini-cli `packages/core/src/config/storage.ts`), whole as
            // since F8.
            ".gemini",
            // The user-level `.env` both Gemini CLI and Qwen Code fall back to for their
            // API keys (`findEnvFile` in `packages/cli/src/config/settings.ts`).
            ".env",
        ],
        AgentKind::Cursor => &[
            // cursor-agent's login (`authInfo`) since 2026
            // (Dicklesworthstone/coding_agent_account_manager#18).
            ".cursor/cli-config.json",
            // cursor-agent's login on Linux before that (kunchenguid/quota-axi#104).
            ".config/cursor/auth.json",
            // Global MCP servers, whose `env` and `headers` carry tokens.
            ".cursor/mcp.json",
            // The editor's `state.vscdb` (`cursorAuth/accessToken`, `refreshToken`) and
            // its backups, on Linux and on macOS.
            ".config/Cursor/User/globalStorage",
            "Library/Application Support/Cursor/User/globalStorage",
        ],
        AgentKind::Copilot => &[
            // The OAuth token when no system keychain is there: it falls back to plain
            // text in `config.json` (github/copilot-cli#2071; kunchenguid/quota-axi#55).
            ".copilot/config.json",
            // HTTP MCP servers' OAuth tokens (github/copilot-cli#2783) and the MCP
            // servers' config with their `env`.
            ".copilot/mcp-oauth-config",
            ".copilot/mcp-config.json",
            // GitHub Copilot's shared login of the editor plugins and the language server
            // (`apps.json`, `hosts.json`: `oauth_token`).
            ".config/github-copilot",
        ],
        AgentKind::Qwen => &[
            // The Qwen OAuth tokens (QwenLM/qwen-code `packages/core/src/config/storage.ts`
            // `OAUTH_FILE`; `qwen/qwenOAuth2.ts`; QwenLM/qwen-code#225).
            ".qwen/oauth_creds.json",
            // MCP servers' OAuth tokens (`Storage.getMcpOAuthTokensPath`).
            ".qwen/mcp-oauth-tokens.json",
            // `security.auth.apiKey` (the OpenAI-compatible key) and the `env` block.
            // Hidden although hookhost's install edits it: a hook has no need to read it.
            ".qwen/settings.json",
            // The API keys Qwen Code reads from `~/.qwen/.env` and `~/.env`.
            ".qwen/.env",
            ".env",
        ],
        AgentKind::Kimi => &[
            // Kimi Code: `<KIMI_CODE_HOME>/credentials/<name>.json`, the OAuth tokens
            // (MoonshotAI/kimi-code `packages/oauth/src/storage.ts`), and `config.toml`,
            // whose `[providers.*]` hold `api_key`; `mcp.json`, the MCP servers.
            ".kimi-code/credentials",
            ".kimi-code/config.toml",
            ".kimi-code/mcp.json",
            // The Python Kimi CLI: the same under `~/.kimi` (MoonshotAI/kimi-cli
            // `src/kimi_cli/share.py`, `auth/oauth.py` `_credentials_dir`, `config.py`
            // `LLMProvider.api_key`), with the legacy `config.json` and its backup.
            ".kimi/credentials",
            ".kimi/config.toml",
            ".kimi/config.json",
            ".kimi/config.json.bak",
            ".kimi/mcp.json",
        ],
        AgentKind::Kiro => &[
            // Kiro CLI and Amazon Q Developer CLI keep their tokens in the `auth_kv`
            // table of `data.sqlite3` in their data folder (aws/amazon-q-developer-cli
            // `fig_util::directories`, `dirs::data_local_dir()`), on Linux and on macOS.
            ".local/share/kiro-cli",
            ".local/share/amazon-q",
            "Library/Application Support/kiro-cli",
            "Library/Application Support/amazon-q",
            // Kiro's MCP servers, with their `env`.
            ".kiro/settings/mcp.json",
            // Amazon Q's settings and MCP servers, and the SSO token cache (the Kiro
            // IDE's `kiro-auth-token.json`): under `.aws`, hidden whole already.
            ".aws/amazonq",
            ".aws/sso/cache",
        ],
    }
}

/// Every agent's credential stores ([`stores`]), each once, in [`AgentKind::ALL`]'s
/// order: the extra default hidden paths the front end gives the session.
pub fn hidden_paths() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for agent in AgentKind::ALL {
        for path in stores(agent) {
            let path = PathBuf::from(path);
            if !out.contains(&path) {
                out.push(path);
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
