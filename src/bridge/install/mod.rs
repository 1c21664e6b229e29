//! `hookhost install <agent>` and `hookhost uninstall <agent>`: writing (and removing) the
//! registration of `hookhost bridge --agent <name>` in the agent's own settings file.
//!
//! The core is pure: [`plan`] takes a [`Request`] and the settings file's current text and
//! returns a [`Change`] (the new text, a summary and a diff for `--dry-run`, and whether
//! anything changes). [`apply`] writes a change: atomically (a temporary file beside the
//! settings file, then a rename), keeping the file's mode, after a backup of the old file
//! beside it (see [`apply`] for its name), and only when the text changes. [`run`] is the
//! two together, which the command line calls.
//!
//! Rules every agent's file follows here:
//! - merged into what is there: no other key is lost (`serde_json` keeps key order) and no
//!   comment either (Codex's TOML goes through `toml_edit`); a JSON file with comments is
//!   refused, since rewriting it would drop them;
//! - idempotent: a second run finds the registration as it should be and writes nothing;
//! - hookhost's own handler (a command whose program is named `hookhost`, or is the running
//!   binary, with `bridge` as its first argument) is updated in place when its path, timeout
//!   or failure setting differs, never duplicated; duplicates are folded into one;
//! - uninstall removes only hookhost's handlers, and the groups, event lists and `hooks`
//!   table that removing them left empty (a file left holding nothing is removed);
//! - a file that does not parse is left untouched, with an error naming it and the line.
//!
//! What is written per agent (file, events, timeout and its unit, fail-closed setting) is
//! in the agent's [`Declaration`](crate::bridge::Declaration), in its own file beside its
//! protocol (`bridge/claude_code.rs`, …). Each sets the agent's timeout a margin ([`TIMEOUT_MARGIN_MS`]) above the
//! bridge's budget, so that the bridge answers (fail-closed) before the agent gives up and
//! lets the call through.

pub mod codex_review;
pub mod codex_trust;
pub mod pin;
pub mod system;

mod diff;
mod error;
mod file;
mod flat_toml;
mod groups;
mod json;
mod shell;
mod toml;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use error::InstallError;
pub use file::{Applied, apply, read_existing};

/// How far above the bridge's budget the agent's timeout is set: the time the bridge needs,
/// once the budget is spent, to stop the hooks and print its answer.
pub const TIMEOUT_MARGIN_MS: u64 = 5_000;

use crate::bridge::{AgentKind, FailClosedSetting, Settings, Shape};

impl AgentKind {
    /// The bridge's default time budget for one call from this agent, in milliseconds
    /// ([`crate::bridge::Declaration::default_budget_ms`]).
    pub fn default_budget_ms(self) -> u64 {
        self.declaration().default_budget_ms
    }

    /// What this agent does with a call when hookhost itself cannot answer (missing, crashed,
    /// killed by the agent's timeout), as registered by `install` with `options`.
    pub fn when_hookhost_cannot_answer(self, options: &Options) -> &'static str {
        let declared = self.declaration();
        match declared.fail_closed {
            FailClosedSetting::WhenAsked {
                when_hookhost_cannot_answer,
                ..
            } if options.claude_on_failure_block => when_hookhost_cannot_answer,
            _ => declared.when_hookhost_cannot_answer,
        }
    }

    /// The fail-closed setting `install` writes with `options`, if any.
    fn fail_closed(self, options: &Options) -> Option<FailClosed> {
        match self.declaration().fail_closed {
            FailClosedSetting::None => None,
            FailClosedSetting::Always(setting) => Some(setting),
            FailClosedSetting::WhenAsked { setting, .. } => {
                options.claude_on_failure_block.then_some(setting)
            }
        }
    }
}

impl FromStr for AgentKind {
    type Err = InstallError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        AgentKind::from_flag(name).ok_or_else(|| InstallError::UnknownAgent(name.to_string()))
    }
}

