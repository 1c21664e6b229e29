//! `serve`: request lines, and the line reader through `serve::run` (in process, and the real binary for a few cases).

use super::*;

/// Request lines as README's `serve` section shows them, and their near misses.
const REQUEST_SEEDS: &[&str] = &[
    r#"{"id":1,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"git push -f"},"tool_use_id":"toolu_1"}"#,
    r#"{"id":"p","type":"user_prompt_submit","prompt":"ooo seed my requirements"}"#,
    r#"{"id":2,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"sleep-forever"}}"#,
    r#"{"type":"cancel","id":"never-sent"}"#,
    r#"{"type":"end_turn"}"#,
    r#"{"id":3,"type":"pre_tool_use","tool_name":"bash","tool_input":[]}"#,
    r#"{"id":{},"type":"pre_tool_use"}"#,
    r#"{"id":4,"type":"bogus"}"#,
    r#"{"type":"user_prompt_submit","prompt":"no id"}"#,
    r#"{"id":1.5e300,"type":"user_prompt_submit","prompt":"float id"}"#,
    r#"{"id":-0,"type":"user_prompt_submit","prompt":"negative zero"}"#,
    r#"{"id":"x","type":"pre_tool_use","tool_name":5,"tool_input":{}}"#,
    r#"{"id":"y","type":"pre_tool_use","tool_name":"bash","tool_input":{},"tool_use_id":7}"#,
    r#"{"id":"z","type":"pre_tool_use","tool_name":"bash","tool_input":null}"#,
    "[1,2,3]",
    "not json at all",
    "",
    "   \t",
    "\r",
];

/// One request, built from parts that may be missing or of the wrong type.
fn request_line() -> impl Strategy<Value = Vec<u8>> {
    let id = prop_oneof![
        any::<u32>().prop_map(Value::from),
        "[a-z0-9]{1,6}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!({})),
        Just(json!([1])),
        Just(json!(true)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
    ];
    let kind = prop_oneof![
        6 => select(&["pre_tool_use", "user_prompt_submit", "cancel", "end_turn"][..]).prop_map(Value::from),
        1 => text(12).prop_map(Value::from),
        1 => Just(json!(5)),
    ];
    let field = prop_oneof![
        (
            Just("tool_name"),
            prop_oneof![select(TOOL_NAMES).prop_map(Value::from), answer_value()]
        ),
        (
            Just("tool_input"),
            prop_oneof![tool_input(), answer_value()]
        ),
        (
            Just("tool_use_id"),
            prop_oneof![text(16).prop_map(Value::from), answer_value()]
        ),
        (
            Just("prompt"),
            prop_oneof![text(200).prop_map(Value::from), answer_value()]
        ),
        (Just("extra"), json_value()),
    ];
    (
        prop::option::of(id),
        prop::option::of(kind),
        prop::collection::vec(field, 0..5),
    )
        .prop_map(|(id, kind, fields)| {
            let mut map = Map::new();
            if let Some(id) = id {
                map.insert("id".into(), id);
            }
            if let Some(kind) = kind {
                map.insert("type".into(), kind);
            }
            for (k, v) in fields {
                map.insert(k.to_string(), v);
            }
            Value::Object(map).to_string().into_bytes()
        })
}

/// A whole input: lines of every kind, joined, some ending in `\r\n`, then mutated (which
/// may join, split or tear lines).
fn serve_input(max_lines: usize) -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        3 => request_line(),
        2 => select(REQUEST_SEEDS).prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..64)
            .prop_map(|b| b.into_iter().filter(|&b| b != b'\n').collect()),
        1 => (1usize..20000).prop_map(|n| "[".repeat(n).into_bytes()),
        1 => (1usize..200_000).prop_map(|n| format!("{{\"id\":\"long\",\"type\":\"user_prompt_submit\",\"prompt\":\"{}\"}}", "a".repeat(n)).into_bytes()),
    ];
    let ending = select(&["\n", "\n", "\n", "\r\n", ""][..]);
    (
        prop::collection::vec((line, ending), 0..max_lines),
        mutations(4),
    )
        .prop_map(|(lines, ms)| {
            let mut bytes = Vec::new();
            for (line, ending) in lines {
                bytes.extend_from_slice(&line);
                // An empty ending joins two lines; only the last may lack a newline.
                bytes.extend_from_slice(if ending.is_empty() {
                    b" "
                } else {
                    ending.as_bytes()
                });
            }
            mutate(bytes, &ms)
        })
}

