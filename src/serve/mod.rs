//! `hookhost serve`: one long-lived session for an embedding agent, as JSON lines.
//!
//! One JSON object per line each way, UTF-8, `\n`-terminated.
//!
//! # Out: the first line
//!
//! ```text
//! {"type":"ready","banner":"hooks: no-force-push (bash, exec)","warnings":[]}
//! ```
//!
//! or, when the session cannot start (a load error or a guard refusal, the same text
//! `check` prints), this line and exit status 2:
//!
//! ```text
//! {"type":"refused","error":"/home/dana/.config/harness/config.toml: hook x: unknown key \"matcher\": …"}
//! ```
//!
//! # In: requests
//!
//! ```text
//! {"id":1,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"git push -f"},"tool_use_id":"toolu_1"}
//! {"id":"p1","type":"user_prompt_submit","prompt":"ooo seed my requirements"}
//! {"type":"cancel","id":1}
//! {"type":"end_turn"}
//! ```
//!
//! - `id` is a number or a string, chosen by the client, and echoed exactly as given.
//!   `1` and `"1"` are different ids. An id may be reused once its answer is out.
//! - `tool_use_id` is optional (a `toolu_…` id is generated); `tool_input` must be an
//!   object.
//! - Fields this module does not know are ignored, so that a newer client still talks
//!   to an older session.
//! - `cancel` stops that request's running hook at once (its whole process group); the
//!   request is answered `interrupted`. `cancel` itself has no answer, except an error
//!   line when no request with that id is running (unknown, or already answered).
//! - `end_turn` starts a new turn ([`Session::end_turn`]): failure warnings may be shown
//!   again. It has no answer. Requests read after it run in the new turn.
//!
//! # Out: answers
//!
//! Each request is answered with the `--json` verdict (the serde of
//! [`crate::dispatch::Verdict`]) plus its `id`, first:
//!
//! ```text
//! {"id":1,"outcome":"block","message":"blocked by the user's hook \"no-force-push\": force-push is not allowed here","hook":"no-force-push","context":[],"warnings":[]}
//! {"id":"p1","outcome":"allow","message":null,"hook":null,"context":[{"hook":"keywords","text":"…"}],"warnings":[]}
//! ```
//!
//! Requests run concurrently (one task each); answers come out as they finish, so they
//! may be out of order. Within one request the hooks run in file order and the first
//! block wins. Every line is written whole: lines never interleave.
//!
//! Load changes only latency. WASM runs wait for one of the pool's slots, hook processes
//! for one of the slots the open-file limit allows, and a hook's timeout starts when it
//! runs. A client that stops reading its answers is not answered into memory: with
//! [`MAX_UNANSWERED`] answers waiting unwritten, no more input is read until it reads.
//!
//! A line that is not a request (not JSON, not an object, an unknown `type`, a missing
//! or mistyped field, an id already running, a line over [`MAX_LINE`] bytes) is answered
//! with an error line, with the `id` when it could be read, and the server goes on:
//!
//! ```text
//! {"type":"error","id":2,"error":"missing field \"tool_name\" in a pre_tool_use request"}
//! ```
//!
//! Blank lines are skipped.
//!
//! # The end
//!
//! At end of input the server waits for the requests still running, answers them,
//! flushes stdout and exits 0. SIGINT or SIGTERM interrupts every request in flight
//! (each is answered `interrupted`), reads no more input, flushes, and exits 130 for
//! SIGINT or 143 for SIGTERM, as a shell reports a process killed by that signal.
//!
//! When stdout cannot be written (the client closed its end: EPIPE), no answer can reach
//! anyone: serve says so on stderr, interrupts every request in flight (their hooks are
//! stopped, and the record says `interrupted`), reads no more input and exits 141, as a
//! shell reports a process killed by SIGPIPE.

mod stdio;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinSet;

use crate::dispatch::Verdict;
use crate::executor::CancellationToken;
use crate::panics::catching_panics;
use crate::session::{Session, StartError};

