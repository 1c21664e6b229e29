//! Install and uninstall on real-looking settings files: the helpers and fixtures the
//! test modules share, and what holds for every agent.
//!
//! - `json_settings`: the JSON agents' files (Claude Code, Gemini CLI, Cursor, Copilot) and
//!   the registration itself (budget, timeout, binary path, an older or narrowed one);
//! - `toml_settings`: the TOML agents' files (Codex, Kimi Code);
//! - `codex_trust`: Codex's hook trust;
//! - `files`: the writes on disk (backups, links, races, dry runs).

use super::*;
use serde_json::{Value, json};

const HOOKHOST: &str = "/usr/local/bin/hookhost";

fn request(action: Action, agent: AgentKind, scope: Scope) -> Request {
    Request {
        action,
        agent,
        scope,
        places: Places::new("/home/ada", "/work/proj"),
        hookhost: PathBuf::from(HOOKHOST),
        options: Options::default(),
    }
}

fn install(agent: AgentKind) -> Request {
    request(Action::Install, agent, Scope::User)
}

fn uninstall(agent: AgentKind) -> Request {
    request(Action::Uninstall, agent, Scope::User)
}

/// Plans `request` on `text`; the change must succeed.
fn planned(request: &Request, text: Option<&str>) -> Change {
    match plan(request, text) {
        Ok(change) => change,
        Err(e) => panic!("plan failed: {e}"),
    }
}

fn after(change: &Change) -> &str {
    change
        .after
        .as_deref()
        .unwrap_or_else(|| panic!("no text after: {change:?}"))
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// Installing twice changes nothing the second time; uninstalling gives back `original`.
fn assert_idempotent_and_round_trips(agent: AgentKind, original: Option<&str>) -> Change {
    let first = planned(&install(agent), original);
    assert!(first.changes_anything(), "{first:?}");
    let second = planned(&install(agent), first.after.as_deref());
    assert_eq!(second.outcome, ChangeKind::AlreadyInstalled);
    assert!(!second.changes_anything());
    assert_eq!(second.after, first.after);
    let removed = planned(&uninstall(agent), first.after.as_deref());
    assert_eq!(removed.outcome, ChangeKind::Removed);
    assert_eq!(
        removed.after.as_deref(),
        original,
        "uninstall does not give back the original"
    );
    first
}

const CLAUDE_SETTINGS: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Read(~/.zshrc)"
    ],
    "deny": [
      "Read(./.env)"
    ]
  },
  "env": {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "0"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/no_rm.py",
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [
          {
            "type": "command",
            "command": "npx prettier --write \"$(jq -r .tool_input.file_path)\""
          }
        ]
      }
    ]
  },
  "model": "opus"
}
"#;

const GEMINI_SETTINGS: &str = r#"{
    "theme": "GitHub",
    "hooksConfig": {
        "enabled": true
    },
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "write_file|replace",
                "hooks": [
                    {
                        "name": "secret-scan",
                        "type": "command",
                        "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh",
                        "timeout": 5000
                    }
                ]
            }
        ]
    }
}"#;

fn request_for(action: Action, like: &Request) -> Request {
    Request {
        action,
        ..like.clone()
    }
}

const CODEX_CONFIG: &str = r#"# Codex settings, kept in dotfiles.
model = "gpt-5.1-codex" # the default model
approval_policy = "on-request"

[features]
# hooks are on by default since 0.124
hooks = true

[[hooks.PreToolUse]]
matcher = "Bash" # shell only
[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 ~/.codex/hooks/guard.py"
timeout = 10

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"] # pinned below
"#;

#[test]
fn uninstall_of_nothing_changes_nothing() {
    for agent in AgentKind::ALL {
        let change = planned(&uninstall(agent), None);
        assert_eq!(change.outcome, ChangeKind::NotInstalled);
        assert!(!change.changes_anything());
        assert_eq!(change.diff(), "");
    }
    let change = planned(&uninstall(AgentKind::ClaudeCode), Some(CLAUDE_SETTINGS));
    assert_eq!(change.after.as_deref(), Some(CLAUDE_SETTINGS));
}

#[test]
fn crlf_line_endings_are_kept() {
    let old = CLAUDE_SETTINGS.replace('\n', "\r\n");
    let change = planned(&install(AgentKind::ClaudeCode), Some(&old));
    let text = after(&change);
    assert_eq!(text.matches('\n').count(), text.matches("\r\n").count());
    let removed = planned(&uninstall(AgentKind::ClaudeCode), Some(text));
    assert_eq!(removed.after.as_deref(), Some(old.as_str()));
}

mod codex_trust;
mod files;
mod json_settings;
mod toml_settings;
