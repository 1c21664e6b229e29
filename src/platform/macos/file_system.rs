//! macOS: the file system conventions the path guard relies on.

pub(crate) use crate::platform::unix::file_names::{
    command_line_program, executable_names, os_str_from_bytes, os_string_from_bytes,
};

/// APFS and HFS+ volumes ignore case by default, so the guard compares paths
/// lower-cased: `~/.SSH` is `~/.ssh` there.
pub(crate) fn case_insensitive_fs() -> bool {
    true
}

/// `$TMPDIR` is the user's own temp folder (`/var/folders/…/T/`), which the agent can
/// always write.
pub(crate) fn tmpdir_is_per_user() -> bool {
    true
}

/// The variable that names the temp folder.
pub(crate) const TEMP_ENV: &str = "TMPDIR";

/// The system temp folders: `/tmp` is a link to `/private/tmp`.
pub(crate) fn system_temp_folders() -> &'static [&'static str] {
    &["/tmp", "/private/tmp"]
}

/// The user's folders are under `~/Library` unless the XDG variables say otherwise.
pub(crate) const FOLDER_STYLE: crate::platform::FolderStyle = crate::platform::FolderStyle::MacOs;
