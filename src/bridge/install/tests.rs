//! Install and uninstall on real-looking settings files.

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

#[test]
fn claude_code_install_merges_into_settings_with_other_hooks_and_keys() {
    let change = assert_idempotent_and_round_trips(AgentKind::ClaudeCode, Some(CLAUDE_SETTINGS));
    assert_eq!(change.outcome, ChangeKind::Added);
    assert_eq!(
        change.file,
        PathBuf::from("/home/ada/.claude/settings.json")
    );
    let new = parse(after(&change));
    let old = parse(CLAUDE_SETTINGS);
    for key in ["$schema", "permissions", "env", "model"] {
        assert_eq!(new[key], old[key], "{key} changed");
    }
    assert_eq!(new["hooks"]["PostToolUse"], old["hooks"]["PostToolUse"]);
    let handler = json!({
        "type": "command",
        "command": "/usr/local/bin/hookhost bridge --agent claude-code",
        "timeout": 30
    });
    assert_eq!(
        new["hooks"]["PreToolUse"],
        json!([old["hooks"]["PreToolUse"][0], {"matcher": "*", "hooks": [handler]}])
    );
    assert_eq!(
        new["hooks"]["UserPromptSubmit"],
        json!([{"hooks": [handler]}])
    );
    // Key order is kept: hookhost's events come after the user's.
    let keys: Vec<&str> = new["hooks"]
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "ConfigChange"
        ]
    );
    assert!(
        change.summary().contains("PreToolUse, UserPromptSubmit"),
        "{}",
        change.summary()
    );
    assert!(
        change.diff().contains("+        \"matcher\": \"*\","),
        "{}",
        change.diff()
    );
}

#[test]
fn claude_code_project_scope_and_a_new_file() {
    let request = request(Action::Install, AgentKind::ClaudeCode, Scope::Project);
    let change = planned(&request, None);
    assert_eq!(
        change.file,
        PathBuf::from("/work/proj/.claude/settings.json")
    );
    assert_eq!(change.before, None);
    assert_eq!(
        after(&change),
        r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/hookhost bridge --agent claude-code",
            "timeout": 30
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/hookhost bridge --agent claude-code",
            "timeout": 30
          }
        ]
      }
    ],
    "ConfigChange": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/hookhost bridge --agent claude-code",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
"#
    );
    // Uninstall leaves nothing: the file hookhost created goes.
    let removed = planned(
        &request_for(Action::Uninstall, &request),
        change.after.as_deref(),
    );
    assert_eq!(removed.after, None);
    assert!(
        removed.summary().contains("is deleted"),
        "{}",
        removed.summary()
    );
}

fn request_for(action: Action, like: &Request) -> Request {
    Request {
        action,
        ..like.clone()
    }
}

#[test]
fn an_older_registration_is_updated_in_place_not_duplicated() {
    let old = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/old/hookhost bridge --agent claude-code",
            "args": ["ignored"],
            "timeout": 600,
            "statusMessage": "hookhost"
          },
          {
            "type": "command",
            "command": "~/bin/audit.sh"
          }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "hookhost bridge --agent claude-code"
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/hookhost bridge --agent claude-code",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
"#;
    let change = planned(&install(AgentKind::ClaudeCode), Some(old));
    assert_eq!(change.outcome, ChangeKind::Updated);
    let new = parse(after(&change));
    assert_eq!(
        new["hooks"]["PreToolUse"],
        json!([{
            "matcher": "*",
            "hooks": [
                {
                    "type": "command",
                    "command": "/usr/local/bin/hookhost bridge --agent claude-code",
                    "timeout": 30,
                    "statusMessage": "hookhost"
                },
                {"type": "command", "command": "~/bin/audit.sh"}
            ]
        }])
    );
    assert_eq!(
        new["hooks"]["UserPromptSubmit"],
        parse(old)["hooks"]["UserPromptSubmit"]
    );
    let again = planned(&install(AgentKind::ClaudeCode), change.after.as_deref());
    assert_eq!(again.outcome, ChangeKind::AlreadyInstalled);
}

#[test]
fn a_narrowed_registration_alone_in_its_group_is_widened_again() {
    let old = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/hookhost bridge --agent claude-code", "timeout": 30}]},
    ]}});
    let text = serde_json::to_string_pretty(&old).unwrap_or_default();
    let change = planned(&install(AgentKind::ClaudeCode), Some(&text));
    assert_eq!(change.outcome, ChangeKind::Updated);
    let new = parse(after(&change));
    assert_eq!(new["hooks"]["PreToolUse"][0]["matcher"], "*");
    assert_eq!(new["hooks"]["PreToolUse"].as_array().map(Vec::len), Some(1));
}

#[test]
fn other_hookhost_commands_and_lookalikes_are_not_hookhosts_registration() {
    let old = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "hookhost check"},
        {"type": "command", "command": "/bin/not-hookhost bridge --agent claude-code"},
        {"type": "command", "command": "echo hookhost bridge"},
    ]}]}});
    let text = serde_json::to_string_pretty(&old).unwrap_or_default();
    let removed = planned(&uninstall(AgentKind::ClaudeCode), Some(&text));
    assert_eq!(removed.outcome, ChangeKind::NotInstalled);
    assert!(!removed.changes_anything());
    let change = planned(&install(AgentKind::ClaudeCode), Some(&text));
    assert_eq!(change.outcome, ChangeKind::Added);
    let new = parse(after(&change));
    assert_eq!(new["hooks"]["PreToolUse"][0], old["hooks"]["PreToolUse"][0]);
    assert_eq!(new["hooks"]["PreToolUse"].as_array().map(Vec::len), Some(2));
}

#[test]
fn claude_code_on_failure_block_is_written_only_when_asked() {
    let plain = planned(&install(AgentKind::ClaudeCode), None);
    assert!(!after(&plain).contains("onFailure"));
    let mut asked = install(AgentKind::ClaudeCode);
    asked.options.claude_on_failure_block = true;
    let change = planned(&asked, Some(after(&plain)));
    assert_eq!(change.outcome, ChangeKind::Updated);
    let new = parse(after(&change));
    assert_eq!(
        new["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"],
        "block"
    );
    assert_eq!(
        new["hooks"]["UserPromptSubmit"][0]["hooks"][0]["onFailure"],
        "block"
    );
    // Installing again without it takes it away (the registration is what was asked for).
    let back = planned(&install(AgentKind::ClaudeCode), change.after.as_deref());
    assert_eq!(back.after, plain.after);
}

