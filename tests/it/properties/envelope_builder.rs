//! The envelope builder: the spec's envelope and Claude Code's shape from generated `tool_input`s and paths.

use super::*;

pub(super) const PROJECT: &str = "/home/dana/proj";

/// `tool_input` shapes from the agents' formats (docs/agents.md).
fn tool_input_seeds() -> Vec<Value> {
    vec![
        json!({"command": "git push --force origin main"}),
        json!({"command": "npm test", "description": "Run test suite", "timeout": 120000, "run_in_background": false}),
        json!({"file_path": "/home/dana/proj/src/main.rs", "content": "fn main() {}\n"}),
        json!({"file_path": "/home/dana/proj/src/lib.rs", "old_string": "a", "new_string": "b", "replace_all": true}),
        json!({"file_path": "/home/dana/proj/README.md", "offset": 10, "limit": 200}),
        json!({"pattern": "**/*.rs", "path": "/home/dana/proj"}),
        json!({"pattern": "TODO", "path": "/home/dana/proj/src", "glob": "*.rs", "output_mode": "content", "-i": true, "multiline": false}),
        json!({"url": "https://example.com", "prompt": "summarise"}),
        json!({"query": "rust", "allowed_domains": ["docs.rs"], "blocked_domains": []}),
        json!({"prompt": "review", "description": "d", "subagent_type": "general", "model": "opus"}),
        json!({"server": "github", "tool": "create_issue", "arguments": {"title": "x", "labels": ["bug"]}}),
        json!({"command": "npm install", "working_directory": "/home/dana/proj"}),
        json!({"command": "*** Begin Patch\n*** Update File: /home/dana/proj/a.rs\n@@\n-a\n+b\n*** End Patch"}),
        json!({"toolArgs": "{\"command\":\"rm -rf /\"}"}),
        json!({}),
    ]
}

/// Strings a tool call carries: paths inside and outside the project, and any text.
fn path_like() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(PROJECT.to_string()),
        Just(format!("{PROJECT}/")),
        Just(format!("{PROJECT}//")),
        "[a-z./]{0,20}".prop_map(|s| format!("{PROJECT}/{s}")),
        "[a-z./]{0,20}".prop_map(|s| format!("{PROJECT}//{s}")),
        "[a-z./]{0,20}".prop_map(|s| format!("{PROJECT}2/{s}")),
        "[a-z./]{0,20}".prop_map(|s| format!("see {PROJECT}/{s}")),
        Just("/etc/passwd".to_string()),
        text(24),
    ]
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        path_like().prop_map(Value::String),
    ]
}

pub(super) fn json_value() -> impl Strategy<Value = Value> {
    let seeds = tool_input_seeds();
    let leaf = prop_oneof![4 => json_leaf(), 1 => select(seeds)];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop_oneof![text(12), path_like()], inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

pub(super) fn tool_input() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => select(tool_input_seeds()),
        3 => prop::collection::vec((text(12), json_value()), 0..6)
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
    ]
}

fn session_info() -> impl Strategy<Value = SessionInfo> {
    (
        prop_oneof![Just("01M".to_string()), text(24)],
        prop_oneof![Just(PROJECT.to_string()), text(24)],
        prop_oneof![
            select(
                &[
                    "auto",
                    "manual",
                    "plan",
                    "default",
                    "acceptEdits",
                    "bypassPermissions"
                ][..]
            )
            .prop_map(String::from),
            text(12)
        ],
    )
        .prop_map(|(session_id, cwd, permission_mode)| SessionInfo {
            session_id,
            cwd,
            permission_mode,
        })
}

/// The JSON text size of `value`: what an envelope may grow by (each byte escaped to at
/// most six, `\u00XX`).
fn json_size(value: &Value) -> usize {
    value.to_string().len()
}

/// One line of JSON, `\n`-terminated, with no other newline; parsed back as an object.
fn one_line(bytes: &[u8]) -> Result<Map<String, Value>, TestCaseError> {
    prop_assert_eq!(bytes.last(), Some(&b'\n'));
    prop_assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 1);
    let text = std::str::from_utf8(bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        other => Err(TestCaseError::fail(format!("not an object: {other:?}"))),
    }
}

