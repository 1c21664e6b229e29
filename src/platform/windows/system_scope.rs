//! Windows: no system scope yet (docs/contract.md#system-mode). The constants exist so
//! that callers need no `cfg`; [`SUPPORTED`] is `false` and every caller refuses first.

use std::path::PathBuf;

/// The system scope does not run on this OS yet.
pub(crate) const SUPPORTED: bool = false;

/// Where the system config would live.
pub(crate) const CONFIG: &str = r"C:\ProgramData\hookhost\config.toml";

/// Where the system compile cache would live.
pub(crate) const CACHE: &str = r"C:\ProgramData\hookhost\cache";

/// The PATH the system hooks would run with.
pub(crate) const PATH: &str = r"C:\Windows\System32;C:\Windows";

/// There is no box program on Windows.
pub(crate) const BOX_PROGRAM: &str = "";

/// The user's profile folder.
pub(crate) fn user_home() -> Option<PathBuf> {
    super::users::home_of(super::users::real_uid())
}

/// Never: there is no root here.
pub(crate) fn is_root() -> bool {
    false
}
