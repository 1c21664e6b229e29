//! The private temp folders' primitives (see [`crate::sandbox::create_private_tmp`]): a
//! folder opened for its `flock`, a rename that never replaces, and whether a folder
//! seen twice is still the same one of ours.

use std::ffi::{CStr, CString};
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

/// Opens a folder itself, as [`open_folder`], making it 0700 first where it cannot be
/// read (an agent can `chmod 000` a folder of its own): not through a link.
pub(crate) fn open_own_folder(path: &Path) -> io::Result<File> {
    let path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))?;
    open_opening_up(libc::AT_FDCWD, &path)
}

/// The most entries one removal looks at. An agent that can write the folder can add
/// entries as fast as they are removed; past this, what is left stays for a later
/// sweep. A million is more than a package cache's files.
const MOST_ENTRIES: usize = 1 << 20;

/// Removes the folder `path`, open as `folder`, and everything in it, best effort: what
/// cannot be removed stays.
///
/// The tree is walked in a loop, with one folder open at a time, never by recursion:
/// `std::fs::remove_dir_all` goes one call deeper, and holds one more open folder, for
/// each level, and a tree some ten thousand folders deep (one loop of `mkdir a; cd a`
/// in a private temp folder, or in a folder named like one, which every start sweeps)
/// overflowed the stack and killed the process (docs/threats.md B3). The walk starts
/// from `folder`, never from `path` again. Links are removed, never followed. Each
/// folder is made 0700, so that what the agent left read-only or closed (a Go module
/// cache makes its folders 0555) can be emptied. Climbing back, each folder's `..` must
/// still be the folder it was entered from (a subtree moved meanwhile stops the
/// removal), and `path` itself is removed only while it still names `folder`. A folder
/// on another device stops the removal, as anything that cannot be removed does.
pub(crate) fn remove_tree(path: &Path, folder: &File) {
    let _ = remove_tree_walking(path, folder);
}

fn remove_tree_walking(path: &Path, folder: &File) -> io::Result<()> {
    open_up(folder);
    let mut current = open_at(folder, c".", 0)?;
    let root = identity_of(&current)?;
    let mut looked = 0;
    // How each folder below the root was entered: its name in the folder it was entered
    // from, and that folder's identity. And for the root and each of them, the folders
    // found in it that are still to be removed.
    let mut entered: Vec<(CString, (u64, u64))> = Vec::new();
    let mut pending: Vec<Vec<CString>> = vec![Vec::new()];
    // The root's list is never taken off: the walk ends when the root is empty.
    while let Some(to_do) = pending.last_mut() {
        if to_do.is_empty() {
            // Listed again once its folders are gone: what was added meanwhile, or
            // skipped by a listing that removed as it read, is found then.
            *to_do = empty_but_folders(&current, &mut looked)?;
        }
        let Some(name) = to_do.pop() else {
            // Empty: remove it from the folder it was entered from.
            let Some((name, parent_id)) = entered.pop() else {
                break;
            };
            pending.pop();
            let parent = open_at(&current, c"..", 0)?;
            if identity_of(&parent)? != parent_id
                || identity_at(&parent, &name)? != identity_of(&current)?
            {
                return Err(io::Error::other("a folder moved while it was removed"));
            }
            drop(current);
            remove_folder_at(&parent, &name)?;
            current = parent;
            continue;
        };
        let child = open_opening_up(fd(&current), &name)?;
        if identity_of(&child)?.0 != root.0 {
            return Err(io::Error::other("a folder on another device"));
        }
        open_up(&child);
        entered.push((name, identity_of(&current)?));
        pending.push(Vec::new());
        current = child;
    }
    drop(current);
    // `path` itself, from its parent, while it is still the folder emptied.
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(());
    };
    // Its parent as named, links followed (macOS's `/tmp` is one): the identity check
    // below decides.
    let parent = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(parent)?;
    let name = CString::new(name.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the name"))?;
    if identity_at(&parent, &name)? != root {
        return Err(io::Error::other(
            "the folder was replaced while it was removed",
        ));
    }
    remove_folder_at(&parent, &name)
}

