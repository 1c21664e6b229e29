//! How to start a session: [`SessionOptions`], with every default stated once, and the
//! session's [`Mode`].

use std::ffi::OsString;
use std::path::PathBuf;

use crate::envelope::EnvelopeShape;

/// Whether the session answers one call and exits, or serves a long session; it also
/// decides how the WASM engine allocates instances.
pub use crate::executor::wasm::EngineMode as Mode;

/// How to start a session.
///
/// [`SessionOptions::new`] sets every field to its default, and [`Default`] does the same
/// for the current directory:
///
/// | field | default |
/// |---|---|
/// | `config` | `None`: `$HARNESS_HOME/config.toml`, else `$XDG_CONFIG_HOME/harness/config.toml`, else the OS's own: `~/.config/harness/config.toml` on Linux, `~/Library/Application Support/harness/config.toml` on macOS, `%APPDATA%\harness\config.toml` on Windows ([`crate::env::Environment::config_file`]); a default file that does not exist is an empty config |
/// | `project` | the folder given to `new`; empty means the current directory |
/// | `no_hooks` | `false` |
/// | `no_sandbox` | `false`: sandboxed argv hooks run in the box when the OS's box runs here (bubblewrap, Seatbelt; Windows has none) |
/// | `writable` | none beyond the config's `[sandbox] writable` |
/// | `extra_default_hidden` | none: the box hides its own defaults only (the command line passes every agent's credential stores) |
/// | `private_tmp` | `None`: the box gets a private temp folder made for the session |
/// | `agent_outside_box` | `false`: the agent's commands run in hookhost's box when the session has one (the bridge sets `true`) |
/// | `withheld_from_hooks` | none: hooks get the environment less what `hook_env` withholds (the bridge adds what the agent's project files set) |
/// | `session_id` | `None`: a new id is generated |
/// | `permission_mode` | `"auto"` |
/// | `mode` | [`Mode::OneShot`] |
/// | `env` | `None`: the process's own environment, read once at start |
/// | `log` | `None`: a [`Mode::Serve`] session records to the default record, a one-shot one records nothing |
/// | `resume` | `None` |
/// | `box_entry` | `None`: the box runs without Landlock, and a start-up warning says so |
/// | `default_envelope` | [`EnvelopeShape::Spec`]: a hook without an `envelope` key reads the spec's envelope (the bridge sets [`EnvelopeShape::ClaudeCode`]) |
/// | `keep_recorded_project` | `false`: the project is `project` (the bridge keeps the one its session's record started in) |
/// | `scope` | [`Scope::User`]: the user's own config, guarded as the user's |
/// | `engines` | `None`: the session makes its own WASM engine |
///
/// ```
/// use hookhost::session::{Mode, SessionOptions};
///
/// let options = SessionOptions {
///     mode: Mode::Serve,
///     ..SessionOptions::new("/home/dana/proj")
/// };
/// assert_eq!(options.permission_mode, "auto");
/// ```
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// `--config FILE`; `None` for the default path.
    pub config: Option<PathBuf>,
    /// The project root (`--project`, default the current directory).
    pub project: PathBuf,
    /// `--no-hooks`: run no hook, no guard.
    pub no_hooks: bool,
    /// `--no-sandbox`: a session without a sandbox; every argv hook runs on the host.
    pub no_sandbox: bool,
    /// `--writable DIR`, added to `[sandbox] writable`.
    pub writable: Vec<PathBuf>,
    /// Paths relative to each home that the box hides besides its own defaults when
    /// `[sandbox] hide` is absent ([`crate::sandbox::default_hidden_with`]). The command
    /// line passes every agent's credential stores (the bridge's `credentials` list).
    pub extra_default_hidden: Vec<PathBuf>,
    /// `--private-tmp DIR`: the agent's private temp folder.
    pub private_tmp: Option<PathBuf>,
    /// The agent's commands run outside any box of hookhost's (the bridge: the agent is
    /// another program), so the system temp folders are the agent's to write even when
    /// the session's hooks run in a box (docs/threats.md#n11).
    pub agent_outside_box: bool,
    /// Variables no hook gets, besides those `crate::hook_env` withholds: the bridge's
    /// are the ones the agent's project files hand its hooks (docs/threats.md#n11).
    pub withheld_from_hooks: Vec<std::ffi::OsString>,
    /// `--session-id`; generated when absent.
    pub session_id: Option<String>,
    /// `--permission-mode`, sent to the hooks as is in every envelope.
    pub permission_mode: String,
    /// One call per process, or a long session.
    pub mode: Mode,
    /// The host environment the hooks' environments are made from; `None` reads the
    /// process's own.
    pub env: Option<Vec<(OsString, OsString)>>,
    /// `--log FILE`: the session record. `None`: a [`Mode::Serve`] session records to
    /// [`crate::record::default_path`], a one-shot one records nothing.
    pub log: Option<PathBuf>,
    /// `--resume FILE [--clean]`: resume the session recorded there, appending to it.
    pub resume: Option<crate::record::ResumeFrom>,
    /// The box's entry point ([`crate::sandbox::BoxSpec::entry`]), which confines the
    /// box's writes with Landlock. The command line passes `/proc/self/exe`; an embedder
    /// passes a hookhost binary (or its own, if its `main` calls
    /// [`crate::sandbox::box_entry_main`]). `None`: the box runs without Landlock, and a
    /// start-up warning says so.
    pub box_entry: Option<PathBuf>,
    /// The input shape of a hook without an `envelope` key: the spec's envelope under the
    /// command line, `serve` and `eval`; Claude Code's shape behind the bridge, so that the
    /// Claude Code hooks people already have run unchanged.
    pub default_envelope: EnvelopeShape,
    /// A resumed session keeps the project its record started in rather than `project`
    /// (the bridge: every call of an agent's session is judged against the project the
    /// session started in, wherever the model has moved the agent's folder since, as long
    /// as that folder is there; docs/agents.md#the-project).
    pub keep_recorded_project: bool,
    /// Whose policy the session runs: the user's, or the administrator's (system mode,
    /// docs/contract.md#system-mode).
    pub scope: Scope,
    /// WASM engines shared with the process's other sessions (the warm server), each
    /// keeping the programs it has prepared; `None`: the session makes its own.
    pub engines: Option<crate::executor::wasm::EngineShelf>,
}

