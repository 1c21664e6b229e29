//! The JSON settings files: Claude Code's and Gemini CLI's `settings.json` (handlers grouped
//! under a matcher) and Cursor's and Copilot CLI's `hooks.json` (flat handler lists).
//!
//! The file is parsed into `serde_json` values (which keep key order), edited and written
//! back pretty-printed with the file's own indentation, line endings and final newline. A
//! file that does not change is not rewritten at all. JSON with comments (which Gemini CLI
//! accepts in its settings) cannot go through `serde_json` without losing them, so it is
//! refused with the line of the first comment.

use super::{Action, Edit, Edited, InstallError, Ours, RegisteredEvent, groups};
use crate::bridge::{JsonHandler, Shape, SwitchOff};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::Path;

/// Handler keys that decide how (and whether) the bridge runs. On hookhost's own handler, a
/// key of these that the registration does not write is removed: left there, it could
/// narrow the registration (`matcher`, `if`), make it not wait for the answer (`async`) or
/// run something else (`args`, `bash`, `powershell`).
const MANAGED_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "exec",
    "bash",
    "powershell",
    "commandWindows",
    "command_windows",
    "timeout",
    "timeoutSec",
    "failClosed",
    "onFailure",
    "timeout_ms",
    "cache_ttl_seconds",
    "async",
    "matcher",
    "if",
];

