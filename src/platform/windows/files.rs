//! Windows: private files and folders. A file created under the user's profile inherits
//! an ACL that gives only the user (and SYSTEM and Administrators) access, so there is no
//! mode to set; hookhost's files all live there.

use std::fs::{DirBuilder, File, Metadata, OpenOptions};
use std::path::Path;

/// Nothing to add: the profile's inherited ACL makes the file private.
pub(crate) fn private_file_mode(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// Nothing to add: the profile's inherited ACL makes the folder private.
pub(crate) fn private_dir_mode(builder: &mut DirBuilder) -> &mut DirBuilder {
    builder
}

/// Nothing to add: the folder's inherited ACL decides who may write (no umask).
pub(crate) fn shared_file_mode(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// Nothing to add: the folder's inherited ACL decides who may write (no umask).
pub(crate) fn shared_dir_mode(builder: &mut DirBuilder) -> &mut DirBuilder {
    builder
}

/// Makes the system compile cache's new file `path` the administrator's: owned by
/// Administrators (its DACL is inherited from the cache folder, made protected).
pub(crate) fn give_to_administrators(path: &Path) -> std::io::Result<()> {
    super::security::give_to_administrators(path)
}

/// Nothing to do (see [`private_file_mode`]).
pub(crate) fn make_file_private(_file: &File) -> std::io::Result<()> {
    Ok(())
}

/// Nothing to do (see [`private_dir_mode`]).
pub(crate) fn make_dir_private(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

/// What a file's metadata says of its last change: the last write time (seconds and
/// nanoseconds since the epoch) and size; Windows has no change time a file's owner
/// cannot set, so a file whose stamp matches is trusted less than on POSIX.
pub(crate) fn change_stamp(metadata: &Metadata) -> [i64; 4] {
    let written = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .unwrap_or_default();
    [
        0,
        written.as_secs() as i64,
        i64::from(written.subsec_nanos()),
        metadata.len() as i64,
    ]
}

/// The mode bits POSIX would show: owner-only (`0600`), as the inherited ACL has it.
pub(crate) fn mode_bits(_metadata: &Metadata) -> u32 {
    0o600
}

/// Opening never blocks on Windows files (named pipes live outside the file system).
pub(crate) fn open_without_blocking(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// Writes all of `bytes` at `offset` of `file` (one positioned write where the OS takes
/// it whole). Windows moves the file's position past what was written; no caller reads
/// or writes the file through its position.
pub(crate) fn write_all_at(file: &File, mut bytes: &[u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !bytes.is_empty() {
        match file.seek_write(bytes, offset) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                bytes = &bytes[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Makes `link` a symbolic link to the file `target` (tests of files reached by a link;
/// Windows needs the right to create links, developer mode or an administrator).
#[cfg(test)]
pub(crate) fn symlink_file(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_file(target, link)
}
