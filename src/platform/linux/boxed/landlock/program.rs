//! The box's entry point itself (see the parent module for what it does and why),
//! written against std alone: no crate of hookhost's and no dependency, because it is
//! compiled twice. As a module of hookhost, it is what the hookhost binary runs when it
//! is started as the entry point. On its own, `build.rs` compiles it (through
//! `standalone.rs`) into a small program that hookhost carries and hands to bubblewrap
//! instead of itself (`carried.rs`): a program that starts without loading and
//! relocating the 30 MB hookhost binary again in every boxed hook's start.
//!
//! The few libc calls and constants std does not offer are declared in [`sys`]; a test
//! of hookhost's checks each constant against the `libc` crate's.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The entry point's first argument (hookhost's `sandbox::BOX_ENTRY_ARG`: a test checks
/// that they agree).
pub const ENTRY_ARG: &str = "__hookhost-box-entry";

/// The first argument with which the program only exits 0: hookhost runs its carried
/// copy so once before using it, so that a system that refuses to run it (a security
/// module's policy on in-memory programs) is found out of the box, at no hook's cost.
pub const CHECK_ARG: &str = "__hookhost-box-entry-check";

/// libc's functions and constants the entry point needs beyond std. The numbers are
/// Linux's generic ones, the same on every architecture hookhost builds for.
pub mod sys {
    use std::ffi::{c_char, c_int, c_long};

    unsafe extern "C" {
        pub fn syscall(number: c_long, ...) -> c_long;
        pub fn open(path: *const c_char, flags: c_int, ...) -> c_int;
        pub fn prctl(option: c_int, ...) -> c_int;
        pub fn fcntl(fd: c_int, command: c_int, ...) -> c_int;
    }

    pub const SYS_CLOSE_RANGE: c_long = 436;
    pub const SYS_LANDLOCK_CREATE_RULESET: c_long = 444;
    pub const SYS_LANDLOCK_ADD_RULE: c_long = 445;
    pub const SYS_LANDLOCK_RESTRICT_SELF: c_long = 446;
    pub const CLOSE_RANGE_CLOEXEC: c_long = 1 << 2;
    pub const O_PATH: c_int = 0o10000000;
    pub const O_CLOEXEC: c_int = 0o2000000;
    pub const O_ACCMODE: c_int = 3;
    pub const O_RDONLY: c_int = 0;
    pub const F_GETFD: c_int = 1;
    pub const F_SETFD: c_int = 2;
    pub const F_GETFL: c_int = 3;
    pub const FD_CLOEXEC: c_int = 1;
    pub const PR_SET_NO_NEW_PRIVS: c_int = 38;
    pub const EBADF: i32 = 9;
    pub const EBADFD: i32 = 77;
}

// Filesystem access rights (linux/landlock.h).
const ACCESS_FS_WRITE_FILE: u64 = 1 << 1;
const ACCESS_FS_REMOVE_DIR: u64 = 1 << 4;
const ACCESS_FS_REMOVE_FILE: u64 = 1 << 5;
const ACCESS_FS_MAKE_CHAR: u64 = 1 << 6;
const ACCESS_FS_MAKE_DIR: u64 = 1 << 7;
const ACCESS_FS_MAKE_REG: u64 = 1 << 8;
const ACCESS_FS_MAKE_SOCK: u64 = 1 << 9;
const ACCESS_FS_MAKE_FIFO: u64 = 1 << 10;
const ACCESS_FS_MAKE_BLOCK: u64 = 1 << 11;
const ACCESS_FS_MAKE_SYM: u64 = 1 << 12;
/// ABI 2 (Linux 5.19): linking or renaming into another folder.
pub const ACCESS_FS_REFER: u64 = 1 << 13;
/// ABI 3 (Linux 6.2): truncating.
pub const ACCESS_FS_TRUNCATE: u64 = 1 << 14;

/// Every write-type right of ABI 1.
const WRITE_RIGHTS_V1: u64 = ACCESS_FS_WRITE_FILE
    | ACCESS_FS_REMOVE_DIR
    | ACCESS_FS_REMOVE_FILE
    | ACCESS_FS_MAKE_CHAR
    | ACCESS_FS_MAKE_DIR
    | ACCESS_FS_MAKE_REG
    | ACCESS_FS_MAKE_SOCK
    | ACCESS_FS_MAKE_FIFO
    | ACCESS_FS_MAKE_BLOCK
    | ACCESS_FS_MAKE_SYM;