/// Edits the JSON settings file `path` whose text is `existing`.
pub(super) fn edit(edit: &Edit, handler: JsonHandler) -> Result<Edited, InstallError> {
    let Edit {
        path,
        existing,
        settings,
        registration,
        action,
        ours,
        lock_down,
    } = *edit;
    let style = Style::of(existing);
    let mut root = parse(path, existing)?;
    let original = render(path, &root, &style)?;
    let desired = match action {
        Action::Install => Some(handler(registration)),
        Action::Uninstall => None,
    };
    let flat = matches!(settings.shape, Shape::FlatJson(_) | Shape::AgentJson(..));
    let mut found = false;
    if let Shape::AgentJson(_, new_agent_file) = settings.shape
        && desired.is_some()
        && existing.is_none()
    {
        // A new agent file of hookhost's own (Kiro CLI): the agent's keys first.
        root = new_agent_file();
    }

    if desired.is_some() && !root.contains_key("hooks") {
        root.insert("hooks".into(), Value::Object(Map::new()));
    }
    if let Some(hooks_value) = root.get_mut("hooks") {
        let hooks = hooks_value
            .as_object_mut()
            .ok_or_else(|| unexpected(path, "hooks".into(), "an object"))?;
        for event in settings.events {
            found |= if flat {
                edit_flat(path, hooks, event, desired.as_ref(), ours)?
            } else {
                edit_nested(path, hooks, event, desired.as_ref(), ours)?
            };
        }
        if desired.is_none() && found && hooks.is_empty() {
            root.shift_remove("hooks");
        }
    }
    if desired.is_some() {
        switch_back_on(registration.agent.declaration().switch_off, &mut root);
    }
    super::system::lock_down_json(&mut root, lock_down, action);
    if matches!(settings.shape, Shape::FlatJson(_))
        && desired.is_some()
        && !root.contains_key("version")
    {
        // Cursor and Copilot read a hooks file only with its format version.
        root.shift_insert(0, "version".into(), Value::from(1));
    }

    let text = render(path, &root, &style)?;
    let changed = text != original;
    let holds_nothing = match settings.shape {
        Shape::FlatJson(_) => root.keys().all(|key| key == "version"),
        // hookhost's own agent file, with no hooks left, is removed.
        Shape::AgentJson(..) => !root.contains_key("hooks"),
        _ => root.is_empty(),
    };
    let text = if desired.is_none() && found && holds_nothing {
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

/// Install puts the registration back as it wrote it: a setting in the same file that
/// switches every hook off, or hookhost's by name, is removed (docs/threats.md#r2: leaving it
/// and pinning the file made the "restore" a no-op that `doctor` then called healthy).
/// Claude Code's and Qwen Code's `disableAllHooks` set to what the agent takes as true,
/// Copilot CLI's to anything but `false`;
/// Gemini CLI's `hooksConfig` set to anything but an object, its `enabled` to anything but
/// `true`, and a `disabled` entry that is, or may expand to, hookhost's name (the same
/// rules as the switch-off check, docs/threats.md#b8).
fn switch_back_on(switch_off: SwitchOff, root: &mut Map<String, Value>) {
    match switch_off {
        SwitchOff::DisableAllHooks { .. } if root.get("disableAllHooks").is_some_and(is_truthy) => {
            root.shift_remove("disableAllHooks");
        }
        SwitchOff::DisableAllHooksUnlessFalse
            if root
                .get("disableAllHooks")
                .is_some_and(|v| v != &Value::Bool(false)) =>
        {
            root.shift_remove("disableAllHooks");
        }
        SwitchOff::HooksConfig { handler_name } => match root.get_mut("hooksConfig") {
            Some(Value::Object(config)) => {
                if config
                    .get("enabled")
                    .is_some_and(|e| e != &Value::Bool(true))
                {
                    config.shift_remove("enabled");
                }
                match config.get_mut("disabled") {
                    Some(Value::Array(disabled)) => disabled.retain(|entry| {
                        !entry
                            .as_str()
                            .is_some_and(|entry| entry_disables(entry, handler_name))
                    }),
                    Some(other) if disables_handler(other, handler_name) => {
                        config.shift_remove("disabled");
                    }
                    _ => {}
                }
            }
            Some(_) => {
                root.shift_remove("hooksConfig");
            }
            None => {}
        },
        _ => {}
    }
}

/// JavaScript's truthiness, by which the Node agents read a switch in their settings
/// (Qwen Code's `disableAllHooks: 1` or `"false"` turns its hooks off).
pub(super) fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Whether Gemini CLI's `hooksConfig.disabled` (`value`, as given: an array of names, or
/// one string) may turn off the handler `name`. Gemini CLI first expands `$NAME` and
/// `${…}` from the environment, then asks `disabled.includes(name)`: of an array,
/// whether an entry is the name ([`entry_disables`]); of a string, whether the name is
/// in it. What an expansion gives is not known here, so it stands for any text.
pub(super) fn disables_handler(value: &Value, name: &str) -> bool {
    match value {
        Value::Array(entries) => entries
            .iter()
            .any(|e| e.as_str().is_some_and(|entry| entry_disables(entry, name))),
        Value::String(text) => {
            let runs = expansion_pattern(text);
            runs.len() > 1 || text.contains(name)
        }
        _ => false,
    }
}

/// Whether one entry of a `hooksConfig.disabled` array may expand to exactly `name`:
/// `hookhost`, `${X:-hookhost}` and `hook$X` may; `$GEMINI_PROJECT_DIR/hooks/x.sh` may not.
fn entry_disables(entry: &str, name: &str) -> bool {
    may_expand_to(&expansion_pattern(entry), name)
}

/// `text` cut at each expansion (`$NAME`, `${…}`): the literal runs between them, so that
/// a text with no expansion is one run.
fn expansion_pattern(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let (mut runs, mut start, mut i) = (Vec::new(), 0, 0);
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let end = match bytes.get(i + 1) {
            Some(b'{') => text[i..].find('}').map(|close| i + close + 1),
            Some(b) if b.is_ascii_alphanumeric() || *b == b'_' => Some(
                i + 1
                    + bytes[i + 1..]
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                        .count(),
            ),
            _ => None,
        };
        match end {
            Some(end) => {
                runs.push(&text[start..i]);
                (start, i) = (end, end);
            }
            None => i += 1,
        }
    }
    runs.push(&text[start..]);
    runs
}

/// Whether the literal `runs` of a text, each expansion between them standing for any
/// text, can make exactly `name`.
fn may_expand_to(runs: &[&str], name: &str) -> bool {
    let [first, middle @ .., last] = runs else {
        return runs.first() == Some(&name);
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    for run in middle {
        match rest.find(run) {
            Some(at) => rest = &rest[at + run.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether `handler` runs hookhost's bridge.
fn is_ours(ours: &Ours, handler: &Value) -> bool {
    let Some(handler) = handler.as_object() else {
        return false;
    };
    let text = |key: &str| handler.get(key).and_then(Value::as_str);
    let args_first = handler
        .get("args")
        .and_then(Value::as_array)
        .and_then(|args| args.first())
        .and_then(Value::as_str);
    ours.is_bridge_handler(
        text("exec"),
        text("command").or_else(|| text("bash")),
        args_first,
    )
}

/// Brings hookhost's `handler` to `desired`, in place: keys keep their positions, other keys
/// (a `statusMessage`, a `description`) stay.
fn update_handler(handler: &mut Map<String, Value>, desired: &Map<String, Value>) {
    for (key, value) in desired {
        if handler.get(key) != Some(value) {
            handler.insert(key.clone(), value.clone());
        }
    }
    for key in MANAGED_KEYS {
        if !desired.contains_key(*key) {
            handler.shift_remove(*key);
        }
    }
}

/// One event of a grouped file: `hooks.EVENT = [{"matcher": M, "hooks": [HANDLER…]}…]`.
/// Returns whether hookhost's handler was there.
fn edit_nested(
    path: &Path,
    hooks: &mut Map<String, Value>,
    event: &RegisteredEvent,
    desired: Option<&Map<String, Value>>,
    ours: &Ours,
) -> Result<bool, InstallError> {
    let key = format!("hooks.{}", event.name);
    let Some(list) = hooks.get_mut(event.name) else {
        if let Some(desired) = desired {
            hooks.insert(
                event.name.into(),
                Value::Array(vec![new_group(event, desired)]),
            );
        }
        return Ok(false);
    };
    let groups = list
        .as_array_mut()
        .ok_or_else(|| unexpected(path, key.clone(), "an array"))?;

    let mut found_at = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let group = group
            .as_object()
            .ok_or_else(|| unexpected(path, format!("{key}[{g}]"), "an object"))?;
        let Some(handlers) = group.get("hooks") else {
            continue;
        };
        let handlers = handlers
            .as_array()
            .ok_or_else(|| unexpected(path, format!("{key}[{g}].hooks"), "an array"))?;
        found_at.extend(
            handlers
                .iter()
                .enumerate()
                .filter(|(_, handler)| is_ours(ours, handler))
                .map(|(h, _)| (g, h)),
        );
    }
    let found = !found_at.is_empty();

    let keeper = groups::fold_ours(&mut JsonGroups(groups), &found_at, event, desired.is_some());

    match (desired, keeper) {
        (Some(desired), Some(keeper)) => {
            if let Some(group) = groups[keeper.group].as_object_mut() {
                if keeper.widen
                    && let Some(matcher) = event.matcher
                {
                    group.insert("matcher".into(), matcher.into());
                }
                if let Some(handler) = group
                    .get_mut("hooks")
                    .and_then(Value::as_array_mut)
                    .and_then(|handlers| handlers.get_mut(keeper.handler))
                    .and_then(Value::as_object_mut)
                {
                    update_handler(handler, desired);
                }
            }
        }
        (Some(desired), None) => groups.push(new_group(event, desired)),
        (None, _) => {
            if found && groups.is_empty() {
                hooks.shift_remove(event.name);
            }
        }
    }
    Ok(found)
}

/// An event's groups in a JSON settings file.
struct JsonGroups<'a>(&'a mut Vec<Value>);

impl groups::Groups for JsonGroups<'_> {
    fn matches_every_tool(&self, group: usize) -> bool {
        match self.0[group].get("matcher") {
            None | Some(Value::Null) => true,
            Some(Value::String(m)) => m.is_empty() || m == "*",
            Some(_) => false,
        }
    }

    fn handler_count(&self, group: usize) -> Option<usize> {
        self.0[group].get("hooks")?.as_array().map(Vec::len)
    }

    fn remove_handler(&mut self, group: usize, handler: usize) -> Option<bool> {
        let handlers = self.0[group].get_mut("hooks")?.as_array_mut()?;
        handlers.remove(handler);
        Some(handlers.is_empty())
    }

    fn remove_group(&mut self, group: usize) {
        self.0.remove(group);
    }
}

/// A new group holding hookhost's handler.
fn new_group(event: &RegisteredEvent, handler: &Map<String, Value>) -> Value {
    let mut group = Map::new();
    if let Some(matcher) = event.matcher {
        group.insert("matcher".into(), matcher.into());
    }
    group.insert(
        "hooks".into(),
        Value::Array(vec![Value::Object(handler.clone())]),
    );
    Value::Object(group)
}

/// One event of a flat file: `hooks.EVENT = [HANDLER…]`. Returns whether hookhost's handler
/// was there.
fn edit_flat(
    path: &Path,
    hooks: &mut Map<String, Value>,
    event: &RegisteredEvent,
    desired: Option<&Map<String, Value>>,
    ours: &Ours,
) -> Result<bool, InstallError> {
    let Some(list) = hooks.get_mut(event.name) else {
        if let Some(desired) = desired {
            hooks.insert(
                event.name.into(),
                Value::Array(vec![Value::Object(desired.clone())]),
            );
        }
        return Ok(false);
    };
    let handlers = list
        .as_array_mut()
        .ok_or_else(|| unexpected(path, format!("hooks.{}", event.name), "an array"))?;
    let found_at: Vec<usize> = handlers
        .iter()
        .enumerate()
        .filter(|(_, handler)| is_ours(ours, handler))
        .map(|(i, _)| i)
        .collect();
    let found = !found_at.is_empty();
    let keeper = desired.and(found_at.first().copied());
    for &i in found_at.iter().rev() {
        if Some(i) != keeper {
            handlers.remove(i);
        }
    }
    match (desired, keeper) {
        (Some(desired), Some(i)) => {
            if let Some(handler) = handlers.get_mut(i).and_then(Value::as_object_mut) {
                update_handler(handler, desired);
            }
        }
        (Some(desired), None) => handlers.push(Value::Object(desired.clone())),
        (None, _) => {
            if found && handlers.is_empty() {
                hooks.shift_remove(event.name);
            }
        }
    }
    Ok(found)
}

fn unexpected(path: &Path, key: String, expected: &'static str) -> InstallError {
    InstallError::Unexpected {
        path: path.to_path_buf(),
        key,
        expected,
    }
}

/// Parses the file's text into its top-level object; a missing or blank file is `{}`.
fn parse(path: &Path, existing: Option<&str>) -> Result<Map<String, Value>, InstallError> {
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        return Ok(Map::new());
    };
    let value: Value = serde_json::from_str(text).map_err(|e| {
        if let Some(line) = first_comment_line(text) {
            return InstallError::Comments {
                path: path.to_path_buf(),
                line,
            };
        }
        let message = e.to_string();
        // serde_json appends " at line L column C", which the error says its own way.
        let message = match message.rsplit_once(" at line ") {
            Some((words, _)) => words.to_string(),
            None => message,
        };
        InstallError::Malformed {
            path: path.to_path_buf(),
            format: "JSON",
            line: e.line(),
            column: e.column(),
            message,
        }
    })?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(unexpected(path, "its top level".into(), "a JSON object")),
    }
}

/// The line of the first `//` or `/*` comment outside a string, if any.
fn first_comment_line(text: &str) -> Option<usize> {
    let mut line = 1;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == '/' && matches!(chars.peek(), Some('/' | '*')) {
            return Some(line);
        }
    }
    None
}

