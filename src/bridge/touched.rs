//! Every file an agent's call touches, as calls of the file tools a path policy reads.
//!
//! A path policy (`protect-paths`, a Claude Code hook reading `tool_input.file_path`)
//! judges one file per call. Some agents' tools touch files their arguments do not carry in
//! that field: a patch names several (Codex's and Copilot's `apply_patch`), a multi-file
//! read lists them (Gemini's and Qwen's `read_many_files`, Kiro's `fs_read` with several
//! operations), a delete has no hookhost name (Cursor's `Delete`). [`touched_files`] turns
//! each such file into a call of Claude Code's file tools, in its shape (absolute
//! `file_path`), which the session gates after the call itself ([`ToolCall::files`]):
//!
//! | what the call does | the file's call |
//! |---|---|
//! | a patch adds a file | `Write {file_path, content, operation: "create"}` |
//! | a patch changes a file | `Edit {file_path, operation: "update"}` |
//! | a patch moves a file | `Edit {file_path: from, operation: "move", to}` and `Write {file_path: to, operation: "move", from}` |
//! | a patch or a tool deletes a file | `Write {file_path, operation: "delete"}` |
//! | a multi-file read reads a file (or a pattern) | `Read {file_path}` |
//!
//! A delete is a `Write` because it changes what the file holds: a policy that protects
//! `.env` from writes protects it from deletion. A call whose own arguments already give
//! its one file (`Write`, `Edit`, a one-operation `fs_read`) touches nothing more.

use std::path::Path;

use serde_json::{Value, json};

use super::ToolCall;
use super::patch::{self, FileChange};

