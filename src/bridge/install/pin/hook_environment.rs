//! Variables that reach the shell an agent starts its hooks with before hookhost's code runs
//! ([`HookEnvironment`], docs/threats.md#n11): from the settings' `env` object (read with
//! the other switch-offs, `switch_offs`) and from the `.env` files the agent loads.
//!
//! The loader, the C library and the hook's shell read them before the hook's command
//! does: `LD_PRELOAD` runs a library of the agent's in the shell, `GLIBC_TUNABLES` or
//! `MALLOC_TOP_PAD_` can stop hookhost at its first allocation (which the agents read as
//! "go ahead"), bash sources `BASH_ENV` first (one with `exit 0` answers for hookhost),
//! and Claude Code runs every hook command through `CLAUDE_CODE_SHELL_PREFIX` (seen: no
//! hook ran). Set from a file the agent can write, each switches hookhost off; so each
//! refuses the calls while it is set there, and `doctor` names it.

use std::ffi::OsString;
use std::path::Path;

use super::dotenv::{env_assignments, read_env_file, read_env_files};
use super::rewriting::OtherHook;
use super::switch_offs::ProjectFile;
use crate::bridge::{AgentKind, HookEnvironment};
use crate::env::Environment;

/// A variable read before the hook's command, with what it does there.
struct Before {
    name: &'static str,
    /// As a settings file's `env` spells it, for the switch-off's message.
    in_settings: &'static str,
    /// What it does, in words that follow the variable's name.
    does: &'static str,
    /// Whose hooks it reaches.
    read_by: ReadBy,
}

/// Which shells read a variable first.
enum ReadBy {
    /// Every one: the loader's and the C library's variables.
    Every,
    /// bash alone ([`HookEnvironment::bash`]).
    Bash,
    /// The agent that names it among its own ([`HookEnvironment::rerouting`]).
    ItsAgent,
}

/// A [`Before`], its settings spelling made from its name.
macro_rules! before {
    ($name:literal, $does:expr, $read_by:ident) => {
        Before {
            name: $name,
            in_settings: concat!("\"env\": {\"", $name, "\": …}"),
            does: $does,
            read_by: ReadBy::$read_by,
        }
    };
}

const RUNS_A_LIBRARY: &str = "loads a library into the hook's shell before hookhost's code runs";
const CHOOSES_LIBRARIES: &str = "chooses the libraries the hook's shell loads";
const ALLOCATES: &str =
    "changes how the C library allocates memory, which can stop hookhost before it answers";

/// The variables the loader, the C library and the shell read first (Linux's and macOS's).
const BEFORE: &[Before] = &[
    before!("LD_PRELOAD", RUNS_A_LIBRARY, Every),
    before!("LD_AUDIT", RUNS_A_LIBRARY, Every),
    before!("LD_LIBRARY_PATH", CHOOSES_LIBRARIES, Every),
    before!("GLIBC_TUNABLES", ALLOCATES, Every),
    before!("MALLOC_TOP_PAD_", ALLOCATES, Every),
    before!("DYLD_INSERT_LIBRARIES", RUNS_A_LIBRARY, Every),
    before!("DYLD_LIBRARY_PATH", CHOOSES_LIBRARIES, Every),
    before!("DYLD_FRAMEWORK_PATH", CHOOSES_LIBRARIES, Every),
    before!(
        "BASH_ENV",
        "names a script the hook's bash runs before the hook's command",
        Bash
    ),
    before!(
        "SHELLOPTS",
        "sets the hook's bash's options before the hook's command (with `PS4`, runs a command of its own)",
        Bash
    ),
    before!(
        "BASHOPTS",
        "sets the hook's bash's options before the hook's command",
        Bash
    ),
    before!(
        "PS4",
        "names what the hook's bash expands before each command it traces (with `SHELLOPTS=xtrace`, a command of its own)",
        Bash
    ),
    before!(
        "CLAUDE_CODE_SHELL_PREFIX",
        "runs every hook command through the program it names, which decides whether hookhost runs",
        ItsAgent
    ),
];

