//! The other things a session trusts besides the hooks' own files: its config file, its
//! session record and the WASM compile cache must lie outside the agent's reach, and a
//! host hook in a sandboxed session gets a PATH the agent cannot plant a program in.

use std::env;
use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use super::folders::{Examined, Folder, find_in, per_process_link};
use super::ownership::{Owners, ownership_problem};
use super::{GuardContext, Place, Refusal, Who};
use crate::paths::{memoised, walk};
use crate::platform::sys::ownership::effective_uid;

/// Refuses a config file (one that holds `[[hooks]]`) that lies where the agent can write.
pub fn check_config_file(ctx: &GuardContext, config: &Path) -> Result<(), Refusal> {
    memoised(|| {
        let place = locate_outside(ctx, config, Who::Config)?;
        match place {
            Some(place) => Err(Refusal::Config {
                path: config.to_path_buf(),
                place,
            }),
            None => Ok(()),
        }
    })
}

/// Refuses a session record (to write with `--log`, or to resume) that lies where the
/// agent can write: it could rewrite the hooks a resume keeps. It need not exist yet.
pub fn check_record_file(ctx: &GuardContext, record: &Path) -> Result<(), Refusal> {
    memoised(|| match locate_outside(ctx, record, Who::Record)? {
        Some(place) => Err(Refusal::Record {
            path: record.to_path_buf(),
            place,
        }),
        None => Ok(()),
    })
}

/// Refuses a WASM compile cache folder the agent could write, or others could (OpenSSH's
/// rule, on the folder and every folder on its way). It need not exist yet.
pub fn check_cache_dir(ctx: &GuardContext, dir: &Path) -> Result<(), Refusal> {
    memoised(|| check_cache_dir_memoised(ctx, dir))
}

/// [`check_cache_dir`], inside its check's memo of the file system.
fn check_cache_dir_memoised(ctx: &GuardContext, dir: &Path) -> Result<(), Refusal> {
    if let Some(place) = locate_outside(ctx, dir, Who::CacheDir)? {
        return Err(Refusal::CacheDir {
            path: dir.to_path_buf(),
            place,
        });
    }
    let abs =
        absolute(dir).map_err(|_| untraceable(Who::CacheDir, dir, "it cannot be made absolute"))?;
    let walk = walk(&abs).map_err(|e| untraceable(Who::CacheDir, dir, e))?;
    match ownership_problem(&walk, Owners::RootOr(effective_uid())) {
        Some(problem) => Err(Refusal::Ownership {
            who: Who::CacheDir,
            subject: dir.display().to_string(),
            problem,
        }),
        None => Ok(()),
    }
}

/// System mode's rule (docs/contract.md#system-mode): `path` exists, and it and every
/// folder and link on its way are owned by root and not group- or world-writable (a
/// sticky folder only with a root-owned entry), so no user but root can change what it
/// holds. The install side calls it at `install --scope system`; the bridge in system
/// mode calls it on the system config, the compile cache and its own binary. A refusal
/// names the file, who could write it and what to run.
pub fn check_admin_only(path: &Path) -> Result<(), Refusal> {
    check_admin_only_as(Who::SystemFile, path)
}

/// [`check_admin_only`], with the refusal's message starting with `who`.
pub fn check_admin_only_as(who: Who, path: &Path) -> Result<(), Refusal> {
    memoised(|| check_admin_only_memoised(who, path))
}

/// [`check_admin_only_as`], inside its check's memo of the file system.
fn check_admin_only_memoised(who: Who, path: &Path) -> Result<(), Refusal> {
    let walk = absolute(path)
        .map_err(|e| untraceable(who.clone(), path, e))
        .and_then(|abs| walk(&abs).map_err(|e| untraceable(who.clone(), path, e)))?;
    if !walk.end_exists {
        return Err(untraceable(who, path, "it does not exist"));
    }
    match ownership_problem(&walk, Owners::RootOnly) {
        Some(problem) => Err(Refusal::NotAdminOnly {
            who,
            subject: path.display().to_string(),
            problem,
        }),
        None => Ok(()),
    }
}

/// The PATH for an argv hook, on the host or in the box: in a sandboxed session, PATH without empty or relative
/// entries, entries inside an agent-writable folder, and entries that cannot be traced
/// (a dangling link, a loop); `None` (run with no PATH) when nothing is left. Without a
/// sandbox PATH is unchanged.
pub fn scrub_path_for_argv_hooks(ctx: &GuardContext) -> Option<OsString> {
    if !ctx.sandboxed_session {
        return ctx.path_env.clone();
    }
    memoised(|| scrub_path_memoised(ctx))
}

/// [`scrub_path_for_argv_hooks`] in a sandboxed session, inside its check's memo.
fn scrub_path_memoised(ctx: &GuardContext) -> Option<OsString> {
    let path = ctx.path_env.as_ref()?;
    let folders = ctx.writable_folders();
    let kept: Vec<PathBuf> = env::split_paths(path)
        .filter(|entry| keep_path_entry(entry, &folders))
        .collect();
    if kept.is_empty() {
        return None;
    }
    env::join_paths(kept).ok()
}

/// Whether a host hook's PATH entry survives scrubbing.
fn keep_path_entry(entry: &Path, folders: &[Folder]) -> bool {
    if entry.as_os_str().is_empty() || !entry.is_absolute() {
        return false;
    }
    let seen = Examined::new(entry.to_path_buf());
    if per_process_link(&seen).is_some() {
        return false; // `/proc/self/cwd/bin` is the hook's cwd at run time, not ours
    }
    match find_in(&seen, folders) {
        Ok(None) => seen.walk.as_ref().is_ok_and(|w| !w.dangling),
        _ => false,
    }
}

/// Where a config file or cache folder lies among the writable folders, if anywhere.
fn locate_outside(ctx: &GuardContext, path: &Path, who: Who) -> Result<Option<Place>, Refusal> {
    let abs = absolute(path).map_err(|e| untraceable(who.clone(), path, e))?;
    let seen = Examined::new(abs);
    let folders = ctx.writable_folders();
    match find_in(&seen, &folders) {
        Ok(found) => Ok(found.map(|found| found.place())),
        Err(cause) => Err(untraceable(who, path, cause)),
    }
}

/// An [`Refusal::Untraceable`] for a path.
fn untraceable(who: Who, path: &Path, cause: impl fmt::Display) -> Refusal {
    Refusal::Untraceable {
        who,
        subject: path.display().to_string(),
        cause: cause.to_string(),
    }
}

/// `path` made absolute against the current directory.
fn absolute(path: &Path) -> io::Result<PathBuf> {
    std::path::absolute(path)
}
