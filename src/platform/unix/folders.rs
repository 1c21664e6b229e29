//! The private temp folders' primitives (see [`crate::sandbox::create_private_tmp`]): a
//! folder opened for its `flock`, a rename that never replaces, and whether a folder
//! seen twice is still the same one of ours.

use std::ffi::CString;
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Opens a folder itself (not a link to one), close-on-exec, for its `flock`.
pub(crate) fn open_folder(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Whether `meta` is a folder (not a link) owned by this process's effective user.
pub(crate) fn is_own_folder(meta: &Metadata) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    meta.is_dir() && meta.uid() == unsafe { libc::geteuid() }
}

/// Whether two metadata describe the same file (device and inode).
pub(crate) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// `rename(from, to)`, failing rather than replacing an existing `to`.
pub(crate) fn rename_no_replace(from_path: &Path, to_path: &Path) -> io::Result<()> {
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))
    };
    let (from, to) = (c(from_path)?, c(to_path)?);
    if exclusive_rename(&from, &to) == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        // A kernel or file system without an exclusive rename: a plain rename when `to`
        // is absent (one appearing in between would have to guess 64 random bits).
        Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP)
            if std::fs::symlink_metadata(to_path).is_err() =>
        {
            std::fs::rename(from_path, to_path)
        }
        _ => Err(error),
    }
}

/// Linux: `renameat2(RENAME_NOREPLACE)`.
#[cfg(target_os = "linux")]
fn exclusive_rename(from: &CString, to: &CString) -> libc::c_int {
    // SAFETY: two valid NUL-terminated paths that outlive the call.
    unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    }
}

/// macOS: `renamex_np(RENAME_EXCL)`.
#[cfg(target_os = "macos")]
fn exclusive_rename(from: &CString, to: &CString) -> libc::c_int {
    // SAFETY: two valid NUL-terminated paths that outlive the call.
    unsafe { libc::renamex_np(from.as_ptr(), to.as_ptr(), libc::RENAME_EXCL) }
}
