//! The record reader, and what reads records: transcript, resume plan, replay.

use super::*;

/// A real record, written once by the binary: a `serve` session (a block, a failure
/// that continued, context, a cut output, stdout that is not UTF-8, a timeout, a new
/// turn), then a resume whose config changed a hook (a skipped run).
fn real_record() -> &'static (Scene, String) {
    static RECORD: OnceLock<(Scene, String)> = OnceLock::new();
    RECORD.get_or_init(|| {
        let scene = Scene::new();
        let guard = scene.script(
            "no-force-push.sh",
            "case \"$(cat)\" in *--force*) echo 'force-push is not allowed here' >&2; exit 2 ;; esac\nexit 0",
        );
        let flaky = scene.script("flaky.sh", "cat >/dev/null; exit 1");
        let binary = scene.script("binary.sh", "cat >/dev/null; printf '\\377\\376bin'; exit 0");
        let slow = scene.script("slow.sh", "exec sleep 30");
        let keywords = scene.script("keywords.sh", "cat >/dev/null\necho 'use the seed skill'");
        let big = scene.script("big.sh", "cat >/dev/null\nhead -c 70000 /dev/zero | tr '\\0' x");
        let config = |keywords_timeout: u32| {
            [
                sh_hook("no-force-push", &guard, "tools = [\"bash\", \"exec\"]"),
                sh_hook("flaky", &flaky, "tools = [\"bash\"]\non_failure = \"continue\""),
                sh_hook("binary", &binary, "tools = [\"write_file\"]\non_failure = \"continue\""),
                sh_hook("slow", &slow, "tools = [\"glob\"]\ntimeout = 1\non_failure = \"continue\""),
                hook(
                    "keywords",
                    "UserPromptSubmit",
                    &["/bin/sh", keywords.to_str().unwrap()],
                    &format!("timeout = {keywords_timeout}"),
                ),
                hook("big", "UserPromptSubmit", &["/bin/sh", big.to_str().unwrap()], "on_failure = \"continue\""),
            ]
            .concat()
        };
        scene.write_config(&config(5));
        let log = scene.root.path().join("state/record.jsonl");
        let project = scene.project.display().to_string();
        let requests = [
            json!({"id": 1, "type": "pre_tool_use", "tool_name": "bash", "tool_input": {"command": "ls", "description": "list"}, "tool_use_id": "toolu_1"}),
            json!({"id": 2, "type": "pre_tool_use", "tool_name": "bash", "tool_input": {"command": "git push --force origin main"}}),
            json!({"id": 3, "type": "pre_tool_use", "tool_name": "write_file", "tool_input": {"file_path": format!("{project}/src/é.rs"), "content": "fn main() {}\n"}}),
            json!({"id": 4, "type": "pre_tool_use", "tool_name": "glob", "tool_input": {"pattern": "**/*.rs", "path": project}}),
            json!({"type": "end_turn"}),
            json!({"id": "p", "type": "user_prompt_submit", "prompt": "ooo seed my requirements"}),
        ];
        let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
        let mut child = scene
            .hookhost()
            .args(["--no-sandbox", "--session-id", "S1", "--log"])
            .arg(&log)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hookhost serve");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(input.as_bytes()).expect("write the requests");
        }
        let out = child.wait_with_output().expect("serve ends");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        // The resume: today's keywords hook differs from the recorded one, so it is skipped.
        scene.write_config(&config(6));
        let out = scene
            .hookhost()
            .args(["--no-sandbox", "prompt", "--resume"])
            .arg(&log)
            .arg("hi again")
            .output()
            .expect("run a resumed prompt");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&log).expect("read the record");
        for kind in [
            "session.started", "session.resumed", "hook.started", "effect", "hook.decided",
            "hook.context", "gate.verdict", "turn.ended", "stdout_hex", "stdout_truncated",
            "timed_out", "skipped",
        ] {
            assert!(text.contains(kind), "the record has no {kind}:\n{text}");
        }
        (scene, text)
    })
}

/// A line- or field-level change to a record.
#[derive(Debug, Clone)]
enum RecordMutation {
    /// Remove a line.
    DropLine(Index),
    /// Repeat a line.
    DuplicateLine(Index),
    /// Swap two lines.
    SwapLines(Index, Index),
    /// Remove a field, at any depth.
    DropField(Index, Vec<Index>),
    /// Give a field another value, at any depth.
    SetField(Index, Vec<Index>, Value),
}

fn odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(1e300)),
        Just(json!("")),
        Just(json!("zz")),
        Just(json!("sha256:00")),
        Just(json!([])),
        Just(json!({})),
        Just(json!(true)),
        select(
            &[
                "session.started",
                "session.resumed",
                "hook.started",
                "effect",
                "hook.decided",
                "hook.context",
                "gate.verdict",
                "turn.ended",
                "block",
                "failure_blocked",
                "interrupted",
                "skipped",
                "timed_out",
                "trapped",
                "PreToolUse"
            ][..]
        )
        .prop_map(Value::from),
        text(20).prop_map(Value::from),
    ]
}

