//! The seccomp filter bwrap installs in the box (`--seccomp FD`).
//!
//! It is a hand-written classic-BPF program of about two dozen instructions, so that every
//! check can be read here (a general filter compiler such as `seccompiler` does not guard
//! against x32 syscall numbers, which would route around a per-number rule on x86_64).
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

use std::io::{Seek, SeekFrom, Write};
use std::os::fd::{FromRawFd, OwnedFd};

// Classic BPF opcodes (linux/filter.h, linux/bpf_common.h).
const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD (0) | BPF_W (0) | BPF_ABS (0x20)
const BPF_JEQ_K: u16 = 0x05 | 0x10; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K: u16 = 0x05 | 0x30; // BPF_JMP | BPF_JGE | BPF_K
const BPF_AND_K: u16 = 0x04 | 0x50; // BPF_ALU | BPF_AND | BPF_K
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K

// Return values (linux/seccomp.h).
const SECCOMP_RET_KILL_PROCESS: u32 = 0x8000_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;

// Offsets into `struct seccomp_data` (nr, arch, ip, args[6]); both supported
// architectures are little-endian, so an argument's low 32 bits come first.
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const OFF_ARG0_LO: u32 = 16;
const OFF_ARG1_LO: u32 = 24;

const X32_SYSCALL_BIT: u32 = 0x4000_0000;
const SOCK_TYPE_MASK: u32 = 0xf;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e; // AUDIT_ARCH_X86_64
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7; // AUDIT_ARCH_AARCH64

/// One `struct sock_filter`, laid out as the kernel and bwrap read it.
#[derive(Clone, Copy)]
struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

impl Insn {
    fn to_bytes(self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0..2].copy_from_slice(&self.code.to_ne_bytes());
        b[2] = self.jt;
        b[3] = self.jf;
        b[4..8].copy_from_slice(&self.k.to_ne_bytes());
        b
    }
}

fn ld(off: u32) -> Insn {
    Insn {
        code: BPF_LD_W_ABS,
        jt: 0,
        jf: 0,
        k: off,
    }
}
fn and(k: u32) -> Insn {
    Insn {
        code: BPF_AND_K,
        jt: 0,
        jf: 0,
        k,
    }
}
fn ret(k: u32) -> Insn {
    Insn {
        code: BPF_RET_K,
        jt: 0,
        jf: 0,
        k,
    }
}
/// A conditional jump at index `at` to absolute indices `t` (true) and `f` (false).
fn jump(code: u16, k: u32, at: usize, t: usize, f: usize) -> Insn {
    // Forward jumps only, within this short program (checked by the unit test below);
    // a bad target becomes an offset past the end, which the kernel refuses to load.
    let off = |to: usize| {
        to.checked_sub(at + 1)
            .and_then(|o| u8::try_from(o).ok())
            .unwrap_or(u8::MAX)
    };
    Insn {
        code,
        jt: off(t),
        jf: off(f),
        k,
    }
}

/// The filter program, as the `struct sock_filter` array bwrap expects.
pub(crate) fn program() -> Vec<u8> {
    const SOCKET: usize = 11;
    const SOCKETPAIR: usize = 15;
    const IOCTL: usize = 20;
    const ALLOW: usize = 23;
    const DENY: usize = 24;
    const NOSYS: usize = 25;
    let nr = |n: libc::c_long| n as u32;
    let eq = |k: u32, at: usize, t: usize, f: usize| jump(BPF_JEQ_K, k, at, t, f);
    let prog = [
        /* 0 */ ld(OFF_ARCH),
        /* 1 */ eq(AUDIT_ARCH, 1, 3, 2),
        /* 2 */ ret(SECCOMP_RET_KILL_PROCESS),
        /* 3 */ ld(OFF_NR),
        /* 4 */ jump(BPF_JGE_K, X32_SYSCALL_BIT, 4, NOSYS, 5),
        /* 5 */ eq(nr(libc::SYS_socket), 5, SOCKET, 6),
        /* 6 */ eq(nr(libc::SYS_socketpair), 6, SOCKETPAIR, 7),
        /* 7 */ eq(nr(libc::SYS_ioctl), 7, IOCTL, 8),
        /* 8 */ eq(nr(libc::SYS_io_uring_setup), 8, DENY, 9),
        /* 9 */ eq(nr(libc::SYS_io_uring_enter), 9, DENY, 10),
        /* 10 */ eq(nr(libc::SYS_io_uring_register), 10, DENY, ALLOW),
        // SOCKET: socket(domain, …): three families, nothing else
        /* 11 */
        ld(OFF_ARG0_LO),
        /* 12 */ eq(libc::AF_INET as u32, 12, ALLOW, 13),
        /* 13 */ eq(libc::AF_INET6 as u32, 13, ALLOW, 14),
        /* 14 */ eq(libc::AF_NETLINK as u32, 14, ALLOW, DENY),
        // SOCKETPAIR: socketpair(domain, type, …)
        /* 15 */ ld(OFF_ARG0_LO),
        /* 16 */ eq(libc::AF_UNIX as u32, 16, 17, ALLOW),
        /* 17 */ ld(OFF_ARG1_LO),
        /* 18 */ and(SOCK_TYPE_MASK),
        /* 19 */ eq(libc::SOCK_DGRAM as u32, 19, DENY, ALLOW),
        // IOCTL: ioctl(fd, request, …)
        /* 20 */ ld(OFF_ARG1_LO),
        /* 21 */ eq(libc::TIOCSTI as u32, 21, DENY, 22),
        /* 22 */ eq(libc::TIOCLINUX as u32, 22, DENY, ALLOW),
        /* 23 ALLOW */ ret(SECCOMP_RET_ALLOW),
        /* 24 DENY */ ret(SECCOMP_RET_ERRNO | libc::EPERM as u32),
        /* 25 NOSYS */ ret(SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
    ];
    prog.iter().flat_map(|i| i.to_bytes()).collect()
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
    file.write_all(&program())?;
    file.seek(SeekFrom::Start(0))?;
    Ok(OwnedFd::from(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny classic-BPF interpreter for the few opcodes the filter uses.
    fn run(nr: i64, arch: u32, args: [u64; 6]) -> u32 {
        let prog = program();
        let insns: Vec<Insn> = prog
            .chunks(8)
            .map(|c| Insn {
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
            let i = insns[pc];
            pc += 1;
            match i.code {
                BPF_LD_W_ABS => {
                    let k = i.k as usize;
                    acc = u32::from_ne_bytes([data[k], data[k + 1], data[k + 2], data[k + 3]]);
                }
                BPF_AND_K => acc &= i.k,
                BPF_RET_K => return i.k,
                BPF_JEQ_K | BPF_JGE_K => {
                    let hit = if i.code == BPF_JEQ_K {
                        acc == i.k
                    } else {
                        acc >= i.k
                    };
                    pc += usize::from(if hit { i.jt } else { i.jf });
                    assert!(pc < insns.len(), "jump past the end");
                }
                other => panic!("unexpected opcode {other:#x}"),
            }
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
}
