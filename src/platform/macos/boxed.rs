//! macOS's box: the Seatbelt profile of [`crate::sandbox::seatbelt`], applied by
//! `/usr/bin/sandbox-exec` (as OpenAI's Codex CLI and Gemini CLI run their commands).
//! The hook reads the whole file system but the hidden paths, writes only the project,
//! the writable folders and the private temp folder (its `TMPDIR`), and has no network.
//!
//! What Seatbelt does not give that bubblewrap does: a PID namespace (the hook sees the
//! host's processes) and a private `/tmp` at that name (a hook that writes `/tmp` by
//! name is refused; one that follows `TMPDIR` is not).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use crate::platform::generic::entry::{
    box_entry_main, landlock_abi, prepare_carried_entry, running_binary,
};
use crate::platform::unix::box_paths::{Resolver, absolute, canonical_dir};
use crate::platform::unix::trial::{TrialFailure, trial_run};
use crate::sandbox::seatbelt::{SANDBOX_EXEC, SeatbeltPolicy};
use crate::sandbox::{BoxProgram, BoxSpec, SandboxError, Unavailable};

/// This OS has a box (Seatbelt).
pub const EXISTS_ON_THIS_OS: bool = true;

/// What the box is called in messages.
pub const NAME: &str = "the Seatbelt sandbox (sandbox-exec)";

/// The environment variable that names the sandbox-exec binary, overriding
/// `/usr/bin/sandbox-exec`.
pub const PROGRAM_ENV: &str = "HOOKHOST_SANDBOX_EXEC";

/// sandbox-exec execs the hook: its own exit status is seen.
pub(crate) const REPORTS_SIGNALS_AS_EXIT_CODES: bool = false;

const ADVICE: &str = "sandbox-exec ships with macOS at /usr/bin/sandbox-exec; set HOOKHOST_SANDBOX_EXEC to its path if it lives elsewhere, or write the hooks as WASM hooks, which are sandboxed on every OS.";

fn unavailable(reason: impl Into<String>) -> Unavailable {
    Unavailable {
        sandbox: NAME,
        reason: reason.into(),
        advice: ADVICE.into(),
    }
}

/// A std Command that runs `argv` under the Seatbelt profile made from `spec`, with
/// exactly `env` and `TMPDIR` set to the private temp folder, in the project.
pub(crate) fn command(
    spec: &BoxSpec,
    argv: &[OsString],
    env: &[(OsString, OsString)],
) -> Result<Command, SandboxError> {
    let project = canonical_dir("the project", &spec.project)?;
    let private_tmp = canonical_dir("the private temp folder", &spec.private_tmp)?;
    let mut writable = Vec::new();
    for w in &spec.writable {
        absolute("a writable folder", w)?;
        // A writable folder that does not exist (yet) is left out: stricter, never looser.
        if let Ok(c) = std::fs::canonicalize(w) {
            writable.push(c);
        }
    }
    let mut hide = Vec::new();
    let mut resolver = Resolver::default();
    for h in &spec.hide {
        absolute("a hidden path", h)?;
        // Seatbelt matches resolved paths: hide where a link leads, and the link too.
        hide.push(h.clone());
        let resolved = match resolver.resolve(h) {
            Ok(c) => c,
            // Past the resolver's bounds (docs/threats.md#b7) the kernel's own resolution
            // decides; a path neither can follow (a loop, B2) is refused, as on Linux.
            Err(source) => std::fs::canonicalize(h).map_err(|_| SandboxError::Path {
                what: "a hidden path",
                path: h.clone(),
                source,
            })?,
        };
        if &resolved != h {
            hide.push(resolved);
        }
    }
    let policy = SeatbeltPolicy {
        project: &project,
        writable: &writable,
        private_tmp: &private_tmp,
        hide: &hide,
    };
    let mut cmd = Command::new(&spec.program);
    cmd.args(policy.sandbox_exec_args(argv))
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("TMPDIR", &private_tmp)
        .current_dir(&project);
    Ok(cmd)
}

/// Nothing of the kernel's decides whether sandbox-exec runs that a memo of a passed
/// trial could name (`sandbox::trial_memo`): its own path and stamp are what it holds.
pub(crate) const TRIAL_SETTINGS: &[&str] = &[];

/// Finds sandbox-exec: `program_override` if given (absolute), else the system's.
pub(crate) fn find(
    program_override: Option<&Path>,
    _path_env: Option<&OsStr>,
    _project: &Path,
) -> Result<BoxProgram, Unavailable> {
    let program = match program_override {
        Some(p) if !p.is_absolute() => {
            return Err(unavailable(format!(
                "{PROGRAM_ENV} is not an absolute path: {}",
                p.display()
            )));
        }
        Some(p) => p.to_path_buf(),
        None => PathBuf::from(SANDBOX_EXEC),
    };
    if !crate::paths::is_executable_file(&program) {
        return Err(unavailable(format!(
            "sandbox-exec was not found at {}",
            program.display()
        )));
    }
    Ok(BoxProgram { path: program })
}

/// Runs sandbox-exec once, with a profile of this project, on `true`.
pub(crate) fn trial(found: &BoxProgram, project: &Path) -> Result<(), Unavailable> {
    let program = &found.path;
    let tmp = std::env::temp_dir();
    let policy = SeatbeltPolicy {
        project,
        writable: &[],
        private_tmp: &tmp,
        hide: &[],
    };
    let mut trial = Command::new(program);
    trial
        .args(policy.sandbox_exec_args(&[OsString::from("/usr/bin/true")]))
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    match trial_run(&mut trial) {
        Ok(()) => Ok(()),
        Err(TrialFailure::Spawn(e)) => Err(unavailable(format!(
            "{} could not be started: {e}",
            program.display()
        ))),
        Err(TrialFailure::TooSlow) => Err(unavailable(
            "sandbox-exec did not finish a trial run within 10 s",
        )),
        Err(TrialFailure::Wait(e)) => {
            Err(unavailable(format!("waiting for sandbox-exec failed: {e}")))
        }
        Err(TrialFailure::Failed(status, said)) => Err(unavailable(format!(
            "a trial run of sandbox-exec failed with {status}: {said}"
        ))),
    }
}