const CREATE_RULESET_VERSION: std::ffi::c_long = 1 << 0;
const RULE_PATH_BENEATH: std::ffi::c_long = 1;

/// `struct landlock_ruleset_attr`, cut after its first field: the kernel accepts any
/// size from there on, so this works on every ABI.
#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
}

/// `struct landlock_path_beneath_attr` (packed in the kernel's header).
#[repr(C, packed)]
pub struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version this kernel offers, or `None` where it has none (built
/// without it, or not enabled at boot). The box then runs without write rules.
pub fn landlock_abi() -> Option<u32> {
    // SAFETY: with a null attribute, size 0 and the VERSION flag, the syscall only
    // returns the ABI version (or -1); it reads and writes no memory.
    let abi = unsafe {
        sys::syscall(
            sys::SYS_LANDLOCK_CREATE_RULESET,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(abi).ok().filter(|&v| v >= 1)
}

/// The write rights hookhost handles on a kernel of Landlock ABI `abi`.
pub fn write_rights(abi: u32) -> u64 {
    let mut rights = WRITE_RIGHTS_V1;
    if abi >= 2 {
        rights |= ACCESS_FS_REFER;
    }
    if abi >= 3 {
        rights |= ACCESS_FS_TRUNCATE;
    }
    rights
}

/// What [`restrict_writes`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restriction {
    /// Writes are confined; the kernel's Landlock ABI version.
    Enforced(u32),
    /// The kernel has no Landlock; nothing was restricted.
    Unsupported,
}

/// Confines this process (and everything it execs or forks) so that it writes only
/// beneath `roots` and to the files its stdio already writes. A root that cannot be
/// opened is left out (stricter, never looser).
pub fn restrict_writes(roots: &[PathBuf]) -> io::Result<Restriction> {
    let Some(abi) = landlock_abi() else {
        return Ok(Restriction::Unsupported);
    };
    let handled = write_rights(abi);
    let attr = RulesetAttr {
        handled_access_fs: handled,
    };
    // SAFETY: `attr` is a live, initialised struct of the size passed; the kernel copies
    // it and returns a new fd or -1.
    let raw = unsafe {
        sys::syscall(
            sys::SYS_LANDLOCK_CREATE_RULESET,
            &attr as *const RulesetAttr,
            std::mem::size_of::<RulesetAttr>(),
            0 as std::ffi::c_long,
        )
    };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the syscall returned a fresh fd that nothing else owns.
    let ruleset = unsafe { OwnedFd::from_raw_fd(raw as RawFd) };

    for root in roots {
        let Ok(dir) = open_path(root) else { continue };
        add_rule(&ruleset, dir.as_raw_fd(), handled)?;
    }
    // The files stdout and stderr (and a writable stdin) already are: the box may write
    // them through its fds anyway, and reopening them (`>/dev/stderr`) must keep working
    // when they are a terminal or a file. Pipes and sockets need no rule (Landlock does
    // not govern them; the kernel refuses such fds as rule targets).
    let file_rights = handled & (ACCESS_FS_WRITE_FILE | ACCESS_FS_TRUNCATE);
    for fd in 0..=2 {
        if opened_for_writing(fd) {
            match add_rule(&ruleset, fd, file_rights) {
                Ok(()) => {}
                Err(e) if matches!(e.raw_os_error(), Some(sys::EBADFD | sys::EBADF)) => {}
                Err(e) => return Err(e),
            }
        }
    }

    // SAFETY: prctl with PR_SET_NO_NEW_PRIVS and constant arguments (bwrap already set
    // it; Landlock requires it).
    let no_new_privs = unsafe {
        sys::prctl(
            sys::PR_SET_NO_NEW_PRIVS,
            1 as std::ffi::c_long,
            0 as std::ffi::c_long,
            0 as std::ffi::c_long,
            0 as std::ffi::c_long,
        )
    };
    if no_new_privs != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: restrict_self takes the ruleset fd we own and flags 0.
    let done = unsafe {
        sys::syscall(
            sys::SYS_LANDLOCK_RESTRICT_SELF,
            ruleset.as_raw_fd() as std::ffi::c_long,
            0 as std::ffi::c_long,
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Restriction::Enforced(abi))
}

fn add_rule(ruleset: &OwnedFd, target: RawFd, allowed: u64) -> io::Result<()> {
    let attr = PathBeneathAttr {
        allowed_access: allowed,
        parent_fd: target,
    };
    // SAFETY: `attr` is a live, initialised struct laid out as the kernel's; both fds
    // are open for the duration of the call.
    let done = unsafe {
        sys::syscall(
            sys::SYS_LANDLOCK_ADD_RULE,
            ruleset.as_raw_fd() as std::ffi::c_long,
            RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0 as std::ffi::c_long,
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// An `O_PATH` fd for `path` (a rule's anchor).
fn open_path(path: &Path) -> io::Result<OwnedFd> {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: `c` is a NUL-terminated path; open returns a new fd or -1.
    let raw = unsafe { sys::open(c.as_ptr(), sys::O_PATH | sys::O_CLOEXEC) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh fd that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// Whether `fd` is open for writing and is not a folder.
fn opened_for_writing(fd: RawFd) -> bool {
    // SAFETY: fcntl F_GETFL only reads the fd table.
    let flags = unsafe { sys::fcntl(fd, sys::F_GETFL) };
    if flags < 0 || flags & sys::O_ACCMODE == sys::O_RDONLY {
        return false;
    }
    // SAFETY: the fd is open (F_GETFL answered); the File is only borrowed for its
    // metadata and never dropped, so the fd stays open.
    let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
    file.metadata().is_ok_and(|m| !m.is_dir())
}

/// Marks every fd above stdio close-on-exec, so that the command gets stdio alone.
fn close_on_exec_above_stdio() {
    // SAFETY: close_range with the CLOEXEC flag only changes this process's fd flags.
    let done = unsafe {
        sys::syscall(
            sys::SYS_CLOSE_RANGE,
            3 as std::ffi::c_long,
            std::ffi::c_long::from(u32::MAX),
            sys::CLOSE_RANGE_CLOEXEC,
        )
    };
    if done == 0 {
        return;
    }
    // Before Linux 5.11: the fds this process has are listed in /proc/self/fd.
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<RawFd> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
        .filter(|&fd| fd > 2)
        .collect();
    for fd in fds {
        // SAFETY: fcntl on an fd number; a closed one just fails.
        unsafe {
            let flags = sys::fcntl(fd, sys::F_GETFD);
            if flags >= 0 {
                sys::fcntl(fd, sys::F_SETFD, flags | sys::FD_CLOEXEC);
            }
        }
    }
}

/// The entry point's argument list after [`ENTRY_ARG`]: the writable roots, `--`, then
/// the command.
pub fn split_args(args: &[OsString]) -> Option<(Vec<PathBuf>, &[OsString])> {
    let at = args.iter().position(|a| a == OsStr::new("--"))?;
    let roots = args[..at].iter().map(PathBuf::from).collect();
    let command = &args[at + 1..];
    if command.is_empty() {
        return None;
    }
    Some((roots, command))
}

/// The entry point, given its whole argument list (`PROGRAM ENTRY_ARG ROOT… -- CMD
/// ARGS…`): restricts writes to the roots, then execs the command. Returns only when
/// that fails (exit 1, with the reason on stderr). `PROGRAM CHECK_ARG` exits 0.
pub fn entry_main(args: impl Iterator<Item = OsString>) -> ExitCode {
    let mut args = args.skip(1);
    match args.next() {
        Some(first) if first == CHECK_ARG => return ExitCode::SUCCESS,
        Some(first) if first == ENTRY_ARG => {}
        _ => {
            say(&format!(
                "hookhost: the box's entry point is run as PROGRAM {ENTRY_ARG} ROOT… -- CMD ARGS…"
            ));
            return ExitCode::from(1);
        }
    }
    let args: Vec<OsString> = args.collect();
    let Some((mut roots, command)) = split_args(&args) else {
        say("hookhost: the box's entry point needs ROOT… -- CMD ARGS…");
        return ExitCode::from(1);
    };
    // bwrap's own /dev (a fresh tmpfs with null, zero, tty, pts, shm…) is the box's.
    roots.push(PathBuf::from("/dev"));
    if let Err(e) = restrict_writes(&roots) {
        say(&format!(
            "hookhost: cannot restrict the box's writes with Landlock: {e}"
        ));
        return ExitCode::from(1);
    }
    close_on_exec_above_stdio();
    // `exec` searches PATH as bwrap's execvp would, and restores the signal state
    // (SIGPIPE) the Rust runtime changed.
    let e = std::process::Command::new(&command[0])
        .args(&command[1..])
        .exec();
    say(&format!(
        "hookhost: cannot run {} in the box: {e}",
        Path::new(&command[0]).display()
    ));
    ExitCode::from(1)
}

/// A line on stderr; not `eprintln!`, which panics (exit 101) when stderr is a closed
/// pipe, and a hook's stderr may be one.
fn say(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{text}");
}