fn record_mutation() -> impl Strategy<Value = RecordMutation> {
    let path = prop::collection::vec(any::<Index>(), 1..4);
    prop_oneof![
        any::<Index>().prop_map(RecordMutation::DropLine),
        any::<Index>().prop_map(RecordMutation::DuplicateLine),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| RecordMutation::SwapLines(a, b)),
        (any::<Index>(), path.clone()).prop_map(|(l, p)| RecordMutation::DropField(l, p)),
        (any::<Index>(), path, odd_value()).prop_map(|(l, p, v)| RecordMutation::SetField(l, p, v)),
    ]
}

/// The value at a path of indexes into objects and arrays, stopping at a leaf.
fn field_at<'a>(value: &'a mut Value, path: &[Index]) -> Option<(&'a mut Value, Index)> {
    let (first, rest) = path.split_first()?;
    let len = match value {
        Value::Object(m) => m.len(),
        Value::Array(a) => a.len(),
        _ => return None,
    };
    if len == 0 {
        return None;
    }
    let child_is_container = {
        let child = match value {
            Value::Object(m) => m.values().nth(first.index(len)),
            Value::Array(a) => a.get(first.index(len)),
            _ => None,
        };
        child.is_some_and(|c| c.is_object() || c.is_array())
    };
    if rest.is_empty() || !child_is_container {
        return Some((value, *first));
    }
    let child = match value {
        Value::Object(m) => m.values_mut().nth(first.index(len))?,
        Value::Array(a) => a.get_mut(first.index(len))?,
        _ => return None,
    };
    field_at(child, rest)
}

