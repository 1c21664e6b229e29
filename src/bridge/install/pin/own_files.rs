//! hookhost's own files in a pin: the config the bridge loads, the files its hooks run
//! (programs, scripts, `.wasm` modules) and the registered binary's digest
//! (docs/threats.md#r5), and the digests every pin compares.

use super::*;
use crate::file_digests;

/// hookhost's config file as a pin holds it: the bridge refuses a call that would load
/// another file, or this one changed (docs/threats.md#r5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigPin {
    /// The config file the bridge loads.
    pub file: PathBuf,
    /// `sha256:` of its bytes; `None`: there was no file (no hooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Its hooks' names, so that a change can be said (`1 hook: marker` then, `no hooks`
    /// now) without keeping a copy of the file.
    #[serde(default)]
    pub hooks: Vec<String>,
    /// It did not load (a session refuses it), so `hooks` says nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unloadable: bool,
    /// The files its hooks run, as they were pinned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hook_files: Vec<HookFilePin>,
}

/// A file a hook runs (its program, a script it names, its `.wasm` module), as pinned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookFilePin {
    /// The hook.
    pub hook: String,
    /// The file, absolute, as the config names it.
    pub file: PathBuf,
    /// `sha256:` of its bytes.
    pub digest: String,
    /// What its metadata said (inode, change time, size): a call compares these and hashes
    /// the file again only when they differ. A change time cannot be set back by the
    /// file's owner, so an edit, a rename over it or a `chmod` always shows.
    pub stamp: [i64; 4],
}

impl HookFilePin {
    /// The files `hook` runs: its program, and every other argument that is an absolute
    /// path to a file (a script, a module), each with its digest now. A file that cannot be
    /// read is left out: the session refuses the hook for it anyway.
    fn of(hook: &crate::config::HookDef) -> Vec<HookFilePin> {
        let mut out: Vec<HookFilePin> = Vec::new();
        for arg in &hook.command {
            let path = Path::new(arg);
            if !path.is_absolute() || out.iter().any(|f| f.file == path) {
                continue;
            }
            let Ok(meta) = std::fs::metadata(path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            if let Ok(digest) = file_digest(path) {
                out.push(HookFilePin {
                    hook: hook.name.clone(),
                    file: path.to_path_buf(),
                    digest,
                    stamp: crate::platform::sys::files::change_stamp(&meta),
                });
            }
        }
        out
    }

    /// Why this file is not as pinned, if it is not: the common call compares its stamp
    /// only. A stamp that moved while the bytes did not (a `chmod`, a new hard link) is
    /// hashed once per process and stamp, and `doctor` says so
    /// ([`HookFilePin::stamp_moved`]). A file found as pinned is learned under its stamp
    /// ([`crate::file_digests`]): the WASM engine then finds a module's compiled
    /// artifact by the pinned digest without reading and hashing the file again.
    pub fn problem(&self) -> Option<&'static str> {
        let Ok(meta) = std::fs::metadata(&self.file) else {
            return Some("is gone");
        };
        let stamp = crate::platform::sys::files::change_stamp(&meta);
        // Another size is other bytes, found without reading them (a sparse file of
        // 100 GB, docs/threats.md#b9); the stamp's last field is the size.
        if stamp[3] != self.stamp[3] {
            return Some("changed");
        }
        let pinned = file_digests::parse(&self.digest);
        let known = stamp == self.stamp
            || (pinned.is_some() && file_digests::learned(&self.file, stamp) == pinned);
        if !known {
            match file_digest(&self.file) {
                Ok(digest) if digest == self.digest => {}
                Ok(_) => return Some("changed"),
                Err(_) => return Some("cannot be read"),
            }
        }
        if let Some(pinned) = pinned {
            file_digests::learn(&self.file, stamp, pinned);
        }
        None
    }

    /// Whether the file's stamp is no longer the pinned one (its bytes may still be):
    /// then every bridged process hashes it whole to check it, until `install` pins it
    /// again. `None` when it cannot be read.
    pub fn stamp_moved(&self) -> Option<u64> {
        let meta = std::fs::metadata(&self.file).ok()?;
        (crate::platform::sys::files::change_stamp(&meta) != self.stamp).then_some(meta.len())
    }
}

