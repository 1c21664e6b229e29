//! Linux: a read-only private mapping of a whole file, and a name for an open file that
//! opens that same file. The WASM compile cache maps a cache file to check its
//! artifact's checksum without reading it into a buffer (38 MB for a Python component),
//! then has wasmtime map that same open file ([`same_file`]): wasmtime runs the code
//! from its mapping and initialises each run's memory from it copy-on-write, so nothing
//! is copied, and the bytes checked are the bytes run (docs/threats.md#f19).
//!
//! Such a check holds for one boot when recorded ([`boot_id`]).
//!
//! A mapping of the file follows the file: a write to it after the check, a truncation
//! (`SIGBUS` on the next touch of a page past the end), or a page dropped under memory
//! pressure and read again from disk. Why that is sound for the cache, whose writers only
//! ever rename whole new files in, is docs/threats.md#f19.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::ptr::NonNull;
use std::sync::OnceLock;

/// Whether files are mapped here ([`map`], [`same_file`]).
pub(crate) const MAPS_FILES: bool = true;

/// A read-only private mapping of a whole file, unmapped when this value drops.
pub(crate) struct Mapping {
    map: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is only read, through `bytes`; it is unmapped once, in `drop`.
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

/// A path that opens `file` itself, whatever its name now names (its entry in
/// `/proc/self/fd`); `None` where `/proc` is not mounted. It is valid while `file` is
/// open.
pub(crate) fn same_file(file: &File) -> Option<PathBuf> {
    let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    path.exists().then_some(path)
}

/// This boot's id (`/proc/sys/kernel/random/boot_id`, read once): a memo of a cache
/// file's check holds for one boot only (`executor::wasm::cache::checked`). `None`
/// where it cannot be read.
pub(crate) fn boot_id() -> Option<&'static str> {
    static BOOT: OnceLock<Option<String>> = OnceLock::new();
    BOOT.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let id = text.trim();
        let well_formed = id.len() == 36 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
        well_formed.then(|| id.to_owned())
    })
    .as_deref()
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
        let same = super::same_file(&file).expect("/proc is mounted");
        assert_eq!(std::fs::read(same).unwrap(), b"headerARTIFACT");
        assert_eq!(super::boot_id().map(str::len), Some(36));
    }
}
