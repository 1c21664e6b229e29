//! The writer as the dispatcher's [`Recorder`]: each [`RunEvent`] as its record.

use serde_json::Value;

use super::{Fields, RecordWriter};
use crate::dispatch::{Recorder, RunEvent};
use crate::record::{Body, ContextRecord, Decided, Effect, GateFields, GateVerdict, HookStarted};

impl Recorder for RecordWriter {
    fn record(&self, event: RunEvent<'_>) {
        // What follows a hook's run is held for the gate's next line, which the
        // dispatcher records before it awaits anything (see the module docs).
        let hold = matches!(
            event,
            RunEvent::Effect { .. } | RunEvent::Decided { .. } | RunEvent::Context { .. }
        );
        self.write_or_warn(&Fields::of(&body(event)), hold);
    }
}

/// The record of `event`.
fn body(event: RunEvent<'_>) -> Body {
    match event {
        RunEvent::HookStarted {
            hook,
            input_digest,
            gate,
        } => Body::HookStarted(HookStarted {
            hook: hook.into(),
            input_digest: input_digest.into(),
            gate: GateFields::of(gate),
        }),
        RunEvent::Effect {
            hook,
            input_digest,
            result,
        } => Body::Effect(Effect::capture(hook, input_digest, result)),
        RunEvent::Decided {
            hook,
            gate,
            decision,
            reason,
        } => Body::Decided(Decided {
            hook: hook.into(),
            gate: GateFields::of(gate),
            decision,
            reason: reason.into(),
        }),
        RunEvent::Context { hook, text } => Body::Context(ContextRecord {
            hook: hook.into(),
            characters: text.chars().count(),
            text: text.into(),
        }),
        RunEvent::Verdict {
            gate,
            tool_input,
            verdict,
            bridged,
        } => Body::Verdict(GateVerdict {
            gate: GateFields::of(gate),
            tool_input: tool_input.cloned(),
            verdict: serde_json::to_value(verdict).unwrap_or(Value::Null),
            bridged: bridged.cloned(),
        }),
        RunEvent::TurnEnded => Body::TurnEnded,
    }
}
