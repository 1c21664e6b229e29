//! The settings that switch an agent's hooks off (its [`SwitchOff`]), in the file hookhost
//! is pinned in and in the project settings the agent merges over the user's
//! (docs/threats.md#r2).

use super::*;

/// The setting in an agent's settings `text` that turns every hook off, or hookhost's
/// registration by name, if it is set: Claude Code's and Qwen Code's `"disableAllHooks":
/// true`; Codex's `[features] hooks = false` (or its old name `codex_hooks`) and
/// `enabled = false` in a `[hooks.state."…"]` table, as Codex's `/hooks` writes it; Gemini
/// CLI's `hooksConfig.enabled: false` and `"hookhost"` in `hooksConfig.disabled`
/// (docs/agents.md). `install` removes each of them from its own file again. A text
/// hookhost cannot read gives none here (`examine` says why).
pub fn switches_hooks_off(agent: AgentKind, text: &str) -> Option<&'static str> {
    examine(agent, text).ok().flatten()
}

/// What an agent's settings `text` says of its hooks: `Ok(Some(key))` the setting that
/// switches them off ([`switches_hooks_off`]), `Ok(None)` none, and `Err(why)` a text
/// hookhost cannot read as the agent's settings, where the agent may read a switch-off
/// hookhost would not see (docs/threats.md#b8); `why` starts "it …".
pub(super) fn examine(agent: AgentKind, text: &str) -> Result<Option<&'static str>, String> {
    // Every bridged call reads the project's settings files: a warm server's thread keeps
    // what the same text gave.
    thread_local! {
        static FOUND: Place<(AgentKind, String), Result<Option<&'static str>, String>> =
            const { recent::place() };
    }
    recent::or_make(
        &FOUND,
        text.len(),
        |(kept_agent, kept)| *kept_agent == agent && kept == text,
        || (agent, text.to_owned()),
        || switch_off_in(agent, text),
    )
}

/// [`examine`], worked out: the agent's switch-off setting, then a setting that starts one
/// of its modes without hooks.
fn switch_off_in(agent: AgentKind, text: &str) -> Result<Option<&'static str>, String> {
    if let Some(key) = setting_switch_off(agent, text)? {
        return Ok(Some(key));
    }
    // Its settings' `env`, then its modes, from one reading of the text.
    let modes = agent.declaration().modes_without_hooks;
    if modes.is_none() && !super::hook_environment::has_settings_env(agent) {
        return Ok(None);
    }
    Ok(settings_switch_off(agent, &read_json(text)?))
}

/// The variable of the settings' `env` read before the agent's hooks, else the setting
/// that starts one of its modes without hooks, in `settings` (a settings file, parsed).
fn settings_switch_off(agent: AgentKind, settings: &serde_json::Value) -> Option<&'static str> {
    super::hook_environment::in_settings(agent, settings).or_else(|| {
        let modes = agent.declaration().modes_without_hooks?;
        mode_without_hooks(modes, env_key(agent), settings)
    })
}

/// The settings key whose object `agent` adds to its hooks' environment, if any.
fn env_key(agent: AgentKind) -> Option<&'static str> {
    agent.declaration().hook_environment?.settings_env
}

/// The setting of `settings` that starts one of the agent's `modes` without hooks: an
/// object where one must not be, or a variable its `env` object sets to switch one on.
fn mode_without_hooks(
    modes: &ModesWithoutHooks,
    env_key: Option<&str>,
    settings: &serde_json::Value,
) -> Option<&'static str> {
    let object_at = |keys: &[&str]| {
        keys.iter()
            .try_fold(settings, |value, key| value.get(key))
            .is_some_and(serde_json::Value::is_object)
    };
    // The variables first: a project's file is read for them alone (below).
    let by_variable = env_key.and_then(|key| settings.get(key)).and_then(|env| {
        modes.variables.iter().find_map(|variable| {
            // The agent takes string values only into its environment.
            let value = env.get(variable.name)?.as_str()?;
            switches_a_mode_on(modes, value).then_some(variable.in_settings)
        })
    });
    by_variable.or_else(|| {
        modes
            .settings_objects
            .iter()
            .find(|(keys, _)| object_at(keys))
            .map(|(_, name)| *name)
    })
}