/// Whose settings file: the user's (in the home folder), the project's, or the
/// administrator's (docs/system-scope.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Scope {
    /// The agent's settings in the user's home (the default).
    #[default]
    User,
    /// The project's settings (checked in, or local to the checkout).
    Project,
    /// The agent's administrator-managed settings, which its users cannot write
    /// ([`system::SystemScope`]); only an administrator installs there.
    System,
}

impl Scope {
    /// `user`, `project` or `system`.
    pub fn name(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::System => "system",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scope {
    type Err = InstallError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "user" => Ok(Scope::User),
            "project" => Ok(Scope::Project),
            "system" => Ok(Scope::System),
            other => Err(InstallError::UnknownScope(other.to_string())),
        }
    }
}

/// Install or uninstall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Write (or update) hookhost's registration.
    Install,
    /// Remove hookhost's registration.
    Uninstall,
}

/// The folders the settings files are found from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    /// The user's home folder (`$HOME`).
    pub home: PathBuf,
    /// The project's root folder (for `--scope project`).
    pub project: PathBuf,
    /// The agents' own folders moved by their variable (`$CODEX_HOME`, `$COPILOT_HOME`,
    /// `$KIMI_CODE_HOME`: [`crate::bridge::Settings::home_variable`]), by variable name.
    agent_homes: Vec<(&'static str, PathBuf)>,
    /// A folder standing for the file system's root, under which the system-scope files
    /// are found (tests); `None`: the real root.
    system_root: Option<PathBuf>,
}

impl Places {
    /// The places for `home` and `project`, with no agent's folder moved.
    pub fn new(home: impl Into<PathBuf>, project: impl Into<PathBuf>) -> Self {
        Places {
            home: home.into(),
            project: project.into(),
            agent_homes: Vec::new(),
            system_root: None,
        }
    }

    /// These places with the system-scope files found under `root` instead of `/` (a
    /// test's folder standing for the file system's root).
    pub fn with_system_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.system_root = Some(root.into());
        self
    }

    /// The system-scope file at `file` (an absolute path), under the root these places
    /// stand for.
    pub fn system_file(&self, file: &str) -> PathBuf {
        system::under_root(self.system_root.as_deref(), file)
    }

    /// The places for `home` and `project`, with each agent's folder moved where `lookup`
    /// (the environment) names one; an empty value counts as unset.
    pub fn from_environment(
        home: impl Into<PathBuf>,
        project: impl Into<PathBuf>,
        lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Self {
        let mut places = Places::new(home, project);
        for agent in AgentKind::ALL {
            if let Some(variable) = agent.declaration().settings.home_variable
                && let Some(value) = lookup(variable).filter(|v| !v.is_empty())
            {
                places.set_agent_home(variable, value);
            }
        }
        places
    }

    /// Moves the agent folder that `variable` names to `folder`.
    pub fn set_agent_home(&mut self, variable: &'static str, folder: impl Into<PathBuf>) {
        self.agent_homes.retain(|(v, _)| *v != variable);
        self.agent_homes.push((variable, folder.into()));
    }

    /// The folder `variable` moved an agent's folder to, if it did.
    pub fn agent_home(&self, variable: &str) -> Option<&Path> {
        self.agent_homes
            .iter()
            .find(|(v, _)| *v == variable)
            .map(|(_, folder)| folder.as_path())
    }
}

