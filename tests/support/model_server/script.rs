//! The prompt's script: the next step a request asks of the model (`RUN:`, `WRITE:`,
//! `CALL:` lines, each `CALL:` after the wait of a `WAIT: <ms>` line before it, a tool
//! result quoted, or a short text).

use serde_json::Value;

use super::{ModelRequest, text_of};

/// What the script asks of the model for this request.
pub(super) enum Step {
    Text(String),
    Run(String),
    Write {
        path: String,
        text: String,
    },
    /// `CALL: <tool> <JSON arguments>`: one call of the named tool, as it is (for
    /// capturing the payloads each tool gives a hook). For a custom tool (Codex's
    /// `apply_patch`) the arguments are a JSON string, its input.
    Call {
        tool: String,
        arguments: Value,
    },
}

/// The script's next step. With `CALL:` lines, the next of them (one per tool result
/// so far: a sequence, say a read before an edit), then a final text quoting the last
/// result. Otherwise a final text once a tool result is in the request, else the first
/// `RUN:` or `WRITE:` line of the user's messages, else a short text.
pub(super) fn step(request: &ModelRequest) -> Step {
    if !request.has_tools() {
        return Step::Text("Scripted model.".into());
    }
    let results = request.tool_results();
    let mut user = String::new();
    for message in request.body["messages"].as_array().into_iter().flatten() {
        if message["role"] == "user" {
            user.push_str(&text_of(&message["content"]));
            user.push('\n');
        }
    }
    for item in request.body["input"].as_array().into_iter().flatten() {
        if item["role"] == "user" {
            user.push_str(&text_of(&item["content"]));
            user.push('\n');
        }
    }
    for (role, text) in request.messages() {
        if role == "user" && !request.body["contents"].is_null() {
            user.push_str(&text);
            user.push('\n');
        }
    }
    // Each call with the wait a `WAIT: <ms>` line before it asks for: the model's own time
    // to answer, in which the agent may act on a file the previous call wrote.
    let mut calls: Vec<(u64, &str)> = Vec::new();
    let mut wait = 0;
    for line in user.lines().map(str::trim) {
        if let Some(ms) = line.strip_prefix("WAIT: ") {
            wait = ms.parse().unwrap_or(0);
        } else if let Some(call) = line.strip_prefix("CALL: ") {
            calls.push((std::mem::take(&mut wait), call));
        }
    }
    if let Some((wait, rest)) = calls.get(results.len()) {
        std::thread::sleep(std::time::Duration::from_millis(*wait));
        let (tool, arguments) = rest.split_once(' ').unwrap_or((rest, "{}"));
        return Step::Call {
            tool: tool.to_string(),
            arguments: serde_json::from_str(arguments).unwrap_or(Value::Null),
        };
    }
    // Several `RUN:` lines: one shell call each, in order, one per tool result so far (a
    // move the agent makes, then the call that must still be judged).
    let runs: Vec<&str> = user
        .lines()
        .filter_map(|l| l.trim().strip_prefix("RUN: "))
        .collect();
    if runs.len() > 1
        && let Some(command) = runs.get(results.len())
    {
        return Step::Run(command.to_string());
    }
    if let Some(last) = results.last() {
        return Step::Text(format!("RESULT: {last}"));
    }
    for line in user.lines() {
        let line = line.trim();
        if let Some(command) = line.strip_prefix("RUN: ") {
            return Step::Run(command.to_string());
        }
        if let Some(rest) = line.strip_prefix("WRITE: ") {
            // The text is the last word: the path may hold blanks (a checkout's path can).
            let (path, text) = rest.rsplit_once(' ').unwrap_or((rest, ""));
            return Step::Write {
                path: path.to_string(),
                text: text.to_string(),
            };
        }
    }
    Step::Text("Nothing to do.".into())
}