/// Whether `key`, found by [`examine`], is one of the agent's settings that only its user
/// (and system) settings hold: Qwen Code strips its shell sandbox from a project's.
fn user_file_only(agent: AgentKind, key: &str) -> bool {
    agent
        .declaration()
        .modes_without_hooks
        .is_some_and(|modes| modes.settings_objects.iter().any(|(_, name)| *name == key))
}

/// Whether `value`, given to one of `modes`' variables, switches its mode on.
pub(super) fn switches_a_mode_on(modes: &ModesWithoutHooks, value: &str) -> bool {
    modes
        .on_values
        .iter()
        .any(|on| value.trim().eq_ignore_ascii_case(on))
}

/// The setting in `text` that switches the agent's hooks off ([`SwitchOff`]).
fn setting_switch_off(agent: AgentKind, text: &str) -> Result<Option<&'static str>, String> {
    Ok(match agent.declaration().switch_off {
        SwitchOff::DisableAllHooksUnlessFalse => match read_json(text)?.get("disableAllHooks") {
            None | Some(serde_json::Value::Bool(false)) => None,
            Some(serde_json::Value::Bool(true)) => Some("\"disableAllHooks\": true"),
            Some(_) => Some(
                "\"disableAllHooks\" to a value that is not a boolean, which makes the agent drop the whole file",
            ),
        },
        SwitchOff::DisableAllHooks { deep_merged } => {
            let settings = read_json(text)?;
            if deep_merged && let Some(replaced) = hooks_replaced(&settings) {
                return Ok(Some(replaced));
            }
            match settings.get("disableAllHooks") {
                Some(serde_json::Value::Bool(true)) => Some("\"disableAllHooks\": true"),
                Some(value) if super::super::json::is_truthy(value) => Some(
                    "\"disableAllHooks\" to a value that is not `true` but that the agent takes as true",
                ),
                _ => None,
            }
        }
        SwitchOff::CodexFeatures => {
            let settings = read_toml(text)?;
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
            // A profile's `[features]` apply over the top-level ones, for the profile the
            // config's `profile` key selects (docs/agents.md#codex). A profile the user
            // keeps without hooks and selects with `--profile` is theirs to choose.
            let profile_off = || {
                let selected = settings.get("profile")?.as_str()?;
                let features = settings
                    .get("profiles")?
                    .get(selected)?
                    .get("features")?
                    .as_table()?;
                ["hooks", "codex_hooks"]
                    .iter()
                    .any(|key| features.get(*key).and_then(toml::Value::as_bool) == Some(false))
                    .then_some("hooks = false in the [profiles.….features] table `profile` selects")
            };
            if off("hooks") {
                Some("[features] hooks = false")
            } else if off("codex_hooks") {
                Some("[features] codex_hooks = false")
            } else {
                handler_off().or_else(profile_off)
            }
        }
        SwitchOff::HooksConfig { handler_name } => {
            use super::super::json::disables_handler;
            let settings = read_json(text)?;
            if let Some(replaced) = hooks_replaced(&settings) {
                return Ok(Some(replaced));
            }
            let config = match settings.get("hooksConfig") {
                None => return Ok(None),
                Some(serde_json::Value::Object(config)) => config,
                // Merged over the user's `hooksConfig`, it replaces it whole.
                Some(_) => {
                    return Ok(Some(
                        "\"hooksConfig\" to something other than an object, which replaces the user's",
                    ));
                }
            };
            // Gemini CLI switches its hooks on by the value's truth, after expanding
            // `${…}` from the environment: anything set but `true` may be off.
            match config.get("enabled") {
                Some(serde_json::Value::Bool(false)) => {
                    return Ok(Some("\"hooksConfig\": {\"enabled\": false}"));
                }
                Some(serde_json::Value::Bool(true)) | None => {}
                Some(_) => {
                    return Ok(Some(
                        "\"hooksConfig\": {\"enabled\": …} to a value that is not `true`, which the agent may take as false",
                    ));
                }
            }
            let Some(disabled) = config.get("disabled") else {
                return Ok(None);
            };
            let named = match disabled {
                serde_json::Value::Array(entries) => entries.iter().any(|e| e == handler_name),
                _ => false,
            };
            if named {
                Some("\"hooksConfig\": {\"disabled\": [\"hookhost\"]}")
            } else if disables_handler(disabled, handler_name) {
                Some(
                    "a \"hooksConfig\": {\"disabled\": …} that may name hookhost once the agent reads it (one string it searches for the name, or an entry it expands from the environment)",
                )
            } else {
                None
            }
        }
        SwitchOff::StrictHookTables(schema) => {
            let settings = read_toml(text)?;
            if settings.values().any(beyond_a_javascript_number) {
                return Ok(Some(
                    "an integer beyond 2^53 - 1, which the agent's TOML reader (smol-toml) refuses, so it reads none of the file, its hooks section with it",
                ));
            }
            let Some(hooks) = settings.get("hooks") else {
                return Ok(None);
            };
            let Some(tables) = hooks.as_array() else {
                return Ok(Some(
                    "a `hooks` key that is not [[hooks]] tables, which makes the agent drop its whole hooks section",
                ));
            };
            tables
                .iter()
                .find_map(|table| refused_hook_table(schema, table))
        }
        SwitchOff::None => None,
    })
}

