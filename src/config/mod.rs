//! The user's config: `[[hooks]]`, `[sandbox]`, `[wasm]` and the top-level
//! `unknown_tools` from one TOML file.
//!
//! The file is the agent's whole config, so top-level keys other than those four are
//! the embedder's and are ignored. Inside `[[hooks]]` every key the spec does not list is
//! a load error. Every load error names the file and, where there is one, the hook; all
//! of a file's errors are reported at once, so that one edit can fix them all, one line
//! each: a name, key or value quoted in a message is escaped (a line break reads `\n`).

#[cfg(test)]
mod tests;
mod tools;

use tools::*;
pub use tools::{ToolList, UnknownTools};

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Value;

use crate::env::Environment;
use crate::envelope::EnvelopeShape;
use crate::hook_env::{self, EnvPattern, EnvPolicy};

/// The tools harness has; a `tools` entry outside this list is only a warning.
pub const KNOWN_TOOLS: &[&str] = &[
    "bash",
    "exec",
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "search",
    "skill",
    "agent",
    "script",
    "mcp",
    "mcp_schema",
];

/// Default `timeout` in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;
/// Largest `timeout` in seconds.
pub const MAX_TIMEOUT_SECS: u64 = 600;

/// The two moments a hook runs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Event {
    /// Before a tool call.
    PreToolUse,
    /// When a prompt is submitted.
    UserPromptSubmit,
}

impl Event {
    /// The spec's name for the event, as in the envelope's `hook_event_name`.
    pub fn as_str(self) -> &'static str {
        match self {
            Event::PreToolUse => "PreToolUse",
            Event::UserPromptSubmit => "UserPromptSubmit",
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a failing hook does: block what it covers (the default) or let it through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnFailure {
    /// A failure blocks the call or the prompt.
    Block,
    /// A failure is skipped with a warning; the next hook runs.
    Continue,
}

/// One `[[hooks]]` table, validated.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HookDef {
    /// Unique name: 1–32 of a-z, 0-9, `-`, `_`.
    pub name: String,
    /// When it runs.
    pub event: Event,
    /// The argv, as written (no shell).
    pub command: Vec<String>,
    /// PreToolUse only: the tools it covers, and what it does for a tool hookhost
    /// cannot name; `None` is every tool.
    pub tools: Option<ToolList>,
    /// Whole seconds, 1–600.
    pub timeout: u64,
    /// Run in the box (argv hooks in a session with a sandbox).
    pub sandbox: bool,
    /// What a failure does.
    pub on_failure: OnFailure,
    /// The `envelope` key: the shape of the line the hook reads on stdin. `None` (no key)
    /// leaves it to [`HookDef::input_shape`]. Absent from a record when `None`, so records
    /// written before the key existed read the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<EnvelopeShape>,
}

impl HookDef {
    /// The hook's timeout as a duration.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout)
    }

    /// Whether this hook runs for a call to `tool`.
    pub fn covers_tool(&self, tool: &str) -> bool {
        match &self.tools {
            None => true,
            Some(tools) => tools.iter().any(|t| t == tool),
        }
    }

    /// Whether `command[0]` names a WebAssembly program.
    pub fn is_wasm(&self) -> bool {
        self.command.first().is_some_and(|c| c.ends_with(".wasm"))
    }

    /// The shape of the line this hook reads, under a front end whose default for argv
    /// hooks is `front_end_default` (Claude Code's shape behind `hookhost bridge`, the
    /// spec's envelope elsewhere). The one rule (docs/envelopes.md):
    ///
    /// 1. the `envelope` key, when the hook has one;
    /// 2. else the spec's envelope for a WASM hook, under every front end: a WASM hook is
    ///    written for hookhost (its WIT world), never for Claude Code, so it must never
    ///    be handed names it does not know (a policy matching `bash` that is given `Bash`
    ///    objects to nothing);
    /// 3. else the front end's default, so that the Claude Code hooks people already
    ///    have run unchanged behind the bridge.
    pub fn input_shape(&self, front_end_default: EnvelopeShape) -> EnvelopeShape {
        match self.envelope {
            Some(shape) => shape,
            None if self.is_wasm() => EnvelopeShape::Spec,
            None => front_end_default,
        }
    }
}

/// `[sandbox]`: the folders the agent's commands may write, those the box hides, and
/// what the hooks' environment keeps and loses beyond the built-in rules
/// (`keep_env`, `remove_env`; they apply to host hooks too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Extra folders the agent's commands may write.
    pub writable: Vec<PathBuf>,
    /// Folders the box hides; `None` means the default list of credential folders.
    pub hide: Option<Vec<PathBuf>>,
    /// `keep_env` and `remove_env`: see `crate::hook_env`.
    pub env: EnvPolicy,
}

