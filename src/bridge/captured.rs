//! The payloads captured from the real agents (`examples/agents/<agent>/<event>-<tool>…`,
//! recorded by `tests/it/real_agents/capture.rs` from each agent's own hook call), run
//! through the mapping: each gives its canonical (Claude Code) tool name, its hookhost
//! name, and every file it touches, relative to the project (`/home/u/p` in the
//! captures). A path policy judges exactly these (docs/agents.md, "Every file a call
//! touches").

use std::path::Path;

use serde_json::Value;

use super::{AgentKind, Event};

/// One captured payload: the agent, its file, Claude Code's name for the tool, hookhost's,
/// and each path the call gives a path policy, as `"<tool> <path relative to the
/// project>"`: the call's own (`file_path`, or `path` for a search) first, then each file
/// it touches beyond it.
struct Case {
    agent: AgentKind,
    file: &'static str,
    claude: &'static str,
    hookhost: Option<&'static str>,
    paths: &'static [&'static str],
}

const fn case(
    agent: AgentKind,
    file: &'static str,
    claude: &'static str,
    hookhost: Option<&'static str>,
    paths: &'static [&'static str],
) -> Case {
    Case {
        agent,
        file,
        claude,
        hookhost,
        paths,
    }
}

use AgentKind::{ClaudeCode, Codex, Copilot, Gemini, Kimi, Qwen};

const CASES: &[Case] = &[
    case(
        ClaudeCode,
        "PreToolUse-Write.json",
        "Write",
        Some("write_file"),
        &["Write docs/new.md"],
    ),
    case(
        ClaudeCode,
        "PreToolUse-Read.json",
        "Read",
        Some("read_file"),
        &["Read notes.md"],
    ),
    case(
        ClaudeCode,
        "PreToolUse-Edit.json",
        "Edit",
        Some("edit_file"),
        &["Edit notes.md"],
    ),
    case(
        ClaudeCode,
        "PreToolUse-Glob.json",
        "Glob",
        Some("glob"),
        &["Glob docs"],
    ),
    case(
        ClaudeCode,
        "PreToolUse-Grep.json",
        "Grep",
        Some("search"),
        &["Grep docs"],
    ),
    case(
        Codex,
        "PreToolUse-apply_patch-add.json",
        "apply_patch",
        Some("edit_file"),
        &["Write docs/new.md"],
    ),
    case(
        Codex,
        "PreToolUse-apply_patch-update.json",
        "apply_patch",
        Some("edit_file"),
        &["Edit notes.md"],
    ),
    case(
        Codex,
        "PreToolUse-apply_patch-delete.json",
        "apply_patch",
        Some("edit_file"),
        &["Write notes.md"],
    ),
    case(
        Codex,
        "PreToolUse-apply_patch-move.json",
        "apply_patch",
        Some("edit_file"),
        &["Edit notes.md", "Write docs/notes.md"],
    ),
    case(
        Gemini,
        "BeforeTool-write_file.json",
        "Write",
        Some("write_file"),
        &["Write docs/new.md"],
    ),
    case(
        Gemini,
        "BeforeTool-replace.json",
        "Edit",
        Some("edit_file"),
        &["Edit notes.md"],
    ),
    case(
        Gemini,
        "BeforeTool-read_file.json",
        "Read",
        Some("read_file"),
        &["Read notes.md"],
    ),
    // Gemini's `list_directory` has no hookhost name (`tools::UNMAPPED`): its folder is
    // still there for a hook without `tools`.
    case(
        Gemini,
        "BeforeTool-list_directory.json",
        "list_directory",
        None,
        &["list_directory docs"],
    ),
    case(
        Gemini,
        "BeforeTool-glob.json",
        "Glob",
        Some("glob"),
        &["Glob docs"],
    ),
    case(
        Gemini,
        "BeforeTool-grep_search.json",
        "Grep",
        Some("search"),
        &["Grep docs"],
    ),
    case(
        Qwen,
        "PreToolUse-write_file.json",
        "Write",
        Some("write_file"),
        &["Write docs/new.md"],
    ),
    case(
        Qwen,
        "PreToolUse-edit.json",
        "Edit",
        Some("edit_file"),
        &["Edit notes.md"],
    ),
    case(
        Qwen,
        "PreToolUse-read_file.json",
        "Read",
        Some("read_file"),
        &["Read notes.md"],
    ),
    case(
        Qwen,
        "PreToolUse-glob.json",
        "Glob",
        Some("glob"),
        &["Glob docs"],
    ),
    case(
        Qwen,
        "PreToolUse-grep_search.json",
        "Grep",
        Some("search"),
        &["Grep docs"],
    ),
    case(
        Kimi,
        "PreToolUse-Write.json",
        "Write",
        Some("write_file"),
        &["Write docs/new.md"],
    ),
    case(
        Kimi,
        "PreToolUse-Edit.json",
        "Edit",
        Some("edit_file"),
        &["Edit notes.md"],
    ),
    case(
        Kimi,
        "PreToolUse-Read.json",
        "Read",
        Some("read_file"),
        &["Read notes.md"],
    ),
    case(
        Kimi,
        "PreToolUse-Glob.json",
        "Glob",
        Some("glob"),
        &["Glob docs"],
    ),
    case(
        Kimi,
        "PreToolUse-Grep.json",
        "Grep",
        Some("search"),
        &["Grep docs"],
    ),
    case(
        Copilot,
        "preToolUse-create.json",
        "Write",
        Some("write_file"),
        &["Write docs/new.md"],
    ),
    case(
        Copilot,
        "preToolUse-edit.json",
        "Edit",
        Some("edit_file"),
        &["Edit notes.md"],
    ),
    case(
        Copilot,
        "preToolUse-view.json",
        "Read",
        Some("read_file"),
        &["Read notes.md"],
    ),
    case(
        Copilot,
        "preToolUse-glob.json",
        "Glob",
        Some("glob"),
        &["Glob docs"],
    ),
    case(
        Copilot,
        "preToolUse-grep.json",
        "Grep",
        Some("search"),
        &["Grep docs"],
    ),
    case(
        Copilot,
        "preToolUse-rg.json",
        "Grep",
        Some("search"),
        &["Grep docs"],
    ),
    // Copilot's `apply_patch` is a freeform tool: its `toolArgs` is the patch itself.
    case(
        Copilot,
        "preToolUse-apply_patch-add.json",
        "apply_patch",
        Some("edit_file"),
        &["Write docs/new.md"],
    ),
    case(
        Copilot,
        "preToolUse-apply_patch-update.json",
        "apply_patch",
        Some("edit_file"),
        &["Edit notes.md"],
    ),
    case(
        Copilot,
        "preToolUse-apply_patch-delete.json",
        "apply_patch",
        Some("edit_file"),
        &["Write notes.md"],
    ),
    case(
        Copilot,
        "preToolUse-apply_patch-move.json",
        "apply_patch",
        Some("edit_file"),
        &["Edit notes.md", "Write docs/notes.md"],
    ),
];

