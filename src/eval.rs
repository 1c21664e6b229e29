//! `hookhost eval CASES.toml`: test cases for hooks, as `harness eval` runs them for
//! agents.
//!
//! ```toml
//! [[case]]
//! name = "plain status is fine"
//! tool = "bash"
//! input = { command = "git status" }
//! expect.outcome.in = ["completed"]
//!
//! [[case]]
//! name = "force-push is refused"
//! tool = "bash"
//! input = { command = "git push --force origin main" }
//! expect.outcome.in = ["blocked"]
//! expect.message.contains = "force-push"
//!
//! [[case]]
//! name = "ooo seed suggests the skill"
//! prompt = "ooo seed my requirements"
//! expect.outcome.in = ["completed"]
//! expect.context.contains = "/ouroboros:seed"
//! ```
//!
//! A case is a prompt (`prompt = "…"`) or a tool call (`tool = "…"`, with `input`, an
//! inline table, `{}` when absent). Outcomes: a tool call allowed is `completed`, one
//! blocked is `blocked`; a prompt allowed is `completed`, one blocked is
//! `prompt_blocked`; a hook stopped by SIGINT is `interrupted`.
//! `expect.outcome.in` lists the outcomes that pass; `expect.message.contains` and
//! `expect.context.contains` also look at the verdict's message and at the prompt's
//! contexts. Every case is its own turn.
//!
//! The hooks are loaded the normal way ([`Session::start`]: `--config`, the default path,
//! the global options). The output is one line per case, `pass NAME` or
//! `FAIL NAME: what differed`, then the summary line `N passed, M failed` (control
//! characters in names and messages shown escaped, as [`crate::escape`] says). Exit status:
//! 0 all passed, 1 any failed, 2 the cases file is malformed (every problem names the
//! file, the case and the key, as config errors do) or the session could not start,
//! 130 interrupted.

use std::fmt;
use std::path::Path;

use serde_json::Value as Json;
use toml::Value;

use crate::dispatch::{Outcome, Verdict};
use crate::executor::CancellationToken;
use crate::session::Session;
use crate::toml_file::{ItemKind, ItemProblems};

/// What a case ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseOutcome {
    /// A tool call or a prompt that was allowed.
    Completed,
    /// A tool call that was blocked.
    Blocked,
    /// A prompt that was blocked.
    PromptBlocked,
    /// A hook was stopped (SIGINT); the call or the prompt did not go ahead.
    Interrupted,
}

impl CaseOutcome {
    /// Every outcome, in the order messages list them.
    pub const ALL: [CaseOutcome; 4] = [
        CaseOutcome::Completed,
        CaseOutcome::Blocked,
        CaseOutcome::PromptBlocked,
        CaseOutcome::Interrupted,
    ];

    /// The name used in cases files.
    pub fn as_str(self) -> &'static str {
        match self {
            CaseOutcome::Completed => "completed",
            CaseOutcome::Blocked => "blocked",
            CaseOutcome::PromptBlocked => "prompt_blocked",
            CaseOutcome::Interrupted => "interrupted",
        }
    }

    fn from_name(name: &str) -> Option<CaseOutcome> {
        CaseOutcome::ALL.into_iter().find(|o| o.as_str() == name)
    }

    /// The outcome of `verdict` for a tool call (`prompt` false) or a prompt.
    pub fn of(verdict: &Verdict, prompt: bool) -> CaseOutcome {
        match (verdict.outcome, prompt) {
            (Outcome::Allow, _) => CaseOutcome::Completed,
            (Outcome::Block, false) => CaseOutcome::Blocked,
            (Outcome::Block, true) => CaseOutcome::PromptBlocked,
            (Outcome::Interrupted, _) => CaseOutcome::Interrupted,
        }
    }
}

impl fmt::Display for CaseOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a case runs.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseInput {
    /// A UserPromptSubmit gate with this prompt.
    Prompt(String),
    /// A PreToolUse gate for this call.
    Tool {
        /// The tool's name.
        tool: String,
        /// The call's arguments (a JSON object).
        input: Json,
    },
}