#[test]
fn a_budget_sets_the_timeout_above_it_and_reaches_the_bridge() {
    let mut request = install(AgentKind::Gemini);
    request.options.budget_ms = Some(90_000);
    let change = planned(&request, None);
    let new = parse(after(&change));
    let handler = &new["hooks"]["BeforeTool"][0]["hooks"][0];
    assert_eq!(handler["timeout"], 95_000);
    assert_eq!(
        handler["command"],
        "/usr/local/bin/hookhost bridge --agent gemini --budget-ms 90000"
    );
    // The default budget is not spelled out.
    request.options.budget_ms = Some(AgentKind::Gemini.default_budget_ms());
    let default = planned(&request, None);
    assert!(!after(&default).contains("--budget-ms"));
}

#[test]
fn every_timeout_is_above_the_budget_and_every_budget_below_the_agents_default() {
    // The agents' default timeouts (research 2.5); Cursor's is not documented.
    let defaults_ms = [
        (AgentKind::ClaudeCode, 30_000),
        (AgentKind::Codex, 600_000),
        (AgentKind::Gemini, 60_000),
        (AgentKind::Copilot, 30_000),
    ];
    for (agent, default_ms) in defaults_ms {
        assert!(agent.default_budget_ms() < default_ms, "{agent}");
    }
    for agent in AgentKind::ALL {
        let registration = Registration::new(agent, Path::new(HOOKHOST), &Options::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let timeout_ms = match registration.timeout_unit {
            TimeUnit::Seconds => registration.timeout * 1000,
            TimeUnit::Milliseconds => registration.timeout,
        };
        assert!(
            timeout_ms >= registration.budget_ms + TIMEOUT_MARGIN_MS,
            "{agent}: {timeout_ms} ms"
        );
    }
}

#[test]
fn a_binary_path_with_a_blank_is_quoted_and_still_recognised() {
    let mut request = install(AgentKind::ClaudeCode);
    request.hookhost = PathBuf::from("/home/ada/my tools/hookhost");
    let change = planned(&request, None);
    let new = parse(after(&change));
    assert_eq!(
        new["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "'/home/ada/my tools/hookhost' bridge --agent claude-code"
    );
    let again = planned(&request, change.after.as_deref());
    assert_eq!(again.outcome, ChangeKind::AlreadyInstalled);
    // A renamed binary is still recognised by its own path.
    request.hookhost = PathBuf::from("/opt/hh");
    let renamed = planned(&request, None);
    request.hookhost = PathBuf::from("/opt/hh");
    let again = planned(&request, renamed.after.as_deref());
    assert_eq!(again.outcome, ChangeKind::AlreadyInstalled);
}

#[test]
fn a_relative_binary_path_is_refused() {
    let mut request = install(AgentKind::Codex);
    request.hookhost = PathBuf::from("target/debug/hookhost");
    let err = plan(&request, None)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("must be an absolute path"), "{err}");
}

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

#[test]
fn gemini_install_keeps_four_space_indent_and_writes_milliseconds() {
    let change = assert_idempotent_and_round_trips(AgentKind::Gemini, Some(GEMINI_SETTINGS));
    assert_eq!(
        change.file,
        PathBuf::from("/home/ada/.gemini/settings.json")
    );
    let text = after(&change);
    assert!(text.starts_with("{\n    \"theme\""), "{text}");
    assert!(
        !text.ends_with('\n'),
        "a file without a final newline keeps none"
    );
    let new = parse(text);
    let handler = json!({
        "name": "hookhost",
        "type": "command",
        "command": "/usr/local/bin/hookhost bridge --agent gemini",
        "timeout": 55_000
    });
    assert_eq!(
        new["hooks"]["BeforeTool"][1],
        json!({"matcher": "*", "hooks": [handler]})
    );
    assert_eq!(new["hooks"]["BeforeAgent"], json!([{"hooks": [handler]}]));
    assert_eq!(new["hooksConfig"], json!({"enabled": true}));
}

#[test]
fn a_json_settings_file_with_comments_is_refused_with_the_line() {
    let text =
        "{\n  \"theme\": \"GitHub\", // \"dark\" is too dark\n  \"url\": \"http://x//y\"\n}\n";
    let err = plan(&install(AgentKind::Gemini), Some(text)).err();
    match err {
        Some(InstallError::Comments { path, line }) => {
            assert_eq!(path, PathBuf::from("/home/ada/.gemini/settings.json"));
            assert_eq!(line, 2);
        }
        other => panic!("expected a comment error, got {other:?}"),
    }
    let block = "{\n  \"a\": \"//not a comment\",\n  /* one */ \"b\": 1\n}";
    let message = plan(&install(AgentKind::ClaudeCode), Some(block))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.starts_with("/home/ada/.claude/settings.json: line 3 holds a comment"),
        "{message}"
    );
}

#[test]
fn a_broken_json_file_is_an_error_naming_the_file_and_line() {
    let broken = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\",]\n  }\n}\n";
    for agent in [
        AgentKind::ClaudeCode,
        AgentKind::Cursor,
        AgentKind::Copilot,
        AgentKind::Gemini,
    ] {
        for action in [Action::Install, Action::Uninstall] {
            match plan(&request(action, agent, Scope::User), Some(broken)) {
                Err(e @ InstallError::Malformed { line: 3, .. }) => {
                    let message = e.to_string();
                    let file =
                        settings_file(agent, Scope::User, &Places::new("/home/ada", "/work/proj"))
                            .unwrap();
                    assert!(
                        message
                            .starts_with(&format!("{}: malformed JSON at line 3", file.display())),
                        "{message}"
                    );
                    assert!(
                        message.ends_with("hookhost leaves it untouched"),
                        "{message}"
                    );
                }
                other => panic!("{agent}: expected a malformed error, got {other:?}"),
            }
        }
    }
}

