//! Where hookhost does not read the machine's swap: assume swap is in use.

/// Always `true`: the safe side for the callers, which turn an optimisation (resetting a
/// WASM instance's memory by a page scan) off when swap is in use.
pub(crate) fn swap_in_use() -> bool {
    true
}
