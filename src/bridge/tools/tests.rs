//! The tool tables: every row, every agent's package list, the docs.
use super::*;
use AgentKind::ClaudeCode;
use serde_json::json;

/// `map_call` of a call with no MCP hint and no id, which maps.
fn call_of(agent: AgentKind, event: &str, tool: &str, input: Value, cwd: Option<&str>) -> ToolCall {
    map_call(agent, event, tool, input, McpHint::default(), cwd, None).unwrap()
}

/// The whole name table, one line per case: agent, agent's name, Claude Code's name,
/// hookhost's name.
#[test]
fn the_name_table() {
    let none = McpHint::default();
    let cases: &[(AgentKind, &str, &str, Option<&str>)] = &[
        (ClaudeCode, "Bash", "Bash", Some("bash")),
        (ClaudeCode, "PowerShell", "PowerShell", Some("bash")),
        (ClaudeCode, "Read", "Read", Some("read_file")),
        (ClaudeCode, "Write", "Write", Some("write_file")),
        (ClaudeCode, "Edit", "Edit", Some("edit_file")),
        (ClaudeCode, "MultiEdit", "MultiEdit", Some("edit_file")),
        (ClaudeCode, "Glob", "Glob", Some("glob")),
        (ClaudeCode, "Grep", "Grep", Some("search")),
        (ClaudeCode, "Agent", "Agent", Some("agent")),
        (ClaudeCode, "Task", "Task", Some("agent")),
        (ClaudeCode, "WebFetch", "WebFetch", None),
        (ClaudeCode, "WebSearch", "WebSearch", None),
        (ClaudeCode, "ExitPlanMode", "ExitPlanMode", None),
        (
            ClaudeCode,
            "mcp__github__create_issue",
            "mcp__github__create_issue",
            Some("mcp"),
        ),
        (Codex, "Bash", "Bash", Some("bash")),
        (Codex, "apply_patch", "apply_patch", Some("edit_file")),
        (Codex, "spawn_agent", "Agent", Some("agent")),
        (Codex, "mcp__fs__read", "mcp__fs__read", Some("mcp")),
        (Gemini, "run_shell_command", "Bash", Some("bash")),
        (Gemini, "write_file", "Write", Some("write_file")),
        (Gemini, "replace", "Edit", Some("edit_file")),
        (Gemini, "read_file", "Read", Some("read_file")),
        (Gemini, "read_many_files", "read_many_files", None),
        (Gemini, "glob", "Glob", Some("glob")),
        (Gemini, "grep_search", "Grep", Some("search")),
        (Gemini, "search_file_content", "Grep", Some("search")),
        (Gemini, "web_fetch", "WebFetch", None),
        (Gemini, "google_web_search", "WebSearch", None),
        (Gemini, "invoke_agent", "Agent", Some("agent")),
        (
            Gemini,
            "mcp_github_create_issue",
            "mcp__github__create_issue",
            Some("mcp"),
        ),
        (Cursor, "Shell", "Bash", Some("bash")),
        (Cursor, "Read", "Read", Some("read_file")),
        (Cursor, "Write", "Write", Some("write_file")),
        (Cursor, "Grep", "Grep", Some("search")),
        (Cursor, "Task", "Agent", Some("agent")),
        (Cursor, "Delete", "Delete", None),
        (
            Cursor,
            "MCP:create_issue",
            "mcp__unknown__create_issue",
            Some("mcp"),
        ),
        (Copilot, "bash", "Bash", Some("bash")),
        (Copilot, "powershell", "Bash", Some("bash")),
        (Copilot, "view", "Read", Some("read_file")),
        (Copilot, "create", "Write", Some("write_file")),
        (Copilot, "edit", "Edit", Some("edit_file")),
        (Copilot, "str_replace_editor", "Edit", Some("edit_file")),
        (Copilot, "apply_patch", "apply_patch", Some("edit_file")),
        (Copilot, "write_bash", "Bash", Some("bash")),
        (Copilot, "write_powershell", "Bash", Some("bash")),
        (Copilot, "grep", "Grep", Some("search")),
        (Copilot, "rg", "Grep", Some("search")),
        (Copilot, "glob", "Glob", Some("glob")),
        (Copilot, "web_fetch", "WebFetch", None),
        (Copilot, "update_todo", "TodoWrite", None),
        (Copilot, "task", "Agent", Some("agent")),
        (Copilot, "Task", "Agent", Some("agent")),
    ];
    for (agent, name, claude, hookhost) in cases {
        let mapped = claude_name(*agent, name, none);
        assert_eq!(mapped, *claude, "{agent:?} {name}");
        assert_eq!(hookhost_name(&mapped), *hookhost, "{agent:?} {name}");
    }
}