/// `[wasm]`: limits and the compile cache for WASM hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WasmConfig {
    /// Memory cap per instance, in MiB.
    pub memory_limit_mib: Option<u64>,
    /// Fuel per second of `timeout`.
    pub fuel_per_second: Option<u64>,
    /// Where compiled modules are cached.
    pub cache_dir: Option<PathBuf>,
    /// The longest a WASM program may take to compile at start, in seconds.
    pub compile_timeout: Option<u64>,
}

/// A loaded config file.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file it came from (`None` when there was no file).
    pub path: Option<PathBuf>,
    /// The hooks, in file order.
    pub hooks: Vec<HookDef>,
    /// `[sandbox]`.
    pub sandbox: SandboxSettings,
    /// `[wasm]`.
    pub wasm: WasmConfig,
    /// Start-up warnings (unknown tool names), the spec's lines.
    pub warnings: Vec<String>,
    /// The top-level `unknown_tools`: the default of every hook with `tools` that does
    /// not say.
    pub unknown_tools: UnknownTools,
}

pub use crate::toml_file::Problem;
use crate::toml_file::{ItemKind, ItemProblems};

/// Why a config could not be loaded.
pub type ConfigError = crate::toml_file::TomlFileError;

impl Config {
    /// Loads `path`. A default path that does not exist is an empty config; a path the
    /// user named (`required`) must exist. `~/` in paths is the process's own `HOME`
    /// ([`Config::load_with_env`] takes a session's environment).
    pub fn load(path: &Path, required: bool) -> Result<Config, ConfigError> {
        Config::load_with_env(path, required, &Environment::of_process())
    }

    /// [`Config::load`], with `~/` in paths expanded from `env`'s home.
    pub fn load_with_env(
        path: &Path,
        required: bool,
        env: &Environment,
    ) -> Result<Config, ConfigError> {
        let text = match crate::access::read_capped(path, crate::access::caps::CONFIG) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {
                return Ok(Config {
                    path: Some(path.to_path_buf()),
                    ..Config::default()
                });
            }
            Err(source) => {
                return Err(ConfigError::Read {
                    what: "config",
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        Config::parse_with_env(path, &text, env)
    }

    /// Parses config text; `path` is only used in messages. `~/` in paths is the
    /// process's own `HOME` ([`Config::parse_with_env`] takes a session's environment).
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        Config::parse_with_env(path, text, &Environment::of_process())
    }

    /// [`Config::parse`], with `~/` in paths expanded from `env`'s home.
    pub fn parse_with_env(
        path: &Path,
        text: &str,
        env: &Environment,
    ) -> Result<Config, ConfigError> {
        let table = crate::toml_file::parse_table(path, text)?;
        let mut problems = Vec::new();
        let mut warnings = Vec::new();
        let unknown_tools = parse_top_unknown_tools(table.get("unknown_tools"), &mut problems);
        let hooks = match table.get("hooks") {
            None => Vec::new(),
            Some(Value::Array(items)) => {
                parse_hooks(items, unknown_tools, &mut problems, &mut warnings)
            }
            Some(_) => {
                problems.push(Problem {
                    item: None,
                    message: "hooks must be an array of tables, written [[hooks]]".into(),
                });
                Vec::new()
            }
        };
        let sandbox = parse_sandbox(table.get("sandbox"), env, &mut problems);
        let wasm = parse_wasm(table.get("wasm"), env, &mut problems);
        if !problems.is_empty() {
            return Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                problems,
            });
        }
        Ok(Config {
            path: Some(path.to_path_buf()),
            hooks,
            sandbox,
            wasm,
            warnings,
            unknown_tools,
        })
    }
}

/// Whether `name` is 1–32 of a-z, 0-9, `-`, `_`.
pub fn is_valid_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

const HOOK_KEYS: &[&str] = &[
    "name",
    "event",
    "tools",
    "command",
    "timeout",
    "sandbox",
    "on_failure",
    "envelope",
    "unknown_tools",
];

/// `[[hooks]]`, as its messages name it.
const HOOKS: ItemKind = ItemKind {
    one: "hook",
    many: "hooks",
    written: "[[hooks]]",
    // A name with a line break or another control character would split the
    // problem's line, so such a hook is labelled by its number.
    labels_by_name: |name| {
        !name.is_empty() && name.chars().count() <= 64 && !name.chars().any(char::is_control)
    },
};

