//! The entry program hookhost carries: `build.rs` compiles `program.rs` into a small
//! program of its own, whose bytes are part of the hookhost binary. A process that will
//! start many boxes (the warm server, `serve`) copies them at its start into a sealed
//! in-memory file (`memfd`) and runs that copy once with [`program::CHECK_ARG`]
//! ([`prepare`]); from then on its boxes run the copy as their entry point, whose start
//! costs ~0.2 ms where a second start of the whole hookhost binary (its loading and its
//! ~40,000 relocations) costs ~1.1 (BENCHMARKS.md, eighteenth sitting). A one-shot
//! process does not: making and trying the copy costs about what one box saves.
//!
//! Trust is unchanged: the bytes come from the running hookhost's own image, as
//! `/proc/self/exe` did, and the seals (no write, no resize, no new seal) keep anyone,
//! this process included, from changing the copy. Where no copy can be made or run (a
//! build whose compiler could not make the program, a kernel or policy that refuses to
//! run an in-memory file), the running binary itself is the entry point, as before: the
//! same rules, only slower.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;

use super::program;

/// The entry program's bytes; empty when `build.rs` could not make it.
static PROGRAM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/box-entry"));

/// `MFD_EXEC` (Linux 6.3): the copy may be run, whatever `vm.memfd_noexec` would give
/// a memfd by default. Older kernels refuse the flag, and run any memfd.
const MFD_EXEC: libc::c_uint = 0x10;

/// The copy, made and tried once per process, by [`prepare`].
static COPY: OnceLock<Option<OwnedFd>> = OnceLock::new();

/// Whether this binary carries the entry program.
pub(crate) fn carried() -> bool {
    !PROGRAM.is_empty()
}

/// Makes the in-memory copy and tries it, once per process; whether the copy runs here.
pub(crate) fn prepare() -> bool {
    COPY.get_or_init(make_copy).is_some()
}

/// A new fd (close-on-exec, above stdio) of the in-memory copy of the entry program,
/// for one box's command; `None` when [`prepare`] was not called or found no copy that
/// runs here.
pub(crate) fn entry_fd() -> Option<OwnedFd> {
    let copy = COPY.get()?.as_ref()?;
    // SAFETY: F_DUPFD_CLOEXEC on an fd this process owns returns a new fd (or -1).
    let fd = unsafe { libc::fcntl(copy.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    // SAFETY: a fresh fd that nothing else owns.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The sealed copy, once it ran with [`program::CHECK_ARG`]; `None` otherwise.
fn make_copy() -> Option<OwnedFd> {
    if !carried() {
        return None;
    }
    let copy = memfd().ok()?;
    let mut file = std::fs::File::from(copy);
    file.write_all(PROGRAM).ok()?;
    let seals = libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;
    // SAFETY: F_ADD_SEALS on a memfd this process owns.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } != 0 {
        return None;
    }
    let copy = OwnedFd::from(file);
    let runs = std::process::Command::new(format!("/proc/self/fd/{}", copy.as_raw_fd()))
        .arg(program::CHECK_ARG)
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    runs.then_some(copy)
}

/// A new memfd that may be sealed and run.
fn memfd() -> std::io::Result<OwnedFd> {
    let flags = libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING;
    let name = c"hookhost-box-entry";
    // SAFETY: memfd_create with a C string literal returns a new fd or -1.
    let mut fd = unsafe { libc::memfd_create(name.as_ptr(), flags | MFD_EXEC) };
    if fd < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
        // SAFETY: as above, without the flag a kernel before 6.3 does not know.
        fd = unsafe { libc::memfd_create(name.as_ptr(), flags) };
    }
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh fd that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
