//! The agents the bridge answers, each declared once.
//!
//! An agent is one [`Declaration`], a `static` in the agent's own file (`claude_code.rs`,
//! `codex.rs`, …) beside the code that reads its payloads and writes its answers: its
//! names, the program its users run, its hook protocol ([`Protocol`]), where its settings
//! live and how they hold hooks, its timeout's unit, what it does when hookhost cannot
//! answer, how a user switches its hooks off, and where it keeps its login. `install`,
//! `doctor`, the bridge and the command line all read it through
//! [`AgentKind::declaration`], the one `match` over the agents.
//!
//! A new agent is: a variant of [`AgentKind`] (and its line in [`AgentKind::ALL`] and
//! [`AgentKind::declaration`]), its file with its declaration and protocol, its tool names
//! in [`super::tools`], and a rule in [`super::detect`] for telling its payloads from the
//! others' (what sets an agent's payload apart from every other agent's cannot be
//! declared one agent at a time).

use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::install::system::SystemScope;
use super::install::{Change, FailClosed, Places, RegisteredEvent, Registration, Scope, TimeUnit};
use super::{Protocol, claude_code, codex, copilot, cursor, gemini, kimi, kiro, qwen};

/// The agents the bridge answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentKind {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
    /// Cursor (the editor and `cursor-agent`).
    Cursor,
    /// GitHub Copilot CLI.
    Copilot,
    /// Alibaba's Qwen Code (a Gemini CLI fork with Claude Code's hook protocol).
    Qwen,
    /// Moonshot AI's Kimi Code.
    Kimi,
    /// AWS's Kiro CLI (and Amazon Q Developer CLI, whose hook protocol it keeps).
    Kiro,
}

impl AgentKind {
    /// The root the agent states for its hooks in `env` (its
    /// [`Declaration::project_variable`], `CLAUDE_PROJECT_DIR`, …), when absolute.
    pub fn stated_root(self, env: &crate::env::Environment) -> Option<PathBuf> {
        self.declaration()
            .project_variable
            .and_then(|name| env.get(name))
            .map(PathBuf::from)
            .filter(|root| root.is_absolute())
    }

    /// Every agent, in the order `--agent` lists them.
    pub const ALL: [AgentKind; 8] = [
        AgentKind::ClaudeCode,
        AgentKind::Codex,
        AgentKind::Gemini,
        AgentKind::Cursor,
        AgentKind::Copilot,
        AgentKind::Qwen,
        AgentKind::Kimi,
        AgentKind::Kiro,
    ];

