//! Hooks of the agent's own that may rewrite a tool call after hookhost allowed it (an
//! agent's [`RewritingHooks`]; docs/threats.md#r14). Claude Code, Gemini CLI, Qwen Code,
//! Codex and Copilot CLI apply what a hook of their tool-call event answers to the call's
//! input, so a hook the agent writes into a file it reads hooks from could turn the call
//! hookhost judged into another.
//!
//! `install` accepts the hooks there are when it runs: the pin keeps a digest of each
//! (its file, event, group and handler), from the file it writes, the user's settings,
//! the project settings it finds from where it runs, and the agent's other hook files
//! ([`hook_files`]). A bridged call is refused while a file the agent reads holds one that
//! no pin covering the call accepted; the pinned file itself is checked only when it
//! changed since `install` (its drift, [`Drift::Rewriting`]).

use super::switch_offs::{self, ProjectFile, read_json, read_project_files, read_toml};
use super::*;
use super::{frontmatter, hook_files, hook_scripts, plugins};

/// A hook that may rewrite a call, other than hookhost's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherHook {
    /// The settings file it is in.
    pub file: PathBuf,
    /// The agent's event (`PreToolUse`).
    pub event: String,
    /// What it runs: its `command`, else the handler as written.
    pub what: String,
    /// `sha256:` of its file, event, group (less its handlers) and handler: what a pin
    /// accepts. A hook accepted in one project's file is not accepted in another's.
    pub digest: String,
    /// The project whose files its digest holds, for a hook of a file of no project (the
    /// user's settings) whose command names some (`$CLAUDE_PROJECT_DIR/…`, a relative
    /// path): `install` run there accepts it, for that project alone.
    pub project: Option<PathBuf>,
    /// Not a hook but a variable the file hands the agent's hooks (its settings' `env`)
    /// that chooses what they run (`steering_variables`): its name.
    pub variable: Option<String>,
}

impl OtherHook {
    /// A variable `name` of `file` that chooses what the agent's hooks run, as one "hook"
    /// to accept: `what` says it in messages, its digest is over `text`
    /// ([`variable_digest`]), and `project` is where `install` accepts it, when not
    /// wherever it runs.
    pub(super) fn variable(
        rewriting: &RewritingHooks,
        file: &Path,
        name: &str,
        what: String,
        text: &str,
        project: Option<PathBuf>,
    ) -> OtherHook {
        OtherHook {
            file: file.to_path_buf(),
            event: first_event(rewriting),
            what,
            digest: variable_digest(text),
            project,
            variable: Some(name.to_string()),
        }
    }
}

/// The event a hook of a file or folder as a whole stands under in messages: the agent's
/// first tool-call event.
fn first_event(rewriting: &RewritingHooks) -> String {
    rewriting
        .events
        .first()
        .copied()
        .unwrap_or("hook")
        .to_string()
}

/// The keys of a handler `install` writes (Gemini CLI's `name`, Claude Code's
/// `onFailure`, Copilot CLI's `exec`, `args` and `timeoutSec`, Cursor's `failClosed`
/// among them): a handler with any other (`url`, Copilot CLI's `bash`) runs something
/// else.
const OUR_KEYS: &[&str] = &[
    "type",
    "command",
    "timeout",
    "name",
    "onFailure",
    "exec",
    "args",
    "timeoutSec",
    "failClosed",
];

/// hookhost's handler as `install` writes it for one registration: a shell command line,
/// or (Copilot CLI) a program and its arguments.
pub(super) struct Ours {
    command_line: String,
    program: String,
    args: Vec<String>,
    /// Its timeout, in the agent's unit: a copy with a shorter one could be the one the
    /// agent runs (it runs identical commands once) and time out into a call let through.
    timeout: u64,
    /// Its fail-closed key and value, when written (Claude Code's `onFailure`).
    fail_closed: Option<(&'static str, serde_json::Value)>,
}

impl Ours {
    /// A shell command line alone (tests).
    #[cfg(test)]
    pub(super) fn command_line(line: &str) -> Ours {
        Ours {
            command_line: line.to_string(),
            program: String::new(),
            args: Vec::new(),
            timeout: 0,
            fail_closed: None,
        }
    }

