//! The answer parser: hooks' exit statuses and outputs, generated and mutated.

use super::*;

/// Real answers: Claude Code's forms, and what other agents' hooks print.
const ANSWER_SEEDS: &[&str] = &[
    "",
    "\n",
    r#"{"decision":"block","reason":"force-push is not allowed here"}"#,
    r#"{"decision":"block"}"#,
    r#"{"decision":"approve","reason":"fine"}"#,
    r#"{"decision":"deny","reason":"gemini form"}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"},"systemMessage":"careful"}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}"#,
    r#"{"continue":false,"stopReason":"stop everything"}"#,
    r#"{"continue":true,"suppressOutput":true}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"<skill-suggestion>/ouroboros:seed</skill-suggestion>"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"gemini context"}}"#,
    r#"{"permission":"deny","user_message":"no","agent_message":"no"}"#,
    r#"{"permissionDecision":"deny","permissionDecisionReason":"copilot form"}"#,
    r#"{"continue":false,"user_message":"cursor prompt block"}"#,
    "{\"prompt\":\"ooo seed\"}\n<skill-suggestion>seed</skill-suggestion>\n",
    "Welcome to your login shell\n{\"decision\":\"block\",\"reason\":\"late\"}",
    "use the seed skill\n",
    "{}",
    "[1,2]",
    "\"s\"",
    "{broken",
];

const ANSWER_KEYS: &[&str] = &[
    "decision",
    "reason",
    "continue",
    "stopReason",
    "hookSpecificOutput",
    "systemMessage",
    "suppressOutput",
];
const SPECIFIC_KEYS: &[&str] = &[
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "additionalContext",
    "updatedInput",
];

pub(super) fn answer_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        select(
            &[
                "block", "approve", "deny", "allow", "ask", "defer", "", "Block"
            ][..]
        )
        .prop_map(Value::from),
        text(30).prop_map(Value::from),
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
    ]
}

/// A Claude-format answer object, its known fields right or mistyped.
fn answer_object() -> impl Strategy<Value = Map<String, Value>> {
    let specific = prop::collection::vec((select(SPECIFIC_KEYS), answer_value()), 0..5)
        .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
    let field = (
        select(ANSWER_KEYS),
        prop_oneof![3 => answer_value(), 2 => specific],
    );
    prop::collection::vec(field, 0..6)
        .prop_map(|kv| kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// What the spec's tables say `map` means (hooks.md, "What the answer means").
fn spec_answer(event: Event, map: &Map<String, Value>) -> Answer {
    fn text<'a>(m: &'a Map<String, Value>, k: &str) -> Result<Option<&'a str>, ()> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(()),
        }
    }
    let not_hook_json = Answer::Failed(AnswerFailure::NotHookJson);
    let (Ok(decision), Ok(why), Ok(stop)) = (
        text(map, "decision"),
        text(map, "reason"),
        text(map, "stopReason"),
    ) else {
        return not_hook_json;
    };
    let go_on = match map.get("continue") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return not_hook_json,
    };
    let specific = match map.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => return not_hook_json,
    };
    if decision == Some("block") {
        return Answer::Block(answer::reason(why.unwrap_or("")));
    }
    if !go_on {
        return Answer::Block(answer::reason(stop.unwrap_or("")));
    }
    let Some(specific) = specific else {
        return Answer::NoObjection;
    };
    match event {
        Event::PreToolUse => match (
            text(specific, "permissionDecision"),
            text(specific, "permissionDecisionReason"),
        ) {
            (Ok(Some("deny")), Ok(why)) => Answer::Block(answer::reason(why.unwrap_or(""))),
            (Ok(_), Ok(_)) => Answer::NoObjection,
            _ => not_hook_json,
        },
        Event::UserPromptSubmit => match text(specific, "additionalContext") {
            Ok(Some(c)) if !c.trim().is_empty() => {
                Answer::Context(c.trim_end().trim_start_matches(['\n', '\r']).to_string())
            }
            Ok(_) => Answer::NoObjection,
            Err(()) => not_hook_json,
        },
    }
}

fn exit_status() -> impl Strategy<Value = ExitStatus> {
    prop_oneof![
        6 => Just(ExitStatus::Code(0)),
        3 => Just(ExitStatus::Code(2)),
        1 => any::<i32>().prop_map(ExitStatus::Code),
        1 => (1i32..65).prop_map(ExitStatus::Signal),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![Just(Event::PreToolUse), Just(Event::UserPromptSubmit)]
}

fn stream() -> impl Strategy<Value = Vec<u8>> {
    let padding = select(&["", " ", "\n", "\r\n", "\t \n"][..]);
    prop_oneof![
        3 => (select(ANSWER_SEEDS), mutations(3)).prop_map(|(s, ms)| mutate(s.as_bytes().to_vec(), &ms)),
        3 => (padding.clone(), answer_object(), padding)
            .prop_map(|(a, map, b)| format!("{a}{}{b}", Value::Object(map)).into_bytes()),
        1 => text(300).prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..300),
        1 => (1usize..6000).prop_map(|n| "é".repeat(n).into_bytes()),
    ]
}

/// What every answer must satisfy, whatever the output.
fn check_answer(event: Event, out: &RawOutput, answer: &Answer) -> Result<(), TestCaseError> {
    match (out.status, answer) {
        (ExitStatus::Code(2), Answer::Block(_)) => {}
        (ExitStatus::Code(2), other) => prop_assert!(false, "exit 2 gave {other:?}"),
        (ExitStatus::Code(0), _) => {}
        (ExitStatus::Code(c), a) => {
            prop_assert_eq!(a, &Answer::Failed(AnswerFailure::ExitedWithCode(c)))
        }
        (ExitStatus::Signal(_), a) => {
            prop_assert_eq!(a, &Answer::Failed(AnswerFailure::KilledBySignal))
        }
    }
    match answer {
        Answer::Block(reason) => {
            prop_assert!(!reason.is_empty());
            prop_assert_eq!(reason.trim(), reason.as_str());
            prop_assert!(reason.chars().count() <= REASON_LIMIT);
        }
        Answer::Context(text) => {
            prop_assert_eq!(event, Event::UserPromptSubmit, "context on PreToolUse");
            prop_assert!(!text.trim().is_empty());
            // Lossy decoding turns one bad byte into three.
            prop_assert!(text.len() <= 3 * out.stdout.len());
        }
        Answer::Failed(kind) => prop_assert!(!kind.to_string().is_empty()),
        Answer::NoObjection => {}
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1000))]

    /// Any output, any exit: an answer the tables allow, never a panic; reasons trimmed
    /// and cut, context only for a prompt, failures named.
    #[test]
    fn answer_any_output_is_read(
        event in event(),
        status in exit_status(),
        stdout in stream(),
        stderr in stream(),
    ) {
        let out = RawOutput { status, stdout, stderr };
        let answer = {
            let out = out.clone();
            bounded("answer::interpret", move || answer::interpret(event, &out))
        };
        check_answer(event, &out, &answer)?;
    }

    /// A Claude-format answer object on exit 0 means what the spec's table says.
    #[test]
    fn answer_objects_mean_what_the_spec_says(
        event in event(),
        map in answer_object(),
        pad in select(&["", " ", "\n", "\r\n"][..]),
    ) {
        let out = RawOutput {
            status: ExitStatus::Code(0),
            stdout: format!("{pad}{}{pad}", Value::Object(map.clone())).into_bytes(),
            stderr: Vec::new(),
        };
        let answer = answer::interpret(event, &out);
        check_answer(event, &out, &answer)?;
        prop_assert_eq!(answer, spec_answer(event, &map));
    }
}