/// The files `call` touches beyond its own `file_path`, one file-tool call each, paths
/// made absolute against `cwd` (as Claude Code gives them). Empty for most calls.
pub fn touched_files(call: &ToolCall, cwd: Option<&str>) -> Vec<ToolCall> {
    let input = &call.tool_input;
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let files = match call.tool.as_str() {
        // Codex: `{"command": PATCH}`; Copilot: `{"input": PATCH}`.
        "apply_patch" => text("command")
            .or_else(|| text("input"))
            .map(patch_calls)
            .unwrap_or_default(),
        // A patch given to the shell (`apply_patch <<'EOF' …`, `cd DIR && apply_patch …`),
        // which Codex runs itself: its files, relative to DIR.
        "Bash" => match text("command").and_then(shell_patch) {
            Some((dir, patch)) => {
                let mut calls = patch_calls(patch);
                if let Some(dir) = dir.map(|dir| folder_changed_into(dir, cwd)) {
                    for call in &mut calls {
                        under(&mut call.tool_input, &dir);
                    }
                }
                calls
            }
            None => Vec::new(),
        },
        "read_many_files" => ["paths", "include"]
            .iter()
            .flat_map(|key| strings(input.get(*key)))
            .map(|path| read(&path))
            .collect(),
        // Kiro's `fs_read`: one call per operation when there is more than one (a single
        // operation's path is the call's own `file_path`).
        "Read" => match input.get("operations").and_then(Value::as_array) {
            Some(operations) if operations.len() > 1 => operations
                .iter()
                .filter_map(|op| op.get("path").and_then(Value::as_str))
                .map(read)
                .collect(),
            _ => Vec::new(),
        },
        // Claude Code's and Qwen Code's `NotebookEdit`: the notebook is `notebook_path`,
        // which a path policy reading `file_path` (the spec's `path`) never sees.
        "NotebookEdit" => text("notebook_path")
            .map(|path| vec![edit(path, json!({"operation": "update"}))])
            .unwrap_or_default(),
        // An MCP tool's file arguments: its server may read, write, move or delete them
        // (a filesystem server's `write_file`, `move_file`), which hookhost cannot tell
        // apart, so each is gated as a write of that file: a path policy that protects it
        // sees it, whatever the tool is called.
        tool if tool.starts_with("mcp__") => MCP_PATH_ARGUMENTS
            .iter()
            .flat_map(|key| strings(input.get(*key)))
            .filter_map(|path| match path.strip_prefix("file://") {
                Some(local) => Some(local.to_string()),
                None if path.contains("://") => None,
                None => Some(path),
            })
            .filter(|path| !path.is_empty())
            .map(|path| write(&path, json!({"operation": "mcp"})))
            .collect(),
        // Cursor's `Delete`.
        "Delete" => text("file_path")
            .or_else(|| text("path"))
            .map(|path| vec![write(path, json!({"operation": "delete"}))])
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    files
        .into_iter()
        .map(|mut file| {
            absolutize(&mut file.tool_input, cwd);
            file.tool_use_id.clone_from(&call.tool_use_id);
            file
        })
        .collect()
}

/// A shell command that applies a patch: the folder it changes into first (`cd DIR &&`),
/// if any, and the text holding the patch. A command that holds a patch's markers in any
/// other form is taken as one too (relative to the project), so that its files are seen.
fn shell_patch(command: &str) -> Option<(Option<&str>, &str)> {
    let line = command.trim_start();
    let (dir, rest) = match line.strip_prefix("cd ") {
        Some(after) => match after.split_once("&&") {
            Some((dir, rest)) => (
                Some(dir.trim().trim_matches(['\'', '"'])),
                rest.trim_start(),
            ),
            None => (None, line),
        },
        None => (None, line),
    };
    if rest.starts_with("apply_patch") || rest.starts_with("applypatch") {
        return Some((dir.filter(|d| !d.is_empty()), rest));
    }
    command
        .contains("*** Begin Patch")
        .then_some((None, command))
}

/// The folder `cd DIR` changes into, as the shell and Codex tidy it: against `cwd` when
/// relative, `.`, `..` and repeated `/` resolved by spelling. Joined to each of a patch's
/// files, an untidied `DIR` of 128 KB (`/.` repeated) made gigabytes for thousands of
/// files (docs/threats.md#b9); tidied, a folder any `cd` enters is at most as long as the
/// longest path the OS takes. One longer still is kept (no `cd` enters it, so the patch
/// never runs), cut to that length: its files stay outside the project's, and small.
fn folder_changed_into(dir: &str, cwd: Option<&str>) -> String {
    let full = match cwd {
        Some(cwd) => Path::new(cwd).join(dir),
        None => Path::new(dir).to_path_buf(),
    };
    let tidy = if full.is_absolute() {
        crate::paths::lexical(&full)
    } else {
        full
    };
    let mut tidy = tidy.to_string_lossy().into_owned();
    if tidy.len() > crate::paths::MAX_WALKED_PATH {
        let mut end = crate::paths::MAX_WALKED_PATH;
        while !tidy.is_char_boundary(end) {
            end -= 1;
        }
        tidy.truncate(end);
    }
    tidy
}

/// A relative `file_path` (and `to`/`from`) put under `dir`.
fn under(input: &mut Value, dir: &str) {
    for key in ["file_path", "to", "from"] {
        if let Some(Value::String(path)) = input.get_mut(key)
            && !Path::new(path.as_str()).is_absolute()
        {
            *path = Path::new(dir)
                .join(path.as_str())
                .to_string_lossy()
                .into_owned();
        }
    }
}

/// The calls for each file a patch text changes.
fn patch_calls(text: &str) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    for change in patch::file_changes(text) {
        match change {
            FileChange::Add { path, content } => calls.push(write(
                &path,
                json!({"content": content, "operation": "create"}),
            )),
            FileChange::Update {
                path,
                move_to: None,
            } => calls.push(edit(&path, json!({"operation": "update"}))),
            FileChange::Update {
                path,
                move_to: Some(to),
            } => {
                calls.push(edit(&path, json!({"operation": "move", "to": to})));
                calls.push(write(&to, json!({"operation": "move", "from": path})));
            }
            FileChange::Delete { path } => {
                calls.push(write(&path, json!({"operation": "delete"})));
            }
        }
    }
    calls
}