/// The longest request line read, in bytes (without its newline). A longer line is
/// answered with an error and skipped up to its newline without being kept in memory.
pub const MAX_LINE: usize = 16 << 20;

/// How many answers (and error lines) may wait, unwritten, before `serve` reads no more
/// input: a client that stops reading its answers then stops being served, and memory
/// stays bounded, rather than every answer piling up in memory (docs/threats.md#f11).
pub const MAX_UNANSWERED: usize = 4096;

/// A line for the writer, and the slot it holds until it is written.
type Out = (String, Option<OwnedSemaphorePermit>);

// `serve` shares one `Session` between the tasks of concurrent requests.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Session>();
};

/// The first line when the session started.
#[derive(Debug, Serialize)]
pub struct Ready<'a> {
    /// Always `"ready"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The spec's banner line.
    pub banner: &'a str,
    /// Start-up warnings, the spec's lines.
    pub warnings: &'a [String],
}

/// The first and only line when the session could not start.
#[derive(Debug, Serialize)]
pub struct Refused {
    /// Always `"refused"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The load error or the refusal, as `check` prints it.
    pub error: String,
}

/// A line that could not be served.
#[derive(Debug, Serialize)]
pub struct ErrorLine<'a> {
    /// Always `"error"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The request's id, when it could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a Id>,
    /// What is wrong.
    pub error: &'a str,
}

/// A request's id exactly as the client wrote it (a JSON number or string), echoed byte
/// for byte: read as a JSON value, `-0` would come back `-0.0` and an integer above
/// 2^64 as a float. Two ids are the same id when they are written the same.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Id(String);

impl Id {
    /// The id of a JSON value, as `serde_json` writes it (for ids made in code).
    pub fn of(value: &Value) -> Id {
        Id(value.to_string())
    }

    /// The id's JSON text.
    pub fn as_json(&self) -> &str {
        &self.0
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw = serde_json::value::RawValue::from_string(self.0.clone())
            .map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// The answer to one request: the `--json` verdict plus the request's id.
#[derive(Debug, Serialize)]
pub struct Answer<'a> {
    /// The request's id, as given.
    pub id: &'a Id,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: &'a Verdict,
}

/// One request line, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `{"id":ID,"type":"pre_tool_use","tool_name":S,"tool_input":{…},"tool_use_id":S}`
    PreToolUse {
        /// The request's id.
        id: Id,
        /// The tool's name.
        tool_name: String,
        /// The call's arguments (an object).
        tool_input: Value,
        /// The call's id; generated when absent.
        tool_use_id: Option<String>,
    },
    /// `{"id":ID,"type":"user_prompt_submit","prompt":S}`
    Prompt {
        /// The request's id.
        id: Id,
        /// The prompt's text.
        prompt: String,
    },
    /// `{"type":"cancel","id":ID}`
    Cancel {
        /// The id of the request to stop.
        id: Id,
    },
    /// `{"type":"end_turn"}`
    EndTurn,
}

/// Why a line is not a request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct BadRequest {
    /// The request's id, when it could be read.
    pub id: Option<Id>,
    /// What is wrong.
    pub message: String,
}