fn parse_hooks(
    items: &[Value],
    unknown_tools: UnknownTools,
    problems: &mut Vec<Problem>,
    warnings: &mut Vec<String>,
) -> Vec<HookDef> {
    HOOKS.parse_items(
        items,
        problems,
        |table, out| parse_hook(table, unknown_tools, out, warnings),
        |def| &def.name,
    )
}

fn parse_hook(
    table: &toml::Table,
    file_unknown_tools: UnknownTools,
    out: &mut ItemProblems<'_>,
    warnings: &mut Vec<String>,
) -> Option<HookDef> {
    for key in table.keys() {
        if !HOOK_KEYS.contains(&key.as_str()) {
            out.push(unknown_key_message(key));
        }
    }
    let name = match table.get("name") {
        None => {
            out.push("name is missing; every hook needs a unique name".into());
            None
        }
        Some(Value::String(name)) if is_valid_name(name) => Some(name.clone()),
        Some(Value::String(name)) => {
            out.push(format!(
                "the name {name:?} is malformed: use 1–32 of a-z, 0-9, \"-\", \"_\""
            ));
            None
        }
        Some(other) => {
            out.push(format!("name must be a string, not {}", other.type_str()));
            None
        }
    };
    let event = match table.get("event") {
        None => {
            out.push("event is missing: use \"PreToolUse\" or \"UserPromptSubmit\"".into());
            None
        }
        Some(Value::String(e)) if e == "PreToolUse" => Some(Event::PreToolUse),
        Some(Value::String(e)) if e == "UserPromptSubmit" => Some(Event::UserPromptSubmit),
        Some(Value::String(e)) => {
            out.push(format!(
                "the event {e:?} is not one of the two: use \"PreToolUse\" or \"UserPromptSubmit\""
            ));
            None
        }
        Some(other) => {
            out.push(format!("event must be a string, not {}", other.type_str()));
            None
        }
    };
    let command = parse_command(table.get("command"), out);
    let tools = parse_tools(table.get("tools"), event, out);
    let timeout = match table.get("timeout") {
        None => Some(DEFAULT_TIMEOUT_SECS),
        Some(Value::Integer(t)) if (1..=MAX_TIMEOUT_SECS as i64).contains(t) => Some(*t as u64),
        Some(Value::Integer(t)) => {
            out.push(format!(
                "timeout {t} is out of range: whole seconds from 1 to {MAX_TIMEOUT_SECS}"
            ));
            None
        }
        Some(other) => {
            out.push(format!(
                "timeout must be whole seconds from 1 to {MAX_TIMEOUT_SECS}, not {}",
                other.type_str()
            ));
            None
        }
    };
    let sandbox = match table.get("sandbox") {
        None => Some(true),
        Some(Value::Boolean(b)) => Some(*b),
        Some(other) => {
            out.push(format!(
                "sandbox must be true or false, not {}",
                other.type_str()
            ));
            None
        }
    };
    let on_failure = match table.get("on_failure") {
        None => Some(OnFailure::Block),
        Some(Value::String(s)) if s == "block" => Some(OnFailure::Block),
        Some(Value::String(s)) if s == "continue" => Some(OnFailure::Continue),
        Some(Value::String(s)) => {
            out.push(format!(
                "on_failure {s:?} is not valid: use \"block\" or \"continue\""
            ));
            None
        }
        Some(other) => {
            out.push(format!(
                "on_failure must be \"block\" or \"continue\", not {}",
                other.type_str()
            ));
            None
        }
    };
    let envelope = parse_envelope(table.get("envelope"), out);
    let unknown_tools = parse_hook_unknown_tools(table, event, out);
    let tools = tools.map(|tools| {
        tools.map(|names| {
            ToolList::new(names, unknown_tools.flatten().unwrap_or(file_unknown_tools))
        })
    });
    if let (Some(name), Some(tools)) = (&name, &tools) {
        for tool in tools.iter().flat_map(|t| t.iter()) {
            if !KNOWN_TOOLS.contains(&tool.as_str()) {
                warnings.push(unknown_tool_warning(name, tool));
            }
        }
    }
    Some(HookDef {
        name: name?,
        event: event?,
        command: command?,
        tools: tools?,
        timeout: timeout?,
        sandbox: sandbox?,
        on_failure: on_failure?,
        envelope: envelope?,
    })
    .filter(|_| unknown_tools.is_some())
}