    /// The handler `install` writes for `registration`.
    pub(super) fn of(registration: &super::super::Registration) -> Ours {
        Ours {
            command_line: registration.command_line.clone(),
            program: registration.program.to_string_lossy().into_owned(),
            args: registration.args.clone(),
            timeout: registration.timeout,
            fail_closed: registration.fail_closed.map(|f| (f.key(), f.value())),
        }
    }
}

/// Whether `handler` is hookhost's: a `command` handler that runs exactly one of `ours`
/// (its command line alone, or its program with its arguments) and that has no key
/// `install` does not write. One that only looks like it (an `http` handler carrying the
/// command, a command run with `args`, a command with more on its line) is another hook.
fn is_ours(handler: &serde_json::Value, ours: &[Ours]) -> bool {
    let Some(handler) = handler.as_object() else {
        return false;
    };
    let text = |key: &str| handler.get(key).map(serde_json::Value::as_str);
    // Cursor's handlers have no `type`: a command.
    if !matches!(text("type"), None | Some(Some("command")))
        || !handler.keys().all(|key| OUR_KEYS.contains(&key.as_str()))
    {
        return false;
    }
    ours.iter().any(|o| {
        // The timeout (`timeout`, Copilot CLI's `timeoutSec`) is `install`'s, and so is
        // its fail-closed key. (A test's `Ours` from a command line alone has timeout 0:
        // any.)
        let written: Vec<&serde_json::Value> = ["timeout", "timeoutSec"]
            .iter()
            .filter_map(|key| handler.get(*key))
            .collect();
        // `install` always writes one; a copy without it runs with the agent's default.
        let timeout = o.timeout == 0
            || (!written.is_empty() && written.iter().all(|t| t.as_u64() == Some(o.timeout)));
        let fail_closed = o
            .fail_closed
            .as_ref()
            .is_none_or(|(key, value)| handler.get(*key) == Some(value));
        timeout
            && fail_closed
            && match (text("command"), text("exec"), handler.get("args")) {
                (Some(command), None, None) => command == Some(o.command_line.as_str()),
                (None, Some(program), Some(args)) => {
                    program == Some(o.program.as_str())
                        && args.as_array().is_some_and(|args| {
                            args.len() == o.args.len()
                                && args.iter().zip(&o.args).all(|(a, b)| a.as_str() == Some(b))
                        })
                }
                _ => false,
            }
    })
}

/// What a handler runs, as the strings that say it: its command line (`command`, Copilot
/// CLI's `bash`, `powershell`), its program (`exec`) and its arguments (`args`).
fn handler_words(handler: &serde_json::Value) -> Vec<&str> {
    let text = |key: &str| handler.get(key).and_then(serde_json::Value::as_str);
    let args = handler.get("args").and_then(serde_json::Value::as_array);
    ["command", "bash", "powershell", "exec"]
        .iter()
        .filter_map(|key| text(key))
        .chain(
            args.into_iter()
                .flatten()
                .filter_map(serde_json::Value::as_str),
        )
        .collect()
}

/// The hooks of `agent`'s settings `text` (JSON, Codex's TOML), the settings file `file`,
/// that may rewrite a call, other than hookhost's ([`is_ours`] with `ours`, hookhost's
/// commands as `install` wrote them). Empty for an agent without such hooks; an error for
/// a text that is not the agent's settings (the switch-off checks refuse such a file
/// already). `project` is the project of the call (or of `install`), whose files the
/// hooks of a file of no project (the user's settings) may run: the agent runs them in
/// that project, `$CLAUDE_PROJECT_DIR/…` and relative paths naming its files.
pub(super) fn other_hooks(
    agent: AgentKind,
    file: &Path,
    text: &str,
    ours: &[Ours],
    project: Option<&Path>,
) -> Result<Vec<OtherHook>, String> {
    let Some(rewriting) = agent.declaration().rewriting_hooks else {
        return Ok(Vec::new());
    };
    let extension = |wanted: &str| {
        file.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case(wanted))
    };
    if let Some(hook) = program_hook(file, rewriting) {
        return Ok(vec![hook]);
    }
    if extension("md") {
        return frontmatter_hook(agent, file, text, rewriting.events, project)
            .map(|hook| hook.into_iter().collect());
    }
    // Codex's TOML holds the same tables as the others' JSON (and its `hooks.json`):
    // `[[hooks.EVENT]]` groups with a `matcher` and `[[hooks.EVENT.hooks]]` handlers.
    let settings = if extension("toml") {
        serde_json::to_value(read_toml(text)?)
            .map_err(|e| format!("it cannot be read as settings: {e}"))?
    } else {
        read_json(text)?
    };
    // A `hooks` object, or (Qwen Code's extension `hooks/hooks.json`) the events at the
    // top.
    let top = settings
        .as_object()
        .filter(|top| rewriting.events.iter().any(|e| top.contains_key(*e)));
    let mut enabled = plugin_hooks(agent, file, &settings);
    enabled.extend(steering_variables(agent, file, &settings));
    let Some(hooks) = settings
        .get("hooks")
        .and_then(serde_json::Value::as_object)
        .or(top)
    else {
        return Ok(enabled);
    };
    let call_project = project;
    let mut found = enabled;
    let mut real_file: Option<PathBuf> = None;
    let mut folders: Option<ScriptsFolders> = None;
    for event in rewriting.events {
        let groups = hooks.get(*event).and_then(serde_json::Value::as_array);
        for group in groups.into_iter().flatten() {
            // The group's own keys (`matcher`, Qwen Code's `sequential`) are part of what
            // was accepted. An entry with no `hooks` list is a handler itself (Copilot
            // CLI's flat lists; an agent that wants groups finds no hook there, and
            // hookhost refuses rather than guess).
            let mut group_keys = group.as_object().cloned().unwrap_or_default();
            let handlers = match group_keys.shift_remove("hooks") {
                Some(serde_json::Value::Array(handlers)) => handlers,
                _ => {
                    group_keys.clear();
                    vec![group.clone()]
                }
            };
            let group_keys = serde_json::Value::Object(group_keys);
            for handler in &handlers {
                if is_ours(handler, ours) {
                    continue;
                }
                // The file as its links lead, so that `install` and a call that reach it
                // by other spellings (a linked project, `..`) digest one path.
                let real = real_file.get_or_insert_with(|| {
                    std::fs::canonicalize(file).unwrap_or_else(|_| crate::paths::lexical(file))
                });
                // The scripts it names, as they are now (docs/threats.md#r14): in the
                // project the file belongs to, or the home.
                let folders = folders
                    .get_or_insert_with(|| ScriptsFolders::of(agent, file, real, call_project));
                let words = handler_words(handler);
                let cwd = handler.get("cwd").and_then(serde_json::Value::as_str);
                let scripts = folders.named(&words, cwd);
                found.push(OtherHook {
                    file: file.to_path_buf(),
                    event: (*event).to_string(),
                    // For messages: its command line or program, else the handler.
                    what: words
                        .first()
                        .map_or_else(|| handler.to_string(), |w| (*w).to_string()),
                    digest: digest(&format!(
                        "{}\n{event}\n{group_keys}\n{handler}\n{scripts}",
                        real.display()
                    )),
                    project: folders.call_project_named(&scripts),
                    variable: None,
                });
            }
        }
    }
    Ok(found)
}

