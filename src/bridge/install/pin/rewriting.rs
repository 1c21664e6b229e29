//! Hooks of the agent's own settings that may rewrite a tool call after hookhost allowed it
//! (an agent's [`RewritingHooks`]; docs/threats.md#r14). Claude Code and Gemini CLI apply
//! what any hook of their tool-call event answers to the call's input, so a hook the agent
//! writes into a settings file it reads could turn the call hookhost judged into another.
//!
//! `install` accepts the hooks there are when it runs: the pin keeps a digest of each
//! (its event, matcher and handler), from the file it writes and the project settings it
//! finds from where it runs. A bridged call is refused while a file the agent reads holds
//! one that no pin covering the call accepted; the pinned file itself is checked only when
//! it changed since `install` (its drift, [`Drift::Rewriting`]).

use super::switch_offs::{ProjectFile, read_json, read_project_files, read_toml};
use super::*;

/// A hook that may rewrite a call, other than hookhost's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherHook {
    /// The agent's event (`PreToolUse`).
    pub event: String,
    /// What it runs: its `command`, else the handler as written.
    pub what: String,
    /// `sha256:` of its event, matcher and handler: what a pin accepts.
    pub digest: String,
}

/// The hooks of `agent`'s settings `text` (JSON, Codex's TOML) that may rewrite a call, other than a
/// handler whose `command` is one of `ours` (hookhost's, exactly as `install` writes it:
/// a handler that only looks like it is not hookhost's). Empty for an agent without such
/// hooks; an error for a text that is not the agent's JSON (the switch-off checks refuse
/// such a file already).
pub(super) fn other_hooks(
    agent: AgentKind,
    text: &str,
    ours: &[String],
) -> Result<Vec<OtherHook>, String> {
    let Some(rewriting) = agent.declaration().rewriting_hooks else {
        return Ok(Vec::new());
    };
    // Codex's TOML holds the same tables as the others' JSON: `[[hooks.EVENT]]` groups
    // with a `matcher` and `[[hooks.EVENT.hooks]]` handlers.
    let settings = match agent.declaration().switch_off {
        SwitchOff::CodexFeatures => serde_json::to_value(read_toml(text)?)
            .map_err(|e| format!("it cannot be read as settings: {e}"))?,
        _ => read_json(text)?,
    };
    let Some(hooks) = settings.get("hooks").and_then(serde_json::Value::as_object) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for event in rewriting.events {
        let groups = hooks.get(*event).and_then(serde_json::Value::as_array);
        for group in groups.into_iter().flatten() {
            let matcher = group.get("matcher").unwrap_or(&serde_json::Value::Null);
            let handlers = group.get("hooks").and_then(serde_json::Value::as_array);
            for handler in handlers.into_iter().flatten() {
                let command = handler.get("command").and_then(serde_json::Value::as_str);
                if command.is_some_and(|c| ours.iter().any(|o| o == c)) {
                    continue;
                }
                found.push(OtherHook {
                    event: (*event).to_string(),
                    what: command.map_or_else(|| handler.to_string(), str::to_string),
                    digest: digest(&format!("{event}\n{matcher}\n{handler}")),
                });
            }
        }
    }
    Ok(found)
}

/// The digests `install` accepts into `agent`'s pin: the other hooks of `after` (the file
/// as it writes it, `ours` its handler's command) and of the project settings files the
/// agent reads from `project`. `None` for an agent without such hooks.
pub(super) fn accepted_at_install(
    agent: AgentKind,
    after: &str,
    ours: &str,
    project: &Path,
) -> Option<Vec<String>> {
    agent.declaration().rewriting_hooks?;
    let ours = [ours.to_string()];
    let mut accepted: Vec<String> = other_hooks(agent, after, &ours)
        .unwrap_or_default()
        .into_iter()
        .map(|h| h.digest)
        .collect();
    if !project.as_os_str().is_empty() {
        for file in read_project_files(agent, project, |_| None) {
            if let (true, Ok(bytes)) = (file.merged, &file.bytes) {
                let hooks = other_hooks(agent, &String::from_utf8_lossy(bytes), &ours);
                accepted.extend(hooks.unwrap_or_default().into_iter().map(|h| h.digest));
            }
        }
    }
    accepted.sort();
    accepted.dedup();
    Some(accepted)
}