    /// Everything hookhost knows about this agent.
    pub fn declaration(self) -> &'static Declaration {
        match self {
            AgentKind::ClaudeCode => &claude_code::DECLARATION,
            AgentKind::Codex => &codex::DECLARATION,
            AgentKind::Gemini => &gemini::DECLARATION,
            AgentKind::Cursor => &cursor::DECLARATION,
            AgentKind::Copilot => &copilot::DECLARATION,
            AgentKind::Qwen => &qwen::DECLARATION,
            AgentKind::Kimi => &kimi::DECLARATION,
            AgentKind::Kiro => &kiro::DECLARATION,
        }
    }

    /// The name `--agent` and `hookhost install` take: `claude-code`, `codex`, `gemini`,
    /// `cursor`, `copilot`, `qwen-code`, `kimi-code`, `kiro`.
    pub fn flag_name(self) -> &'static str {
        self.declaration().flag
    }

    /// The agent's name as its users know it, for notes.
    pub fn display_name(self) -> &'static str {
        self.declaration().display_name
    }

    /// The agent named by `--agent NAME`.
    pub fn from_flag(name: &str) -> Option<AgentKind> {
        AgentKind::ALL.into_iter().find(|a| a.flag_name() == name)
    }

    /// How the agent's payloads are read and answered.
    pub fn protocol(self) -> &'static dyn Protocol {
        self.declaration().protocol
    }

    /// Every agent's flag name, as a sentence's list: `claude-code, codex, … and kiro`.
    pub fn flag_names_listed() -> String {
        let names: Vec<&str> = AgentKind::ALL.iter().map(|a| a.flag_name()).collect();
        match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

/// Everything hookhost knows about one agent (docs/agents.md has the sources).
pub struct Declaration {
    /// Which agent this is.
    pub kind: AgentKind,
    /// The name `--agent` and `hookhost install` take.
    pub flag: &'static str,
    /// The agent's name as its users know it.
    pub display_name: &'static str,
    /// The program its users run (`claude`), which `doctor` looks for on `PATH`.
    pub program: &'static str,
    /// How its payloads are read and answered.
    pub protocol: &'static dyn Protocol,
    /// Where its settings live and how they hold hookhost's registration.
    pub settings: Settings,
    /// The bridge's default time budget for one call, in milliseconds: below the agent's
    /// own default hook timeout, so that even a registration whose timeout was removed is
    /// answered before the agent gives up.
    pub default_budget_ms: u64,
    /// The unit of the agent's `timeout`.
    pub timeout_unit: TimeUnit,
    /// The agent's setting that blocks a call when hookhost cannot answer, if it has one.
    pub fail_closed: FailClosedSetting,
    /// What the agent does with a call when hookhost itself cannot answer (missing,
    /// crashed, killed by the agent's timeout), as registered without a fail-closed
    /// setting (or with [`FailClosedSetting::Always`]'s).
    pub when_hookhost_cannot_answer: &'static str,
    /// What the user should know about a project-scope registration, if anything (the
    /// agent's own trust of project settings).
    pub project_note: Option<&'static str>,
    /// What the user should know after an install, if anything, from the change
    /// `install` made (Codex's own review of a new hook; which Kimi is covered).
    pub install_note: Option<fn(&Change) -> Option<&'static str>>,
    /// The setting in the agent's settings that turns its hooks off, if it has one.
    pub switch_off: SwitchOff,
    /// The variable the agent sets for its hooks to its project's root
    /// (`CLAUDE_PROJECT_DIR`), if it has one: the project of a bridged session's first call
    /// (docs/agents.md#the-project).
    pub project_variable: Option<&'static str>,
    /// The project settings files the agent merges over the user's, relative to the
    /// project's folder and each folder above it, where a switch-off also counts.
    pub merged_project_settings: &'static [&'static str],
    /// How the agent comes to distrust a folder, in which it then runs none of its
    /// settings' hooks (the user's included), if it does.
    pub folder_trust: Option<&'static FolderTrust>,
    /// The agent's modes that run no hook at all, and what switches them on, if it has
    /// any.
    pub modes_without_hooks: Option<&'static ModesWithoutHooks>,
    /// Where the environment of its hooks' shell comes from besides its own, which may
    /// run code or another program before hookhost's does; `None`: nowhere.
    pub hook_environment: Option<&'static HookEnvironment>,
    /// Its login: files and folders relative to the home folder that the box hides by
    /// default ([`super::credentials`]).
    pub credentials: &'static [&'static str],
    /// How any hook of its settings may rewrite a tool call's input, which a hook the
    /// agent adds to a settings file could do after hookhost allowed the call
    /// (docs/threats.md#r14); `None` where no such hook was found.
    pub rewriting_hooks: Option<&'static RewritingHooks>,
    /// The settings that skip one hook by a digest of it, or every hook, outside the file
    /// hookhost registers in (Copilot CLI's `disabledHooks`); `None` where none was found.
    pub disabled_hooks: Option<&'static DisabledHooks>,
}

/// Where an agent's settings skip hooks outside the file hookhost registers in: a list of
/// digests of the hooks it skips, and files whose switch-off ([`SwitchOff`]) stops every
/// hook (Copilot CLI's `disabledHooks` in `~/.copilot/settings.json`, and a repository's
/// `disableAllHooks`).
#[derive(Debug)]
pub struct DisabledHooks {
    /// The user's settings file, relative to the agent's folder in the home: its list,
    /// and its switch-off.
    pub user_file: &'static str,
    /// The key of that file listing the digests of the hooks the agent skips.
    pub key: &'static str,
    /// The key of these files that switches every hook off (besides the agent's
    /// [`SwitchOff`], which reads it as written): the agent reads both keys in any case,
    /// with `_` or `-` between their words (`disabled_hooks`, `DisableAllHooks`).
    pub all_key: &'static str,
    /// The digest the agent keeps of a handler for an event.
    pub digest: fn(event: &str, handler: &Map<String, Value>) -> String,
    /// The project's settings files (relative to the git repository's root and the folders
    /// down to the call's) whose switch-off stops every hook, the user's too.
    pub project_files: &'static [&'static str],
}

