//! The settings that switch an agent's hooks off (its [`SwitchOff`]), in the file hookhost
//! is pinned in and in the project settings the agent merges over the user's
//! (docs/threats.md#r2).

use super::*;

/// The setting in an agent's settings `text` that turns every hook off, or hookhost's
/// registration by name, if it is set: Claude Code's and Qwen Code's `"disableAllHooks":
/// true`; Codex's `[features] hooks = false` (or its old name `codex_hooks`) and
/// `enabled = false` in a `[hooks.state."…"]` table, as Codex's `/hooks` writes it; Gemini
/// CLI's `hooksConfig.enabled: false` and `"hookhost"` in `hooksConfig.disabled`
/// (docs/agents.md). `install` removes each of them from its own file again.
pub fn switches_hooks_off(agent: AgentKind, text: &str) -> Option<&'static str> {
    // Every bridged call reads the project's settings files: a warm server's thread keeps
    // what the same text gave.
    thread_local! {
        static FOUND: Place<(AgentKind, String), Option<&'static str>> = const { recent::place() };
    }
    recent::or_make(
        &FOUND,
        text.len(),
        |(kept_agent, kept)| *kept_agent == agent && kept == text,
        || (agent, text.to_owned()),
        || switch_off_in(agent, text),
    )
}

/// A TOML settings file nested past what hookhost parses (docs/threats.md#b5): the
/// agent may read switch-offs in it that hookhost cannot see, so it counts as one.
const TOO_DEEP: &str =
    "tables and arrays nested more than 64 levels deep, which hookhost cannot read";

// The count above is the parse's bound.
const _: () = assert!(crate::toml_file::MAX_NESTING == 64);

/// [`switches_hooks_off`], worked out.
fn switch_off_in(agent: AgentKind, text: &str) -> Option<&'static str> {
    match agent.declaration().switch_off {
        SwitchOff::DisableAllHooks => {
            let settings: serde_json::Value = serde_json::from_str(text).ok()?;
            (settings.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)))
                .then_some("\"disableAllHooks\": true")
        }
        SwitchOff::CodexFeatures => {
            if crate::toml_file::nesting_within_bound(text).is_err() {
                return Some(TOO_DEEP);
            }
            let settings: toml::Table = text.parse().ok()?;
            let features = settings.get("features").and_then(toml::Value::as_table);
            let off = |key: &str| {
                features
                    .and_then(|f| f.get(key))
                    .and_then(toml::Value::as_bool)
                    == Some(false)
            };
            let handler_off = || {
                settings
                    .get("hooks")?
                    .get("state")?
                    .as_table()?
                    .values()
                    .any(|entry| entry.get("enabled").and_then(toml::Value::as_bool) == Some(false))
                    .then_some("enabled = false in [hooks.state]")
            };
            if off("hooks") {
                Some("[features] hooks = false")
            } else if off("codex_hooks") {
                Some("[features] codex_hooks = false")
            } else {
                handler_off()
            }
        }
        SwitchOff::HooksConfig { handler_name } => {
            let settings: serde_json::Value = serde_json::from_str(text).ok()?;
            let config = settings.get("hooksConfig")?;
            if config.get("enabled") == Some(&serde_json::Value::Bool(false)) {
                return Some("\"hooksConfig\": {\"enabled\": false}");
            }
            config
                .get("disabled")?
                .as_array()?
                .iter()
                .any(|name| name.as_str() == Some(handler_name))
                .then_some("\"hooksConfig\": {\"disabled\": [\"hookhost\"]}")
        }
        SwitchOff::StrictHookTables(schema) => {
            if crate::toml_file::nesting_within_bound(text).is_err() {
                return Some(TOO_DEEP);
            }
            let settings: toml::Table = text.parse().ok()?;
            let hooks = settings.get("hooks")?;
            let Some(tables) = hooks.as_array() else {
                return Some(
                    "a `hooks` key that is not [[hooks]] tables, which makes the agent drop its whole hooks section",
                );
            };
            tables
                .iter()
                .find_map(|table| refused_hook_table(schema, table))
        }
        SwitchOff::None => None,
    }
}

