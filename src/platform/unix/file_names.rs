//! POSIX file names are bytes: what a file says (a `#!` line, a `.git` file) is a name.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// Bytes read from a file (a `#!` line, a `.git` file) as a file name.
pub(crate) fn os_str_from_bytes(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

/// Owned bytes read from a file as a file name.
pub(crate) fn os_string_from_bytes(bytes: Vec<u8>) -> OsString {
    OsString::from_vec(bytes)
}

/// A program's path as written into an agent's hook command line: as it is.
pub(crate) fn command_line_program(path: &str) -> String {
    path.to_owned()
}

/// The names a program called `name` may have on disk: just `name` (POSIX runs a file
/// by its execute bit, not its extension).
pub(crate) fn executable_names(name: &OsStr) -> Vec<OsString> {
    vec![name.to_owned()]
}