/// What the server owes for `input`: `(min, max)` lines after `ready` and the ids any
/// of them may carry. Each request or bad line gets one line; `end_turn` none; a
/// `cancel` one (an error) unless it found its request running.
fn owed(input: &[u8]) -> (usize, usize, HashSet<String>) {
    let (mut min, mut extra, mut ids) = (0, 0, HashSet::new());
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match Request::parse(line) {
            Ok(Request::EndTurn) => {}
            Ok(Request::Cancel { id }) => {
                extra += 1;
                ids.insert(id_key(&id_value(&id)));
            }
            Ok(Request::PreToolUse { id, .. } | Request::Prompt { id, .. }) => {
                min += 1;
                ids.insert(id_key(&id_value(&id)));
            }
            Err(bad) => {
                min += 1;
                if let Some(id) = bad.id {
                    ids.insert(id_key(&id_value(&id)));
                }
            }
        }
    }
    (min, min + extra, ids)
}

/// A request id read as a JSON value.
fn id_value(id: &hookhost::serve::Id) -> Value {
    serde_json::from_str(id.as_json()).unwrap_or(Value::Null)
}

/// An id as the test compares it: serde_json (without its `float_roundtrip` feature)
/// may read a float one ulp off, so floats compare on their first ten digits.
fn id_key(id: &Value) -> String {
    match id.as_f64() {
        Some(f) if id.is_f64() => format!("{f:.10e}"),
        _ => id.to_string(),
    }
}

/// Checks serve's output for `input`: `ready` first, then only whole JSON lines, each
/// an answer or an error with a message, as many as owed, ids echoed from the input.
fn check_serve_output(input: &[u8], output: &[u8]) -> Result<(), TestCaseError> {
    let text = std::str::from_utf8(output).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(text.is_empty() || text.ends_with('\n'), "a torn last line");
    let mut lines = text.lines();
    let ready: Value = serde_json::from_str(lines.next().unwrap_or_default())
        .map_err(|e| TestCaseError::fail(format!("no ready line: {e}")))?;
    prop_assert_eq!(&ready["type"], &json!("ready"));
    let (min, max, ids) = owed(input);
    let mut count = 0;
    for line in lines {
        count += 1;
        let v: Value = serde_json::from_str(line)
            .map_err(|e| TestCaseError::fail(format!("not JSON ({e}): {line}")))?;
        if v["type"] == "error" {
            let error = v["error"].as_str().unwrap_or_default();
            prop_assert!(!error.trim().is_empty(), "{line}");
        } else {
            prop_assert!(
                ["allow", "block", "interrupted"].contains(&v["outcome"].as_str().unwrap_or("")),
                "{line}"
            );
            prop_assert!(v.get("id").is_some(), "an answer without an id: {line}");
        }
        if let Some(id) = v.get("id") {
            prop_assert!(ids.contains(&id_key(id)), "id {id} was never sent: {line}");
        }
    }
    prop_assert!(
        min <= count && count <= max,
        "{count} lines for {min}..={max} owed"
    );
    // Bounded: a line per input line, each quoting at most its id and a short message.
    let input_lines = input.iter().filter(|&&b| b == b'\n').count() + 1;
    prop_assert!(
        output.len() <= 2 * input.len() + 1024 * input_lines,
        "{} bytes out for {} in",
        output.len(),
        input.len()
    );
    Ok(())
}

/// A hook answering in process, as a real one would: it blocks a force-push, adds
/// context to a prompt, and otherwise has no objection.
struct InProcessHook;

impl Executor for InProcessHook {
    fn run<'a>(
        &'a self,
        stdin: Arc<[u8]>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<RawOutput, Failure>> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(Failure::Interrupted);
            }
            let input = String::from_utf8_lossy(&stdin);
            let (code, stdout, stderr) = if input.contains("--force") || input.contains("push -f") {
                (2, "", "force-push is not allowed here")
            } else if input.contains("\"UserPromptSubmit\"") {
                (0, "use the seed skill", "")
            } else {
                (0, "", "")
            };
            Ok(RawOutput {
                status: ExitStatus::Code(code),
                stdout: stdout.into(),
                stderr: stderr.into(),
            })
        })
    }
}

fn in_process_host() -> Session {
    let def = |name: &str, event| HookDef {
        name: name.into(),
        event,
        command: vec![format!("/hooks/{name}")],
        tools: None,
        timeout: 10,
        sandbox: false,
        on_failure: OnFailure::Block,
        envelope: None,
    };
    let hooks = [
        def("no-force-push", Event::PreToolUse),
        def("keywords", Event::UserPromptSubmit),
    ]
    .into_iter()
    .map(|def| LoadedHook {
        def,
        placement: Placement::Host,
        executor: Arc::new(InProcessHook),
    })
    .collect();
    let session = SessionInfo {
        session_id: "S1".into(),
        cwd: PROJECT.into(),
        permission_mode: "auto".into(),
    };
    Session::with_hooks(session, hooks)
}

