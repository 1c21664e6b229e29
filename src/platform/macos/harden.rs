//! macOS: the hardening of hookhost's own process. There is no non-dumpable flag, and
//! none is needed for memory: reading another process's memory (`task_for_pid`) takes
//! the debugger entitlement or an administrator's consent, not just the same user.
//! `PT_DENY_ATTACH` is not used: a hookhost started under a debugger or tracer would be
//! killed by it, with no message. The environment hookhost was started with stays
//! readable to same-user processes (`ps -E`); the README says so.

// No flag, no subreaper: orphans go to launchd.
pub(crate) use crate::platform::generic::harden::{
    become_child_subreaper, make_non_dumpable, open_before_non_dumpable,
};

/// Whether a same-user process could read hookhost's memory: not without the debugger
/// entitlement or an administrator's consent.
pub(crate) fn is_dumpable() -> bool {
    false
}