impl Request {
    /// Parses one line (without its newline).
    pub fn parse(line: &[u8]) -> Result<Request, BadRequest> {
        let bad = |id: Option<&Id>, message: String| BadRequest {
            id: id.cloned(),
            message,
        };
        let value: Value = serde_json::from_slice(line)
            .map_err(|e| bad(None, format!("the line is not JSON: {e}")))?;
        let Value::Object(mut object) = value else {
            return Err(bad(None, "a request must be a JSON object".into()));
        };
        let id = match object.get("id") {
            None | Some(Value::Null) => None,
            Some(id @ (Value::Number(_) | Value::String(_))) => Some(written_id(line, id)),
            Some(_) => return Err(bad(None, "\"id\" must be a number or a string".into())),
        };
        let id = id.as_ref();
        let kind = match object.get("type") {
            None => return Err(bad(id, "missing field \"type\"".into())),
            Some(Value::String(kind)) => kind.as_str(),
            Some(_) => return Err(bad(id, "\"type\" must be a string".into())),
        };
        let need_id = || {
            id.cloned()
                .ok_or_else(|| bad(None, format!("missing field \"id\" in a {kind} request")))
        };
        let string = |field: &str| match object.get(field) {
            None | Some(Value::Null) => Err(bad(
                id,
                format!("missing field \"{field}\" in a {kind} request"),
            )),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(bad(id, format!("\"{field}\" must be a string"))),
        };
        match kind {
            "pre_tool_use" => {
                let id = need_id()?;
                let tool_name = string("tool_name")?;
                match object.get("tool_input") {
                    None | Some(Value::Null) => {
                        return Err(bad(
                            Some(&id),
                            "missing field \"tool_input\" in a pre_tool_use request".into(),
                        ));
                    }
                    Some(Value::Object(_)) => {}
                    Some(_) => {
                        return Err(bad(Some(&id), "\"tool_input\" must be an object".into()));
                    }
                }
                let tool_use_id = match object.get("tool_use_id") {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(string("tool_use_id")?),
                };
                // Taken out of the line's object rather than copied (an object: above).
                let tool_input = object.remove("tool_input").unwrap_or_default();
                Ok(Request::PreToolUse {
                    id,
                    tool_name,
                    tool_input,
                    tool_use_id,
                })
            }
            "user_prompt_submit" => {
                let id = need_id()?;
                let prompt = string("prompt")?;
                Ok(Request::Prompt { id, prompt })
            }
            "cancel" => Ok(Request::Cancel { id: need_id()? }),
            "end_turn" => Ok(Request::EndTurn),
            other => Err(bad(
                id,
                format!(
                    "unknown type \"{other}\": use pre_tool_use, user_prompt_submit, cancel or end_turn"
                ),
            )),
        }
    }
}

/// How [`run`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// End of input: every request was answered.
    EndOfInput,
    /// `interrupt` fired: every request in flight was interrupted and answered.
    Interrupted,
    /// The output could not be written: every request in flight was interrupted.
    OutputClosed,
}

/// The `ready` line for `session`.
pub fn ready_line(session: &Session) -> String {
    to_line(&Ready {
        kind: "ready",
        banner: session.banner(),
        warnings: session.warnings(),
    })
}

/// The `refused` line for a session that could not start.
pub fn refused_line(error: &StartError) -> String {
    to_line(&Refused {
        kind: "refused",
        error: error.to_string(),
    })
}

/// An `error` line.
pub fn error_line(id: Option<&Id>, error: &str) -> String {
    to_line(&ErrorLine {
        kind: "error",
        id,
        error,
    })
}

