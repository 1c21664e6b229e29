//! The seccomp filter bwrap installs in the box (`--seccomp FD`).
//!
//! The rules are declared here and compiled to classic BPF by `seccompiler` (Firecracker's
//! filter compiler), which also puts the architecture check first. One part stays
//! hand-written, six instructions in front of the compiled filter ([`X32_GUARD`]):
//! `seccompiler` rules are keyed by syscall number and cannot say "every number with bit
//! 30 set", and without that check an x32 syscall number would route around every
//! per-number rule on x86_64. The guard repeats the architecture check before it, so that
//! a foreign-ABI call is killed before its number is looked at (as the compiled filter
//! would), and the compiled filter's own check after it always passes.
//!
//! What it refuses, each with `EPERM` unless said otherwise:
//! - `socket()` of every family but `AF_INET`, `AF_INET6` (inside the box's empty network
//!   namespace) and `AF_NETLINK` (glibc's `getaddrinfo` asks it for interfaces). With
//!   `--unshare-net` the box has no network, but a pathname Unix socket on the host
//!   (`docker.sock`, the D-Bus session bus) stays reachable through the read-only root,
//!   and families the network namespace does not scope on every kernel (`AF_VSOCK` to
//!   the hypervisor, and the like) could reach past it: refusing the socket closes both.
//! - `socketpair(AF_UNIX, SOCK_DGRAM, …)`: an unconnected datagram pair could `sendto`
//!   or re-`connect` to a host datagram socket. Stream and seqpacket pairs (asyncio's
//!   self-pipe) stay allowed: they are born connected and cannot be re-aimed.
//! - `io_uring_setup`, `io_uring_enter`, `io_uring_register`: io_uring performs socket and
//!   file operations that this filter never sees.
//! - `ioctl(_, TIOCSTI)` and `ioctl(_, TIOCLINUX)`: typing into the host terminal. Only
//!   the low 32 bits of the request are compared, as the kernel reads them.
//! - any x32 syscall (number with bit 30 set, x86_64 only): `ENOSYS`.
//! - any syscall made under another architecture's ABI (e.g. i386 `int 0x80`): the
//!   process is killed.
//!
//! Arguments are compared on their low 32 bits (`int` domain, `int` type, `unsigned int`
//! request), which is what the kernel uses, so high garbage bits cannot slip past.