/// Choices beyond agent and scope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The bridge's budget per call, in milliseconds, when not the agent's default
    /// ([`AgentKind::default_budget_ms`]); the registration then passes it to the bridge as
    /// `--budget-ms N` and sets the agent's timeout above it.
    pub budget_ms: Option<u64>,
    /// Write Claude Code's `onFailure: "block"` (fail closed when hookhost crashes or times
    /// out). Off by default: the research found it only in a third party's code (for Claude
    /// Code 2.1.295 and later), not in Claude Code's documentation up to 2.1.240, so it is
    /// unverified; a caller that has detected a Claude Code that supports it turns it on.
    pub claude_on_failure_block: bool,
    /// Register the bridge's system mode (`--system`): set by [`plan`] for
    /// [`Scope::System`], whatever the caller says.
    pub system: bool,
    /// Whether the registered bridge hands its calls to the user's `hookhost warm`, and at
    /// which socket (`--warm` or `--warm-socket SOCKET`). `None`: every call runs in the
    /// bridge's own process, and no server is ever asked (docs/contract.md#the-warm-server).
    /// Not for [`Scope::System`]: the system bridge never hands a call to a user's server.
    pub warm: Option<WarmSocket>,
}

/// The warm server a registered bridge hands its calls to ([`Options::warm`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarmSocket {
    /// The user's default socket (`--warm`; `/run/user/UID/hookhost/warm.sock` on Linux).
    Default,
    /// The socket at this absolute path (`--warm-socket SOCKET`).
    At(PathBuf),
}

impl WarmSocket {
    /// The flag that asks for it, for messages: `--warm` or `--warm-socket`.
    pub fn flag(&self) -> &'static str {
        match self {
            WarmSocket::Default => "--warm",
            WarmSocket::At(_) => crate::warm::SOCKET_FLAG,
        }
    }

    /// The bridge's arguments that ask for it.
    fn args(&self) -> Result<Vec<String>, InstallError> {
        match self {
            WarmSocket::Default => Ok(vec!["--warm".to_string()]),
            WarmSocket::At(socket) if !socket.is_absolute() => {
                Err(InstallError::WarmSocketNotAbsolute(socket.clone()))
            }
            WarmSocket::At(socket) => {
                if let Some(temp) = crate::warm::in_temp_folder(socket) {
                    return Err(InstallError::WarmSocketInTemp {
                        path: socket.clone(),
                        temp,
                    });
                }
                let text = socket
                    .to_str()
                    .ok_or_else(|| InstallError::WarmSocketNotUtf8(socket.clone()))?;
                Ok(vec![crate::warm::SOCKET_FLAG.to_string(), text.to_string()])
            }
        }
    }
}

/// One install or uninstall to plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Install or uninstall.
    pub action: Action,
    /// The agent whose settings are edited.
    pub agent: AgentKind,
    /// The user's or the project's settings.
    pub scope: Scope,
    /// Where the home and project folders are.
    pub places: Places,
    /// The absolute path of the hookhost binary to register (the running one).
    pub hookhost: PathBuf,
    /// Budget and fail-closed choices.
    pub options: Options,
}

/// The unit of an agent's `timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Whole seconds.
    Seconds,
    /// Milliseconds.
    Milliseconds,
}

/// What hookhost registers with one agent: what `install` writes and, later, what a pinned
/// registration is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The agent.
    pub agent: AgentKind,
    /// The events registered, in the agent's spelling.
    pub events: Vec<&'static str>,
    /// The program: the absolute path of the hookhost binary, or of the `hookhost-client`
    /// beside it for a bridge that hands its calls to the warm server.
    pub program: PathBuf,
    /// Its arguments: `bridge --agent <name>` (and `--budget-ms N` for a budget that is not
    /// the default, then `--warm` or `--warm-socket SOCKET` for a bridge that hands its
    /// calls to the user's warm server).
    pub args: Vec<String>,
    /// The program and arguments as one shell command line (quoted where needed), for the
    /// agents whose `command` is run by a shell.
    pub command_line: String,
    /// The bridge's budget per call, in milliseconds.
    pub budget_ms: u64,
    /// The agent's timeout, in `timeout_unit`.
    pub timeout: u64,
    /// The unit of `timeout`.
    pub timeout_unit: TimeUnit,
    /// The fail-closed setting written, if the agent has one and it is written.
    pub fail_closed: Option<FailClosed>,
}