/// The variables of `settings` (the file `file`) that the agent hands its hooks (its
/// [`crate::bridge::HookEnvironment::settings_env`] object) and that choose what those
/// hooks run: `PATH`, by which a hook's shell finds each program, and the variables that
/// choose what code a program loads ([`crate::hook_env::LOADS_CODE`]: `NODE_OPTIONS`,
/// `PYTHONPATH`, …). Each is one "hook" to accept, its digest over the file, the name and
/// the value as the agent takes it: a `PATH` whose first folder the agent wrote, written
/// into a project's settings, made an accepted hook run the agent's `cat`, which answered
/// with another command (docs/threats.md#r14). hookhost's own hooks get neither
/// (`crate::hook_env`, the guard's PATH).
fn steering_variables(
    agent: AgentKind,
    file: &Path,
    settings: &serde_json::Value,
) -> Vec<OtherHook> {
    let declaration = agent.declaration();
    let (Some(rewriting), Some(hooks)) =
        (declaration.rewriting_hooks, declaration.hook_environment)
    else {
        return Vec::new();
    };
    let Some(key) = hooks.settings_env else {
        return Vec::new();
    };
    let Some(env) = settings.get(key).and_then(serde_json::Value::as_object) else {
        return Vec::new();
    };
    let mut real = None;
    env.iter()
        .filter(|(name, _)| super::hook_environment::steers_hooks(hooks, name))
        .filter_map(|(name, value)| {
            let value = super::hook_environment::js_string(value)?;
            let real = real.get_or_insert_with(|| {
                std::fs::canonicalize(file).unwrap_or_else(|_| crate::paths::lexical(file))
            });
            Some(OtherHook::variable(
                rewriting,
                file,
                name,
                format!("\"{key}\": {{\"{name}\": …}}"),
                &format!("{}\n{key}\n{name}\n{value}", real.display()),
                None,
            ))
        })
        .collect()
}

/// What a pin accepts of a variable ([`steering_variables`]): the digest of `text`,
/// marked as a variable's ([`VARIABLE_MARK`]), so that a pin that accepts variables alone
/// is known to accept no hook.
pub(super) fn variable_digest(text: &str) -> String {
    format!("{VARIABLE_MARK}{}", digest(text))
}

/// The start of an accepted variable's digest.
const VARIABLE_MARK: &str = "variable:";

/// The plugins `settings` (the file `file`) enables, each as one hook that may rewrite a
/// call ([`plugins`]): its digest over the file, the plugin's name and its files.
fn plugin_hooks(agent: AgentKind, file: &Path, settings: &serde_json::Value) -> Vec<OtherHook> {
    let declaration = agent.declaration();
    let Some(rewriting) = declaration.rewriting_hooks else {
        return Vec::new();
    };
    let Some(plugins) = rewriting.plugins else {
        return Vec::new();
    };
    let ids = plugins::enabled(plugins, settings);
    if ids.is_empty() {
        return Vec::new();
    }
    let agent_folder = declaration
        .settings
        .home_variable
        .and_then(std::env::var_os)
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|home| home.join(declaration.settings.home_folder)));
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| crate::paths::lexical(file));
    ids.into_iter()
        .map(|id| {
            let state = plugins::state(
                plugins,
                &id,
                settings,
                (file, agent_folder.as_deref()),
                frontmatter_bounds(rewriting),
            );
            OtherHook {
                file: file.to_path_buf(),
                event: first_event(rewriting),
                what: format!("the plugin {id} it enables"),
                digest: digest(&format!("{}\nplugin\n{state}", real.display())),
                project: None,
                variable: None,
            }
        })
        .collect()
}

/// The folders a hook's relative and `~` paths are read from.
struct ScriptsFolders {
    /// The project the hook's file belongs to, else the call's folder.
    project: Option<PathBuf>,
    home: Option<PathBuf>,
    /// `project` is the call's: the file belongs to none (the user's settings).
    of_the_call: bool,
    /// For a call's folder, the git repository's root above it, when another: an agent
    /// may run a user's hook there (Copilot CLI 1.0.102 did, for a session in a
    /// subfolder).
    root: Option<PathBuf>,
}

impl ScriptsFolders {
    /// The folders for the hooks of `file` (whose links lead to `real`): the project it
    /// belongs to, else `call_project`, and the home.
    fn of(
        agent: AgentKind,
        file: &Path,
        real: &Path,
        call_project: Option<&Path>,
    ) -> ScriptsFolders {
        let home = std::env::home_dir().map(|h| std::fs::canonicalize(&h).unwrap_or(h));
        let canonical = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
        // As spelled first: a linked `.claude` folder leads elsewhere. The user's own
        // settings belong to no project (`~/.claude/settings.json` is spelled as a
        // project's would be).
        let own = project_of(agent, file)
            .map(canonical)
            .or_else(|| project_of(agent, real))
            .filter(|p| Some(p) != home.as_ref());
        let of_the_call = own.is_none();
        let project = own.or_else(|| {
            call_project
                .map(|p| canonical(p.to_path_buf()))
                .filter(|p| Some(p) != home.as_ref())
        });
        let of_the_call = of_the_call && project.is_some();
        let root = project
            .as_deref()
            .filter(|_| of_the_call)
            .and_then(|folder| hook_files::project_folders(folder).pop())
            .filter(|root| Some(root) != project.as_ref());
        ScriptsFolders {
            of_the_call,
            project,
            home,
            root,
        }
    }

