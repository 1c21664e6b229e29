//! The four APIs' answers to a step of the script: Anthropic Messages, OpenAI
//! Responses, OpenAI chat completions and Gemini, each in its own stream format.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use super::script::{Step, step};
use super::{ModelRequest, least_of};

fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// The Anthropic Messages API: (content type, body).
pub(super) fn anthropic(request: &ModelRequest, ids: &AtomicUsize) -> (&'static str, String) {
    let id = ids.fetch_add(1, Ordering::Relaxed);
    let tools = request.tool_names();
    let (block, stop) = match step(request) {
        Step::Run(command) if tools.iter().any(|t| t == "Bash") => (
            json!({"type": "tool_use", "id": format!("toolu_{id:04}"), "name": "Bash",
                   "input": {"command": command, "description": "Scripted command"}}),
            "tool_use",
        ),
        Step::Write { path, text } if tools.iter().any(|t| t == "Write") => (
            json!({"type": "tool_use", "id": format!("toolu_{id:04}"), "name": "Write",
                   "input": {"file_path": path, "content": format!("{text}\n")}}),
            "tool_use",
        ),
        Step::Call { tool, arguments } if tools.contains(&tool) => (
            json!({"type": "tool_use", "id": format!("toolu_{id:04}"), "name": tool,
                   "input": request.arguments(&tool, arguments)}),
            "tool_use",
        ),
        Step::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
        _ => (
            json!({"type": "text", "text": "The script's tool is not offered."}),
            "end_turn",
        ),
    };
    let model = request.body["model"].as_str().unwrap_or("claude-scripted");
    let usage = json!({"input_tokens": 10, "output_tokens": 5});
    if request.body["stream"] != true {
        let message = json!({"id": format!("msg_{id:04}"), "type": "message",
            "role": "assistant", "model": model, "content": [block], "stop_reason": stop,
            "stop_sequence": null, "usage": usage});
        return ("application/json", message.to_string());
    }
    let start = if block["type"] == "tool_use" {
        json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}})
    } else {
        json!({"type": "text", "text": ""})
    };
    let delta = if block["type"] == "tool_use" {
        json!({"type": "input_json_delta", "partial_json": block["input"].to_string()})
    } else {
        json!({"type": "text_delta", "text": block["text"]})
    };
    let body = sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": format!("msg_{id:04}"),
                "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": null, "stop_sequence": null, "usage": usage}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop,
                "stop_sequence": null}, "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    ("text/event-stream", body)
}

/// The OpenAI Responses API, streamed.
pub(super) fn responses(request: &ModelRequest, ids: &AtomicUsize) -> String {
    let id = ids.fetch_add(1, Ordering::Relaxed);
    let tools = request.tool_names();
    let has = |name: &str| tools.iter().any(|t| t == name);
    let call_id = format!("call_{id:04}");
    let item = match step(request) {
        Step::Run(command) if has("exec_command") => json!({"type": "function_call",
            "id": format!("fc_{id:04}"), "call_id": call_id, "name": "exec_command",
            "arguments": json!({"cmd": command}).to_string()}),
        Step::Run(command) if has("shell_command") => json!({"type": "function_call",
            "id": format!("fc_{id:04}"), "call_id": call_id, "name": "shell_command",
            "arguments": json!({"command": command}).to_string()}),
        Step::Run(command) if has("shell") => json!({"type": "function_call",
            "id": format!("fc_{id:04}"), "call_id": call_id, "name": "shell",
            "arguments": json!({"command": ["bash", "-lc", command]}).to_string()}),
        Step::Write { path, text } if has("apply_patch") => json!({"type": "custom_tool_call",
            "id": format!("ctc_{id:04}"), "call_id": call_id, "name": "apply_patch",
            "input": format!("*** Begin Patch\n*** Add File: {path}\n+{text}\n*** End Patch\n")}),
        Step::Call { tool, arguments } if has(&tool) => match arguments {
            Value::String(input) => json!({"type": "custom_tool_call",
                "id": format!("ctc_{id:04}"), "call_id": call_id, "name": tool,
                "input": input}),
            arguments => json!({"type": "function_call", "id": format!("fc_{id:04}"),
                "call_id": call_id, "name": tool,
                "arguments": request.arguments(&tool, arguments).to_string()}),
        },
        Step::Text(text) => message_item(id, &text),
        _ => message_item(id, "The script's tool is not offered."),
    };
    let response_id = format!("resp_{id:04}");
    sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": response_id}}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            // The item again in the completed response: Copilot CLI reads it there
            // ("No response was returned" without it), Codex from the events above.
            json!({"type": "response.completed", "response": {"id": response_id,
                "status": "completed", "output": [item],
                "usage": {"input_tokens": 10, "input_tokens_details": null,
                    "output_tokens": 5, "output_tokens_details": null,
                    "total_tokens": 15}}}),
        ),
    ])
}

