//! The box: where `sandbox = true` argv hooks (and `hookhost box -- CMD`) run, the
//! same box the agent's own commands run in. It can read widely, write only where the
//! agent's commands can, and has no network and no provider key.
//!
//! This module is the box's OS-neutral face: what the box is made of ([`BoxSpec`]), why a
//! session has none ([`Unavailable`]), the credential paths it hides ([`default_hidden`],
//! [`Homes`]) and the session's private temp folder ([`create_private_tmp`]). Each OS
//! builds it with the strongest tool it has (`platform::sys::boxed`):
//!
//! - **Linux**: bubblewrap, with a seccomp filter and Landlock write rules (namespaces:
//!   the private temp folder *is* the box's `/tmp`);
//! - **macOS**: a Seatbelt profile run by `sandbox-exec` ([`seatbelt`]): writes only to the
//!   project, the writable folders and the private temp folder (named by `TMPDIR`), hidden
//!   paths unreadable, no network;
//! - **Windows**: none. Every argv hook runs on the host, the banner says so, and `check`
//!   recommends WASM hooks, which are sandboxed on every OS.
//!
//! [`probe`] finds the OS's tool and tries it once; when it cannot run it returns
//! [`Unavailable`], whose text says why and what to do. A session remembers a passed
//! trial for the boot (`trial_memo`), so that a fresh process per call does not pay a
//! second start of the tool. Nothing here ever runs a command unsandboxed in place of
//! the box.
//!
//! # The private temp folder
//!
//! [`create_private_tmp`] makes a session's temp folder and holds a `flock` on it for
//! the session's life ([`PrivateTmp`]); a session killed before its end leaves the folder
//! unlocked, and the next one removes it ([`sweep_private_tmps`]), never a live
//! session's, another user's or anything not named like ours.

mod home;
pub mod seatbelt;
mod trial_memo;

/// The box's entry point (Linux: Landlock before exec; elsewhere it refuses), the
/// variable that overrides where the box's program is found, and the kernel's Landlock
/// version (`None` off Linux).
pub use crate::platform::sys::boxed::{
    EXISTS_ON_THIS_OS, NAME, PROGRAM_ENV, box_entry_main, landlock_abi, prepare_carried_entry,
    running_binary,
};
pub use home::Homes;
pub(crate) use trial_memo::TrialMemo;

/// The hidden first argument that makes the hookhost binary act as the box's entry
/// point. `src/main.rs` checks for it before parsing the command line.
pub const BOX_ENTRY_ARG: &str = "__hookhost-box-entry";

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::paths;
use crate::platform::sys;

/// What the box is made of. Every path must be absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxSpec {
    /// The project root: writable, and the working directory.
    pub project: PathBuf,
    /// Extra folders the agent's commands may write (`[sandbox] writable`, `--writable`).
    pub writable: Vec<PathBuf>,
    /// The session's private temp folder (see [`create_private_tmp`]): the box's `/tmp` on
    /// Linux, its `TMPDIR` on macOS.
    pub private_tmp: PathBuf,
    /// Paths the box hides (`[sandbox] hide`, else [`default_hidden_with`] the extra
    /// default paths the front end gives: the agents' credential stores).
    pub hide: Vec<PathBuf>,
    /// The OS's sandboxing program (`bwrap`, `sandbox-exec`), from [`probe`].
    pub program: PathBuf,
    /// The box's entry point: a hookhost binary (or any program whose `main` calls
    /// [`box_entry_main`] when its first argument is [`BOX_ENTRY_ARG`]), which Linux's box
    /// runs first to confine writes with Landlock before it execs the command. It is
    /// opened by [`BoxSpec::command`] and handed in as an fd, so it may live where the box
    /// cannot see. `None`: the command runs without Landlock, and the box can write into
    /// host FIFOs it can see. Other OSes' boxes do not use it.
    pub entry: Option<PathBuf>,
}

/// The sandboxing program that [`probe`] found and ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxProgram {
    /// Its absolute, canonical path.
    pub path: PathBuf,
}

