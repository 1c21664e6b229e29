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
    match agent.declaration().switch_off {
        SwitchOff::DisableAllHooks => {
            let settings: serde_json::Value = serde_json::from_str(text).ok()?;
            (settings.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)))
                .then_some("\"disableAllHooks\": true")
        }
        SwitchOff::CodexFeatures => {
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
        SwitchOff::None => None,
    }
}

/// A message per project settings file, in `cwd` or a folder above it, that switches
/// `agent`'s hooks off: the call is denied, naming the file and the key, so that the
/// user learns of it now rather than find the next session unguarded.
pub fn project_switch_offs(agent: AgentKind, cwd: &Path) -> Vec<String> {
    let files = agent.declaration().merged_project_settings;
    let mut found = Vec::new();
    for folder in cwd.ancestors() {
        for name in files {
            let file = folder.join(name);
            let Ok(bytes) = crate::access::read_capped(&file, crate::access::caps::SETTINGS) else {
                continue;
            };
            if let Some(key) = switches_hooks_off(agent, &String::from_utf8_lossy(&bytes)) {
                found.push(format!(
                    "{} sets {key}, which switches off every {} hook, hookhost's among them, so hookhost blocks this agent's calls. Remove it from {} if you did not put it there (`hookhost doctor` lists every switch-off it finds).",
                    file.display(),
                    agent.display_name(),
                    file.display()
                ));
            }
        }
    }
    found
}