/// An agent's setting that makes it block a call when hookhost itself cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailClosed {
    /// Cursor's `"failClosed": true` (a crash, a timeout or invalid JSON blocks).
    CursorFailClosed,
    /// Claude Code's `"onFailure": "block"` (2.1.295 and later; unverified, see
    /// [`Options::claude_on_failure_block`]).
    ClaudeOnFailureBlock,
}

impl FailClosed {
    /// The handler's key.
    pub fn key(self) -> &'static str {
        match self {
            FailClosed::CursorFailClosed => "failClosed",
            FailClosed::ClaudeOnFailureBlock => "onFailure",
        }
    }

    /// The key's value.
    pub fn value(self) -> serde_json::Value {
        match self {
            FailClosed::CursorFailClosed => serde_json::Value::Bool(true),
            FailClosed::ClaudeOnFailureBlock => serde_json::Value::String("block".into()),
        }
    }
}

impl Registration {
    /// The registration of `hookhost` (an absolute path) with `agent`.
    pub fn new(agent: AgentKind, hookhost: &Path, options: &Options) -> Result<Self, InstallError> {
        if !hookhost.is_absolute() {
            return Err(InstallError::BinaryNotAbsolute(hookhost.to_path_buf()));
        }
        if hookhost.to_str().is_none() {
            return Err(InstallError::BinaryNotUtf8(hookhost.to_path_buf()));
        }
        let budget_ms = options.budget_ms.unwrap_or(agent.default_budget_ms());
        let mut args = vec![
            "bridge".to_string(),
            "--agent".to_string(),
            agent.flag_name().to_string(),
        ];
        if options.system {
            args.push("--system".to_string());
        }
        if options
            .budget_ms
            .is_some_and(|b| b != agent.default_budget_ms())
        {
            args.extend(["--budget-ms".to_string(), budget_ms.to_string()]);
        }
        // A bridge that hands its calls over is `hookhost-client`, beside hookhost: the
        // hand-over without the start of the whole binary (docs/contract.md#the-warm-server).
        let mut registered = hookhost.to_path_buf();
        if let Some(warm) = &options.warm {
            if options.system {
                return Err(InstallError::WarmWithSystem { flag: warm.flag() });
            }
            args.extend(warm.args()?);
            registered = crate::warm::client::client_beside(hookhost);
        }
        let program = registered
            .to_str()
            .ok_or_else(|| InstallError::BinaryNotUtf8(registered.clone()))?;
        // Windows: `C:/…/hookhost.exe`, which every shell reads alike.
        let program = crate::platform::sys::file_system::command_line_program(program);
        let command_line = std::iter::once(program.as_str())
            .chain(args.iter().map(String::as_str))
            .map(shell::quote)
            .collect::<Vec<_>>()
            .join(" ");
        let timeout_unit = agent.declaration().timeout_unit;
        let timeout_ms = budget_ms.saturating_add(TIMEOUT_MARGIN_MS);
        let timeout = match timeout_unit {
            TimeUnit::Seconds => timeout_ms.div_ceil(1000),
            TimeUnit::Milliseconds => timeout_ms,
        };
        let fail_closed = agent.fail_closed(options);
        Ok(Registration {
            agent,
            events: agent
                .declaration()
                .settings
                .events
                .iter()
                .map(|e| e.name)
                .collect(),
            program: registered.clone(),
            args,
            command_line,
            budget_ms,
            timeout,
            timeout_unit,
            fail_closed,
        })
    }

    /// `30 s` or `30000 ms`.
    pub fn timeout_text(&self) -> String {
        match self.timeout_unit {
            TimeUnit::Seconds => format!("{} s", self.timeout),
            TimeUnit::Milliseconds => format!("{} ms", self.timeout),
        }
    }
}

/// The agent's program found on `path` (the `PATH` value), in its absolute entries only:
/// `install` runs it (`--version`) to learn what the agent takes, and a relative entry
/// (`.`, an empty one) would run whatever the project put there (docs/threats.md#n16).
pub fn agent_program(program: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    crate::paths::lookup_on_path(std::ffi::OsStr::new(program), path, None).map(|(_, found)| found)
}

