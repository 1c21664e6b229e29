//! The transcript: the rows a person reads, in the spec's wording, built from a record
//! with the same message functions the gates use.

use super::{Body, Reading, resume};
use crate::dispatch::{self, Decision, Gate, HookOwner};

/// The transcript rows of a record, in order.
pub fn rows(reading: &Reading) -> Vec<String> {
    let mut rows = Vec::new();
    // Whose hooks the messages name: the session line's, until the next one.
    let mut owner = HookOwner::User;
    for record in &reading.records {
        match &record.body {
            Body::Started(s) | Body::Resumed(s) => owner = s.owner,
            _ => {}
        }
        match &record.body {
            Body::Started(s) => rows.push(s.banner.clone()),
            Body::Resumed(s) => {
                let how = if s.clean == Some(true) {
                    " (clean)"
                } else {
                    ""
                };
                rows.push(format!("resumed{how} at {}", record.at));
                rows.push(s.banner.clone());
                rows.extend(s.warnings.iter().cloned());
            }
            Body::Context(c) => rows.push(format!(
                "· hook {} added context ({} characters)",
                c.hook, c.characters
            )),
            Body::Decided(d) => {
                let gate = d.gate.gate();
                rows.push(match d.decision {
                    Decision::Block => dispatch::block_message(gate, owner, &d.hook, &d.reason),
                    Decision::FailureBlocked => {
                        dispatch::failure_message(gate, owner, &d.hook, &d.reason)
                    }
                    Decision::FailureContinued => {
                        let what = match gate {
                            Gate::Call { .. } => "the call",
                            Gate::Prompt { .. } => "the prompt",
                        };
                        format!("· hook {} failed ({}); {what} went ahead", d.hook, d.reason)
                    }
                    Decision::Interrupted => dispatch::interrupted_message(gate, owner, &d.hook),
                    Decision::Skipped => format!(
                        "· hook {} was not run: it is changed in your config since the session was recorded",
                        d.hook
                    ),
                });
            }
            Body::Cut(c) => rows.push(cut_row(&c.reason)),
            Body::HookStarted(_) | Body::Effect(_) | Body::Verdict(_) | Body::TurnEnded => {}
        }
    }
    rows.extend(resume::killed_message(&reading.records));
    rows
}

/// The row for a `record.cut` record.
pub fn cut_row(reason: &str) -> String {
    format!(
        "⚠ the record stops here: it could not be written ({reason}); the rest of the session is not in it."
    )
}
