//! Linux: the hardening of hookhost's own process (non-dumpable, child subreaper), and
//! what must be opened before it (see [`crate::process::harden_host_process`]).

/// Opens (and keeps) what a non-dumpable process could no longer open.
///
/// A non-dumpable process's `/proc/self` files belong to root, so what must be opened
/// there is opened first: wasmtime's pooling allocator finds the pages a WASM run wrote
/// through `/proc/self/pagemap`, which it opens once per process (see
/// [`crate::executor::wasm::WasmEngine::resets_memory_by_page_scan`]). wasmtime also
/// registers a `pthread_atfork` handler then, which reopens the file in every forked
/// child (hook processes included; a non-dumpable child gets `/dev/null` instead):
/// two or three syscalls per spawn.
pub(crate) fn open_before_non_dumpable() {
    // Opens (and keeps) /proc/self/pagemap while this process may still open it; the
    // answer itself is asked again when an engine is made.
    let _ = wasmtime::PoolingAllocationConfig::is_pagemap_scan_available();
}

/// `PR_SET_DUMPABLE 0`: no process of the same user can read this one's memory or
/// `/proc/self/environ`, nor ptrace it.
pub(crate) fn make_non_dumpable() -> std::io::Result<()> {
    // SAFETY: prctl with these options takes plain integers and touches no memory.
    if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// `PR_SET_CHILD_SUBREAPER`: orphaned descendants are re-parented to this process.
/// `Ok(true)`: this OS has subreapers, and this process is one now.
pub(crate) fn become_child_subreaper() -> std::io::Result<bool> {
    // SAFETY: prctl with these options takes plain integers and touches no memory.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(true)
}

/// Whether this process is dumpable.
pub(crate) fn is_dumpable() -> bool {
    // SAFETY: PR_GET_DUMPABLE reads a flag of this process.
    unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) != 0 }
}