#[test]
fn every_row_maps_to_a_claude_name_the_hookhost_table_knows_or_says_it_has_none() {
    for row in TOOL_NAMES {
        assert_ne!(
            naming(row.agent, row.agent_name),
            Naming::Unknown,
            "{row:?}"
        );
    }
    // An entry never contradicts a name: what it lists has no hookhost name.
    for entry in UNMAPPED {
        for name in entry.names {
            assert!(
                hookhost_name(&claude_name(entry.agent, name, McpHint::default())).is_none(),
                "{:?} {name} is both named and unmapped",
                entry.agent
            );
        }
    }
    for (_, hookhost) in HOOKHOST_NAMES {
        assert!(crate::config::KNOWN_TOOLS.contains(hookhost), "{hookhost}");
    }
}

/// Every tool each agent's own package offers its model (tests/data/agent_tools.toml,
/// scripts/agent-tools.sh) has a hookhost name or a documented reason for none.
#[test]
fn every_tool_an_agent_offers_is_named_or_unmapped() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/agent_tools.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let mut unknown = Vec::new();
    for agent in AgentKind::ALL {
        let section = table
            .get(agent.flag_name())
            .and_then(toml::Value::as_table)
            .unwrap_or_else(|| panic!("{} has no [{}]", file.display(), agent.flag_name()));
        for key in ["version", "package", "source"] {
            assert!(
                section.get(key).and_then(toml::Value::as_str).is_some(),
                "[{}] {key}",
                agent.flag_name()
            );
        }
        let tools = section["tools"].as_array().unwrap();
        assert!(!tools.is_empty(), "[{}]", agent.flag_name());
        for tool in tools {
            let tool = tool.as_str().unwrap();
            if naming(agent, tool) == Naming::Unknown {
                unknown.push(format!("{}: {tool}", agent.display_name()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "no hookhost name and no UNMAPPED entry: {unknown:#?}"
    );
}

#[test]
fn tools_hookhost_cannot_name_are_marked_with_their_agent() {
    assert_eq!(naming(Gemini, "run_shell_command"), Naming::Named("bash"));
    assert_eq!(naming(ClaudeCode, "Monitor"), Naming::Named("bash"));
    assert_eq!(naming(Qwen, "monitor"), Naming::Named("bash"));
    assert_eq!(naming(Codex, "view_image"), Naming::Named("read_file"));
    assert_eq!(naming(Kimi, "ReadMediaFile"), Naming::Named("read_file"));
    assert!(matches!(
        naming(Gemini, "list_directory"),
        Naming::Unmapped(_)
    ));
    // Claude Code's reason holds for an agent's tool mapped to its name.
    assert!(matches!(naming(Gemini, "web_fetch"), Naming::Unmapped(_)));
    assert!(matches!(naming(Kimi, "WebSearch"), Naming::Unmapped(_)));
    // MCP tools are `mcp` in each agent's spelling.
    assert_eq!(
        naming(Gemini, "mcp_github_create_issue"),
        Naming::Named("mcp")
    );
    assert_eq!(
        naming(Qwen, "mcp__github__create_issue"),
        Naming::Named("mcp")
    );
    assert_eq!(naming(Kiro, "@github/create_issue"), Naming::Named("mcp"));
    assert_eq!(naming(Gemini, "discovered_tool_deploy"), Naming::Unknown);
    assert_eq!(naming(Gemini, "tracker_frob"), Naming::Unknown);

    let call = |agent, tool: &str| call_of(agent, "PreToolUse", tool, json!({}), Some("/p"));
    assert_eq!(
        call(Gemini, "tracker_frob").unknown_to.as_deref(),
        Some("Gemini CLI")
    );
    assert_eq!(call(Gemini, "list_directory").unknown_to, None);
    assert_eq!(call(Gemini, "run_shell_command").unknown_to, None);
    assert_eq!(
        call(ClaudeCode, "NewTool").unknown_to.as_deref(),
        Some("Claude Code")
    );
    let view = call_of(
        Codex,
        "PreToolUse",
        "view_image",
        json!({"path": "a.png"}),
        Some("/p"),
    );
    assert_eq!(
        (view.tool.as_str(), view.tool_input),
        ("Read", json!({"file_path": "/p/a.png"}))
    );
}

/// docs/agents.md#tools-with-no-hookhost-name gives every entry's tools and reason.
#[test]
fn every_unmapped_tool_is_documented() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents.md"),
    )
    .unwrap();
    let section = docs
        .split("## Tools with no hookhost name")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap();
    for entry in UNMAPPED {
        let names: Vec<String> = entry.names.iter().map(|n| format!("`{n}`")).collect();
        let line = format!("- {}: {}.", names.join(", "), entry.reason);
        assert!(section.contains(&line), "docs/agents.md lacks {line}");
    }
}

#[test]
fn one_line_per_agent_names_its_unmapped_tools() {
    let lines = unmapped_lines();
    assert_eq!(lines.len(), AgentKind::ALL.len());
    assert!(
        lines[2].starts_with("Gemini CLI: no hookhost name for read_many_files, list_directory, "),
        "{}",
        lines[2]
    );
    assert!(lines[2].contains(", web_fetch, google_web_search, ask_user, write_todos, exit_plan_mode, enter_plan_mode (a hook with tools = [...] does not run for them; docs/agents.md#tools-with-no-hookhost-name)"), "{}", lines[2]);
}

#[test]
fn gemini_mcp_context_names_a_server_with_underscores() {
    let hint = McpHint {
        server: Some("my_server"),
        tool: Some("do_it"),
    };
    assert_eq!(
        claude_name(Gemini, "mcp_my_server_do_it", hint),
        "mcp__my_server__do_it"
    );
    assert_eq!(
        claude_name(Gemini, "mcp_my_server_do_it", McpHint::default()),
        "mcp__my__server_do_it"
    );
}

#[test]
fn fields_are_renamed_and_file_paths_made_absolute() {
    let call = call_of(
        Copilot,
        "PreToolUse",
        "str_replace_editor",
        json!({"command": "str_replace", "path": "src/a.rs", "old_str": "a", "new_str": "b"}),
        Some("/home/u/p"),
    );
    assert_eq!(call.tool, "Edit");
    assert_eq!(call.hookhost_tool, Some("edit_file"));
    assert_eq!(
        call.tool_input,
        json!({"command": "str_replace", "file_path": "/home/u/p/src/a.rs", "old_string": "a", "new_string": "b"})
    );
    let call = call_of(
        Gemini,
        "PreToolUse",
        "replace",
        json!({"file_path": "/p/a", "old_string": "x", "new_string": "y", "allow_multiple": true, "replace_all": false}),
        Some("/p"),
    );
    // The agent's own field is what its tool reads: one of Claude Code's name beside it
    // (a model can add any field) gives way, so hooks judge what runs.
    assert_eq!(
        call.tool_input,
        json!({"file_path": "/p/a", "old_string": "x", "new_string": "y", "replace_all": true})
    );
    let call = call_of(
        AgentKind::Copilot,
        "PreToolUse",
        "write_bash",
        json!({"shellId": "1", "input": "git push -f\n", "command": "git status"}),
        Some("/p"),
    );
    assert_eq!(call.tool_input["command"], "git push -f\n");
}

#[test]
fn hookhost_names_back_to_claude() {
    assert_eq!(claude_name_of_hookhost("bash"), Some("Bash"));
    assert_eq!(claude_name_of_hookhost("edit_file"), Some("Edit"));
    assert_eq!(claude_name_of_hookhost("search"), Some("Grep"));
    assert_eq!(claude_name_of_hookhost("mcp"), None);
    assert_eq!(claude_name_of_hookhost("exec"), None);
}

/// A shell call whose command is an argument list is no text a policy reads: an error,
/// which the bridge refuses as an unreadable call (no-force-push let
/// `["bash", "-lc", "git push --force"]` through).
#[test]
fn a_shell_command_that_is_not_text_cannot_be_read() {
    for (agent, tool) in [
        (Codex, "Bash"),
        (ClaudeCode, "Bash"),
        (Gemini, "run_shell_command"),
    ] {
        let err = map_call(
            agent,
            "PreToolUse",
            tool,
            json!({"command": ["bash", "-lc", "git push --force origin main"]}),
            McpHint::default(),
            Some("/p"),
            None,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "the {} PreToolUse payload has no tool_input.command (or it is not a string)",
                agent
            )
        );
    }
}

