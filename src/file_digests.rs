//! The SHA-256 of files this process has learned, each under the stamp the file had
//! then.
//!
//! Two parts of hookhost want the digest of the same files, and hashing is what it costs
//! (an interpreter is megabytes, node ~100 MB; a Python component 18 MB):
//! - the pins: is a hook's file as pinned (docs/threats.md#r5)? Its stamp as pinned, or
//!   its bytes hashed to the pinned digest;
//! - the WASM engine: a program's digest names its compiled artifact in the cache and
//!   the programs the engine has prepared.
//!
//! So each learns from the other here. A digest learned under a file's stamp (inode,
//! change time, size: `platform::sys::files::change_stamp`) holds while the file still
//! has that stamp, trusted as the pin's own stamp is: a change time cannot be set back by
//! the file's owner, so an edit, a rename over the file or a `chmod` makes the file read
//! and hashed again. A digest is learned only from bytes hashed after the stamp was
//! taken (a write during the read moves the stamp), or from a pin check that found the
//! file's stamp as pinned. What runs from a learned digest is the program of those bytes,
//! never bytes read after the check.
//!
//! Process-wide and bounded ([`KEPT`]): a bridged call learns its hooks' files once
//! (the pin check, then the engine finds its artifact by the digest without reading the
//! file); the warm server and `serve` see the same files call after call.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::platform::sys;

/// A SHA-256 digest.
pub(crate) type Sha256Digest = [u8; 32];

/// A file's stamp ([`sys::files::change_stamp`]).
pub(crate) type Stamp = [i64; 4];

/// A file's digest, learned under the stamp it had then.
struct Learned {
    file: PathBuf,
    stamp: Stamp,
    digest: Sha256Digest,
}

/// The files learned, the latest last.
static LEARNED: Mutex<Vec<Learned>> = Mutex::new(Vec::new());

/// How many files are kept (the oldest goes first): a config's hooks name a handful.
const KEPT: usize = 64;

/// The stamp of the regular file at `file`, if it is one.
pub(crate) fn stamp(file: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(file).ok().filter(|m| m.is_file())?;
    Some(sys::files::change_stamp(&meta))
}

/// The digest learned for `file` under `stamp`.
pub(crate) fn learned(file: &Path, stamp: Stamp) -> Option<Sha256Digest> {
    let learned = LEARNED.lock().unwrap_or_else(|p| p.into_inner());
    learned
        .iter()
        .find(|l| l.file == file && l.stamp == stamp)
        .map(|l| l.digest)
}

/// The digest learned for `file`, if the stamp it has now is the one it was learned
/// under.
pub(crate) fn current(file: &Path) -> Option<Sha256Digest> {
    learned(file, stamp(file)?)
}

/// Learns that the file at `file`, while its stamp is `stamp`, holds bytes whose SHA-256
/// is `digest` (see the module's doc for where that may come from).
pub(crate) fn learn(file: &Path, stamp: Stamp, digest: Sha256Digest) {
    let mut learned = LEARNED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(known) = learned.iter_mut().find(|l| l.file == file) {
        known.stamp = stamp;
        known.digest = digest;
        return;
    }
    if learned.len() >= KEPT {
        learned.remove(0);
    }
    learned.push(Learned {
        file: file.to_path_buf(),
        stamp,
        digest,
    });
}

/// `sha256:HEX` (as pins write a digest) as its 32 bytes; `None` for anything else.
pub(crate) fn parse(text: &str) -> Option<Sha256Digest> {
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
        assert_eq!(current(&file), None, "nothing learned yet");
        learn(&file, stamp(&file).expect("a file"), [0xab; 32]);
        assert_eq!(current(&file), Some([0xab; 32]));
        // A rename over it moves the stamp (another inode).
        let other = dir.path().join("b.wasm");
        std::fs::write(&other, b"b").expect("write");
        std::fs::rename(&other, &file).expect("rename");
        assert_eq!(current(&file), None);
        // Learned again, under the new stamp.
        learn(&file, stamp(&file).expect("a file"), [0xcd; 32]);
        assert_eq!(current(&file), Some([0xcd; 32]));
        // A folder has no stamp.
        assert_eq!(stamp(dir.path()), None);
    }

    #[test]
    fn only_pins_digests_parse() {
        let hex = "ab".repeat(32);
        assert_eq!(parse(&format!("sha256:{hex}")), Some([0xab; 32]));
        assert_eq!(parse(&hex), None, "no prefix");
        assert_eq!(parse("sha256:zz"), None);
        assert_eq!(parse(&format!("sha256:{hex}00")), None, "too long");
    }
}
