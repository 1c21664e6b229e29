//! Captures, from the real agents, the payload each path-carrying tool hands its hook
//! (issue 26): after `hookhost install`, the registered hookhost copy is replaced by a
//! recorder that appends what it reads to a file and answers nothing (no objection), and
//! the scripted model calls each tool once (`CALL:` lines, a read first where the agent
//! wants a file read before it is edited). Each payload goes to
//! `examples/agents/<agent>/<event>-<tool>[-<what>].json`, this run's folders written as
//! the hand-written samples have them: `/home/u` for HOME, `/home/u/p` for the project.
//!
//! Not part of the suite (`#[ignore]`): `bash scripts/capture-payloads.sh` runs them. The
//! tests that read the payloads are in `src/bridge/captured.rs`.

use std::path::Path;

use serde_json::Value;

use super::*;

/// One payload to capture: the file it goes to, the tool whose call it is, the prompt,
/// and what the run needs beyond the agent's usual set-up for the tool to be offered
/// (arguments after the agent's own, variables over its own).
struct Capture {
    file: &'static str,
    tool: &'static str,
    prompt: &'static str,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
}

const fn capture(file: &'static str, tool: &'static str, prompt: &'static str) -> Capture {
    Capture {
        file,
        tool,
        prompt,
        args: &[],
        env: &[],
    }
}

impl Capture {
    const fn args(self, args: &'static [&'static str]) -> Capture {
        Capture { args, ..self }
    }

    const fn env(self, env: &'static [(&'static str, &'static str)]) -> Capture {
        Capture { env, ..self }
    }
}

/// The tool the prompt's last `CALL:` line calls.
fn called(prompt: &str) -> &str {
    prompt
        .lines()
        .filter_map(|l| l.trim().strip_prefix("CALL: "))
        .next_back()
        .and_then(|l| l.split(' ').next())
        .unwrap_or_default()
}