/// Gemini CLI opens `@.env` and `%2Eenv` as `.env` (docs/agents.md#gemini-cli): the
/// canonical `file_path` is the file it opens, as its `resolveDefensiveToolPath` and
/// `resolveToRealPath` give it (cases checked against those functions under node).
#[test]
fn a_gemini_path_is_the_file_gemini_opens() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("secrets")).unwrap();
    std::fs::create_dir_all(p.join("@scoped")).unwrap();
    std::fs::write(p.join("@here.txt"), "").unwrap();
    let cwd = p.to_str().unwrap();
    let opened = |file_path: &str| {
        let call = call_of(
            Gemini,
            "BeforeTool",
            "write_file",
            json!({"file_path": file_path, "content": "x"}),
            Some(cwd),
        );
        let path = call.tool_input["file_path"].as_str().unwrap().to_string();
        path.strip_prefix(cwd).map(str::to_string).unwrap_or(path)
    };
    for (written, opened_as) in [
        ("@.env", "/.env"),
        ("%2Eenv", "/.env"),
        ("secrets%2Fk.pem", "/secrets/k.pem"),
        ("@secrets/k.pem", "/secrets/k.pem"),
        ("@.git/hooks/pre-commit", "/.git/hooks/pre-commit"),
        ("%2Egit/hooks/pre-commit", "/.git/hooks/pre-commit"),
        ("@/.env", "/.env"),
        // A name that is there as written, or whose first folder is, keeps its `@`.
        ("@here.txt", "/@here.txt"),
        ("@scoped/a.txt", "/@scoped/a.txt"),
        // An escape JavaScript cannot decode leaves the path as written.
        ("%zz.env", "/%zz.env"),
        ("%+1.env", "/%+1.env"),
        ("a/../%2E%2E/b", "/../b"),
        ("plain.txt", "/plain.txt"),
    ] {
        let expected = if opened_as == "/../b" {
            p.parent().unwrap().join("b").to_string_lossy().into_owned()
        } else {
            opened_as.to_string()
        };
        assert_eq!(opened(written), expected, "{written}");
    }
}

