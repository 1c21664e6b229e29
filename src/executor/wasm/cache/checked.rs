//! Cache files whose checksum was checked earlier in this boot.
//!
//! A cache file's artifact is checked against its trailer's checksum before wasmtime
//! reads it (docs/threats.md#f19). That check reads every byte: 38 MB for a Python
//! component, ~6 ms at this machine's memory bandwidth, and ~2 ms more to map the file
//! for it, on every start of a fresh bridge (BENCHMARKS.md, fourteenth sitting). The
//! warm server checks each file once in its whole life; a fresh process can only learn
//! the same from the disk. So after a check passes, or after hookhost wrote the file, a
//! memo beside it (`NAME.checked`) records the boot, the file's stamp (inode, change
//! time, size) and its checksum. A later start in the same boot, whose file still has
//! that stamp and that checksum in its trailer, has wasmtime map it without the check.
//!
//! What that trusts, and why it is sound:
//! - *A write through the file system* moves the stamp: a change time cannot be set
//!   back by the file's owner, and hookhost only ever renames whole new files in (a new
//!   inode). The file is checked again.
//! - *A crash* can leave a renamed file torn. A new boot has a new boot id, so every file
//!   is checked again after one.
//! - *Damage below the file system* (a disk that returns other bytes when a page is
//!   read again) is what a check at every start could see and this does not, for the
//!   rest of the boot. A mapping already trusted the page cache for a process's life;
//!   the memo extends that to the boot, as the warm server does for its own.
//! - *Whoever can write a memo* can write the artifact itself, and reseal it: the folder
//!   is the user's, refused by the guard if the agent or a hook could write it
//!   (docs/threats.md#i1).
//!
//! A read-only (system) cache keeps no memos: its files are checked at every start.

use std::fs::{File, Metadata};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::{CacheAccess, TRAILER, store, trailer_digest};
use crate::platform::sys;

/// The first line of every memo, naming its format.
const MAGIC: &str = "hookhost: cache file checked, v1";

/// The memo of the cache file at `cache_file`.
fn memo_path(cache_file: &Path) -> PathBuf {
    let mut name = cache_file.as_os_str().to_owned();
    name.push(".checked");
    PathBuf::from(name)
}

/// A memo's text: the boot, the stamp and the checksum it holds for.
fn memo_text(boot: &str, meta: &Metadata, digest: &[u8]) -> String {
    let [inode, changed_s, changed_ns, size] = sys::files::change_stamp(meta);
    format!(
        "{MAGIC}\nboot {boot}\nstamp {inode} {changed_s} {changed_ns} {size}\nchecksum {}\n",
        hex::encode(digest)
    )
}

/// Whether `file` (open, named `cache_file`) was checked earlier in this boot: its memo
/// names this boot, the stamp the file has now, and the checksum its trailer holds now.
pub(super) fn checked_before(cache_file: &Path, file: &mut File) -> bool {
    let Some(boot) = sys::mapped::boot_id() else {
        return false;
    };
    let Ok(memo) = std::fs::read_to_string(memo_path(cache_file)) else {
        return false;
    };
    let (Ok(meta), Ok(trailer)) = (file.metadata(), read_trailer(file)) else {
        return false;
    };
    trailer_digest(&trailer).is_some_and(|digest| memo == memo_text(boot, &meta, digest))
}

/// Records that the cache file at `cache_file`, with metadata `meta`, holds an artifact
/// whose checksum `digest` matches its trailer. Best effort: without a memo, the next
/// start checks the file again. Nothing is recorded in a read-only cache.
pub(super) fn remember(cache_file: &Path, meta: &Metadata, digest: &[u8], access: CacheAccess) {
    let Some(boot) = sys::mapped::boot_id() else {
        return;
    };
    if access == CacheAccess::ReadOnly {
        return;
    }
    let memo = memo_path(cache_file);
    let dir = cache_file.parent().unwrap_or(Path::new("."));
    let _ = store(dir, &memo, memo_text(boot, meta, digest).as_bytes(), access);
}

