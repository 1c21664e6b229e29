//! Windows: the file system conventions the path guard relies on.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// NTFS compares names without case, so the guard compares paths lower-cased.
pub(crate) fn case_insensitive_fs() -> bool {
    true
}

/// `%TEMP%` is the user's own temp folder (`%LOCALAPPDATA%\Temp`).
pub(crate) fn tmpdir_is_per_user() -> bool {
    true
}

/// The variable that names the temp folder.
pub(crate) const TEMP_ENV: &str = "TEMP";

/// The system temp folder.
pub(crate) fn system_temp_folders() -> &'static [&'static str] {
    &[r"C:\Windows\Temp"]
}

/// The user's folders are under `%APPDATA%` and `%LOCALAPPDATA%` unless the XDG
/// variables say otherwise.
pub(crate) const FOLDER_STYLE: crate::platform::FolderStyle = crate::platform::FolderStyle::Windows;

/// Bytes read from a file as a file name: Windows names are Unicode, so bytes that are
/// not UTF-8 name nothing that exists (U+FFFD).
pub(crate) fn os_str_from_bytes(bytes: &[u8]) -> &OsStr {
    std::str::from_utf8(bytes)
        .map(OsStr::new)
        .unwrap_or(OsStr::new("\u{FFFD}"))
}

/// Owned bytes read from a file as a file name (see [`os_str_from_bytes`]).
pub(crate) fn os_string_from_bytes(bytes: Vec<u8>) -> OsString {
    String::from_utf8(bytes)
        .unwrap_or_else(|_| "\u{FFFD}".into())
        .into()
}

/// A program's path as written into an agent's hook command line: with `/` for `\`,
/// which Windows reads alike, so that the line means the same to every shell an agent
/// may run it with (`cmd /C`, PowerShell, Git Bash, which would eat unquoted
/// backslashes), and needs no quotes unless it holds a space.
pub(crate) fn command_line_program(path: &str) -> String {
    path.replace('\\', "/")
}

/// The extensions a bare program name is tried with, in `%PATHEXT%`'s default order:
/// only those a process can be started from (`.js`, `.vbs`, `.py` in a user's PATHEXT
/// need a host program, and `CreateProcess` refuses them).
const STARTABLE: [&str; 4] = [".com", ".exe", ".bat", ".cmd"];

/// The names a program called `name` may have on disk: `name` itself when it has an
/// extension, else `name` with each startable extension, as `cmd` looks for it.
pub(crate) fn executable_names(name: &OsStr) -> Vec<OsString> {
    if Path::new(name).extension().is_some() {
        return vec![name.to_owned()];
    }
    STARTABLE
        .iter()
        .map(|ext| {
            let mut with = name.to_owned();
            with.push(ext);
            with
        })
        .collect()
}