/// The strings of an array (or a lone string) field.
/// The arguments of an MCP tool that name files, as MCP servers name them (the reference
/// filesystem server's `path`, `paths`, `source`, `destination`; others' `file_path`,
/// `filePath`, `filename`, `file`, `files`, `uri`). A URL other than `file://` is not a
/// file here.
const MCP_PATH_ARGUMENTS: &[&str] = &[
    "path",
    "paths",
    "file_path",
    "filePath",
    "filepath",
    "filename",
    "file",
    "files",
    "source",
    "destination",
    "old_path",
    "new_path",
    "uri",
];

fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn read(path: &str) -> ToolCall {
    ToolCall::claude("Read".into(), json!({"file_path": path}), None)
}

fn write(path: &str, fields: Value) -> ToolCall {
    file_call("Write", path, fields)
}

fn edit(path: &str, fields: Value) -> ToolCall {
    file_call("Edit", path, fields)
}

/// `tool` on `path`, with `fields` after `file_path`.
fn file_call(tool: &str, path: &str, fields: Value) -> ToolCall {
    let mut input = serde_json::Map::new();
    input.insert("file_path".into(), Value::from(path));
    if let Value::Object(fields) = fields {
        input.extend(fields);
    }
    ToolCall::claude(tool.into(), Value::Object(input), None)
}