/// The captures' project.
const PROJECT: &str = "/home/u/p";

fn samples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agents")
}

/// `path` relative to the project (`.` for the project itself).
fn relative(path: &str) -> String {
    match path.strip_prefix(PROJECT) {
        Some("") => ".".into(),
        Some(rest) => rest.trim_start_matches('/').into(),
        None => path.into(),
    }
}

/// `"<tool> <path>"` for a call's own path field, if it has one (`dir_path`: the field of
/// an unmapped tool, kept as the agent sent it).
fn own_path(tool: &str, input: &Value) -> Option<String> {
    let path = ["file_path", "path", "dir_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))?;
    Some(format!("{tool} {}", relative(path)))
}

#[test]
fn every_captured_payload_maps_to_its_tool_and_every_path_it_touches() {
    for c in CASES {
        let file = samples().join(c.agent.flag_name()).join(c.file);
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let payload: Value = serde_json::from_str(&text).unwrap();
        let Ok(Event::PreToolUse { call, .. }) = c.agent.protocol().parse(&payload) else {
            panic!("{}: not a tool call", file.display());
        };
        let what = format!("{:?} {}", c.agent, c.file);
        assert_eq!(call.tool, c.claude, "{what}");
        assert_eq!(call.hookhost_tool, c.hookhost, "{what}");
        let mut paths: Vec<String> = own_path(&call.tool, &call.tool_input).into_iter().collect();
        for touched in &call.files {
            paths.extend(own_path(&touched.tool, &touched.tool_input));
        }
        assert_eq!(paths, c.paths, "{what}: {}", call.tool_input);
    }
}

/// Every captured payload in `examples/agents/` has its case above: a new capture is
/// checked, not just stored.
#[test]
fn every_captured_payload_has_a_case() {
    for agent in [ClaudeCode, Codex, Gemini, Qwen, Kimi, Copilot] {
        let folder = samples().join(agent.flag_name());
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // The hand-written samples: one per event, Gemini's MCP call, Copilot's
            // PascalCase events.
            if !name.contains('-')
                || name == "BeforeTool-mcp.json"
                || name.starts_with("PascalCase-")
            {
                continue;
            }
            assert!(
                CASES.iter().any(|c| c.agent == agent && c.file == name),
                "{}/{name} has no case",
                agent.flag_name()
            );
        }
    }
}