    /// The state of the files `words` name ([`hook_scripts::named_files`], a relative path
    /// from the handler's `cwd` too), from the project and, for a call's, from the
    /// repository's root as well. Of a call's folders, only the files there are counted:
    /// a word that names none there (`sed s/a/b/`, a URL) does not tie a user's hook to
    /// one project, while a script the agent writes there, where the hook would run it,
    /// is a change.
    fn named(&self, words: &[&str], cwd: Option<&str>) -> String {
        let home = self.home.as_deref();
        let mut named = hook_scripts::named_files(words, cwd, self.project.as_deref(), home);
        if let Some(root) = &self.root {
            named.push_str(&hook_scripts::named_files(words, cwd, Some(root), home));
        }
        if !self.of_the_call {
            return named;
        }
        let call_folders: Vec<&PathBuf> = self.project.iter().chain(&self.root).collect();
        named
            .lines()
            .filter(|line| {
                !(line.ends_with("=absent")
                    && call_folders.iter().any(|f| Path::new(line).starts_with(f)))
            })
            .map(|line| format!("{line}\n"))
            .collect()
    }

    /// The call's folder, when `scripts` (a hook's named files, [`ScriptsFolders::named`])
    /// hold some of its files or its repository's: the hook is then that folder's to
    /// accept.
    fn call_project_named(&self, scripts: &str) -> Option<PathBuf> {
        let project = self.project.as_ref().filter(|_| self.of_the_call)?;
        let mut folders = std::iter::once(project).chain(&self.root);
        folders
            .any(|folder| {
                scripts
                    .lines()
                    .any(|line| Path::new(line).starts_with(folder))
            })
            .then(|| project.clone())
    }
}

/// The hook a Markdown file's frontmatter may declare (Claude Code's skills, commands and
/// subagents; [`frontmatter`]): the file as one hook, its digest over its frontmatter and
/// the files its commands name and, for a skill, the files of its folder. `None` when its
/// frontmatter cannot declare one of `events`; an error for one spelled in ways hookhost
/// does not read ([`frontmatter::unplain`]), which may hide what its hooks run: such a
/// file refuses the call, and `install` cannot accept it.
fn frontmatter_hook(
    agent: AgentKind,
    file: &Path,
    text: &str,
    events: &[&str],
    call_project: Option<&Path>,
) -> Result<Option<OtherHook>, String> {
    let rewriting = agent.declaration().rewriting_hooks;
    let Some(front) = frontmatter::of(text, rewriting.map_or(DEFAULT_BOUNDS, frontmatter_bounds))
    else {
        return Ok(None);
    };
    let front = &*front;
    if !frontmatter::may_declare(front, events) {
        return Ok(None);
    }
    if let Some(spelling) = frontmatter::unplain(front) {
        return Err(format!(
            "its frontmatter may declare hooks and holds {spelling}, which hookhost does not read (it could spell a hook or the script a hook runs); write its keys and its hooks' commands plainly"
        ));
    }
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| crate::paths::lexical(file));
    let folders = ScriptsFolders::of(agent, file, &real, call_project);
    // A skill's hooks run with its folder in a variable (the agent's `skill_folder`).
    let skill_folder = rewriting
        .and_then(|r| r.frontmatter)
        .map_or(&[][..], |f| f.skill_folder);
    let folder = file
        .parent()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    let is_skill = file.file_name().is_some_and(|name| name == "SKILL.md");
    let keys = rewriting
        .and_then(|r| r.frontmatter)
        .map_or(&["command"][..], |f| f.command_keys);
    let commands: Vec<String> = frontmatter::commands(front, keys)
        .into_iter()
        .map(|command| match is_skill {
            true => skill_folder.iter().fold(command, |command, variable| {
                command
                    .replace(&format!("${{{variable}}}"), &folder)
                    .replace(&format!("${variable}"), &folder)
            }),
            false => command,
        })
        .collect();
    // The files of a skill's folder, by their content, and the rest by their metadata.
    let (skill_files, mut skill_state) = frontmatter::skill_files(file);
    for skill_file in skill_files {
        let state = hook_scripts::state(&skill_file);
        skill_state.push_str(&format!("{} {state}\n", skill_file.display()));
    }
    let words: Vec<&str> = commands.iter().map(String::as_str).collect();
    // Its handlers may run in a folder of their own (Copilot CLI's `cwd`, seen honoured
    // in a custom agent's): the paths are read from each as well.
    let cwds = frontmatter::commands(front, &["cwd"]);
    let scripts: String = std::iter::once(None)
        .chain(cwds.iter().map(|cwd| Some(cwd.as_str())))
        .map(|cwd| folders.named(&words, cwd))
        .collect();
    let lower = front.to_ascii_lowercase();
    let Some(event) = events
        .iter()
        .find(|e| lower.contains(&e.to_ascii_lowercase()))
        .or(events.first())
    else {
        return Ok(None);
    };
    Ok(Some(OtherHook {
        file: file.to_path_buf(),
        event: (*event).to_string(),
        what: commands
            .first()
            .cloned()
            .unwrap_or_else(|| "the `hooks` of its frontmatter".to_string()),
        digest: digest(&format!(
            "{}\nfrontmatter\n{front}\n{scripts}\n{skill_state}",
            real.display()
        )),
        project: folders.call_project_named(&scripts),
        variable: None,
    }))
}