/// A relative `file_path` (and a move's `to`/`from`) joined to `cwd`, as Claude Code
/// always gives paths.
fn absolutize(input: &mut Value, cwd: Option<&str>) {
    let Some(cwd) = cwd.filter(|c| Path::new(c).is_absolute()) else {
        return;
    };
    for key in ["file_path", "to", "from"] {
        if let Some(Value::String(path)) = input.get_mut(key)
            && !path.is_empty()
            && !Path::new(path.as_str()).is_absolute()
        {
            *path = Path::new(cwd)
                .join(path.as_str())
                .to_string_lossy()
                .into_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files_of(tool: &str, input: Value) -> Vec<(String, Value)> {
        let call = ToolCall::claude(tool.into(), input, Some("t1".into()));
        touched_files(&call, Some("/p"))
            .into_iter()
            .map(|f| {
                assert_eq!(f.tool_use_id.as_deref(), Some("t1"));
                (f.tool, f.tool_input)
            })
            .collect()
    }

    #[test]
    fn a_patch_touches_every_file_it_names() {
        let patch = "*** Begin Patch\n*** Add File: .env\n+K=1\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** Update File: old.rs\n*** Move to: new.rs\n@@\n-x\n+y\n*** Delete File: /p/gone.txt\n*** End Patch\n";
        let expected = vec![
            (
                "Write".to_string(),
                json!({"file_path": "/p/.env", "content": "K=1", "operation": "create"}),
            ),
            (
                "Edit".to_string(),
                json!({"file_path": "/p/src/a.rs", "operation": "update"}),
            ),
            (
                "Edit".to_string(),
                json!({"file_path": "/p/old.rs", "operation": "move", "to": "/p/new.rs"}),
            ),
            (
                "Write".to_string(),
                json!({"file_path": "/p/new.rs", "operation": "move", "from": "/p/old.rs"}),
            ),
            (
                "Write".to_string(),
                json!({"file_path": "/p/gone.txt", "operation": "delete"}),
            ),
        ];
        // Codex's `{"command"}`, Copilot's `{"input"}`, and the shell's heredoc.
        assert_eq!(files_of("apply_patch", json!({"command": patch})), expected);
        assert_eq!(files_of("apply_patch", json!({"input": patch})), expected);
        let heredoc = format!("apply_patch <<'EOF'\n{patch}EOF\n");
        assert_eq!(files_of("Bash", json!({"command": heredoc})), expected);
        // `cd DIR && apply_patch`: the files are under DIR.
        let add = "*** Begin Patch\n*** Add File: k.pem\n+x\n*** End Patch\n";
        let cd = format!("cd secrets && apply_patch <<'EOF'\n{add}EOF\n");
        assert_eq!(
            files_of("Bash", json!({"command": cd})),
            vec![(
                "Write".to_string(),
                json!({"file_path": "/p/secrets/k.pem", "content": "x", "operation": "create"})
            )]
        );
        // A folder spelled long, as the shell tidies it (B9: an untidied 128 KB folder
        // times thousands of moves made gigabytes); `..` from the call's folder too.
        let far = format!(
            "cd /home/u/.ssh{} && apply_patch <<'EOF'\n{add}EOF\n",
            "/.".repeat(64_000)
        );
        let up = format!("cd ../q/./r/.. && apply_patch <<'EOF'\n{add}EOF\n");
        for (command, file) in [(far, "/home/u/.ssh/k.pem"), (up, "/q/k.pem")] {
            assert_eq!(
                files_of("Bash", json!({"command": command})),
                vec![(
                    "Write".to_string(),
                    json!({"file_path": file, "content": "x", "operation": "create"})
                )]
            );
        }
        // One no `cd` can enter stays outside the project, cut to the longest path.
        let deep = format!(
            "cd /x/{} && apply_patch <<'EOF'\n{add}EOF\n",
            "a".repeat(9_000)
        );
        let files = files_of("Bash", json!({"command": deep}));
        let path = files[0].1["file_path"].as_str().unwrap_or_default();
        assert!(
            path.starts_with("/x/aaaa") && path.len() < 4_200,
            "{}",
            path.len()
        );
        // Any other command holding a patch is read too.
        let piped = format!("cat <<'EOF' | apply_patch\n{add}EOF\n");
        assert_eq!(files_of("Bash", json!({"command": piped})).len(), 1);
    }

    #[test]
    fn multi_file_reads_and_deletes() {
        assert_eq!(
            files_of("read_many_files", json!({"paths": [".env", "src/*.rs"]})),
            vec![
                ("Read".to_string(), json!({"file_path": "/p/.env"})),
                ("Read".to_string(), json!({"file_path": "/p/src/*.rs"})),
            ]
        );
        assert_eq!(
            files_of("read_many_files", json!({"include": [".env"]})),
            vec![("Read".to_string(), json!({"file_path": "/p/.env"}))]
        );
        let two = json!({"operations": [{"mode": "Line", "path": "/p/README.md"}, {"mode": "Line", "path": "/p/.env"}]});
        assert_eq!(
            files_of("Read", two),
            vec![
                ("Read".to_string(), json!({"file_path": "/p/README.md"})),
                ("Read".to_string(), json!({"file_path": "/p/.env"})),
            ]
        );
        let one = json!({"operations": [{"path": "/p/.env"}], "file_path": "/p/.env"});
        assert_eq!(files_of("Read", one), vec![]);
        assert_eq!(
            files_of(
                "NotebookEdit",
                json!({"notebook_path": "secrets/t.ipynb", "new_source": "x"})
            ),
            vec![(
                "Edit".to_string(),
                json!({"file_path": "/p/secrets/t.ipynb", "operation": "update"})
            )]
        );
        assert_eq!(
            files_of("Delete", json!({"file_path": "/p/.env"})),
            vec![(
                "Write".to_string(),
                json!({"file_path": "/p/.env", "operation": "delete"})
            )]
        );
    }

    #[test]
    fn an_mcp_tools_file_arguments_are_gated_as_writes() {
        let moved = json!({"source": "notes.txt", "destination": ".env"});
        assert_eq!(
            files_of("mcp__filesystem__move_file", moved),
            vec![
                (
                    "Write".to_string(),
                    json!({"file_path": "/p/notes.txt", "operation": "mcp"})
                ),
                (
                    "Write".to_string(),
                    json!({"file_path": "/p/.env", "operation": "mcp"})
                ),
            ]
        );
        let many =
            json!({"paths": ["secrets/k.pem"], "uri": "file:///p/.env", "url": "https://x/.env"});
        assert_eq!(files_of("mcp__fs__read_multiple_files", many).len(), 2);
        let web = json!({"uri": "https://example.com/.env", "query": ".env"});
        assert!(files_of("mcp__web__fetch", web).is_empty());
    }

    #[test]
    fn other_calls_touch_nothing_more() {
        assert!(files_of("Bash", json!({"command": "ls"})).is_empty());
        assert!(files_of("Write", json!({"file_path": "/p/a"})).is_empty());
        assert!(files_of("apply_patch", json!({"command": 5})).is_empty());
        assert!(files_of("apply_patch", json!("not an object")).is_empty());
    }
}