/// Why this session has no sandbox, and what the user can do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{sandbox} cannot run here ({reason}), so this session has no sandbox: every hook runs on the host. {advice}"
)]
pub struct Unavailable {
    /// The box that cannot run: "bubblewrap", "the Seatbelt sandbox (sandbox-exec)", or
    /// "a box for argv hooks" where the OS has none.
    pub sandbox: &'static str,
    /// What went wrong, e.g. "bwrap was not found on PATH".
    pub reason: String,
    /// What to do about it.
    pub advice: String,
}

/// Building the box failed (before anything ran).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A path in the spec is relative.
    #[error("the sandbox needs absolute paths, and {what} is not: {}", path.display())]
    NotAbsolute {
        /// Which path ("the project", "a hidden path", …).
        what: &'static str,
        /// The path as given.
        path: PathBuf,
    },
    /// A path in the spec could not be resolved.
    #[error("{what} {} cannot be used: {source}", path.display())]
    Path {
        /// Which path.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The seccomp filter could not be prepared.
    #[error("could not prepare the sandbox's seccomp filter: {0}")]
    Seccomp(#[source] io::Error),
    /// This OS has no box for argv hooks.
    #[error("{0}")]
    NoBox(&'static str),
    /// The private temp folder could not be created.
    #[error("could not create a private temp folder in {}: {source}", dir.display())]
    PrivateTmp {
        /// The folder it was to be created in.
        dir: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The credential folders and files of common tools under `home`, hidden when
/// `[sandbox] hide` is absent. The agents' own (their login tokens) are not named here:
/// nothing below the front ends knows an agent, so the front end passes them in
/// `SessionOptions::extra_default_hidden`, which [`default_hidden_with`] adds. [`Homes`]
/// applies both to every home the session knows.
pub fn default_hidden(home: &Path) -> Vec<PathBuf> {
    [
        ".ssh",
        ".aws",
        ".gnupg",
        ".config/gcloud",
        ".docker",
        ".kube",
        ".netrc",
        ".config/gh",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
    ]
    .iter()
    .map(|p| home.join(p))
    .collect()
}

/// [`default_hidden`] under `home`, then each of `extra` (relative to `home`; an
/// absolute one is taken as is), leaving out a path already listed or inside one listed
/// before it (`.aws/amazonq` when `.aws` is hidden whole): the box covers each path once.
pub fn default_hidden_with(home: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    // The list depends on its arguments alone, and a process that starts a session per
    // call (the warm server) asks for the same one every time: the last few are kept.
    type Kept = Vec<((PathBuf, Vec<PathBuf>), Vec<PathBuf>)>;
    static KEPT: std::sync::Mutex<Kept> = std::sync::Mutex::new(Vec::new());
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, list)) = kept.iter().find(|((h, e), _)| h == home && e == extra) {
        return list.clone();
    }
    let list = hidden_list(home, extra);
    if kept.len() >= 8 {
        kept.remove(0);
    }
    kept.push(((home.to_path_buf(), extra.to_vec()), list.clone()));
    list
}

/// [`default_hidden_with`], made.
fn hidden_list(home: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = default_hidden(home);
    // `p` is inside a listed `q` exactly when one of its ancestors (itself included)
    // equals `q`, component by component as `starts_with` compares: a set of the listed
    // paths answers that in a few look-ups per path, where comparing every pair cost
    // 43 % of a no-hook bridged call's instructions with two homes (BENCHMARKS.md,
    // seventh sitting).
    let mut listed: std::collections::BTreeSet<PathBuf> = out.iter().cloned().collect();
    for p in extra {
        let p = home.join(p);
        if !p.ancestors().any(|a| listed.contains(a)) {
            listed.insert(p.clone());
            out.push(p);
        }
    }
    out
}

impl BoxSpec {
    /// A std Command that runs `argv` in the box with exactly `env` as its environment
    /// (the caller scrubbed it). stdin/stdout/stderr, process group and the spawner
    /// thread are the caller's business.
    ///
    /// `hookhost box -- CMD ARGS…` uses this too, so it runs commands in the very box a
    /// sandboxed hook gets.
    pub fn command(
        &self,
        argv: &[OsString],
        env: &[(OsString, OsString)],
    ) -> Result<Command, SandboxError> {
        sys::boxed::command(self, argv, env)
    }
}

/// Find the OS's sandboxing tool and run it once, with the box's flags, on `true`.
///
/// `program_override` is the value of [`PROGRAM_ENV`] if set (it must be absolute);
/// otherwise the tool is looked up on `path_env`, using only absolute entries outside
/// `project` (and refusing one that resolves into the project).
pub fn probe(
    program_override: Option<&Path>,
    path_env: Option<&OsStr>,
    project: &Path,
) -> Result<BoxProgram, Unavailable> {
    probe_remembered(program_override, path_env, project, &TrialMemo::none())
}

/// [`probe`], without the trial run when `memo` says a trial of the same tool passed
/// earlier in this boot (`trial_memo.rs`); a trial that passes now is remembered there.
pub(crate) fn probe_remembered(
    program_override: Option<&Path>,
    path_env: Option<&OsStr>,
    project: &Path,
    memo: &TrialMemo,
) -> Result<BoxProgram, Unavailable> {
    let found = sys::boxed::find(program_override, path_env, project)?;
    if memo.passed_before(&found.path) {
        return Ok(found);
    }
    sys::boxed::trial(&found, project)?;
    memo.remember(&found.path);
    Ok(found)
}

/// The name of a session's private temp folder ends with this (after
/// `hookhost-SESSION-RANDOM`). No folder made before the lock existed has it, and a
/// folder being set up (`….new`) does not have it yet, so [`sweep_private_tmps`] never
/// looks at either.
const PRIVATE_TMP_SUFFIX: &str = ".tmp";

/// A session's private temp folder: made by [`create_private_tmp`], held (an exclusive
/// `flock` on the folder itself) for as long as this value lives, and removed with its
/// contents when it is dropped.
///
/// The lock is the proof that the session is alive: a session killed before it could
/// remove its folder leaves it unlocked, and the next [`create_private_tmp`] removes it
/// (see [`sweep_private_tmps`]). Why the folder itself holds the lock: in the box it is
/// the mount point of `/tmp`, so the agent can neither remove nor replace it (a lock
/// file inside could be unlinked, one beside it would be one more entry to race over);
/// its descriptor is close-on-exec, so no hook inherits it.
#[derive(Debug)]
pub struct PrivateTmp {
    path: PathBuf,
    /// The open folder whose `flock` marks the session alive.
    lock: std::fs::File,
}

impl PrivateTmp {
    /// The folder (canonical).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::ops::Deref for PrivateTmp {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for PrivateTmp {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl PartialEq for PrivateTmp {
    fn eq(&self, other: &PrivateTmp) -> bool {
        self.path == other.path
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        // Removed while still locked, so no sweep can take it for a stale one meanwhile.
        sys::folders::remove_tree(&self.path, &self.lock);
    }
}

/// Create a fresh private temp folder (mode 0700) for a session, under the system temp
/// folder `dir` (the session environment's `$TMPDIR`, else `/tmp`:
/// [`crate::env::Environment::temp_folder`]), named `hookhost-SESSION-RANDOM.tmp`, and lock it for
/// the session's life. Dropping the value removes it. First removes the folders that
/// sessions killed before their end left there ([`sweep_private_tmps`]).
pub fn create_private_tmp(dir: &Path, session_id: &str) -> Result<PrivateTmp, SandboxError> {
    let dir = dir.to_path_buf();
    let fail = |source| SandboxError::PrivateTmp {
        dir: dir.clone(),
        source,
    };
    if !dir.is_absolute() {
        return Err(fail(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the temp folder is not an absolute path",
        )));
    }
    sweep_private_tmps(&dir);
    let mut tag: String = session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(64)
        .collect();
    if tag.is_empty() {
        tag = "session".into();
    }
    let mut last = io::Error::other("no attempt made");
    for _ in 0..16 {
        let mut rnd = [0u8; 8];
        getrandom::fill(&mut rnd).map_err(|e| fail(io::Error::other(e.to_string())))?;
        let name = format!("hookhost-{tag}-{}", hex::encode(rnd));
        // Made and locked under a name the sweep ignores, then renamed (the lock stays
        // with the folder): a concurrent start never sees it unlocked.
        let setup = dir.join(format!("{name}.new"));
        let path = dir.join(format!("{name}{PRIVATE_TMP_SUFFIX}"));
        match sys::files::private_dir_mode(&mut std::fs::DirBuilder::new()).create(&setup) {
            Ok(()) => {
                let locked = lock_new_folder(&setup, &path);
                if locked.is_err() {
                    let _ = std::fs::remove_dir(&setup);
                }
                let lock = locked.map_err(fail)?;
                return match std::fs::canonicalize(&path) {
                    Ok(canonical) => Ok(PrivateTmp {
                        path: canonical,
                        lock,
                    }),
                    Err(e) => {
                        sys::folders::remove_tree(&path, &lock);
                        Err(fail(e))
                    }
                };
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(fail(e)),
        }
    }
    Err(fail(last))
}

/// Sets 0700 on the new folder `setup`, locks it and renames it to `path`; returns the
/// open, locked folder.
fn lock_new_folder(setup: &Path, path: &Path) -> io::Result<std::fs::File> {
    // The umask may have removed bits the owner needs; set 0700 exactly.
    sys::files::make_dir_private(setup)?;
    let folder = sys::folders::open_folder(setup)?;
    match folder.try_lock() {
        Ok(()) => {}
        // A file system without `flock` (some network ones) refuses it to every
        // process alike, so no sweep can take it either: the folder is only never
        // swept. Nobody else can hold a lock on a folder made a moment ago.
        Err(std::fs::TryLockError::Error(_)) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(io::Error::other("the new folder is locked by someone else"));
        }
    }
    sys::folders::rename_no_replace(setup, path)?;
    Ok(folder)
}

/// Removes the private temp folders in `dir` whose session is gone, and returns them.
///
/// A folder is removed only when all of these hold: its name is exactly
/// `hookhost-TAG-HEX.tmp` (TAG 1–64 of `A-Za-z0-9_-`, HEX 16 lowercase hex digits); it is
/// a folder, not a link, owned by this process's user; and its `flock` can be taken,
/// which no live session allows (each holds it until its folder is gone). The lock is
/// held while it is removed, and the path is checked to still be the folder locked.
/// Anything else (another name, another user's folder, a live session's) is left alone.
/// Best effort: what cannot be read or removed stays.
pub fn sweep_private_tmps(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_private_tmp_name) {
            continue;
        }
        let path = entry.path();
        let ours = sys::folders::is_own_folder;
        let Ok(seen) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !ours(&seen) {
            continue;
        }
        let Ok(folder) = sys::folders::open_own_folder(&path) else {
            continue;
        };
        if folder.try_lock().is_err() {
            continue; // a live session holds it (or the lock cannot be taken here)
        }
        let (Ok(locked), Ok(now)) = (folder.metadata(), std::fs::symlink_metadata(&path)) else {
            continue;
        };
        if !ours(&locked) || !sys::folders::same_file(&locked, &now) {
            continue;
        }
        sys::folders::remove_tree(&path, &folder);
        removed.push(path);
    }
    removed
}