/// The verdict for a request whose judging panicked: blocked, saying so. Not a policy's
/// block (no hook is named), and never "allow", which nothing decided.
fn refused_by_a_panic(panic: &str) -> Verdict {
    Verdict {
        outcome: crate::dispatch::Outcome::Block,
        message: Some(format!(
            "hookhost failed while it judged this request ({panic}), so it was blocked. This is not a policy decision: it is a bug in hookhost."
        )),
        hook: None,
        context: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The answer line for request `id`: [`Answer`]'s text, `{"id":` and the id as written,
/// then the verdict's fields, made without serde's flattening map and without checking
/// the id's text again as JSON (it was read as such).
pub fn answer_line(id: &Id, verdict: &Verdict) -> String {
    let fields = to_line(verdict);
    let mut line = String::with_capacity(8 + id.0.len() + fields.len());
    line.push_str("{\"id\":");
    line.push_str(&id.0);
    // The verdict is a struct of five fields: never `{}`.
    match fields.strip_prefix('{') {
        Some(rest) if rest != "}" => {
            line.push(',');
            line.push_str(rest);
        }
        _ => line.push('}'),
    }
    line
}

fn to_line(value: &impl Serialize) -> String {
    // Serializing these types cannot fail (string keys, no maps with other keys); an
    // empty object is a safe line should it ever.
    serde_json::to_string(value).unwrap_or_else(|_| "{}".into())
}

/// The requests in flight, by the canonical JSON of their id.
type InFlight = Arc<Mutex<HashMap<String, CancellationToken>>>;

fn lock(map: &InFlight) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
    map.lock().unwrap_or_else(|p| p.into_inner())
}

/// Serves `session` from `input` to `output` until end of input or until `interrupt`
/// fires: writes the `ready` line, then answers requests as the module docs say.
///
/// Runs each request as its own task, so call it inside a multi-thread runtime for the
/// requests to run in parallel. On return every request has been answered and `output`
/// flushed.
pub async fn run<R, W>(
    session: Arc<Session>,
    input: R,
    output: W,
    interrupt: CancellationToken,
) -> Ended
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (lines, receiver) = mpsc::unbounded_channel::<Out>();
    let unanswered = Arc::new(Semaphore::new(MAX_UNANSWERED));
    // Cancelled by `interrupt`, or by the writer when the output is gone.
    let stop = interrupt.child_token();
    let in_flight: InFlight = Arc::default();
    let writer = tokio::spawn(write_lines(
        receiver,
        output,
        stop.clone(),
        in_flight.clone(),
    ));
    let _ = lines.send((ready_line(&session), None));

    let mut tasks = JoinSet::new();
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    loop {
        // A slot for what this line may be answered with, before it is read: with every
        // slot taken by answers the client has not read, input waits.
        let slot = tokio::select! {
            biased;
            _ = stop.cancelled() => break,
            slot = unanswered.clone().acquire_owned() => slot.ok(),
        };
        let line = tokio::select! {
            biased;
            _ = stop.cancelled() => break,
            line = read_line(&mut reader, MAX_LINE) => line,
        };
        // Forget the tasks that are done, so the set stays small in a long session.
        while tasks.try_join_next().is_some() {}
        let bytes = match line {
            Ok(None) => break,
            Err(e) => {
                let _ = lines.send((
                    error_line(None, &format!("cannot read the input: {e}")),
                    slot,
                ));
                break;
            }
            Ok(Some(Line::TooLong)) => {
                let error = error_line(
                    None,
                    &format!(
                        "the line is longer than {} MiB; it was skipped",
                        MAX_LINE >> 20
                    ),
                );
                let _ = lines.send((error, slot));
                continue;
            }
            Ok(Some(Line::Text(bytes))) => bytes,
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let request = match Request::parse(&bytes) {
            Ok(request) => request,
            Err(bad) => {
                let _ = lines.send((error_line(bad.id.as_ref(), &bad.message), slot));
                continue;
            }
        };
        let id = match &request {
            Request::EndTurn => {
                session.end_turn();
                continue;
            }
            Request::Cancel { id } => {
                match lock(&in_flight).get(&id_key(id)) {
                    Some(token) => token.cancel(),
                    None => {
                        let error = error_line(
                            Some(id),
                            &format!("no request with id {} is running", id_key(id)),
                        );
                        let _ = lines.send((error, slot));
                    }
                }
                continue;
            }
            Request::PreToolUse { id, .. } | Request::Prompt { id, .. } => id.clone(),
        };
        let key = id_key(&id);
        let token = stop.child_token();
        {
            let mut running = lock(&in_flight);
            if running.contains_key(&key) {
                drop(running);
                let error = error_line(
                    Some(&id),
                    &format!("a request with id {key} is already running"),
                );
                let _ = lines.send((error, slot));
                continue;
            }
            running.insert(key.clone(), token.clone());
        }
        let session = session.clone();
        let lines = lines.clone();
        let in_flight = in_flight.clone();
        tasks.spawn(async move {
            let judged = async {
                match request {
                    Request::PreToolUse {
                        tool_name,
                        tool_input,
                        tool_use_id,
                        ..
                    } => Some(
                        session
                            .pre_tool_use(&tool_name, tool_input, tool_use_id.as_deref(), &token)
                            .await,
                    ),
                    Request::Prompt { prompt, .. } => Some(session.prompt(&prompt, &token).await),
                    Request::Cancel { .. } | Request::EndTurn => None,
                }
            };
            // A panic is answered too: a request without an answer is waited for forever.
            let verdict = match catching_panics(judged).await {
                Ok(Some(verdict)) => verdict,
                Ok(None) => return,
                Err(panic) => refused_by_a_panic(&panic),
            };
            // Out of the map first, so that a client may reuse the id as soon as it
            // reads the answer.
            lock(&in_flight).remove(&key);
            let _ = lines.send((answer_line(&id, &verdict), slot));
        });
    }
    // End of input or interrupt: the requests still running finish (an interrupt has
    // already cancelled them through their child tokens, so they end promptly).
    while tasks.join_next().await.is_some() {}
    // The record is flushed line by line as events happen; the last answers' lines are
    // written by the time their writer has finished.
    drop(lines);
    let _ = writer.await;
    if interrupt.is_cancelled() {
        Ended::Interrupted
    } else if stop.is_cancelled() {
        Ended::OutputClosed
    } else {
        Ended::EndOfInput
    }
}

/// The single writer: whole lines, flushed one by one, in the order they were sent.
/// When the output fails, it cancels `stop` (see the module docs) and drops the rest.
///
/// With other requests still running (`in_flight`), it first lets the worker run the
/// tasks that are ready, so that the answers they finish meanwhile go out in the same
/// write: each write to the client's pipe wakes the client, and at 64 in flight a write
/// per answer (the writer ran right after each answering task, in tokio's LIFO slot)
/// was a quarter of serve's CPU, in the kernel's wake-up. One request at a time, the
/// answer is written at once.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut receiver: mpsc::UnboundedReceiver<Out>,
    mut out: W,
    stop: CancellationToken,
    in_flight: InFlight,
) {
    let mut broken = false;
    let mut batch = String::new();
    // The slots of the lines in the batch, given back once it is written.
    let mut slots = Vec::new();
    while let Some((line, slot)) = receiver.recv().await {
        if broken {
            continue;
        }
        slots.extend(slot);
        if !lock(&in_flight).is_empty() {
            // Woken again once the worker has no other task ready (tokio's `yield_now`).
            tokio::task::yield_now().await;
        }
        // The lines already waiting go out in the same write and flush: stdout's writes
        // go through tokio's blocking pool, one round trip each.
        batch.clear();
        batch.push_str(&line);
        batch.push('\n');
        while let Ok((line, slot)) = receiver.try_recv() {
            slots.extend(slot);
            batch.push_str(&line);
            batch.push('\n');
        }
        let written = match out.write_all(batch.as_bytes()).await {
            Ok(()) => out.flush().await,
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            // The reader went away; keep draining so that senders never block.
            broken = true;
            // Not eprintln!, which panics when the write fails: stderr may be the same
            // broken pipe (`2>&1`).
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "hookhost serve: cannot write an answer to stdout ({e}); the client is gone, so the requests in flight are interrupted and serve stops."
            );
            stop.cancel();
        }
        // Written (or dropped): their slots go back, and input may be read again.
        slots.clear();
    }
    let _ = out.flush().await;
}

