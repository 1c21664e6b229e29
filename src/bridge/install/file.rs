//! Reading a settings file and writing a planned change: the backup, then the new text
//! written atomically (a temporary file in the same folder, renamed over the file), with the
//! file's own mode, or 0644 for a new file (0755 for a new folder) whatever the umask
//! (docs/threats.md#n15). A project's settings are never written through a link: their
//! folder is held open beneath the project and every name reached from it without
//! following one (`platform::sys::beneath`; docs/threats.md#n9).

use super::{Change, InstallError};
use crate::platform::sys::beneath::{BeneathError, Folder};
use crate::platform::sys::files;
use std::fs::{self, DirBuilder, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The file written or removed (a symbolic link's target, where the settings file is one).
    pub file: PathBuf,
    /// Whether anything was written (false: the change changes nothing).
    pub written: bool,
    /// Whether the file was removed (it held nothing but hookhost's registration).
    pub removed: bool,
    /// The copy of the file as it was, if it existed and was changed.
    pub backup: Option<PathBuf>,
}

/// The settings file's text, `None` when it does not exist.
pub fn read_existing(path: &Path) -> Result<Option<String>, InstallError> {
    match crate::access::read_capped(path, crate::access::caps::SETTINGS) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| InstallError::NotText {
                path: path.to_path_buf(),
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InstallError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Writes `change`, when it changes anything:
/// - a file that existed is first copied beside itself, to `<file>.hookhost-backup`, with
///   the file's mode: one backup per file, the file as it was before hookhost's last
///   change (docs/threats.md#r13: numbered backups piled up without end);
/// - the new text goes to a temporary file in the same folder (with the file's mode), which
///   is then renamed over the file, so that the agent never reads half a file; a missing
///   folder is created;
/// - a change whose text after is `None` removes the file;
/// - a user's settings file that is a symbolic link (dotfiles kept in a repository) is
///   written through: its target is changed and the link stays; a project's settings
///   file, or a folder on the way to it from the project, that is a link is refused, since
///   the agent may have put it there to lead the write to the user's own settings.
///
/// The file is read again first: if it changed since it was planned against, nothing is
/// written.
pub fn apply(change: &Change) -> Result<Applied, InstallError> {
    if let Some(project) = &change.project {
        return apply_in_project(project, change);
    }
    let file = through_symlink(&change.file);
    if !change.changes_anything() {
        return Ok(Applied {
            file,
            written: false,
            removed: false,
            backup: None,
        });
    }
    if read_existing(&file)? != change.before {
        return Err(InstallError::ChangedMeanwhile { path: file });
    }
    let permissions = fs::metadata(&file).ok().map(|m| m.permissions());
    let backup = match (&change.before, &permissions) {
        (Some(before), Some(permissions)) => Some(backup(&file, before, permissions)?),
        _ => None,
    };
    let removed = match &change.after {
        Some(after) => {
            write_atomically(&file, after, permissions.as_ref())?;
            false
        }
        None => {
            fs::remove_file(&file).map_err(|source| InstallError::Write {
                path: file.clone(),
                source,
            })?;
            true
        }
    };
    Ok(Applied {
        file,
        written: true,
        removed,
        backup,
    })
}

/// [`apply`] for a project's settings file: its folder is opened beneath the project one
/// name at a time, never through a link, and held open for the read, the backup, the
/// write and the rename, so that a folder the agent swaps for a link meanwhile cannot lead
/// any of them elsewhere (docs/threats.md#n9).
fn apply_in_project(project: &Path, change: &Change) -> Result<Applied, InstallError> {
    let file = &change.file;
    let (Ok(inside), Some(name)) = (file.strip_prefix(project), file.file_name()) else {
        return Err(InstallError::OutsideProject {
            path: file.clone(),
            project: project.to_path_buf(),
        });
    };
    let folders = inside.parent().unwrap_or(Path::new(""));
    let beneath_error = |e: BeneathError| match e {
        BeneathError::Link(link) => InstallError::LinkInProject {
            path: file.clone(),
            link,
        },
        BeneathError::Io(path, source) => InstallError::Write { path, source },
    };
    let create = change.after.is_some() && change.changes_anything();
    let folder = match Folder::open_beneath(project, folders, create) {
        Ok(folder) => folder,
        // Nothing to remove where the folder is not.
        Err(BeneathError::Io(_, e)) if !create && e.kind() == io::ErrorKind::NotFound => {
            return Ok(Applied {
                file: file.clone(),
                written: false,
                removed: false,
                backup: None,
            });
        }
        Err(e) => return Err(beneath_error(e)),
    };
    let now = folder
        .read(name, crate::access::caps::SETTINGS)
        .map_err(beneath_error)?;
    if !change.changes_anything() {
        return Ok(Applied {
            file: file.clone(),
            written: false,
            removed: false,
            backup: None,
        });
    }
    let text_now = match &now {
        Some((bytes, _)) => Some(
            String::from_utf8(bytes.clone())
                .map_err(|_| InstallError::NotText { path: file.clone() })?,
        ),
        None => None,
    };
    if text_now != change.before {
        return Err(InstallError::ChangedMeanwhile { path: file.clone() });
    }
    let mode = now.as_ref().map(|(_, mode)| *mode);
    let backup = match (&change.before, mode) {
        (Some(before), Some(mode)) => {
            let mut backup_name = name.to_os_string();
            backup_name.push(".hookhost-backup");
            folder
                .write_atomically(&backup_name, before.as_bytes(), mode)
                .map_err(beneath_error)?;
            Some(folder.path().join(backup_name))
        }
        _ => None,
    };
    let removed = match &change.after {
        Some(after) => {
            folder
                .write_atomically(name, after.as_bytes(), mode.unwrap_or(0o644))
                .map_err(beneath_error)?;
            false
        }
        None => {
            folder.remove(name).map_err(beneath_error)?;
            true
        }
    };
    Ok(Applied {
        file: file.clone(),
        written: true,
        removed,
        backup,
    })
}

/// `path`, or the file it links to when it is a symbolic link whose target exists.
fn through_symlink(path: &Path) -> PathBuf {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match is_link {
        true => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        false => path.to_path_buf(),
    }
}

/// `path` with `suffix` appended to its file name.
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Replaces `<file>.hookhost-backup` with `text` (the file's content), atomically.
fn backup(file: &Path, text: &str, permissions: &fs::Permissions) -> Result<PathBuf, InstallError> {
    let path = beside(file, ".hookhost-backup");
    write_atomically(&path, text, Some(permissions))?;
    Ok(path)
}

/// Creates `path` (which must not exist) holding `text`; its mode is set before the text is
/// written, so that a private file's content is never readable by others.
fn write_new(path: &Path, text: &str, permissions: Option<&fs::Permissions>) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    if permissions.is_none() {
        files::shared_file_mode(&mut options);
    }
    let mut file = options.open(path)?;
    let written = (|| {
        if let Some(permissions) = permissions {
            fs::set_permissions(path, permissions.clone())?;
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if written.is_err() {
        let _ = fs::remove_file(path);
    }
    written
}

/// Writes `text` to `file` through a temporary file in the same folder and a rename.
fn write_atomically(
    file: &Path,
    text: &str,
    permissions: Option<&fs::Permissions>,
) -> Result<(), InstallError> {
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InstallError::Write { path, source }
    };
    if let Some(folder) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        let mut builder = DirBuilder::new();
        builder.recursive(true);
        files::shared_dir_mode(&mut builder)
            .create(folder)
            .map_err(write_error(folder))?;
    }
    let tmp = crate::platform::temporary_name(file.file_name().unwrap_or_default())
        .map(|name| file.with_file_name(name))
        .map_err(write_error(file))?;
    write_new(&tmp, text, permissions).map_err(write_error(&tmp))?;
    fs::rename(&tmp, file).map_err(|source| {
        let _ = fs::remove_file(&tmp);
        InstallError::Write {
            path: file.to_path_buf(),
            source,
        }
    })
}