/// What `name` does before the hooks of an agent whose hooks start as `hooks` say; `None`:
/// nothing hookhost knows of.
fn before(hooks: &HookEnvironment, name: &str) -> Option<&'static Before> {
    BEFORE.iter().find(|b| {
        b.name == name
            && !dropped(hooks, name)
            && match b.read_by {
                ReadBy::Every => true,
                ReadBy::Bash => hooks.bash,
                ReadBy::ItsAgent => hooks.rerouting.contains(&b.name),
            }
    })
}

/// Whether `agent`'s settings files hand its hooks variables (an `env` object, in JSON).
pub(super) fn has_settings_env(agent: AgentKind) -> bool {
    agent
        .declaration()
        .hook_environment
        .is_some_and(|hooks| hooks.settings_env.is_some())
}

/// The variable of `settings` (an agent's settings file, parsed) whose `env` object hands
/// the agent's hooks one read before their command, as the switch-off's key.
pub(super) fn in_settings(agent: AgentKind, settings: &serde_json::Value) -> Option<&'static str> {
    let hooks = agent.declaration().hook_environment?;
    let env = settings.get(hooks.settings_env?)?.as_object()?;
    env.iter()
        // An empty value sets nothing the loader or a shell acts on.
        .filter(|(_, value)| js_string(value).is_some_and(|v| !v.is_empty()))
        .find_map(|(name, _)| before(hooks, name))
        .map(|b| b.in_settings)
}

/// The text a settings value becomes in the environment, as JavaScript's `String` makes
/// it: Claude Code 2.1.332 took `["/p/x.sh"]` as `/p/x.sh` (seen), so a value that is not
/// a string is read as it would be taken, not skipped. `None` for `null`.
pub(super) fn js_string(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    Some(match value {
        Value::Null => return None,
        Value::String(text) => text.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_f64() {
            // A whole number prints without a fraction (`1.0` is "1").
            Some(f) if f.fract() == 0.0 && f.abs() < 1e21 && n.is_f64() => format!("{f:.0}"),
            _ => n.to_string(),
        },
        // Elements joined by commas, `null` as nothing.
        Value::Array(items) => items
            .iter()
            .map(|item| js_string(item).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    })
}

/// The `.env` files `agent` loads into its environment, read once for every check of
/// them (its hooks' variables, its modes without hooks): in `cwd`, each folder above it
/// and the home folder, and its own in its folder of the home. Empty for an agent that
/// loads none.
pub(super) fn loaded_env_files(
    agent: AgentKind,
    env: &Environment,
    cwd: &Path,
) -> Vec<ProjectFile> {
    let declaration = agent.declaration();
    let hooks = declaration.hook_environment;
    let names = hooks.map_or(&[][..], |h| h.env_files);
    let home = env.home();
    // The agent's folder in the home, or where its variable moves it (`$QWEN_HOME`,
    // `$CODEX_HOME`): Qwen Code loads the `.env` there too, Codex its own `.env` from there.
    let moved = declaration
        .settings
        .home_variable
        .and_then(|variable| env.get(variable))
        .filter(|folder| !folder.is_empty())
        .map(std::path::PathBuf::from);
    let first_only = hooks.is_some_and(|h| h.first_env_file_only);
    let mut files = if names.is_empty() {
        Vec::new()
    } else if first_only {
        first_env_file(names, cwd, home.as_deref())
    } else {
        let also = moved.as_ref().map(|folder| folder.join(".env"));
        read_env_files(names, cwd, home.as_deref(), also)
    };
    let own = moved.or_else(|| {
        home.as_ref()
            .map(|home| home.join(declaration.settings.home_folder))
    });
    if let (Some(own), Some(hooks)) = (own, hooks) {
        files.extend(
            hooks
                .own_env_files
                .iter()
                .filter_map(|file| read_env_file(own.join(file))),
        );
    }
    files
}

/// The `.env` files named `names` in the first folder from `cwd` up that holds one, else
/// in `home`: where Gemini CLI 0.61.0 takes the one file it loads (the first found in that
/// order; both are read here, its trust of the folder aside). A `.env` in the home beside
/// a project's is not loaded, and refused nothing (a toolkit's `LD_LIBRARY_PATH` there).
fn first_env_file(names: &[&str], cwd: &Path, home: Option<&Path>) -> Vec<ProjectFile> {
    // Asked within the call's one look at the file system (`paths::memoised`): a folder's
    // `.gemini` known absent is not asked again for its `.env`.
    let holds_one = |folder: &Path| {
        names.iter().any(|name| {
            let file = folder.join(name);
            !super::switch_offs::lies_under_nothing(&file, folder)
                && crate::paths::stat(&file).is_ok_and(|meta| !meta.is_dir())
        })
    };
    let folder = cwd
        .ancestors()
        .find(|folder| holds_one(folder))
        .or(home.filter(|home| holds_one(home)));
    folder
        .into_iter()
        .flat_map(|folder| names.iter().map(move |name| folder.join(name)))
        .filter_map(read_env_file)
        .collect()
}

/// The variables read before `agent`'s hooks that `files` (the `.env` files it loads,
/// [`loaded_env_files`]) set, one message each.
pub(super) fn in_env_files(agent: AgentKind, files: &[ProjectFile]) -> Vec<String> {
    let Some(hooks) = agent.declaration().hook_environment else {
        return Vec::new();
    };
    let name = agent.display_name();
    let mut found = Vec::new();
    for ProjectFile { file, bytes, .. } in files {
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(why) => {
                found.push(format!(
                    "hookhost cannot read {}, a .env file {name} loads into its hooks' environment: {why}; a variable there may run before hookhost's code, so hookhost blocks this agent's calls while it is there.",
                    file.display()
                ));
                continue;
            }
        };
        let text = String::from_utf8_lossy(bytes);
        let mut assigned: Vec<String> = env_assignments(&text)
            .into_iter()
            .filter(|(_, value)| !value.is_empty())
            .map(|(name, _)| name)
            .collect();
        // And each line that reads as an assignment by itself, whatever dotenv makes of the
        // lines around it: a reader other than npm's (Codex's is Rust's `dotenvy`) may
        // not take a quoted value over several lines, where such a line hides.
        for name in plain_assignments(&text) {
            if !assigned.contains(&name) {
                assigned.push(name);
            }
        }
        for assigned in assigned {
            if let Some(b) = before(hooks, &assigned) {
                found.push(format!(
                    "{} sets {assigned}, which {}: {name} loads that file into its hooks' environment, so hookhost blocks this agent's calls while it is there. Remove that line.",
                    file.display(),
                    b.does
                ));
            }
        }
    }
    found
}

