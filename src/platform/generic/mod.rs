//! What an OS without a facility answers for it, written once for every such OS (see
//! [`crate::platform`]).

pub(crate) mod pid_namespace;
pub(crate) mod warm;

/// Where the OS offers no hardening of hookhost's own process that these calls make:
/// nothing to open first, no non-dumpable flag, no child subreaper. Each OS says in its
/// own `harden` why, and whether a same-user process can read hookhost's memory.
pub(crate) mod harden {
    /// Nothing must be opened first.
    pub(crate) fn open_before_non_dumpable() {}

    /// Nothing to do: there is no non-dumpable flag.
    pub(crate) fn make_non_dumpable() -> std::io::Result<()> {
        Ok(())
    }

    /// There is no child subreaper; `Ok(false)` says so.
    pub(crate) fn become_child_subreaper() -> std::io::Result<bool> {
        Ok(false)
    }
}

/// Where the box has no entry point (it is Linux's, for Landlock): the entry point
/// refuses, and there is no Landlock.
pub(crate) mod entry {
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

    /// Nothing to prepare: the entry point is Linux's.
    pub fn prepare_carried_entry() -> bool {
        false
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
}

/// Where hookhost does not read the machine's swap: assume swap is in use.
pub(crate) mod memory {
    /// Always `true`: the safe side for the callers, which turn an optimisation (resetting
    /// a WASM instance's memory by a page scan) off when swap is in use.
    pub(crate) fn swap_in_use() -> bool {
        true
    }

    /// Nothing to advise here: large buffers are backed as the OS backs them.
    pub(crate) fn prefer_huge_pages(_buffer: &[std::mem::MaybeUninit<u8>]) {}
}

/// Where hookhost maps no files (Linux's are mapped): the WASM compile cache reads its
/// files whole, checks the buffer and has wasmtime copy it.
pub(crate) mod mapped {
    use std::fs::File;
    use std::io;
    use std::path::PathBuf;

    /// No file is mapped here.
    pub(crate) const MAPS_FILES: bool = false;

    /// Never made here.
    pub(crate) enum Mapping {}

    impl Mapping {
        /// Never called: there is no mapping.
        pub(crate) fn bytes(&self) -> &[u8] {
            match *self {}
        }
    }

    /// Always `None`.
    pub(crate) fn map(_file: &File) -> io::Result<Option<Mapping>> {
        Ok(None)
    }

    /// Always `None`: never asked ([`MAPS_FILES`] is `false`).
    pub(crate) fn same_file(_file: &File) -> Option<PathBuf> {
        None
    }

    /// Always `None`: no memo of a check is kept here.
    pub(crate) fn boot_id() -> Option<&'static str> {
        None
    }
}