/// How the file was written: kept when it is rewritten.
struct Style {
    /// One level of indentation.
    indent: String,
    /// `\r\n` line endings.
    crlf: bool,
    /// Whether the file ends with a line ending.
    final_newline: bool,
}

impl Style {
    fn of(existing: Option<&str>) -> Self {
        let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
            return Style {
                indent: "  ".into(),
                crlf: false,
                final_newline: true,
            };
        };
        let indent = text
            .lines()
            .skip(1)
            .map(|line| {
                line.chars()
                    .take_while(|c| *c == ' ' || *c == '\t')
                    .collect::<String>()
            })
            .find(|indent| !indent.is_empty())
            .unwrap_or_else(|| "  ".into());
        Style {
            indent,
            crlf: text.contains("\r\n"),
            final_newline: text.ends_with('\n'),
        }
    }
}

/// The most bytes a settings file may take once written back in its style: what
/// hookhost reads of one (a larger one would be refused by every later call). Each
/// element is written on its own line after one indent per level, so a file's own indent
/// (the first one found, of any length) times its nesting could otherwise grow it a
/// millionfold: a project's file with a 4 MiB indent and an array of two million zeros
/// planned into terabytes, and the bridge, which plans the project's registrations on
/// every call, died for want of memory (docs/threats.md#b4).
pub(super) const MAX_RENDERED: usize = crate::access::caps::SETTINGS as usize;

