//! The one platform seam: everything hookhost asks of the operating system that differs
//! between systems (process groups and their teardown, the hardening of hookhost's own
//! process, the box argv hooks run in, file locks, signals, raw stdio, `/proc`, file
//! modes and ownership, the user's folders).
//!
//! The module for the running OS is chosen once, here, and renamed `sys` (as wasmtime-wasi's
//! `filesystem.rs` and tokio's `process` do), so that callers write `platform::sys::…` and
//! carry no `cfg` of their own. Every OS module offers the same items, one file per
//! concept:
//!
//! | module | Linux | macOS | Windows |
//! |---|---|---|---|
//! | `boxed` (the box) | bubblewrap, seccomp, Landlock | Seatbelt (`sandbox-exec`) | none: hooks run on the host |
//! | `harden` | non-dumpable, child subreaper | nothing to do (memory needs the debugger entitlement) | nothing possible |
//! | `process` | group + `PR_SET_PDEATHSIG`, `/proc` children | group, `proc_listchildpids` | a Job Object per hook, killed on close |
//! | `pid_namespace` | a PID namespace per host hook | none | none |
//! | `interrupt` | `SIGRTMIN+3` | `SIGUSR2` | nothing blocks that way |
//! | `file_system` | case kept, `/tmp` | case folded, per-user `$TMPDIR` | case folded, `%TEMP%`, `PATHEXT` |
//! | `files`, `ownership` | modes and uids | modes and uids | ACLs: private by default, one owner |
//! | `signal`, `stdio` | Unix signals, event-loop pipes | the same | Ctrl-C/Ctrl-Break, blocking stdio |
//! | `system_scope` | `/etc/hookhost/config.toml`, `/var/cache/hookhost`, `/usr/bin/bwrap` | the same paths, `/usr/bin/sandbox-exec` | `C:\ProgramData\hookhost\config.toml`, `…\cache`, no box |
//! | "the administrator's alone" (`ownership::admin_only_problem`) | uid 0, no group or world write | the same | owner and DACL, judged by the OS-neutral `acl` |
//!
//! What Linux and macOS share (POSIX) lives once in `unix/` and is re-exported by both;
//! what an OS lacks altogether lives once in `generic/`. Outside this module only the
//! box's OS-neutral face (`sandbox/`) and the tests may name `libc` or `cfg(`;
//! `scripts/check-platform.sh` enforces that in CI.
//!
//! The seam sits below the rest of the crate: the few types both sides name
//! ([`FolderStyle`], [`Stop`], `FileId`) are defined here and re-exported by the modules
//! that apply them (`env`, `signals`), so that no OS module imports them from above. The
//! one exception is the box: each OS's `boxed` (with `unix/box_paths`) implements
//! `sandbox`'s neutral types ([`crate::sandbox::BoxSpec`], `SandboxError`) and uses
//! `paths`' lexical helpers, so `platform`, `sandbox` and `paths` know each other there.

pub(crate) mod acl;

#[cfg(unix)]
pub(crate) mod unix;

#[cfg(not(target_os = "linux"))]
pub(crate) mod generic;

#[cfg(target_os = "linux")]
pub(crate) mod linux;
#[cfg(target_os = "linux")]
pub(crate) use linux as sys;

#[cfg(target_os = "macos")]
pub(crate) mod macos;
#[cfg(target_os = "macos")]
pub(crate) use macos as sys;

#[cfg(windows)]
pub(crate) mod windows;
#[cfg(windows)]
pub(crate) use windows as sys;

/// Whose rules name the user's folders: the XDG Base Directory rules (Linux), macOS's
/// `~/Library`, or Windows' `%APPDATA%` and `%LOCALAPPDATA%`. Applied, and re-exported,
/// by [`crate::env`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderStyle {
    /// `$XDG_CONFIG_HOME`, `$XDG_STATE_HOME`, `$XDG_CACHE_HOME`, else under `~/.config`,
    /// `~/.local/state` and `~/.cache`.
    Xdg,
    /// The XDG variables when set, else under `~/Library`.
    MacOs,
    /// The XDG variables when set, else under `%APPDATA%` and `%LOCALAPPDATA%`.
    Windows,
}

impl FolderStyle {
    /// The running OS's style.
    pub fn native() -> FolderStyle {
        sys::file_system::FOLDER_STYLE
    }
}

/// Which signal asked the process to stop (each OS's `signal::Listeners` says which);
/// re-exported as [`crate::signals::Stop`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

pub(crate) use acl::Standing;

/// Why a path is not the administrator's alone (system mode), in the terms of the OS that
/// found it; each OS's `ownership::admin_only_problem` answers, and the guard words it
/// (docs/contract.md#system-mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AdminProblem {
    /// POSIX: group- or world-writable (a folder on the way: and not sticky).
    #[cfg_attr(windows, allow(dead_code))]
    OpenMode,
    /// POSIX: owned by this uid, not by root.
    #[cfg_attr(windows, allow(dead_code))]
    OwnerUid(u32),
    /// Windows: what its owner or DACL lets someone else do.
    #[cfg_attr(not(windows), allow(dead_code))]
    Acl(acl::AclProblem),
}

/// Who a file is, wherever it is named from: equal `dev` and `ino` for two names of the
/// same file or folder (a bind mount, an 8.3 name, a `subst` drive included), and how many
/// names it has. Each OS's `ownership::identity` fills it: POSIX from `stat`, Windows from
/// the volume's serial number and the file's index (`GetFileInformationByHandle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    /// The device (file system) or volume it is on.
    pub(crate) dev: u64,
    /// Its inode, or its index on that volume.
    pub(crate) ino: u64,
    /// How many names (hard links) it has.
    pub(crate) links: u64,
}

/// The name of a temporary file beside `name`, for a write that renames it over `name`:
/// `NAME.hookhost-PID-RANDOM.tmp`, so that two writers never pick the same one and a
/// leftover says whose it was.
pub(crate) fn temporary_name(name: &std::ffi::OsStr) -> std::io::Result<std::ffi::OsString> {
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut tmp = name.to_os_string();
    tmp.push(format!(
        ".hookhost-{}-{:016x}.tmp",
        std::process::id(),
        u64::from_le_bytes(nonce)
    ));
    Ok(tmp)
}