/// The events of an agent whose hooks may change a tool call's input, and the field an
/// answer does it with: every such hook in a JSON settings file
/// (`{"hooks": {EVENT: [{"matcher", "hooks": [HANDLER]}]}}`, or `[HANDLER]` flat) other
/// than hookhost's, that the user did not accept with `install`, refuses the agent's calls
/// (docs/threats.md#r14).
#[derive(Debug, PartialEq, Eq)]
pub struct RewritingHooks {
    /// The events (`PreToolUse`, `BeforeTool`).
    pub events: &'static [&'static str],
    /// The answer's field, for messages (`updatedInput`).
    pub field: &'static str,
    /// Where else the agent reads such hooks, beyond its user settings file and its
    /// merged project settings (Copilot CLI: a folder of hook files).
    pub more_files: &'static [HookFiles],
    /// Hook files the agent loads from any folder of the project, once a call of one of
    /// their tools runs them: read at such a call alone, by walking the project.
    pub nested: Option<&'static NestedHookFiles>,
    /// The settings key enabling the agent's plugins, any of which may bring hooks
    /// (Claude Code's `enabledPlugins`), and where their files are found.
    pub plugins: Option<&'static Plugins>,
    /// How the agent reads the hooks of its Markdown files (those of
    /// [`HookFiles::UserMarkdown`] and the like); `None` for an agent with none.
    pub frontmatter: Option<&'static FrontmatterHooks>,
}

/// How an agent's settings enable plugins, and where it finds their files (Claude
/// Code's): each enabled plugin is a hook source, accepted with its files.
#[derive(Debug, PartialEq, Eq)]
pub struct Plugins {
    /// The key of a settings file mapping `PLUGIN@MARKETPLACE` to whether it is enabled.
    pub enabled_key: &'static str,
    /// The key of a settings file declaring marketplaces (`NAME: {"source": {"source":
    /// "directory", "path": DIR}}`), whose plugins are read where they lie.
    pub marketplaces_key: &'static str,
    /// The record of installed plugins, relative to the agent's folder in the home
    /// (`{"plugins": {ID: [{"installPath": DIR}]}}`).
    pub installed: &'static str,
    /// The marketplaces the agent knows, relative to the agent's folder in the home
    /// (`{NAME: {"installLocation": DIR}}`).
    pub known_marketplaces: &'static str,
}

/// Hook files an agent finds in the project's subfolders (Claude Code's skills in a
/// subfolder's `.claude/skills/`, loaded once a file there is read).
#[derive(Debug, PartialEq, Eq)]
pub struct NestedHookFiles {
    /// The tools whose calls run them (`Skill`).
    pub tools: &'static [&'static str],
    /// Their folders, relative to any folder of the project, and which Markdown files of
    /// each.
    pub folders: &'static [(&'static str, Markdown)],
}

