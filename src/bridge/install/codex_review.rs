//! How Codex's `/hooks` review finds hookhost's handlers in a config (what `doctor`
//! reports): the handlers the TOML editor finds, each looked up in the trust Codex keeps
//! ([`super::codex_trust`]). Its own module so that the trust's hashing and the editor,
//! which writes the trust, do not import each other.

use std::path::{Path, PathBuf};

use super::codex_trust::trust_key;
use super::{Ours, toml};

/// How Codex's `/hooks` review finds one of hookhost's handlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    /// Trusted as it is now: Codex runs it.
    Trusted,
    /// Never trusted: Codex skips it.
    Untrusted,
    /// Trusted as it was before (another command or timeout): "Modified", skipped.
    Modified,
    /// Switched off there (`enabled = false`): skipped.
    Disabled,
}

impl Review {
    /// What it means, a few words.
    pub fn describe(self) -> &'static str {
        match self {
            Review::Trusted => "trusted",
            Review::Untrusted => "not trusted in Codex's /hooks review",
            Review::Modified => {
                "trusted as it was before it changed (\"Modified\" in Codex's /hooks review)"
            }
            Review::Disabled => "switched off in Codex's /hooks review (enabled = false)",
        }
    }
}

/// One of hookhost's handlers and its review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reviewed {
    /// The event (`PreToolUse`).
    pub event: String,
    /// Its `[hooks.state."…"]` key.
    pub key: String,
    /// How Codex's review finds it.
    pub review: Review,
}

/// hookhost's handlers (those running `hookhost`, or `hookhost` at `binary`, with `bridge`)
/// in the Codex config `text`, and how Codex's review finds each in `state` (the user's
/// config.toml, where Codex keeps the trust): keyed by the first of `key_files` (the
/// config's name as Codex may spell it) that has an entry. A `text` that does not parse
/// has none.
pub fn review(
    text: &str,
    key_files: &[PathBuf],
    state: Option<&str>,
    binary: &Path,
) -> Vec<Reviewed> {
    let ours = Ours { binary };
    let states = state.map(toml::hook_states).unwrap_or_default();
    toml::our_handlers(text, &ours)
        .into_iter()
        .map(|(event, group, handler, hash)| {
            let keys: Vec<String> = key_files
                .iter()
                .map(|file| trust_key(file, event, group, handler))
                .collect();
            let entry = keys
                .iter()
                .find_map(|key| states.iter().find(|(k, _, _)| k.trim() == key));
            let review = match entry {
                Some((_, Some(false), _)) => Review::Disabled,
                Some((_, _, Some(trusted))) if *trusted == hash => Review::Trusted,
                Some((_, _, Some(_))) => Review::Modified,
                _ => Review::Untrusted,
            };
            Reviewed {
                event: event.to_string(),
                key: keys.into_iter().next().unwrap_or_default(),
                review,
            }
        })
        .collect()
}