/// hookhost's handler commands, as `install` wrote them for `pins`.
pub(super) fn our_commands(agent: AgentKind, pins: &[&Pin]) -> Vec<String> {
    pins.iter()
        .filter_map(|pin| {
            super::super::Registration::new(agent, &pin.hookhost, &pin.options()).ok()
        })
        .map(|registration| registration.command_line)
        .collect()
}

/// The first hook of `text` (the agent's settings file `file`) that may rewrite a call
/// and that none of `pins` accepted (a pin made before hookhost looked for them accepted
/// none).
pub(super) fn unaccepted(agent: AgentKind, text: &str, pins: &[&Pin]) -> Option<OtherHook> {
    let ours = our_commands(agent, pins);
    other_hooks(agent, text, &ours)
        .ok()?
        .into_iter()
        .find(|hook| {
            !pins
                .iter()
                .filter_map(|pin| pin.accepted_hooks.as_ref())
                .any(|accepted| accepted.contains(&hook.digest))
        })
}

/// The refusal for `hook` in `file`, which `install` run in `accept_in` would accept.
pub(super) fn refusal(agent: AgentKind, file: &Path, hook: &OtherHook, accept_in: &str) -> String {
    let field = agent
        .declaration()
        .rewriting_hooks
        .map_or("input", |r| r.field);
    format!(
        "{} holds a {} hook that hookhost's `install` did not see ({}): {} applies what any such hook answers in `{field}` to the call, so it could rewrite a call after hookhost allowed it, and hookhost blocks this agent's calls while it is there. Move that hook into hookhost's config (a [[hooks]] entry runs on the same call, and can block it but not rewrite it) or remove it; if you trust it, run `hookhost install {}` {accept_in} to accept it.",
        file.display(),
        hook.event,
        crate::escape::for_terminal(&hook.what),
        agent.display_name(),
        agent.flag_name()
    )
}

/// A refusal per project settings file among `files` (those `agent` merges, read for a
/// call from its project) holding a hook that may rewrite a call and that none of `pins`
/// (the pins covering the call) accepted. A file one of `pins` pins is checked through its
/// drift instead.
pub(super) fn in_project_files(
    agent: AgentKind,
    files: &[ProjectFile],
    pins: &[&Pin],
) -> Vec<String> {
    if agent.declaration().rewriting_hooks.is_none() {
        return Vec::new();
    }
    files
        .iter()
        .filter(|f| f.merged && !pins.iter().any(|p| same_path(&p.file, &f.file)))
        .filter_map(|f| {
            let bytes = f.bytes.as_ref().ok()?;
            let hook = unaccepted(agent, &String::from_utf8_lossy(bytes), pins)?;
            // The project's folder: the one holding the agent's settings folder.
            let project = f
                .file
                .parent()
                .and_then(Path::parent)
                .map_or_else(String::new, |p| format!("in {}", p.display()));
            Some(refusal(agent, &f.file, &hook, &project))
        })
        .collect()
}

/// The refusals for the project settings files `agent` merges for a call (or `doctor`)
/// from `cwd` that hold a hook that may rewrite a call which no pin covering `cwd`
/// accepted, reading the files and the pins itself.
pub fn unaccepted_project_hooks(env: &Environment, agent: AgentKind, cwd: &Path) -> Vec<String> {
    if agent.declaration().rewriting_hooks.is_none() {
        return Vec::new();
    }
    let Ok(pins) = load_for_call(env) else {
        return Vec::new();
    };
    let covering: Vec<&Pin> = pins
        .iter()
        .filter(|p| p.agent == agent.flag_name() && p.covers(Some(cwd)))
        .collect();
    if covering.is_empty() {
        return Vec::new();
    }
    in_project_files(agent, &read_project_files(agent, cwd, |_| None), &covering)
}
