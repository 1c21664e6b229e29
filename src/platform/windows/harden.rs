//! Windows: no hardening of hookhost's own process is possible for a same-user hook
//! (any process of the user may open another's memory); the README says so.

// No flag; no subreaper: a hook's Job Object ends what it leaves behind instead.
pub(crate) use crate::platform::generic::harden::{
    become_child_subreaper, make_non_dumpable, open_before_non_dumpable,
};

/// Always `true`: a same-user process can read hookhost's memory here.
pub(crate) fn is_dumpable() -> bool {
    true
}
