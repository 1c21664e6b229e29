//! Crash resume: which recorded hooks a resumed session runs, and what it says.
//!
//! A resume keeps the hooks its record names: those of the last segment whose hooks came
//! from a config (`session.started`, or a `--clean` `session.resumed`) without
//! `--no-hooks`; a plain resume inherits them and records them again. A recorded hook
//! runs only if today's config defines it exactly as recorded (same event, command,
//! tools, timeout, sandbox, on_failure); otherwise it is skipped as no objection with
//! the spec's warning. So a record can never make hookhost run a program today's config
//! does not name. A record that never named hooks (only `--no-hooks` segments) has
//! nothing to keep, and its resume reads today's config as a clean one does.
//!
//! A hook today's config defines and the record does not list is not run either; one
//! warning names every such hook ([`unlisted_warning`]), since a record that lists fewer
//! hooks is how an edited record would turn hooks off (the host also refuses a record
//! the agent can write, with the path guard).

use std::path::{Path, PathBuf};

use super::{Body, Reading, Record, RecordError, ResumeFrom};
use crate::config::HookDef;
use crate::dispatch::Decision;

/// What a resume keeps from its record.
#[derive(Debug, Clone)]
pub struct ResumePlan {
    /// The record resumed.
    pub file: PathBuf,
    /// Today's config instead of the recorded hooks.
    pub clean: bool,
    /// The session's id, from the record.
    pub session_id: String,
    /// The recorded hooks, in order; `None` when the record never named hooks.
    pub recorded: Option<Vec<HookDef>>,
    /// The spec's message when the session was killed while a hook ran.
    pub killed: Option<String>,
    /// Notes from reading the record.
    pub notes: Vec<String>,
    /// The hooks that already warned in the record's last turn (a failure since the last
    /// `turn.ended`), so that a session resumed within that turn, such as the next
    /// process of a bridged agent session, warns once per hook per turn as one process
    /// would.
    pub warned_this_turn: Vec<String>,
    /// The digest of the record's last line, which the resumed session's first line
    /// links to ([`super::chain`]).
    pub last_line_digest: Option<String>,
    /// The project the session started in (its first `session.started`'s `cwd`), which a
    /// session that keeps it is judged against whatever folder its agent moved to.
    pub project: Option<PathBuf>,
}

impl ResumePlan {
    /// Plans the resume of `from` from its records.
    /// A record whose hash chain breaks in what the resume reads is refused: it was
    /// changed after it was written.
    pub fn new(from: &ResumeFrom, reading: &Reading) -> Result<ResumePlan, RecordError> {
        if let Err(broken) = &reading.chain {
            return Err(RecordError::BrokenChain {
                file: from.file.clone(),
                broken: broken.clone(),
            });
        }
        let started = reading
            .records
            .iter()
            .find(|r| matches!(r.body, Body::Started(_)))
            .ok_or_else(|| RecordError::NoSession(from.file.clone()))?;
        let session_id = started.session_id.clone();
        let project = match &started.body {
            Body::Started(s) if !s.cwd.is_empty() => Some(PathBuf::from(&s.cwd)),
            _ => None,
        };
        let recorded = reading.records.iter().rev().find_map(|r| match &r.body {
            Body::Started(s) | Body::Resumed(s)
                if !s.no_hooks && (matches!(r.body, Body::Started(_)) || s.clean == Some(true)) =>
            {
                Some(s.hooks.clone())
            }
            _ => None,
        });
        Ok(ResumePlan {
            file: from.file.clone(),
            clean: from.clean,
            session_id,
            recorded,
            killed: killed_message(&reading.records),
            notes: reading.notes.clone(),
            warned_this_turn: warned_this_turn(&reading.records),
            last_line_digest: reading.last_line_digest.clone(),
            project,
        })
    }

    /// Whether the session keeps recorded hooks (not clean, and the record names some).
    pub fn keeps_recorded(&self) -> bool {
        !self.clean && self.recorded.is_some()
    }

