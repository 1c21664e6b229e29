//! Plugins an agent's settings enable (Claude Code's `enabledPlugins`), for the check of
//! hooks that may rewrite a call ([`super::rewriting`]; docs/threats.md#r14). A plugin
//! brings hooks (its `hooks/hooks.json`, its manifest's `hooks`) and skills and subagents
//! with frontmatter hooks, and a project's settings alone can enable one from a folder of
//! the project (Claude Code 2.1.332 loaded such a plugin and applied its hook's rewrite).
//!
//! So each plugin a settings file enables is one hook of that file, accepted with the
//! files of the folders it is read from, as far as hookhost finds them: where the record
//! of installed plugins puts it, and in a marketplace of a folder (declared in the
//! settings, or known to the agent) where its entry's relative source leads. A plugin
//! found nowhere is accepted by its name alone.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::frontmatter;
use crate::bridge::{FrontmatterBounds, Plugins};

/// The plugins `settings` enables: each key of its `enabled_key` object whose value is
/// not `false`.
pub(super) fn enabled(plugins: &Plugins, settings: &Value) -> Vec<String> {
    settings
        .get(plugins.enabled_key)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, on)| **on != Value::Bool(false))
        .map(|(id, _)| id.clone())
        .collect()
}

/// What the plugin `id` (`NAME@MARKETPLACE`) is made of, for its digest: the state of
/// the files of each folder it is read from. `settings` (the file `file`) and its
/// neighbours may declare its marketplace; `agent_folder` is the agent's folder in the
/// home; `bounds` where the agent finds its Markdown files' frontmatter.
pub(super) fn state(
    plugins: &Plugins,
    id: &str,
    settings: &Value,
    (file, agent_folder): (&Path, Option<&Path>),
    bounds: FrontmatterBounds,
) -> String {
    let (name, marketplace) = id.rsplit_once('@').unwrap_or((id, ""));
    let mut folders: Vec<PathBuf> = Vec::new();
    // Where `claude plugin install` put it.
    if let Some(record) = agent_folder.and_then(|f| read(&f.join(plugins.installed))) {
        let installs = record.get("plugins").and_then(|p| p.get(id));
        for install in installs.and_then(Value::as_array).into_iter().flatten() {
            if let Some(path) = install.get("installPath").and_then(Value::as_str) {
                folders.push(PathBuf::from(path));
            }
        }
    }
    // Its marketplace's folders: declared in this file or a settings file beside it
    // (relative to the project the file belongs to), or known to the agent.
    let beside = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let project = beside.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut declared = vec![settings.clone()];
    for neighbour in ["settings.json", "settings.local.json"] {
        declared.extend(read(&beside.join(neighbour)));
    }
    let mut markets: Vec<PathBuf> = declared
        .iter()
        .filter_map(|s| {
            s.get(plugins.marketplaces_key)?
                .get(marketplace)?
                .get("source")
        })
        .filter(|source| source.get("source").and_then(Value::as_str) == Some("directory"))
        .filter_map(|source| source.get("path").and_then(Value::as_str))
        .map(|path| project.join(path))
        .collect();
    if let Some(known) = agent_folder.and_then(|f| read(&f.join(plugins.known_marketplaces))) {
        let location = known
            .get(marketplace)
            .and_then(|m| m.get("installLocation"));
        markets.extend(location.and_then(Value::as_str).map(PathBuf::from));
    }
    // Each once, however found (Claude Code records a marketplace a settings file
    // declares among those it knows, at its first start).
    for market in &mut markets {
        if let Ok(real) = std::fs::canonicalize(&*market) {
            *market = real;
        }
    }
    markets.sort();
    markets.dedup();
    let mut state = format!("{id}\n");
    for market in &markets {
        let listing = market.join(".claude-plugin/marketplace.json");
        let Some(manifest) = read(&listing) else {
            continue;
        };
        // The marketplace's listing says where its plugins are: part of what is accepted.
        state.push_str(&format!(
            "{} {}\n",
            listing.display(),
            super::hook_scripts::state(&listing)
        ));
        let entries = manifest.get("plugins").and_then(Value::as_array);
        for entry in entries.into_iter().flatten() {
            if entry.get("name").and_then(Value::as_str) != Some(name) {
                continue;
            }
            if let Some(source) = entry.get("source").and_then(Value::as_str) {
                folders.push(market.join(source));
            }
        }
    }
    for folder in &mut folders {
        if let Ok(real) = std::fs::canonicalize(&*folder) {
            *folder = real;
        }
    }
    folders.sort();
    folders.dedup();
    for folder in folders {
        let (files, stamps) = frontmatter::folder_files(&folder, &|_| false);
        state.push_str(&format!("{}\n", folder.display()));
        // The commands of its skills' and commands' frontmatter hooks too (a plugin's
        // skill ran a script outside the plugin in Claude Code 2.1.332).
        let mut commands = hook_commands(&folder);
        let root = folder.display().to_string();
        for markdown in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e.eq_ignore_ascii_case("md")))
        {
            let Ok(text) = std::fs::read_to_string(markdown) else {
                continue;
            };
            let Some(front) = frontmatter::of(&text, bounds) else {
                continue;
            };
            let own = markdown
                .parent()
                .map(|f| f.display().to_string())
                .unwrap_or_default();
            for command in frontmatter::commands(&front, &["command"]) {
                for folder in [&root, &own] {
                    commands.push(
                        command
                            .replace("${CLAUDE_PLUGIN_ROOT}", folder)
                            .replace("$CLAUDE_PLUGIN_ROOT", folder)
                            .replace("${CLAUDE_SKILL_DIR}", &own)
                            .replace("$CLAUDE_SKILL_DIR", &own),
                    );
                }
            }
        }
        for file in files {
            state.push_str(&format!(
                "{} {}\n",
                file.display(),
                super::hook_scripts::state(&file)
            ));
        }
        state.push_str(&stamps);
        // And the files its hooks name, wherever they are (`${CLAUDE_PLUGIN_ROOT}/../x.sh`,
        // a script of the project).
        let words: Vec<&str> = commands.iter().map(String::as_str).collect();
        let home = std::env::home_dir();
        state.push_str(&super::hook_scripts::named_files(
            &words,
            None,
            Some(&project),
            home.as_deref(),
        ));
    }
    state
}

