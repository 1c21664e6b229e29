//! Reading a settings file and writing a planned change: the backup, then the new text
//! written atomically (a temporary file in the same folder, renamed over the file), with the
//! file's own mode.

use super::{Change, InstallError};
use std::fs::{self, OpenOptions};
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
/// - a file that existed is first copied beside itself, to `<file>.hookhost-backup` or, when
///   that exists already, `<file>.hookhost-backup.1`, `.2`, … (a backup is never
///   overwritten), with the file's mode;
/// - the new text goes to a temporary file in the same folder (with the file's mode), which
///   is then renamed over the file, so that the agent never reads half a file; a missing
///   folder is created;
/// - a change whose text after is `None` removes the file;
/// - a settings file that is a symbolic link (dotfiles kept in a repository) is written
///   through: its target is changed and the link stays.
///
/// The file is read again first: if it changed since it was planned against, nothing is
/// written.
pub fn apply(change: &Change) -> Result<Applied, InstallError> {
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

/// Copies `text` (the file's content) to the first free backup name beside `file`.
fn backup(file: &Path, text: &str, permissions: &fs::Permissions) -> Result<PathBuf, InstallError> {
    let mut attempt = 0u32;
    loop {
        let suffix = match attempt {
            0 => ".hookhost-backup".to_string(),
            n => format!(".hookhost-backup.{n}"),
        };
        let path = beside(file, &suffix);
        match write_new(&path, text, Some(permissions)) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 10_000 => {
                attempt += 1;
            }
            Err(source) => return Err(InstallError::Write { path, source }),
        }
    }
}

/// Creates `path` (which must not exist) holding `text`; its mode is set before the text is
/// written, so that a private file's content is never readable by others.
fn write_new(path: &Path, text: &str, permissions: Option<&fs::Permissions>) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
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
        fs::create_dir_all(folder).map_err(write_error(folder))?;
    }
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce)
        .map_err(|e| io::Error::other(e.to_string()))
        .map_err(write_error(file))?;
    let tmp = beside(
        file,
        &format!(
            ".hookhost-{}-{:016x}.tmp",
            std::process::id(),
            u64::from_le_bytes(nonce)
        ),
    );
    write_new(&tmp, text, permissions).map_err(write_error(&tmp))?;
    fs::rename(&tmp, file).map_err(|source| {
        let _ = fs::remove_file(&tmp);
        InstallError::Write {
            path: file.to_path_buf(),
            source,
        }
    })
}