/// Files an agent reads hooks from besides its settings files.
#[derive(Debug, PartialEq, Eq)]
pub enum HookFiles {
    /// A file of the agent's folder in the home (relative to `~/.copilot`, or the folder
    /// its home variable names).
    User(&'static str),
    /// Every `.json` file of a folder of the agent's folder in the home.
    UserFolder(&'static str),
    /// A file of the project: relative to the git repository's root, and to the call's
    /// folder and each folder between them.
    Project(&'static str),
    /// Every `.json` file of such a folder of the project.
    ProjectFolder(&'static str),
    /// A file of the project read from the main checkout when the project is a linked git
    /// worktree: in the main checkout's folder that matches each folder of
    /// [`HookFiles::Project`] (Codex's `.codex/hooks.json`).
    ProjectMainCheckout(&'static str),
    /// The agent's extensions in a folder of its folder in the home, each read where it
    /// lies or where its install record's link leads.
    UserExtensions(&'static Extensions),
    /// Markdown files of a folder of the agent's folder in the home whose frontmatter may
    /// declare hooks (Claude Code's `skills/NAME/SKILL.md`, `agents/**/*.md`).
    UserMarkdown(&'static str, Markdown),
    /// The same in such a folder of the project (as [`HookFiles::Project`] finds it).
    ProjectMarkdown(&'static str, Markdown),
    /// The same in a folder of the home folder itself, which the agent's home variable does
    /// not move (Qwen Code's `~/.agents/skills`).
    HomeMarkdown(&'static str, Markdown),
    /// Programs the agent runs in its own process, each of which may act on any call: the
    /// entry files (second) of each folder in a folder (first) of the agent's folder in
    /// the home (Copilot CLI's `extensions/NAME/extension.mjs`).
    UserPrograms(&'static str, &'static [&'static str]),
    /// The same in such a folder of the project (as [`HookFiles::Project`] finds it).
    ProjectPrograms(&'static str, &'static [&'static str]),
    /// The same in the folder (third) of each folder in a folder (first) of the agent's
    /// folder in the home (Copilot CLI's `session-state/ID/extensions/`).
    UserSessionPrograms(&'static str, &'static str, &'static [&'static str]),
}

/// Which Markdown files of a folder the agent reads a frontmatter's hooks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markdown {
    /// `NAME/SKILL.md` of each folder in it (Claude Code's skills).
    Skills,
    /// Every `.md` file in it and in the folders in it, at any depth but hidden ones
    /// (Claude Code's commands and subagents).
    Every,
}

/// Where an agent keeps its extensions and their hooks (Gemini CLI's
/// `~/.gemini/extensions/NAME/hooks/hooks.json`).
#[derive(Debug, PartialEq, Eq)]
pub struct Extensions {
    /// The folder of extensions, relative to the agent's folder in the home: each folder
    /// in it is one.
    pub folder: &'static str,
    /// An extension's install record, whose `{"type": "link", "source": DIR}` makes the
    /// agent read the extension from `DIR` instead.
    pub install_record: &'static str,
    /// The files of an extension that hold hooks, relative to where it is read from.
    pub hook_files: &'static [&'static str],
    /// Its folders of Markdown files whose frontmatter may declare hooks (Qwen Code's
    /// `agents/`), relative to the same place.
    pub markdown: &'static [(&'static str, Markdown)],
    /// Where the agent takes values for the `${NAME}`s of an extension's hooks from, over
    /// its own (Gemini CLI's extension settings); `None`: nowhere.
    pub settings: Option<ExtensionSettings>,
}

/// An extension's settings, which the agent writes into its hooks: each `${NAME}` of a
/// hook file's strings that a settings file sets becomes its value, before the agent's own
/// names (`${extensionPath}`) are read, except for `fixed` (docs/threats.md#r14).
#[derive(Debug, PartialEq, Eq)]
pub struct ExtensionSettings {
    /// The extension's manifest, whose `name` is its folder of settings in the folder of
    /// extensions (whichever folder the extension is read from).
    pub manifest: &'static str,
    /// The settings file: in that folder, then in the project's folder, whose values win.
    pub file: &'static str,
    /// The names the agent sets after the settings, which they cannot change.
    pub fixed: &'static [&'static str],
}

/// How an agent reads hooks from a Markdown file's YAML frontmatter (its skills' and
/// subagents' `hooks`).
#[derive(Debug, PartialEq, Eq)]
pub struct FrontmatterHooks {
    /// Where the agent finds a file's frontmatter.
    pub bounds: FrontmatterBounds,
    /// The variables a skill's hook commands name its folder by (Claude Code's
    /// `CLAUDE_PLUGIN_ROOT`, Qwen Code's `QWEN_SKILL_ROOT`).
    pub skill_folder: &'static [&'static str],
    /// The path of keys of a settings file's list of more folders of skills (Qwen Code's
    /// `skills.directories`), each read as [`Markdown::Skills`]; empty for none.
    pub skill_folders_key: &'static [&'static str],
    /// The keys of a handler whose values are what it runs (`command`; Copilot CLI's
    /// `bash`, `powershell`, `exec`): the files they name join the hook's digest.
    pub command_keys: &'static [&'static str],
}

/// Where a frontmatter lies in a Markdown file, as an agent finds it: a reading that ends
/// it earlier than the agent's misses the hooks after that point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontmatterBounds {
    /// After a byte-order mark, `---` and blanks up to a line break, then everything up to
    /// the next `---`, wherever it stands (Claude Code's `/^---\s*\n([\s\S]*?)---/`).
    ToNextDashes,
    /// Once a byte-order mark is dropped and every `\r\n` and lone `\r` is a `\n`: a
    /// first line of `---` alone, up to the next line of `---` alone (Qwen Code's
    /// `/^---\n([\s\S]*?)\n---(?:\n|$)/`).
    DashLines,
    /// The same, a `---` line ending in blanks too (Copilot CLI's custom agents).
    DashLinesWithBlanks,
}

/// Where an agent's settings live and how they hold hookhost's registration.
pub struct Settings {
    /// The agent's folder in the home folder (`.claude`).
    pub home_folder: &'static str,
    /// The environment variable that moves that folder (`CODEX_HOME`), if any.
    pub home_variable: Option<&'static str>,
    /// The `.env` files, relative to the home folder, from which the agent takes that
    /// variable when its environment has none, in the order it reads them, before it
    /// reads its settings (Qwen Code's `QWEN_HOME`): one that moves the folder away from
    /// hookhost's registration is a switch-off.
    pub home_variable_files: &'static [&'static str],
    /// A variable naming another home, from which the agent reads its files but its
    /// settings (Gemini CLI's `GEMINI_CLI_HOME`: its extensions, trusted hooks and
    /// policies, when a `.env` it loads sets it after its settings' path is fixed). Set in
    /// the bridge's environment to another folder than the home, it moves those files
    /// where hookhost does not read them: a switch-off.
    pub extras_home_variable: Option<&'static str>,
    /// The user-scope file `install` edits, relative to the agent's folder.
    pub user_file: &'static str,
    /// The project-scope file, relative to the project's folder; `None` when the agent
    /// reads no project settings for its hooks (`--scope project` is refused).
    pub project_file: Option<&'static str>,
    /// How the file holds hooks, with hookhost's handler.
    pub shape: Shape,
    /// The events registered, in the agent's spelling.
    pub events: &'static [RegisteredEvent],
    /// The administrator-managed file `--scope system` edits (in the same shape), or why
    /// there is none (docs/system-scope.md).
    pub system: SystemScope,
}

impl Settings {
    /// The agent's folder in the home (`~/.copilot`), or the one its home variable names.
    pub fn user_folder(&self, places: &Places) -> PathBuf {
        self.home_variable
            .and_then(|variable| places.agent_home(variable))
            .map(PathBuf::from)
            .unwrap_or_else(|| places.home.join(self.home_folder))
    }

    /// The file `install` edits in `scope`; `None` for a scope the agent does not have.
    pub fn file(&self, scope: Scope, places: &Places) -> Option<PathBuf> {
        match scope {
            Scope::User => Some(self.user_folder(places).join(self.user_file)),
            Scope::Project => self.project_file.map(|file| places.project.join(file)),
            Scope::System => match self.system {
                SystemScope::Managed(file) => file
                    .path(crate::env::FolderStyle::native())
                    .map(|path| places.system_file(path)),
                SystemScope::None(_) => None,
            },
        }
    }
}

/// A JSON handler: the object hookhost registers.
pub type JsonHandler = fn(&Registration) -> Map<String, Value>;

/// A TOML handler: its keys and values, in order.
pub type TomlHandler = fn(&Registration) -> Vec<(&'static str, toml_edit::Value)>;

/// A handler in a flat TOML list: its keys and values for one event, in order.
pub type FlatTomlHandler =
    fn(&RegisteredEvent, &Registration) -> Vec<(&'static str, toml_edit::Value)>;

/// How an agent's settings file holds its hooks, with the handler hookhost writes there.
#[derive(Clone, Copy)]
pub enum Shape {
    /// JSON `{"hooks": {EVENT: [{"matcher": M, "hooks": [HANDLER, …]}, …]}}` (Claude Code,
    /// Gemini CLI, Qwen Code).
    NestedJson(JsonHandler),
    /// JSON `{"version": 1, "hooks": {EVENT: [HANDLER, …]}}` (Cursor, Copilot CLI).
    FlatJson(JsonHandler),
    /// A JSON agent file of hookhost's own, `{"name": …, "hooks": {EVENT: [HANDLER, …]}}`
    /// (Kiro CLI), with the agent file's own keys for a file hookhost creates.
    AgentJson(JsonHandler, fn() -> Map<String, Value>),
    /// TOML `[[hooks.EVENT]]` groups holding `[[hooks.EVENT.hooks]]` handlers (Codex).
    NestedToml(TomlHandler),
    /// TOML `[[hooks]]` tables, one per handler, each naming its `event` (Kimi Code).
    FlatToml(FlatTomlHandler),
}

/// An agent's setting that makes it block a call when hookhost itself cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailClosedSetting {
    /// The agent has none.
    None,
    /// Always written (Cursor's `failClosed`).
    Always(FailClosed),
    /// Written when [`super::install::Options::claude_on_failure_block`] asks, since it is
    /// unverified (Claude Code's `onFailure`); `when_hookhost_cannot_answer` is then what
    /// the agent does.
    WhenAsked {
        /// The setting.
        setting: FailClosed,
        /// The first version of the agent that takes it (`install` asks the agent's
        /// program for its `--version`).
        since: (u64, u64, u64),
        /// What the agent does when hookhost cannot answer, with the setting written.
        when_hookhost_cannot_answer: &'static str,
    },
}

/// How a user turns an agent's hooks off in its settings (docs/agents.md): `install` puts
/// each back, and the bridge and `doctor` report it (docs/threats.md#r2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchOff {
    /// No key switches the hooks off (the agent has other ways: a deleted file, an
    /// invalid entry).
    None,
    /// `"disableAllHooks": true` (Claude Code, and Qwen Code with its protocol).
    DisableAllHooks {
        /// Whether the agent merges a project's settings over the user's key by key, as
        /// Gemini CLI does (Qwen Code, its fork): a project's `hooks` that is not an
        /// object then replaces the user's whole, hookhost's registration with it.
        /// Claude Code skips a settings file with such a value instead.
        deep_merged: bool,
    },
    /// `hooksConfig.enabled: false`, or `"hookhost"` in `hooksConfig.disabled` (Gemini
    /// CLI), or a `hooks` that is not an object (merged over the user's, it replaces it).
    HooksConfig {
        /// The name of hookhost's handler, which `hooksConfig.disabled` names.
        handler_name: &'static str,
    },
    /// `[features] hooks = false` (or `codex_hooks`), or `enabled = false` in a
    /// `[hooks.state."…"]` table (Codex).
    CodexFeatures,
    /// `"disableAllHooks"` with any value but `false`, in the file that holds the
    /// registration (Copilot CLI: `true` skips the hooks of that file, and a value that is
    /// no boolean makes it drop the whole file).
    DisableAllHooksUnlessFalse,
    /// One `[[hooks]]` table that the agent's strict schema refuses makes it drop the
    /// whole `hooks` section, hookhost's tables with it (Kimi Code): so any table, the
    /// user's own included, with a key, event, command or timeout outside the schema.
    StrictHookTables(&'static HookTableSchema),
}

/// Where an agent takes variables for its hooks' environment besides its own, and how it
/// starts a hook: a variable from there that the loader, the C library or the hook's shell
/// reads runs before hookhost's code, and may keep it from running (docs/threats.md#n11).
/// Seen with each agent (docs/agents.md).
#[derive(Debug, PartialEq, Eq)]
pub struct HookEnvironment {
    /// The settings key whose object of variables the agent hands its hooks (Claude Code's
    /// and Qwen Code's `env`), in every settings file it reads.
    pub settings_env: Option<&'static str>,
    /// The `.env` files it loads into its environment, relative to the project's folder
    /// and each folder above it, and to the home folder (Gemini CLI, Qwen Code).
    pub env_files: &'static [&'static str],
    /// It loads the first of those found from the project's folder up, and the home
    /// folder's only when there is none (Gemini CLI); else every one of them is read.
    pub first_env_file_only: bool,
    /// Its `.env` files in its own folder of the home, loaded wherever it runs (Codex's
    /// `~/.codex/.env`).
    pub own_env_files: &'static [&'static str],
    /// Its own variables that run every hook command through another program (Claude
    /// Code's `CLAUDE_CODE_SHELL_PREFIX`, which gets the whole command).
    pub rerouting: &'static [&'static str],
    /// Its hooks' shell is bash, which runs the script `BASH_ENV` names first.
    pub bash: bool,
    /// It takes a variable from those files only where its own environment has none (or
    /// an empty one: Gemini CLI's and Qwen Code's), so `PATH`, which every environment
    /// holds, never reaches its hooks from there.
    pub unset_only: bool,
    /// The variables it drops from those files itself (Qwen Code's loader keys), compared
    /// as it compares them: any case, `_` and `-` alike; a trailing `*` is any rest.
    pub drops: &'static [&'static str],
}

