//! Windows: the user and their profile folder.

use std::path::PathBuf;

/// One user: the caller.
pub(crate) fn real_uid() -> u32 {
    0
}

/// The user's profile folder (`%USERPROFILE%`), the password database's home here.
pub(crate) fn home_of(_uid: u32) -> Option<PathBuf> {
    std::env::var_os("USERPROFILE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}
