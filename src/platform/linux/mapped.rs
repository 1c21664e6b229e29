//! Linux: a read-only private mapping of a whole file, whose pages can be made executable
//! in place. The WASM compile cache maps a cache file once, checks its artifact's
//! checksum over the mapping and hands wasmtime that same mapping to run, so the bytes
//! checked are the bytes run (docs/threats.md#f19) and nothing is copied: a cache hit
//! costs page-table work, not a copy of the artifact (38 MB for a Python component).
//!
//! A mapping of the file follows the file: a write to it after the check, a truncation
//! (`SIGBUS` on the next touch of a page past the end), or a page dropped under memory
//! pressure and read again from disk. Why that is sound for the cache, whose writers only
//! ever rename whole new files in, is docs/threats.md#f19.
//!
//! Only on x86-64: there the CPU keeps its instruction cache coherent by itself, so
//! making a page executable is one `mprotect`. Elsewhere (aarch64: an instruction-cache
//! flush, and the branch-target protection wasmtime's own publishing sets)
//! [`CAN_RUN_CODE`] is `false` and the cache reads its files whole, as other OSes do.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;

/// Whether code may run from a [`Mapping`] ([`make_executable`]): on x86-64.
pub(crate) const CAN_RUN_CODE: bool = cfg!(target_arch = "x86_64");

/// A read-only private mapping of a whole file, unmapped when this value drops.
pub(crate) struct Mapping {
    map: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is only read through `bytes` (wasmtime may make parts of it
// executable, never writable while in use); it is unmapped once, in `drop`.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// The mapped bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `map` is a live mapping of `len` readable bytes (see `map`), unmapped
        // only in `drop`.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr(), self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped only here.
        unsafe { libc::munmap(self.map.as_ptr().cast(), self.len) };
    }
}

/// A read-only private mapping of all of `file`, its pages read in at once (the caller
/// reads every byte to check it); `None` for an empty file, which has nothing to map.
pub(crate) fn map(file: &File) -> io::Result<Option<Mapping>> {
    let len = usize::try_from(file.metadata()?.len()).map_err(io::Error::other)?;
    if len == 0 {
        return Ok(None);
    }
    // SAFETY: a fresh mapping of an open file; nothing else refers to its range.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE | libc::MAP_POPULATE,
            file.as_raw_fd(),
            0,
        )
    };
    if map == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let map = NonNull::new(map.cast::<u8>()).ok_or_else(|| io::Error::other("mmap gave null"))?;
    Ok(Some(Mapping { map, len }))
}

/// The size of a page, the unit [`make_executable`] works in.
pub(crate) fn page_size() -> usize {
    // SAFETY: a plain query.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

/// Makes `len` bytes at `ptr` readable and executable, not writable.
///
/// # Safety
/// `ptr..ptr + len` must be page-aligned memory of this process that nothing writes or
/// frees while it is executable.
pub(crate) unsafe fn make_executable(ptr: *const u8, len: usize) -> io::Result<()> {
    protect(ptr, len, libc::PROT_READ | libc::PROT_EXEC)
}

/// Makes `len` bytes at `ptr` readable and writable again, not executable.
///
/// # Safety
/// As [`make_executable`]; no code may be running from that memory.
pub(crate) unsafe fn make_writable(ptr: *const u8, len: usize) -> io::Result<()> {
    protect(ptr, len, libc::PROT_READ | libc::PROT_WRITE)
}

fn protect(ptr: *const u8, len: usize, prot: libc::c_int) -> io::Result<()> {
    // SAFETY: the callers' contract: page-aligned memory of this process.
    match unsafe { libc::mprotect(ptr.cast_mut().cast(), len, prot) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    #[test]
    fn a_mapping_holds_the_files_bytes() {
        let mut file = tempfile::tempfile().unwrap();
        assert!(super::map(&file).unwrap().is_none(), "an empty file");
        file.write_all(b"headerARTIFACT").unwrap();
        let mapped = super::map(&file).unwrap().expect("a mapping");
        assert_eq!(mapped.bytes(), b"headerARTIFACT");
        assert!(super::page_size().is_power_of_two());
    }
}