impl ConfigPin {
    /// `file` as it is now. A missing file is pinned as missing; a file that does not
    /// load is pinned by its digest, with no hook names (a session refuses it anyway).
    pub fn now(file: &Path, env: &Environment) -> Result<ConfigPin, PinError> {
        match crate::access::read_capped(file, crate::access::caps::CONFIG) {
            Ok(bytes) => {
                let parsed = crate::config::Config::parse_with_env(
                    file,
                    &String::from_utf8_lossy(&bytes),
                    env,
                );
                let hooks = parsed
                    .as_ref()
                    .map(|c| c.hooks.as_slice())
                    .unwrap_or_default();
                Ok(ConfigPin {
                    file: file.to_path_buf(),
                    digest: Some(digest_bytes(&bytes)),
                    unloadable: parsed.is_err(),
                    hooks: hooks.iter().map(|h| h.name.clone()).collect(),
                    hook_files: hooks.iter().flat_map(HookFilePin::of).collect(),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigPin {
                file: file.to_path_buf(),
                digest: None,
                hooks: Vec::new(),
                unloadable: false,
                hook_files: Vec::new(),
            }),
            Err(source) => Err(PinError::Io {
                path: file.to_path_buf(),
                source,
            }),
        }
    }

    /// Whether `now` is this file with these bytes, and its hooks' files are as pinned.
    pub fn same_as(&self, now: &ConfigPin) -> bool {
        self.file == now.file
            && self.digest == now.digest
            && self.hook_files.len() == now.hook_files.len()
            && self
                .hook_files
                .iter()
                .zip(&now.hook_files)
                .all(|(a, b)| (&a.hook, &a.file, &a.digest) == (&b.hook, &b.file, &b.digest))
    }

    /// Its hooks' files whose stamp moved since they were pinned while, it seems, their
    /// bytes did not (or `doctor` would have said so): each with its size, which every
    /// bridged call hashes again until `install` pins them as they are.
    pub fn moved_stamps(&self) -> Vec<(&Path, u64)> {
        self.hook_files
            .iter()
            .filter_map(|f| f.stamp_moved().map(|size| (f.file.as_path(), size)))
            .collect()
    }

    /// The first of its hooks' files that is not as pinned, and how: `(hook, file, what)`.
    pub fn hook_file_problem(&self) -> Option<(&str, &Path, &'static str)> {
        self.hook_files.iter().find_map(|f| {
            f.problem()
                .map(|what| (f.hook.as_str(), f.file.as_path(), what))
        })
    }

    /// What it held, for messages: `no file`, `a config that does not load`, `no hooks`,
    /// `1 hook: marker`, `2 hooks: marker, ctx`.
    pub fn contents(&self) -> String {
        match (&self.digest, self.hooks.as_slice()) {
            (None, _) => "no file".to_string(),
            (Some(_), _) if self.unloadable => "a config that does not load".to_string(),
            (Some(_), []) => "no hooks".to_string(),
            (Some(_), [one]) => format!("1 hook: {one}"),
            (Some(_), hooks) => format!("{} hooks: {}", hooks.len(), hooks.join(", ")),
        }
    }

    /// What changed from this pin to `now`, one sentence, for `install` to show before it
    /// pins `now`; `None` when nothing did.
    pub fn change_to(&self, now: &ConfigPin) -> Option<String> {
        if self.same_as(now) {
            return None;
        }
        if self.file == now.file && self.digest == now.digest {
            let changed: Vec<String> = now
                .hook_files
                .iter()
                .filter(|f| {
                    !self
                        .hook_files
                        .iter()
                        .any(|p| (&p.hook, &p.file, &p.digest) == (&f.hook, &f.file, &f.digest))
                })
                .map(|f| format!("{} (hook {})", f.file.display(), f.hook))
                .collect();
            return Some(format!(
                "the files hookhost's hooks run changed since they were pinned: {}.",
                if changed.is_empty() {
                    "some are gone".to_string()
                } else {
                    changed.join(", ")
                }
            ));
        }
        if self.file != now.file {
            return Some(format!(
                "hookhost's config was pinned as {} ({}); it is now {} ({}).",
                self.file.display(),
                self.contents(),
                now.file.display(),
                now.contents()
            ));
        }
        let named = |names: Vec<&String>| match names.as_slice() {
            [] => "none".to_string(),
            names => names
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        };
        let removed: Vec<&String> = self
            .hooks
            .iter()
            .filter(|h| !now.hooks.contains(h))
            .collect();
        let added: Vec<&String> = now
            .hooks
            .iter()
            .filter(|h| !self.hooks.contains(h))
            .collect();
        Some(format!(
            "hookhost's config {} changed since it was pinned: {} then, {} now (hooks removed: {}; added: {}).",
            self.file.display(),
            self.contents(),
            now.contents(),
            named(removed),
            named(added)
        ))
    }
}

pub(super) fn digest(text: &str) -> String {
    digest_bytes(text.as_bytes())
}

/// `sha256:` of a file read in pieces (a binary can be hundreds of MB). Only a regular
/// file of at most 1 GiB (`access::caps::DIGESTED`) is hashed: a FIFO
/// or `/dev/zero` put in a pinned file's place would never end (docs/threats.md#b9).
pub fn file_digest(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let cap = crate::access::caps::DIGESTED;
    let (file, _) = crate::access::open_regular(path)?;
    let mut hasher = Sha256::new();
    if std::io::copy(&mut file.take(cap + 1), &mut hasher)? > cap {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "is larger than {} GiB, more than hookhost hashes of a pinned file",
                cap >> 30
            ),
        ));
    }
    Ok(format!("sha256:{}", hex::encode(hasher.finalize())))
}

/// `sha256:` and the first 12 hex digits, for messages.
pub fn short_digest(digest: &str) -> String {
    let end = digest.len().min("sha256:".len() + 12);
    format!("{}…", digest.get(..end).unwrap_or(digest))
}

pub(super) fn digest_bytes(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}
