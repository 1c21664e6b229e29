//! Linux: the file system conventions the path guard relies on: how names compare, which
//! temp folders there are, where the user's folders are, and file names as bytes.

pub(crate) use crate::platform::unix::file_names::{
    command_line_program, executable_names, os_str_from_bytes, os_string_from_bytes,
};

/// File systems here usually tell case apart, so paths are compared as they are.
pub(crate) fn case_insensitive_fs() -> bool {
    false
}

/// `$TMPDIR` is a system temp folder, shared with other users, not a per-user one (as it
/// is on macOS, where the agent can always write it).
pub(crate) fn tmpdir_is_per_user() -> bool {
    false
}

/// The variable that names the temp folder.
pub(crate) const TEMP_ENV: &str = "TMPDIR";

/// The system temp folders, as named here.
pub(crate) fn system_temp_folders() -> &'static [&'static str] {
    &["/tmp"]
}

/// The user's folders follow the XDG Base Directory rules.
pub(crate) const FOLDER_STYLE: crate::platform::FolderStyle = crate::platform::FolderStyle::Xdg;