/// Removes the empty folder `name` of the open folder `dir`.
fn remove_folder_at(dir: &File, name: &CStr) -> io::Result<()> {
    // SAFETY: an open folder's fd and a NUL-terminated name.
    if unsafe { libc::unlinkat(fd(dir), name.as_ptr(), libc::AT_REMOVEDIR) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Removes every entry of the open folder `dir` that is not a folder (what cannot be
/// removed stays), and returns the names of the folders in it; adds the entries it
/// looked at to `looked`.
fn empty_but_folders(dir: &File, looked: &mut usize) -> io::Result<Vec<CString>> {
    // A description of its own (its own read position, close-on-exec), which the stream
    // takes and closes.
    let listing = std::os::fd::IntoRawFd::into_raw_fd(open_at(dir, c".", 0)?);
    // SAFETY: `listing` is an open folder's fd that nothing else owns; the stream owns
    // it from here on (closed by `closedir` below).
    let stream = unsafe { libc::fdopendir(listing) };
    if stream.is_null() {
        let error = io::Error::last_os_error();
        // SAFETY: no stream took `listing`.
        unsafe { libc::close(listing) };
        return Err(error);
    }
    let mut folders = Vec::new();
    loop {
        // SAFETY: `stream` is open until `closedir`; the entry is valid until the next call.
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            break;
        }
        // SAFETY: `d_name` is a NUL-terminated name inside the entry.
        let name = unsafe { CStr::from_ptr((&raw const (*entry).d_name).cast()) };
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        *looked += 1;
        if *looked > MOST_ENTRIES {
            // SAFETY: closes the stream and the fd it owns.
            unsafe { libc::closedir(stream) };
            return Err(io::Error::other("too many entries to remove"));
        }
        if stat_at(dir, name).is_ok_and(|stat| (stat.st_mode & libc::S_IFMT) == libc::S_IFDIR) {
            folders.push(name.to_owned());
        } else {
            // SAFETY: removes one name (not a folder) of an open folder.
            unsafe { libc::unlinkat(fd(dir), name.as_ptr(), 0) };
        }
    }
    // SAFETY: closes the stream and the fd it owns.
    unsafe { libc::closedir(stream) };
    Ok(folders)
}

/// Opens the folder `name` in the open folder `dir`.
fn open_at(dir: &File, name: &CStr, flags: libc::c_int) -> io::Result<File> {
    open_in(fd(dir), name, flags)
}

/// Opens the folder `name` (not through a link) in the folder open as `dir` (or the
/// working folder, `AT_FDCWD`), making it 0700 first where it cannot be read.
fn open_opening_up(dir: libc::c_int, name: &CStr) -> io::Result<File> {
    match open_in(dir, name, libc::O_NOFOLLOW) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            // SAFETY: a chmod of a NUL-terminated name in an open folder, not following a
            // link at its end.
            let opened =
                unsafe { libc::fchmodat(dir, name.as_ptr(), 0o700, libc::AT_SYMLINK_NOFOLLOW) };
            if opened != 0 {
                return Err(e);
            }
            open_in(dir, name, libc::O_NOFOLLOW)
        }
        other => other,
    }
}

/// Opens the folder `name` in the folder open as `dir` (or `AT_FDCWD`).
fn open_in(dir: libc::c_int, name: &CStr, flags: libc::c_int) -> io::Result<File> {
    use std::os::fd::FromRawFd;
    // SAFETY: opens a name in an open folder; the fd it returns is owned by the File.
    let opened = unsafe {
        libc::openat(
            dir,
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | flags,
        )
    };
    if opened < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `opened` is a fresh fd nothing else owns.
    Ok(unsafe { File::from_raw_fd(opened) })
}

/// Makes an open folder 0700 (its owner may list it, enter it and remove from it).
fn open_up(dir: &File) {
    // SAFETY: fchmod of an open fd.
    unsafe { libc::fchmod(fd(dir), 0o700) };
}

/// The device and inode of an open file.
fn identity_of(file: &File) -> io::Result<(u64, u64)> {
    let meta = file.metadata()?;
    Ok((meta.dev(), meta.ino()))
}

/// The device and inode of `name` in the open folder `dir`, not following a link.
fn identity_at(dir: &File, name: &CStr) -> io::Result<(u64, u64)> {
    let stat = stat_at(dir, name)?;
    #[allow(clippy::unnecessary_cast)] // `dev_t` and `ino_t` differ between the OSes
    Ok((stat.st_dev as u64, stat.st_ino as u64))
}