/// The object as the file's text, in the file's style; refused past [`MAX_RENDERED`].
fn render(path: &Path, root: &Map<String, Value>, style: &Style) -> Result<String, InstallError> {
    let too_large = || InstallError::TooLargeRewritten {
        path: path.to_path_buf(),
        indent: style.indent.chars().count(),
        limit: MAX_RENDERED,
    };
    let mut out = Bounded {
        bytes: Vec::new(),
        limit: MAX_RENDERED,
    };
    let formatter = serde_json::ser::PrettyFormatter::with_indent(style.indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    // A `serde_json::Value` holds only strings, numbers and containers: writing it fails
    // only when the bound is passed.
    if root.serialize(&mut serializer).is_err() {
        return Err(too_large());
    }
    // serde_json writes UTF-8, and the indent is the file's own text.
    let mut text = String::from_utf8(out.bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    if style.final_newline {
        text.push('\n');
    }
    if style.crlf {
        text = text.replace('\n', "\r\n");
    }
    // Its line endings counted: at most twice the bound was made.
    if text.len() > MAX_RENDERED {
        return Err(too_large());
    }
    Ok(text)
}

/// A `Vec` that refuses a write past `limit` bytes.
struct Bounded {
    bytes: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.limit {
            return Err(std::io::Error::other("past the bound"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