use std::collections::BTreeMap;
use std::io::{Seek, SeekFrom, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

// Classic BPF opcodes (linux/filter.h, linux/bpf_common.h), for the x32 guard.
const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD (0) | BPF_W (0) | BPF_ABS (0x20)
const BPF_JEQ_K: u16 = 0x05 | 0x10; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K: u16 = 0x05 | 0x30; // BPF_JMP | BPF_JGE | BPF_K
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K

// Return values (linux/seccomp.h).
const SECCOMP_RET_KILL_PROCESS: u32 = 0x8000_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;

// Offsets into `struct seccomp_data` (nr, arch, ip, args[6]).
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;

const X32_SYSCALL_BIT: u32 = 0x4000_0000;
const SOCK_TYPE_MASK: u64 = 0xf;

#[cfg(target_arch = "x86_64")]
const ARCH: TargetArch = TargetArch::x86_64;
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e; // AUDIT_ARCH_X86_64
#[cfg(target_arch = "aarch64")]
const ARCH: TargetArch = TargetArch::aarch64;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7; // AUDIT_ARCH_AARCH64

/// One instruction with no jump.
const fn stmt(code: u16, k: u32) -> sock_filter {
    sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

/// One conditional jump, `jt`/`jf` instructions forward.
const fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// The hand-written part, run before the compiled filter: a syscall made under another
/// architecture's ABI (e.g. i386 `int 0x80`) kills the process; an x32 syscall (number
/// with bit 30 set, x86_64 only; checked on aarch64 too, where no such number exists)
/// fails with `ENOSYS`. Every jump lands inside these six instructions or on the first
/// instruction after them.
const X32_GUARD: [sock_filter; 6] = [
    /* 0 */ stmt(BPF_LD_W_ABS, OFF_ARCH),
    /* 1 */ jump(BPF_JEQ_K, AUDIT_ARCH, 1, 0),
    /* 2 */ stmt(BPF_RET_K, SECCOMP_RET_KILL_PROCESS),
    /* 3 */ stmt(BPF_LD_W_ABS, OFF_NR),
    /* 4 */ jump(BPF_JGE_K, X32_SYSCALL_BIT, 0, 1),
    /* 5 */ stmt(BPF_RET_K, SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
];

/// A condition on an argument's low 32 bits (`int` domain, `int` type, `unsigned int`
/// request): the kernel reads only those, so high garbage bits cannot slip past.
fn low32(
    arg: u8,
    op: SeccompCmpOp,
    value: u64,
) -> Result<SeccompCondition, seccompiler::BackendError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
}

/// The declared rules: each syscall number with the rules (any one matching) under which
/// it is refused with `EPERM`; an empty list refuses it whatever its arguments.
#[allow(clippy::unnecessary_cast)] // ioctl request types differ between libcs
fn rules() -> Result<BTreeMap<i64, Vec<SeccompRule>>, seccompiler::BackendError> {
    use SeccompCmpOp::{Eq, MaskedEq, Ne};
    let refuse = SeccompRule::new;
    Ok(BTreeMap::from([
        // socket(domain, …): three families, nothing else.
        (
            libc::SYS_socket,
            vec![refuse(vec![
                low32(0, Ne, libc::AF_INET as u64)?,
                low32(0, Ne, libc::AF_INET6 as u64)?,
                low32(0, Ne, libc::AF_NETLINK as u64)?,
            ])?],
        ),
        // socketpair(domain, type, …): no unconnected Unix datagram pair.
        (
            libc::SYS_socketpair,
            vec![refuse(vec![
                low32(0, Eq, libc::AF_UNIX as u64)?,
                low32(1, MaskedEq(SOCK_TYPE_MASK), libc::SOCK_DGRAM as u64)?,
            ])?],
        ),
        // ioctl(fd, request, …): no typing into the host terminal.
        (
            libc::SYS_ioctl,
            vec![
                refuse(vec![low32(1, Eq, libc::TIOCSTI as u64)?])?,
                refuse(vec![low32(1, Eq, libc::TIOCLINUX as u64)?])?,
            ],
        ),
        // io_uring does socket and file operations this filter never sees.
        (libc::SYS_io_uring_setup, vec![]),
        (libc::SYS_io_uring_enter, vec![]),
        (libc::SYS_io_uring_register, vec![]),
    ]))
}

/// The whole filter: [`X32_GUARD`], then the compiled [`rules`] (everything else allowed).
fn compile() -> Result<BpfProgram, seccompiler::BackendError> {
    let filter = SeccompFilter::new(
        rules()?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        ARCH,
    )?;
    let compiled: BpfProgram = filter.try_into()?;
    Ok(X32_GUARD.iter().cloned().chain(compiled).collect())
}

/// The filter program, as the `struct sock_filter` array bwrap expects (compiled once).
pub(crate) fn program() -> std::io::Result<&'static [u8]> {
    static PROGRAM: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    let compiled = PROGRAM.get_or_init(|| {
        let program = compile().map_err(|e| e.to_string())?;
        Ok(program.iter().flat_map(to_bytes).collect())
    });
    compiled
        .as_deref()
        .map_err(|e| std::io::Error::other(format!("the seccomp filter does not compile: {e}")))
}

/// One `struct sock_filter`, laid out as the kernel and bwrap read it.
fn to_bytes(insn: &sock_filter) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[0..2].copy_from_slice(&insn.code.to_ne_bytes());
    b[2] = insn.jt;
    b[3] = insn.jf;
    b[4..8].copy_from_slice(&insn.k.to_ne_bytes());
    b
}

