//! macOS: the hardening of hookhost's own process. There is no non-dumpable flag, and
//! none is needed for memory: reading another process's memory (`task_for_pid`) takes
//! the debugger entitlement or an administrator's consent, not just the same user.
//! `PT_DENY_ATTACH` is not used: a hookhost started under a debugger or tracer would be
//! killed by it, with no message. The environment hookhost was started with stays
//! readable to same-user processes (`ps -E`); the README says so.

/// Nothing must be opened first on macOS.
pub(crate) fn open_before_non_dumpable() {}

/// Nothing to do (see the module doc).
pub(crate) fn make_non_dumpable() -> std::io::Result<()> {
    Ok(())
}

/// macOS has no child subreaper: orphans go to launchd. `Ok(false)` says so.
pub(crate) fn become_child_subreaper() -> std::io::Result<bool> {
    Ok(false)
}

/// Whether a same-user process could read hookhost's memory: not without the debugger
/// entitlement or an administrator's consent.
pub(crate) fn is_dumpable() -> bool {
    false
}
