//! `keywords`: a UserPromptSubmit hook that turns Ouroboros-style `ooo`
//! shortcuts into skill suggestions.
//!
//! Built for `wasm32-wasip2` (a component), so it answers with JSON on stdout.
//! When the prompt starts with `ooo ` (after leading whitespace; `ooo` is
//! matched case-insensitively), the first word after it that names a skill
//! picks the suggestion:
//!
//! | word(s)                    | skill                   |
//! |----------------------------|-------------------------|
//! | `seed`                     | `/ouroboros:seed`       |
//! | `run`, `execute`           | `/ouroboros:run`        |
//! | `evaluate`, `eval`         | `/ouroboros:evaluate`   |
//! | `interview`                | `/ouroboros:interview`  |
//!
//! and the hook answers
//! `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"<skill-suggestion>…</skill-suggestion>"}}`.
//! Any other prompt (or an `ooo` prompt naming no known skill) gets empty
//! output, which adds nothing.

fn main() {
    // In hookhost's vocabulary whatever shape it came in (`Bash` is `bash`, a
    // `file_path` is a relative `path`): see the hookhost-hook crate.
    let envelope = match hookhost_hook::read_event() {
        Ok(event) => event,
        Err(e) => {
            // Failing closed would block every call on a broken host; report it instead.
            eprintln!("keywords: {e}");
            std::process::exit(1);
        }
    };
    if envelope.get("hook_event_name").and_then(|v| v.as_str()) != Some("UserPromptSubmit") {
        return;
    }
    let Some(prompt) = envelope.get("prompt").and_then(|v| v.as_str()) else {
        return;
    };
    if let Some(suggestion) = suggest(prompt) {
        println!("{}", context_json(&suggestion.context()));
    }
}

/// The word → skill table.
pub const SKILLS: &[(&str, &str)] = &[
    ("seed", "seed"),
    ("run", "run"),
    ("execute", "run"),
    ("evaluate", "evaluate"),
    ("eval", "evaluate"),
    ("interview", "interview"),
];

/// What an `ooo` prompt asks for.
#[derive(Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The word the user typed (`seed`).
    pub keyword: String,
    /// The skill's short name (`seed`, for `/ouroboros:seed`).
    pub skill: &'static str,
    /// What follows the keyword (`my requirements`), possibly empty.
    pub arguments: String,
}

impl Suggestion {
    /// The `additionalContext` text.
    pub fn context(&self) -> String {
        let mut text = format!(
            "<skill-suggestion>The user typed the Ouroboros shortcut \"ooo {}\". Use the skill /ouroboros:{}",
            self.keyword, self.skill
        );
        if self.arguments.is_empty() {
            text.push('.');
        } else {
            text.push_str(&format!(" with the arguments: {}", self.arguments));
        }
        text.push_str("</skill-suggestion>");
        text
    }
}

/// Parses an `ooo …` prompt; `None` for any other prompt.
pub fn suggest(prompt: &str) -> Option<Suggestion> {
    let prompt = prompt.trim_start();
    let (head, rest) = prompt.split_once(char::is_whitespace)?;
    if !head.eq_ignore_ascii_case("ooo") {
        return None;
    }
    // Walk the words after `ooo`; the first one naming a skill wins and what
    // follows it is the skill's arguments.
    let mut remaining = rest.trim_start();
    while !remaining.is_empty() {
        let (word, after) = remaining
            .split_once(char::is_whitespace)
            .unwrap_or((remaining, ""));
        let key = word
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        if let Some((_, skill)) = SKILLS.iter().find(|(k, _)| *k == key) {
            return Some(Suggestion {
                keyword: key,
                skill,
                arguments: after.trim().to_owned(),
            });
        }
        remaining = after.trim_start();
    }
    None
}

pub use hookhost_hook::context_json;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_with_arguments() {
        let s = suggest("ooo seed my requirements").unwrap();
        assert_eq!(
            s,
            Suggestion {
                keyword: "seed".into(),
                skill: "seed",
                arguments: "my requirements".into()
            }
        );
        assert_eq!(
            s.context(),
            "<skill-suggestion>The user typed the Ouroboros shortcut \"ooo seed\". Use the skill /ouroboros:seed with the arguments: my requirements</skill-suggestion>"
        );
    }

    #[test]
    fn each_skill() {
        assert_eq!(suggest("ooo run").unwrap().skill, "run");
        assert_eq!(suggest("ooo execute the plan").unwrap().skill, "run");
        assert_eq!(suggest("ooo evaluate it").unwrap().skill, "evaluate");
        assert_eq!(suggest("ooo eval").unwrap().skill, "evaluate");
        assert_eq!(suggest("ooo interview me").unwrap().skill, "interview");
        assert_eq!(suggest("  OOO Seed: x").unwrap().skill, "seed");
        assert_eq!(suggest("ooo please seed this").unwrap().arguments, "this");
        assert_eq!(
            suggest("ooo run").unwrap().context(),
            "<skill-suggestion>The user typed the Ouroboros shortcut \"ooo run\". Use the skill /ouroboros:run.</skill-suggestion>"
        );
    }

    #[test]
    fn other_prompts() {
        assert_eq!(suggest("seed my requirements"), None);
        assert_eq!(suggest("ooo"), None);
        assert_eq!(suggest("oooseed"), None);
        assert_eq!(suggest("ooo hello world"), None);
        assert_eq!(suggest("fix the ooo seed bug"), None);
        assert_eq!(suggest(""), None);
    }

    #[test]
    fn json_answer() {
        let out = context_json("<skill-suggestion>a \"b\"</skill-suggestion>");
        assert_eq!(
            out,
            r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"<skill-suggestion>a \"b\"</skill-suggestion>"}}"#
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    }
}