/// The hook a program the agent runs in its own process may be (the entry file of a
/// folder of [`crate::bridge::HookFiles::UserPrograms`] or `ProjectPrograms`: Copilot
/// CLI's `extension.mjs`), whatever it holds: hookhost reads no program. Its digest is
/// over the files of its folder (by content, then by change time, as a skill's). `None`
/// for another file.
fn program_hook(file: &Path, rewriting: &RewritingHooks) -> Option<OtherHook> {
    let folder = file.parent()?;
    let is_entry = rewriting.more_files.iter().any(|source| match source {
        crate::bridge::HookFiles::UserPrograms(within, entries)
        | crate::bridge::HookFiles::ProjectPrograms(within, entries)
        | crate::bridge::HookFiles::UserSessionPrograms(_, within, entries) => {
            file.file_name()
                .is_some_and(|name| entries.iter().any(|entry| name == *entry))
                && folder.parent().is_some_and(|f| f.ends_with(within))
        }
        _ => false,
    });
    if !is_entry {
        return None;
    }
    // Its code, not what it writes beside it (a log, its state): an accepted extension
    // that wrote a log into its folder was refused at its next call.
    let (files, mut state) = frontmatter::folder_files(folder, &|path| !is_code(path));
    for each in files {
        state.push_str(&format!(
            "{} {}\n",
            each.display(),
            hook_scripts::state(&each)
        ));
    }
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| crate::paths::lexical(file));
    Some(OtherHook {
        file: file.to_path_buf(),
        event: first_event(rewriting),
        what: format!(
            "the program of {}, which may answer any call",
            folder.display()
        ),
        digest: digest(&format!("{}\nprogram\n{state}", real.display())),
        project: None,
        variable: None,
    })
}

/// The project of a call of `agent` from `cwd`, whose files a user's hook may run: the
/// root the agent states for its hooks (`CLAUDE_PROJECT_DIR`, absolute), else `cwd`, as
/// `install` run there takes it.
pub(super) fn call_project(agent: AgentKind, env: &Environment, cwd: &Path) -> PathBuf {
    agent.stated_root(env).unwrap_or_else(|| cwd.to_path_buf())
}

/// Whether `file` may be code a program loads (JavaScript and TypeScript, JSON, a native
/// module, WebAssembly, a script): what a program's digest covers.
fn is_code(file: &Path) -> bool {
    const CODE: &[&str] = &[
        "mjs", "cjs", "js", "jsx", "mts", "cts", "ts", "tsx", "json", "node", "wasm", "sh", "py",
    ];
    file.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| CODE.iter().any(|code| e.eq_ignore_ascii_case(code)))
}

/// Where a frontmatter is read from when an agent's declaration says nothing: Claude Code's
/// bounds, which end it soonest of those hookhost knows.
const DEFAULT_BOUNDS: FrontmatterBounds = FrontmatterBounds::ToNextDashes;

/// The bounds of the frontmatter of `rewriting`'s agent's Markdown files.
fn frontmatter_bounds(rewriting: &RewritingHooks) -> FrontmatterBounds {
    rewriting.frontmatter.map_or(DEFAULT_BOUNDS, |f| f.bounds)
}

/// The project folder a settings or hook file of `agent` belongs to, by its place: the
/// folder holding `.claude/settings.json`, `.github/hooks/x.json` and the like (the
/// agent's project files); `None` for a file in no such place.
fn project_of(agent: AgentKind, file: &Path) -> Option<PathBuf> {
    let declaration = agent.declaration();
    let more = declaration
        .rewriting_hooks
        .map_or(&[][..], |r| r.more_files);
    let names = declaration
        .merged_project_settings
        .iter()
        .copied()
        .chain(declaration.settings.project_file)
        .chain(more.iter().filter_map(|source| match source {
            crate::bridge::HookFiles::Project(name) => Some(*name),
            _ => None,
        }));
    let folders = more.iter().filter_map(|source| match source {
        crate::bridge::HookFiles::ProjectFolder(name)
        | crate::bridge::HookFiles::ProjectMarkdown(name, _) => Some(*name),
        _ => None,
    });
    // An extension's hook files: its folder is what `${extensionPath}` names.
    let extension_files = more.iter().flat_map(|source| match source {
        crate::bridge::HookFiles::UserExtensions(extensions) => extensions.hook_files,
        _ => &[][..],
    });
    let above = |path: &Path, name: &str| {
        path.ends_with(name)
            .then(|| path.ancestors().nth(Path::new(name).components().count()))
            .flatten()
            .map(Path::to_path_buf)
    };
    names
        .chain(extension_files.copied())
        .filter_map(|name| above(file, name))
        // A folder of hook files, and the folders in it (Copilot CLI's `.github/hooks/sub/`).
        .chain(folders.filter_map(|name| {
            file.ancestors()
                .skip(1)
                .find_map(|folder| above(folder, name))
        }))
        .next()
}