/// `envelope`: `Some(None)` when absent, `Some(Some(shape))` when valid, `None` when a
/// problem was reported.
fn parse_envelope(
    value: Option<&Value>,
    out: &mut ItemProblems<'_>,
) -> Option<Option<EnvelopeShape>> {
    match value {
        None => Some(None),
        Some(Value::String(s)) => match EnvelopeShape::from_config(s) {
            Some(shape) => Some(Some(shape)),
            None => {
                out.push(format!(
                    "envelope {s:?} is not valid: use \"claude-code\" (Claude Code's input) or \"spec\" (hookhost's envelope)"
                ));
                None
            }
        },
        Some(other) => {
            out.push(format!(
                "envelope must be \"claude-code\" or \"spec\", not {}",
                other.type_str()
            ));
            None
        }
    }
}

fn unknown_key_message(key: &str) -> String {
    match key {
        "matcher" => "unknown key \"matcher\": hooks here choose their tools with tools = [\"bash\", …], not a matcher".into(),
        _ => format!(
            "unknown key {key:?} (a hook has name, event, tools, command, timeout, sandbox, on_failure, envelope and unknown_tools)"
        ),
    }
}

/// The spec's start-up warning for a tool name that is not one of harness's tools.
pub fn unknown_tool_warning(hook: &str, tool: &str) -> String {
    let lower = tool.to_lowercase();
    let example = if KNOWN_TOOLS.contains(&lower.as_str()) {
        lower.as_str()
    } else {
        "bash"
    };
    format!(
        "⚠ hook {hook} lists \"{tool}\", which is not a tool here; tool names are lower case, such as {example}."
    )
}

fn parse_command(value: Option<&Value>, out: &mut ItemProblems<'_>) -> Option<Vec<String>> {
    match value {
        None => {
            out.push(
                "command is missing: give an argv such as [\"/path/to/hook\", \"arg\"]".into(),
            );
            None
        }
        Some(Value::Array(items)) if items.is_empty() => {
            out.push("command is empty: give an argv such as [\"/path/to/hook\", \"arg\"]".into());
            None
        }
        Some(Value::Array(items)) => {
            let argv: Option<Vec<String>> = items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect();
            match argv {
                Some(argv) if argv[0].is_empty() => {
                    out.push("command[0] is empty: name the program to run".into());
                    None
                }
                // An argument is a C string: it would be cut at the NUL (or fail to start).
                Some(argv) if argv.iter().any(|a| a.contains('\0')) => {
                    let at = argv.iter().position(|a| a.contains('\0')).unwrap_or(0);
                    out.push(format!(
                        "command[{at}] holds a NUL character, which no program argument can carry"
                    ));
                    None
                }
                Some(argv) => Some(argv),
                None => {
                    out.push("command must be a list of strings (an argv)".into());
                    None
                }
            }
        }
        Some(Value::String(_)) => {
            out.push("command must be an argv list, not a string: nothing runs through a shell unless you write [\"sh\", \"-c\", \"…\"]".into());
            None
        }
        Some(other) => {
            out.push(format!(
                "command must be a list of strings (an argv), not {}",
                other.type_str()
            ));
            None
        }
    }
}

fn section<'a>(
    value: Option<&'a Value>,
    name: &str,
    keys: &[&str],
    problems: &mut Vec<Problem>,
) -> Option<&'a toml::Table> {
    match value {
        None => None,
        Some(Value::Table(t)) => {
            for key in t.keys() {
                if !keys.contains(&key.as_str()) {
                    problems.push(Problem {
                        item: None,
                        message: format!(
                            "[{name}]: unknown key {key:?} (it has {})",
                            keys.join(", ")
                        ),
                    });
                }
            }
            Some(t)
        }
        Some(other) => {
            problems.push(Problem {
                item: None,
                message: format!("[{name}] must be a table, not {}", other.type_str()),
            });
            None
        }
    }
}

fn path_list(
    table: &toml::Table,
    section: &str,
    key: &str,
    env: &Environment,
    problems: &mut Vec<Problem>,
) -> Option<Vec<PathBuf>> {
    let value = table.get(key)?;
    let list = value.as_array().and_then(|items| {
        items
            .iter()
            .map(|v| v.as_str().map(|p| env.expand_home(p)))
            .collect::<Option<Vec<_>>>()
    });
    let Some(list) = list else {
        problems.push(Problem {
            item: None,
            message: format!("[{section}] {key} must be a list of paths"),
        });
        return None;
    };
    // The box takes absolute paths only; a relative one would pass here and then fail
    // every run.
    let mut all_absolute = true;
    for (path, item) in list.iter().zip(value.as_array().into_iter().flatten()) {
        if path.is_absolute() {
            continue;
        }
        all_absolute = false;
        let entry = item.as_str().unwrap_or_default();
        let hint = if entry.starts_with("~/") {
            "~/ needs HOME set to an absolute path"
        } else {
            "write it in full, or start it with ~/"
        };
        problems.push(Problem {
            item: None,
            message: format!("[{section}] {key}: {entry:?} is not an absolute path ({hint})"),
        });
    }
    all_absolute.then_some(list)
}

