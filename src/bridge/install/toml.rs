//! Codex's `config.toml`: `[[hooks.EVENT]]` groups holding `[[hooks.EVENT.hooks]]` handlers,
//! edited with `toml_edit` so that every comment, every other key and the file's layout
//! survive. A changed value keeps the comment after it (`timeout = 30 # seconds`).
//!
//! Only the `[[…]]` form is edited: an event or handler list written inline
//! (`hooks.PreToolUse = [{…}]`) that holds hookhost's handler is refused with the key.

use super::codex_trust as codex;
use super::{Action, Edit, Edited, InstallError, Ours, RegisteredEvent, groups};
use crate::bridge::TomlHandler;
use std::path::Path;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

/// Handler keys that decide how (and whether) the bridge runs; on hookhost's own handler, one
/// the registration does not write is removed (`async` would make Codex not wait for the
/// answer, `matcher` has no place on a handler).
const MANAGED_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "commandWindows",
    "command_windows",
    "timeout",
    "async",
    "matcher",
];

/// What a list written inline is said to be instead.
const NOT_INLINE: &str = "written as [[…]] tables (hookhost edits that form only, not an inline array holding its handler)";

/// Edits the TOML settings file `path` whose text is `existing`; in the user's config.toml
/// (the only one whose `[hooks.state]` Codex reads), with the trust of hookhost's handlers
/// (`codex.rs`).
pub(super) fn edit(edit: &Edit, handler: TomlHandler) -> Result<Edited, InstallError> {
    let trust_file =
        codex::user_config_of_process().filter(|user| codex::is_user_config(edit.path, user));
    edit_with(edit, handler, trust_file.as_deref())
}

/// [`edit`], writing the trust of hookhost's handlers keyed by `trust_file` (the file's name
/// as Codex spells it) when it is given.
pub(super) fn edit_with(
    edit: &Edit,
    handler: TomlHandler,
    trust_file: Option<&Path>,
) -> Result<Edited, InstallError> {
    let Edit {
        path,
        existing,
        settings,
        registration,
        action,
        ours,
        lock_down,
    } = *edit;
    let mut doc = parse(path, existing.unwrap_or(""))?;
    let original = doc.to_string();
    let desired = match action {
        Action::Install => Some(handler(registration)),
        Action::Uninstall => None,
    };
    let root = doc.as_table_mut();
    if desired.is_some() && !root.contains_key("hooks") {
        // Implicit: no empty `[hooks]` header, only the `[[hooks.EVENT]]` tables.
        let mut hooks = Table::new();
        hooks.set_implicit(true);
        root.insert("hooks", Item::Table(hooks));
    }
    let mut found = false;
    let mut drop_hooks = false;
    if let Some(item) = root.get_mut("hooks") {
        let hooks = item
            .as_table_mut()
            .ok_or_else(|| unexpected(path, "hooks".into(), "a [hooks] table"))?;
        // Where every handler sat, before hookhost's move (for the trust that follows them).
        let before: Vec<Vec<Slot>> = match trust_file {
            Some(_) => settings
                .events
                .iter()
                .map(|e| slots(hooks, e, ours))
                .collect(),
            None => Vec::new(),
        };
        for event in settings.events {
            found |= edit_event(path, hooks, event, desired.as_deref(), ours)?;
        }
        if let Some(file) = trust_file {
            for (event, before) in settings.events.iter().zip(&before) {
                let after = slots(hooks, event, ours);
                let install = desired.is_some();
                edit_trust(path, hooks, file, event, before, &after, install)?;
            }
        }
        drop_hooks = desired.is_none() && found && hooks.is_empty();
    }
    if drop_hooks {
        root.remove("hooks");
    }
    if desired.is_some() {
        switch_back_on(doc.as_table_mut(), trust_file.unwrap_or(path));
    }
    super::system::lock_down_toml(doc.as_table_mut(), lock_down, action);
    let text = doc.to_string();
    let changed = text != original;
    let text = if desired.is_none() && found && text.trim().is_empty() {
        None
    } else {
        Some(text)
    };
    Ok(Edited {
        text,
        changed,
        found,
    })
}