/// Every string in `value`, depth first.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// `value` with every string replaced by "", to compare shapes.
fn shape(value: &Value) -> Value {
    match value {
        Value::String(_) => Value::String(String::new()),
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(config(400))]

    /// The PreToolUse envelope is one line of JSON with the spec's fields in order, and
    /// says exactly what it was given, whatever strings it carries.
    #[test]
    fn envelope_pre_tool_use_is_one_exact_line(
        session in session_info(),
        tool_name in prop_oneof![select(TOOL_NAMES).prop_map(String::from), text(20)],
        input in tool_input(),
        tool_use_id in prop_oneof![Just("toolu_01ABC".to_string()), text(20)],
    ) {
        let line = {
            let (session, tool_name, input, id) =
                (session.clone(), tool_name.clone(), input.clone(), tool_use_id.clone());
            bounded("envelope::pre_tool_use", move || {
                envelope::pre_tool_use(&session, &tool_name, &input, &id)
            })
        };
        let map = one_line(&line)?;
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        prop_assert_eq!(keys, ["session_id", "hook_event_name", "cwd", "permission_mode",
            "tool_name", "tool_input", "tool_use_id"]);
        prop_assert_eq!(&map["session_id"], &json!(session.session_id));
        prop_assert_eq!(&map["hook_event_name"], &json!("PreToolUse"));
        prop_assert_eq!(&map["cwd"], &json!(session.cwd));
        prop_assert_eq!(&map["permission_mode"], &json!(session.permission_mode));
        prop_assert_eq!(&map["tool_name"], &json!(tool_name));
        // serde_json reads some floats back one ulp off; compare with its own reading.
        let reread: Value = serde_json::from_str(&input.to_string()).expect("reparse");
        prop_assert_eq!(&map["tool_input"], &reread);
        prop_assert_eq!(&map["tool_use_id"], &json!(tool_use_id));
        let given = session.session_id.len() + session.cwd.len() + session.permission_mode.len()
            + tool_name.len() + tool_use_id.len() + json_size(&input);
        prop_assert!(line.len() <= 6 * given + 200, "{} bytes for {given}", line.len());
    }

    /// The prompt envelope: one line, the spec's fields, never a `turn_id`.
    #[test]
    fn envelope_prompt_is_one_exact_line(session in session_info(), prompt in text(400)) {
        let line = {
            let (session, prompt) = (session.clone(), prompt.clone());
            bounded("envelope::prompt", move || envelope::prompt(&session, &prompt))
        };
        let map = one_line(&line)?;
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        prop_assert_eq!(keys, ["session_id", "hook_event_name", "cwd", "permission_mode", "prompt"]);
        prop_assert_eq!(&map["prompt"], &json!(prompt));
        let given = session.session_id.len() + session.cwd.len() + session.permission_mode.len()
            + prompt.len();
        prop_assert!(line.len() <= 6 * given + 200);
    }

    /// In-project paths become relative: only strings spelled from the project change,
    /// normalised lexically, never longer; one that leads out of the project stays
    /// absolute; keys never; and twice is once.
    #[test]
    fn envelope_paths_become_relative_and_only_those(
        input in tool_input(),
        root in select(&[PROJECT, "/home/dana/proj/", "/home/dana/proj//", "/", "/home"][..]),
    ) {
        let mut once = input.clone();
        envelope::relativize_paths(&mut once, Path::new(root));
        prop_assert_eq!(shape(&once), shape(&input));
        let (mut before, mut after) = (Vec::new(), Vec::new());
        strings(&input, &mut before);
        strings(&once, &mut after);
        let bare = root.trim_end_matches('/');
        for (b, a) in before.iter().zip(&after) {
            if a == b {
                continue;
            }
            let inside = !bare.is_empty() && (b == bare || b.starts_with(&format!("{bare}/")));
            prop_assert!(inside, "{b:?} is outside {root} but became {a:?}");
            prop_assert!(!a.is_empty(), "{b:?} became empty");
            prop_assert!(a.len() <= b.len() || a == ".", "{b:?} grew to {a:?}");
            // Normalised lexically (F5): no `.` or `..` left, no doubled slash (a trailing
            // slash is kept).
            let clean = |p: &str| {
                let p = p.strip_suffix('/').unwrap_or(p);
                p.split('/').all(|c| c != "." && c != ".." && !c.is_empty())
            };
            if let Some(outside) = a.strip_prefix('/') {
                // Spelled from the project but leading out of it: absolute, normalised.
                prop_assert!(
                    bare.is_empty() || !a.starts_with(&format!("{bare}/")),
                    "{b:?} became {a:?}, still in the project"
                );
                prop_assert!(outside.is_empty() || clean(outside), "{b:?} became {a:?}");
            } else {
                prop_assert!(a == "." || clean(a), "{b:?} became {a:?}");
            }
        }
        let mut twice = once.clone();
        envelope::relativize_paths(&mut twice, Path::new(root));
        prop_assert_eq!(twice, once);
    }
}