fn mutate_record(text: &str, mutations: &[RecordMutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for m in mutations {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match m {
            RecordMutation::DropLine(i) => {
                lines.remove(i.index(n));
            }
            RecordMutation::DuplicateLine(i) => {
                let line = lines[i.index(n)].clone();
                lines.insert(i.index(n), line);
            }
            RecordMutation::SwapLines(a, b) => lines.swap(a.index(n), b.index(n)),
            RecordMutation::DropField(i, path) | RecordMutation::SetField(i, path, _) => {
                let line = &mut lines[i.index(n)];
                let Ok(mut value) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                if let Some((parent, at)) = field_at(&mut value, path) {
                    match (parent, m) {
                        (Value::Object(map), RecordMutation::DropField(..)) => {
                            let key = map.keys().nth(at.index(map.len())).cloned();
                            if let Some(key) = key {
                                map.shift_remove(&key);
                            }
                        }
                        (Value::Array(items), RecordMutation::DropField(..)) => {
                            items.remove(at.index(items.len()));
                        }
                        (Value::Object(map), RecordMutation::SetField(_, _, v)) => {
                            let len = map.len();
                            if let Some(slot) = map.values_mut().nth(at.index(len)) {
                                *slot = v.clone();
                            }
                        }
                        (Value::Array(items), RecordMutation::SetField(_, _, v)) => {
                            let len = items.len();
                            items[at.index(len)] = v.clone();
                        }
                        _ => {}
                    }
                }
                *line = value.to_string();
            }
        }
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Reads `bytes` as a record file and runs everything that reads records over it:
/// `log show`'s transcript, the resume plan, and replay.
struct ReadBack {
    reading: record::Reading,
    rows: Vec<String>,
    plan: Result<ResumePlan, String>,
    replay: hookhost::replay::ReplayReport,
}

fn read_back(bytes: Vec<u8>) -> ReadBack {
    bounded("reading a record", move || {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("record.jsonl");
        std::fs::write(&file, &bytes).expect("write the record");
        let reading = record::read_file(&file).expect("read the record");
        let rows = record::transcript::rows(&reading);
        let from = ResumeFrom {
            file: file.clone(),
            clean: false,
        };
        let plan = ResumePlan::new(&from, &reading).map_err(|e| e.to_string());
        if let Ok(plan) = &plan {
            let today = Config::parse(Path::new(CONFIG_PATH), CONFIG_SEEDS[1])
                .map(|c| c.hooks)
                .unwrap_or_default();
            let (kept, skipped, warnings) = plan.apply(&today);
            // One warning per changed hook, and at most one more naming today's hooks
            // the record does not list.
            assert!(
                warnings.len() >= skipped.len() && warnings.len() <= skipped.len() + 1,
                "{} skipped, {warnings:?}",
                skipped.len()
            );
            assert!(kept.len() + skipped.len() == plan.recorded.as_ref().map_or(0, Vec::len));
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let replay = runtime.block_on(async {
            tokio::time::timeout(HANG_LIMIT, hookhost::replay::replay(&reading))
                .await
                .expect("replay hung")
        });
        ReadBack {
            reading,
            rows,
            plan,
            replay,
        }
    })
}

/// What reading any record must give: records and notes for distinct non-blank lines,
/// in order, each note naming its line; messages that say something; bounded output.
fn check_read_back(bytes: &[u8], back: &ReadBack) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.split('\n').collect();
    let non_blank = lines.iter().filter(|l| !l.trim().is_empty()).count();
    let r = &back.reading;
    prop_assert!(r.records.len() + r.notes.len() <= non_blank);
    let mut last = 0;
    for record in &r.records {
        prop_assert!(
            record.line > last && record.line <= lines.len(),
            "line {}",
            record.line
        );
        last = record.line;
    }
    for note in &r.notes {
        let number: Option<usize> = note
            .strip_prefix("line ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok());
        prop_assert!(number.is_some_and(|n| n >= 1 && n <= lines.len()), "{note}");
        prop_assert!(note.ends_with("; ignored"), "{note}");
    }
    let notes: usize = r.notes.iter().map(String::len).sum();
    prop_assert!(
        notes <= 2 * bytes.len() + 200 * lines.len(),
        "{notes} bytes of notes"
    );
    let rows: usize = back.rows.iter().map(String::len).sum();
    prop_assert!(rows <= 4 * bytes.len() + 1000, "{rows} bytes of transcript");
    // A resume refuses a record with no session, or one whose hash chain breaks.
    if let Err(e) = &back.plan {
        prop_assert!(
            e.contains("record.jsonl")
                && (e.contains("no session") || e.contains("was changed after it was written")),
            "{e}"
        );
    }
    let rep = &back.replay;
    prop_assert!(rep.matched <= rep.gates);
    prop_assert_eq!(rep.rows.len(), rep.gates);
    for p in &rep.problems {
        prop_assert!(!p.trim().is_empty());
    }
    Ok(())
}

#[test]
fn record_as_written_reads_back_whole_and_replays() {
    let (_, text) = real_record();
    let back = read_back(text.clone().into_bytes());
    assert!(back.reading.notes.is_empty(), "{:?}", back.reading.notes);
    assert_eq!(back.reading.records.len(), text.lines().count());
    check_read_back(text.as_bytes(), &back).unwrap();
    // Every call and prompt replays; the cut output and the timeout are reported as
    // effects replay cannot serve exactly.
    assert!(back.replay.gates >= 5, "{:?}", back.replay);
}

proptest! {
    #![proptest_config(config(300))]

    /// A real record with lines dropped, repeated, swapped, and fields dropped or given
    /// other values: read with notes, never a panic, and so are its transcript, its
    /// resume plan and its replay.
    #[test]
    fn record_mutated_lines_and_fields_are_tolerated(ms in prop::collection::vec(record_mutation(), 1..8)) {
        let (_, text) = real_record();
        let bytes = mutate_record(text, &ms).into_bytes();
        let back = read_back(bytes.clone());
        check_read_back(&bytes, &back)?;
    }

    /// A real record torn, flipped and spliced byte by byte.
    #[test]
    fn record_mutated_bytes_are_tolerated(ms in prop::collection::vec(mutation(), 1..8)) {
        let (_, text) = real_record();
        let bytes = mutate(text.clone().into_bytes(), &ms);
        let back = read_back(bytes.clone());
        check_read_back(&bytes, &back)?;
    }
}

/// Nesting bombs (dotted keys, table headers, inline tables, arrays) 50,000 deep are
/// malformed TOML with a line and column, not a stack overflow.
#[test]
fn config_deep_nesting_is_malformed_not_a_crash() {
    let n = 50_000;
    for text in [
        format!("a{} = 1\n", ".a".repeat(n)),
        format!("[a{}]\n", ".a".repeat(n)),
        format!("a = {}1{}\n", "{b=".repeat(n), "}".repeat(n)),
        format!("a = {}1{}\n", "[".repeat(n), "]".repeat(n)),
    ] {
        let result = bounded("Config::parse", move || {
            Config::parse(Path::new(CONFIG_PATH), &text).map(|_| ())
        });
        match result {
            Err(ConfigError::Malformed { line: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
    }
}

/// Found by `config_messy_configs_are_answered_clearly`: a name with a line break split
/// its problem over two lines, the second naming no file.
#[test]
fn config_a_name_with_a_line_break_keeps_one_problem_per_line() {
    let text =
        "[[hooks]]\nname = \"\"\"multi\nline\"\"\"\nevent = \"Pre\\nToolUse\"\n\"a\\nb\" = 1\n";
    let err = Config::parse(Path::new(CONFIG_PATH), text).expect_err("a malformed name");
    let message = err.to_string();
    for line in message.lines() {
        assert!(
            line.starts_with(&format!("{CONFIG_PATH}: hook #1: ")),
            "{message}"
        );
    }
    assert!(
        message.contains(r#"the name "multi\nline" is malformed"#),
        "{message}"
    );
}
