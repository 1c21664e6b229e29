//! hookhost's own files in a pin: the config the bridge loads and the registered binary's
//! digest (docs/threats.md#r5), and the digests every pin compares.

use super::*;

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
                Ok(ConfigPin {
                    file: file.to_path_buf(),
                    digest: Some(digest_bytes(&bytes)),
                    unloadable: parsed.is_err(),
                    hooks: parsed
                        .map(|c| c.hooks.into_iter().map(|h| h.name).collect())
                        .unwrap_or_default(),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigPin {
                file: file.to_path_buf(),
                digest: None,
                hooks: Vec::new(),
                unloadable: false,
            }),
            Err(source) => Err(PinError::Io {
                path: file.to_path_buf(),
                source,
            }),
        }
    }

    /// Whether `now` is this file with these bytes.
    pub fn same_as(&self, now: &ConfigPin) -> bool {
        self.file == now.file && self.digest == now.digest
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

/// `sha256:` of a file read in pieces (a binary can be hundreds of MB).
pub fn file_digest(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
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