/// The hooks `install` accepts: the other hooks of `after` (the file it writes, `file`,
/// for `registration`), of the user's settings file, of the project settings files the
/// agent reads from `places`' project, and of the agent's other hook files
/// (Codex's `hooks.json`, Copilot CLI's hook files). Empty for an agent without such hooks.
pub fn found_at_install(
    agent: AgentKind,
    file: &Path,
    after: &str,
    registration: &super::super::Registration,
    places: &super::super::Places,
) -> Vec<OtherHook> {
    if agent.declaration().rewriting_hooks.is_none() {
        return Vec::new();
    }
    let ours = [Ours::of(registration)];
    let project = Some(places.project.as_path()).filter(|p| !p.as_os_str().is_empty());
    let mut found = other_hooks(agent, file, after, &ours, project).unwrap_or_default();
    let mut others = Vec::new();
    let project = Some(places.project.as_path()).filter(|p| !p.as_os_str().is_empty());
    if let Some(project) = project {
        others = read_project_files(agent, project, |_| None);
    }
    if let Some(user) = agent.declaration().settings.file(Scope::User, places)
        && let Some(bytes) = switch_offs::read_settings(&user, |_| true)
    {
        others.push(ProjectFile {
            file: user,
            bytes,
            merged: true,
            registration: false,
        });
    }
    others.extend(
        hook_files::read(agent, Some(places), project, None)
            .into_iter()
            .map(|f| f.read),
    );
    // And those of the project's subfolders (a team's skill in `web/.claude/skills/`).
    // The `.env` files the agent loads from where `install` runs.
    let here = project
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok());
    if let Some(here) = &here {
        // The home and the agents' moved folders `install` was given, as the agent finds
        // its `.env` files from them.
        let mut vars = vec![("HOME".into(), places.home.clone().into_os_string())];
        vars.extend(
            places
                .agent_homes
                .iter()
                .map(|(name, folder)| ((*name).into(), folder.clone().into_os_string())),
        );
        let env = Environment::from_vars(vars);
        let files = super::hook_environment::loaded_env_files(agent, &env, here);
        found.extend(super::hook_environment::steering_in_env_files(
            agent, &files, here,
        ));
    }
    let nested = agent.declaration().rewriting_hooks.and_then(|r| r.nested);
    if let (Some(nested), Some(project)) = (nested, project)
        && let Ok(files) = hook_files::read_nested(agent, nested, project)
    {
        others.extend(files.into_iter().map(|f| f.read));
    }
    let mut seen: Vec<PathBuf> = vec![file.to_path_buf()];
    for settings in others {
        if let (true, Ok(bytes)) = (settings.merged, &settings.bytes)
            && !seen.iter().any(|s| same_path(s, &settings.file))
        {
            let text = String::from_utf8_lossy(bytes);
            let hooks = other_hooks(agent, &settings.file, &text, &ours, project);
            found.extend(hooks.unwrap_or_default());
            seen.push(settings.file);
        }
    }
    found
}

/// The digests of `found`, sorted, each once: what a pin accepts (`install` adds those an
/// earlier pin accepted, in another project). `None` for an agent without such hooks.
pub(super) fn accepted(agent: AgentKind, found: &[OtherHook]) -> Option<Vec<String>> {
    agent.declaration().rewriting_hooks?;
    let mut accepted: Vec<String> = found.iter().map(|h| h.digest.clone()).collect();
    accepted.sort();
    accepted.dedup();
    Some(accepted)
}

/// hookhost's handlers, as `install` wrote them for `pins` (each for its own agent: a
/// registration of hookhost for another agent, in a file this one reads too, answers in
/// that agent's form and rewrites nothing).
pub(super) fn our_handlers(pins: &[&Pin]) -> Vec<Ours> {
    pins.iter()
        .filter_map(|pin| {
            let agent = AgentKind::from_flag(&pin.agent)?;
            super::super::Registration::new(agent, &pin.hookhost, &pin.options()).ok()
        })
        .map(|registration| Ours::of(&registration))
        .collect()
}

/// The first hook of `text` (the agent's settings file `file`) that may rewrite a call
/// and that none of `pins` accepted (a pin made before hookhost looked for them accepted
/// none).
pub(super) fn unaccepted(
    agent: AgentKind,
    file: &Path,
    text: &str,
    pins: &[&Pin],
    project: Option<&Path>,
) -> Option<OtherHook> {
    unaccepted_besides(agent, file, text, pins, (&our_handlers(pins), project))
}

/// [`unaccepted`], with `ours` the handlers that are hookhost's.
fn unaccepted_besides(
    agent: AgentKind,
    file: &Path,
    text: &str,
    pins: &[&Pin],
    (ours, project): (&[Ours], Option<&Path>),
) -> Option<OtherHook> {
    first_unaccepted(other_hooks(agent, file, text, ours, project).ok()?, pins)
}

/// The first of `hooks` that none of `pins` accepted.
fn first_unaccepted(hooks: Vec<OtherHook>, pins: &[&Pin]) -> Option<OtherHook> {
    hooks.into_iter().find(|hook| {
        // Each pin's list is sorted: a lookup is a few comparisons however many there are.
        !pins
            .iter()
            .filter_map(|pin| pin.accepted_hooks.as_ref())
            .any(|accepted| accepted.binary_search(&hook.digest).is_ok())
    })
}

/// A refusal per hook file among `files` (the agent's files of hooks beside its settings,
/// [`hook_files`]) that holds a hook that may rewrite a call and that none of `pins`
/// accepted, or that hookhost cannot read: no switch-off check reads these files, so a
/// file hookhost cannot read refuses here. A file one of `pins` pins is checked through
/// its drift instead.
fn in_hook_files(
    agent: AgentKind,
    files: &[hook_files::HookFile],
    pins: &[&Pin],
    (ours, project): (&[Ours], Option<&Path>),
    accept_here: Option<&str>,
) -> Vec<String> {
    // The pinned files by identity, looked up once: a file's path resolved for each of
    // dozens of hook files cost hundreds of system calls a call.
    let pinned: Vec<(u64, u64)> = pins
        .iter()
        .filter_map(|p| std::fs::metadata(&p.file).ok())
        .filter_map(|meta| crate::platform::sys::ownership::identity_in(&meta))
        .map(|id| (id.dev, id.ino))
        .collect();
    let is_pinned = |f: &hook_files::HookFile| match f.identity {
        Some(identity) => pinned.contains(&identity),
        None => pins.iter().any(|p| same_path(&p.file, &f.read.file)),
    };
    files
        .iter()
        .filter(|f| !is_pinned(f))
        .filter_map(|f| {
            let file = &f.read.file;
            let hooks = f
                .read
                .bytes
                .as_ref()
                .map_err(String::clone)
                .and_then(|bytes| {
                    other_hooks(agent, file, &String::from_utf8_lossy(bytes), ours, project)
                });
            match hooks {
                Ok(hooks) => first_unaccepted(hooks, pins)
                    .map(|hook| refusal(agent, file, &hook, accept_here.unwrap_or(&f.accept_in))),
                Err(why) if f.folder => Some(unreadable_folder(agent, file, &why)),
                Err(why) => Some(unreadable(agent, file, &why)),
            }
        })
        .collect()
}

