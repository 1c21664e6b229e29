//! Windows: a folder beneath a root, and the files in it, reached by path with every part
//! checked not to be a link (a symbolic link or a junction: any reparse point) right before
//! each use. Windows has no `openat` in the standard library, so a swap between that check
//! and the use remains possible here (docs/threats.md#n9); the POSIX version holds the
//! folder open instead.

use std::ffi::OsStr;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

/// A folder beneath a root, by its path.
#[derive(Debug)]
pub(crate) struct Folder {
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

/// A symbolic link or a junction (both are name-surrogate reparse points, which Rust's
/// `is_symlink` reports on Windows).
fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

impl Folder {
    /// `root`, then each part of `relative` beneath it, none of them a link, creating a
    /// missing one when `create` asks. `relative` holds plain names only.
    pub(crate) fn open_beneath(
        root: &Path,
        relative: &Path,
        create: bool,
    ) -> Result<Folder, BeneathError> {
        let mut path = root.to_path_buf();
        for part in relative.components() {
            let Component::Normal(name) = part else {
                return Err(BeneathError::Io(
                    path.join(part.as_os_str()),
                    io::Error::from(io::ErrorKind::InvalidInput),
                ));
            };
            path.push(name);
            if is_link(&path) {
                return Err(BeneathError::Link(path));
            }
            match fs::metadata(&path) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => return Err(BeneathError::Io(path, io::Error::other("not a folder"))),
                Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                    fs::create_dir(&path).map_err(|e| BeneathError::Io(path.clone(), e))?;
                }
                Err(e) => return Err(BeneathError::Io(path, e)),
            }
        }
        Ok(Folder { path })
    }

    /// The folder's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The file `name` in this folder, its bytes (at most `cap`) and mode (0: Windows has
    /// none), or `None` when it does not exist; a link there is [`BeneathError::Link`].
    pub(crate) fn read(
        &self,
        name: &OsStr,
        cap: u64,
    ) -> Result<Option<(Vec<u8>, u32)>, BeneathError> {
        let path = self.path.join(name);
        if is_link(&path) {
            return Err(BeneathError::Link(path));
        }
        let file = match fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(BeneathError::Io(path, e)),
        };
        let mut bytes = Vec::new();
        file.take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| BeneathError::Io(path, e))?;
        Ok(Some((bytes, 0)))
    }

    /// Writes `bytes` to `name` in this folder through a new file and a rename. `mode` is
    /// POSIX's: Windows files get their folder's permissions.
    pub(crate) fn write_atomically(
        &self,
        name: &OsStr,
        bytes: &[u8],
        _mode: u32,
    ) -> Result<(), BeneathError> {
        let target = self.path.join(name);
        let tmp_name = crate::platform::temporary_name(name)
            .map_err(|e| BeneathError::Io(target.clone(), e))?;
        let tmp = self.path.join(tmp_name);
        let written = (|| {
            let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            file.write_all(bytes)?;
            file.sync_all()
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(BeneathError::Io(tmp, e));
        }
        fs::rename(&tmp, &target).map_err(|e| {
            let _ = fs::remove_file(&tmp);
            BeneathError::Io(target, e)
        })
    }

    /// Removes the file `name` from this folder.
    pub(crate) fn remove(&self, name: &OsStr) -> Result<(), BeneathError> {
        let path = self.path.join(name);
        fs::remove_file(&path).map_err(|e| BeneathError::Io(path, e))
    }
}