/// One event an agent's registration lists.
#[derive(Debug, Clone, Copy)]
pub struct RegisteredEvent {
    /// The event's name in the agent's spelling.
    pub name: &'static str,
    /// The group's matcher, for agents that group handlers under a matcher (`"*"`: every
    /// tool); `None` for events without one.
    pub matcher: Option<&'static str>,
}

/// The settings file `install` edits for `agent` in `scope`; an error for a scope the
/// agent does not have ([`Settings::project_file`], [`Settings::system`]).
pub fn settings_file(
    agent: AgentKind,
    scope: Scope,
    places: &Places,
) -> Result<PathBuf, InstallError> {
    let settings = &agent.declaration().settings;
    settings
        .file(scope, places)
        .ok_or(match (scope, settings.system) {
            (Scope::System, system::SystemScope::None(reason)) => {
                InstallError::NoSystemScope { agent, reason }
            }
            (Scope::System, system::SystemScope::Managed(_)) => InstallError::NoSystemScope {
                agent,
                reason: system::NOT_ON_THIS_OS,
            },
            _ => InstallError::NoProjectScope(agent),
        })
}

/// What an administrator should know after a system-scope install.
const SYSTEM_NOTE: &str = "The registration runs the bridge's system mode (--system), which \
    reads the system config and hooks; `hookhost doctor`, run as a user, shows what that user \
    could still write to weaken it (docs/system-scope.md).";

/// What a change does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// The registration is added to a file that had none (or did not exist).
    Added,
    /// A registration of hookhost was there but differed (path, timeout, failure setting,
    /// duplicates); it is updated in place.
    Updated,
    /// The registration is there as it should be: nothing to write.
    AlreadyInstalled,
    /// hookhost's registration is removed.
    Removed,
    /// There is no registration of hookhost to remove: nothing to write.
    NotInstalled,
}

/// A planned install or uninstall: the settings file's text before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Install or uninstall.
    pub action: Action,
    /// The user's or the project's settings.
    pub scope: Scope,
    /// The settings file.
    pub file: PathBuf,
    /// Its text now (`None`: it does not exist).
    pub before: Option<String>,
    /// Its text after the change (`None`: the file is removed, since it would hold
    /// nothing but what hookhost put there).
    pub after: Option<String>,
    /// What the change does.
    pub outcome: ChangeKind,
    /// What is (or was) registered.
    pub registration: Registration,
    /// The project, for a project-scope change: no link on the way to its settings file
    /// is followed ([`apply`]).
    pub project: Option<PathBuf>,
}

impl Change {
    /// Whether applying this change writes anything.
    pub fn changes_anything(&self) -> bool {
        self.before != self.after
    }

    /// One line (or two) saying what the change does, for the command line.
    pub fn summary(&self) -> String {
        let file = self.file.display();
        let agent = self.registration.agent.display_name();
        let events = self.registration.events.join(", ");
        let timeout = self.registration.timeout_text();
        let budget = self.registration.budget_ms;
        match self.outcome {
            ChangeKind::Added => format!(
                "hookhost is registered with {agent} ({} scope) in {file}: {events}; \
                 {agent}'s timeout {timeout}, hookhost's budget {budget} ms.",
                self.scope
            ),
            ChangeKind::Updated => format!(
                "hookhost's registration with {agent} ({} scope) in {file} is updated: \
                 {events}; {agent}'s timeout {timeout}, hookhost's budget {budget} ms.",
                self.scope
            ),
            ChangeKind::AlreadyInstalled => {
                format!("hookhost is already installed for {agent} in {file}; nothing to change.")
            }
            ChangeKind::Removed if self.after.is_none() => format!(
                "hookhost's registration is removed from {file}, which held nothing else and is deleted."
            ),
            ChangeKind::Removed => format!("hookhost's registration is removed from {file}."),
            ChangeKind::NotInstalled => {
                format!("hookhost is not installed for {agent} in {file}; nothing to change.")
            }
        }
    }

