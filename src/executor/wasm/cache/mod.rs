//! The on-disk cache of compiled WASM artifacts.
//!
//! Compiling a hook with Cranelift costs a few hundred milliseconds; loading the compiled
//! artifact costs well under a millisecond. Artifacts live in one flat folder, one file
//! per program, named by a SHA-256 over the program's digest (the SHA-256 of its bytes,
//! which the engine also knows it by), the engine's
//! [`precompile_compatibility_hash`](wasmtime::Engine::precompile_compatibility_hash)
//! (which covers every setting that changes generated code, fuel and epochs included)
//! and the wasmtime version. A changed program, engine setting or wasmtime release thus
//! names a different file, and a stale file is never even looked at.
//!
//! Files are written atomically (a private temporary file in the same folder, then a
//! rename), with mode 0600 in a folder created with mode 0700. Loading an artifact is
//! `unsafe` in wasmtime (the bytes are native code, trusted as such): it is sound here
//! only because the caller's path guard has checked that the cache folder is private to
//! the user and not writable by the agent or by hooks (WASM hooks cannot write anything:
//! their only preopen is the read-only project).
//!
//! A file is the artifact followed by [`TRAILER`] bytes (a magic line, then the XXH3-128
//! checksum of the artifact): the artifact starts the file, so that a mapping of the file
//! has its code and data at page-aligned offsets. Its checksum is checked before
//! wasmtime sees a byte, and exactly the bytes checked are deserialized: a bit flipped on
//! disk would otherwise be run as native code (a crash, or a hook that quietly answers
//! otherwise; docs/threats.md#f19). On Linux ([`sys::mapped`]) the file is mapped, the
//! checksum checked over that mapping, and wasmtime then maps the same open file itself:
//! it runs the code from its mapping and initialises each run's linear memory from the
//! file copy-on-write. Nothing is copied: loading the artifact into wasmtime's own memory
//! cost ~34 ms of a Python component's start (until the seventh benchmark sitting), and
//! copying its memory image into a memfd at every start ~16 ms more (until the
//! fourteenth). That wasmtime's mapping follows the file is sound because nothing writes
//! a cache file in place (docs/threats.md#f19). Elsewhere, or where wasmtime cannot map
//! it (a `noexec` mount), the checked bytes are copied by wasmtime.
//!
//! Why a checksum and not a cryptographic digest: the check is integrity, not
//! authentication (docs/threats.md#i1). Whoever can write the folder can reseal a file
//! whatever the hash, which is why the guard refuses a cache folder the agent could
//! write, and a key would have to live where the same user reads it. Against damage
//! (a flipped bit, a torn or truncated write), a 128-bit non-cryptographic checksum
//! misses with odds of 2^-128, as SHA-256 would, at a small fraction of its cost: it is
//! one pass over the artifact, 38 MB for a Python component, made once a boot for each
//! file where a memo of it can be kept ([`checked`]; at every start elsewhere). A file
//! that fails the check (damaged, truncated, or without a trailer) is compiled again and
//! replaced, with a warning that names it. Files of the earlier formats (a header before
//! the artifact) are not even looked at: the format is part of every file's name. Warnings
//! (also for a cache that cannot be written) go back to the caller ([`Loaded::warnings`]),
//! which shows them as start-up warnings.

use std::fs::{DirBuilder, File, OpenOptions};
use std::hash::Hasher;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use wasmtime::Module;

use super::engine::CacheAccess;
use crate::platform::sys;

mod checked;

/// The wasmtime release the artifacts are compiled by (part of every key).
const WASMTIME_VERSION: &str = "48.0.8";