/// Runs each capture in a fresh world of `agent`, writes what it got, and fails naming
/// those it did not get (a tool the agent refused before its hook, say).
fn capture_all(agent: &'static Agent, folder: &str, captures: &[Capture]) {
    let mut missing = Vec::new();
    for c in captures {
        let Some(w) = World::new(&format!("capture {}", c.file), agent) else {
            return;
        };
        let log = w.home.join("recorded.jsonl");
        // The recorder: the agent's payload, as it is, one after another.
        std::fs::write(
            &w.hookhost,
            format!(
                "#!/bin/sh\ncat >> '{}'\necho >> '{}'\n",
                log.display(),
                log.display()
            ),
        )
        .unwrap();
        std::fs::write(w.project().join("notes.md"), "one\ntwo\n").unwrap();
        std::fs::create_dir_all(w.project().join("docs")).unwrap();
        std::fs::write(w.project().join("docs/guide.md"), "guide\n").unwrap();
        let outcome = w.run_with(c.prompt, c.args, c.env);
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let found = serde_json::Deserializer::from_str(&text)
            .into_iter::<Value>()
            .flatten()
            .filter(|p| p["tool_name"] == c.tool || p["toolName"] == c.tool)
            .last();
        let Some(payload) = found else {
            missing.push(format!(
                "{}: no {} call reached the hook; the model read {:?}; schema {}; {}",
                c.file,
                c.tool,
                w.model.tool_results(),
                w.model
                    .turns()
                    .first()
                    .map(|t| t.tool_schema(called(c.prompt)))
                    .unwrap_or_default(),
                outcome.stderr
            ));
            continue;
        };
        let project = w.project().to_str().unwrap();
        // Claude Code and Qwen Code name a project's folder by its path, `/` as `-`.
        let mangled = project.replace('/', "-");
        let text = payload
            .to_string()
            .replace(project, "/home/u/p")
            .replace(&mangled, "-home-u-p")
            .replace(w.home.to_str().unwrap(), "/home/u");
        let out = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/agents")
            .join(folder)
            .join(c.file);
        std::fs::write(&out, format!("{text}\n")).unwrap();
        eprintln!("captured {}", out.display());
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
#[ignore = "recaptures examples/agents/ (scripts/capture-payloads.sh)"]
fn capture_claude_code() {
    capture_all(
        &CLAUDE_CODE,
        "claude-code",
        &[
            capture(
                "PreToolUse-Write.json",
                "Write",
                "CALL: Write {\"file_path\": \"@PROJECT@/docs/new.md\", \"content\": \"hello\\n\"}",
            ),
            capture(
                "PreToolUse-Read.json",
                "Read",
                "CALL: Read {\"file_path\": \"@PROJECT@/notes.md\"}",
            ),
            capture(
                "PreToolUse-Edit.json",
                "Edit",
                "CALL: Read {\"file_path\": \"@PROJECT@/notes.md\"}\n\
                 CALL: Edit {\"file_path\": \"@PROJECT@/notes.md\", \"old_string\": \"one\", \"new_string\": \"three\"}",
            ),
            // The native build offers Glob and Grep only to a session whose
            // `--allowedTools` (or `--tools`) names them; otherwise its Bash's `find` and
            // `grep` run its embedded bfs and ugrep (docs/agents.md, "Claude Code").
            capture(
                "PreToolUse-Glob.json",
                "Glob",
                "CALL: Glob {\"pattern\": \"*.md\", \"path\": \"@PROJECT@/docs\"}",
            )
            .args(&["--allowedTools", "Glob,Grep"]),
            capture(
                "PreToolUse-Grep.json",
                "Grep",
                "CALL: Grep {\"pattern\": \"guide\", \"path\": \"@PROJECT@/docs\"}",
            )
            .args(&["--allowedTools", "Glob,Grep"]),
        ],
    );
}

#[test]
#[ignore = "recaptures examples/agents/ (scripts/capture-payloads.sh)"]
fn capture_codex() {
    capture_all(
        &CODEX,
        "codex",
        &[
            capture(
                "PreToolUse-apply_patch-add.json",
                "apply_patch",
                "CALL: apply_patch \"*** Begin Patch\\n*** Add File: docs/new.md\\n+hello\\n*** End Patch\\n\"",
            ),
            capture(
                "PreToolUse-apply_patch-update.json",
                "apply_patch",
                "CALL: apply_patch \"*** Begin Patch\\n*** Update File: notes.md\\n@@\\n-one\\n+three\\n two\\n*** End Patch\\n\"",
            ),
            capture(
                "PreToolUse-apply_patch-delete.json",
                "apply_patch",
                "CALL: apply_patch \"*** Begin Patch\\n*** Delete File: notes.md\\n*** End Patch\\n\"",
            ),
            capture(
                "PreToolUse-apply_patch-move.json",
                "apply_patch",
                "CALL: apply_patch \"*** Begin Patch\\n*** Update File: notes.md\\n*** Move to: docs/notes.md\\n@@\\n-one\\n+three\\n two\\n*** End Patch\\n\"",
            ),
        ],
    );
}

#[test]
#[ignore = "recaptures examples/agents/ (scripts/capture-payloads.sh)"]
fn capture_gemini() {
    capture_all(
        &GEMINI,
        "gemini",
        &[
            capture(
                "BeforeTool-write_file.json",
                "write_file",
                "CALL: write_file {\"file_path\": \"docs/new.md\", \"content\": \"hello\\n\"}",
            ),
            capture(
                "BeforeTool-replace.json",
                "replace",
                "CALL: replace {\"file_path\": \"notes.md\", \"old_string\": \"one\", \"new_string\": \"three\", \"instruction\": \"Change one to three.\"}",
            ),
            capture(
                "BeforeTool-read_file.json",
                "read_file",
                "CALL: read_file {\"file_path\": \"notes.md\"}",
            ),
            // Not read_many_files: 0.61.0 never offers it to the model, and runs it for a
            // prompt's `@path` without a BeforeTool (docs/agents.md, "Gemini CLI", "In
            // the tests").
            capture(
                "BeforeTool-glob.json",
                "glob",
                "CALL: glob {\"pattern\": \"*.md\", \"dir_path\": \"docs\"}",
            ),
            capture(
                "BeforeTool-grep_search.json",
                "grep_search",
                "CALL: grep_search {\"pattern\": \"guide\", \"dir_path\": \"docs\"}",
            ),
            capture(
                "BeforeTool-list_directory.json",
                "list_directory",
                "CALL: list_directory {\"dir_path\": \"docs\"}",
            ),
        ],
    );
}

#[test]
#[ignore = "recaptures examples/agents/ (scripts/capture-payloads.sh)"]
fn capture_qwen() {
    capture_all(
        &QWEN,
        "qwen-code",
        &[
            capture(
                "PreToolUse-write_file.json",
                "write_file",
                "CALL: write_file {\"file_path\": \"@PROJECT@/docs/new.md\", \"content\": \"hello\\n\"}",
            ),
            capture(
                "PreToolUse-edit.json",
                "edit",
                "CALL: read_file {\"file_path\": \"@PROJECT@/notes.md\"}\n\
                 CALL: edit {\"file_path\": \"@PROJECT@/notes.md\", \"old_string\": \"one\", \"new_string\": \"three\"}",
            ),
            capture(
                "PreToolUse-read_file.json",
                "read_file",
                "CALL: read_file {\"file_path\": \"@PROJECT@/notes.md\"}",
            ),
            capture(
                "PreToolUse-glob.json",
                "glob",
                "CALL: glob {\"pattern\": \"*.md\", \"path\": \"@PROJECT@/docs\"}",
            ),
            capture(
                "PreToolUse-grep_search.json",
                "grep_search",
                "CALL: grep_search {\"pattern\": \"guide\", \"path\": \"@PROJECT@/docs\"}",
            ),
            // Not its `tool_call` (a deferred tool's caller): 0.24.4 refuses it for a
            // tool the model sees ("[tool_call bridge refused] Tool \"write_file\" is
            // already visible to the model or is not deferred").
        ],
    );
}

#[test]
#[ignore = "recaptures examples/agents/ (scripts/capture-payloads.sh)"]
fn capture_kimi() {
    capture_all(
        &KIMI,
        "kimi-code",
        &[
            capture(
                "PreToolUse-Write.json",
                "Write",
                "CALL: Write {\"path\": \"docs/new.md\", \"content\": \"hello\\n\"}",
            ),
            capture(
                "PreToolUse-Edit.json",
                "Edit",
                "CALL: Read {\"path\": \"notes.md\"}\n\
                 CALL: Edit {\"path\": \"notes.md\", \"old_string\": \"one\", \"new_string\": \"three\"}",
            ),
            capture(
                "PreToolUse-Read.json",
                "Read",
                "CALL: Read {\"path\": \"notes.md\"}",
            ),
            capture(
                "PreToolUse-Glob.json",
                "Glob",
                "CALL: Glob {\"pattern\": \"*.md\", \"path\": \"docs\"}",
            ),
            capture(
                "PreToolUse-Grep.json",
                "Grep",
                "CALL: Grep {\"pattern\": \"guide\", \"path\": \"docs\"}",
            ),
        ],
    );
}

#[test]
#[ignore = "recaptures examples/agents/ (scripts/capture-payloads.sh)"]
fn capture_copilot() {
    capture_all(
        &COPILOT,
        "copilot",
        &[
            capture(
                "preToolUse-create.json",
                "create",
                "CALL: create {\"path\": \"@PROJECT@/docs/new.md\", \"file_text\": \"hello\\n\"}",
            ),
            capture(
                "preToolUse-edit.json",
                "edit",
                "CALL: view {\"path\": \"@PROJECT@/notes.md\"}\n\
                 CALL: edit {\"path\": \"@PROJECT@/notes.md\", \"old_str\": \"one\", \"new_str\": \"three\"}",
            ),
            capture(
                "preToolUse-view.json",
                "view",
                "CALL: view {\"path\": \"@PROJECT@/notes.md\"}",
            ),
            capture(
                "preToolUse-glob.json",
                "glob",
                "CALL: glob {\"pattern\": \"*.md\", \"path\": \"@PROJECT@/docs\"}",
            ),
            capture(
                "preToolUse-grep.json",
                "grep",
                "CALL: grep {\"pattern\": \"guide\", \"path\": \"@PROJECT@/docs\"}",
            ),
            // On the models that get apply_patch, `rg` takes grep's place.
            capture(
                "preToolUse-rg.json",
                "rg",
                "CALL: rg {\"pattern\": \"guide\", \"path\": \"@PROJECT@/docs\"}",
            )
            .env(GPT_5_5),
            // apply_patch (a freeform tool: the patch is the call's input) is offered to
            // a gpt-5 model that is not plain `gpt-5` (docs/agents.md, "Copilot CLI").
            capture(
                "preToolUse-apply_patch-add.json",
                "apply_patch",
                "CALL: apply_patch \"*** Begin Patch\\n*** Add File: docs/new.md\\n+hello\\n*** End Patch\\n\"",
            )
            .env(GPT_5_5),
            capture(
                "preToolUse-apply_patch-update.json",
                "apply_patch",
                "CALL: apply_patch \"*** Begin Patch\\n*** Update File: notes.md\\n@@\\n-one\\n+three\\n two\\n*** End Patch\\n\"",
            )
            .env(GPT_5_5),
            capture(
                "preToolUse-apply_patch-delete.json",
                "apply_patch",
                "CALL: apply_patch \"*** Begin Patch\\n*** Delete File: notes.md\\n*** End Patch\\n\"",
            )
            .env(GPT_5_5),
            capture(
                "preToolUse-apply_patch-move.json",
                "apply_patch",
                "CALL: apply_patch \"*** Begin Patch\\n*** Update File: notes.md\\n*** Move to: docs/notes.md\\n@@\\n-one\\n+three\\n two\\n*** End Patch\\n\"",
            )
            .env(GPT_5_5),
        ],
    );
}