/// A fresh memfd holding [`program`], positioned at its start, close-on-exec (the
/// spawned child clears that flag on this one fd just before exec).
pub(crate) fn memfd() -> std::io::Result<OwnedFd> {
    // SAFETY: memfd_create takes a NUL-terminated name and flags; it returns a new fd
    // or -1. The name is a static C string literal.
    let raw = unsafe { libc::memfd_create(c"hookhost-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `raw` is a freshly created fd that nothing else owns.
    let mut fd = unsafe { OwnedFd::from_raw_fd(raw) };
    if raw < 3 {
        // A host started with a closed stdio fd would hand out 0..2, which the child's
        // stdio setup overwrites before exec: move it up.
        // SAFETY: F_DUPFD_CLOEXEC on an fd we own returns a new fd (or -1).
        let moved = unsafe { libc::fcntl(raw, libc::F_DUPFD_CLOEXEC, 3) };
        if moved < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `moved` is a fresh fd that nothing else owns; the old one drops here.
        fd = unsafe { OwnedFd::from_raw_fd(moved) };
    }
    let mut file = std::fs::File::from(fd);
    file.write_all(program()?)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(OwnedFd::from(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BPF_AND_K: u16 = 0x04 | 0x50; // BPF_ALU | BPF_AND | BPF_K
    const BPF_JA: u16 = 0x05; // BPF_JMP | BPF_JA
    const BPF_JGT_K: u16 = 0x05 | 0x20; // BPF_JMP | BPF_JGT | BPF_K
    const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;

    /// A tiny classic-BPF interpreter for the few opcodes the filter uses, run on the
    /// bytes bwrap is handed.
    fn run(nr: i64, arch: u32, args: [u64; 6]) -> u32 {
        let prog = program().expect("the filter compiles");
        let insns: Vec<sock_filter> = prog
            .chunks(8)
            .map(|c| sock_filter {
                code: u16::from_ne_bytes([c[0], c[1]]),
                jt: c[2],
                jf: c[3],
                k: u32::from_ne_bytes([c[4], c[5], c[6], c[7]]),
            })
            .collect();
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&(nr as u32).to_ne_bytes());
        data[4..8].copy_from_slice(&arch.to_ne_bytes());
        for (i, a) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_ne_bytes());
        }
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let i = &insns[pc];
            pc += 1;
            match i.code {
                BPF_LD_W_ABS => {
                    let k = i.k as usize;
                    acc = u32::from_ne_bytes([data[k], data[k + 1], data[k + 2], data[k + 3]]);
                }
                BPF_AND_K => acc &= i.k,
                BPF_RET_K => return i.k,
                BPF_JA => pc += i.k as usize,
                BPF_JEQ_K | BPF_JGE_K | BPF_JGT_K => {
                    let hit = match i.code {
                        BPF_JEQ_K => acc == i.k,
                        BPF_JGE_K => acc >= i.k,
                        _ => acc > i.k,
                    };
                    pc += usize::from(if hit { i.jt } else { i.jf });
                }
                other => panic!("unexpected opcode {other:#x}"),
            }
            assert!(pc < insns.len(), "jump past the end");
        }
    }

    const EPERM: u32 = SECCOMP_RET_ERRNO | libc::EPERM as u32;

    #[test]
    #[allow(clippy::unnecessary_cast)] // ioctl request types differ between libcs
    fn filter_decides_as_documented() {
        let a = AUDIT_ARCH;
        let unix = libc::AF_UNIX as u64;
        let inet = libc::AF_INET as u64;
        let high = 0xdead_beef_0000_0000u64;
        assert_eq!(run(libc::SYS_socket, a, [unix, 1, 0, 0, 0, 0]), EPERM);
        assert_eq!(
            run(libc::SYS_socket, a, [unix | high, 1, 0, 0, 0, 0]),
            EPERM
        );
        for family in [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK] {
            assert_eq!(
                run(libc::SYS_socket, a, [family as u64, 1, 0, 0, 0, 0]),
                SECCOMP_RET_ALLOW,
                "family {family}"
            );
        }
        for family in [
            libc::AF_VSOCK,
            libc::AF_PACKET,
            libc::AF_BLUETOOTH,
            libc::AF_ALG,
            libc::AF_UNSPEC,
            0xffff,
        ] {
            assert_eq!(
                run(libc::SYS_socket, a, [family as u64, 1, 0, 0, 0, 0]),
                EPERM,
                "family {family}"
            );
        }
        // High garbage bits do not turn an allowed family into another, nor back.
        assert_eq!(
            run(libc::SYS_socket, a, [inet | high, 1, 0, 0, 0, 0]),
            SECCOMP_RET_ALLOW
        );
        let vsock = libc::AF_VSOCK as u64;
        assert_eq!(
            run(libc::SYS_socket, a, [vsock | high, 1, 0, 0, 0, 0]),
            EPERM
        );
        let dgram = libc::SOCK_DGRAM as u64 | libc::SOCK_CLOEXEC as u64;
        let stream = libc::SOCK_STREAM as u64;
        assert_eq!(
            run(libc::SYS_socketpair, a, [unix, dgram, 0, 0, 0, 0]),
            EPERM
        );
        assert_eq!(
            run(libc::SYS_socketpair, a, [unix, stream, 0, 0, 0, 0]),
            SECCOMP_RET_ALLOW
        );
        for n in [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ] {
            assert_eq!(run(n, a, [0; 6]), EPERM);
        }
        let sti = libc::TIOCSTI as u64;
        assert_eq!(run(libc::SYS_ioctl, a, [0, sti, 0, 0, 0, 0]), EPERM);
        assert_eq!(run(libc::SYS_ioctl, a, [0, sti | high, 0, 0, 0, 0]), EPERM);
        assert_eq!(
            run(libc::SYS_ioctl, a, [0, libc::TIOCLINUX as u64, 0, 0, 0, 0]),
            EPERM
        );
        assert_eq!(
            run(libc::SYS_ioctl, a, [0, libc::TIOCGWINSZ as u64, 0, 0, 0, 0]),
            SECCOMP_RET_ALLOW
        );
        let seqpacket = libc::SOCK_SEQPACKET as u64;
        assert_eq!(
            run(libc::SYS_socketpair, a, [unix, seqpacket, 0, 0, 0, 0]),
            SECCOMP_RET_ALLOW
        );
        assert_eq!(
            run(
                libc::SYS_socketpair,
                a,
                [unix | high, dgram | high, 0, 0, 0, 0]
            ),
            EPERM
        );
        assert_eq!(
            run(libc::SYS_socketpair, a, [inet, dgram, 0, 0, 0, 0]),
            SECCOMP_RET_ALLOW
        );
        assert_eq!(run(libc::SYS_read, a, [0; 6]), SECCOMP_RET_ALLOW);
        assert_eq!(
            run(libc::SYS_socket | 0x4000_0000, a, [unix, 1, 0, 0, 0, 0]),
            SECCOMP_RET_ERRNO | libc::ENOSYS as u32
        );
        assert_eq!(
            run(libc::SYS_read, 0x4000_0003, [0; 6]),
            SECCOMP_RET_KILL_PROCESS
        );
    }

    #[test]
    fn every_jump_lands_inside_the_program() {
        let prog = program().expect("the filter compiles");
        let len = prog.len() / 8;
        for (at, c) in prog.chunks(8).enumerate() {
            let code = u16::from_ne_bytes([c[0], c[1]]);
            let k = u32::from_ne_bytes([c[4], c[5], c[6], c[7]]) as usize;
            let targets = match code {
                BPF_JA => vec![k],
                BPF_JEQ_K | BPF_JGE_K | BPF_JGT_K => vec![usize::from(c[2]), usize::from(c[3])],
                _ => continue,
            };
            for off in targets {
                assert!(at + 1 + off < len, "instruction {at} jumps past the end");
            }
        }
    }
}