/// Why the agent's strict schema refuses one `[[hooks]]` table, if it does.
fn refused_hook_table(schema: &HookTableSchema, table: &toml::Value) -> Option<&'static str> {
    let Some(table) = table.as_table() else {
        return Some(
            "a `hooks` entry that is not a table, which makes the agent drop its whole hooks section",
        );
    };
    if table.keys().any(|key| !schema.keys.contains(&key.as_str())) {
        return Some(
            "a [[hooks]] table with a key the agent does not know, which makes it drop its whole hooks section",
        );
    }
    let event_known = table
        .get("event")
        .and_then(toml::Value::as_str)
        .is_some_and(|event| schema.events.contains(&event));
    let command_ok = table
        .get("command")
        .and_then(toml::Value::as_str)
        .is_some_and(|command| !command.is_empty());
    let matcher_ok = table.get("matcher").is_none_or(toml::Value::is_str);
    let (least, most) = schema.timeout_seconds;
    let timeout_ok = table
        .get("timeout")
        .is_none_or(|t| t.as_integer().is_some_and(|t| (least..=most).contains(&t)));
    if !event_known {
        Some(
            "a [[hooks]] table with no event or one the agent does not know, which makes it drop its whole hooks section",
        )
    } else if !command_ok || !matcher_ok {
        Some(
            "a [[hooks]] table whose command or matcher is not a (non-empty) string, which makes the agent drop its whole hooks section",
        )
    } else if !timeout_ok {
        Some(
            "a [[hooks]] table whose timeout is not a whole number of seconds in the range the agent accepts, which makes it drop its whole hooks section",
        )
    } else {
        None
    }
}

/// A settings file of the agent's found in the project, `cwd` or a folder above it, read
/// once for both per-call checks that look at them: the switch-offs in the files the agent
/// merges ([`switch_offs_in`]) and the registrations no pin covers (`unpinned_registrations`).
pub(super) struct ProjectFile {
    /// Where it is.
    pub(super) file: PathBuf,
    /// What it holds (capped at [`crate::access::caps::SETTINGS`]).
    pub(super) bytes: Vec<u8>,
    /// One of the files the agent merges over the user's (`merged_project_settings`).
    pub(super) merged: bool,
    /// The file a project-scope `install` writes (None for an agent with no project scope).
    pub(super) registration: bool,
}

/// The agent's project settings files that exist in `cwd` and the folders above it: each
/// merged file, and the file a project-scope registration lives in (`registration_file`,
/// given a folder), each read once, in one walk up from `cwd`.
pub(super) fn read_project_files(
    agent: AgentKind,
    cwd: &Path,
    registration_file: impl Fn(&Path) -> Option<PathBuf>,
) -> Vec<ProjectFile> {
    let merged_names = agent.declaration().merged_project_settings;
    let mut found = Vec::new();
    for folder in cwd.ancestors() {
        let registration = registration_file(folder);
        let mut candidates: Vec<PathBuf> = merged_names.iter().map(|n| folder.join(n)).collect();
        if let Some(file) = &registration
            && !candidates.contains(file)
        {
            candidates.push(file.clone());
        }
        for file in candidates {
            // Most of these files do not exist: one failed open each.
            let Ok(bytes) = crate::access::read_capped(&file, crate::access::caps::SETTINGS) else {
                continue;
            };
            found.push(ProjectFile {
                merged: merged_names.iter().any(|n| folder.join(n) == file),
                registration: registration.as_ref() == Some(&file),
                file,
                bytes,
            });
        }
    }
    found
}

/// A message per project settings file, in `cwd` or a folder above it, that switches
/// `agent`'s hooks off: the call is denied, naming the file and the key, so that the
/// user learns of it now rather than find the next session unguarded.
pub fn project_switch_offs(agent: AgentKind, cwd: &Path) -> Vec<String> {
    switch_offs_in(agent, &read_project_files(agent, cwd, |_| None))
}

/// [`project_switch_offs`] over files already read.
pub(super) fn switch_offs_in(agent: AgentKind, files: &[ProjectFile]) -> Vec<String> {
    files
        .iter()
        .filter(|f| f.merged)
        .filter_map(|f| {
            let key = switches_hooks_off(agent, &String::from_utf8_lossy(&f.bytes))?;
            Some(format!(
                "{} sets {key}, which switches off every {} hook, hookhost's among them, so hookhost blocks this agent's calls. Remove it from {} if you did not put it there (`hookhost doctor` lists every switch-off it finds).",
                f.file.display(),
                agent.display_name(),
                f.file.display()
            ))
        })
        .collect()
}