/// What a case expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// `expect.outcome.in`: the outcomes that pass (never empty).
    pub outcome_in: Vec<CaseOutcome>,
    /// `expect.message.contains`.
    pub message_contains: Option<String>,
    /// `expect.context.contains`: some context block's text contains it.
    pub context_contains: Option<String>,
}

/// One `[[case]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Its name, unique in the file.
    pub name: String,
    /// The prompt or the tool call.
    pub input: CaseInput,
    /// What passes.
    pub expect: Expect,
}

/// One problem in a cases file (`item` is `case NAME` or `case #N`).
pub use crate::toml_file::Problem as CaseProblem;

/// Why a cases file could not be loaded (exit 2).
pub type CasesError = crate::toml_file::TomlFileError;

/// Reads and parses a cases file.
pub fn load(path: &Path) -> Result<Vec<Case>, CasesError> {
    let bytes = crate::access::read_capped(path, crate::access::caps::CASES).map_err(|source| {
        CasesError::Read {
            what: "cases file",
            path: path.to_path_buf(),
            source,
        }
    })?;
    parse(path, &String::from_utf8_lossy(&bytes))
}

/// Parses cases text; `path` is only used in messages.
pub fn parse(path: &Path, text: &str) -> Result<Vec<Case>, CasesError> {
    let table = crate::toml_file::parse_table(path, text)?;
    let mut problems = Vec::new();
    let top = |message: String| CaseProblem {
        item: None,
        message,
    };
    for key in table.keys() {
        if key != "case" {
            problems.push(top(format!(
                "unknown key \"{key}\" at the top level (a cases file has [[case]] tables)"
            )));
        }
    }
    let mut cases = Vec::new();
    match table.get("case") {
        None => problems.push(top(
            "the file has no cases: add [[case]] tables with name, prompt or tool, and expect.outcome.in".into(),
        )),
        Some(Value::Array(items)) => {
            cases = CASES.parse_items(items, &mut problems, parse_case, |case| &case.name);
        }
        Some(_) => problems.push(top(
            "case must be an array of tables, written [[case]]".into(),
        )),
    }
    if !problems.is_empty() {
        return Err(CasesError::Invalid {
            path: path.to_path_buf(),
            problems,
        });
    }
    Ok(cases)
}

/// `[[case]]`, as its messages name it.
const CASES: ItemKind = ItemKind {
    one: "case",
    many: "cases",
    written: "[[case]]",
    labels_by_name: |name| !name.trim().is_empty() && name.chars().count() <= 80,
};

const CASE_KEYS: &[&str] = &["name", "prompt", "tool", "input", "expect"];

