//! POSIX: the system scope's fixed places (docs/contract.md#system-mode). They are
//! constants, never read from the environment or from a user's files: a same-user agent
//! can set both, and the system scope exists so that it cannot move the policy.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// The system scope runs on this OS.
pub(crate) const SUPPORTED: bool = true;

/// The system config: one file, root's, the same path on Linux and macOS.
pub(crate) const CONFIG: &str = "/etc/hookhost/config.toml";

/// The system compile cache: filled by `hookhost check --system` run as root, only read
/// by the bridge.
pub(crate) const CACHE: &str = "/var/cache/hookhost";

/// Who may run `check --system`, in messages.
pub(crate) const ADMINISTRATOR: &str = "root";

/// The command that fills the system compile cache, as an administrator types it.
pub(crate) const CHECK_COMMAND: &str = "sudo hookhost check --system";

/// The folders `install --scope system` makes: none (`check --system` makes the cache).
pub(crate) const INSTALL_MAKES: &[&str] = &[];

/// The PATH the system hooks are looked up on and run with (bare names, `#!/usr/bin/env`).
pub(crate) const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The box program, where the OS's package puts it.
#[cfg(target_os = "linux")]
pub(crate) const BOX_PROGRAM: &str = "/usr/bin/bwrap";
/// The box program, where the OS's package puts it.
#[cfg(target_os = "macos")]
pub(crate) const BOX_PROGRAM: &str = "/usr/bin/sandbox-exec";

/// The variables system mode replaces with the password database's answer.
pub(crate) const REPLACED: &[&str] = &["HOME"];

/// What [`REPLACED`] becomes: `HOME`, the user's home.
pub(crate) fn home_vars(home: &Path) -> Vec<(&'static str, OsString)> {
    vec![("HOME", home.into())]
}

/// Makes the system compile cache `dir` (and the folders above it) as root makes any:
/// mode 0755 less the umask, owned by whoever runs it (root: `check --system` insists).
pub(crate) fn make_admin_folder(dir: &Path) -> io::Result<()> {
    super::files::shared_dir_mode(std::fs::DirBuilder::new().recursive(true)).create(dir)
}

/// The home of the user who runs hookhost (the real uid), from the password database.
pub(crate) fn user_home() -> Option<PathBuf> {
    super::users::home_of(super::users::real_uid())
}

/// Whether hookhost runs as root (the effective uid is 0).
pub(crate) fn is_root() -> bool {
    super::ownership::effective_uid() == 0
}
