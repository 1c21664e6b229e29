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

/// The hidden first argument of a ready keeper: never used here (no namespace to keep
/// ready), and refused by [`keeper_main`].
pub const KEEPER_ARG: &str = "__hookhost-namespace-keeper";

/// There is no namespace to keep ready: exits 125.
pub fn keeper_main() -> ! {
    std::process::exit(125)
}

/// Nothing to keep ready on this OS.
pub fn prepare_ahead(_binary: std::path::PathBuf) {}

/// Nothing to keep ready on this OS.
pub fn prepare_ahead_by_this_binary() {}

/// Never: nothing is kept ready on this OS.
pub fn is_ready() -> bool {
    false
}

/// Never: nothing is kept ready on this OS.
pub(crate) fn take_ready() -> Option<ReadyKeeper> {
    None
}

/// A ready keeper; none is ever made on this OS.
pub(crate) enum ReadyKeeper {}

/// A hook a ready keeper started; none on this OS.
pub(crate) enum ReadyRun {}

/// Why a ready keeper did not start the hook (never made on this OS, where no keeper is).
#[allow(dead_code)]
pub(crate) enum NotStarted {
    /// The hook has not run and may start the usual way.
    Unused,
    /// The hook could not start.
    Failed(std::io::Error),
}

/// The hook's stdin, stdout and stderr, taken once.
pub(crate) type Pipes = (
    Option<Box<dyn tokio::io::AsyncWrite + Send + Unpin>>,
    Option<Box<dyn tokio::io::AsyncRead + Send + Unpin>>,
    Option<Box<dyn tokio::io::AsyncRead + Send + Unpin>>,
);

impl ReadyKeeper {
    /// Never called: no value exists.
    pub(crate) async fn start(
        self,
        _argv: &[std::ffi::OsString],
        _env: &[(std::ffi::OsString, std::ffi::OsString)],
        _cwd: &std::path::Path,
    ) -> Result<ReadyRun, NotStarted> {
        match self {}
    }
}

impl ReadyRun {
    /// Never called: no value exists.
    pub(crate) fn id(&self) -> u32 {
        match *self {}
    }

    /// Never called: no value exists.
    pub(crate) fn take_pipes(&mut self) -> Pipes {
        match *self {}
    }

    /// Never called: no value exists.
    pub(crate) async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        match *self {}
    }
}