/// Serves `input` with [`serve::run`] in process and returns everything it wrote.
fn serve_in_process(input: Vec<u8>) -> Vec<u8> {
    bounded("serve::run", move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            use tokio::io::AsyncReadExt;
            let (server_out, mut client_in) = tokio::io::duplex(64 * 1024);
            let session = Arc::new(in_process_host());
            let serving = serve::run(session, &input[..], server_out, CancellationToken::new());
            let mut output = Vec::new();
            let reading = client_in.read_to_end(&mut output);
            let (ended, read) =
                tokio::time::timeout(HANG_LIMIT, async { tokio::join!(serving, reading) })
                    .await
                    .expect("serve::run hung");
            read.expect("read serve's output");
            assert_eq!(ended, serve::Ended::EndOfInput);
            output
        })
    })
}

proptest! {
    #![proptest_config(config(300))]

    /// Any line: a request or an error with a message (and the id when it could be
    /// read), never a panic.
    #[test]
    fn serve_request_lines_parse_or_say_why(
        line in prop_oneof![request_line(), select(REQUEST_SEEDS).prop_map(|s| s.as_bytes().to_vec())],
        ms in mutations(4),
    ) {
        let line = mutate(line, &ms);
        let parsed = {
            let line = line.clone();
            bounded("Request::parse", move || Request::parse(&line))
        };
        match parsed {
            Ok(Request::PreToolUse { tool_input, .. }) => prop_assert!(tool_input.is_object()),
            Ok(_) => {}
            Err(bad) => {
                prop_assert!(!bad.message.trim().is_empty());
                prop_assert!(bad.message.len() <= 512 + line.len(), "{}", bad.message);
                if let Some(id) = &bad.id {
                    let id = id_value(id);
                    prop_assert!(id.is_number() || id.is_string());
                    let sent = serde_json::from_slice::<Value>(&line)
                        .ok()
                        .and_then(|v| v.get("id").cloned());
                    prop_assert_eq!(Some(&id), sent.as_ref());
                }
            }
        }
    }

    /// A whole input through `serve::run`: every line answered once (or skipped, for a
    /// blank line and `end_turn`), whole JSON lines out, ids echoed, end of input ends it.
    #[test]
    fn serve_run_answers_every_line(input in serve_input(12)) {
        let output = serve_in_process(input.clone());
        check_serve_output(&input, &output)?;
    }
}

/// A scene whose config has a real blocking hook and a real prompt hook.
fn serve_scene() -> Scene {
    let scene = Scene::new();
    let guard = scene.script(
        "no-force-push.sh",
        "case \"$(cat)\" in *--force*|*'push -f'*) echo 'force-push is not allowed here' >&2; exit 2 ;; esac\nexit 0",
    );
    let keywords = scene.script("keywords.sh", "cat >/dev/null\necho 'use the seed skill'");
    scene.write_config(
        &[
            sh_hook("no-force-push", &guard, "tools = [\"bash\", \"exec\"]"),
            hook(
                "keywords",
                "UserPromptSubmit",
                &["/bin/sh", keywords.to_str().unwrap()],
                "",
            ),
        ]
        .concat(),
    );
    scene
}

/// The real binary, fed generated input on stdin: the same promises, exit status 0.
#[test]
fn serve_binary_answers_generated_input() {
    let scene = serve_scene();
    let mut runner = TestRunner::new(ProptestConfig::with_cases(process_cases_or(8)));
    let result = runner.run(&serve_input(16), |input| {
        let mut child = scene
            .hookhost()
            .args(["--no-sandbox", "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hookhost serve");
        let mut stdin = child.stdin.take().expect("stdin");
        let feeding = input.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            // The server may stop reading early only by a bug; a broken pipe shows that.
            let written = stdin.write_all(&feeding);
            drop(stdin);
            written
        });
        let output = bounded("hookhost serve", move || child.wait_with_output());
        let output = output.map_err(|e| TestCaseError::fail(e.to_string()))?;
        writer
            .join()
            .expect("the writer thread")
            .map_err(|e| TestCaseError::fail(format!("feeding stdin: {e}")))?;
        prop_assert_eq!(
            output.status.code(),
            Some(0),
            "stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        check_serve_output(&input, &output.stdout)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