#[test]
fn a_settings_file_of_the_wrong_shape_names_the_key() {
    let cases = [
        ("[1, 2]", "its top level is not a JSON object"),
        (r#"{"hooks": []}"#, "hooks is not an object"),
        (
            r#"{"hooks": {"PreToolUse": {}}}"#,
            "hooks.PreToolUse is not an array",
        ),
        (
            r#"{"hooks": {"PreToolUse": [1]}}"#,
            "hooks.PreToolUse[0] is not an object",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": "x"}]}}"#,
            "hooks.PreToolUse[0].hooks is not an array",
        ),
    ];
    for (text, expected) in cases {
        let message = plan(&install(AgentKind::ClaudeCode), Some(text))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(message.contains(expected), "{text}: {message}");
    }
}

#[test]
fn cursor_new_file_registers_every_event_fail_closed_and_uninstall_deletes_it() {
    let change = planned(&install(AgentKind::Cursor), None);
    assert_eq!(change.file, PathBuf::from("/home/ada/.cursor/hooks.json"));
    let new = parse(after(&change));
    let handler = json!({
        "command": "/usr/local/bin/hookhost bridge --agent cursor",
        "timeout": 30,
        "failClosed": true
    });
    assert_eq!(
        new,
        json!({"version": 1, "hooks": {
            "preToolUse": [handler],
            "beforeShellExecution": [handler],
            "beforeMCPExecution": [handler],
            "beforeReadFile": [handler],
            "beforeSubmitPrompt": [handler],
        }})
    );
    assert!(after(&change).starts_with("{\n  \"version\": 1,"));
    assert_idempotent_and_round_trips(AgentKind::Cursor, None);
}

#[test]
fn cursor_install_keeps_the_users_hooks_and_adds_a_missing_version_first() {
    let old = r#"{
  "hooks": {
    "afterFileEdit": [
      {
        "command": "./hooks/format.sh"
      }
    ],
    "beforeShellExecution": [
      {
        "command": "./hooks/audit.sh",
        "matcher": "git push"
      },
      {
        "command": "hookhost bridge --agent cursor",
        "matcher": "npm"
      }
    ]
  }
}
"#;
    let change = planned(&install(AgentKind::Cursor), Some(old));
    assert_eq!(change.outcome, ChangeKind::Updated);
    let new = parse(after(&change));
    assert!(after(&change).starts_with("{\n  \"version\": 1,"));
    assert_eq!(
        new["hooks"]["afterFileEdit"],
        parse(old)["hooks"]["afterFileEdit"]
    );
    assert_eq!(
        new["hooks"]["beforeShellExecution"],
        json!([
            {"command": "./hooks/audit.sh", "matcher": "git push"},
            {"command": "/usr/local/bin/hookhost bridge --agent cursor", "timeout": 30, "failClosed": true}
        ])
    );
    // Uninstall removes hookhost's handlers only; the version it added stays with the
    // user's hooks.
    let removed = planned(&uninstall(AgentKind::Cursor), change.after.as_deref());
    let left = parse(after(&removed));
    assert_eq!(
        left,
        json!({"version": 1, "hooks": {
            "afterFileEdit": [{"command": "./hooks/format.sh"}],
            "beforeShellExecution": [{"command": "./hooks/audit.sh", "matcher": "git push"}],
        }})
    );
}