/// Something wasmtime compiles that can be cached: a core module or a component.
pub(crate) trait Artifact: Sized {
    /// The file extension of its cache files.
    const EXT: &'static str;
    /// Compiles it from WASM bytes.
    fn compile(engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Self>;
    /// Loads it from the bytes of a cache file's artifact.
    ///
    /// # Safety
    /// The bytes must have been made by [`Artifact::serialize`] of this wasmtime.
    unsafe fn load(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Self>;
    /// Loads it from its cache file, which wasmtime maps itself: its code runs from that
    /// mapping, and a run's linear memory is initialised from it copy-on-write (rather
    /// than from a memfd that wasmtime fills with the memory's image at every start).
    ///
    /// # Safety
    /// As [`Artifact::load`]: `file` names a file whose first bytes are such an artifact
    /// (what follows, the trailer, wasmtime does not read).
    unsafe fn load_file(engine: &Engine, file: &Path) -> wasmtime::Result<Self>;
    /// Serializes it for the cache.
    fn serialize(&self) -> wasmtime::Result<Vec<u8>>;
}

impl Artifact for Module {
    const EXT: &'static str = "cwasm";
    fn compile(engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Self> {
        Module::from_binary(engine, wasm)
    }
    unsafe fn load(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Self> {
        // SAFETY: forwarded to the caller (see the trait method).
        unsafe { Module::deserialize(engine, bytes) }
    }
    unsafe fn load_file(engine: &Engine, file: &Path) -> wasmtime::Result<Self> {
        // SAFETY: forwarded to the caller (see the trait method).
        unsafe { Module::deserialize_file(engine, file) }
    }
    fn serialize(&self) -> wasmtime::Result<Vec<u8>> {
        Module::serialize(self)
    }
}

impl Artifact for Component {
    const EXT: &'static str = "ccwasm";
    fn compile(engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Self> {
        Component::from_binary(engine, wasm)
    }
    unsafe fn load(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Self> {
        // SAFETY: forwarded to the caller (see the trait method).
        unsafe { Component::deserialize(engine, bytes) }
    }
    unsafe fn load_file(engine: &Engine, file: &Path) -> wasmtime::Result<Self> {
        // SAFETY: forwarded to the caller (see the trait method).
        unsafe { Component::deserialize_file(engine, file) }
    }
    fn serialize(&self) -> wasmtime::Result<Vec<u8>> {
        Component::serialize(self)
    }
}

/// Feeds a `Hash` value (the engine's compatibility hash) into SHA-256.
struct ShaHasher<'a>(&'a mut Sha256);

impl Hasher for ShaHasher<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    fn finish(&self) -> u64 {
        0
    }
}

/// The SHA-256 of a program's bytes: the engine's name for it, and part of its cache
/// key.
pub(crate) type ProgramDigest = [u8; 32];

/// The digest of `wasm`.
pub(crate) fn program_digest(wasm: &[u8]) -> ProgramDigest {
    Sha256::digest(wasm).into()
}

/// The cache file for the program with digest `program` compiled by `engine`, in `dir`.
pub(crate) fn cache_path<A: Artifact>(
    dir: &Path,
    engine: &Engine,
    program: &ProgramDigest,
) -> PathBuf {
    use std::hash::Hash;
    let mut sha = Sha256::new();
    // v4: the XXH3-128 trailer (v3 files, with the checksum in a header, and v2 ones,
    // with a SHA-256 header, are simply not found).
    sha.update(b"hookhost-wasm-cache-v4\0");
    sha.update(WASMTIME_VERSION.as_bytes());
    sha.update(b"\0");
    sha.update(A::EXT.as_bytes());
    sha.update(b"\0");
    engine
        .precompile_compatibility_hash()
        .hash(&mut ShaHasher(&mut sha));
    sha.update(b"\0");
    sha.update(program);
    let digest = sha.finalize();
    let mut name = hex::encode(digest);
    name.push('.');
    name.push_str(A::EXT);
    dir.join(name)
}

/// How an artifact was obtained.
pub(crate) struct Loaded<A> {
    /// The artifact.
    pub artifact: A,
    /// Whether it came from the cache file rather than the compiler.
    pub from_cache: bool,
    /// The cache file (read or written), if there is a cache.
    pub cache_file: Option<PathBuf>,
    /// What went wrong with the cache (a file that failed its check, one that could not
    /// be written); each line names the file. The artifact is good either way.
    pub warnings: Vec<String>,
}

/// The end of every cache file: a magic line naming the format, then the XXH3-128
/// checksum of the artifact before it ([`DIGEST_LEN`] bytes, big-endian).
const MAGIC: &[u8] = b"hookhost wasm artifact, xxh3-128\n";
/// The length of the checksum after [`MAGIC`].
const DIGEST_LEN: usize = 16;
/// How many bytes come after the artifact.
pub(crate) const TRAILER: usize = MAGIC.len() + DIGEST_LEN;

/// Why a cache file's artifact cannot be trusted.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unverified {
    /// No trailer: written by an older hookhost, or damaged at the end.
    #[error("has no checksum (it was written by an older hookhost, or damaged)")]
    NoDigest,
    /// The artifact is not what was written.
    #[error("does not match its checksum (it is damaged)")]
    Mismatch,
}

/// The artifact of a cache file's bytes, once its checksum matches the trailer's.
pub(crate) fn verified_artifact(file: &[u8]) -> Result<&[u8], Unverified> {
    let split = file
        .len()
        .checked_sub(TRAILER)
        .ok_or(Unverified::NoDigest)?;
    let (artifact, trailer) = file.split_at(split);
    let digest = trailer_digest(trailer).ok_or(Unverified::NoDigest)?;
    if checksum(artifact).as_slice() != digest {
        return Err(Unverified::Mismatch);
    }
    Ok(artifact)
}

/// The checksum in a cache file's last [`TRAILER`] bytes, if they are a trailer.
fn trailer_digest(trailer: &[u8]) -> Option<&[u8]> {
    trailer.strip_prefix(MAGIC)
}

/// The XXH3-128 checksum of an artifact, as its cache file's trailer holds it.
fn checksum(artifact: &[u8]) -> [u8; DIGEST_LEN] {
    xxhash_rust::xxh3::xxh3_128(artifact).to_be_bytes()
}

/// The bytes of a cache file for `artifact`: the artifact, then the trailer.
pub(crate) fn with_trailer(mut artifact: Vec<u8>) -> Vec<u8> {
    let digest = checksum(&artifact);
    artifact.reserve_exact(TRAILER);
    artifact.extend_from_slice(MAGIC);
    artifact.extend_from_slice(&digest);
    artifact
}

/// A read-only cache ([`CacheAccess::ReadOnly`]) has no usable file for a program; the
/// text says what was there instead.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NotCached(pub(crate) String);

/// What the cache has for a program, before anything is compiled ([`lookup`]).
pub(crate) enum Lookup<T> {
    /// A usable cache file: the artifact, loaded.
    Hit(T),
    /// Nothing usable: the program must be compiled ([`compile_and_store`]), and the
    /// result written to `cache_file` (if there is a cache); `warnings` say why a file
    /// that was there was not used.
    Miss {
        cache_file: Option<PathBuf>,
        warnings: Vec<String>,
    },
}

impl<T> Lookup<T> {
    /// The same answer, a hit made into `f`'s.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Lookup<U> {
        match self {
            Lookup::Hit(found) => Lookup::Hit(f(found)),
            Lookup::Miss {
                cache_file,
                warnings,
            } => Lookup::Miss {
                cache_file,
                warnings,
            },
        }
    }
}

/// Looks for the artifact of the program with digest `digest` in the cache in `dir`,
/// compiling nothing. A caller that must bound a compile's time runs only
/// [`compile_and_store`] on a thread of its own (a load is bounded by the file's size,
/// a compile is not: the engine starts its compile thread only for a [`Lookup::Miss`]).
///
/// A cache file that exists but fails its checksum or does not load (another
/// build) is a miss, with a warning that names it. A read-only cache compiles nothing: a
/// missing or unusable file (or, since the system cache must be root's alone, one that
/// is not root's or that others may write) is a [`NotCached`], never a miss.
pub(crate) fn lookup<A: Artifact>(
    engine: &Engine,
    dir: Option<&Path>,
    access: CacheAccess,
    digest: &ProgramDigest,
) -> wasmtime::Result<Lookup<Loaded<A>>> {
    let Some(dir) = dir else {
        return Ok(Lookup::Miss {
            cache_file: None,
            warnings: Vec::new(),
        });
    };
    let path = cache_path::<A>(dir, engine, digest);
    if access == CacheAccess::ReadOnly {
        return load_read_only(engine, path).map(Lookup::Hit);
    }
    let mut warnings = Vec::new();
    if path.is_file() {
        match load_file::<A>(engine, &path, access) {
            Ok(artifact) => {
                return Ok(Lookup::Hit(Loaded {
                    artifact,
                    from_cache: true,
                    cache_file: Some(path),
                    warnings,
                }));
            }
            Err(why) => warnings.push(format!(
                "the WASM cache file {} {why}, so it was compiled again",
                path.display()
            )),
        }
    }
    Ok(Lookup::Miss {
        cache_file: Some(path),
        warnings,
    })
}

/// Compiles `wasm` after a [`Lookup::Miss`] and writes the artifact to its `cache_file`
/// (as `access` says), keeping the miss's `warnings` first. A cache that cannot be
/// written is only a warning: the compiled artifact is still used. Never called for a
/// read-only cache (its lookup never misses).
pub(crate) fn compile_and_store<A: Artifact>(
    engine: &Engine,
    access: CacheAccess,
    wasm: &[u8],
    cache_file: Option<PathBuf>,
    mut warnings: Vec<String>,
) -> wasmtime::Result<Loaded<A>> {
    let artifact = A::compile(engine, wasm)?;
    let Some(path) = cache_file else {
        return Ok(Loaded {
            artifact,
            from_cache: false,
            cache_file: None,
            warnings,
        });
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    match artifact.serialize() {
        Ok(bytes) => {
            let file = with_trailer(bytes);
            match store(dir, &path, &file, access).and_then(|()| std::fs::metadata(&path)) {
                // Written whole by us: as good as checked (a file renamed over it since
                // has another stamp, and the memo is not used for it).
                Ok(meta) => checked::remember(&path, &meta, &file[file.len() - DIGEST_LEN..], access),
                Err(e) => warnings.push(format!(
                    "cannot write the WASM cache file {}: {e}; the next start compiles it again",
                    path.display()
                )),
            }
        }
        Err(e) => warnings.push(format!(
            "cannot serialize the compiled WASM artifact for {}: {e}; the next start compiles it again",
            path.display()
        )),
    }
    Ok(Loaded {
        artifact,
        from_cache: false,
        cache_file: Some(path),
        warnings,
    })
}

/// [`lookup`] in a read-only cache: the file, or a [`NotCached`].
fn load_read_only<A: Artifact>(engine: &Engine, path: PathBuf) -> wasmtime::Result<Loaded<A>> {
    let not_cached = |why: String| wasmtime::Error::new(NotCached(why));
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() => meta,
        Ok(_) => return Err(not_cached(format!("{} is not a file", path.display()))),
        Err(_) => return Err(not_cached(format!("no file {}", path.display()))),
    };
    // The administrator's alone, as the OS says it (root's and no group or world write;
    // on Windows, the owner and DACL: docs/contract.md#system-mode).
    if sys::ownership::admin_only_problem(&path, &meta, crate::platform::Standing::End).is_some() {
        return Err(not_cached(format!(
            "{} is not root's alone",
            path.display()
        )));
    }
    match load_file::<A>(engine, &path, CacheAccess::ReadOnly) {
        Ok(artifact) => Ok(Loaded {
            artifact,
            from_cache: true,
            cache_file: Some(path),
            warnings: Vec::new(),
        }),
        Err(why) => Err(not_cached(format!("{} {why}", path.display()))),
    }
}

/// Why a cache file was not used.
#[derive(Debug, thiserror::Error)]
enum Unusable {
    #[error("cannot be read ({0})")]
    Read(io::Error),
    #[error("{0}")]
    Unverified(Unverified),
    #[error("does not load ({0})")]
    Load(wasmtime::Error),
}

/// Opens a cache file, checks its checksum and deserializes exactly the bytes checked.
/// Where files are mapped ([`sys::mapped`], Linux), the checksum is checked over a
/// mapping of the open file, and wasmtime then maps that same open file itself (through
/// a name for it that no rename changes) and runs it from there; a file checked earlier
/// in this boot and unchanged since ([`checked`], never in a read-only cache) is mapped
/// by wasmtime without the check. If wasmtime cannot map it (its code cannot be made
/// executable on a `noexec` mount; no `/proc`), it copies the checked bytes from the
/// mapping. Elsewhere the file is read whole and the buffer checked and copied.
///
/// Why loading is sound (the `unsafe` below): the cache folder is private to this user
/// and not writable by the agent or by hooks (the caller's path guard checks it before
/// any hook is prepared), so every file in it was written by `store` from
/// `A::serialize`; and the bytes loaded are exactly what was written: their checksum is
/// the one stored with them, checked over those very bytes (a mapping of the open file
/// wasmtime then maps, or our own buffer), so a file damaged before the load is never
/// deserialized. A mapping follows the file after the check, which is sound only
/// because no writer changes a cache file in place: `store` renames a whole new file
/// over the name (the open file is then no longer named, and unchanged), and whoever
/// could write one in place could as well reseal it before the check
/// (docs/threats.md#f19 and #i1). The name carries the wasmtime version and engine
/// compatibility hash, and wasmtime itself rejects artifacts from another version or
/// configuration.
fn load_file<A: Artifact>(
    engine: &Engine,
    path: &Path,
    access: CacheAccess,
) -> Result<A, Unusable> {
    let mut file = File::open(path).map_err(Unusable::Read)?;
    if sys::mapped::MAPS_FILES {
        // Checked earlier in this boot: mapped by wasmtime without the check. Should
        // wasmtime fail to map it, the bytes are checked below before it copies them.
        let checked_before =
            access != CacheAccess::ReadOnly && checked::checked_before(path, &mut file);
        if checked_before && let Some(loaded) = load_mapped(engine, &file) {
            return Ok(loaded);
        }
        // A file that cannot be mapped is no error: it is read as elsewhere.
        if let Ok(Some(mapping)) = sys::mapped::map(&file) {
            let artifact = verified_artifact(mapping.bytes()).map_err(Unusable::Unverified)?;
            let mapped = match checked_before {
                true => None, // wasmtime could not map it just now
                false => {
                    if let Ok(meta) = file.metadata() {
                        let digest = &mapping.bytes()[artifact.len() + MAGIC.len()..];
                        checked::remember(path, &meta, digest, access);
                    }
                    load_mapped(engine, &file)
                }
            };
            return match mapped {
                Some(loaded) => Ok(loaded),
                // SAFETY: the checked bytes, copied by wasmtime while the mapping lives.
                None => unsafe { A::load(engine, artifact) }.map_err(Unusable::Load),
            };
        }
    }
    let mut whole = Vec::new();
    file.read_to_end(&mut whole).map_err(Unusable::Read)?;
    let artifact = verified_artifact(&whole).map_err(Unusable::Unverified)?;
    // SAFETY: our own buffer, checked (see above).
    unsafe { A::load(engine, artifact) }.map_err(Unusable::Load)
}

/// The artifact of the open cache file `file`, which wasmtime maps itself; `None` if it
/// cannot.
///
/// Sound as [`load_file`] says: `file` is a cache file whose artifact was checked
/// against its checksum, now or earlier in this boot ([`checked`]).
fn load_mapped<A: Artifact>(engine: &Engine, file: &File) -> Option<A> {
    let same = sys::mapped::same_file(file)?;
    // SAFETY: see above.
    unsafe { A::load_file(engine, &same) }.ok()
}

/// Writes `bytes` to `path` atomically: a 0600 temporary file in `dir` (created 0700 if
/// missing), then a rename over `path`; with [`CacheAccess::Shared`], 0644 and 0755, so
/// that every user's bridge can read the system cache.
fn store(dir: &Path, path: &Path, bytes: &[u8], access: CacheAccess) -> io::Result<()> {
    let shared = access == CacheAccess::Shared;
    let mut builder = DirBuilder::new();
    builder.recursive(true);
    match shared {
        true => sys::files::shared_dir_mode(&mut builder),
        false => sys::files::private_dir_mode(&mut builder),
    }
    .create(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce).map_err(|e| io::Error::other(e.to_string()))?;
    let tmp = dir.join(format!(
        ".{name}.{}.{:016x}.tmp",
        std::process::id(),
        u64::from_le_bytes(nonce)
    ));
    let written = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        let mut file = match shared {
            true => sys::files::shared_file_mode(&mut options),
            false => sys::files::private_file_mode(&mut options),
        }
        .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        // The system cache's files must be the administrator's (on Windows an elevated
        // administrator's new file may be owned by its own account; docs/system-scope.md).
        if shared {
            sys::files::give_to_administrators(&tmp)?;
        }
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
