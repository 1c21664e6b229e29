//! Linux: the file system conventions the path guard relies on: how names compare, which
//! temp folders there are, and file names as bytes.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// File systems here usually tell case apart, so paths are compared as they are. (macOS's
/// usually do not, and the guard would compare them lower-cased there.)
pub(crate) fn case_insensitive_fs() -> bool {
    false
}

/// `$TMPDIR` is a system temp folder, shared with other users, not a per-user one (as it
/// is on macOS, where the agent can always write it).
pub(crate) fn tmpdir_is_per_user() -> bool {
    false
}

/// The system temp folders, as named here (`/tmp`; macOS adds `/private/tmp`).
pub(crate) fn system_temp_folders() -> &'static [&'static str] {
    &["/tmp"]
}

/// Bytes read from a file (a `#!` line, a `.git` file) as a file name.
pub(crate) fn os_str_from_bytes(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

/// Owned bytes read from a file as a file name.
pub(crate) fn os_string_from_bytes(bytes: Vec<u8>) -> OsString {
    OsString::from_vec(bytes)
}
