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
//! bwrap itself. Instead bwrap runs this entry point as the box's command, handed in as
//! an inherited fd and run as `/proc/self/fd/N` (so it need not be visible at its host
//! path: the box replaces `/tmp` and hides folders), with the argument list
//! `BOX_ENTRY_ARG ROOT… -- CMD ARGS…`. It restricts itself, marks every fd above stdio
//! close-on-exec (its own binary's among them), and execs the command.
//!
//! The entry point is one piece of code (`program.rs`) in two programs: the small one
//! the hookhost binary carries and runs from a sealed in-memory copy (`carried.rs`), and,
//! where that copy cannot run, the hookhost binary itself (or any binary whose `main`
//! calls [`box_entry_main`] on [`BOX_ENTRY_ARG`]).
//!
//! Where the kernel has no Landlock (before 5.13, or not enabled at boot), the entry
//! point execs the command unrestricted: the rest of the box still holds. Any other
//! failure stops the command (exit 1) rather than run it unrestricted.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::ExitCode;

pub use crate::sandbox::BOX_ENTRY_ARG;

mod carried;
mod program;

pub use program::landlock_abi;

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
/// A server's boxes run the small entry program this image carries instead
/// ([`prepare_carried_entry`]).
pub fn running_binary() -> std::path::PathBuf {
    std::path::PathBuf::from("/proc/self/exe")
}

/// For an entry point at `path`: a fd of the in-memory copy of the entry program this
/// binary carries, when `path` is the running binary ([`running_binary`]) and this
/// process made a copy that runs ([`prepare_carried_entry`]); `None` to open `path`
/// itself.
pub(crate) fn entry_fd_for(path: &std::path::Path) -> Option<OwnedFd> {
    (path == running_binary()).then(carried::entry_fd).flatten()
}

/// For a process that will start many boxes (a server): makes the in-memory copy of the
/// entry program this binary carries and tries it, once, so that its boxes start that
/// small program instead of the whole running binary; whether they will. A one-shot
/// process need not call it: the copy costs about what one box saves.
pub fn prepare_carried_entry() -> bool {
    carried::prepare()
}

/// The box's entry point, for a `main` that found [`BOX_ENTRY_ARG`] as its first
/// argument: restricts writes to the roots it is given, then execs the command. Returns
/// only when that fails (exit 1, with the reason on stderr).
pub fn box_entry_main() -> ExitCode {
    program::entry_main(std::env::args_os())
}

#[cfg(test)]
mod tests {
    use super::*;

    use program::{ACCESS_FS_REFER, ACCESS_FS_TRUNCATE, PathBeneathAttr, split_args, write_rights};

    #[test]
    fn entry_arguments_round_trip() {
        let roots = vec![PathBuf::from("/tmp"), PathBuf::from("/p r/oj")];
        let argv: Vec<OsString> = ["sh", "-c", "--", "x"].iter().map(OsString::from).collect();
        let args = entry_args(&roots, &argv);
        assert_eq!(args[0], BOX_ENTRY_ARG);
        assert_eq!(BOX_ENTRY_ARG, program::ENTRY_ARG);
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

    /// The entry program declares libc's numbers itself (it is built without the libc
    /// crate): each is the libc crate's.
    #[test]
    fn the_entry_programs_own_libc_numbers_are_libcs() {
        use program::sys;
        assert_eq!(sys::SYS_CLOSE_RANGE, libc::SYS_close_range);
        assert_eq!(
            sys::SYS_LANDLOCK_CREATE_RULESET,
            libc::SYS_landlock_create_ruleset
        );
        assert_eq!(sys::SYS_LANDLOCK_ADD_RULE, libc::SYS_landlock_add_rule);
        assert_eq!(
            sys::SYS_LANDLOCK_RESTRICT_SELF,
            libc::SYS_landlock_restrict_self
        );
        assert_eq!(
            sys::CLOSE_RANGE_CLOEXEC as libc::c_uint,
            libc::CLOSE_RANGE_CLOEXEC
        );
        assert_eq!(sys::O_PATH, libc::O_PATH);
        assert_eq!(sys::O_CLOEXEC, libc::O_CLOEXEC);
        assert_eq!(sys::O_ACCMODE, libc::O_ACCMODE);
        assert_eq!(sys::O_RDONLY, libc::O_RDONLY);
        assert_eq!(sys::F_GETFD, libc::F_GETFD);
        assert_eq!(sys::F_SETFD, libc::F_SETFD);
        assert_eq!(sys::F_GETFL, libc::F_GETFL);
        assert_eq!(sys::FD_CLOEXEC, libc::FD_CLOEXEC);
        assert_eq!(sys::PR_SET_NO_NEW_PRIVS, libc::PR_SET_NO_NEW_PRIVS);
        assert_eq!(sys::EBADF, libc::EBADF);
        assert_eq!(sys::EBADFD, libc::EBADFD);
    }

    /// The binary carries the entry program (a build whose compiler could not make it
    /// would fall back to the whole binary, unseen: this says it), its copy runs here,
    /// and run as the box's command it refuses a bad argument list, restricts and
    /// execs, as the hookhost binary's own entry point does.
    #[test]
    fn the_carried_entry_program_runs_from_its_sealed_copy() {
        assert!(
            carried::carried(),
            "build.rs did not make the box's entry program"
        );
        assert!(prepare_carried_entry(), "the copy runs here");
        let fd = entry_fd_for(&running_binary()).expect("a copy was made");
        assert!(entry_fd_for(std::path::Path::new("/usr/bin/env")).is_none());
        let program = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&fd));
        // Sealed: not even this process can write it.
        let written = std::fs::OpenOptions::new()
            .write(true)
            .open(&program)
            .and_then(|mut copy| std::io::Write::write_all(&mut copy, b"x"));
        assert!(written.is_err(), "the copy is sealed");
        let run = |args: &[&str]| {
            std::process::Command::new(&program)
                .args(args)
                .output()
                .expect("runs")
        };
        let usage = run(&[BOX_ENTRY_ARG, "/tmp"]);
        assert_eq!(usage.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&usage.stderr),
            "hookhost: the box's entry point needs ROOT… -- CMD ARGS…\n"
        );
        let ran = run(&[BOX_ENTRY_ARG, "/tmp", "--", "/bin/sh", "-c", "exit 7"]);
        assert_eq!(ran.status.code(), Some(7), "{ran:?}");
        if landlock_abi().is_some() {
            // Confined to /tmp and /dev: a file elsewhere cannot be made.
            let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).expect("temp dir");
            let target = dir.path().join("made");
            let script = format!("echo x > '{}'", target.display());
            let refused = run(&[BOX_ENTRY_ARG, "/tmp", "--", "/bin/sh", "-c", &script]);
            assert_ne!(refused.status.code(), Some(0), "{refused:?}");
            assert!(!target.exists());
        }
    }
}