#[test]
fn copilot_registers_exec_and_args_in_its_own_file() {
    let change = assert_idempotent_and_round_trips(AgentKind::Copilot, None);
    assert_eq!(
        change.file,
        PathBuf::from("/home/ada/.copilot/hooks/hookhost.json")
    );
    let handler = json!({
        "type": "command",
        "exec": "/usr/local/bin/hookhost",
        "args": ["bridge", "--agent", "copilot"],
        "timeoutSec": 30
    });
    assert_eq!(
        parse(after(&change)),
        json!({"version": 1, "hooks": {"preToolUse": [handler], "userPromptSubmitted": [handler]}})
    );
    let project = planned(
        &request(Action::Install, AgentKind::Copilot, Scope::Project),
        None,
    );
    assert_eq!(
        project.file,
        PathBuf::from("/work/proj/.github/hooks/hookhost.json")
    );
    let mut elsewhere = install(AgentKind::Copilot);
    elsewhere
        .places
        .set_agent_home("COPILOT_HOME", "/srv/copilot");
    assert_eq!(
        planned(&elsewhere, None).file,
        PathBuf::from("/srv/copilot/hooks/hookhost.json")
    );
    // An older registration through a shell line is recognised and replaced.
    let old = r#"{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"hookhost bridge --agent copilot","timeout":10}]}}"#;
    let updated = planned(&install(AgentKind::Copilot), Some(old));
    assert_eq!(updated.outcome, ChangeKind::Updated);
    assert_eq!(
        parse(after(&updated))["hooks"]["preToolUse"],
        json!([handler])
    );
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
fn codex_install_keeps_comments_and_other_keys_and_round_trips() {
    let change = assert_idempotent_and_round_trips(AgentKind::Codex, Some(CODEX_CONFIG));
    assert_eq!(change.outcome, ChangeKind::Added);
    assert_eq!(change.file, PathBuf::from("/home/ada/.codex/config.toml"));
    let text = after(&change);
    for line in CODEX_CONFIG.lines() {
        assert!(text.contains(line), "lost {line:?}:\n{text}");
    }
    let doc: ::toml::Table = ::toml::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let pre = &doc["hooks"]["PreToolUse"];
    assert_eq!(pre[0]["matcher"].as_str(), Some("Bash"));
    assert_eq!(pre[1]["matcher"].as_str(), Some("*"));
    let handler = &pre[1]["hooks"][0];
    assert_eq!(handler["type"].as_str(), Some("command"));
    assert_eq!(
        handler["command"].as_str(),
        Some("/usr/local/bin/hookhost bridge --agent codex")
    );
    assert_eq!(handler["timeout"].as_integer(), Some(55));
    let prompt = &doc["hooks"]["UserPromptSubmit"][0];
    assert!(prompt.get("matcher").is_none());
    assert_eq!(prompt["hooks"][0]["command"], handler["command"]);
    assert_eq!(doc["mcp_servers"]["docs"]["command"].as_str(), Some("npx"));
}

#[test]
fn codex_new_file_and_project_scope() {
    let change = planned(&install(AgentKind::Codex), None);
    assert_eq!(
        after(&change),
        r#"[[hooks.PreToolUse]]
matcher = "*"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/usr/local/bin/hookhost bridge --agent codex"
timeout = 55

[[hooks.UserPromptSubmit]]

[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "/usr/local/bin/hookhost bridge --agent codex"
timeout = 55
"#
    );
    assert_idempotent_and_round_trips(AgentKind::Codex, None);
    let project = planned(
        &request(Action::Install, AgentKind::Codex, Scope::Project),
        None,
    );
    assert_eq!(project.file, PathBuf::from("/work/proj/.codex/config.toml"));
    let mut elsewhere = install(AgentKind::Codex);
    elsewhere.places.set_agent_home("CODEX_HOME", "/srv/codex");
    assert_eq!(
        planned(&elsewhere, None).file,
        PathBuf::from("/srv/codex/config.toml")
    );
}

#[test]
fn codex_registration_is_updated_in_place_keeping_its_comments() {
    let old = r#"[[hooks.PreToolUse]]
matcher = "*"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/old/hookhost bridge --agent codex" # installed by hookhost
timeout = 600 # seconds
async = true
statusMessage = "checking"

[[hooks.PreToolUse]]
matcher = "apply_patch"
[[hooks.PreToolUse.hooks]]
command = "hookhost bridge --agent codex"
"#;
    let change = planned(&install(AgentKind::Codex), Some(old));
    assert_eq!(change.outcome, ChangeKind::Updated);
    let text = after(&change);
    assert!(
        text.starts_with(
            r#"[[hooks.PreToolUse]]
matcher = "*"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "/usr/local/bin/hookhost bridge --agent codex" # installed by hookhost
timeout = 55 # seconds
statusMessage = "checking"
"#
        ),
        "{text}"
    );
    assert!(
        !text.contains("apply_patch"),
        "the duplicate stays:\n{text}"
    );
    assert_eq!(
        planned(&install(AgentKind::Codex), Some(text)).outcome,
        ChangeKind::AlreadyInstalled
    );
}

#[test]
fn a_broken_codex_config_is_an_error_naming_the_file_and_line() {
    let broken = "model = \"o3\"\n\n[features\nhooks = true\n";
    for action in [Action::Install, Action::Uninstall] {
        let message = plan(
            &request(action, AgentKind::Codex, Scope::User),
            Some(broken),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(
            message.starts_with("/home/ada/.codex/config.toml: malformed TOML at line 3, column"),
            "{message}"
        );
    }
}

#[test]
fn a_codex_event_written_inline_is_refused_with_its_key() {
    let inline = "hooks.PreToolUse = [{ matcher = \"*\", hooks = [{ type = \"command\", command = \"x\" }] }]\n";
    let message = plan(&install(AgentKind::Codex), Some(inline))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.contains("hooks.PreToolUse is not written as [[…]] tables"),
        "{message}"
    );
    // Uninstall has nothing of hookhost's to remove there, so it leaves the file alone.
    let removed = planned(&uninstall(AgentKind::Codex), Some(inline));
    assert_eq!(removed.outcome, ChangeKind::NotInstalled);
}

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

mod files {
    use super::*;
    use std::fs;

    fn places(home: &Path) -> Places {
        Places::new(home, home.join("proj"))
    }

    fn run_request(home: &Path, agent: AgentKind, action: Action) -> Request {
        Request {
            places: places(home),
            ..request(action, agent, Scope::User)
        }
    }

    fn backups(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(folder)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.contains("hookhost-backup"))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    fn tempdir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"))
    }

    fn ok<T>(result: Result<T, InstallError>) -> T {
        result.unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn install_writes_once_with_a_backup_keeping_the_mode_and_is_idempotent() {
        use crate::platform::sys::files;
        let home = tempdir();
        let folder = home.path().join(".claude");
        let file = folder.join("settings.json");
        ok(
            fs::create_dir_all(&folder).map_err(|source| InstallError::Write {
                path: folder.clone(),
                source,
            }),
        );
        let _ = fs::write(&file, CLAUDE_SETTINGS);
        // Private (0600 where files have modes): the backup and the new file keep it.
        if let Ok(opened) = fs::File::open(&file) {
            let _ = files::make_file_private(&opened);
        }
        let private = fs::metadata(&file).map(|m| files::mode_bits(&m)).ok();
        assert!(private.is_some_and(|m| m & 0o077 == 0), "{private:?}");

        let request = run_request(home.path(), AgentKind::ClaudeCode, Action::Install);
        let report = ok(run(&request, false));
        let applied = report.applied.unwrap_or_else(|| panic!("not applied"));
        assert!(applied.written);
        assert_eq!(
            applied.backup,
            Some(folder.join("settings.json.hookhost-backup"))
        );
        assert_eq!(
            fs::read_to_string(folder.join("settings.json.hookhost-backup"))
                .ok()
                .as_deref(),
            Some(CLAUDE_SETTINGS)
        );
        let written = fs::read_to_string(&file).unwrap_or_default();
        assert_eq!(Some(written.as_str()), report.change.after.as_deref());
        let mode = |p: &Path| fs::metadata(p).map(|m| files::mode_bits(&m)).ok();
        assert_eq!(mode(&file), private);
        assert_eq!(mode(&folder.join("settings.json.hookhost-backup")), private);

        // Again: already installed, nothing written, no new backup.
        let again = ok(run(&request, false));
        assert_eq!(again.change.outcome, ChangeKind::AlreadyInstalled);
        assert_eq!(again.applied.map(|a| a.written), Some(false));
        assert_eq!(backups(&folder), ["settings.json.hookhost-backup"]);
        // No temporary file is left behind.
        let entries = fs::read_dir(&folder).map(|e| e.count()).unwrap_or(0);
        assert_eq!(entries, 2);

        // Uninstall: the original text is back, and the one backup now holds the file as
        // it was before the uninstall (one per file: docs/threats.md#r13).
        let installed = fs::read_to_string(&file).unwrap_or_default();
        let removed = ok(run(
            &run_request(home.path(), AgentKind::ClaudeCode, Action::Uninstall),
            false,
        ));
        assert_eq!(removed.change.outcome, ChangeKind::Removed);
        assert_eq!(
            fs::read_to_string(&file).ok().as_deref(),
            Some(CLAUDE_SETTINGS)
        );
        assert_eq!(backups(&folder), ["settings.json.hookhost-backup"]);
        assert_eq!(
            fs::read_to_string(folder.join("settings.json.hookhost-backup")).ok(),
            Some(installed)
        );
        assert_eq!(mode(&folder.join("settings.json.hookhost-backup")), private);
    }

    /// A project's settings are not written through a link the agent put in the project
    /// (docs/threats.md#n9): `proj/.claude -> ~/.claude` would have made `uninstall --scope
    /// project` rewrite (or delete) the user's own settings.
    #[test]
    fn a_link_on_the_way_to_a_projects_settings_is_refused() {
        let home = tempdir();
        let user = home.path().join("user-claude");
        let project = home.path().join("proj");
        let _ = fs::create_dir_all(&user);
        let _ = fs::create_dir_all(&project);
        let _ = fs::write(user.join("settings.json"), CLAUDE_SETTINGS);
        let _ = crate::platform::sys::files::symlink_file(&user, &project.join(".claude"));
        let mut request = run_request(home.path(), AgentKind::ClaudeCode, Action::Install);
        request.scope = Scope::Project;
        request.places.project = project.clone();
        match run(&request, false) {
            Err(e @ InstallError::LinkInProject { .. }) => assert_eq!(
                e.to_string(),
                format!(
                    "{}: {} is a symbolic link, which hookhost does not follow for a project's settings (it could lead the write to the user's own settings); nothing is written: remove the link, or install with --scope user",
                    project.join(".claude/settings.json").display(),
                    project.join(".claude").display()
                )
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            fs::read_to_string(user.join("settings.json"))
                .ok()
                .as_deref(),
            Some(CLAUDE_SETTINGS)
        );
    }

    /// The race of N9 (docs/threats.md#n9): while `install` and `uninstall --scope project`
    /// run, the agent swaps the project's `.claude` folder for a link to the user's own
    /// folder and back, as fast as it can. Each run may fail (a link, a file changed
    /// meanwhile) or write into the project, but the user's settings are never touched.
    #[test]
    fn a_folder_swapped_for_a_link_during_a_project_install_never_leads_the_write_out() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let home = tempdir();
        let user = home.path().join("user-claude");
        let project = home.path().join("proj");
        let _ = fs::create_dir_all(&user);
        let _ = fs::create_dir_all(project.join(".claude"));
        let _ = fs::write(user.join("settings.json"), CLAUDE_SETTINGS);
        let done = AtomicBool::new(false);
        let mut request = run_request(home.path(), AgentKind::ClaudeCode, Action::Install);
        request.scope = Scope::Project;
        request.places.project = project.clone();
        let (mut wrote, mut refused) = (0, 0);
        std::thread::scope(|s| {
            s.spawn(|| {
                let real = project.join(".claude");
                let away = project.join(".claude-away");
                // Each state held a little while, so that a run can meet either, or both.
                let hold = std::time::Duration::from_micros(150);
                while !done.load(Ordering::Relaxed) {
                    if fs::rename(&real, &away).is_ok() {
                        let _ = crate::platform::sys::files::symlink_file(&user, &real);
                        std::thread::sleep(hold);
                        let _ = fs::remove_file(&real);
                        let _ = fs::rename(&away, &real);
                        std::thread::sleep(hold);
                    }
                }
            });
            for round in 0..200 {
                request.action = if round % 2 == 0 {
                    Action::Install
                } else {
                    Action::Uninstall
                };
                match run(&request, false) {
                    Ok(_) => wrote += 1,
                    Err(_) => refused += 1,
                }
            }
            done.store(true, Ordering::Relaxed);
        });
        assert_eq!(
            fs::read_to_string(user.join("settings.json"))
                .ok()
                .as_deref(),
            Some(CLAUDE_SETTINGS),
            "{wrote} runs wrote, {refused} were refused"
        );
        let leftovers: Vec<_> = fs::read_dir(&user)
            .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
        assert!(
            wrote + refused == 200 && wrote > 0,
            "{wrote} wrote, {refused} refused"
        );
    }

    #[test]
    fn a_missing_folder_is_created_and_no_backup_is_made_of_nothing() {
        let home = tempdir();
        let request = run_request(home.path(), AgentKind::Copilot, Action::Install);
        let report = ok(run(&request, false));
        let file = home.path().join(".copilot/hooks/hookhost.json");
        assert_eq!(fs::read_to_string(&file).ok(), report.change.after);
        assert_eq!(report.applied.and_then(|a| a.backup), None);
        // Uninstall removes hookhost's own file, keeping a backup of it.
        let removed = ok(run(
            &run_request(home.path(), AgentKind::Copilot, Action::Uninstall),
            false,
        ));
        assert_eq!(removed.applied.map(|a| a.removed), Some(true));
        assert!(!file.exists());
        assert_eq!(
            backups(&home.path().join(".copilot/hooks")),
            ["hookhost.json.hookhost-backup"]
        );
    }

    #[test]
    fn a_dry_run_writes_nothing() {
        let home = tempdir();
        let request = run_request(home.path(), AgentKind::Codex, Action::Install);
        let report = ok(run(&request, true));
        assert!(report.applied.is_none());
        assert!(report.change.changes_anything());
        assert!(report.change.diff().starts_with("--- /dev/null\n+++ "));
        assert!(
            report
                .change
                .preview()
                .starts_with("Dry run: nothing is written. ")
        );
        assert_eq!(fs::read_dir(home.path()).map(|e| e.count()).unwrap_or(9), 0);
    }

    #[test]
    fn a_broken_file_is_left_untouched() {
        let home = tempdir();
        let folder = home.path().join(".codex");
        let _ = fs::create_dir_all(&folder);
        let broken = "[hooks\n";
        let _ = fs::write(folder.join("config.toml"), broken);
        let err = run(
            &run_request(home.path(), AgentKind::Codex, Action::Install),
            false,
        )
        .err();
        assert!(
            matches!(err, Some(InstallError::Malformed { line: 1, .. })),
            "{err:?}"
        );
        assert_eq!(
            fs::read_to_string(folder.join("config.toml"))
                .ok()
                .as_deref(),
            Some(broken)
        );
        assert!(backups(&folder).is_empty());
    }

    #[test]
    fn a_symlinked_settings_file_is_written_through() {
        let home = tempdir();
        let dotfiles = home.path().join("dotfiles");
        let _ = fs::create_dir_all(&dotfiles);
        let _ = fs::create_dir_all(home.path().join(".gemini"));
        let target = dotfiles.join("gemini.json");
        let _ = fs::write(&target, GEMINI_SETTINGS);
        let link = home.path().join(".gemini/settings.json");
        let _ = crate::platform::sys::files::symlink_file(&target, &link);
        let report = ok(run(
            &run_request(home.path(), AgentKind::Gemini, Action::Install),
            false,
        ));
        assert!(fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(fs::read_to_string(&target).ok(), report.change.after);
        assert!(dotfiles.join("gemini.json.hookhost-backup").exists());
    }

    #[test]
    fn a_file_changed_after_planning_is_not_overwritten() {
        let home = tempdir();
        let request = run_request(home.path(), AgentKind::Cursor, Action::Install);
        let change = ok(plan(&request, None));
        let _ = fs::create_dir_all(home.path().join(".cursor"));
        let _ = fs::write(&change.file, "{}\n");
        let err = apply(&change).err();
        assert!(
            matches!(err, Some(InstallError::ChangedMeanwhile { .. })),
            "{err:?}"
        );
        assert_eq!(
            fs::read_to_string(&change.file).ok().as_deref(),
            Some("{}\n")
        );
    }
}

/// Codex's hook trust (real_agents R6): `install` trusts hookhost's own handlers in the
/// user's config.toml, as Codex computes the trust.
mod codex_trust {
    use super::*;
    use crate::bridge::install::codex_trust::{
        HookIdentity, Review, review, trust_key, trusted_hash,
    };

    const USER_CONFIG: &str = "/home/ada/.codex/config.toml";
    const COMMAND: &str = "/usr/local/bin/hookhost bridge --agent codex";
    /// Codex CLI 0.171.0's `currentHash` (`codex app-server`, `hooks/list`) of hookhost's
    /// handlers as `install` writes them (timeout 55).
    const PRE_TOOL_USE_HASH: &str =
        "sha256:76e2a65c8969398fdac0058731e10b280028774494c7d2adc3c800d1b449868d";
    const USER_PROMPT_SUBMIT_HASH: &str =
        "sha256:2e8fd6f3269e6f78bebf84f3cac8e5ad1ee7393182791e06fcec76d0d98fb7f8";

    fn identity<'a>(
        event: &'a str,
        matcher: Option<&'a str>,
        command: &'a str,
    ) -> HookIdentity<'a> {
        HookIdentity {
            event,
            matcher,
            command,
            timeout: Some(55),
            run_async: false,
            status_message: None,
            additional_context_limit: None,
        }
    }

    /// Edits `text` as `install`/`uninstall codex` does when the file is the user's own.
    fn edited(action: Action, text: Option<&str>, options: &Options) -> Edited {
        let path = Path::new(USER_CONFIG);
        let registration =
            Registration::new(AgentKind::Codex, Path::new(HOOKHOST), options).unwrap();
        let ours = Ours {
            binary: Path::new(HOOKHOST),
        };
        let settings = &AgentKind::Codex.declaration().settings;
        let crate::bridge::Shape::NestedToml(handler) = settings.shape else {
            panic!("Codex's settings are nested TOML");
        };
        let edit = Edit {
            path,
            existing: text,
            settings,
            registration: &registration,
            action,
            ours: &ours,
            lock_down: &[],
        };
        let edit = toml::edit_with(&edit, handler, Some(path));
        edit.unwrap_or_else(|e| panic!("edit failed: {e}"))
    }

    fn installed(text: Option<&str>) -> String {
        edited(Action::Install, text, &Options::default())
            .text
            .unwrap_or_default()
    }

    fn key(event: &str, group: usize, handler: usize) -> String {
        trust_key(Path::new(USER_CONFIG), event, group, handler)
    }

    /// The trust entries of a config: key and `trusted_hash`, in key order.
    fn trust(text: &str) -> Vec<(String, Option<String>)> {
        let mut entries: Vec<_> = toml::hook_states(text)
            .into_iter()
            .map(|(k, _, h)| (k, h))
            .collect();
        entries.sort();
        entries
    }

    #[test]
    fn the_hash_is_the_one_codex_0_171_0_computes() {
        // Each vector is what Codex CLI 0.171.0 reported for the handler.
        let pre = identity("PreToolUse", Some("*"), COMMAND);
        assert_eq!(trusted_hash(&pre), PRE_TOOL_USE_HASH);
        let prompt = identity("UserPromptSubmit", None, COMMAND);
        assert_eq!(trusted_hash(&prompt), USER_PROMPT_SUBMIT_HASH);
        // UserPromptSubmit takes no matcher: Codex leaves one out of the hash.
        let matched = identity("UserPromptSubmit", Some("Bash"), COMMAND);
        assert_eq!(trusted_hash(&matched), USER_PROMPT_SUBMIT_HASH);
        let cases = [
            (
                HookIdentity {
                    status_message: Some("checking"),
                    ..identity("PreToolUse", Some(""), COMMAND)
                },
                "sha256:f1e0fabda5bcdfb52b71def6a34ef83397814b833639610f19f0456f7d6ef8ef",
            ),
            (
                HookIdentity {
                    additional_context_limit: Some(100),
                    ..identity("PreToolUse", Some(""), COMMAND)
                },
                "sha256:03604c9e64491d80c2c072d68f3ec7bf9063f5ed911f8e5a32d84b9d4d9c7930",
            ),
            // A timeout of 0 counts as 1, none as 600; no matcher is not an empty one.
            (
                HookIdentity {
                    timeout: Some(0),
                    ..identity("PreToolUse", None, COMMAND)
                },
                "sha256:3e832ee882912e88bb458fbc03884d2a4da146d2b41d0d65fb13e8e9264a470c",
            ),
            (
                HookIdentity {
                    timeout: None,
                    ..identity("PreToolUse", None, COMMAND)
                },
                "sha256:ec6047f8ced426c2aa36178208a72e44f9572f58b9d3232ac44329d488f6138a",
            ),
            // Quotes, a backslash, a tab and non-ASCII, escaped as serde_json does.
            (
                HookIdentity {
                    timeout: Some(45),
                    run_async: true,
                    ..identity(
                        "PreToolUse",
                        Some("^(Bash|apply_patch)$"),
                        "'/opt/my hooks/hookhost' bridge --agent codex # é \"q\" \\ \t ☃",
                    )
                },
                "sha256:ca51aa1316ad6920dd4e5f5a680495310a058e6de2eadf2599fa82b46ab77451",
            ),
        ];
        for (identity, hash) in cases {
            assert_eq!(trusted_hash(&identity), hash, "{identity:?}");
        }
        assert_eq!(
            key("UserPromptSubmit", 2, 1),
            "/home/ada/.codex/config.toml:user_prompt_submit:2:1"
        );
    }

    #[test]
    fn the_hash_is_read_from_the_handler_as_it_sits_in_the_file() {
        // The file Codex 0.171.0 hashed for the vectors above, keyed as Codex keyed it.
        let text = format!(
            r#"[[hooks.PreToolUse]]
matcher = ""

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55
statusMessage = "checking"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55
additionalContextLimit = 100
async = false

[[hooks.PreToolUse]]

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
commandWindows = "other"
timeout = 0

[[hooks.UserPromptSubmit]]
matcher = "Bash"

[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55

[hooks.state."{USER_CONFIG}:pre_tool_use:0:0"]
trusted_hash = "sha256:f1e0fabda5bcdfb52b71def6a34ef83397814b833639610f19f0456f7d6ef8ef"

[hooks.state."{USER_CONFIG}:pre_tool_use:0:1"]
trusted_hash = "sha256:03604c9e64491d80c2c072d68f3ec7bf9063f5ed911f8e5a32d84b9d4d9c7930"
enabled = false

[hooks.state."{USER_CONFIG}:pre_tool_use:1:0"]
trusted_hash = "sha256:76e2a65c8969398fdac0058731e10b280028774494c7d2adc3c800d1b449868d"
"#
        );
        let files = [PathBuf::from(USER_CONFIG)];
        let reviews: Vec<(String, Review)> =
            review(&text, &files, Some(&text), Path::new(HOOKHOST))
                .into_iter()
                .map(|r| (r.key, r.review))
                .collect();
        assert_eq!(
            reviews,
            vec![
                (key("PreToolUse", 0, 0), Review::Trusted),
                (key("PreToolUse", 0, 1), Review::Disabled),
                (key("PreToolUse", 1, 0), Review::Modified),
                (key("UserPromptSubmit", 0, 0), Review::Untrusted),
            ]
        );
    }

    #[test]
    fn install_trusts_its_own_handlers_and_uninstall_takes_the_trust_away() {
        let text = installed(None);
        assert_eq!(
            text,
            format!(
                r#"[[hooks.PreToolUse]]
matcher = "*"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55

[[hooks.UserPromptSubmit]]

[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55

[hooks.state."{USER_CONFIG}:pre_tool_use:0:0"]
trusted_hash = "{PRE_TOOL_USE_HASH}"

[hooks.state."{USER_CONFIG}:user_prompt_submit:0:0"]
trusted_hash = "{USER_PROMPT_SUBMIT_HASH}"
"#
            )
        );
        // Idempotent: a second install changes nothing.
        let again = edited(Action::Install, Some(&text), &Options::default());
        assert!(!again.changed, "{:?}", again.text);
        // Uninstall leaves nothing: the file goes.
        let removed = edited(Action::Uninstall, Some(&text), &Options::default());
        assert!(removed.found && removed.changed);
        assert_eq!(removed.text, None);

        // In a file of the user's: hookhost's group comes after theirs (1:0), and uninstall
        // gives the file back byte for byte.
        let text = installed(Some(CODEX_CONFIG));
        assert_eq!(
            trust(&text),
            vec![
                (key("PreToolUse", 1, 0), Some(PRE_TOOL_USE_HASH.into())),
                (
                    key("UserPromptSubmit", 0, 0),
                    Some(USER_PROMPT_SUBMIT_HASH.into())
                ),
            ]
        );
        assert!(!edited(Action::Install, Some(&text), &Options::default()).changed);
        let removed = edited(Action::Uninstall, Some(&text), &Options::default());
        assert_eq!(removed.text.as_deref(), Some(CODEX_CONFIG));
    }

    #[test]
    fn the_trust_follows_a_new_budget_and_a_trust_codex_wrote_is_kept() {
        let text = installed(None);
        let budget = Options {
            budget_ms: Some(40_000),
            ..Options::default()
        };
        let changed = edited(Action::Install, Some(&text), &budget);
        let changed = changed.text.unwrap_or_default();
        let command = format!("{COMMAND} --budget-ms 40000");
        let hash = |event, matcher| {
            trusted_hash(&HookIdentity {
                timeout: Some(45),
                ..identity(event, matcher, &command)
            })
        };
        assert_eq!(
            trust(&changed),
            vec![
                (key("PreToolUse", 0, 0), Some(hash("PreToolUse", Some("*")))),
                (
                    key("UserPromptSubmit", 0, 0),
                    Some(hash("UserPromptSubmit", None))
                ),
            ]
        );
        assert!(!edited(Action::Install, Some(&changed), &budget).changed);
        // Back to the default budget: the old hashes again, in place.
        assert_eq!(installed(Some(&changed)), text);

        // The same trust written by Codex's /hooks (its own layout, a comment) is left as
        // it is; a switched-off handler is switched back on.
        let by_codex = text.replace(
            &format!("trusted_hash = \"{PRE_TOOL_USE_HASH}\"\n"),
            &format!("enabled = false\ntrusted_hash = \"{PRE_TOOL_USE_HASH}\" # by /hooks\n"),
        );
        let fixed = installed(Some(&by_codex));
        assert_eq!(fixed, by_codex.replace("enabled = false\n", ""));
        assert!(!edited(Action::Install, Some(&fixed), &Options::default()).changed);
    }

    #[test]
    fn a_hash_codex_wrote_for_hookhosts_handler_is_left_alone() {
        // The user trusted hookhost's handler in /hooks with a Codex that hashes otherwise:
        // install keeps that (no fight with Codex), though doctor's 0.171.0 hash differs.
        let text = installed(None).replace(PRE_TOOL_USE_HASH, "sha256:by-a-later-codex");
        let again = edited(Action::Install, Some(&text), &Options::default());
        assert!(!again.changed, "{:?}", again.text);
        let files = [PathBuf::from(USER_CONFIG)];
        let reviews = review(&text, &files, Some(&text), Path::new(HOOKHOST));
        assert_eq!(reviews[0].review, Review::Modified);
        // Where hookhost's handler was not before, such a hash was another handler's (one
        // removed since): replaced.
        let orphan = format!(
            "[hooks.state.\"{USER_CONFIG}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:a-removed-hook\"\n"
        );
        let fixed = installed(Some(&orphan));
        assert!(fixed.contains(PRE_TOOL_USE_HASH), "{fixed}");
        assert!(!fixed.contains("a-removed-hook"), "{fixed}");
        // Uninstall takes it away all the same.
        let removed = edited(Action::Uninstall, Some(&text), &Options::default());
        assert_eq!(removed.text, None);
    }

    #[test]
    fn the_users_trust_follows_their_hooks_when_hookhosts_go() {
        // hookhost's group first (0), the user's after it (1), each trusted; and an old
        // hookhost handler beside the user's, with a trust of its own.
        let theirs = "sha256:theirs";
        let text = format!(
            r#"[[hooks.PreToolUse]]
matcher = "*"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{COMMAND}"
timeout = 55

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/old/hookhost bridge --agent codex"
timeout = 600

[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 ~/.codex/hooks/guard.py"

[hooks.state."{USER_CONFIG}:pre_tool_use:0:0"]
trusted_hash = "{PRE_TOOL_USE_HASH}"

[hooks.state."{USER_CONFIG}:pre_tool_use:1:0"]
trusted_hash = "{old}"

[hooks.state."{USER_CONFIG}:pre_tool_use:1:1"]
trusted_hash = "{theirs}"

[hooks.state."/elsewhere/config.toml:pre_tool_use:0:0"]
trusted_hash = "{PRE_TOOL_USE_HASH}"
"#,
            old = trusted_hash(&HookIdentity {
                timeout: Some(600),
                ..identity(
                    "PreToolUse",
                    Some("Bash"),
                    "/opt/old/hookhost bridge --agent codex"
                )
            }),
        );
        let elsewhere = (
            "/elsewhere/config.toml:pre_tool_use:0:0".to_string(),
            Some(PRE_TOOL_USE_HASH.to_string()),
        );
        // Install folds the old handler away: the user's moves from 1:1 to 1:0.
        let folded = installed(Some(&text));
        assert_eq!(
            trust(&folded),
            vec![
                elsewhere.clone(),
                (key("PreToolUse", 0, 0), Some(PRE_TOOL_USE_HASH.into())),
                (key("PreToolUse", 1, 0), Some(theirs.into())),
                (
                    key("UserPromptSubmit", 0, 0),
                    Some(USER_PROMPT_SUBMIT_HASH.into())
                ),
            ]
        );
        // Uninstall removes hookhost's group: the user's is now 0:0, and so is its trust.
        let removed = edited(Action::Uninstall, Some(&text), &Options::default());
        let removed = removed.text.unwrap_or_default();
        assert_eq!(
            trust(&removed),
            vec![elsewhere, (key("PreToolUse", 0, 0), Some(theirs.into()))]
        );
        assert!(removed.contains("guard.py") && !removed.contains("hookhost"));
    }

    #[test]
    fn install_trusts_only_in_the_users_own_config_and_says_so() {
        let env = crate::env::Environment::of_process();
        let Some(home) = env.home() else {
            return;
        };
        let mut request = install(AgentKind::Codex);
        request.places =
            Places::from_environment(home, "/work/proj", |name| env.get(name).map(Into::into));
        // Planned only: nothing is read or written.
        let user = planned(&request, None);
        assert!(after(&user).contains("trusted_hash"), "{}", after(&user));
        let notes = user.notes(&Options::default());
        assert!(
            notes.contains(&crate::bridge::install::codex_trust::TRUSTED_NOTE),
            "{notes:?}"
        );
        // A project's config: Codex reads no trust there, so none is written, and the user
        // is told what to do.
        request.scope = Scope::Project;
        let project = planned(&request, None);
        assert!(!after(&project).contains("trusted_hash"));
        let notes = project.notes(&Options::default());
        assert!(
            notes.contains(&crate::bridge::install::codex_trust::REVIEW_NOTE),
            "{notes:?}"
        );
        assert!(crate::bridge::install::codex_trust::REVIEW_NOTE.contains("type /hooks"));
    }
}

/// `install kimi-code` says which of the two Kimi CLIs it covered (docs/threats.md#r9):
/// Kimi Code in its own folder, the Python Kimi CLI when `$KIMI_CODE_HOME` is `~/.kimi`.
#[test]
fn kimi_install_says_which_kimi_it_covers() {
    use crate::bridge::kimi::{KIMI_CLI_NOTE, KIMI_CODE_NOTE};
    let mut request = install(AgentKind::Kimi);
    let change = planned(&request, None);
    let notes = change.notes(&request.options);
    assert!(notes.contains(&KIMI_CODE_NOTE), "{notes:?}");
    request
        .places
        .set_agent_home("KIMI_CODE_HOME", "/home/ada/.kimi");
    let change = planned(&request, None);
    assert_eq!(change.file, Path::new("/home/ada/.kimi/config.toml"));
    let notes = change.notes(&request.options);
    assert!(notes.contains(&KIMI_CLI_NOTE), "{notes:?}");
    assert!(!notes.contains(&KIMI_CODE_NOTE), "{notes:?}");
}
