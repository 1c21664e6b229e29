//! The boxes' path checks (Linux's and macOS's; Windows has no box): a path that must be
//! absolute, a folder that must exist, and where a hidden path leads.

use std::io;
use std::path::{Path, PathBuf};

use crate::paths::{MAX_LINK_HOPS, lexical};
use crate::sandbox::SandboxError;

/// `path` is absolute, else the error that names `what`.
pub(crate) fn absolute(what: &'static str, path: &Path) -> Result<(), SandboxError> {
    if path.is_absolute() {
        Ok(())
    } else {
        Err(SandboxError::NotAbsolute {
            what,
            path: path.to_owned(),
        })
    }
}

/// `path` (absolute) resolved to the folder it names, else the error that names `what`.
pub(crate) fn canonical_dir(what: &'static str, path: &Path) -> Result<PathBuf, SandboxError> {
    absolute(what, path)?;
    let err = |source| SandboxError::Path {
        what,
        path: path.to_owned(),
        source,
    };
    let c = std::fs::canonicalize(path).map_err(err)?;
    if !c.is_dir() {
        return Err(err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a folder",
        )));
    }
    Ok(c)
}

/// Where an absolute path leads, following symlinks even when the end is missing: the
/// longest existing prefix is canonicalized and a dangling link is followed to where it
/// would create its target. More than [`MAX_LINK_HOPS`] links is an error.
pub(crate) fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_owned();
    for _ in 0..MAX_LINK_HOPS {
        if let Ok(c) = std::fs::canonicalize(&path) {
            return Ok(c);
        }
        // Canonicalize the existing parent; then look at the last component itself.
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Ok(path); // "/" always canonicalizes; this is unreachable in practice
        };
        let parent = resolve(parent)?;
        let here = parent.join(name);
        match std::fs::read_link(&here) {
            Ok(target) => path = parent.join(target), // absolute targets replace `parent`
            Err(_) => return Ok(lexical(&here)),      // only on an already-canonical prefix
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}