/// The agent's modes that run no hook at all (Qwen Code: its bare and safe modes, by a
/// variable; its shell sandbox, by a setting). The agent takes the variables from its
/// environment, and from the `.env` files and the settings' `env` object its
/// [`HookEnvironment`] names, so each of those that switches a mode on is a switch-off
/// (docs/threats.md#r7).
#[derive(Debug, PartialEq, Eq)]
pub struct ModesWithoutHooks {
    /// Each variable, with the key as a settings file names it and the mode, for messages.
    pub variables: &'static [ModeVariable],
    /// The values that switch a mode on (trimmed, in any case).
    pub on_values: &'static [&'static str],
    /// Settings (keys one inside the other) whose value, an object, switches every hook
    /// off, each with its name for messages.
    pub settings_objects: &'static [(&'static [&'static str], &'static str)],
}

/// A variable that switches on a mode without hooks ([`ModesWithoutHooks`]).
#[derive(Debug, PartialEq, Eq)]
pub struct ModeVariable {
    /// The variable.
    pub name: &'static str,
    /// It in a settings file's `env` object, as a switch-off's key is named.
    pub in_settings: &'static str,
    /// The mode it switches on.
    pub mode: &'static str,
}

/// How an agent decides that it does not trust a folder, and then runs none of its
/// settings' hooks there, the user's included (Gemini CLI: its `trustedFolders.json`
/// rules, and variables its `.env` files can set; docs/agents.md#gemini-cli). Each is a
/// switch-off of the agent's next session in that folder.
#[derive(Debug, PartialEq, Eq)]
pub struct FolderTrust {
    /// The `.env` files the agent loads into its environment, relative to the project's
    /// folder and each folder above it, and to the home folder.
    pub env_files: &'static [&'static str],
    /// A variable set to this value (any case) in one of them, or in the bridge's own
    /// environment, makes the agent trust no folder.
    pub distrusting: &'static [(&'static str, &'static str)],
    /// A variable that moves the rules file; set in one of the `.env` files, it moves the
    /// rules where hookhost does not look.
    pub rules_variable: &'static str,
    /// The agent's user settings file, relative to the home folder.
    pub settings_file: &'static str,
    /// The keys, one inside the other, of the setting in [`settings_file`](Self::settings_file)
    /// whose `false` switches folder trust off: its rules then do not apply.
    pub switched_off_by: &'static [&'static str],
    /// The rules file, relative to the home folder: an object of paths to
    /// [`DISTRUST`](FolderTrust::DISTRUST), `TRUST_FOLDER` or `TRUST_PARENT` (the folder
    /// above the path), the longest matching path's rule holding for a folder.
    pub rules_file: &'static str,
}

