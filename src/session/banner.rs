//! The spec's banner line: each hook with what it covers and where it runs.

use crate::config::Event;
use crate::dispatch::{LoadedHook, Placement};

/// The spec's banner: each hook with what it covers and where it runs.
pub fn banner(hooks: &[LoadedHook]) -> String {
    if hooks.is_empty() {
        return "hooks: none".into();
    }
    let items: Vec<String> = hooks
        .iter()
        .map(|h| {
            let mut parts: Vec<String> = match (&h.def.event, &h.def.tools) {
                (Event::UserPromptSubmit, _) => vec!["prompts".into()],
                (Event::PreToolUse, None) => vec!["every tool".into()],
                (Event::PreToolUse, Some(tools)) => vec![tools.join(", ")],
            };
            match h.placement {
                Placement::Host => parts.push("on the host".into()),
                Placement::Wasm => parts.push("wasm".into()),
                Placement::Boxed => {}
            }
            format!("{} ({})", h.def.name, parts.join(", "))
        })
        .collect();
    format!("hooks: {}", items.join(" · "))
}

/// [`banner`], then one line per note (a box that cannot run, say).
pub(super) fn with_notes(hooks: &[LoadedHook], notes: Vec<String>) -> String {
    let mut banner = banner(hooks);
    for note in notes {
        banner.push('\n');
        banner.push_str(&note);
    }
    banner
}