fn parse_case(table: &toml::Table, out: &mut ItemProblems<'_>) -> Option<Case> {
    for key in table.keys() {
        if !CASE_KEYS.contains(&key.as_str()) {
            out.push(format!(
                "unknown key \"{key}\" (a case has name, prompt or tool and input, and expect)"
            ));
        }
    }
    let name = match table.get("name") {
        None => {
            out.push("name is missing; every case needs a unique name".into());
            None
        }
        Some(Value::String(name)) if !name.trim().is_empty() => Some(name.clone()),
        Some(Value::String(_)) => {
            out.push("the name is empty".into());
            None
        }
        Some(other) => {
            out.push(format!("name must be a string, not {}", other.type_str()));
            None
        }
    };
    let string = |key: &str, out: &mut ItemProblems<'_>| match table.get(key) {
        None => None,
        Some(Value::String(s)) => Some(Ok(s.clone())),
        Some(other) => {
            out.push(format!("{key} must be a string, not {}", other.type_str()));
            Some(Err(()))
        }
    };
    let prompt = string("prompt", out);
    let tool = string("tool", out);
    let input = match (&prompt, &tool) {
        (Some(_), Some(_)) => {
            out.push("a case is a prompt or a tool call: give prompt or tool, not both".into());
            None
        }
        (None, None) => {
            out.push(
                "the case runs nothing: give prompt = \"…\", or tool = \"…\" with input = { … }"
                    .into(),
            );
            None
        }
        (Some(prompt), None) => {
            if table.contains_key("input") {
                out.push("input goes with tool; a prompt case has no input".into());
            }
            prompt.clone().ok().map(CaseInput::Prompt)
        }
        (None, Some(tool)) => {
            let input = match table.get("input") {
                None => Some(Json::Object(Default::default())),
                Some(value @ Value::Table(_)) => match serde_json::to_value(value) {
                    Ok(json) => Some(json),
                    Err(e) => {
                        out.push(format!("input cannot be turned into JSON: {e}"));
                        None
                    }
                },
                Some(other) => {
                    out.push(format!(
                        "input must be a table, such as input = {{ command = \"git status\" }}, not {}",
                        other.type_str()
                    ));
                    None
                }
            };
            match (tool.clone().ok(), input) {
                (Some(tool), Some(input)) => Some(CaseInput::Tool { tool, input }),
                _ => None,
            }
        }
    };
    let is_prompt = prompt.is_some();
    let expect = parse_expect(table.get("expect"), is_prompt, out);
    Some(Case {
        name: name?,
        input: input?,
        expect: expect?,
    })
}

fn parse_expect(
    value: Option<&Value>,
    is_prompt: bool,
    out: &mut ItemProblems<'_>,
) -> Option<Expect> {
    let missing = "expect.outcome.in is missing: list the outcomes that pass, such as expect.outcome.in = [\"completed\"]";
    let table = match value {
        None => {
            out.push(missing.into());
            return None;
        }
        Some(Value::Table(t)) => t,
        Some(other) => {
            out.push(format!(
                "expect must be a table (expect.outcome.in = [...]), not {}",
                other.type_str()
            ));
            return None;
        }
    };
    for key in table.keys() {
        if !["outcome", "message", "context"].contains(&key.as_str()) {
            out.push(format!(
                "unknown key \"expect.{key}\" (expect has outcome.in, message.contains and context.contains)"
            ));
        }
    }
    let outcome_in = match sub_key(table, "outcome", "in", "[\"completed\"]", out) {
        Err(()) => None,
        Ok(None) => {
            out.push(missing.into());
            None
        }
        Ok(Some(Value::Array(items))) if items.is_empty() => {
            out.push("expect.outcome.in is empty: list the outcomes that pass".into());
            None
        }
        Ok(Some(Value::Array(items))) => {
            let mut outcomes = Vec::new();
            let mut ok = true;
            for item in items {
                match item.as_str().map(|s| (s, CaseOutcome::from_name(s))) {
                    Some((_, Some(outcome))) => {
                        if let Some(hint) = mismatch(outcome, is_prompt) {
                            out.push(format!("expect.outcome.in: {hint}"));
                            ok = false;
                        }
                        outcomes.push(outcome);
                    }
                    Some((name, None)) => {
                        out.push(format!(
                            "expect.outcome.in: \"{name}\" is not an outcome: use completed, blocked, prompt_blocked or interrupted"
                        ));
                        ok = false;
                    }
                    None => {
                        out.push(format!(
                            "expect.outcome.in must list strings, not {}",
                            item.type_str()
                        ));
                        ok = false;
                    }
                }
            }
            ok.then_some(outcomes)
        }
        Ok(Some(other)) => {
            out.push(format!(
                "expect.outcome.in must be a list of outcomes, not {}",
                other.type_str()
            ));
            None
        }
    };
    let contains = |part: &str, out: &mut ItemProblems<'_>| -> Result<Option<String>, ()> {
        match sub_key(table, part, "contains", "\"…\"", out)? {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => {
                out.push(format!(
                    "expect.{part}.contains must be a string, not {}",
                    other.type_str()
                ));
                Err(())
            }
        }
    };
    let message_contains = contains("message", out);
    let context_contains = contains("context", out);
    Some(Expect {
        outcome_in: outcome_in?,
        message_contains: message_contains.ok()?,
        context_contains: context_contains.ok()?,
    })
}

