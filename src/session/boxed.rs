//! The session's box: the folders its hooks may write and those it hides, the probe
//! that decides whether there is a box ([`SessionSandbox`]), and [`SessionBox`], the
//! same box for `hookhost box -- CMD`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::start::{absolute_project, load_config};
use super::{SessionOptions, StartError};
use crate::config::Config;
use crate::env::Environment;
use crate::hook_env;
use crate::sandbox::{self, BoxSpec};

/// The box a sandboxed hook of this session would run in, for `hookhost box -- CMD`:
/// the same probe, folders, hidden paths and environment.
pub struct SessionBox {
    sandbox: SessionSandbox,
    env: Vec<(OsString, OsString)>,
    warnings: Vec<String>,
}

impl SessionBox {
    /// Sets up the box as [`Session::start`](super::Session::start) would for a sandboxed hook. Fails when
    /// the OS's box cannot run (never runs the command on the host instead).
    pub fn start(options: &SessionOptions) -> Result<SessionBox, StartError> {
        let mut options = options.clone();
        let session_id = options.decided_session_id();
        let options = &options;
        let env = Environment::injected_or_process(options.env.as_deref());
        let project = absolute_project(&options.project)?;
        let config = load_config(options, &env)?;
        let homes = may_box(options, true).then(|| sandbox::Homes::find(env.home_variable()));
        let folders = Folders::new(options, &config, homes.as_ref());
        let sandbox = SessionSandbox::probe(options, &folders, &project, &env, true, &session_id);
        match &sandbox {
            SessionSandbox::Boxed { .. } => {}
            SessionSandbox::Unavailable(why) => return Err(StartError::NoBox(why.to_string())),
            SessionSandbox::Off => {
                return Err(StartError::NoBox(
                    "--no-sandbox was given, so there is no box to run in".into(),
                ));
            }
        }
        let mut hook_env = hook_env::scrubbed(env.vars().iter().cloned(), &config.sandbox.env);
        if let Some(path) = env.get("PATH") {
            hook_env.push(("PATH".into(), path.to_os_string()));
        }
        let warnings = sandbox.warnings(options, &config, homes.as_ref());
        Ok(SessionBox {
            sandbox,
            env: hook_env,
            warnings,
        })
    }

    /// What makes this box weaker than it should be (no home known, no Landlock entry
    /// point), one line each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// A command that runs `argv` in the box, with the hooks' environment.
    pub fn command(&self, argv: &[OsString]) -> std::io::Result<std::process::Command> {
        let spec = self
            .sandbox
            .spec()
            .ok_or_else(|| std::io::Error::other("no box"))?;
        spec.command(argv, &self.env).map_err(std::io::Error::other)
    }
}

/// Whether the session may have a box: a hook may run in it (`needs_box`) and
/// `--no-sandbox` is not given. Only then is the box probed, and the user's homes
/// looked up for its hide list and warnings.
pub(super) fn may_box(options: &SessionOptions, needs_box: bool) -> bool {
    needs_box && !options.no_sandbox
}

/// The folders the agent's commands may write, and those the box hides.
pub(super) struct Folders {
    pub(super) writable: Vec<PathBuf>,
    pub(super) hide: Vec<PathBuf>,
}

impl Folders {
    /// The session's folders; those the box hides only when a hook may run in the box
    /// and `--no-sandbox` is not given, which is when the caller passes the user's
    /// `homes` (see [`SessionSandbox::probe`]): nothing else reads them (the guard looks
    /// at them for a hook in the box alone), and the default list, every agent's
    /// credential stores under each home, was ~4 % of a bridged call without a box
    /// (BENCHMARKS.md, thirteenth sitting).
    pub(super) fn new(
        options: &SessionOptions,
        config: &Config,
        homes: Option<&sandbox::Homes>,
    ) -> Folders {
        let mut writable = config.sandbox.writable.clone();
        writable.extend(options.writable.iter().cloned());
        let hide = match (&config.sandbox.hide, homes) {
            (_, None) => Vec::new(),
            (Some(list), Some(_)) => list.clone(),
            (None, Some(homes)) => homes.default_hidden_with(&options.extra_default_hidden),
        };
        Folders { writable, hide }
    }
}

/// The session's sandbox: the box hooks run in, or why there is none.
pub(super) enum SessionSandbox {
    /// `--no-sandbox`, or no hook that would use it.
    Off,
    /// The OS's box cannot run here (or the OS has none); hooks run on the host and the
    /// banner says so.
    Unavailable(sandbox::Unavailable),
    /// The box, and the private temp folder we created for it (locked while the
    /// session lives, removed on drop), or the lock held on `--private-tmp DIR` (so that
    /// no other start's sweep takes it for a dead session's: see [`sweep_dead_tmps`]).
    Boxed {
        spec: Arc<BoxSpec>,
        _created_tmp: Option<sandbox::PrivateTmp>,
        _held_tmp: Option<std::fs::File>,
    },
}