/// Whether `value` is, or holds, an integer a JavaScript number cannot hold exactly,
/// which smol-toml (Kimi Code's TOML reader) refuses, failing the whole file ("integer
/// value cannot be represented losslessly"): Kimi Code then loads an empty config, without
/// a word (2.1.0, seen with the real program). hookhost's reader takes any 64-bit one.
fn beyond_a_javascript_number(value: &toml::Value) -> bool {
    const SAFE: i64 = (1 << 53) - 1;
    match value {
        toml::Value::Integer(n) => !(-SAFE..=SAFE).contains(n),
        toml::Value::Array(items) => items.iter().any(beyond_a_javascript_number),
        toml::Value::Table(table) => table.values().any(beyond_a_javascript_number),
        _ => false,
    }
}

/// A `hooks` key that is not an object, in the settings of an agent that merges a
/// project's settings over the user's key by key (Gemini CLI, Qwen Code: `null`, `[]`,
/// `false`…): merged, it replaces the user's whole `hooks`, hookhost's registration with
/// it, and the agent runs no hook (it warns of the value, and goes on).
fn hooks_replaced(settings: &serde_json::Value) -> Option<&'static str> {
    match settings.get("hooks") {
        None | Some(serde_json::Value::Object(_)) => None,
        Some(_) => Some("\"hooks\" to something other than an object, which replaces the user's"),
    }
}

/// Whether `file` is named as the agent's settings files are (`.json` or `.toml`, as
/// [`examine`] reads them).
pub(super) fn is_settings_file(agent: AgentKind, file: &Path) -> bool {
    let format = match agent.declaration().switch_off {
        SwitchOff::DisableAllHooks { .. }
        | SwitchOff::DisableAllHooksUnlessFalse
        | SwitchOff::HooksConfig { .. } => "json",
        SwitchOff::CodexFeatures | SwitchOff::StrictHookTables(_) => "toml",
        SwitchOff::None => return false,
    };
    file.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(format))
}

/// A JSON settings file as the agents read it, or why hookhost cannot. Gemini CLI and
/// Qwen Code strip `//` and `/* */` comments first (the npm package strip-json-comments;
/// Qwen Code a byte-order mark too), and a file of Claude Code's is read the same way:
/// a switch-off seen in a file its agent cannot read costs a deny that names the file,
/// one missed in a file its agent reads costs the user's every hook.
pub(super) fn read_json(text: &str) -> Result<serde_json::Value, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = without_json_comments(text);
    // A blank file holds no setting (`install` reads it as `{}`, Qwen Code resets it).
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(&text).map_err(|e| format!("it is malformed JSON (comments aside): {e}"))
}

/// `text` with its comments blanked out as strip-json-comments blanks them: outside a
/// string, `//` to the end of the line and `/* … */` (unclosed: to the end of the text);
/// a string runs between quotes not escaped by an odd number of backslashes. Every
/// character of a comment but its line ends becomes a space, so positions in errors hold.
fn without_json_comments(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('/') {
        return text.into();
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut i) = (false, 0);
    let mut copied = 0; // bytes of `text` before this are in `out`
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let backslashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
                if backslashes % 2 == 0 {
                    in_string = !in_string;
                }
                i += 1;
            }
            b'/' if !in_string && matches!(bytes.get(i + 1), Some(b'/' | b'*')) => {
                let end = if bytes[i + 1] == b'/' {
                    // The line end stays: `\r\n` or `\n`.
                    text[i..].find('\n').map_or(text.len(), |n| i + n)
                } else {
                    text[i + 2..]
                        .find("*/")
                        .map_or(text.len(), |n| i + 2 + n + 2)
                };
                out.push_str(&text[copied..i]);
                out.extend(text[i..end].chars().map(|c| match c {
                    '\n' | '\r' => c,
                    _ => ' ',
                }));
                (copied, i) = (end, end);
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out.into()
}