/// The commands of the hooks of the plugin in `folder` (its `hooks/hooks.json`, and its
/// manifest's `hooks`, inline or a file), `${CLAUDE_PLUGIN_ROOT}` read as `folder`.
fn hook_commands(folder: &Path) -> Vec<String> {
    let mut sources: Vec<Value> = read(&folder.join("hooks/hooks.json")).into_iter().collect();
    if let Some(manifest) = read(&folder.join(".claude-plugin/plugin.json")) {
        match manifest.get("hooks") {
            Some(Value::String(file)) => sources.extend(read(&folder.join(file))),
            Some(Value::Array(files)) => sources.extend(
                files
                    .iter()
                    .filter_map(Value::as_str)
                    .filter_map(|file| read(&folder.join(file))),
            ),
            Some(inline) => sources.push(inline.clone()),
            None => {}
        }
    }
    let root = folder.display().to_string();
    let mut commands = Vec::new();
    for source in &sources {
        strings_of(source, &mut commands);
    }
    commands
        .into_iter()
        .map(|c| {
            c.replace("${CLAUDE_PLUGIN_ROOT}", &root)
                .replace("$CLAUDE_PLUGIN_ROOT", &root)
        })
        .collect()
}

/// Every string under a `command`, `bash`, `exec` or `args` key of `value`, at any depth.
fn strings_of(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if ["command", "bash", "exec", "args"].contains(&key.as_str()) {
                    match item {
                        Value::String(text) => out.push(text.clone()),
                        Value::Array(items) => {
                            out.extend(items.iter().filter_map(Value::as_str).map(str::to_string))
                        }
                        _ => {}
                    }
                } else {
                    strings_of(item, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| strings_of(item, out)),
        _ => {}
    }
}

/// A JSON file, when it is there and parses.
fn read(file: &Path) -> Option<Value> {
    let bytes = crate::access::read_capped(file, crate::access::caps::SETTINGS).ok()?;
    serde_json::from_slice(&bytes).ok()
}
