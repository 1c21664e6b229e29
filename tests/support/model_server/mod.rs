//! A scripted model on 127.0.0.1, for driving the real agent CLIs offline
//! (`tests/it/real_agents/`). Standard library only: a `TcpListener`, a thread per
//! connection, HTTP/1.1 with one request per connection (`Connection: close`), answers
//! streamed as server-sent events with a `Content-Length`.
//!
//! It speaks two APIs, chosen by the request's path:
//! - `POST …/messages`: the Anthropic Messages API (Claude Code), streamed
//!   (`message_start`, `content_block_start`/`_delta`/`_stop`, `message_delta`,
//!   `message_stop`), or one JSON message when the request does not ask for a stream;
//! - `POST …/responses`: the OpenAI Responses API (Codex), streamed (`response.created`,
//!   `response.output_item.added`/`.done`, `response.completed`);
//! - `POST …/models/M:streamGenerateContent?alt=sse` and `…:generateContent`: the Gemini
//!   API (Gemini CLI), one `data:` event or one JSON answer;
//! - `POST …/chat/completions`: OpenAI chat completions (Copilot CLI's BYOK provider),
//!   streamed (`chat.completion.chunk` events, a tool call as `choices[0].delta.tool_calls`,
//!   a usage chunk, `data: [DONE]`).
//!
//! The prompt carries the script. A line `RUN: <command>` asks for one call of the
//! agent's shell tool (its name taken from the request's `tools`: `Bash`;
//! `exec_command`, `shell_command` or `shell`; `run_shell_command`; `bash`), a line
//! `WRITE: <path> <text>` for one file write (`Write`; Codex's `apply_patch`, a custom
//! tool whose input is the patch; `write_file`; Copilot's `create`; Qwen Code's
//! `run_shell_command`/`write_file`, Kimi Code's `Bash`/`Write`, their parameter names
//! taken from the tool's schema). `CALL: <tool> <JSON>` lines call tools by name, one per
//! turn, in order (for capturing each tool's payload); several `RUN:` lines likewise run
//! one shell call each, in order.
//! Once a tool result is in a request (the last, with several), the answer is a final text quoting it
//! (`RESULT: …`). A request without tools, or with no script line, gets a short text.
//!
//! Every request is logged ([`ModelServer::requests`]), so a test can assert what the
//! model read: the hook's reason in a tool result, a prompt hook's context, or no request
//! at all for a blocked prompt.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

mod apis;
mod script;

use apis::{anthropic, chat, gemini, responses};

/// One request the model server answered.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub method: String,
    pub path: String,
    /// The body, parsed (`Value::Null` when it is not JSON).
    pub body: Value,
    /// The body as sent.
    pub raw: String,
}

impl ModelRequest {
    /// Whether the request offers the model any tools.
    pub fn has_tools(&self) -> bool {
        self.body["tools"].as_array().is_some_and(|t| !t.is_empty())
    }

    /// The names of the tools the request offers.
    pub fn tool_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for tool in self.body["tools"].as_array().into_iter().flatten() {
            if let Some(name) = tool["name"].as_str() {
                out.push(name.to_string());
            }
            // Chat completions: {"type": "function", "function": {"name": …}}
            if let Some(name) = tool["function"]["name"].as_str() {
                out.push(name.to_string());
            }
            // Gemini: {"functionDeclarations": [{"name": …}, …]}
            for f in tool["functionDeclarations"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if let Some(name) = f["name"].as_str() {
                    out.push(name.to_string());
                }
            }
        }
        out
    }

    /// The texts of the tool results this request hands the model, in order: Anthropic
    /// `tool_result` blocks, Responses `function_call_output` / `custom_tool_call_output`
    /// items, Gemini `functionResponse` parts (their `output` or `error`, else the JSON),
    /// chat completions' `role: "tool"` messages.
    pub fn tool_results(&self) -> Vec<String> {
        let mut out = Vec::new();
        for content in self.body["contents"].as_array().into_iter().flatten() {
            for part in content["parts"].as_array().into_iter().flatten() {
                let response = &part["functionResponse"]["response"];
                if !response.is_null() {
                    out.push(
                        response["output"]
                            .as_str()
                            .or_else(|| response["error"].as_str())
                            .map_or_else(|| response.to_string(), str::to_string),
                    );
                }
            }
        }
        for message in self.body["messages"].as_array().into_iter().flatten() {
            if message["role"] == "tool" {
                out.push(text_of(&message["content"]));
                continue;
            }
            for block in message["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_result" {
                    out.push(text_of(&block["content"]));
                }
            }
        }
        for item in self.body["input"].as_array().into_iter().flatten() {
            let kind = item["type"].as_str().unwrap_or_default();
            if kind == "function_call_output" || kind == "custom_tool_call_output" {
                out.push(text_of(&item["output"]));
            }
        }
        out
    }

    /// Each message of the conversation as (role, text): Anthropic `messages`, Responses
    /// `input` items that have a role, Gemini `contents` (their text parts).
    pub fn messages(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for c in self.body["contents"].as_array().into_iter().flatten() {
            let texts: Vec<&str> = c["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["text"].as_str())
                .collect();
            out.push((
                c["role"].as_str().unwrap_or_default().to_string(),
                texts.join("\n"),
            ));
        }
        for list in [&self.body["messages"], &self.body["input"]] {
            for m in list.as_array().into_iter().flatten() {
                if let Some(role) = m["role"].as_str() {
                    out.push((role.to_string(), text_of(&m["content"])));
                }
            }
        }
        out
    }

    /// The JSON schema of the parameters of the tool `name` offers, or `Null`.
    pub fn tool_schema(&self, name: &str) -> Value {
        for tool in self.body["tools"].as_array().into_iter().flatten() {
            if tool["name"] == name {
                let schema = &tool["input_schema"];
                return if schema.is_null() {
                    tool["parameters"].clone()
                } else {
                    schema.clone()
                };
            }
            if tool["function"]["name"] == name {
                return tool["function"]["parameters"].clone();
            }
            for f in tool["functionDeclarations"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if f["name"] == name {
                    let schema = &f["parametersJsonSchema"];
                    return if schema.is_null() {
                        f["parameters"].clone()
                    } else {
                        schema.clone()
                    };
                }
            }
        }
        Value::Null
    }

    /// `known` arguments for a call of `name`, with each required parameter the tool's
    /// schema names and `known` lacks filled by the least value of its shape (Qwen Code's
    /// `run_shell_command` requires `is_background`, for one).
    pub fn arguments(&self, name: &str, known: Value) -> Value {
        let schema = self.tool_schema(name);
        let mut out = known;
        for required in schema["required"].as_array().into_iter().flatten() {
            let Some(key) = required.as_str() else {
                continue;
            };
            if out.get(key).is_none() {
                out[key] = least_of(&schema["properties"][key]);
            }
        }
        out
    }

    /// The first of `names` that the schema of `tool` has as a parameter.
    pub fn parameter(&self, tool: &str, names: &[&'static str]) -> &'static str {
        let schema = self.tool_schema(tool);
        names
            .iter()
            .find(|n| !schema["properties"][**n].is_null())
            .copied()
            .unwrap_or(names[0])
    }

    /// Every text the request holds (system prompt, messages, instructions, input), one
    /// string: what the model read.
    pub fn all_text(&self) -> String {
        let mut out = String::new();
        collect_text(&self.body, &mut out);
        out
    }
}

/// A string, or the texts of a list of content blocks / output parts, joined.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| {
                p["text"]
                    .as_str()
                    .map_or_else(|| text_of(p), str::to_string)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => o
            .get("text")
            .or_else(|| o.get("output"))
            .or_else(|| o.get("content"))
            .map(text_of)
            .unwrap_or_default(),
        _ => String::new(),
    }
}