/// A TOML settings file, or why hookhost cannot read it: malformed, or nested past what
/// hookhost parses (docs/threats.md#b5). Read as TOML 1.1, as Codex's parser reads it (a
/// multi-line inline table, a trailing comma in one), so that a file the agent reads is
/// one hookhost reads; what the parse gives is taken as the `toml` crate's values.
pub(super) fn read_toml(text: &str) -> Result<toml::Table, String> {
    if let Err(line) = crate::toml_file::nesting_within_bound(text) {
        return Err(format!(
            "it has {} (line {line}), more than hookhost reads",
            crate::toml_file::too_deep()
        ));
    }
    let document = toml_edit_11::Document::parse(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map_or((1, 1), |s| crate::toml_file::line_column(text, s.start));
        format!(
            "it is TOML hookhost cannot parse, at line {line}, column {column}: {}",
            e.message().trim()
        )
    })?;
    Ok(toml_table(document.as_table()))
}

/// A TOML 1.1 table as the `toml` crate's. Its depth is bounded by the scan before the
/// parse ([`crate::toml_file::nesting_within_bound`]).
fn toml_table(table: &toml_edit_11::Table) -> toml::Table {
    table
        .iter()
        .filter_map(|(key, item)| Some((key.to_owned(), toml_item(item)?)))
        .collect()
}

fn toml_item(item: &toml_edit_11::Item) -> Option<toml::Value> {
    use toml_edit_11::Item;
    Some(match item {
        Item::None => return None,
        Item::Value(value) => toml_value(value),
        Item::Table(table) => toml::Value::Table(toml_table(table)),
        Item::ArrayOfTables(tables) => toml::Value::Array(
            tables
                .iter()
                .map(|t| toml::Value::Table(toml_table(t)))
                .collect(),
        ),
    })
}

