//! Windows: no thread blocks on a file the way a FIFO blocks a POSIX `open` (named pipes
//! live under `\\.\pipe\`, outside any project), so there is nothing to interrupt.

/// Nothing to install.
pub(crate) fn install() -> std::io::Result<()> {
    Ok(())
}

/// Nothing to register.
pub(crate) fn register_current_thread() {}

/// Nothing to unregister.
pub(crate) fn unregister_current_thread() {}

/// Nothing to interrupt.
pub(crate) fn interrupt_registered() {}
