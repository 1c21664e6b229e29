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

/// The uid that owns the file.
pub(crate) fn owner_of(meta: &Metadata) -> u32 {
    meta.uid()
}

/// Who a file is, wherever it is named from: equal `dev` and `ino` for two names of the
/// same file or folder (a bind mount included), and how many names it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    /// The device (file system) it is on.
    pub(crate) dev: u64,
    /// Its inode on that device.
    pub(crate) ino: u64,
    /// How many names (hard links) it has.
    pub(crate) links: u64,
}

/// The identity of what `path` names (links followed); `None` when it cannot be read.
pub(crate) fn identity(path: &Path) -> Option<FileId> {
    let meta = std::fs::metadata(path).ok()?;
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

/// Any execute bit (mode `0o111`).
pub(crate) fn has_execute_bit(meta: &Metadata) -> bool {
    meta.permissions().mode() & 0o111 != 0
}