fn collect_text(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|i| collect_text(i, out)),
        Value::Object(o) => o
            .iter()
            .filter(|(k, _)| k.as_str() != "tools")
            .for_each(|(_, v)| collect_text(v, out)),
        _ => {}
    }
}

/// The scripted model: bound to 127.0.0.1 on a free port, answering until dropped.
pub struct ModelServer {
    pub port: u16,
    log: Arc<Mutex<Vec<ModelRequest>>>,
}

impl ModelServer {
    pub fn start() -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let ids = Arc::new(AtomicUsize::new(1));
        let shared = Arc::clone(&log);
        // The accept loop ends with the test process; an idle listener costs nothing.
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = Arc::clone(&shared);
                let ids = Arc::clone(&ids);
                std::thread::spawn(move || {
                    let _ = serve(stream, &log, &ids);
                });
            }
        });
        ModelServer { port, log }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request answered so far, in order.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.log.lock().unwrap().clone()
    }

    /// The requests that offered the model tools (the agent's turns, not its side
    /// requests for titles and the like).
    pub fn turns(&self) -> Vec<ModelRequest> {
        self.requests()
            .into_iter()
            .filter(ModelRequest::has_tools)
            .collect()
    }

    /// Every tool result the model was handed, over all requests, without repeats.
    pub fn tool_results(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in self.requests() {
            for t in r.tool_results() {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        out
    }
}

/// Reads one request, logs it, answers it, closes.
fn serve(
    stream: TcpStream,
    log: &Mutex<Vec<ModelRequest>>,
    ids: &AtomicUsize,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
        let lower = header.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
    let body = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        body
    };
    let raw = String::from_utf8_lossy(&body).into_owned();
    let request = ModelRequest {
        method,
        path: path.clone(),
        body: serde_json::from_str(&raw).unwrap_or(Value::Null),
        raw,
    };
    let (content_type, answer) = if path.contains(":streamGenerateContent") {
        ("text/event-stream", gemini(&request, ids, true))
    } else if path.contains(":generateContent") {
        ("application/json", gemini(&request, ids, false))
    } else if path.contains(":countTokens") {
        ("application/json", json!({"totalTokens": 10}).to_string())
    } else if path.contains("/messages") && request.method == "POST" {
        anthropic(&request, ids)
    } else if path.contains("/responses") && request.method == "POST" {
        ("text/event-stream", responses(&request, ids))
    } else if path.contains("/chat/completions") && request.method == "POST" {
        ("text/event-stream", chat(&request, ids))
    } else {
        (
            "application/json",
            json!({"object": "list", "data": []}).to_string(),
        )
    };
    log.lock().unwrap().push(request);
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n{answer}",
        answer.len()
    )?;
    stream.flush()
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size =
            usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        if size == 0 {
            let mut end = String::new();
            reader.read_line(&mut end)?;
            return Ok(body);
        }
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk)?;
        chunk.truncate(size);
        body.extend(chunk);
    }
}

/// The least value of a JSON schema's shape: its required properties filled in.
fn least_of(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    let kind = schema["type"]
        .as_str()
        .unwrap_or("object")
        .to_ascii_lowercase();
    match kind.as_str() {
        "object" => {
            let mut out = serde_json::Map::new();
            if let Some(props) = schema["properties"].as_object() {
                for (name, sub) in props {
                    out.insert(name.clone(), least_of(sub));
                }
            }
            Value::Object(out)
        }
        "array" => json!([]),
        "string" => json!(""),
        "integer" | "number" => json!(1),
        "boolean" => json!(false),
        _ => Value::Null,
    }
}
