//! Windows: no hardening of hookhost's own process is possible for a same-user hook
//! (any process of the user may open another's memory); the README says so.

/// Nothing to open first.
pub(crate) fn open_before_non_dumpable() {}

/// Nothing to do: Windows has no non-dumpable flag.
pub(crate) fn make_non_dumpable() -> std::io::Result<()> {
    Ok(())
}

/// Windows has no subreaper; a hook's Job Object ends what it leaves behind instead.
pub(crate) fn become_child_subreaper() -> std::io::Result<bool> {
    Ok(false)
}

/// Always `true`: a same-user process can read hookhost's memory here.
pub(crate) fn is_dumpable() -> bool {
    true
}
