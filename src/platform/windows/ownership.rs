//! Windows: the guard's ownership questions, answered without uids or mode bits. At user
//! scope files are the user's (ACLs decide, and the profile's are private) and nothing is
//! writable by others through a mode (the README says so); system mode's "the
//! administrator's alone" reads each path's owner and DACL ([`admin_only_problem`]); a
//! file's identity and link count come from the file itself.

use std::fs::{Metadata, OpenOptions};
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::path::Path;

use windows_sys::Win32::Foundation::HANDLE;
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_FLAG_BACKUP_SEMANTICS, GetFileInformationByHandle,
};

/// One user: the caller.
pub(crate) fn effective_uid() -> u32 {
    0
}

/// Whether the caller is the administrator: its token has BUILTIN\Administrators enabled
/// (elevated). An administrator's unelevated process, as an agent runs, is not.
pub(crate) fn is_administrator() -> bool {
    super::security::is_elevated_administrator()
}

/// Every file counts as the caller's.
pub(crate) fn owner_of(_meta: &Metadata) -> u32 {
    0
}

pub(crate) use crate::platform::FileId;
use crate::platform::{AdminProblem, Standing, acl};

/// System mode's rule for one path a walk passed, from its owner and DACL (a link's own,
/// not its target's), judged by [`acl::judge`]; a path whose security cannot be read is a
/// problem too, since it cannot be shown to be the administrator's.
pub(crate) fn admin_only_problem(
    path: &Path,
    _meta: &Metadata,
    standing: Standing,
) -> Option<AdminProblem> {
    let problem = match super::security::owner_and_dacl(path) {
        Ok((owner, dacl)) => acl::judge(&owner, dacl.as_deref(), standing),
        Err(e) => Some(acl::AclProblem::Unreadable(e.to_string())),
    };
    problem.map(|mut problem| {
        if let Some(account) = problem.account_mut() {
            account.name = super::security::account_name(&account.sid);
        }
        AdminProblem::Acl(problem)
    })
}

/// The identity of what `path` names (links followed), from the file itself
/// (`GetFileInformationByHandle`; std gives no file index on stable Rust); `None` when
/// it cannot be opened.
pub(crate) fn identity(path: &Path) -> Option<FileId> {
    // No access rights asked: only the file's attributes are read. Backup semantics
    // open folders too.
    let file = OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
        .ok()?;
    let mut info = BY_HANDLE_FILE_INFORMATION::default();
    // SAFETY: the handle is live for the call (owned by `file`); `info` is ours.
    if unsafe { GetFileInformationByHandle(file.as_raw_handle() as HANDLE, &mut info) } == 0 {
        return None;
    }
    Some(FileId {
        dev: u64::from(info.dwVolumeSerialNumber),
        ino: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        links: u64::from(info.nNumberOfLinks),
    })
}

/// Never: std's metadata holds no file index on stable Rust, so only [`identity`] can
/// tell.
pub(crate) fn identity_in(_meta: &Metadata) -> Option<FileId> {
    None
}

/// No mode bits: ACLs decide, and the guard cannot read them.
pub(crate) fn writable_by_others(_meta: &Metadata) -> bool {
    false
}

/// No sticky bit.
pub(crate) fn is_sticky(_meta: &Metadata) -> bool {
    false
}

/// Windows runs a file by its extension: any file may be a program.
pub(crate) fn has_execute_bit(meta: &Metadata) -> bool {
    meta.is_file()
}