    /// What `--dry-run` prints: the summary when nothing would change, else a line saying
    /// nothing is written and the diff of the file.
    pub fn preview(&self) -> String {
        if !self.changes_anything() {
            return format!("{}\n", self.summary());
        }
        format!(
            "Dry run: nothing is written. {} would change like this:\n{}",
            self.file.display(),
            self.diff()
        )
    }

    /// What the user should know after this change, one sentence each: what the agent does
    /// when hookhost cannot answer, and the agent's own review of a new hook.
    pub fn notes(&self, options: &Options) -> Vec<&'static str> {
        if self.action == Action::Uninstall {
            return Vec::new();
        }
        let agent = self.registration.agent;
        let declared = agent.declaration();
        let mut notes = vec![agent.when_hookhost_cannot_answer(options)];
        if self.scope == Scope::Project
            && let Some(note) = declared.project_note
        {
            notes.push(note);
        }
        if self.scope == Scope::System {
            // The agent's own review of a new hook (Codex's) is for the hooks its users
            // add; a managed hook is the administrator's (docs/system-scope.md).
            notes.push(SYSTEM_NOTE);
        } else if let Some(note) = declared.install_note.and_then(|note| note(self)) {
            notes.push(note);
        }
        notes
    }

    /// The change as a unified diff of the file (empty when nothing changes).
    pub fn diff(&self) -> String {
        diff::unified(&self.file, self.before.as_deref(), self.after.as_deref(), 3)
    }
}

/// Plans `request` against the settings file's current text (`None`: the file does not
/// exist). Pure: reads and writes nothing.
pub fn plan(request: &Request, existing: Option<&str>) -> Result<Change, InstallError> {
    let file = settings_file(request.agent, request.scope, &request.places)?;
    plan_file(request, &file, existing)
}

/// [`plan`] against a settings file named outright (a pinned one) rather than found from
/// the request's places.
pub fn plan_file(
    request: &Request,
    file: &Path,
    existing: Option<&str>,
) -> Result<Change, InstallError> {
    let settings = &request.agent.declaration().settings;
    if request.scope == Scope::Project && settings.project_file.is_none() {
        return Err(InstallError::NoProjectScope(request.agent));
    }
    let lock_down = match (request.scope, settings.system) {
        (Scope::System, system::SystemScope::Managed(file)) => file.lock_down,
        (Scope::System, system::SystemScope::None(reason)) => {
            return Err(InstallError::NoSystemScope {
                agent: request.agent,
                reason,
            });
        }
        _ => &[],
    };
    let options = Options {
        system: request.scope == Scope::System,
        ..request.options.clone()
    };
    let registration = Registration::new(request.agent, &request.hookhost, &options)?;
    let file = file.to_path_buf();
    let ours = Ours {
        binary: &request.hookhost,
    };
    let edit = Edit {
        path: &file,
        existing,
        settings,
        registration: &registration,
        action: request.action,
        ours: &ours,
        lock_down,
    };
    let edited = match settings.shape {
        Shape::NestedJson(handler) | Shape::FlatJson(handler) | Shape::AgentJson(handler, _) => {
            json::edit(&edit, handler)
        }
        Shape::NestedToml(handler) => toml::edit(&edit, handler),
        Shape::FlatToml(handler) => flat_toml::edit(&edit, handler),
    }?;
    let after = match edited.text {
        // Nothing changed: the text stays exactly as it was (not reformatted).
        Some(_) if !edited.changed => existing.map(str::to_string),
        text => text,
    };
    let outcome = match (request.action, edited.changed, edited.found) {
        (Action::Install, false, _) => ChangeKind::AlreadyInstalled,
        (Action::Install, true, false) => ChangeKind::Added,
        (Action::Install, true, true) => ChangeKind::Updated,
        (Action::Uninstall, _, true) => ChangeKind::Removed,
        (Action::Uninstall, _, false) => ChangeKind::NotInstalled,
    };
    Ok(Change {
        action: request.action,
        scope: request.scope,
        file,
        before: existing.map(str::to_string),
        after,
        outcome,
        registration,
        project: (request.scope == Scope::Project).then(|| request.places.project.clone()),
    })
}