impl FolderTrust {
    /// The rule that makes the agent distrust a folder.
    pub const DISTRUST: &'static str = "DO_NOT_TRUST";
    /// The rule that trusts the folder above the path it names.
    pub const TRUST_PARENT: &'static str = "TRUST_PARENT";
}

/// What an agent with [`SwitchOff::StrictHookTables`] accepts in a `[[hooks]]` table, as
/// its own schema says (docs/agents.md, Kimi Code).
#[derive(Debug, PartialEq, Eq)]
pub struct HookTableSchema {
    /// The keys a table may have (`event`, `matcher`, `command`, `timeout`).
    pub keys: &'static [&'static str],
    /// The events `event` may name.
    pub events: &'static [&'static str],
    /// The smallest and largest `timeout`, whole seconds.
    pub timeout_seconds: (i64, i64),
}

/// Whether a `--version` output names a version at or above `since`; `None` when it names
/// no version (`major.minor.patch`).
pub fn version_at_least(version_output: &str, since: (u64, u64, u64)) -> Option<bool> {
    let version = version_output.split_whitespace().find_map(|word| {
        let mut parts = word.split('.').map(|p| p.parse::<u64>().ok());
        match (parts.next()??, parts.next()??, parts.next()??) {
            (major, minor, patch) if parts.next().is_none() => Some((major, minor, patch)),
            _ => None,
        }
    })?;
    Some(version >= since)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_declaration_is_its_agents() {
        for agent in AgentKind::ALL {
            let declared = agent.declaration();
            assert_eq!(declared.kind, agent);
            assert_eq!(declared.protocol.kind(), agent);
            assert_eq!(AgentKind::from_flag(declared.flag), Some(agent));
            assert!(!declared.settings.events.is_empty(), "{agent}");
        }
    }

    #[test]
    fn the_flag_names_read_as_a_list() {
        assert_eq!(
            AgentKind::flag_names_listed(),
            "claude-code, codex, gemini, cursor, copilot, qwen-code, kimi-code and kiro"
        );
    }
}