/// The id as the line wrote it (its raw JSON text), or as read when the line names
/// `id` twice (the value read is the last one).
fn written_id(line: &[u8], read: &Value) -> Id {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    match serde_json::from_slice::<Head<'_>>(line) {
        Ok(Head { id: Some(raw) }) => Id(raw.get().to_string()),
        _ => Id::of(read),
    }
}

/// The key of an id in the in-flight map: its JSON as written, so `1` and `"1"` differ.
fn id_key(id: &Id) -> String {
    id.as_json().to_string()
}

/// One line of input.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// The line's bytes, without the newline (and a trailing `\r`).
    Text(Vec<u8>),
    /// The line was longer than the cap; its bytes were dropped.
    TooLong,
}

/// Reads one line of at most `max` bytes. A longer line is consumed up to its newline
/// without being kept. `None` at end of input. A last line without a newline counts.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(match (too_long, buf.is_empty()) {
                (true, _) => Some(Line::TooLong),
                (false, true) => None,
                (false, false) => Some(Line::Text(buf)),
            });
        }
        let newline = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        if !too_long {
            if buf.len() + part.len() > max {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(part);
            }
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        reader.consume(used);
        if newline.is_some() {
            if too_long {
                return Ok(Some(Line::TooLong));
            }
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Some(Line::Text(buf)));
        }
    }
}