/// `fstatat` of `name` in the open folder `dir`, not following a link.
fn stat_at(dir: &File, name: &CStr) -> io::Result<libc::stat> {
    // SAFETY: all zeroes is a valid `stat`.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a plain stat of a NUL-terminated name in an open folder into a local.
    if unsafe { libc::fstatat(fd(dir), name.as_ptr(), &mut stat, libc::AT_SYMLINK_NOFOLLOW) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stat)
}

fn fd(file: &File) -> libc::c_int {
    use std::os::fd::AsRawFd;
    file.as_raw_fd()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A tree deeper than the stack would allow by recursion, with files, links, a
    /// read-only folder and a closed one at the bottom, is removed whole on a small
    /// stack; a link's target outside is left alone.
    #[test]
    fn a_deep_tree_is_removed_whole_without_recursion() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep"), "x").unwrap();
        let target = CString::new(outside.as_os_str().as_bytes()).unwrap();
        let root = tmp.path().join("tree");
        std::fs::create_dir(&root).unwrap();
        // Made through open folders, not paths: the bottom, at two bytes a level, is past
        // PATH_MAX (4,096), and far past what recursion on a 64 KiB stack reaches. Not
        // deeper: each folder takes a block of the disk, and CI's disk may be nearly full.
        let mut dir = open_folder(&root).unwrap();
        for level in 0..3_000 {
            if level % 1_000 == 0 {
                make_file(&dir);
                // SAFETY: a link in an open folder, from two NUL-terminated strings.
                let linked = unsafe { libc::symlinkat(target.as_ptr(), fd(&dir), c"l".as_ptr()) };
                assert_eq!(
                    linked,
                    0,
                    "link at level {level}: {}",
                    io::Error::last_os_error()
                );
            }
            // SAFETY: mkdirat of a NUL-terminated name in an open folder.
            let made = unsafe { libc::mkdirat(fd(&dir), c"a".as_ptr(), 0o755) };
            assert_eq!(
                made,
                0,
                "folder at level {level}: {}",
                io::Error::last_os_error()
            );
            dir = open_at(&dir, c"a", libc::O_NOFOLLOW).unwrap();
        }
        make_file(&dir);
        // A folder closed to everyone (`chmod 000`), and the last one read-only.
        // SAFETY: mkdirat of a NUL-terminated name in an open folder.
        let closed = unsafe { libc::mkdirat(fd(&dir), c"closed".as_ptr(), 0o000) };
        assert_eq!(closed, 0);
        dir.set_permissions(std::fs::Permissions::from_mode(0o555))
            .unwrap();
        drop(dir);
        let removing = root.clone();
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || remove_tree(&removing, &open_folder(&removing).unwrap()))
            .unwrap()
            .join()
            .expect("no stack overflow");
        assert!(
            std::fs::symlink_metadata(&root).is_err(),
            "the tree is gone"
        );
        assert!(
            outside.join("keep").exists(),
            "a link's target is left alone"
        );
    }

    /// A folder whose path goes through a link (macOS's `/tmp` is one) is removed whole,
    /// itself included; one replaced after it was opened is emptied but not removed.
    #[test]
    fn a_folder_named_through_a_link_is_removed_and_a_replaced_one_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, tmp.path().join("tmp")).unwrap();
        let path = tmp.path().join("tmp/hookhost-x-0123456789abcdef.tmp");
        std::fs::create_dir_all(path.join("sub")).unwrap();
        std::fs::write(path.join("sub/f"), "x").unwrap();
        remove_tree(&path, &open_folder(&path).unwrap());
        assert!(std::fs::symlink_metadata(&path).is_err(), "removed");
        assert!(real.is_dir(), "the link's target folder stays");

        std::fs::create_dir_all(path.join("sub")).unwrap();
        let opened = open_folder(&path).unwrap();
        std::fs::rename(&path, real.join("moved")).unwrap();
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("keep"), "x").unwrap();
        remove_tree(&path, &opened);
        assert!(
            path.join("keep").is_file(),
            "the folder now at the path stays"
        );
        let moved = real.join("moved");
        assert!(moved.is_dir() && std::fs::read_dir(&moved).unwrap().count() == 0);
    }

    /// An empty file `f` in the open folder `dir`.
    fn make_file(dir: &File) {
        // SAFETY: creates a NUL-terminated name in an open folder; the fd is closed here.
        unsafe {
            let file = libc::openat(
                fd(dir),
                c"f".as_ptr(),
                libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                0o644,
            );
            assert!(file >= 0);
            libc::close(file);
        }
    }
}
