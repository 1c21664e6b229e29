//! The box's entry point: Landlock write rules applied inside the box, just before the
//! command runs.
//!
//! A read-only bind stops writes to files and folders, but not opening a host FIFO for
//! writing (docs/threats.md#f6): the box could feed a host service that reads a
//! FIFO. Landlock closes that: after the rules here, writing a file (FIFOs and devices
//! included), creating and removing entries, truncating and renaming across folders are
//! allowed only beneath the box's writable roots (the project, the `writable` folders,
//! the private `/tmp`, the box's own `/dev`) and on the files its stdout/stderr already
//! are (so `echo … >/dev/stderr` still works at a terminal). Reading is not restricted.
//!
//! A Landlock-restricted process can no longer mount, so the rules cannot be applied to
//! bwrap itself. Instead bwrap runs this entry point as the box's command: the hookhost
//! binary (or any binary whose `main` calls [`box_entry_main`] on [`BOX_ENTRY_ARG`]),
//! handed in as an inherited fd and run as `/proc/self/fd/N` (so it need not be visible
//! at its host path: the box replaces `/tmp` and hides folders), with the argument list
//! `BOX_ENTRY_ARG ROOT… -- CMD ARGS…`. It restricts itself, marks every fd above stdio
//! close-on-exec (its own binary's among them), and execs the command.
//!
//! Where the kernel has no Landlock (before 5.13, or not enabled at boot), the entry
//! point execs the command unrestricted: the rest of the box still holds. Any other
//! failure stops the command (exit 1) rather than run it unrestricted.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use crate::sandbox::BOX_ENTRY_ARG;

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
const ACCESS_FS_REFER: u64 = 1 << 13;
/// ABI 3 (Linux 6.2): truncating.
const ACCESS_FS_TRUNCATE: u64 = 1 << 14;

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

const CREATE_RULESET_VERSION: u32 = 1 << 0;
const RULE_PATH_BENEATH: libc::c_int = 1;

/// `struct landlock_ruleset_attr`, cut after its first field: the kernel accepts any
/// size from there on, so this works on every ABI.
#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
}

/// `struct landlock_path_beneath_attr` (packed in the kernel's header).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version this kernel offers, or `None` where it has none (built
/// without it, or not enabled at boot). The box then runs without write rules.
pub fn landlock_abi() -> Option<u32> {
    // SAFETY: with a null attribute, size 0 and the VERSION flag, the syscall only
    // returns the ABI version (or -1); it reads and writes no memory.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(abi).ok().filter(|&v| v >= 1)
}

/// The write rights hookhost handles on a kernel of Landlock ABI `abi`.
fn write_rights(abi: u32) -> u64 {
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
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            std::mem::size_of::<RulesetAttr>(),
            0u32,
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
                Err(e) if matches!(e.raw_os_error(), Some(libc::EBADFD | libc::EBADF)) => {}
                Err(e) => return Err(e),
            }
        }
    }

    // SAFETY: prctl with PR_SET_NO_NEW_PRIVS and constant arguments (bwrap already set
    // it; Landlock requires it).
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: restrict_self takes the ruleset fd we own and flags 0.
    let done =
        unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) };
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
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
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
    let raw = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh fd that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// Whether `fd` is open for writing and is not a folder.
fn opened_for_writing(fd: RawFd) -> bool {
    // SAFETY: fcntl F_GETFL and fstat on an fd number only read the fd table; `st` is
    // written by the kernel before it is read.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || flags & libc::O_ACCMODE == libc::O_RDONLY {
            return false;
        }
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT != libc::S_IFDIR
    }
}

/// Marks every fd above stdio close-on-exec, so that the command gets stdio alone.
fn close_on_exec_above_stdio() {
    // SAFETY: close_range with the CLOEXEC flag only changes this process's fd flags.
    let done = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
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
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

/// The entry point's argument list after [`BOX_ENTRY_ARG`]: the writable roots, `--`,
/// then the command.
fn split_args(args: &[OsString]) -> Option<(Vec<PathBuf>, &[OsString])> {
    let at = args.iter().position(|a| a == OsStr::new("--"))?;
    let roots = args[..at].iter().map(PathBuf::from).collect();
    let command = &args[at + 1..];
    if command.is_empty() {
        return None;
    }
    Some((roots, command))
}

/// The arguments bwrap passes to the entry point for `roots` and `argv` (after the
/// program, `/proc/self/fd/N`).
pub(crate) fn entry_args(roots: &[PathBuf], argv: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(roots.len() + argv.len() + 2);
    out.push(OsString::from(BOX_ENTRY_ARG));
    out.extend(roots.iter().map(|r| r.as_os_str().to_owned()));
    out.push(OsString::from("--"));
    out.extend(argv.iter().cloned());
    out
}

/// The running binary, as the box's entry point ([`crate::SessionOptions::box_entry`]):
/// `/proc/self/exe`, the image that is running even if its file was replaced since.
pub fn running_binary() -> std::path::PathBuf {
    std::path::PathBuf::from("/proc/self/exe")
}

/// The box's entry point, for a `main` that found [`BOX_ENTRY_ARG`] as its first
/// argument: restricts writes to the roots it is given, then execs the command. Returns
/// only when that fails (exit 1, with the reason on stderr).
pub fn box_entry_main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(2).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_arguments_round_trip() {
        let roots = vec![PathBuf::from("/tmp"), PathBuf::from("/p r/oj")];
        let argv: Vec<OsString> = ["sh", "-c", "--", "x"].iter().map(OsString::from).collect();
        let args = entry_args(&roots, &argv);
        assert_eq!(args[0], BOX_ENTRY_ARG);
        let (got_roots, got_cmd) = split_args(&args[1..]).expect("splits");
        assert_eq!(got_roots, roots);
        assert_eq!(got_cmd, &argv[..]);
        assert!(split_args(&[OsString::from("/tmp"), OsString::from("--")]).is_none());
        assert!(split_args(&[OsString::from("/tmp")]).is_none());
    }

    #[test]
    fn rights_grow_with_the_abi() {
        assert_eq!(write_rights(1) & (ACCESS_FS_REFER | ACCESS_FS_TRUNCATE), 0);
        assert_ne!(write_rights(2) & ACCESS_FS_REFER, 0);
        assert_eq!(write_rights(2) & ACCESS_FS_TRUNCATE, 0);
        assert_ne!(write_rights(7) & ACCESS_FS_TRUNCATE, 0);
        assert_eq!(std::mem::size_of::<PathBeneathAttr>(), 12);
    }
}
