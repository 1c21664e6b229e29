//! Windows has no box for argv hooks: they run on the host, with provider keys scrubbed
//! from their environment like every hook's, and the session's banner and `check` say
//! so and recommend WASM hooks, which are sandboxed on every OS.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::Command;

pub use crate::platform::generic::entry::{
    box_entry_main, landlock_abi, prepare_carried_entry, running_binary,
};
use crate::sandbox::{BoxProgram, BoxSpec, SandboxError, Unavailable};

/// This OS has no box for argv hooks.
pub const EXISTS_ON_THIS_OS: bool = false;

/// What the box is called in messages.
pub const NAME: &str = "a box for argv hooks";

/// No program to override here; the name is kept so that every OS reads the same one.
pub const PROGRAM_ENV: &str = "HOOKHOST_BOX_PROGRAM";

/// Never used (no box runs).
pub(crate) const REPORTS_SIGNALS_AS_EXIT_CODES: bool = false;

const WHY: &str = "Windows has none";

/// No box, so no trial to remember.
pub(crate) const TRIAL_SETTINGS: &[&str] = &[];

fn no_box() -> Unavailable {
    Unavailable {
        sandbox: NAME,
        reason: WHY.into(),
        advice: "Write the hooks as WASM hooks, which are sandboxed on every OS (project read-only, no network).".into(),
    }
}

/// Always the reason there is no box.
pub(crate) fn find(
    _program_override: Option<&Path>,
    _path_env: Option<&OsStr>,
    _project: &Path,
) -> Result<BoxProgram, Unavailable> {
    Err(no_box())
}

/// Never reached ([`find`] finds nothing); the reason there is no box.
pub(crate) fn trial(_found: &BoxProgram, _project: &Path) -> Result<(), Unavailable> {
    Err(no_box())
}

/// Never a command: there is no box.
pub(crate) fn command(
    _spec: &BoxSpec,
    _argv: &[OsString],
    _env: &[(OsString, OsString)],
) -> Result<Command, SandboxError> {
    Err(SandboxError::NoBox("Windows has no box for argv hooks"))
}