/// The refusal for a hook file hookhost cannot read.
fn unreadable(agent: AgentKind, file: &Path, why: &str) -> String {
    format!(
        "hookhost cannot read {}, a file {} reads hooks from: {why}. A hook there could rewrite a call after hookhost allowed it, which hookhost could not see, so hookhost blocks this agent's calls. Mend the file, or remove it if you did not put it there.",
        file.display(),
        agent.display_name(),
    )
}

/// The refusal for a folder of hook files hookhost could not read whole.
fn unreadable_folder(agent: AgentKind, folder: &Path, why: &str) -> String {
    format!(
        "hookhost cannot read all of {}, a folder {} reads hook files from: {why}. A hook in one of them could rewrite a call after hookhost allowed it, which hookhost could not see, so hookhost blocks this agent's calls. Remove the files there you did not put there (hookhost's own is hookhost.json).",
        folder.display(),
        agent.display_name(),
    )
}

/// The refusal for `hook` in `file`, which `install` run in `accept_in` would accept.
pub(super) fn refusal(agent: AgentKind, file: &Path, hook: &OtherHook, accept_in: &str) -> String {
    // A user's hook that runs a project's files is accepted in that project.
    let in_project = hook.project.as_ref().map(|p| format!("in {}", p.display()));
    let accept_in = in_project.as_deref().unwrap_or(accept_in);
    if let Some(name) = &hook.variable {
        return format!(
            "{} sets {name} for {}'s hooks ({}), which hookhost's `install` did not see: it chooses the programs the agent's other hooks run, or the code they load, so it could make one of them rewrite a call after hookhost allowed it, and hookhost blocks this agent's calls while it is there. Remove it (set it in the shell that starts {} instead); if you trust it, run `hookhost install {}` {accept_in} to accept it.",
            file.display(),
            agent.display_name(),
            crate::escape::for_terminal(&hook.what),
            agent.display_name(),
            agent.flag_name()
        );
    }
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

/// A refusal per settings file among `files` (those `agent` merges, read for a call from
/// its project, and the user's own) holding a hook that may rewrite a call and that none
/// of `pins` (the pins covering the call) accepted. A file one of `pins` pins is checked
/// through its drift instead.
pub(super) fn in_files(
    agent: AgentKind,
    files: &[ProjectFile],
    pins: &[&Pin],
    project: Option<&Path>,
) -> Vec<String> {
    in_files_besides(agent, files, pins, (&our_handlers(pins), project), None)
}

/// [`in_files`], with `ours` the handlers that are hookhost's.
fn in_files_besides(
    agent: AgentKind,
    files: &[ProjectFile],
    pins: &[&Pin],
    judged: (&[Ours], Option<&Path>),
    accept_here: Option<&str>,
) -> Vec<String> {
    // Without a pin, hookhost's own handler cannot be told from another (the pins removed
    // is refused as such).
    if agent.declaration().rewriting_hooks.is_none() || pins.is_empty() {
        return Vec::new();
    }
    files
        .iter()
        .filter(|f| f.merged && !pins.iter().any(|p| same_path(&p.file, &f.file)))
        .filter_map(|f| {
            let bytes = f.bytes.as_ref().ok()?;
            let text = String::from_utf8_lossy(bytes);
            let hook = unaccepted_besides(agent, &f.file, &text, pins, judged)?;
            let accept_in = accept_here.map_or_else(|| accept_in(agent, &f.file), str::to_string);
            Some(refusal(agent, &f.file, &hook, &accept_in))
        })
        .collect()
}

/// Where `install` accepts the hooks of `file`: in the project whose settings folder holds
/// it, or anywhere for the user's own.
fn accept_in(agent: AgentKind, file: &Path) -> String {
    let settings_folder = agent
        .declaration()
        .settings
        .project_file
        .and_then(|p| Path::new(p).parent())
        .filter(|p| !p.as_os_str().is_empty());
    match (settings_folder, file.parent()) {
        (Some(name), Some(folder)) if folder.ends_with(name) => folder
            .ancestors()
            .nth(name.components().count())
            .map_or_else(|| "again".to_string(), |p| format!("in {}", p.display())),
        _ => "again".to_string(),
    }
}

/// The user's settings file of `agent` as a call from `cwd` finds it, read, when it is
/// there and none of `pins` (those covering the call) pins it: checked beside the
/// project's for a project's registration alone. The common call, whose user file is
/// pinned, reads nothing more.
pub(super) fn user_file(
    env: &Environment,
    agent: AgentKind,
    cwd: &Path,
    pins: &[&Pin],
) -> Option<ProjectFile> {
    let user = places(env, cwd)?;
    let file = agent.declaration().settings.file(Scope::User, &user)?;
    if pins.iter().any(|p| same_path(&p.file, &file)) {
        return None;
    }
    let bytes = switch_offs::read_settings(&file, |_| true)?;
    Some(ProjectFile {
        file,
        bytes,
        merged: true,
        registration: false,
    })
}

/// The refusals for the settings files `agent` reads for a call (or `doctor`) from `cwd`
/// that hold a hook that may rewrite a call which no pin accepted, reading the files and
/// the pins itself, as a call judges them.
pub fn unaccepted_project_hooks(env: &Environment, agent: AgentKind, cwd: &Path) -> Vec<String> {
    if agent.declaration().rewriting_hooks.is_none() {
        return Vec::new();
    }
    let Ok(pins) = load_for_call(env) else {
        return Vec::new();
    };
    let files = read_project_files(agent, cwd, |_| None);
    // `doctor` looks through the subfolders too, as a call that runs them does.
    let tool = agent
        .declaration()
        .rewriting_hooks
        .and_then(|r| r.nested)
        .and_then(|n| n.tools.first().copied());
    let mut found = in_call_files(env, agent, cwd, (tool, None), &files, &pins);
    let env_files = super::hook_environment::loaded_env_files(agent, env, cwd);
    found.extend(in_env_files(agent, env, cwd, &env_files, &pins));
    found
}

/// The refusals for a call of `agent` from `cwd`: the project's settings `files` (read
/// for the call), and the user's when no covering pin pins it (a project's registration
/// alone), judged by the pins covering the call. A call from outside a project
/// registered alone (Claude Code's `--add-dir`, then `cd`) has none: the agent's pins all
/// say what was accepted and what hookhost's handler is. With no pin at all, nothing was
/// accepted and hookhost's own handler cannot be told: that is refused as the pins
/// removed.
/// The variables of the `.env` files `agent` loads (`files`, read from `cwd`) that choose
/// what its hooks run and that no pin judging the call accepted
/// ([`hook_environment::steering_in_env_files`]), one refusal each. Only while those pins
/// accept some hook besides hookhost's: without one, any other hook refuses the call
/// already, and hookhost's own hooks get no such variable ([`crate::hook_env`]), so a
/// project's `PYTHONPATH=src` costs nothing.
pub(super) fn in_env_files(
    agent: AgentKind,
    env: &Environment,
    cwd: &Path,
    files: &[ProjectFile],
    pins: &[Pin],
) -> Vec<String> {
    if files.is_empty() || agent.declaration().rewriting_hooks.is_none() {
        return Vec::new();
    }
    let judging = judging_pins(agent, cwd, pins);
    let accepts_some = judging.iter().any(|p| {
        p.accepted_hooks
            .iter()
            .flatten()
            .any(|digest| !digest.starts_with(VARIABLE_MARK))
    });
    if !accepts_some {
        return Vec::new();
    }
    let project = call_project(agent, env, cwd);
    super::hook_environment::steering_in_env_files(agent, files, &project)
        .into_iter()
        .filter_map(|variable| first_unaccepted(vec![variable], &judging))
        .map(|variable| refusal(agent, &variable.file, &variable, "again"))
        .collect()
}

/// The pins that judge a call of `agent` from `cwd`: those covering it, else all of the
/// agent's (a user's file holds hooks whatever the folder).
fn judging_pins<'p>(agent: AgentKind, cwd: &Path, pins: &'p [Pin]) -> Vec<&'p Pin> {
    let agents_pins: Vec<&Pin> = pins
        .iter()
        .filter(|p| p.agent == agent.flag_name())
        .collect();
    let covering: Vec<&Pin> = agents_pins
        .iter()
        .copied()
        .filter(|p| p.covers(Some(cwd)))
        .collect();
    if covering.is_empty() {
        agents_pins
    } else {
        covering
    }
}