pub(super) fn parse(path: &Path, text: &str) -> Result<DocumentMut, InstallError> {
    if let Err(line) = crate::toml_file::nesting_within_bound(text) {
        return Err(InstallError::Malformed {
            path: path.to_path_buf(),
            format: "TOML",
            line,
            column: 1,
            message: crate::toml_file::too_deep(),
        });
    }
    text.parse::<DocumentMut>().map_err(|e| {
        let offset = e.span().map_or(0, |span| span.start);
        let before = &text[..text.floor_char_boundary(offset.min(text.len()))];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        InstallError::Malformed {
            path: path.to_path_buf(),
            format: "TOML",
            line,
            column,
            // toml_edit's message may run over lines ("invalid array\nexpected `]`").
            message: e
                .message()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(", "),
        }
    })
}

pub(super) fn unexpected(path: &Path, key: String, expected: &'static str) -> InstallError {
    InstallError::Unexpected {
        path: path.to_path_buf(),
        key,
        expected,
    }
}

/// Whether a handler table runs hookhost's bridge.
pub(super) fn is_ours(ours: &Ours, handler: &Table) -> bool {
    let args_first = handler
        .get("args")
        .and_then(Item::as_array)
        .and_then(|args| args.get(0))
        .and_then(Value::as_str);
    ours.is_bridge_handler(
        None,
        handler.get("command").and_then(Item::as_str),
        args_first,
    )
}

/// Whether an inline value holds hookhost's handler.
fn inline_is_ours(ours: &Ours, handler: &Value) -> bool {
    handler
        .as_inline_table()
        .is_some_and(|t| is_ours(ours, &t.clone().into_table()))
}

/// One event: `[[hooks.EVENT]]` groups. Returns whether hookhost's handler was there.
fn edit_event(
    path: &Path,
    hooks: &mut Table,
    event: &RegisteredEvent,
    desired: Option<&[(&'static str, Value)]>,
    ours: &Ours,
) -> Result<bool, InstallError> {
    let key = format!("hooks.{}", event.name);
    let groups = match hooks.get_mut(event.name) {
        None => {
            if let Some(desired) = desired {
                let mut groups = ArrayOfTables::new();
                groups.push(new_group(event, desired));
                hooks.insert(event.name, Item::ArrayOfTables(groups));
            }
            return Ok(false);
        }
        Some(Item::ArrayOfTables(groups)) => groups,
        Some(Item::Value(Value::Array(groups))) => {
            let holds_ours = groups.iter().any(|group| {
                group.as_inline_table().is_some_and(|g| {
                    g.get("hooks")
                        .and_then(Value::as_array)
                        .is_some_and(|hs| hs.iter().any(|h| inline_is_ours(ours, h)))
                })
            });
            return if holds_ours || desired.is_some() {
                Err(unexpected(path, key, NOT_INLINE))
            } else {
                Ok(false)
            };
        }
        Some(_) => return Err(unexpected(path, key, "an array of [[…]] tables")),
    };

    let mut found_at = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        match group.get("hooks") {
            None => {}
            Some(Item::ArrayOfTables(handlers)) => found_at.extend(
                handlers
                    .iter()
                    .enumerate()
                    .filter(|(_, handler)| is_ours(ours, handler))
                    .map(|(h, _)| (g, h)),
            ),
            Some(Item::Value(Value::Array(handlers)))
                if handlers.iter().any(|h| inline_is_ours(ours, h)) =>
            {
                return Err(unexpected(path, format!("{key}[{g}].hooks"), NOT_INLINE));
            }
            // Handlers written inline that are not hookhost's are left as they are.
            Some(Item::Value(Value::Array(_))) => {}
            Some(_) => {
                return Err(unexpected(
                    path,
                    format!("{key}[{g}].hooks"),
                    "an array of [[…]] tables",
                ));
            }
        }
    }
    let found = !found_at.is_empty();

    let keeper = groups::fold_ours(&mut TomlGroups(groups), &found_at, event, desired.is_some());

    match (desired, keeper) {
        (Some(desired), Some(keeper)) => {
            if let Some(group) = groups.get_mut(keeper.group) {
                if keeper.widen
                    && let Some(matcher) = event.matcher
                {
                    set_value(group, "matcher", &Value::from(matcher));
                }
                if let Some(handler) = group
                    .get_mut("hooks")
                    .and_then(Item::as_array_of_tables_mut)
                    .and_then(|handlers| handlers.get_mut(keeper.handler))
                {
                    update_handler(handler, desired);
                }
            }
        }
        (Some(desired), None) => groups.push(new_group(event, desired)),
        (None, _) => {
            if found && groups.is_empty() {
                hooks.remove(event.name);
            }
        }
    }
    Ok(found)
}

/// An event's `[[hooks.EVENT]]` groups in a TOML settings file.
struct TomlGroups<'a>(&'a mut ArrayOfTables);