/// Whether `name` is exactly a private temp folder's: `hookhost-TAG-HEX.tmp`.
fn is_private_tmp_name(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("hookhost-")
        .and_then(|r| r.strip_suffix(PRIVATE_TMP_SUFFIX))
    else {
        return false;
    };
    let Some((tag, hex)) = rest.rsplit_once('-') else {
        return false;
    };
    (1..=64).contains(&tag.len())
        && tag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && hex.len() == 16
        && hex.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'))
}

impl crate::executor::argv::Launcher for BoxSpec {
    /// The box sets its own working directory (the project root), so `cwd` is unused.
    ///
    /// A sandboxing program that ran at start and is gone now (uninstalled mid-session)
    /// is said to be the cause: otherwise the spawn's "not found" would read as the
    /// hook's program.
    fn command(
        &self,
        argv: &[OsString],
        env: &[(OsString, OsString)],
        _cwd: &Path,
    ) -> io::Result<Command> {
        if !paths::is_executable_file(&self.program) {
            return Err(io::Error::other(format!(
                "{} ({}) ran when the session started but cannot be run now, so the hook cannot run in its sandbox; restart the session",
                sys::boxed::NAME,
                self.program.display()
            )));
        }
        BoxSpec::command(self, argv, env).map_err(io::Error::other)
    }

    /// bwrap exits 128 + the signal when the hook is killed by one (sandbox-exec execs
    /// the hook, whose own status is seen).
    fn reports_signals_as_exit_codes(&self) -> bool {
        sys::boxed::REPORTS_SIGNALS_AS_EXIT_CODES
    }
}
