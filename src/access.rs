//! Why a path cannot be used: missing, not a folder, or not allowed; and reading a file
//! hookhost was given, which must be a regular file of bounded size.
//!
//! `Path::is_dir` and friends answer `false` for all three, and a user told "is not a
//! folder" about a folder they cannot enter looks in the wrong place. These helpers ask
//! the file system once more and name the part of the path at fault: the first component
//! that does not exist, or the folder this user may not enter.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::platform::sys;

/// How large a file hookhost reads whole may be, by what it is.
pub mod caps {
    /// A config file (`config.toml`).
    pub const CONFIG: u64 = 1 << 20;
    /// A `hookhost eval` cases file.
    pub const CASES: u64 = 16 << 20;
    /// A WASM hook's `.wasm` (a Python component with its interpreter is ~40 MiB).
    pub const WASM: u64 = 256 << 20;
    /// An agent's settings file, or hookhost's pins.
    pub const SETTINGS: u64 = 16 << 20;
    /// A session record read whole (`log show`, `log verify`, `replay`).
    pub const RECORD: u64 = 1 << 30;
    /// A pinned file hashed to check its pin (a hook's file, the registered binary: tens
    /// of MB). An agent's sparse file of 100 GB took minutes to hash, past the agent's
    /// timeout, which most agents take for "go ahead" (docs/threats.md#b9).
    pub const DIGESTED: u64 = 1 << 30;
}

/// Opens `path` for reading, with its metadata, refusing at once anything but a regular
/// file: a FIFO would block the open (or the read) for good, a device (`/dev/zero`)
/// never ends.
pub(crate) fn open_regular(path: &Path) -> io::Result<(std::fs::File, std::fs::Metadata)> {
    let file =
        sys::files::open_without_blocking(std::fs::OpenOptions::new().read(true)).open(path)?;
    let meta = regular_metadata(&file)?;
    Ok((file, meta))
}

/// An error unless the open `file` is a regular file.
pub fn check_regular(file: &std::fs::File) -> io::Result<()> {
    regular_metadata(file).map(drop)
}

/// The metadata of the open `file`, or an error unless it is a regular file.
fn regular_metadata(file: &std::fs::File) -> io::Result<std::fs::Metadata> {
    let meta = file.metadata()?;
    if meta.is_file() {
        Ok(meta)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is not a regular file (a FIFO, a socket or a device): hookhost reads only files",
        ))
    }
}

/// The whole of the regular file at `path`, refused when it is larger than `cap` bytes.
///
/// The buffer is sized by the file's length up front (a `take` gives `read_to_end` no
/// hint, so it grew by doubling), and a large one is backed by huge pages where the OS
/// offers them: the faults of a fresh 18 MB buffer were a sixth of a Python component's
/// start (BENCHMARKS.md, seventh sitting).
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    read_open_capped(file, &meta, cap)
}

/// [`read_capped`] of a file already opened by [`open_regular`], `meta` its metadata.
pub(crate) fn read_open_capped(
    file: std::fs::File,
    meta: &std::fs::Metadata,
    cap: u64,
) -> io::Result<Vec<u8>> {
    let expected = meta.len().min(cap + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    sys::memory::prefer_huge_pages(bytes.spare_capacity_mut());
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "is larger than {} MiB, more than hookhost reads of such a file",
                cap >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// What is wrong with `path` as a folder to use, or `None` when it is one this process
/// can enter. The text reads after the path: "does not exist", "is not a folder",
/// "permission denied (…)".
pub fn folder_problem(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_dir() => Some("is not a folder".into()),
        // A folder that can be looked at but not entered (no search permission).
        Ok(_) => match std::fs::metadata(path.join(".")) {
            Ok(_) => None,
            Err(e) => Some(explain(path, &e)),
        },
        Err(e) => Some(explain(path, &e)),
    }
}

/// The reason an operation on `path` failed with `err`, in words that name the part of
/// the path at fault where the error is about the path rather than the file itself.
pub fn explain(path: &Path, err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::PermissionDenied => match closed_folder(path) {
            Some(folder) if folder != path => format!(
                "permission denied ({} cannot be entered by this user)",
                folder.display()
            ),
            Some(_) => "permission denied (this user cannot enter it)".into(),
            None => "permission denied".into(),
        },
        io::ErrorKind::NotFound => match first_missing(path) {
            Some(missing) if missing != path => {
                format!("does not exist ({} is missing)", missing.display())
            }
            _ => "does not exist".into(),
        },
        io::ErrorKind::NotADirectory => "a part of the path is not a folder".into(),
        _ => err.to_string(),
    }
}

/// The first folder on the way to `path` (or `path` itself) that exists but cannot be
/// entered, if any.
fn closed_folder(path: &Path) -> Option<PathBuf> {
    let ancestors: Vec<&Path> = path.ancestors().collect();
    ancestors.into_iter().rev().find_map(|prefix| {
        let looked_at = std::fs::symlink_metadata(prefix).is_ok();
        let entered = std::fs::metadata(prefix.join(".")).is_ok();
        let is_folder = std::fs::metadata(prefix).map(|m| m.is_dir());
        (looked_at && !entered && !matches!(is_folder, Ok(false))).then(|| prefix.to_path_buf())
    })
}

/// The shortest prefix of `path` that does not exist, when its parent can be entered
/// (otherwise the answer is "not allowed", not "missing").
fn first_missing(path: &Path) -> Option<PathBuf> {
    let ancestors: Vec<&Path> = path.ancestors().collect();
    ancestors
        .into_iter()
        .rev()
        .find_map(|prefix| match std::fs::symlink_metadata(prefix) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Some(prefix.to_path_buf()),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large file is read whole into a buffer sized by its length, and one past the cap
    /// is refused.
    #[test]
    fn read_capped_reads_a_large_file_whole_and_refuses_one_past_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.wasm");
        // Past two huge pages, not a multiple of one.
        let bytes: Vec<u8> = (0..(5 << 20) + 123).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let read = read_capped(&path, caps::WASM).unwrap();
        assert_eq!(read.len(), bytes.len());
        assert!(read == bytes, "the bytes read are the file's");
        assert_eq!(
            read.capacity(),
            bytes.len(),
            "sized once, by the file's length"
        );
        let refused = read_capped(&path, bytes.len() as u64 - 1).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(
            read_capped(&path, bytes.len() as u64).unwrap().len(),
            bytes.len()
        );
    }

    #[test]
    fn a_usable_folder_has_no_problem() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(folder_problem(dir.path()), None);
    }

    #[test]
    fn missing_names_the_first_missing_part() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c");
        assert_eq!(
            folder_problem(&path).unwrap(),
            format!(
                "does not exist ({} is missing)",
                dir.path().join("a").display()
            )
        );
        assert_eq!(
            folder_problem(&dir.path().join("a")).unwrap(),
            "does not exist"
        );
    }

    #[test]
    fn a_file_is_not_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        assert_eq!(folder_problem(&file).unwrap(), "is not a folder");
        assert_eq!(
            folder_problem(&file.join("x")).unwrap(),
            "a part of the path is not a folder"
        );
    }
}
