//! Linux: a snapshot of a file's bytes that no process can change, not even this one: a
//! memfd filled from the file inside the kernel (`sendfile`, no copy through user
//! memory), then sealed against every write, shrink and grow. The WASM compile cache
//! checks an artifact's digest over the snapshot and hands wasmtime the same snapshot to
//! map, so the bytes checked are the bytes run (docs/threats.md#f19), with one copy
//! instead of a read and wasmtime's copy of it. A mapping of the cache file itself would
//! not do: its pages follow later writes to the file (a private mapping too, for every
//! page not yet written), a page dropped under memory pressure is read again from disk,
//! and a file truncated under the mapping kills the process with `SIGBUS`.

use std::ffi::CStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::PathBuf;
use std::ptr::NonNull;

/// A sealed copy of part of a file, mapped read-only while this value lives.
pub(crate) struct Snapshot {
    file: File,
    map: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and sealed: no one writes it, so it may be read from
// any thread; it is unmapped once, in `drop`.
unsafe impl Send for Snapshot {}
// SAFETY: as above.
unsafe impl Sync for Snapshot {}

impl Snapshot {
    /// The snapshot's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `map` is a live read-only mapping of `len` bytes (see `take`), and the
        // seals keep every process from changing or shrinking what it maps.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr(), self.len) }
    }

    /// The sealed file itself, for wasmtime to map.
    pub(crate) fn file(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    /// A path that opens the sealed file (wasmtime's component loader takes a path).
    pub(crate) fn path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()))
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: the mapping made in `take`, unmapped only here.
            unsafe { libc::munmap(self.map.as_ptr().cast(), self.len) };
        }
    }
}

/// A sealed snapshot of `file` from `offset` to its end; `None` where the kernel will not
/// make one (no memfd, no sealing, executable memfds refused by `vm.memfd_noexec`): the
/// caller then reads the file as before.
pub(crate) fn take(file: &File, offset: u64) -> io::Result<Option<Snapshot>> {
    let Some(memfd) = executable_memfd()? else {
        return Ok(None);
    };
    let mut from = libc::off_t::try_from(offset).map_err(io::Error::other)?;
    let mut len: usize = 0;
    loop {
        // SAFETY: two open descriptors and an offset this function owns.
        let n = unsafe { libc::sendfile(memfd.as_raw_fd(), file.as_raw_fd(), &mut from, 1 << 30) };
        match n {
            0 => break,
            n if n > 0 => len += n as usize,
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
        }
    }
    let seals = libc::F_SEAL_WRITE | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;
    // SAFETY: an open memfd made with MFD_ALLOW_SEALING.
    if unsafe { libc::fcntl(memfd.as_raw_fd(), libc::F_ADD_SEALS, seals) } != 0 {
        return Ok(None);
    }
    if len == 0 {
        return Ok(Some(Snapshot {
            file: memfd,
            map: NonNull::dangling(),
            len: 0,
        }));
    }
    // SAFETY: a fresh read-only shared mapping of a sealed file of `len` bytes.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED | libc::MAP_POPULATE,
            memfd.as_raw_fd(),
            0,
        )
    };
    if map == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let map = NonNull::new(map.cast::<u8>()).ok_or_else(|| io::Error::other("mmap gave null"))?;
    Ok(Some(Snapshot {
        file: memfd,
        map,
        len,
    }))
}

/// A memfd that can be sealed and mapped executable; `None` where the kernel refuses one.
fn executable_memfd() -> io::Result<Option<File>> {
    const NAME: &CStr = c"hookhost-artifact";
    let base = libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING;
    // MFD_EXEC (Linux 6.3+) says so explicitly: without it a kernel whose
    // `vm.memfd_noexec` is 1 seals the memfd against exec; older kernels reject the flag.
    for flags in [base | libc::MFD_EXEC, base] {
        // SAFETY: a NUL-terminated name and flags.
        let fd = unsafe { libc::memfd_create(NAME.as_ptr(), flags) };
        if fd >= 0 {
            // SAFETY: a descriptor just made and owned by nothing else.
            return Ok(Some(unsafe { File::from_raw_fd(fd) }));
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINVAL) => continue,
            Some(libc::ENOSYS | libc::EACCES | libc::EPERM) => return Ok(None),
            _ => return Err(e),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    #[test]
    fn a_snapshot_holds_the_bytes_and_cannot_be_changed() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"headerARTIFACT").unwrap();
        let Some(snap) = super::take(&file, 6).unwrap() else {
            eprintln!("SKIPPED: this kernel makes no sealed memfd");
            return;
        };
        assert_eq!(snap.bytes(), b"ARTIFACT");
        // Written after the snapshot: the snapshot keeps what it had.
        file.write_all(b"MORE").unwrap();
        assert_eq!(snap.bytes(), b"ARTIFACT");
        // The sealed file refuses writes, from this process too, and through its path.
        let mut sealed = snap.file().unwrap();
        assert!(sealed.write_all(b"x").is_err());
        let reopened = std::fs::OpenOptions::new().write(true).open(snap.path());
        assert!(reopened.and_then(|mut f| f.write_all(b"x")).is_err());
        assert_eq!(std::fs::read(snap.path()).unwrap(), b"ARTIFACT");
    }
}
