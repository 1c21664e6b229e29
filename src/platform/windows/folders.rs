//! Windows: the private temp folders' primitives. They exist for the box, which Windows
//! does not have; these keep the OS-neutral code whole.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::path::Path;

use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_BACKUP_SEMANTICS;

/// Opens a folder itself (a directory handle needs backup semantics).
pub(crate) fn open_folder(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

/// Whether `meta` is a folder, not a link (every file under the user's temp folder is
/// the user's).
pub(crate) fn is_own_folder(meta: &Metadata) -> bool {
    meta.is_dir() && !meta.file_type().is_symlink()
}

/// Whether two metadata describe the same folder: the same creation time (std gives no
/// file index on stable Rust).
pub(crate) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    matches!((a.created(), b.created()), (Ok(x), Ok(y)) if x == y)
}

/// `rename(from, to)`, failing rather than replacing an existing `to`.
pub(crate) fn rename_no_replace(from_path: &Path, to_path: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(to_path).is_ok() {
        return Err(io::Error::from(io::ErrorKind::AlreadyExists));
    }
    std::fs::rename(from_path, to_path)
}
