//! macOS: the hardening of hookhost's own process. There is no non-dumpable flag: a
//! process of the same user cannot read another's memory without the debugger
//! entitlement, and `PT_DENY_ATTACH` refuses debuggers. The environment hookhost was
//! started with stays readable to same-user processes (`ps -E`); the README says so.

use std::sync::atomic::{AtomicBool, Ordering};

static DENIED: AtomicBool = AtomicBool::new(false);

/// Nothing must be opened first on macOS.
pub(crate) fn open_before_non_dumpable() {}

/// `ptrace(PT_DENY_ATTACH)`: no debugger (and so no same-user process through one) may
/// attach to hookhost.
pub(crate) fn make_non_dumpable() -> std::io::Result<()> {
    // SAFETY: PT_DENY_ATTACH takes no address or data and touches no memory.
    if unsafe { libc::ptrace(libc::PT_DENY_ATTACH, 0, std::ptr::null_mut(), 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    DENIED.store(true, Ordering::SeqCst);
    Ok(())
}

/// macOS has no child subreaper: orphans go to launchd. `Ok(false)` says so.
pub(crate) fn become_child_subreaper() -> std::io::Result<bool> {
    Ok(false)
}

/// Whether debuggers may still attach.
pub(crate) fn is_dumpable() -> bool {
    !DENIED.load(Ordering::SeqCst)
}
