//! Programs whose digest an earlier check of this process vouched for.
//!
//! Preparing a hook's program reads its `.wasm` whole and hashes it with SHA-256, which
//! names the compiled artifact in the cache. A bridged call has already checked the same
//! file against its pin (docs/threats.md#r5): its stamp (inode, change time, size) as
//! pinned, or its bytes hashed to the pinned digest. That check vouches for the digest
//! here ([`vouch_for_program`]), and preparing the program then finds its artifact by
//! that digest without reading the file: ~3.5 % of a bridged call with a Rust module,
//! ~45 % with an 18 MB Python component (BENCHMARKS.md, thirteenth sitting).
//!
//! The file's stamp is taken again when the program is prepared and must be the one
//! vouched for: trusted as the pin's own stamp is (a change time cannot be set back by
//! the file's owner), so an edit, a rename over the file or a `chmod` since the check
//! makes the engine read and hash the file as before. What runs is the artifact compiled
//! from the vouched bytes, never bytes read after the check.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::cache::ProgramDigest;

/// A file's digest, as vouched for, under the stamp it had then.
struct Vouched {
    file: PathBuf,
    stamp: [i64; 4],
    digest: ProgramDigest,
}

/// The vouched files, the latest last.
static VOUCHED: Mutex<Vec<Vouched>> = Mutex::new(Vec::new());

/// How many files are kept (the oldest goes first): a config's hooks name a handful.
const KEPT: usize = 64;

/// Vouches that the file at `file`, while its stamp is `stamp`
/// (`platform::sys::files::change_stamp`), holds bytes whose SHA-256 is `sha256`
/// (`sha256:` and 64 hex digits, as pins write it; anything else is ignored).
pub fn vouch_for_program(file: &Path, stamp: [i64; 4], sha256: &str) {
    let Some(digest) = parse_digest(sha256) else {
        return;
    };
    let mut vouched = VOUCHED.lock().unwrap_or_else(|p| p.into_inner());
    vouched.retain(|v| v.file != file);
    if vouched.len() >= KEPT {
        vouched.remove(0);
    }
    vouched.push(Vouched {
        file: file.to_path_buf(),
        stamp,
        digest,
    });
}

/// The digest vouched for the file at `file`, if its stamp is still the one vouched
/// under.
pub(super) fn vouched_digest(file: &Path) -> Option<ProgramDigest> {
    let (stamp, digest) = {
        let vouched = VOUCHED.lock().unwrap_or_else(|p| p.into_inner());
        let found = vouched.iter().find(|v| v.file == file)?;
        (found.stamp, found.digest)
    };
    let meta = std::fs::metadata(file).ok().filter(|m| m.is_file())?;
    (crate::platform::sys::files::change_stamp(&meta) == stamp).then_some(digest)
}

/// `sha256:HEX` as its 32 bytes.
fn parse_digest(text: &str) -> Option<ProgramDigest> {
    let hex = text.strip_prefix("sha256:")?;
    let mut digest = [0u8; 32];
    hex::decode_to_slice(hex, &mut digest).ok()?;
    Some(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_holds_while_the_stamp_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.wasm");
        std::fs::write(&file, b"a").expect("write");
        let stamp = |f: &Path| {
            crate::platform::sys::files::change_stamp(&std::fs::metadata(f).expect("stat"))
        };
        let hex = "ab".repeat(32);
        vouch_for_program(&file, stamp(&file), &format!("sha256:{hex}"));
        assert_eq!(vouched_digest(&file), Some([0xab; 32]));
        // A rename over it moves the stamp (another inode).
        let other = dir.path().join("b.wasm");
        std::fs::write(&other, b"b").expect("write");
        std::fs::rename(&other, &file).expect("rename");
        assert_eq!(vouched_digest(&file), None);
        // Not a digest as pins write it: nothing is vouched.
        vouch_for_program(&file, stamp(&file), &hex);
        vouch_for_program(&file, stamp(&file), "sha256:zz");
        assert_eq!(vouched_digest(&file), None);
        vouch_for_program(&file, stamp(&file), &format!("sha256:{}", "cd".repeat(32)));
        assert_eq!(vouched_digest(&file), Some([0xcd; 32]));
    }
}