/// The names that lines of `text` set by themselves (`NAME=value`, `export NAME=value`,
/// `NAME: value`, blanks around; a value that is not empty), each line on its own.
fn plain_assignments(text: &str) -> Vec<String> {
    plain_lines(text)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// [`plain_assignments`] with each value as written (trimmed).
fn plain_lines(text: &str) -> Vec<(String, String)> {
    text.split(['\n', '\r', '\u{2028}', '\u{2029}'])
        .filter_map(|line| {
            let line = line.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
            let line = line
                .strip_prefix("export")
                .filter(|rest| rest.starts_with(char::is_whitespace))
                .map_or(line, str::trim_start);
            let at = line.find(['=', ':'])?;
            let (name, value) = (line[..at].trim_end(), line[at + 1..].trim());
            let name_chars = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-');
            (!name.is_empty() && name.chars().all(name_chars) && !value.is_empty())
                .then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

/// The variables of `files` (the `.env` files `agent` loads, [`loaded_env_files`]) that
/// choose what its hooks run ([`steers_hooks`]), each as one "hook" to accept
/// ([`super::rewriting::steering_variables`] for a settings file's): its digest over the
/// file, the name and its values (as dotenv reads them, and each line that sets it as
/// written). `project` is the call's, where `install` accepts them.
pub(super) fn steering_in_env_files(
    agent: AgentKind,
    files: &[ProjectFile],
    project: &Path,
) -> Vec<OtherHook> {
    let declaration = agent.declaration();
    let (Some(rewriting), Some(hooks)) =
        (declaration.rewriting_hooks, declaration.hook_environment)
    else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for ProjectFile { file, bytes, .. } in files {
        // One that cannot be read refuses already (`in_env_files`).
        let Ok(bytes) = bytes else { continue };
        let text = String::from_utf8_lossy(bytes);
        let parsed = env_assignments(&text);
        let lines = plain_lines(&text);
        let mut names: Vec<&String> = parsed.iter().chain(&lines).map(|(n, _)| n).collect();
        names.retain(|name| steers_hooks(hooks, name));
        names.sort();
        names.dedup();
        if names.is_empty() {
            continue;
        }
        let real = std::fs::canonicalize(file).unwrap_or_else(|_| crate::paths::lexical(file));
        for name in names {
            let values: Vec<&str> = parsed
                .iter()
                .chain(&lines)
                .filter(|(n, value)| n == name && !value.is_empty())
                .map(|(_, value)| value.as_str())
                .collect();
            if values.is_empty() {
                continue;
            }
            found.push(OtherHook::variable(
                rewriting,
                file,
                name,
                format!("{name}=…"),
                &format!("{}\n.env\n{name}\n{}", real.display(), values.join("\n")),
                Some(project.to_path_buf()),
            ));
        }
    }
    found
}

/// The variables `agent`'s project files hand its hooks (its settings' `env` in the
/// project's settings files, the `.env` files it loads outside the home and its own
/// folder there), read from each of `folders` (the call's `cwd` and the project the agent
/// states: Claude Code's `cwd` follows the model's `cd`, its settings do not): the bridge
/// withholds each from hookhost's own hooks, whatever its name and value, since the agent
/// writes those files (docs/threats.md#n11). By name, not by value: the agent may give a
/// value hookhost would spell otherwise (JavaScript's `String` of a large number, Qwen
/// Code's `$VAR` expansion), and an agent that fills only what its environment lacks
/// leaves no value to tell whose it is. `[sandbox] keep_env` keeps a name the user's
/// hooks need.
pub fn set_by_project_files(
    agent: AgentKind,
    env: &Environment,
    folders: &[&Path],
) -> Vec<OsString> {
    let Some(hooks) = agent.declaration().hook_environment else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for cwd in folders {
        let settings = match hooks.settings_env {
            Some(_) => super::switch_offs::read_project_files(agent, cwd, |_| None),
            None => Vec::new(),
        };
        let env_files = loaded_env_files(agent, env, cwd);
        names.extend(project_variables(agent, env, &settings, &env_files));
    }
    names.sort();
    names.dedup();
    names
}

/// [`set_by_project_files`] of files read already: `settings`, the agent's project
/// settings files found from a folder, and `env_files`, the `.env` files it loads from
/// there ([`loaded_env_files`]).
pub(super) fn project_variables(
    agent: AgentKind,
    env: &Environment,
    settings: &[ProjectFile],
    env_files: &[ProjectFile],
) -> Vec<OsString> {
    let Some(hooks) = agent.declaration().hook_environment else {
        return Vec::new();
    };
    // The user's own folders, as spelled and as they resolve: the home, and the agent's
    // folder there (or where its variable moves it).
    let home = env.home();
    let agents_folder = agent
        .declaration()
        .settings
        .home_variable
        .and_then(|variable| env.get(variable))
        .filter(|folder| !folder.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| {
            home.as_ref()
                .map(|home| home.join(agent.declaration().settings.home_folder))
        });
    let users: Vec<&std::path::PathBuf> = home.iter().chain(&agents_folder).collect();
    // Resolved only for a folder not spelled as one of them (a `realpath` is a look at
    // each part of the path; most calls find no project file to ask about).
    let resolved_users = std::cell::OnceCell::new();
    let is_users = |folder: Option<&Path>| {
        folder.is_some_and(|folder| {
            users.iter().any(|user| user.as_path() == folder)
                || std::fs::canonicalize(folder).is_ok_and(|real| {
                    resolved_users
                        .get_or_init(|| {
                            users
                                .iter()
                                .map(|user| std::fs::canonicalize(user).unwrap_or_default())
                                .collect::<Vec<_>>()
                        })
                        .contains(&real)
                })
        })
    };
    let mut names: Vec<String> = Vec::new();
    if let Some(key) = hooks.settings_env {
        for file in settings.iter().filter(|f| f.merged) {
            // The user's own (`~/.claude/settings.json` is spelled as a project's would be,
            // from a folder of the home).
            if is_users(file.file.parent().and_then(Path::parent)) {
                continue;
            }
            let Ok(bytes) = &file.bytes else { continue };
            let text = String::from_utf8_lossy(bytes);
            let Ok(settings) = super::switch_offs::read_json(&text) else {
                continue;
            };
            if let Some(vars) = settings.get(key).and_then(serde_json::Value::as_object) {
                names.extend(vars.keys().cloned());
            }
        }
    }
    for file in env_files {
        if is_users(file.file.parent()) {
            continue;
        }
        let Ok(bytes) = &file.bytes else { continue };
        let text = String::from_utf8_lossy(bytes);
        names.extend(env_assignments(&text).into_iter().map(|(name, _)| name));
    }
    let mut names: Vec<OsString> = names.into_iter().map(OsString::from).collect();
    names.sort();
    names.dedup();
    names
}

/// Whether a variable a file hands the hooks of an agent whose hooks start as `hooks` say
/// chooses what they run: `PATH`, by which a hook's shell finds each program (unless the
/// agent takes none over its own: [`HookEnvironment::unset_only`]), or a variable that
/// chooses what code a program loads ([`crate::hook_env::LOADS_CODE`]), unless the agent
/// drops it itself ([`HookEnvironment::drops`]).
pub(super) fn steers_hooks(hooks: &HookEnvironment, name: &str) -> bool {
    let path = name.eq_ignore_ascii_case("PATH");
    if path && hooks.unset_only {
        return false;
    }
    (path || crate::hook_env::loads_code(name.as_bytes())) && !dropped(hooks, name)
}

/// Whether the agent drops `name` from its files itself, as Qwen Code compares names:
/// any case, `_` and `-` alike.
fn dropped(hooks: &HookEnvironment, name: &str) -> bool {
    let canonical = |text: &str| text.to_ascii_lowercase().replace('_', "-");
    let name = canonical(name);
    hooks.drops.iter().any(|drop| match drop.strip_suffix('*') {
        Some(prefix) => name.starts_with(&canonical(prefix)),
        None => name == canonical(drop),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gemini CLI loads the `.env` files of the first folder from the call's up that holds
    /// one (`.gemini/.env` or `.env`), else the home's; a `.gemini` that is missing or a
    /// file holds none, and a `.gemini/.env` made after a call is found by the next.
    #[test]
    fn the_first_folder_holding_a_env_file_is_the_one_loaded() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let project = root.path().join("p");
        let cwd = project.join("a/b");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join(".env"), "A=home\n").unwrap();
        let names = [".gemini/.env", ".env"];
        let loaded = || {
            crate::paths::memoised(|| first_env_file(&names, &cwd, Some(&home)))
                .into_iter()
                .map(|f| f.file)
                .collect::<Vec<_>>()
        };
        assert_eq!(loaded(), [home.join(".env")]);
        std::fs::write(project.join("a/.gemini"), "A=file\n").unwrap();
        assert_eq!(loaded(), [home.join(".env")]);
        std::fs::remove_file(project.join("a/.gemini")).unwrap();
        std::fs::create_dir_all(project.join("a/.gemini")).unwrap();
        std::fs::write(project.join("a/.gemini/.env"), "A=project\n").unwrap();
        assert_eq!(loaded(), [project.join("a/.gemini/.env")]);
        std::fs::write(cwd.join(".env"), "A=here\n").unwrap();
        assert_eq!(loaded(), [cwd.join(".env")]);
    }

    /// Claude Code's settings `env`: each variable read before the hooks, its own prefix
    /// among them, whatever the value's type; bash's `BASH_ENV` only for an agent whose
    /// hooks' shell is bash; empty values, other variables and agents say nothing.
    #[test]
    fn a_settings_env_that_runs_before_the_hooks_is_a_switch_off() {
        let claude = |env: serde_json::Value| {
            in_settings(AgentKind::ClaudeCode, &serde_json::json!({ "env": env }))
        };
        assert_eq!(
            claude(serde_json::json!({"CLAUDE_CODE_SHELL_PREFIX": "/p/x.sh"})),
            Some("\"env\": {\"CLAUDE_CODE_SHELL_PREFIX\": …}")
        );
        assert_eq!(
            claude(serde_json::json!({"A": "1", "LD_PRELOAD": "/p/x.so"})),
            Some("\"env\": {\"LD_PRELOAD\": …}")
        );
        // A value that is not a string is taken as JavaScript makes it one (seen: an array).
        for taken in [
            serde_json::json!({"CLAUDE_CODE_SHELL_PREFIX": ["/p/x.sh"]}),
            serde_json::json!({"CLAUDE_CODE_SHELL_PREFIX": {"a": 1}}),
            serde_json::json!({"MALLOC_TOP_PAD_": 1e15}),
            serde_json::json!({"LD_PRELOAD": true}),
        ] {
            assert!(claude(taken.clone()).is_some(), "{taken}");
        }
        for quiet in [
            serde_json::json!({"LD_PRELOAD": ""}),
            serde_json::json!({"LD_PRELOAD": null}),
            serde_json::json!({"LD_PRELOAD": []}),
            serde_json::json!({"LD_PRELOAD": [null]}),
            serde_json::json!({"BASH_ENV": "/p/x.sh"}),
            serde_json::json!({"PATH": "/p"}),
            serde_json::json!("LD_PRELOAD"),
        ] {
            assert_eq!(claude(quiet.clone()), None, "{quiet}");
        }
        // Qwen Code runs bash, and drops `BASH_ENV` from its files itself (any case, `_`
        // and `-` alike), but not `LD_LIBRARY_PATH` or bash's options.
        for taken in ["LD_LIBRARY_PATH", "SHELLOPTS"] {
            let qwen = serde_json::json!({"env": {taken: "/p/x"}});
            assert!(in_settings(AgentKind::Qwen, &qwen).is_some(), "{taken}");
        }
        for dropped in ["BASH_ENV", "LD_PRELOAD"] {
            let qwen = serde_json::json!({"env": {dropped: "/p/x"}});
            assert_eq!(in_settings(AgentKind::Qwen, &qwen), None, "{dropped}");
        }
        // Qwen Code has no prefix variable of Claude Code's.
        let qwen = serde_json::json!({"env": {"CLAUDE_CODE_SHELL_PREFIX": "/p/x.sh"}});
        assert_eq!(in_settings(AgentKind::Qwen, &qwen), None);
        let kimi = serde_json::json!({"env": {"LD_PRELOAD": "/p/x.so"}});
        assert_eq!(in_settings(AgentKind::Kimi, &kimi), None);
    }

    /// What a file's variable steers, agent by agent: `PATH` for Claude Code (in any case)
    /// but not for the agents that take no variable over their own; the code loaders,
    /// less those Qwen Code drops itself (compared as it compares them).
    #[test]
    fn a_variable_steers_the_hooks_it_reaches() {
        let steers = |agent: AgentKind, name: &str| {
            steers_hooks(agent.declaration().hook_environment.unwrap(), name)
        };
        for name in ["PATH", "Path", "PYTHONPATH", "NODE_OPTIONS", "OPENSSL_CONF"] {
            assert!(steers(AgentKind::ClaudeCode, name), "{name}");
        }
        assert!(!steers(AgentKind::ClaudeCode, "TEAM_MODE"));
        assert!(!steers(AgentKind::Gemini, "PATH"));
        assert!(steers(AgentKind::Gemini, "NODE_OPTIONS"));
        for name in [
            "PATH",
            "NODE_OPTIONS",
            "npm-config-node-options",
            "OPENSSL_CONF",
            "bash_func_cat%%",
        ] {
            assert!(!steers(AgentKind::Qwen, name), "{name}");
        }
        for name in ["PYTHONPATH", "npm_config_registry", "PERL5OPT"] {
            assert!(steers(AgentKind::Qwen, name), "{name}");
        }
        assert!(steers(AgentKind::Codex, "PATH"));
    }

    /// A line that sets a variable by itself is seen inside what dotenv reads as a quoted
    /// value over several lines.
    #[test]
    fn a_line_that_sets_a_variable_by_itself_is_seen_whatever_surrounds_it() {
        let text = "A=\"one\n export BASH_ENV = /p/x.sh\nK: v\n\"\nB=\n# C=1\n=x\n";
        assert_eq!(
            env_assignments(text).len(),
            2,
            "dotenv reads one quoted value"
        );
        assert_eq!(plain_assignments(text), ["A", "BASH_ENV", "K"]);
    }

    /// Values as JavaScript's `String` makes them.
    #[test]
    fn settings_values_become_text_as_javascript_makes_it() {
        let cases = [
            (serde_json::json!("x"), Some("x")),
            (serde_json::json!(1), Some("1")),
            (serde_json::json!(1.0), Some("1")),
            (serde_json::json!(1.5), Some("1.5")),
            (serde_json::json!(false), Some("false")),
            (
                serde_json::json!(["a", 1, null, ["b", "c"]]),
                Some("a,1,,b,c"),
            ),
            (serde_json::json!({}), Some("[object Object]")),
            (serde_json::json!(null), None),
        ];
        for (value, text) in cases {
            assert_eq!(js_string(&value).as_deref(), text, "{value}");
        }
    }

    /// The `.env` files each agent loads: Gemini CLI's up from `cwd` and the home's,
    /// Codex's in `~/.codex/` alone; each variable named with its file.
    #[test]
    fn a_env_file_that_runs_before_the_hooks_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(home.join(".codex")).unwrap();
        std::fs::create_dir_all(project.join("sub")).unwrap();
        let env = Environment::from_vars(vec![("HOME".into(), home.clone().into())]);
        let cwd = project.join("sub");
        assert!(super::super::environment_switch_offs(AgentKind::Gemini, &env, &cwd).is_empty());
        std::fs::write(project.join(".env"), "A=1\nBASH_ENV=./x.sh\nLD_PRELOAD=\n").unwrap();
        let found = super::super::environment_switch_offs(AgentKind::Gemini, &env, &cwd);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].starts_with(&format!(
                "{} sets BASH_ENV, which names a script the hook's bash runs",
                project.join(".env").display()
            )),
            "{found:#?}"
        );
        // Gemini CLI loads the home's `.env` only when no folder from `cwd` up has one.
        std::fs::write(home.join(".env"), "LD_LIBRARY_PATH=/usr/local/cuda/lib64\n").unwrap();
        std::fs::write(project.join(".env"), "APP_PORT=8080\n").unwrap();
        let found = super::super::environment_switch_offs(AgentKind::Gemini, &env, &cwd);
        assert!(found.is_empty(), "{found:#?}");
        std::fs::remove_file(project.join(".env")).unwrap();
        let found = super::super::environment_switch_offs(AgentKind::Gemini, &env, &cwd);
        assert!(
            found.len() == 1 && found[0].starts_with(&home.join(".env").display().to_string()),
            "{found:#?}"
        );
        std::fs::remove_file(home.join(".env")).unwrap();
        // Codex reads no project `.env`, only its own.
        assert!(super::super::environment_switch_offs(AgentKind::Codex, &env, &cwd).is_empty());
        std::fs::write(
            home.join(".codex/.env"),
            "GLIBC_TUNABLES=glibc.malloc.x=1\n",
        )
        .unwrap();
        let found = super::super::environment_switch_offs(AgentKind::Codex, &env, &cwd);
        assert!(
            found.len() == 1 && found[0].contains("sets GLIBC_TUNABLES"),
            "{found:#?}"
        );
        // With `CODEX_HOME` set, Codex's own `.env` is there.
        let moved = dir.path().join("codex-home");
        std::fs::create_dir_all(&moved).unwrap();
        std::fs::write(moved.join(".env"), "LD_PRELOAD=/p/x.so\n").unwrap();
        let env = Environment::from_vars(vec![
            ("HOME".into(), home.clone().into()),
            ("CODEX_HOME".into(), moved.clone().into()),
        ]);
        let found = super::super::environment_switch_offs(AgentKind::Codex, &env, &cwd);
        assert!(
            found.len() == 1 && found[0].starts_with(&moved.join(".env").display().to_string()),
            "{found:#?}"
        );
        // Claude Code loads no `.env`.
        assert!(
            super::super::environment_switch_offs(AgentKind::ClaudeCode, &env, &cwd).is_empty()
        );
    }
}
