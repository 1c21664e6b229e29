//! Where the box has no entry point (it is Linux's, for Landlock): the entry point
//! refuses, and there is no Landlock.

use std::process::ExitCode;

/// The kernel's Landlock version: none off Linux.
pub fn landlock_abi() -> Option<u32> {
    None
}

/// The running binary (the entry point is not used off Linux, but the session option
/// names it on every OS).
pub fn running_binary() -> std::path::PathBuf {
    std::env::current_exe().unwrap_or_default()
}

/// The box's entry point: refused off Linux (exit 1, with the reason on stderr).
pub fn box_entry_main() -> ExitCode {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "hookhost: the box's entry point is Linux's (Landlock); this OS does not use it"
    );
    ExitCode::from(1)
}
