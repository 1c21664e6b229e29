//! Settings outside the file hookhost registers in that make the agent skip hookhost's
//! hook: a list of the digests of the hooks it skips, and a switch-off of every hook in a
//! file the pin check reads nowhere else (an agent's [`DisabledHooks`]: Copilot CLI's
//! `disabledHooks` and a repository's `disableAllHooks`; docs/threats.md#n7).
//!
//! Both take effect from the agent's next session, and the first stops every call of
//! hookhost's events that it lists: a call that still comes (the other event's) is
//! refused, and `doctor` names the setting.

use super::switch_offs::{ProjectFile, read_json, read_settings, switch_offs_in};
use super::*;
use crate::bridge::{DisabledHooks, Shape};

/// The refusals for `agent`'s settings that skip hookhost's hook, for a call from `cwd`
/// (`None`: the user's settings alone): its user settings listing the digest of one of
/// hookhost's handlers (as the pins of `agent` say `install` wrote them), and its files
/// whose switch-off stops every hook. Empty for an agent without such settings.
pub fn disabled_hooks(agent: AgentKind, env: &Environment, cwd: Option<&Path>) -> Vec<String> {
    let Some(disabled) = agent.declaration().disabled_hooks else {
        return Vec::new();
    };
    let mut files = Vec::new();
    let user = places(env, cwd.unwrap_or(Path::new("/")));
    let user_file = user.as_ref().map(|places| {
        agent
            .declaration()
            .settings
            .user_folder(places)
            .join(disabled.user_file)
    });
    if let Some(file) = &user_file {
        files.extend(read(file));
    }
    if let Some(cwd) = cwd {
        for folder in cwd.ancestors() {
            for name in disabled.project_files {
                files.extend(read(&folder.join(name)));
            }
            if std::fs::symlink_metadata(folder.join(".git")).is_ok() {
                break;
            }
        }
    }
    let mut found = switch_offs_in(agent, &files);
    found.extend(
        files
            .iter()
            .filter_map(|f| all_off_spelled_otherwise(agent, disabled, f)),
    );
    let listed = files
        .iter()
        .filter(|f| user_file.as_ref() == Some(&f.file))
        .find_map(|f| Some((&f.file, listed(f.bytes.as_ref().ok()?, disabled.key)?)));
    if let Some((file, listed)) = listed {
        for (event, key) in skipped_events(agent, disabled, env, &listed) {
            found.push(format!(
                "{} lists hookhost's {event} hook in `{key}`, so {} skips it from its next session on, and hookhost blocks this agent's calls while it is there. Remove that entry (`hookhost doctor` lists every switch-off it finds).",
                file.display(),
                agent.display_name()
            ));
        }
    }
    found
}

/// `file`, read as a settings file, when it is there.
fn read(file: &Path) -> Option<ProjectFile> {
    let bytes = read_settings(file, |_| true)?;
    Some(ProjectFile {
        file: file.to_path_buf(),
        bytes,
        merged: true,
        registration: false,
    })
}

/// Whether the agent reads the settings key `written` as `key`: in any case, with `_` or
/// `-` between its words.
fn same_key(written: &str, key: &str) -> bool {
    let loose = |k: &str| {
        k.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    loose(written) == loose(key)
}

/// The refusal for a settings file that switches every hook off under another spelling
/// of the key (`disable_all_hooks`) with any value but `false`; the key as written is the
/// agent's switch-off check's ([`switch_offs_in`]).
fn all_off_spelled_otherwise(
    agent: AgentKind,
    disabled: &DisabledHooks,
    file: &ProjectFile,
) -> Option<String> {
    let settings = read_json(&String::from_utf8_lossy(file.bytes.as_ref().ok()?)).ok()?;
    let (key, value) = settings.as_object()?.iter().find(|(key, value)| {
        *key != disabled.all_key && same_key(key, disabled.all_key) && **value != false
    })?;
    Some(format!(
        "{} sets \"{key}\": {value}, which {} reads as `{}` and which switches off every one of its hooks, hookhost's among them, so hookhost blocks this agent's calls. Remove it from {} if you did not put it there (`hookhost doctor` lists every switch-off it finds).",
        file.file.display(),
        agent.display_name(),
        disabled.all_key,
        file.file.display()
    ))
}

/// The strings of `settings`' lists `key`, under any spelling the agent reads as it, each
/// with the key as written; `None` when they list none.
fn listed(settings: &[u8], key: &str) -> Option<Vec<(String, String)>> {
    let settings = read_json(&String::from_utf8_lossy(settings)).ok()?;
    let listed: Vec<(String, String)> = settings
        .as_object()?
        .iter()
        .filter(|(written, _)| same_key(written, key))
        .filter_map(|(written, list)| Some((written, list.as_array()?)))
        .flat_map(|(written, list)| {
            list.iter()
                .filter_map(|entry| Some((written.clone(), entry.as_str()?.to_string())))
        })
        .collect();
    (!listed.is_empty()).then_some(listed)
}

/// The events of hookhost's handlers, as `agent`'s pins say `install` wrote them, whose
/// digest `listed` holds, each with the key that lists it.
fn skipped_events(
    agent: AgentKind,
    disabled: &DisabledHooks,
    env: &Environment,
    listed: &[(String, String)],
) -> Vec<(&'static str, String)> {
    let declaration = agent.declaration();
    let Shape::FlatJson(handler) = declaration.settings.shape else {
        return Vec::new();
    };
    let pins = load_for_call(env).unwrap_or_default();
    let mut events = Vec::new();
    for pin in pins.iter().filter(|p| p.agent == agent.flag_name()) {
        let Ok(registration) =
            super::super::Registration::new(agent, &pin.hookhost, &pin.options())
        else {
            continue;
        };
        let ours = handler(&registration);
        for event in declaration.settings.events {
            let digest = (disabled.digest)(event.name, &ours);
            let by = listed.iter().find(|(_, listed)| *listed == digest);
            if let Some((key, _)) = by
                && !events.iter().any(|(seen, _)| *seen == event.name)
            {
                events.push((event.name, key.clone()));
            }
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digest Copilot CLI 1.0.102's own code gave for hookhost's handler (its
    /// `disableKey`), for each of hookhost's events.
    #[test]
    fn copilots_digest_of_hookhosts_handler_is_the_one_it_keeps() {
        let handler = serde_json::json!({
            "timeoutSec": 30,
            "args": ["bridge", "--agent", "copilot"],
            "exec": "/work/exp/cop1/bin/hookhost",
            "type": "command",
            "unknown": true,
        });
        let handler = handler.as_object().unwrap();
        let digest = AgentKind::Copilot
            .declaration()
            .disabled_hooks
            .unwrap()
            .digest;
        assert_eq!(
            digest("preToolUse", handler),
            "09af353b6b696b5657e708ef6397624ac29487a3943e526360b18f64f5125a93"
        );
        assert_eq!(
            digest("userPromptSubmitted", handler),
            "f5c9608d81692384568744f0941bab29923b4de265ba538f8b48853a04fb07a9"
        );
    }
}