pub(super) fn in_call_files(
    env: &Environment,
    agent: AgentKind,
    cwd: &Path,
    (tool, session): (Option<&str>, Option<&str>),
    files: &[ProjectFile],
    pins: &[Pin],
) -> Vec<String> {
    if agent.declaration().rewriting_hooks.is_none() {
        return Vec::new();
    }
    let judging = judging_pins(agent, cwd, pins);
    // hookhost's handlers: this agent's registrations and the others' (a project's Claude
    // Code registration in `.claude/settings.json`, which Copilot CLI reads too).
    let handlers = our_handlers(&pins.iter().collect::<Vec<_>>());
    let project = call_project(agent, env, cwd);
    let judged = (&handlers[..], Some(project.as_path()));
    // With a project's registration alone, `install --scope project` in that project
    // accepts them (it reads the user's files too).
    let accept_here = match judging.iter().all(|p| p.project.is_some()) {
        true => judging
            .first()
            .and_then(|p| p.project.as_ref())
            .map(|project| format!("--scope project in {}", project.display())),
        false => None,
    };
    let accept_here = accept_here.as_deref();
    let mut found = in_files_besides(agent, files, &judging, judged, accept_here);
    if let Some(user) = user_file(env, agent, cwd, &judging)
        && !files.iter().any(|f| same_path(&f.file, &user.file))
    {
        found.extend(in_files_besides(
            agent,
            &[user],
            &judging,
            judged,
            accept_here,
        ));
    }
    if !judging.is_empty() {
        let hook_files = hook_files::read(agent, places(env, cwd).as_ref(), Some(cwd), session);
        found.extend(in_hook_files(
            agent,
            &hook_files,
            &judging,
            judged,
            accept_here,
        ));
        // A call that runs what the agent loads from the project's subfolders (Claude
        // Code's `Skill`): those too.
        let nested = agent.declaration().rewriting_hooks.and_then(|r| r.nested);
        if let Some(nested) = nested.filter(|n| tool.is_some_and(|t| n.tools.contains(&t))) {
            match hook_files::read_nested(agent, nested, cwd) {
                Ok(files) => {
                    found.extend(in_hook_files(agent, &files, &judging, judged, accept_here))
                }
                Err(refusal) => found.push(refusal),
            }
        }
    }
    found
}