/// Gemini CLI's `replace` of a relative path that is not there edits the one file of the
/// project whose path ends so (its `correctPath`): each such file is gated as an `Edit`
/// of its own, and a write of a path that is there searches nothing.
#[test]
fn a_gemini_replace_of_a_missing_path_gates_every_file_gemini_could_pick() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("secrets")).unwrap();
    std::fs::create_dir_all(p.join("deep/er/secrets")).unwrap();
    std::fs::write(p.join("secrets/k.pem"), "").unwrap();
    std::fs::write(p.join("deep/er/secrets/k.pem"), "").unwrap();
    std::fs::write(p.join("deep/xk.pem"), "").unwrap();
    let cwd = p.to_str().unwrap();
    let call = |tool: &str, file_path: &str| {
        call_of(
            Gemini,
            "BeforeTool",
            tool,
            json!({"file_path": file_path, "old_string": "a", "new_string": "b"}),
            Some(cwd),
        )
    };
    let mut gated: Vec<String> = call("replace", "ets/k.pem")
        .files
        .iter()
        .map(|f| {
            assert_eq!(f.tool, "Edit");
            f.tool_input["file_path"].as_str().unwrap().to_string()
        })
        .collect();
    gated.sort();
    assert_eq!(
        gated,
        [
            p.join("deep/er/secrets/k.pem").to_string_lossy(),
            p.join("secrets/k.pem").to_string_lossy()
        ]
    );
    assert!(call("replace", "secrets/k.pem").files.is_empty());
    assert!(call("write_file", "k.pem").files.is_empty());
    assert!(call("replace", "nowhere.txt").files.is_empty());
}

