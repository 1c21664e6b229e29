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

/// Removes a folder and everything in it, best effort; links are removed, never
/// followed. Where std's removal fails, what was left read-only is made writable (the
/// tree walked with a list, not by recursion) and the removal is tried again. Windows has
/// no box, so no session makes a private temp folder here.
pub(crate) fn remove_tree(path: &Path, _folder: &File) {
    if std::fs::remove_dir_all(path).is_ok() {
        return;
    }
    let mut todo = vec![path.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&dir) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let _ = crate::platform::sys::files::make_dir_private(&dir);
        if let Ok(entries) = std::fs::read_dir(&dir) {
            todo.extend(entries.flatten().map(|entry| entry.path()));
        }
    }
    let _ = std::fs::remove_dir_all(path);
}

/// Opens a folder itself ([`open_folder`]).
pub(crate) fn open_own_folder(path: &Path) -> io::Result<File> {
    open_folder(path)
}