/// Whose policy a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// The user's: OpenSSH's "root or us" for hook files, the user's compile cache.
    #[default]
    User,
    /// The administrator's (docs/contract.md#system-mode): `config` must name the system
    /// config, which, every file its hooks run or read, and the system compile cache
    /// must be root's alone ([`crate::guard::check_admin_only`]); the compile cache is
    /// the system one whatever `[wasm] cache_dir` says.
    System {
        /// Compile into the system cache (`hookhost check --system`, as root); otherwise
        /// the cache is only read, and a WASM hook without an entry there refuses the
        /// start rather than compiling inside an agent's call.
        fill_cache: bool,
    },
}

impl Scope {
    /// Whether this is the administrator's policy.
    pub fn is_system(self) -> bool {
        matches!(self, Scope::System { .. })
    }

    /// Whose hooks a session of this scope runs, as its messages name them.
    pub fn owner(self) -> crate::dispatch::HookOwner {
        match self {
            Scope::User => crate::dispatch::HookOwner::User,
            Scope::System { .. } => crate::dispatch::HookOwner::Administrator,
        }
    }
}

impl SessionOptions {
    /// The session's id, decided here and nowhere else: `--session-id` (or, behind the
    /// bridge, the agent's), else one generated now and kept in the options, so that every
    /// later step (the record, the box, the envelopes) reads the same one. A resumed record
    /// sets it to the recorded id first ([`Session::start`](super::Session::start)).
    pub(crate) fn decided_session_id(&mut self) -> String {
        self.session_id
            .get_or_insert_with(crate::envelope::generate_session_id)
            .clone()
    }

    /// The options for a session in `project`, every other field at its default (see
    /// the table above).
    pub fn new(project: impl Into<PathBuf>) -> SessionOptions {
        SessionOptions {
            config: None,
            project: project.into(),
            no_hooks: false,
            no_sandbox: false,
            writable: Vec::new(),
            extra_default_hidden: Vec::new(),
            private_tmp: None,
            agent_outside_box: false,
            withheld_from_hooks: Vec::new(),
            session_id: None,
            permission_mode: "auto".into(),
            mode: Mode::OneShot,
            env: None,
            log: None,
            resume: None,
            box_entry: None,
            default_envelope: EnvelopeShape::Spec,
            keep_recorded_project: false,
            scope: Scope::User,
            engines: None,
        }
    }
}

impl Default for SessionOptions {
    /// [`SessionOptions::new`] for the current directory.
    fn default() -> SessionOptions {
        SessionOptions::new(PathBuf::new())
    }
}