impl groups::Groups for TomlGroups<'_> {
    fn matches_every_tool(&self, group: usize) -> bool {
        self.0
            .get(group)
            .and_then(|group| group.get("matcher"))
            .is_none_or(|m| m.as_str().is_some_and(|m| m.is_empty() || m == "*"))
    }

    fn handler_count(&self, group: usize) -> Option<usize> {
        self.0
            .get(group)?
            .get("hooks")?
            .as_array_of_tables()
            .map(ArrayOfTables::len)
    }

    fn remove_handler(&mut self, group: usize, handler: usize) -> Option<bool> {
        let handlers = self
            .0
            .get_mut(group)?
            .get_mut("hooks")?
            .as_array_of_tables_mut()?;
        handlers.remove(handler);
        Some(handlers.is_empty())
    }

    fn remove_group(&mut self, group: usize) {
        self.0.remove(group);
    }
}

/// Sets `table.key` to `value` unless it holds that already; a replaced value keeps its
/// comments and spacing.
fn set_value(table: &mut Table, key: &str, value: &Value) {
    let old = table.get(key).and_then(Item::as_value);
    if old.is_some_and(|old| same(old, value)) {
        return;
    }
    let mut value = value.clone();
    if let Some(old) = old {
        *value.decor_mut() = old.decor().clone();
    }
    table.insert(key, Item::Value(value));
}

/// Whether two values are equal, ignoring how they are written.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(a), Value::String(b)) => a.value() == b.value(),
        (Value::Integer(a), Value::Integer(b)) => a.value() == b.value(),
        (Value::Boolean(a), Value::Boolean(b)) => a.value() == b.value(),
        _ => false,
    }
}

