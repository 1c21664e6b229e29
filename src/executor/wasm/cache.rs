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

use std::fs::{DirBuilder, OpenOptions};
use std::hash::Hasher;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use wasmtime::Module;

/// The wasmtime release the artifacts are compiled by (part of every key).
const WASMTIME_VERSION: &str = "48.0.8";

/// Something wasmtime compiles that can be cached: a core module or a component.
pub(crate) trait Artifact: Sized {
    /// The file extension of its cache files.
    const EXT: &'static str;
    /// Compiles it from WASM bytes.
    fn compile(engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Self>;
    /// Loads it from a cache file.
    ///
    /// # Safety
    /// The file must have been written by [`Artifact::serialize`] of this wasmtime.
    unsafe fn load(engine: &Engine, path: &Path) -> wasmtime::Result<Self>;
    /// Serializes it for the cache.
    fn serialize(&self) -> wasmtime::Result<Vec<u8>>;
}

impl Artifact for Module {
    const EXT: &'static str = "cwasm";
    fn compile(engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Self> {
        Module::from_binary(engine, wasm)
    }
    unsafe fn load(engine: &Engine, path: &Path) -> wasmtime::Result<Self> {
        // SAFETY: forwarded to the caller (see the trait method).
        unsafe { Module::deserialize_file(engine, path) }
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
    unsafe fn load(engine: &Engine, path: &Path) -> wasmtime::Result<Self> {
        // SAFETY: forwarded to the caller (see the trait method).
        unsafe { Component::deserialize_file(engine, path) }
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
    sha.update(b"hookhost-wasm-cache-v2\0");
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
    let mut name = String::with_capacity(digest.len() * 2 + 8);
    for byte in digest {
        name.push_str(&format!("{byte:02x}"));
    }
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
}

/// Loads the artifact for `wasm` (whose digest is `digest`) from the cache in `dir`, or
/// compiles it (and caches it).
///
/// A cache file that exists but does not load (truncated, another build) is replaced. A
/// cache that cannot be written is only a warning: the compiled artifact is still used.
pub(crate) fn load_or_compile<A: Artifact>(
    engine: &Engine,
    dir: Option<&Path>,
    wasm: &[u8],
    digest: &ProgramDigest,
) -> wasmtime::Result<Loaded<A>> {
    let Some(dir) = dir else {
        return Ok(Loaded {
            artifact: A::compile(engine, wasm)?,
            from_cache: false,
            cache_file: None,
        });
    };
    let path = cache_path::<A>(dir, engine, digest);
    if path.is_file() {
        // SAFETY: the cache folder is private to this user and not writable by the agent
        // or by hooks (the caller's path guard checks it before any hook is prepared), so
        // every file in it was written by `store` below from `A::serialize`. The name
        // carries the wasmtime version and engine compatibility hash, and wasmtime itself
        // rejects artifacts from another version or configuration.
        match unsafe { A::load(engine, &path) } {
            Ok(artifact) => {
                return Ok(Loaded {
                    artifact,
                    from_cache: true,
                    cache_file: Some(path),
                });
            }
            Err(e) => tracing::warn!(
                "ignoring the unusable cached artifact {}: {e}",
                path.display()
            ),
        }
    }
    let artifact = A::compile(engine, wasm)?;
    match artifact.serialize() {
        Ok(bytes) => {
            if let Err(e) = store(dir, &path, &bytes) {
                tracing::warn!("cannot write the WASM cache file {}: {e}", path.display());
            }
        }
        Err(e) => tracing::warn!("cannot serialize a compiled WASM artifact: {e}"),
    }
    Ok(Loaded {
        artifact,
        from_cache: false,
        cache_file: Some(path),
    })
}

/// Writes `bytes` to `path` atomically: a 0600 temporary file in `dir` (created 0700 if
/// missing), then a rename over `path`.
fn store(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
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
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