fn toml_value(value: &toml_edit_11::Value) -> toml::Value {
    use toml_edit_11::Value;
    match value {
        Value::String(s) => toml::Value::String(s.value().clone()),
        Value::Integer(i) => toml::Value::Integer(*i.value()),
        Value::Float(f) => toml::Value::Float(*f.value()),
        Value::Boolean(b) => toml::Value::Boolean(*b.value()),
        Value::Datetime(d) => {
            let text = d.value().to_string();
            text.parse()
                .map_or(toml::Value::String(text), toml::Value::Datetime)
        }
        Value::Array(array) => toml::Value::Array(array.iter().map(toml_value).collect()),
        Value::InlineTable(table) => toml::Value::Table(
            table
                .iter()
                .map(|(key, v)| (key.to_owned(), toml_value(v)))
                .collect(),
        ),
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
    /// What it holds (capped at [`crate::access::caps::SETTINGS`]), or why hookhost
    /// cannot read it, in words that follow the file's name.
    pub(super) bytes: Result<Vec<u8>, String>,
    /// One of the files the agent merges over the user's (`merged_project_settings`).
    pub(super) merged: bool,
    /// The file a project-scope `install` writes (None for an agent with no project scope).
    pub(super) registration: bool,
}

/// The agent's project settings files that exist in `cwd` and the folders above it: each
/// merged file, and the file a project-scope registration lives in (`registration_file`,
/// given a folder), each read once, in one walk up from `cwd`.
///
/// A file that is not there, or that this user may not read, the agent cannot read
/// either, and is left out. One that is there but that hookhost does not read (larger
/// than its cap, a FIFO an agent's process writes into) is kept with why: the agent reads
/// it whole (docs/threats.md#b8).
///
/// One file met again on the way up (a link to it in every folder) is read once, and the
/// walk reads at most [`PROJECT_SETTINGS_READ`] in all: a `cwd` hundreds of folders deep,
/// each with its own 16 MiB file, held gigabytes at every call (docs/threats.md#b9). Past
/// that, one more entry says so, which the checks take as a file they cannot read.
pub(super) fn read_project_files(
    agent: AgentKind,
    cwd: &Path,
    registration_file: impl Fn(&Path) -> Option<PathBuf>,
) -> Vec<ProjectFile> {
    read_files_up(
        agent.declaration().merged_project_settings,
        cwd,
        registration_file,
    )
}

/// The files named `merged_names` (relative to a folder) in `cwd` and each folder above
/// it, and the one `registration_file` gives for each folder, read as
/// [`read_project_files`] reads them: each once, and at most [`PROJECT_SETTINGS_READ`] in
/// all.
pub(super) fn read_files_up(
    merged_names: &[&str],
    cwd: &Path,
    registration_file: impl Fn(&Path) -> Option<PathBuf>,
) -> Vec<ProjectFile> {
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut read = 0;
    for folder in cwd.ancestors() {
        let registration = registration_file(folder);
        let mut candidates: Vec<PathBuf> = merged_names.iter().map(|n| folder.join(n)).collect();
        if let Some(file) = &registration
            && !candidates.contains(file)
        {
            candidates.push(file.clone());
        }
        for file in candidates {
            // `.claude/settings.json` and `.claude/settings.local.json` of a folder with no
            // `.claude`: one look at the folder between, not a failed open of each.
            if lies_under_nothing(&file, folder) {
                continue;
            }
            let merged = merged_names.iter().any(|n| folder.join(n) == file);
            let registration = registration.as_ref() == Some(&file);
            // Most of the rest do not exist either: one failed open each. One met again
            // is known by the open file's identity; where the OS gives none (Windows), or an
            // index of 0, each is read.
            let first_time = |meta: &std::fs::Metadata| {
                crate::platform::sys::ownership::identity_in(meta)
                    .filter(|id| id.ino != 0)
                    .is_none_or(|id| seen.insert((id.dev, id.ino, merged, registration)))
            };
            let Some(bytes) = read_settings(&file, first_time) else {
                continue;
            };
            read += bytes.as_ref().map_or(0, Vec::len);
            if read > PROJECT_SETTINGS_READ {
                found.push(ProjectFile {
                    bytes: Err(format!(
                        "with the settings files below it, it is more than the {} MiB hookhost reads of them for one call",
                        PROJECT_SETTINGS_READ >> 20
                    )),
                    file,
                    merged: true,
                    registration,
                });
                return found;
            }
            found.push(ProjectFile {
                merged,
                registration,
                file,
                bytes,
            });
        }
    }
    found
}

/// The most bytes of project settings files one call reads, all files together: two at
/// the cap of one ([`crate::access::caps::SETTINGS`]).
const PROJECT_SETTINGS_READ: usize = 2 * crate::access::caps::SETTINGS as usize;

/// A message per project settings file, in `cwd` or a folder above it, that switches
/// `agent`'s hooks off: the call is denied, naming the file and the key, so that the
/// user learns of it now rather than find the next session unguarded.
pub fn project_switch_offs(agent: AgentKind, cwd: &Path) -> Vec<String> {
    switch_offs_in(agent, &read_project_files(agent, cwd, |_| None))
}

/// [`project_switch_offs`] over files already read. A merged file hookhost cannot read
/// counts as one that switches the hooks off: the agent may read one there.
pub(super) fn switch_offs_in(agent: AgentKind, files: &[ProjectFile]) -> Vec<String> {
    files
        .iter()
        .filter(|f| f.merged)
        .filter_map(|f| {
            let examined = f
                .bytes
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|bytes| examine(agent, &String::from_utf8_lossy(bytes)));
            match examined {
                Ok(Some(key)) if user_file_only(agent, key) => None,
                Ok(key) => Some(switched_off(agent, &f.file, key?)),
                Err(why) => Some(unreadable(agent, &f.file, &why)),
            }
        })
        .collect()
}

/// The settings among `files` (each with whether it is the user's own) that start one of
/// the agent's modes without hooks, or set a variable its hooks' shell reads first
/// ([`super::no_hook_runs`]), one message each; a file
/// hookhost cannot read counts, since the agent may read one there.
pub(super) fn modes_in(agent: AgentKind, files: &[(ProjectFile, bool)]) -> Vec<String> {
    let modes = agent.declaration().modes_without_hooks;
    if modes.is_none() && !super::hook_environment::has_settings_env(agent) {
        return Vec::new();
    }
    files
        .iter()
        .filter_map(|(f, users)| {
            // A variable its hooks' shell reads first reroutes the system's hooks too.
            let found = f.bytes.as_ref().map_err(Clone::clone).and_then(|bytes| {
                Ok(settings_switch_off(
                    agent,
                    &read_json(&String::from_utf8_lossy(bytes))?,
                ))
            });
            match found {
                Ok(Some(key)) if !*users && user_file_only(agent, key) => None,
                Ok(key) => Some(switched_off(agent, &f.file, key?)),
                Err(why) => Some(unreadable(agent, &f.file, &why)),
            }
        })
        .collect()
}