/// What [`run`] did.
#[derive(Debug)]
pub struct Report {
    /// The planned change.
    pub change: Change,
    /// What was written (`None` on a dry run).
    pub applied: Option<Applied>,
}

/// Reads the settings file, plans `request` and, unless `dry_run`, applies it.
pub fn run(request: &Request, dry_run: bool) -> Result<Report, InstallError> {
    let file = settings_file(request.agent, request.scope, &request.places)?;
    let existing = read_existing(&file)?;
    let change = plan(request, existing.as_deref())?;
    // What install cannot switch back on itself (another handler's table that makes Kimi
    // Code drop the whole section) is refused rather than pinned: a pin of it would say
    // "as installed" of a registration the agent never calls.
    if request.action == Action::Install
        && let Some(after) = &change.after
        && let Some(key) = pin::switches_hooks_off(request.agent, after)
    {
        return Err(InstallError::StillSwitchedOff {
            path: file,
            agent: request.agent,
            key,
        });
    }
    let applied = if dry_run { None } else { Some(apply(&change)?) };
    Ok(Report { change, applied })
}

/// One edit of a settings file's text, as every file format's editor takes it.
#[derive(Clone, Copy)]
struct Edit<'a> {
    /// The settings file (for errors, and Codex's trust keys).
    path: &'a Path,
    /// Its text now (`None`: it does not exist).
    existing: Option<&'a str>,
    /// The agent's settings: events and shape.
    settings: &'a Settings,
    /// What is registered.
    registration: &'a Registration,
    /// Install or uninstall.
    action: Action,
    /// How hookhost's own handlers are recognised.
    ours: &'a Ours<'a>,
    /// The keys a system-scope registration sets beside it (none for the other scopes).
    lock_down: &'a [system::LockDown],
}

/// The result of editing a file's text.
struct Edited {
    /// The new text (`None`: the file would hold nothing but what hookhost put there).
    text: Option<String>,
    /// Whether the document changed.
    changed: bool,
    /// Whether a registration of hookhost was found in it.
    found: bool,
}

/// Recognises hookhost's own handlers.
struct Ours<'a> {
    /// The binary being registered.
    binary: &'a Path,
}

impl Ours<'_> {
    /// Whether running `program` with `first_arg` first is hookhost's bridge: the program is
    /// the binary being registered, or any file named `hookhost` (an older install from
    /// another path) or `hookhost-client` (a bridge that hands its calls to the warm
    /// server), and the first argument is `bridge`.
    fn is_bridge(&self, program: &str, first_arg: Option<&str>) -> bool {
        let is_hookhost = Path::new(program) == self.binary
            || Path::new(program)
                .file_name()
                .is_some_and(|n| n == "hookhost" || n == crate::warm::client::CLIENT_NAME);
        is_hookhost && first_arg == Some("bridge")
    }

    /// Whether a handler with these fields is hookhost's bridge: `exec` + `args` (Copilot),
    /// or a `command` line (whose second word is `bridge`, or whose `args` start with it).
    fn is_bridge_handler(
        &self,
        exec: Option<&str>,
        command: Option<&str>,
        args_first: Option<&str>,
    ) -> bool {
        if let Some(program) = exec {
            return self.is_bridge(program, args_first);
        }
        let Some(command) = command else {
            return false;
        };
        let words = shell::first_words(command, 2);
        match words.as_slice() {
            [program] => self.is_bridge(program, args_first),
            [program, first, ..] => self.is_bridge(program, Some(first)),
            [] => false,
        }
    }
}

#[cfg(test)]
mod tests;