fn parse_sandbox(
    value: Option<&Value>,
    env: &Environment,
    problems: &mut Vec<Problem>,
) -> SandboxSettings {
    let keys = ["writable", "hide", "keep_env", "remove_env"];
    let Some(table) = section(value, "sandbox", &keys, problems) else {
        return SandboxSettings::default();
    };
    SandboxSettings {
        writable: path_list(table, "sandbox", "writable", env, problems).unwrap_or_default(),
        hide: path_list(table, "sandbox", "hide", env, problems),
        env: EnvPolicy {
            keep: env_list(table, "keep_env", hook_env::parse_kept_name, problems),
            remove: env_list(table, "remove_env", EnvPattern::parse, problems),
        },
    }
}

/// `[sandbox] keep_env` / `remove_env`: a list of variable names (patterns with `*` in
/// `remove_env`); each bad entry is a problem naming the key and the entry.
fn env_list<T>(
    table: &toml::Table,
    key: &str,
    parse: impl Fn(&str) -> Result<T, hook_env::PatternError>,
    problems: &mut Vec<Problem>,
) -> Vec<T> {
    let what = if key == "keep_env" {
        "variable names"
    } else {
        "variable names or patterns such as \"CORP_*\""
    };
    let Some(value) = table.get(key) else {
        return Vec::new();
    };
    let Some(items) = value.as_array() else {
        problems.push(Problem {
            item: None,
            message: format!("[sandbox] {key} must be a list of {what}"),
        });
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let message = match item.as_str().map(&parse) {
            Some(Ok(entry)) => {
                out.push(entry);
                continue;
            }
            Some(Err(why)) => format!(
                "[sandbox] {key} entry {:?} {why}",
                item.as_str().unwrap_or_default()
            ),
            None => format!("[sandbox] {key} must be a list of {what}, and {item} is not a string"),
        };
        problems.push(Problem {
            item: None,
            message,
        });
    }
    out
}

/// The largest `[wasm] memory_limit_mib`: a 32-bit WASM memory's 4 GiB.
pub const MAX_MEMORY_LIMIT_MIB: u64 = 4096;

fn parse_wasm(value: Option<&Value>, env: &Environment, problems: &mut Vec<Problem>) -> WasmConfig {
    let keys = [
        "memory_limit_mib",
        "fuel_per_second",
        "cache_dir",
        "compile_timeout",
    ];
    let Some(table) = section(value, "wasm", &keys, problems) else {
        return WasmConfig::default();
    };
    let mut positive = |key: &str| match table.get(key) {
        None => None,
        Some(Value::Integer(n)) if *n > 0 => Some(*n as u64),
        Some(_) => {
            problems.push(Problem {
                item: None,
                message: format!("[wasm] {key} must be a whole number above 0"),
            });
            None
        }
    };
    let memory_limit_mib = positive("memory_limit_mib");
    let fuel_per_second = positive("fuel_per_second");
    let compile_timeout = positive("compile_timeout");
    // A 32-bit WASM memory holds 4 GiB; `serve`'s pooled engine cannot reserve more.
    let memory_limit_mib = match memory_limit_mib {
        Some(mib) if mib > MAX_MEMORY_LIMIT_MIB => {
            problems.push(Problem {
                item: None,
                message: format!(
                    "[wasm] memory_limit_mib = {mib} is above {MAX_MEMORY_LIMIT_MIB}: a WASM hook's memory (32-bit) holds 4 GiB at most"
                ),
            });
            None
        }
        other => other,
    };
    let cache_dir = match table.get("cache_dir") {
        None => None,
        Some(Value::String(s)) => Some(env.expand_home(s)),
        Some(_) => {
            problems.push(Problem {
                item: None,
                message: "[wasm] cache_dir must be a path".into(),
            });
            None
        }
    };
    WasmConfig {
        memory_limit_mib,
        fuel_per_second,
        cache_dir,
        compile_timeout,
    }
}