impl SessionSandbox {
    pub(super) fn probe(
        options: &SessionOptions,
        folders: &Folders,
        project: &Path,
        env: &Environment,
        needs_box: bool,
        session_id: &str,
    ) -> SessionSandbox {
        // Every start sweeps the temp folders of dead sessions, once: here, or in
        // `create_private_tmp` for a box that gets a folder of its own.
        if !may_box(options, needs_box) {
            sweep_dead_tmps(&env.temp_folder(), options.private_tmp.as_deref());
            return SessionSandbox::Off;
        }
        let override_path = env.get(sandbox::PROGRAM_ENV).map(PathBuf::from);
        // A system session tries the box at every start: its memo would sit in a
        // user's folder.
        let memo = match options.scope.is_system() {
            true => sandbox::TrialMemo::none(),
            false => sandbox::TrialMemo::in_folder(env.cache_dir().as_deref()),
        };
        let info = match sandbox::probe_remembered(
            override_path.as_deref(),
            env.get("PATH"),
            project,
            &memo,
        ) {
            Ok(info) => info,
            Err(why) => {
                sweep_dead_tmps(&env.temp_folder(), options.private_tmp.as_deref());
                return SessionSandbox::Unavailable(why);
            }
        };
        let (private_tmp, created_tmp, held_tmp) = match &options.private_tmp {
            Some(dir) => (
                dir.clone(),
                None,
                sweep_dead_tmps(&env.temp_folder(), Some(dir)),
            ),
            None => match sandbox::create_private_tmp(&env.temp_folder(), session_id) {
                Ok(tmp) => (tmp.path().to_path_buf(), Some(tmp), None),
                Err(e) => {
                    return SessionSandbox::Unavailable(sandbox::Unavailable {
                        sandbox: sandbox::NAME,
                        reason: e.to_string(),
                        advice: "Pass --private-tmp DIR, or make the temp folder writable.".into(),
                    });
                }
            },
        };
        SessionSandbox::Boxed {
            spec: Arc::new(BoxSpec {
                project: project.to_path_buf(),
                writable: folders.writable.clone(),
                private_tmp,
                hide: folders.hide.clone(),
                program: info.path,
                entry: options.box_entry.clone(),
            }),
            _created_tmp: created_tmp,
            _held_tmp: held_tmp,
        }
    }

    pub(super) fn spec(&self) -> Option<&Arc<BoxSpec>> {
        match self {
            SessionSandbox::Boxed { spec, .. } => Some(spec),
            _ => None,
        }
    }

    /// Start-up warnings about a box that hides or confines less than it should;
    /// `homes` are those its hide list was made from (given wherever there is a box).
    pub(super) fn warnings(
        &self,
        options: &SessionOptions,
        config: &Config,
        homes: Option<&sandbox::Homes>,
    ) -> Vec<String> {
        let mut out = Vec::new();
        if self.spec().is_none() {
            return out;
        }
        if config.sandbox.hide.is_none() {
            out.extend(homes.and_then(sandbox::Homes::unknown_warning));
        }
        if options.box_entry.is_none() {
            out.push("⚠ the box has no entry point (SessionOptions::box_entry), so it runs without Landlock: a sandboxed hook can write into host FIFOs it can see.".into());
        }
        out
    }
}

/// Removes the private temp folders that sessions killed before their end left in the
/// system temp folder ([`sandbox::sweep_private_tmps`]: only folders named and owned as
/// hookhost makes them, whose lock no live session holds). Every session start does
/// this, whether it makes a folder of its own or not (`create_private_tmp` sweeps for the
/// one that does). A `--private-tmp DIR` (`keep`) is never swept: it is locked first, so
/// the sweep finds it held like a live session's; the lock is returned, for a session
/// that uses DIR to hold for its life (`None` when DIR cannot be locked: another live
/// session holds it, which keeps it from the sweep too, or it is not a folder).
///
/// A long-lived process (`serve`, `warm`) starts a session per call: it sweeps one temp
/// folder at most once per [`SWEEP_EVERY`]. The sweep lists the whole temp folder, and a
/// listing per call was a twentieth of a warm server's call with 150 entries in `/tmp`
/// (BENCHMARKS.md, eleventh sitting); a busy `/tmp` holds thousands.
pub(super) fn sweep_dead_tmps(temp: &Path, keep: Option<&Path>) -> Option<std::fs::File> {
    let held = keep.and_then(|dir| {
        // The folder itself, not a link to it, which the sweep would not see as DIR.
        let dir = std::fs::canonicalize(dir).ok()?;
        let folder = crate::platform::sys::folders::open_folder(&dir).ok()?;
        folder.try_lock().ok()?;
        Some(folder)
    });
    if sweep_due(temp) {
        sandbox::sweep_private_tmps(temp);
    }
    held
}

/// How long a process leaves a temp folder it swept before it sweeps it again: what a
/// killed session leaves waits that much longer, and nothing is kept from a live one.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Whether this process last swept `temp` at least [`SWEEP_EVERY`] ago (or never), and
/// if so, that it sweeps it now.
fn sweep_due(temp: &Path) -> bool {
    static SWEPT: std::sync::Mutex<Vec<(PathBuf, std::time::Instant)>> =
        std::sync::Mutex::new(Vec::new());
    let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
    let now = std::time::Instant::now();
    match swept.iter_mut().find(|(folder, _)| folder == temp) {
        Some((_, last)) if now.duration_since(*last) < SWEEP_EVERY => false,
        Some((_, last)) => {
            *last = now;
            true
        }
        None => {
            swept.push((temp.to_path_buf(), now));
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_sweeps_a_temp_folder_at_most_once_a_minute() {
        let temp = Path::new("/nonexistent/sweep-due-test");
        let other = Path::new("/nonexistent/sweep-due-test-2");
        assert!(sweep_due(temp), "the first start sweeps");
        assert!(
            !sweep_due(temp),
            "the next one, within the minute, does not"
        );
        assert!(sweep_due(other), "another temp folder is its own");
        assert!(!sweep_due(other));
    }
}