/// Brings hookhost's handler to `desired`, in place; other keys (a `statusMessage`) stay.
fn update_handler(handler: &mut Table, desired: &[(&'static str, Value)]) {
    for (key, value) in desired {
        set_value(handler, key, value);
    }
    for key in MANAGED_KEYS {
        if !desired.iter().any(|(k, _)| k == key) {
            handler.remove(key);
        }
    }
}

/// A new `[[hooks.EVENT]]` group holding hookhost's handler.
fn new_group(event: &RegisteredEvent, desired: &[(&'static str, Value)]) -> Table {
    let mut handler = Table::new();
    for (key, value) in desired {
        handler.insert(key, Item::Value(value.clone()));
    }
    let mut handlers = ArrayOfTables::new();
    handlers.push(handler);
    let mut group = Table::new();
    if let Some(matcher) = event.matcher {
        group.insert("matcher", Item::Value(Value::from(matcher)));
    }
    group.insert("hooks", Item::ArrayOfTables(handlers));
    group
}

/// Install puts Codex's registration back as it wrote it (real_agents R2, R7): `[features]
/// hooks = false` (or its old name `codex_hooks`) is removed, in the
/// `[profiles.NAME.features]` of the profile `profile = "NAME"` selects too, and so is
/// `enabled = false` in a
/// `[hooks.state."FILE:EVENT:…"]` table of this file, which Codex's `/hooks` writes to
/// switch one handler off.
fn switch_back_on(root: &mut Table, path: &Path) {
    let switch_on = |features: &mut dyn toml_edit::TableLike| {
        for key in ["hooks", "codex_hooks"] {
            if features.get(key).and_then(Item::as_bool) == Some(false) {
                features.remove(key);
            }
        }
    };
    if let Some(features) = root.get_mut("features").and_then(Item::as_table_like_mut) {
        switch_on(features);
    }
    let selected = root
        .get("profile")
        .and_then(Item::as_str)
        .map(str::to_string);
    if let Some(features) = selected.and_then(|selected| {
        root.get_mut("profiles")?
            .as_table_like_mut()?
            .get_mut(&selected)?
            .as_table_like_mut()?
            .get_mut("features")?
            .as_table_like_mut()
    }) {
        switch_on(features);
    }
    let prefix = format!("{}:", path.display());
    if let Some(state) = root
        .get_mut("hooks")
        .and_then(Item::as_table_like_mut)
        .and_then(|hooks| hooks.get_mut("state"))
        .and_then(Item::as_table_like_mut)
    {
        for (key, entry) in state.iter_mut() {
            if !key.get().starts_with(&prefix) {
                continue;
            }
            if let Some(entry) = entry.as_table_like_mut()
                && entry.get("enabled").and_then(Item::as_bool) == Some(false)
            {
                entry.remove("enabled");
            }
        }
    }
}

/// Where one handler sits among an event's, as Codex counts them for its trust keys: every
/// group and every handler, in file order (inline ones too).
struct Slot {
    group: usize,
    handler: usize,
    /// Whether it is hookhost's.
    ours: bool,
    /// Codex's hash of it, for hookhost's.
    hash: Option<String>,
}

/// Every handler of `event`, in Codex's order.
fn slots(hooks: &Table, event: &RegisteredEvent, ours: &Ours) -> Vec<Slot> {
    let tables = |item: Option<&Item>| -> Vec<Table> {
        match item {
            Some(Item::ArrayOfTables(tables)) => tables.iter().cloned().collect(),
            Some(Item::Value(Value::Array(values))) => values
                .iter()
                .map(|v| {
                    v.as_inline_table()
                        .map(|t| t.clone().into_table())
                        .unwrap_or_default()
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut slots = Vec::new();
    for (g, group) in tables(hooks.get(event.name)).iter().enumerate() {
        let matcher = group.get("matcher").and_then(Item::as_str);
        for (h, handler) in tables(group.get("hooks")).iter().enumerate() {
            let mine = is_ours(ours, handler);
            slots.push(Slot {
                group: g,
                handler: h,
                ours: mine,
                hash: mine
                    .then(|| hash_of(event.name, matcher, handler))
                    .flatten(),
            });
        }
    }
    slots
}

/// Codex's trust hash of `handler` in a group of `event` with `matcher` (`None`: the
/// handler has no `command` string).
fn hash_of(event: &str, matcher: Option<&str>, handler: &Table) -> Option<String> {
    let text = |key: &str| handler.get(key).and_then(Item::as_str);
    let number = |key: &str| {
        handler
            .get(key)
            .and_then(Item::as_integer)
            .and_then(|n| u64::try_from(n).ok())
    };
    // On Windows Codex runs (and hashes) `commandWindows` in place of `command`.
    let windows = (std::env::consts::OS == "windows")
        .then(|| text("commandWindows").or_else(|| text("command_windows")))
        .flatten();
    Some(codex::trusted_hash(&codex::HookIdentity {
        event,
        matcher,
        command: windows.or_else(|| text("command"))?,
        timeout: number("timeout"),
        run_async: handler.get("async").and_then(Item::as_bool) == Some(true),
        status_message: text("statusMessage"),
        additional_context_limit: number("additionalContextLimit"),
    }))
}

/// The `trusted_hash` of a `[hooks.state."…"]` entry.
fn entry_hash(entry: &Item) -> Option<&str> {
    entry.as_table_like()?.get("trusted_hash")?.as_str()
}

/// Brings the `[hooks.state."FILE:EVENT:G:H"]` entries of `event` in line with where
/// hookhost's handler now sits (`before` and `after` the edit): on install its handler's
/// entry holds its hash (`trusted_hash`, set in place; the entry's other keys stay; a hash
/// Codex wrote there itself is kept), on uninstall it is gone. Either way the entries hookhost's handlers had elsewhere (where
/// they were, or holding their hash) are removed, and those of the user's handlers that
/// moved up because one of hookhost's before them went follow them, so that Codex still
/// finds them trusted.
fn edit_trust(
    path: &Path,
    hooks: &mut Table,
    file: &Path,
    event: &RegisteredEvent,
    before: &[Slot],
    after: &[Slot],
    install: bool,
) -> Result<(), InstallError> {
    let key = |s: &Slot| codex::trust_key(file, event.name, s.group, s.handler);
    let prefix = format!("{}:{}:", file.display(), codex::event_label(event.name));
    let ours_before: Vec<String> = before.iter().filter(|s| s.ours).map(key).collect();
    let our_hashes: Vec<String> = before
        .iter()
        .chain(after)
        .filter_map(|s| s.hash.clone())
        .collect();
    let others =
        |slots: &[Slot]| -> Vec<String> { slots.iter().filter(|s| !s.ours).map(key).collect() };
    let moves: Vec<(String, String)> = others(before)
        .into_iter()
        .zip(others(after))
        .filter(|(from, to)| from != to)
        .collect();
    let trust = match install {
        true => after
            .iter()
            .find(|s| s.ours)
            .and_then(|s| Some((key(s), s.hash.clone()?))),
        false => None,
    };
    if !hooks.contains_key("state") {
        if trust.is_none() {
            return Ok(());
        }
        let mut state = Table::new();
        state.set_implicit(true);
        hooks.insert("state", Item::Table(state));
    }
    let Some(state) = hooks.get_mut("state").and_then(Item::as_table_like_mut) else {
        return match install {
            true => Err(unexpected(path, "hooks.state".into(), "a table")),
            false => Ok(()),
        };
    };
    let was_empty = state.is_empty();
    let mut moved = Vec::new();
    for (from, to) in &moves {
        if let Some(entry) = state.remove(from) {
            moved.push((to, entry));
        }
    }
    let kept = trust.as_ref().map(|(k, _)| k.as_str());
    let stale: Vec<String> = state
        .iter()
        .filter(|(k, entry)| {
            Some(*k) != kept
                && (ours_before.iter().any(|o| o == k)
                    || (k.starts_with(&prefix)
                        && entry_hash(entry).is_some_and(|h| our_hashes.iter().any(|o| o == h))))
        })
        .map(|(k, _)| k.to_string())
        .collect();
    for k in &stale {
        state.remove(k);
    }
    for (to, entry) in moved {
        state.insert(to, entry);
    }
    if let Some((key, hash)) = trust {
        // Any other hash for hookhost's handler is written again: Codex 0.171.0 skips a
        // handler whose hash is not its own ("Modified") without a word, so another hash
        // is a switch-off the bridge refuses (docs/threats.md#r6). A later Codex that
        // hashes otherwise skips the handler as written here until the user trusts it in
        // `/hooks`, whose trust the bridge then refuses: `doctor` names both.
        match state.get_mut(&key).and_then(Item::as_table_like_mut) {
            Some(entry) => {
                let old = entry.get("trusted_hash").and_then(Item::as_value);
                let old_hash = old.and_then(Value::as_str);
                if old_hash != Some(hash.as_str()) {
                    let mut value = Value::from(hash);
                    if let Some(old) = old {
                        *value.decor_mut() = old.decor().clone();
                    }
                    entry.insert("trusted_hash", Item::Value(value));
                }
            }
            None => {
                let mut entry = Table::new();
                entry.insert("trusted_hash", Item::Value(Value::from(hash)));
                state.insert(&key, Item::Table(entry));
            }
        }
    }
    if state.is_empty() && !was_empty {
        hooks.remove("state");
    }
    Ok(())
}

/// `text` parsed, when it parses and nests within [`crate::toml_file::MAX_NESTING`].
fn parse_within_bound(text: &str) -> Result<DocumentMut, ()> {
    crate::toml_file::nesting_within_bound(text).map_err(|_| ())?;
    text.parse::<DocumentMut>().map_err(|_| ())
}

/// The `[hooks.state."…"]` entries of a Codex config: key, `enabled`, `trusted_hash`. A
/// text that does not parse has none.
pub(super) fn hook_states(text: &str) -> Vec<(String, Option<bool>, Option<String>)> {
    let Ok(doc) = parse_within_bound(text) else {
        return Vec::new();
    };
    let Some(state) = doc
        .get("hooks")
        .and_then(|hooks| hooks.get("state"))
        .and_then(Item::as_table_like)
    else {
        return Vec::new();
    };
    state
        .iter()
        .map(|(key, entry)| {
            let entry = entry.as_table_like();
            let get = |k: &str| entry.and_then(|e| e.get(k));
            (
                key.to_string(),
                get("enabled").and_then(Item::as_bool),
                get("trusted_hash")
                    .and_then(Item::as_str)
                    .map(str::to_string),
            )
        })
        .collect()
}

/// hookhost's handlers in a Codex config, where each sits and its hash: (event, group,
/// handler, hash). A text that does not parse has none.
pub(super) fn our_handlers(text: &str, ours: &Ours) -> Vec<(&'static str, usize, usize, String)> {
    let Ok(doc) = parse_within_bound(text) else {
        return Vec::new();
    };
    let Some(hooks) = doc.get("hooks").and_then(Item::as_table) else {
        return Vec::new();
    };
    crate::bridge::AgentKind::Codex
        .declaration()
        .settings
        .events
        .iter()
        .flat_map(|event| {
            slots(hooks, event, ours)
                .into_iter()
                .filter_map(|s| Some((event.name, s.group, s.handler, s.hash?)))
        })
        .collect()
}
