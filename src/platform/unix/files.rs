//! POSIX: private files and folders (owner-only modes, whatever the umask), and the mode
//! bits and owner of a file.

use std::fs::{DirBuilder, File, Metadata, OpenOptions, Permissions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// A file that `options` creates gets mode 0600 (less the umask).
pub(crate) fn private_file_mode(options: &mut OpenOptions) -> &mut OpenOptions {
    options.mode(0o600)
}

/// A folder that `builder` creates gets mode 0700 (less the umask).
pub(crate) fn private_dir_mode(builder: &mut DirBuilder) -> &mut DirBuilder {
    builder.mode(0o700)
}

/// A file that `options` creates gets mode 0644 (less the umask): others may read it, only
/// the owner may write it (an agent's settings file that `install` creates).
pub(crate) fn shared_file_mode(options: &mut OpenOptions) -> &mut OpenOptions {
    options.mode(0o644)
}

/// A folder that `builder` creates gets mode 0755 (less the umask): others may enter it,
/// only the owner may write it.
pub(crate) fn shared_dir_mode(builder: &mut DirBuilder) -> &mut DirBuilder {
    builder.mode(0o755)
}

/// Nothing to do: what root writes is root's.
pub(crate) fn give_to_administrators(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Sets the open `file`'s mode to 0600 (the umask may have taken bits when it was
/// created).
pub(crate) fn make_file_private(file: &File) -> std::io::Result<()> {
    file.set_permissions(Permissions::from_mode(0o600))
}

/// Sets the folder `dir`'s mode to 0700 (the umask may have taken bits when it was
/// created).
pub(crate) fn make_dir_private(dir: &Path) -> std::io::Result<()> {
    std::fs::set_permissions(dir, Permissions::from_mode(0o700))
}

/// What a file's metadata says of its identity and last change: inode, change time
/// (seconds, nanoseconds) and size. The change time moves on every write, rename over and
/// `chmod`, and its owner cannot set it back (only the clock can).
pub(crate) fn change_stamp(metadata: &Metadata) -> [i64; 4] {
    use std::os::unix::fs::MetadataExt;
    [
        metadata.ino() as i64,
        metadata.ctime(),
        metadata.ctime_nsec(),
        metadata.size() as i64,
    ]
}

/// The file's mode bits (type, set-id, sticky and permission bits, as `st_mode`).
pub(crate) fn mode_bits(metadata: &Metadata) -> u32 {
    metadata.permissions().mode()
}

/// `options` also opens without blocking (`O_NONBLOCK`), so that opening a FIFO with no
/// writer (or a device that waits) returns at once; on a regular file the flag changes
/// nothing.
pub(crate) fn open_without_blocking(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
}

/// Writes all of `bytes` at `offset` of `file` (`pwrite`), leaving the file's position
/// where it was: one syscall where a seek and a write are two.
pub(crate) fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

/// Makes `link` a symbolic link to the file `target` (tests of files reached by a link).
#[cfg(test)]
pub(crate) fn symlink_file(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}