/// `expect.PART.KEY`: the value, `None` when `PART` is absent; unknown keys under
/// `PART` are problems.
fn sub_key<'t>(
    expect: &'t toml::Table,
    part: &str,
    key: &str,
    example: &str,
    out: &mut ItemProblems<'_>,
) -> Result<Option<&'t Value>, ()> {
    let table = match expect.get(part) {
        None => return Ok(None),
        Some(Value::Table(t)) => t,
        Some(other) => {
            out.push(format!(
                "expect.{part} must be a table (expect.{part}.{key} = {example}), not {}",
                other.type_str()
            ));
            return Err(());
        }
    };
    let mut ok = true;
    for k in table.keys() {
        if k != key {
            out.push(format!(
                "unknown key \"expect.{part}.{k}\" (use expect.{part}.{key} = {example})"
            ));
            ok = false;
        }
    }
    if !ok {
        return Err(());
    }
    Ok(table.get(key))
}

/// Why an outcome can never happen for this kind of case, as a hint.
fn mismatch(outcome: CaseOutcome, is_prompt: bool) -> Option<&'static str> {
    match (outcome, is_prompt) {
        (CaseOutcome::Blocked, true) => {
            Some("\"blocked\" is for tool calls; a blocked prompt is \"prompt_blocked\"")
        }
        (CaseOutcome::PromptBlocked, false) => {
            Some("\"prompt_blocked\" is for prompts; a blocked tool call is \"blocked\"")
        }
        _ => None,
    }
}

/// What one case did.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case's outcome.
    pub outcome: CaseOutcome,
    /// The verdict it came from.
    pub verdict: Verdict,
    /// What differed from the expectations; empty when the case passed.
    pub differences: Vec<String>,
}

impl CaseResult {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.differences.is_empty()
    }

    /// `pass NAME` or `FAIL NAME: what differed`.
    pub fn line(&self, name: &str) -> String {
        if self.passed() {
            format!("pass {name}")
        } else {
            format!("FAIL {name}: {}", self.differences.join("; "))
        }
    }
}

/// Runs one case against `session` as its own turn and checks it.
pub async fn run_case(session: &Session, case: &Case, cancel: &CancellationToken) -> CaseResult {
    let (verdict, is_prompt) = match &case.input {
        CaseInput::Prompt(prompt) => (session.prompt(prompt, cancel).await, true),
        CaseInput::Tool { tool, input } => (
            session
                .pre_tool_use(tool, input.clone(), None, cancel)
                .await,
            false,
        ),
    };
    session.end_turn();
    check(case, verdict, is_prompt)
}

/// Checks a verdict against a case's expectations.
pub fn check(case: &Case, verdict: Verdict, is_prompt: bool) -> CaseResult {
    let outcome = CaseOutcome::of(&verdict, is_prompt);
    let mut differences = Vec::new();
    let message = verdict.message.as_deref();
    if !case.expect.outcome_in.contains(&outcome) {
        let expected: Vec<&str> = case.expect.outcome_in.iter().map(|o| o.as_str()).collect();
        let mut line = format!(
            "outcome {outcome}, expected one of [{}]",
            expected.join(", ")
        );
        if let Some(message) = message {
            line.push_str(&format!(" ({})", shorten(message)));
        }
        differences.push(line);
    }
    if let Some(want) = &case.expect.message_contains
        && !message.is_some_and(|m| m.contains(want.as_str()))
    {
        differences.push(match message {
            Some(m) => format!(
                "message does not contain {want:?} (message: {:?})",
                shorten(m)
            ),
            None => format!("message does not contain {want:?} (there is no message)"),
        });
    }
    if let Some(want) = &case.expect.context_contains
        && !verdict
            .context
            .iter()
            .any(|c| c.text.contains(want.as_str()))
    {
        differences.push(if verdict.context.is_empty() {
            format!("context does not contain {want:?} (there is no context)")
        } else {
            let hooks: Vec<&str> = verdict.context.iter().map(|c| c.hook.as_str()).collect();
            format!(
                "context does not contain {want:?} (context from {})",
                hooks.join(", ")
            )
        });
    }
    CaseResult {
        outcome,
        verdict,
        differences,
    }
}