/// A settings file opened: its metadata and its bytes, or why not. An error is kept only
/// when it is the OS's (an errno), so that it reads the same when it is made again, as
/// [`crate::paths::memoised`] keeps its answers; any other (a file past the cap, one that
/// is not a regular file) is asked for again.
type SettingsRead = Result<(std::fs::Metadata, Result<Vec<u8>, i32>), i32>;

/// What one call's check keeps of the settings files it read ([`each_read_once`]).
#[derive(Default)]
struct SettingsReads {
    /// By path.
    files: std::collections::HashMap<std::ffi::OsString, SettingsRead>,
    /// The bytes kept, all files together.
    kept: usize,
}

/// The most bytes of one file, and of all a check keeps (every entry, an absent file's
/// too), to answer a second read: settings files are a few KB; a large one, or many
/// files (a link to one file in each of hundreds of folders, docs/threats.md#b9), are
/// read again when asked for again rather than held for the whole check.
const KEPT_FILE: usize = 64 << 10;
const KEPT_IN_ALL: usize = 1 << 20;

/// What an entry of the table costs besides its path and bytes (the table's own
/// slot and the allocations' headers), counted against [`KEPT_IN_ALL`].
const KEPT_ENTRY: usize = 64;

thread_local! {
    /// The settings files the running call's check has read ([`each_read_once`]).
    static SETTINGS_READ: std::cell::RefCell<Option<SettingsReads>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `check` with each settings file [`read_settings`] reads opened and read at most
/// once, within the bounds above (see [`crate::paths::in_thread_memo`]); everything read
/// is forgotten when it returns, so the next check reads the files as they are then.
pub(super) fn each_read_once<T>(check: impl FnOnce() -> T) -> T {
    crate::paths::in_thread_memo(&SETTINGS_READ, check)
}

/// `file` opened (a regular file, or an error) and, unless `first_time` says its
/// metadata was met already (`Ok(None)`, nothing read), read up to the settings' cap:
/// from the running check's earlier read of it, if it kept one.
fn settings_read(
    file: &Path,
    first_time: impl FnOnce(&std::fs::Metadata) -> bool,
) -> std::io::Result<Option<Vec<u8>>> {
    let key = file.as_os_str();
    let checking = SETTINGS_READ.with(|reads| {
        reads
            .borrow()
            .as_ref()
            .map(|reads| reads.files.get(key).cloned())
    });
    let again = std::io::Error::from_raw_os_error;
    if let Some(Some(read)) = checking {
        return match read {
            Ok((meta, bytes)) if first_time(&meta) => bytes.map(Some).map_err(again),
            Ok(_) => Ok(None),
            Err(errno) => Err(again(errno)),
        };
    }
    let checking = checking.is_some();
    let (open, meta) = match crate::access::open_regular(file) {
        Ok(opened) => opened,
        Err(e) => {
            if let Some(errno) = e.raw_os_error().filter(|_| checking) {
                keep(key, Err(errno), 0);
            }
            return Err(e);
        }
    };
    if !first_time(&meta) {
        return Ok(None);
    }
    let bytes = crate::access::read_open_capped(open, &meta, crate::access::caps::SETTINGS);
    if checking {
        let kept = match &bytes {
            Ok(bytes) if bytes.len() <= KEPT_FILE => Some(Ok(bytes.clone())),
            Err(e) => e.raw_os_error().map(Err),
            Ok(_) => None,
        };
        if let Some(kept) = kept {
            let size = kept.as_ref().map_or(0, Vec::len);
            keep(key, Ok((meta, kept)), size);
        }
    }
    bytes.map(Some)
}

/// Keeps `read` of the file `key` (`size` bytes read) for the running check, while what
/// is kept stays within [`KEPT_IN_ALL`]: every entry counts, its path too, so that a
/// project of many absent files (folders of hook files whose links lead nowhere) cannot
/// make a check hold more than that.
fn keep(key: &std::ffi::OsStr, read: SettingsRead, size: usize) {
    let cost = key.len() + size + std::mem::size_of::<SettingsRead>() + KEPT_ENTRY;
    SETTINGS_READ.with(|reads| {
        if let Some(reads) = reads.borrow_mut().as_mut()
            && reads.kept + cost <= KEPT_IN_ALL
        {
            reads.kept += cost;
            reads.files.insert(key.to_owned(), read);
        }
    });
}

/// Whether `folder`, a folder on the way to files the agent may read (its settings
/// folder `.claude` of a project folder, say), holds nothing the agent can read: it is not
/// there, or is no folder. Asked once per call where the
/// call's check runs inside [`crate::paths::memoised`] ([`super::checked_call`]): a
/// project folder without `.claude` is one `stat` for its two settings files and its
/// three folders of hook files, not five failed opens.
///
/// A folder this user may not `stat` is looked into all the same: on Linux that says the
/// files in it cannot be opened either, but macOS refuses a `stat` for want of a right
/// to read the folder's attributes, and Windows lets anyone pass through a folder they may
/// not list, while the files in it open. (`""`, the parent of a one-part relative path,
/// is the current folder, not a missing one.)
pub(super) fn holds_nothing(folder: &Path) -> bool {
    if folder.as_os_str().is_empty() {
        return false;
    }
    match crate::paths::stat(folder) {
        Ok(meta) => !meta.is_dir(),
        Err(e) => matches!(
            e.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
        ),
    }
}

/// Whether `file`, looked for from the walked `folder`, lies in a folder between the two
/// that [`holds_nothing`] (`<folder>/.claude/settings.json` of a folder with no `.claude`).
pub(super) fn lies_under_nothing(file: &Path, folder: &Path) -> bool {
    file.parent()
        .is_some_and(|between| between != folder && holds_nothing(between))
}

/// Whether an error opening a file or folder says the agent finds nothing there either:
/// not there, not a folder on the way, or not this user's to read.
pub(super) fn not_for_the_agent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound
            | std::io::ErrorKind::NotADirectory
            | std::io::ErrorKind::PermissionDenied
    )
}

