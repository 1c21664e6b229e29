//! The JSON agents' settings files (Claude Code, Gemini CLI, Cursor, Copilot), and the
//! registration itself as it is written there: budget, timeout, binary path, an older or
//! narrowed registration.

use super::*;

/// The agents whose settings are JSON files with nested hook groups or a flat list.
const JSON_AGENTS: [AgentKind; 4] = [
    AgentKind::ClaudeCode,
    AgentKind::Cursor,
    AgentKind::Copilot,
    AgentKind::Gemini,
];

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
    for agent in JSON_AGENTS {
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

#[test]
fn a_warm_choice_reaches_the_bridge_after_the_budget() {
    let options = |warm: Option<WarmSocket>| Options {
        budget_ms: Some(90_000),
        warm,
        ..Options::default()
    };
    let registration = |warm| {
        Registration::new(AgentKind::Gemini, Path::new(HOOKHOST), &options(warm))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    // None: the bridge never hands a call over.
    let plain = registration(None);
    assert_eq!(
        plain.args,
        ["bridge", "--agent", "gemini", "--budget-ms", "90000"]
    );
    let default = registration(Some(WarmSocket::Default));
    assert_eq!(
        default.args,
        [
            "bridge",
            "--agent",
            "gemini",
            "--budget-ms",
            "90000",
            "--warm"
        ]
    );
    assert_eq!(
        default.command_line,
        "/usr/local/bin/hookhost-client bridge --agent gemini --budget-ms 90000 --warm"
    );
    // The program is `hookhost-client`, beside hookhost; without the choice, hookhost.
    assert_eq!(default.program, Path::new("/usr/local/bin/hookhost-client"));
    assert_eq!(plain.program, Path::new(HOOKHOST));
    let at = registration(Some(WarmSocket::At("/run/my sockets/w.sock".into())));
    assert_eq!(
        at.args,
        [
            "bridge",
            "--agent",
            "gemini",
            "--budget-ms",
            "90000",
            "--warm-socket",
            "/run/my sockets/w.sock"
        ]
    );
    assert_eq!(
        at.command_line,
        "/usr/local/bin/hookhost-client bridge --agent gemini --budget-ms 90000 --warm-socket '/run/my sockets/w.sock'"
    );
    // Written into the settings, as every other argument is.
    let mut request = install(AgentKind::Gemini);
    request.options.warm = Some(WarmSocket::Default);
    let change = planned(&request, None);
    let new = parse(after(&change));
    assert_eq!(
        new["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
        "/usr/local/bin/hookhost-client bridge --agent gemini --warm"
    );
    // Installing again without it takes it away: the client's handler is recognised as
    // hookhost's own and replaced, not left beside the new one.
    let back = planned(&install(AgentKind::Gemini), change.after.as_deref());
    assert_eq!(back.outcome, ChangeKind::Updated);
    assert!(!after(&back).contains("--warm"));
    assert!(!after(&back).contains("hookhost-client"));
    let again = parse(after(&back));
    assert_eq!(
        again["hooks"]["BeforeTool"][0]["hooks"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

#[test]
fn a_warm_socket_must_be_absolute_and_never_with_the_system_mode() {
    let relative = Options {
        warm: Some(WarmSocket::At("w.sock".into())),
        ..Options::default()
    };
    let refused = Registration::new(AgentKind::ClaudeCode, Path::new(HOOKHOST), &relative)
        .map(|r| r.args)
        .unwrap_err();
    assert!(matches!(refused, InstallError::WarmSocketNotAbsolute(_)));
    assert!(
        refused.to_string().starts_with("--warm-socket w.sock:"),
        "{refused}"
    );
    let temp = Options {
        warm: Some(WarmSocket::At("/tmp/hh/w.sock".into())),
        ..Options::default()
    };
    let refused = Registration::new(AgentKind::ClaudeCode, Path::new(HOOKHOST), &temp)
        .map(|r| r.args)
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .starts_with("--warm-socket /tmp/hh/w.sock: it lies in /tmp, where"),
        "{refused}"
    );
    for warm in [WarmSocket::Default, WarmSocket::At("/run/w.sock".into())] {
        let flag = warm.flag();
        let system = Options {
            warm: Some(warm),
            system: true,
            ..Options::default()
        };
        let refused = Registration::new(AgentKind::ClaudeCode, Path::new(HOOKHOST), &system)
            .map(|r| r.args)
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with(&format!("{flag} cannot be used with --scope system")),
            "{refused}"
        );
    }
}

/// A file whose own indentation would write it back into terabytes (docs/threats.md#b4):
/// planned, on every call, for a project's unpinned registration. The plan stops at its
/// bound, names the file and leaves it; a file indented as people do still plans.
#[test]
fn a_file_that_would_be_written_back_into_terabytes_is_refused_at_its_bound() {
    let zeros = vec!["0"; 200_000].join(",");
    let bomb = format!("{{\n{}\"x\": [{zeros}]\n}}\n", " ".repeat(1 << 20));
    for agent in JSON_AGENTS {
        for action in [Action::Install, Action::Uninstall] {
            let request = request(action, agent, Scope::Project);
            match plan(&request, Some(&bomb)) {
                Err(e @ InstallError::TooLargeRewritten { indent, .. }) => {
                    assert_eq!(indent, 1 << 20);
                    let file = settings_file(agent, Scope::Project, &request.places).unwrap();
                    let message = e.to_string();
                    assert!(
                        message.starts_with(&format!(
                            "{}: written back in its own style (1048576 characters of indentation a level) it would be over 16 MiB, more than hookhost reads of a settings file",
                            file.display()
                        )),
                        "{message}"
                    );
                    assert!(
                        message.contains("hookhost leaves it untouched"),
                        "{message}"
                    );
                }
                other => panic!("{agent:?} {action:?}: {other:?}"),
            }
        }
        // The same array indented with two spaces plans as before.
        let tame = format!("{{\n  \"x\": [{zeros}]\n}}\n");
        let change = planned(&install(agent), Some(&tame));
        assert_eq!(
            parse(after(&change))["x"].as_array().map(Vec::len),
            Some(200_000)
        );
    }
}