/// Cuts a message for a FAIL line to its first 300 characters.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(300) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// The summary line CI reads: `N passed, M failed`.
pub fn summary(passed: usize, failed: usize) -> String {
    format!("{passed} passed, {failed} failed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::ContextBlock;

    fn parse_text(text: &str) -> Result<Vec<Case>, CasesError> {
        parse(Path::new("cases.toml"), text)
    }

    #[test]
    fn parses_prompt_and_tool_cases() {
        let cases = parse_text(
            r#"
[[case]]
name = "status"
tool = "bash"
input = { command = "git status", n = 2 }
expect.outcome.in = ["completed"]

[[case]]
name = "seed"
prompt = "ooo seed"
expect.outcome.in = ["completed", "prompt_blocked"]
expect.context.contains = "/ouroboros:seed"
expect.message.contains = "x"
"#,
        )
        .unwrap();
        assert_eq!(
            cases[0].input,
            CaseInput::Tool {
                tool: "bash".into(),
                input: serde_json::json!({"command": "git status", "n": 2})
            }
        );
        assert_eq!(cases[1].input, CaseInput::Prompt("ooo seed".into()));
        assert_eq!(
            cases[1].expect.outcome_in,
            vec![CaseOutcome::Completed, CaseOutcome::PromptBlocked]
        );
        assert_eq!(
            cases[1].expect.context_contains.as_deref(),
            Some("/ouroboros:seed")
        );
    }

    #[test]
    fn problems_name_the_file_the_case_and_the_key() {
        let err = parse_text(
            r#"
[[case]]
name = "a"
tool = "bash"
inputs = {}
expect.outcome.in = ["done"]
expect.outcome.within = []

[[case]]
prompt = "p"
expect.outcome.in = ["blocked"]
"#,
        )
        .unwrap_err()
        .to_string();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines,
            [
                "cases.toml: case a: unknown key \"inputs\" (a case has name, prompt or tool and input, and expect)",
                "cases.toml: case a: unknown key \"expect.outcome.within\" (use expect.outcome.in = [\"completed\"])",
                "cases.toml: case #2: name is missing; every case needs a unique name",
                "cases.toml: case #2: expect.outcome.in: \"blocked\" is for tool calls; a blocked prompt is \"prompt_blocked\"",
            ]
        );
    }

    #[test]
    fn malformed_toml_has_a_line_and_an_empty_file_has_no_cases() {
        let err = parse_text("[[case]]\nname = \n").unwrap_err().to_string();
        assert!(
            err.starts_with("cases.toml: malformed TOML at line 2"),
            "{err}"
        );
        let err = parse_text("").unwrap_err().to_string();
        assert!(
            err.starts_with("cases.toml: the file has no cases"),
            "{err}"
        );
    }

    #[test]
    fn check_reports_what_differed() {
        let case = Case {
            name: "c".into(),
            input: CaseInput::Prompt("p".into()),
            expect: Expect {
                outcome_in: vec![CaseOutcome::Completed],
                message_contains: None,
                context_contains: Some("seed".into()),
            },
        };
        let mut verdict = Verdict::allow();
        verdict.context.push(ContextBlock {
            hook: "k".into(),
            text: "the seed skill".into(),
            owner: Default::default(),
        });
        assert!(check(&case, verdict.clone(), true).passed());
        verdict.outcome = Outcome::Block;
        verdict.message = Some("no".into());
        verdict.context.clear();
        let r = check(&case, verdict, true);
        assert_eq!(
            r.line("c"),
            "FAIL c: outcome prompt_blocked, expected one of [completed] (no); context does not contain \"seed\" (there is no context)"
        );
    }
}