/// Serves `session` on the process's own stdin and stdout (see [`run`]) until end of
/// input, a closed stdout or `interrupt`.
///
/// Runs inside a multi-thread runtime (the command line builds one for `serve`). Stdin and
/// stdout are set up for serving first and restored when it ends. `Err` when the serving
/// task itself stopped (a panic), which answers no more requests.
pub async fn run_on_stdio(
    session: Session,
    interrupt: CancellationToken,
) -> Result<Ended, tokio::task::JoinError> {
    let stdio::Stdio {
        input,
        output,
        flags,
    } = stdio::Stdio::open();
    // On a worker rather than the thread that called `block_on`: the reactor wakes the
    // reader on the worker that polled the pipe, and each request task starts on that
    // same worker, with no hand-off to another thread in between.
    let ended = tokio::spawn(run(Arc::new(session), input, output, interrupt)).await;
    drop(flags);
    ended
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_the_four_requests() {
        let r = Request::parse(
            br#"{"id":1,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#,
        );
        assert_eq!(
            r,
            Ok(Request::PreToolUse {
                id: Id::of(&json!(1)),
                tool_name: "bash".into(),
                tool_input: json!({"command":"ls"}),
                tool_use_id: Some("t1".into()),
            })
        );
        let r = Request::parse(br#"{"id":"a","type":"user_prompt_submit","prompt":"hi"}"#);
        assert_eq!(
            r,
            Ok(Request::Prompt {
                id: Id::of(&json!("a")),
                prompt: "hi".into()
            })
        );
        assert_eq!(
            Request::parse(br#"{"type":"cancel","id":"a"}"#),
            Ok(Request::Cancel {
                id: Id::of(&json!("a"))
            })
        );
        assert_eq!(
            Request::parse(br#"{"type":"end_turn","extra":1}"#),
            Ok(Request::EndTurn)
        );
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let e = |line: &str| Request::parse(line.as_bytes()).unwrap_err();
        assert!(e("nope").message.starts_with("the line is not JSON"));
        assert_eq!(e("[1]").message, "a request must be a JSON object");
        assert_eq!(
            e(r#"{"id":{}}"#).message,
            "\"id\" must be a number or a string"
        );
        let bad = e(r#"{"id":3}"#);
        assert_eq!(
            (bad.id, bad.message.as_str()),
            (Some(Id::of(&json!(3))), "missing field \"type\"")
        );
        let bad = e(r#"{"id":3,"type":"pre_tool_use","tool_input":{}}"#);
        assert_eq!(
            bad.message,
            "missing field \"tool_name\" in a pre_tool_use request"
        );
        let bad = e(r#"{"id":3,"type":"pre_tool_use","tool_name":"bash","tool_input":[]}"#);
        assert_eq!(bad.message, "\"tool_input\" must be an object");
        let bad = e(r#"{"type":"user_prompt_submit","prompt":"x"}"#);
        assert_eq!(
            (bad.id, bad.message.as_str()),
            (None, "missing field \"id\" in a user_prompt_submit request")
        );
        assert!(
            e(r#"{"id":"x","type":"bogus"}"#)
                .message
                .starts_with("unknown type \"bogus\"")
        );
    }

    /// A request whose judging panicked is answered, blocked, naming no hook: the
    /// client waiting for its id is never left waiting, nor told "allow".
    #[test]
    fn a_panic_is_answered_as_a_block_that_names_no_hook() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let judged = runtime.block_on(catching_panics(async { panic!("a verdict") }));
        let line = answer_line(
            &Id::of(&json!(7)),
            &refused_by_a_panic(&judged.unwrap_err()),
        );
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], json!(7));
        assert_eq!(answer["outcome"], json!("block"));
        assert_eq!(answer["hook"], Value::Null);
        let message = answer["message"].as_str().unwrap();
        assert!(message.contains("(a verdict)"), "{message}");
        assert!(message.contains("it is a bug in hookhost"), "{message}");
    }

    #[test]
    fn answer_lines_are_the_answers_serde() {
        let block = Verdict {
            outcome: crate::dispatch::Outcome::Block,
            message: Some("no \"x\"\n".into()),
            hook: Some("h".into()),
            context: Vec::new(),
            warnings: vec!["w\u{e9}".into()],
        };
        for verdict in [Verdict::allow(), block] {
            for id in [json!(1), json!("a\"b"), json!(-1.5)] {
                let id = Id::of(&id);
                assert_eq!(
                    answer_line(&id, &verdict),
                    to_line(&Answer {
                        id: &id,
                        verdict: &verdict
                    })
                );
            }
        }
    }

    #[test]
    fn answer_is_the_verdict_plus_the_id_first() {
        let line = answer_line(&Id::of(&json!("a")), &Verdict::allow());
        assert_eq!(
            line,
            r#"{"id":"a","outcome":"allow","message":null,"hook":null,"context":[],"warnings":[]}"#
        );
        // Ids come back exactly as written, whatever JSON would make of them.
        for written in ["-0", "18446744073709551616", "1.50", "1e3", "\"\\u0061\""] {
            let line = format!(r#"{{"id":{written},"type":"user_prompt_submit","prompt":"p"}}"#);
            let Ok(Request::Prompt { id, .. }) = Request::parse(line.as_bytes()) else {
                panic!("{line}");
            };
            let answer = answer_line(&id, &Verdict::allow());
            assert!(
                answer.starts_with(&format!(r#"{{"id":{written},"#)),
                "{written}: {answer}"
            );
        }
        assert_eq!(error_line(None, "x"), r#"{"type":"error","error":"x"}"#);
    }

    /// Each `poll_write` the writer makes, as one write.
    #[derive(Clone, Default)]
    struct Writes(Arc<Mutex<Vec<String>>>);

    impl AsyncWrite for Writes {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            let text = String::from_utf8_lossy(buf).into_owned();
            self.0.lock().unwrap().push(text);
            std::task::Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    /// With other requests running, an answer waits for the tasks that are ready, and
    /// the answers they send meanwhile share its write; with none running, it is
    /// written at once.
    #[tokio::test]
    async fn answers_finished_together_share_a_write() {
        for running in [true, false] {
            let (lines, receiver) = mpsc::unbounded_channel::<Out>();
            let writes = Writes::default();
            let in_flight: InFlight = Arc::default();
            if running {
                lock(&in_flight).insert("7".into(), CancellationToken::new());
            }
            let writer = tokio::spawn(write_lines(
                receiver,
                writes.clone(),
                CancellationToken::new(),
                in_flight,
            ));
            let _ = lines.send(("a".into(), None));
            // A task that is ready when the writer first runs, and answers.
            let other = lines.clone();
            tokio::spawn(async move {
                let _ = other.send(("b".into(), None));
            });
            drop(lines);
            writer.await.unwrap();
            let writes = writes.0.lock().unwrap().clone();
            let want: &[&str] = if running {
                &["a\nb\n"]
            } else {
                &["a\n", "b\n"]
            };
            assert_eq!(writes, want, "other requests running: {running}");
        }
    }

    #[tokio::test]
    async fn long_lines_are_skipped_without_being_kept() {
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(b"\nshort\r\nlast");
        let mut reader = BufReader::with_capacity(8, &input[..]);
        assert_eq!(
            read_line(&mut reader, 10).await.unwrap(),
            Some(Line::TooLong)
        );
        assert_eq!(
            read_line(&mut reader, 10).await.unwrap(),
            Some(Line::Text(b"short".to_vec()))
        );
        assert_eq!(
            read_line(&mut reader, 10).await.unwrap(),
            Some(Line::Text(b"last".to_vec()))
        );
        assert_eq!(read_line(&mut reader, 10).await.unwrap(), None);
    }
}