/// A settings file of the agent's, as hookhost reads it: `None` when it is not there, is
/// a folder, or this user may not read it (nor may the agent), or when `first_time` (given the open
/// file's metadata) says it was read already; else its bytes or why hookhost does not
/// read them (larger than its cap, not a regular file), which the agent may still read.
///
/// Within [`each_read_once`], a file is opened and read once, and asked for again it is
/// answered from that read (several checks of one call read the user's settings, the
/// `.env` files of the home and the folders above the project).
pub(super) fn read_settings(
    file: &Path,
    first_time: impl FnOnce(&std::fs::Metadata) -> bool,
) -> Option<Result<Vec<u8>, String>> {
    match settings_read(file, first_time) {
        Ok(bytes) => Some(Ok(bytes?)),
        // Most of the files looked for are not there: known without a second look.
        Err(e) if not_for_the_agent(&e) => None,
        // A folder of that name (a Python virtual environment called `.env`, say) is no
        // file the agent reads either: its read fails, and it goes on without it.
        Err(_) if crate::paths::stat(file).is_ok_and(|m| m.is_dir()) => None,
        Err(e) => Some(Err(unread(&e))),
    }
}

/// Why a settings file that is there was not read, in words that follow "hookhost cannot
/// read FILE:".
pub(super) fn unread(e: &std::io::Error) -> String {
    match e.kind() {
        // `access`'s own words: "is larger than …", "is not a regular file …".
        std::io::ErrorKind::FileTooLarge | std::io::ErrorKind::InvalidInput => format!("it {e}"),
        _ => format!("reading it failed: {e}"),
    }
}

/// The deny for a settings `file` that sets `key`.
fn switched_off(agent: AgentKind, file: &Path, key: &str) -> String {
    format!(
        "{} sets {key}, which switches off every {} hook, hookhost's among them, so hookhost blocks this agent's calls. Remove it from {} if you did not put it there (`hookhost doctor` lists every switch-off it finds).",
        file.display(),
        agent.display_name(),
        file.display()
    )
}

/// The deny for a settings `file` of the agent's that hookhost cannot read (`why`, which
/// starts "it …").
pub(super) fn unreadable(agent: AgentKind, file: &Path, why: &str) -> String {
    format!(
        "hookhost cannot read {}, a settings file {} reads: {why}. {} may read a setting there that switches off every hook, hookhost's among them, which hookhost could not see, so hookhost blocks this agent's calls. Mend the file, or remove it if you did not put it there.",
        file.display(),
        agent.display_name(),
        agent.display_name()
    )
}