/// Kimi Code and Kiro CLI open `~/…` in the home folder: the call's `file_path` is that
/// file once the front end expands it with the agent's home; other agents' `~` is a
/// folder of the project, as before.
#[test]
fn a_path_under_the_home_is_the_file_kimi_and_kiro_open() {
    let home = Path::new("/home/u");
    for (agent, tool, field) in [(Kimi, "Write", "path"), (Kiro, "fs_write", "path")] {
        for (written, opened) in [
            ("~/p/secrets/k.pem", "/home/u/p/secrets/k.pem"),
            ("~", "/home/u"),
            ("~user/x", "/home/u/p/~user/x"),
            ("a/~/x", "/home/u/p/a/~/x"),
            // The rest is joined on: `~//x` is the home's `x`, never `/x`.
            ("~//p/secrets/k.pem", "/home/u/p/secrets/k.pem"),
        ] {
            let mut call = call_of(
                agent,
                "PreToolUse",
                tool,
                json!({field: written, "content": "x", "command": "create", "file_text": "x"}),
                Some("/home/u/p"),
            );
            expand_home(agent, &mut call, Some("/home/u/p"), Some(home));
            assert_eq!(call.tool_input["file_path"], opened, "{agent}: {written}");
        }
    }
    let mut call = call_of(
        Gemini,
        "BeforeTool",
        "write_file",
        json!({"file_path": "~/x", "content": "x"}),
        Some("/home/u/p"),
    );
    expand_home(Gemini, &mut call, Some("/home/u/p"), Some(home));
    assert_eq!(call.tool_input["file_path"], "/home/u/p/~/x");
}

/// A Kiro `fs_read` of several files reads each under the home when its path starts with
/// `~`; with no home known, a `~` path is one of the project, as any relative path.
#[test]
fn each_file_a_kiro_read_names_under_the_home_is_read_there() {
    let mut call = call_of(
        Kiro,
        "preToolUse",
        "fs_read",
        json!({"operations": [{"mode": "Line", "path": "~/p/secrets/k.pem"}, {"mode": "Line", "path": "README.md"}]}),
        Some("/home/u/p"),
    );
    expand_home(
        Kiro,
        &mut call,
        Some("/home/u/p"),
        Some(Path::new("/home/u")),
    );
    let read: Vec<&str> = call
        .files
        .iter()
        .map(|f| f.tool_input["file_path"].as_str().unwrap())
        .collect();
    assert_eq!(read, ["/home/u/p/secrets/k.pem", "/home/u/p/README.md"]);
    let mut call = call_of(
        Kimi,
        "PreToolUse",
        "Write",
        json!({"path": "~/x", "content": "x"}),
        Some("/home/u/p"),
    );
    expand_home(Kimi, &mut call, Some("/home/u/p"), None);
    assert_eq!(call.tool_input["file_path"], "/home/u/p/~/x");
}

/// Gemini CLI resolves `@/../.env` by its spelling before it asks whether it is there:
/// the project's `.env`, kept with its `@` where no folder `@` is (checked under node).
#[test]
fn a_gemini_path_with_dots_after_its_mention_is_resolved_by_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join(".env"), "").unwrap();
    let cwd = project.to_str().unwrap();
    let call = call_of(
        Gemini,
        "BeforeTool",
        "write_file",
        json!({"file_path": "@/../.env", "content": "x"}),
        Some(cwd),
    );
    assert_eq!(
        call.tool_input["file_path"],
        project.join(".env").to_string_lossy().as_ref()
    );
    // An MCP tool's path is the server's: as written (made absolute), not Gemini's reading.
    let call = call_of(
        Gemini,
        "BeforeTool",
        "mcp_files_write",
        json!({"file_path": "@x%2Ey"}),
        Some(cwd),
    );
    assert_eq!(
        call.tool_input["file_path"],
        project.join("@x%2Ey").to_string_lossy().as_ref()
    );
}

/// A search hookhost cannot follow to its end (more folders than it reads) refuses the
/// call, naming the path and what to do.
#[test]
fn a_gemini_replace_search_too_large_to_follow_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..10_001 {
        std::fs::create_dir(dir.path().join(format!("d{i}"))).unwrap();
    }
    let error = map_call(
        Gemini,
        "BeforeTool",
        "replace",
        json!({"file_path": "k.pem", "old_string": "a", "new_string": "b"}),
        McpHint::default(),
        dir.path().to_str(),
        None,
    )
    .unwrap_err();
    assert_eq!(
        crate::bridge::unreadable_message(&error),
        "hookhost cannot tell which file the Gemini CLI BeforeTool call changes: Gemini CLI looks for \"k.pem\" in the project, which has more than 10000 folders to look in, so this call was blocked. Name the file by its path from the project's folder."
    );
}