/// OpenAI chat completions, streamed: the first chunk carries the role and the text or the
/// one tool call (`delta.tool_calls`, its arguments whole), the second the finish reason, a
/// third the usage (asked for by `stream_options.include_usage`), then `[DONE]`.
pub(super) fn chat(request: &ModelRequest, ids: &AtomicUsize) -> String {
    let id = ids.fetch_add(1, Ordering::Relaxed);
    let tools = request.tool_names();
    let has = |name: &str| tools.iter().any(|t| t == name);
    let call = |name: &str, arguments: Value| {
        json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0,
            "id": format!("call_{id:04}"), "type": "function",
            "function": {"name": name, "arguments": arguments.to_string()}}]})
    };
    // The shell and write tools: Copilot's, Qwen Code's, Kimi Code's.
    let shell = ["bash", "run_shell_command", "Bash"]
        .into_iter()
        .find(|t| has(t));
    let write = ["create", "write_file", "Write"]
        .into_iter()
        .find(|t| has(t));
    let (delta, finish) = match (step(request), shell, write) {
        (Step::Run(command), Some(shell), _) => (
            {
                let known = json!({"command": command, "description": "Scripted command"});
                // Copilot's bash is called as it always was.
                let arguments = if shell == "bash" {
                    known
                } else {
                    request.arguments(shell, known)
                };
                call(shell, arguments)
            },
            "tool_calls",
        ),
        (Step::Write { path, text }, _, Some(write)) => {
            let mut arguments = json!({});
            arguments[request.parameter(write, &["path", "file_path"])] = path.into();
            arguments[request.parameter(write, &["file_text", "content"])] =
                format!("{text}\n").into();
            (
                call(write, request.arguments(write, arguments)),
                "tool_calls",
            )
        }
        (Step::Call { tool, arguments }, _, _) if has(&tool) => (
            call(&tool, request.arguments(&tool, arguments)),
            "tool_calls",
        ),
        (Step::Text(text), _, _) => (json!({"role": "assistant", "content": text}), "stop"),
        _ => (
            json!({"role": "assistant", "content": "The script's tool is not offered."}),
            "stop",
        ),
    };
    let model = request.body["model"].as_str().unwrap_or("gpt-4.1");
    let chunk = |choices: Value, usage: Option<Value>| {
        let mut c = json!({"id": format!("chatcmpl-{id:04}"), "object": "chat.completion.chunk",
            "created": 1_700_000_000, "model": model, "choices": choices});
        if let Some(usage) = usage {
            c["usage"] = usage;
        }
        format!("data: {c}\n\n")
    };
    [
        chunk(
            json!([{"index": 0, "delta": delta, "finish_reason": null}]),
            None,
        ),
        chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
            None,
        ),
        chunk(
            json!([]),
            Some(json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})),
        ),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat()
}

/// The Gemini API: `streamGenerateContent?alt=sse` (one `data:` event) or
/// `generateContent` (one JSON answer). A side request that asks for JSON by a schema
/// (`generationConfig.responseSchema` / `responseJsonSchema`) gets the least value of
/// that shape.
pub(super) fn gemini(request: &ModelRequest, _ids: &AtomicUsize, stream: bool) -> String {
    let tools = request.tool_names();
    let has = |name: &str| tools.iter().any(|t| t == name);
    let config = &request.body["generationConfig"];
    let schema = [&config["responseJsonSchema"], &config["responseSchema"]]
        .into_iter()
        .find(|s| !s.is_null());
    let part = match (schema, step(request)) {
        (Some(schema), _) => json!({"text": least_of(schema).to_string()}),
        (None, Step::Run(command)) if has("run_shell_command") => {
            json!({"functionCall": {"name": "run_shell_command", "args": {"command": command}}})
        }
        (None, Step::Write { path, text }) if has("write_file") => json!({"functionCall":
            {"name": "write_file", "args": {"file_path": path, "content": format!("{text}\n")}}}),
        (None, Step::Call { tool, arguments }) if has(&tool) => {
            json!({"functionCall": {"name": tool, "args": request.arguments(&tool, arguments)}})
        }
        (None, Step::Text(text)) => json!({"text": text}),
        _ => json!({"text": "The script's tool is not offered."}),
    };
    let answer = json!({"candidates": [{"content": {"role": "model", "parts": [part]},
        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
            "totalTokenCount": 15},
        "modelVersion": request.path.split("models/").nth(1)
            .and_then(|m| m.split(':').next()).unwrap_or("gemini")});
    if stream {
        format!("data: {answer}\r\n\r\n")
    } else {
        answer.to_string()
    }
}

fn message_item(id: usize, text: &str) -> Value {
    json!({"type": "message", "role": "assistant", "id": format!("msg_{id:04}"),
           "content": [{"type": "output_text", "text": text}]})
}