    /// Splits the recorded hooks by today's config: those still defined exactly as
    /// recorded (run, in recorded order) and the rest (skipped), with one warning each,
    /// then one warning naming the hooks of today's config the record does not list.
    pub fn apply(&self, today: &[HookDef]) -> (Vec<HookDef>, Vec<HookDef>, Vec<String>) {
        let mut kept = Vec::new();
        let mut skipped = Vec::new();
        let mut warnings = Vec::new();
        let recorded = self.recorded.as_deref().unwrap_or_default();
        for hook in recorded {
            if today.iter().any(|t| t == hook) {
                kept.push(hook.clone());
            } else {
                warnings.push(changed_warning(&hook.name));
                skipped.push(hook.clone());
            }
        }
        let unlisted: Vec<&str> = today
            .iter()
            .filter(|t| !recorded.iter().any(|r| r.name == t.name))
            .map(|t| t.name.as_str())
            .collect();
        if !unlisted.is_empty() {
            warnings.push(unlisted_warning(&self.file, &unlisted));
        }
        (kept, skipped, warnings)
    }
}

/// The hooks with a failure (blocked or let through: each gave the turn's one warning)
/// after the last `turn.ended`, in the order they first failed.
pub(crate) fn warned_this_turn(records: &[Record]) -> Vec<String> {
    // The turn's start, or a resume within it that wrote down what had warned by then.
    let since = records.iter().rposition(|r| match &r.body {
        Body::TurnEnded => true,
        Body::Resumed(s) => s.warned_this_turn.is_some(),
        _ => false,
    });
    let mut warned: Vec<String> = match since.map(|i| &records[i].body) {
        Some(Body::Resumed(s)) => s.warned_this_turn.clone().unwrap_or_default(),
        _ => Vec::new(),
    };
    let turn_start = since.map_or(0, |i| i + 1);
    for record in &records[turn_start..] {
        if let Body::Decided(d) = &record.body
            && matches!(
                d.decision,
                Decision::FailureBlocked | Decision::FailureContinued
            )
            && !warned.contains(&d.hook)
        {
            warned.push(d.hook.clone());
        }
    }
    warned
}

/// The warning for the hooks today's config defines that the resumed record does not
/// list: they are not run in this session.
pub fn unlisted_warning(record: &Path, hooks: &[&str]) -> String {
    let (noun, them) = match hooks {
        [_] => ("hook", "it"),
        _ => ("hooks", "them"),
    };
    format!(
        "⚠ {noun} {} in your config {} not listed in the session record {}, so this resumed session does not run {them}. If you did not add {them} since the session was recorded, the record was changed. Resume cleanly (--clean) to use today's hooks.",
        hooks.join(", "),
        if hooks.len() == 1 { "is" } else { "are" },
        record.display()
    )
}

/// The spec's warning for a recorded hook that today's config changed or dropped.
pub fn changed_warning(hook: &str) -> String {
    format!(
        "⚠ hook {hook} is not run in this session: it is changed in your config since the session was recorded. Resume cleanly to use today's hooks."
    )
}

/// The spec's message when the record ends with a hook that started and never
/// finished: the session was killed while it ran.
pub fn killed_message(records: &[Record]) -> Option<String> {
    let mut pending: Option<&super::HookStarted> = None;
    for record in records {
        match &record.body {
            Body::HookStarted(h) => pending = Some(h),
            Body::Effect(e)
                if pending
                    .is_some_and(|p| p.hook == e.hook && p.input_digest == e.input_digest) =>
            {
                pending = None;
            }
            // A record cut short (a full disk) lost the effect; nothing was killed.
            Body::Started(_) | Body::Resumed(_) | Body::Cut(_) => pending = None,
            _ => {}
        }
    }
    let started = pending?;
    Some(match &started.gate.tool {
        Some(tool) => format!("This session was killed before {tool} ran. It never ran."),
        None => "This session was killed while a prompt hook ran. The prompt was not sent.".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Decided, GateFields};

    fn record(body: Body) -> Record {
        Record {
            line: 1,
            at: String::new(),
            session_id: "s".into(),
            body,
        }
    }

    fn decided(hook: &str, decision: Decision) -> Record {
        record(Body::Decided(Decided {
            hook: hook.into(),
            gate: GateFields::default(),
            decision,
            reason: "timed out".into(),
        }))
    }

    #[test]
    fn the_turns_warned_hooks_are_the_failures_since_the_last_turn_ended() {
        let records = vec![
            decided("old", Decision::FailureContinued),
            record(Body::TurnEnded),
            decided("lint", Decision::FailureContinued),
            decided("guard", Decision::Block),
            decided("audit", Decision::FailureBlocked),
            decided("lint", Decision::FailureContinued),
            decided("slow", Decision::Interrupted),
        ];
        assert_eq!(warned_this_turn(&records), ["lint", "audit"]);
        assert!(warned_this_turn(&records[..2]).is_empty());
        assert_eq!(warned_this_turn(&records[..1]), ["old"]);
    }
}