/// The last [`TRAILER`] bytes of `file` (its offset moves; wasmtime opens it anew).
fn read_trailer(file: &mut File) -> std::io::Result<[u8; TRAILER]> {
    let mut trailer = [0u8; TRAILER];
    file.seek(SeekFrom::End(-(TRAILER as i64)))?;
    file.read_exact(&mut trailer)?;
    Ok(trailer)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memo holds while the boot, the stamp and the trailer's checksum do; a rewrite
    /// in place, a rename over the file and a read-only cache each leave it unused.
    #[test]
    fn a_memo_holds_for_the_file_it_was_made_for() {
        if sys::mapped::boot_id().is_none() {
            eprintln!("SKIPPED: no boot id on this platform (no memos are kept)");
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.cwasm");
        let bytes = super::super::with_trailer(b"\x7fELF an artifact".to_vec());
        let digest = trailer_digest(&bytes[bytes.len() - TRAILER..]).expect("a trailer");
        std::fs::write(&path, &bytes).expect("write");
        let open = || File::open(&path).expect("open");
        let meta = || std::fs::metadata(&path).expect("stat");
        assert!(!checked_before(&path, &mut open()), "no memo yet");

        remember(&path, &meta(), digest, CacheAccess::ReadOnly);
        assert!(!memo_path(&path).exists(), "a read-only cache keeps none");
        remember(&path, &meta(), digest, CacheAccess::Private);
        assert!(checked_before(&path, &mut open()));

        // Another checksum than the trailer's.
        remember(&path, &meta(), &[0u8; 16], CacheAccess::Private);
        assert!(!checked_before(&path, &mut open()));

        // A rename over the file: another inode.
        remember(&path, &meta(), digest, CacheAccess::Private);
        let other = dir.path().join("b");
        std::fs::write(&other, &bytes).expect("write");
        std::fs::rename(&other, &path).expect("rename");
        assert!(!checked_before(&path, &mut open()), "renamed over");

        // A write in place moves the change time (a later tick than the memo's).
        remember(&path, &meta(), digest, CacheAccess::Private);
        let before = meta();
        while sys::files::change_stamp(&meta()) == sys::files::change_stamp(&before) {
            std::thread::sleep(std::time::Duration::from_millis(2));
            std::fs::write(&path, &bytes).expect("write");
        }
        assert!(!checked_before(&path, &mut open()), "written in place");

        // Another boot's memo.
        let text = memo_text("another-boot", &meta(), digest);
        std::fs::write(memo_path(&path), text).expect("write");
        assert!(!checked_before(&path, &mut open()), "another boot");
    }

    /// A file written by the cache, or checked by it, gets a memo; with a memo that
    /// holds, a file is loaded without its check: shown with a file whose trailer's
    /// checksum is wrong, refused without the memo, loaded with one, and refused again
    /// by a read-only cache, which keeps no memos.
    #[test]
    fn a_file_with_a_memo_is_loaded_without_its_check() {
        use super::super::{Lookup, compile_and_store, load_file, lookup, program_digest};
        use wasmtime::{Engine, Module};
        if !sys::mapped::MAPS_FILES || sys::mapped::boot_id().is_none() {
            eprintln!("SKIPPED: no memos are kept on this platform");
            return;
        }
        let engine = Engine::default();
        let dir = tempfile::tempdir().expect("tempdir");
        let wasm = b"\0asm\x01\0\0\0";
        let digest = program_digest(wasm);
        let look = || lookup::<Module>(&engine, Some(dir.path()), CacheAccess::Private, &digest);
        let Ok(Lookup::Miss {
            cache_file,
            warnings,
        }) = look()
        else {
            panic!("an empty cache has the program");
        };
        let written =
            compile_and_store::<Module>(&engine, CacheAccess::Private, wasm, cache_file, warnings)
                .expect("compiled");
        let path = written.cache_file.expect("a cache file");
        assert!(checked_before(&path, &mut File::open(&path).expect("open")));

        // The trailer's checksum made wrong, in a new file renamed over it.
        let mut bytes = std::fs::read(&path).expect("read");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        let other = dir.path().join("other");
        std::fs::write(&other, &bytes).expect("write");
        std::fs::rename(&other, &path).expect("rename");
        match look() {
            Ok(Lookup::Miss { warnings, .. }) => assert!(
                warnings.len() == 1 && warnings[0].contains("does not match its checksum"),
                "{warnings:?}"
            ),
            _ => panic!("a file that fails its check is a miss"),
        }
        assert!(!checked_before(
            &path,
            &mut File::open(&path).expect("open")
        ));

        // A memo for it, as if it had been checked: loaded without the check.
        let meta = std::fs::metadata(&path).expect("stat");
        remember(
            &path,
            &meta,
            &bytes[bytes.len() - 16..],
            CacheAccess::Private,
        );
        assert!(
            matches!(look(), Ok(Lookup::Hit(_))),
            "not loaded on its memo"
        );
        assert!(
            load_file::<Module>(&engine, &path, CacheAccess::ReadOnly).is_err(),
            "a read-only cache checks every file"
        );
    }
}
