//! POSIX: who we are and who owns a file, a file's identity, its mode bits and link
//! count, as the path guard's OpenSSH-style ownership rule asks for them.
//!
//! Each function answers one question in the guard's words, so that another OS can
//! answer it in its own (Windows has neither uids nor mode bits).

use std::fs::Metadata;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// The effective user id: whose files count as "ours".
pub(crate) fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether the caller is the administrator (root): who may write the agents'
/// administrator-managed settings (`install --scope system`).
pub(crate) fn is_administrator() -> bool {
    effective_uid() == 0
}

/// The uid that owns the file.
pub(crate) fn owner_of(meta: &Metadata) -> u32 {
    meta.uid()
}

pub(crate) use crate::platform::FileId;
use crate::platform::{AdminProblem, Standing};

/// The identity of what `path` names (links followed); `None` when it cannot be read.
pub(crate) fn identity(path: &Path) -> Option<FileId> {
    identity_in(&std::fs::metadata(path).ok()?)
}

/// The identity that `meta`, read of a file, gives it: always, here.
pub(crate) fn identity_in(meta: &Metadata) -> Option<FileId> {
    Some(FileId {
        dev: meta.dev(),
        ino: meta.ino(),
        links: meta.nlink(),
    })
}

/// The group or others may write it (mode `0o022`).
pub(crate) fn writable_by_others(meta: &Metadata) -> bool {
    meta.permissions().mode() & 0o022 != 0
}

/// The sticky bit (mode `0o1000`): in a folder, only a file's owner may remove or rename
/// it, as in `/tmp`.
pub(crate) fn is_sticky(meta: &Metadata) -> bool {
    meta.permissions().mode() & 0o1000 != 0
}

/// System mode's rule for one path a walk passed (`meta`: its own, links not followed):
/// the end must not be group- or world-writable, a folder on the way not unless it is
/// sticky, and each of them, links included, must be root's (docs/contract.md#system-mode).
pub(crate) fn admin_only_problem(
    _path: &Path,
    meta: &Metadata,
    standing: Standing,
) -> Option<AdminProblem> {
    let open = match standing {
        // The end itself: the sticky bit does not help (others could add files to it).
        Standing::End => writable_by_others(meta),
        Standing::Link => false,
        Standing::Folder => {
            let sticky_dir = meta.is_dir() && is_sticky(meta);
            !meta.file_type().is_symlink() && writable_by_others(meta) && !sticky_dir
        }
    };
    if open {
        return Some(AdminProblem::OpenMode);
    }
    let owner = owner_of(meta);
    (owner != 0).then_some(AdminProblem::OwnerUid(owner))
}

/// Any execute bit (mode `0o111`).
pub(crate) fn has_execute_bit(meta: &Metadata) -> bool {
    meta.permissions().mode() & 0o111 != 0
}
