//! Windows: the system scope's fixed places (docs/contract.md#system-mode), never read from
//! the environment or from a user's files.
//!
//! `C:\ProgramData` is a constant, not `%ProgramData%` nor the known folder: the agents
//! whose managed files hookhost writes fix their own the same way (Claude Code's
//! `C:\Program Files\ClaudeCode`, Gemini CLI's `C:\ProgramData\gemini-cli`), a constant is
//! the same for the administrator who installs and the user's agent that runs, and
//! nothing a user sets can move it. A machine whose ProgramData is elsewhere gets a
//! `C:\ProgramData\hookhost` made by `install --scope system` all the same, held to the
//! same rule from `C:\` down.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// The system scope runs on this OS.
pub(crate) const SUPPORTED: bool = true;

/// The system config.
pub(crate) const CONFIG: &str = r"C:\ProgramData\hookhost\config.toml";

/// The system compile cache: filled by `hookhost check --system` run as administrator,
/// only read by the bridge.
pub(crate) const CACHE: &str = r"C:\ProgramData\hookhost\cache";

/// Who may run `check --system`, in messages.
pub(crate) const ADMINISTRATOR: &str = "an elevated administrator";

/// The command that fills the system compile cache, typed in an elevated prompt.
pub(crate) const CHECK_COMMAND: &str = "hookhost check --system";

/// The folders `install --scope system` makes the administrator's when they are missing:
/// the config's and the cache. Made under `C:\ProgramData` by an ordinary create, they
/// would inherit its "Users may create files and folders" (see
/// [`super::security::make_admin_folders`]).
pub(crate) const INSTALL_MAKES: &[&str] = &[r"C:\ProgramData\hookhost", CACHE];

/// The PATH the system hooks are looked up on and run with.
pub(crate) const PATH: &str = r"C:\Windows\System32;C:\Windows";

/// There is no box program on Windows.
pub(crate) const BOX_PROGRAM: &str = "";

/// The variables system mode replaces with what the token says (see [`home_vars`]).
pub(crate) const REPLACED: &[&str] = &["HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA"];

/// The profile folder of the user hookhost runs as, from its token (`GetUserProfileDirectoryW`:
/// the profile list in the registry), not `USERPROFILE`, which the user sets.
pub(crate) fn user_home() -> Option<PathBuf> {
    super::security::token_profile_folder()
}

/// The variables that name the user's folders, all from `home` (the token's profile), so
/// that records and the hooks' application data follow the account, not the environment:
/// Windows' default `AppData` places under it.
pub(crate) fn home_vars(home: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("HOME", home.into()),
        ("USERPROFILE", home.into()),
        ("APPDATA", home.join(r"AppData\Roaming").into()),
        ("LOCALAPPDATA", home.join(r"AppData\Local").into()),
    ]
}

/// Whether hookhost runs as an elevated administrator (BUILTIN\Administrators enabled in
/// its token).
pub(crate) fn is_root() -> bool {
    super::security::is_elevated_administrator()
}

/// Makes `dir` (and any missing folder above it) the administrator's alone: owned by
/// Administrators, with a protected DACL. A folder that exists is left as it is and
/// judged by the caller's check: one that fails it is refused, never re-ACLed, since
/// whatever a user could write into it may already be there, and new permissions would
/// bless it.
pub(crate) fn make_admin_folder(dir: &Path) -> io::Result<()> {
    super::security::make_admin_folders(dir)
}
