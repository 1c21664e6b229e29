//! POSIX: a folder held open, and the files beneath it reached by `openat` one name at a
//! time, never through a link. `install --scope project` writes a project's settings this
//! way: the agent can write the project, and a folder on the way swapped for a link
//! between a check and the write would lead the write (or an uninstall's delete) to the
//! user's own settings (docs/threats.md#n9). Held open, the folder cannot be swapped under
//! the write: a rename of it moves the folder hookhost writes into, it does not redirect
//! the write.

use std::ffi::{CStr, CString, OsStr};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// A folder held open by its descriptor, and the path it was reached by (for messages).
#[derive(Debug)]
pub(crate) struct Folder {
    fd: OwnedFd,
    path: PathBuf,
}

/// Why a folder or file beneath the root could not be reached.
#[derive(Debug)]
pub(crate) enum BeneathError {
    /// A link where a folder or the file was expected: never followed.
    Link(PathBuf),
    /// Any other failure, at that path.
    Io(PathBuf, io::Error),
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// `openat(dir, name, flags)`, the descriptor owned.
fn open_at(
    dir: libc::c_int,
    name: &CStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    // SAFETY: `name` is a valid C string; the descriptor returned, if any, is ours alone.
    let fd = unsafe {
        libc::openat(
            dir,
            name.as_ptr(),
            flags | libc::O_CLOEXEC,
            libc::c_uint::from(mode),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether `name` in the folder `dir` is a symbolic link (not followed): what an open with
/// `O_NOFOLLOW` failed on, whichever error the system chose for it (`ELOOP`, `ENOTDIR`).
fn is_link(dir: libc::c_int, name: &CStr) -> bool {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: valid C string, open folder, and `stat` is written by the call before use.
    let found = unsafe {
        libc::fstatat(
            dir,
            name.as_ptr(),
            stat.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    } == 0;
    // SAFETY: fstatat succeeded, so `stat` is initialised.
    found && (unsafe { stat.assume_init() }.st_mode & libc::S_IFMT) == libc::S_IFLNK
}

impl Folder {
    /// Opens `root` (as the user named it: it is where they run `install`), then each part
    /// of `relative` beneath it with `O_NOFOLLOW`, creating a missing one (mode 0755,
    /// whatever the umask) when `create` asks. `relative` holds plain names only.
    pub(crate) fn open_beneath(
        root: &Path,
        relative: &Path,
        create: bool,
    ) -> Result<Folder, BeneathError> {
        let io_at = |path: &Path| {
            let path = path.to_path_buf();
            move |e| BeneathError::Io(path, e)
        };
        let root_name = c_name(root.as_os_str()).map_err(io_at(root))?;
        let mut fd = open_at(
            libc::AT_FDCWD,
            &root_name,
            libc::O_RDONLY | libc::O_DIRECTORY,
            0,
        )
        .map_err(io_at(root))?;
        let mut path = root.to_path_buf();
        for part in relative.components() {
            let Component::Normal(name) = part else {
                return Err(BeneathError::Io(
                    path.join(part.as_os_str()),
                    io::Error::from(io::ErrorKind::InvalidInput),
                ));
            };
            path.push(name);
            let c = c_name(name).map_err(io_at(&path))?;
            let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
            let next = match open_at(fd.as_raw_fd(), &c, flags, 0) {
                Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                    // SAFETY: `c` is a valid C string, `fd` an open folder.
                    if unsafe { libc::mkdirat(fd.as_raw_fd(), c.as_ptr(), 0o755) } != 0 {
                        let e = io::Error::last_os_error();
                        if e.kind() != io::ErrorKind::AlreadyExists {
                            return Err(BeneathError::Io(path, e));
                        }
                    }
                    let made = open_at(fd.as_raw_fd(), &c, flags, 0)
                        .map_err(|e| classify(fd.as_raw_fd(), &c, &path, e))?;
                    // SAFETY: `made` is an open folder of ours; the umask may have taken bits.
                    if unsafe { libc::fchmod(made.as_raw_fd(), 0o755) } != 0 {
                        return Err(BeneathError::Io(path, io::Error::last_os_error()));
                    }
                    made
                }
                other => other.map_err(|e| classify(fd.as_raw_fd(), &c, &path, e))?,
            };
            fd = next;
        }
        Ok(Folder { fd, path })
    }

    /// The folder's path, as it was reached.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The file `name` in this folder, its bytes (at most `cap`) and mode, or `None` when
    /// it does not exist; a link there is [`BeneathError::Link`].
    pub(crate) fn read(
        &self,
        name: &OsStr,
        cap: u64,
    ) -> Result<Option<(Vec<u8>, u32)>, BeneathError> {
        let path = self.path.join(name);
        let c = c_name(name).map_err(|e| BeneathError::Io(path.clone(), e))?;
        let fd = match open_at(
            self.fd.as_raw_fd(),
            &c,
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK,
            0,
        ) {
            Ok(fd) => fd,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(classify(self.fd.as_raw_fd(), &c, &path, e)),
        };
        let mut file = File::from(fd);
        let metadata = file
            .metadata()
            .map_err(|e| BeneathError::Io(path.clone(), e))?;
        if !metadata.is_file() {
            return Err(BeneathError::Io(
                path,
                io::Error::other("not a regular file"),
            ));
        }
        let mut bytes = Vec::new();
        (&mut file)
            .take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| BeneathError::Io(path.clone(), e))?;
        Ok(Some((bytes, super::files::mode_bits(&metadata) & 0o7777)))
    }

    /// Writes `bytes` to `name` in this folder: a new file of mode `mode` (set before
    /// anything is written), synced, then renamed over `name` (a link put there meanwhile
    /// is replaced, not followed).
    pub(crate) fn write_atomically(
        &self,
        name: &OsStr,
        bytes: &[u8],
        mode: u32,
    ) -> Result<(), BeneathError> {
        let target = self.path.join(name);
        let tmp_name = crate::platform::temporary_name(name)
            .map_err(|e| BeneathError::Io(target.clone(), e))?;
        let tmp_path = self.path.join(&tmp_name);
        let tmp = c_name(&tmp_name).map_err(|e| BeneathError::Io(tmp_path.clone(), e))?;
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
        let fd = open_at(self.fd.as_raw_fd(), &tmp, flags, 0o600)
            .map_err(|e| BeneathError::Io(tmp_path.clone(), e))?;
        let mut file = File::from(fd);
        let written = (|| {
            // SAFETY: `file` is open and ours.
            if unsafe { libc::fchmod(file.as_raw_fd(), mode as libc::mode_t) } != 0 {
                return Err(io::Error::last_os_error());
            }
            file.write_all(bytes)?;
            file.sync_all()
        })();
        let unlink_tmp = || {
            // SAFETY: valid C string, open folder; removing our own temporary file.
            unsafe { libc::unlinkat(self.fd.as_raw_fd(), tmp.as_ptr(), 0) };
        };
        if let Err(e) = written {
            unlink_tmp();
            return Err(BeneathError::Io(tmp_path, e));
        }
        let c = c_name(name).map_err(|e| BeneathError::Io(target.clone(), e))?;
        // SAFETY: both names are valid C strings relative to the same open folder.
        if unsafe {
            libc::renameat(
                self.fd.as_raw_fd(),
                tmp.as_ptr(),
                self.fd.as_raw_fd(),
                c.as_ptr(),
            )
        } != 0
        {
            let e = io::Error::last_os_error();
            unlink_tmp();
            return Err(BeneathError::Io(target, e));
        }
        Ok(())
    }

    /// Removes the file `name` from this folder (a link there is removed, not followed).
    pub(crate) fn remove(&self, name: &OsStr) -> Result<(), BeneathError> {
        let path = self.path.join(name);
        let c = c_name(name).map_err(|e| BeneathError::Io(path.clone(), e))?;
        // SAFETY: valid C string, open folder.
        if unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), 0) } != 0 {
            return Err(BeneathError::Io(path, io::Error::last_os_error()));
        }
        Ok(())
    }
}

/// The error of opening `name` in `dir` (reached as `path`): a link, or what it was.
fn classify(dir: libc::c_int, name: &CStr, path: &Path, e: io::Error) -> BeneathError {
    if is_link(dir, name) {
        BeneathError::Link(path.to_path_buf())
    } else {
        BeneathError::Io(path.to_path_buf(), e)
    }
}
