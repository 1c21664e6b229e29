//! Where the OS has no PID namespaces (they are Linux's): host hooks run in the host's
//! process table, and the session says so once, at start.

use std::sync::Arc;

/// A PID namespace of its own for each host hook; never made on this OS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookNamespace {
    _never: (),
}

/// Why host hooks run without a PID namespace of their own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NoHookNamespace(String);

impl HookNamespace {
    /// Always the reason: this OS has no PID namespaces.
    pub fn for_this_process() -> Result<HookNamespace, NoHookNamespace> {
        Err(NoHookNamespace(
            "this OS has no PID namespaces (they are Linux's)".into(),
        ))
    }

    /// Always the reason, as [`HookNamespace::for_this_process`] (nothing to probe here).
    pub fn at_spawn() -> Result<HookNamespace, NoHookNamespace> {
        HookNamespace::for_this_process()
    }

    /// Always the reason: this OS has no PID namespaces.
    pub fn known_failure() -> Option<NoHookNamespace> {
        HookNamespace::for_this_process().err()
    }

    /// Whether the namespaces sit in a user namespace: never here.
    pub fn has_user_namespace(&self) -> bool {
        false
    }
}

/// Never a namespace's set-up failure: nothing is entered here.
pub(crate) fn setup_failure(_error: &std::io::Error) -> Option<NoHookNamespace> {
    None
}

/// Nothing to remember: no namespace is made here.
pub(crate) fn made(_namespace: &HookNamespace) {}

/// Nothing to enter (no [`HookNamespace`] is ever made here).
pub(crate) fn enter_before_exec(
    _command: &mut std::process::Command,
    _namespace: Arc<HookNamespace>,
    _argv: &[std::ffi::OsString],
    _env: &[(std::ffi::OsString, std::ffi::OsString)],
) -> std::io::Result<()> {
    Ok(())
}
