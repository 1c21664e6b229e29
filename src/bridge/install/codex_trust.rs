//! Codex's hook trust: what `install` writes so that Codex runs hookhost's handlers without
//! asking, and what `doctor` checks of it (docs/agents.md#codex-cli).
//!
//! Codex runs a user hook only once the user has trusted it in `/hooks` (the trust is a hash
//! of its event, matcher, command and timeout, kept in the user's config.toml); `install`
//! writes that trust for hookhost's own handlers, and keeps it in step when they change or
//! move, and `uninstall` takes it away again (see [`trusted_hash`]). Both command and
//! timeout stay stable from one install to the next.

use std::path::{Path, PathBuf};

// Codex's hook trust (real_agents R6). Codex CLI runs a user hook only once the user trusted
// it in `/hooks`; `codex exec` skips an untrusted or "Modified" one without a word. The trust
// is `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"` in the
// user's config.toml, and `install` writes it for hookhost's own handlers (running `install`
// is the user's trust), here as Codex computes it (openai/codex `codex-rs`):
// - `hooks/src/engine/discovery.rs`, `append_matcher_groups`: the key is
//   `hook_key(source path, event, group index, handler index)`, the indexes positional
//   (every group and handler counts, in file order); the handler is normalized first
//   (`timeout` missing → 600, then at least 1; `commandWindows` dropped) and hashed with
//   its group's matcher, which `matcher_pattern_for_event` drops for `UserPromptSubmit` and
//   `Stop`;
// - `command_hook_hash` in the same file: `NormalizedHookIdentity { event_name (the snake
//   case label), #[serde(flatten)] MatcherGroup { matcher, hooks: [the handler] } }` turned
//   into a TOML value (a `None` field is left out) and handed to `version_for_toml`;
// - `config/src/fingerprint.rs`, `version_for_toml`: that value as JSON, every object's keys
//   sorted, serialized compactly (`serde_json::to_vec`), SHA-256, `sha256:` + lowercase hex;
// - `config/src/hook_config.rs`, `HookHandlerConfig::Command`: `type = "command"`,
//   `command`, `timeout`, `async` (always there, default false), `statusMessage` and
//   `additionalContextLimit` (when set) — six fields in 0.171.0, whose binary names
//   `struct variant HookHandlerConfig::Command with 6 elements`;
// - `hooks/src/config_rules.rs`, `hook_states_from_stack`: the state is read from the user
//   layer only (a project's `.codex/config.toml` cannot trust its own hooks), keys trimmed;
// - `utils/home-dir`, `find_codex_home`: `$CODEX_HOME` canonicalized, else `~/.codex` as
//   `$HOME` spells it; the key's file is that folder's `config.toml`.
// Checked against Codex CLI 0.171.0 itself (`codex app-server`, `hooks/list`, whose
// `currentHash` equals [`trusted_hash`] for every handler tried: the tests' vectors). A later
// Codex that adds a field to the handler hashes differently: it then shows hookhost's hook as
// "Modified" in `/hooks` until the user trusts it there; `install` keeps that trust (a hash it
// would not compute, where its handler already was), and `hookhost doctor`, which computes
// 0.171.0's hash, still calls it "Modified" (its fix then says to trust it in `/hooks`).

/// One command handler as Codex's trust hash sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookIdentity<'a> {
    /// The event, in Codex's spelling (`PreToolUse`).
    pub event: &'a str,
    /// The group's `matcher`, as written (dropped here for events that take none).
    pub matcher: Option<&'a str>,
    /// The handler's `command`.
    pub command: &'a str,
    /// Its `timeout` in seconds, as written (`None`: not written).
    pub timeout: Option<u64>,
    /// Its `async`.
    pub run_async: bool,
    /// Its `statusMessage`.
    pub status_message: Option<&'a str>,
    /// Its `additionalContextLimit`.
    pub additional_context_limit: Option<u64>,
}

/// Codex's label for an event in a trust key and in the hash: `PreToolUse` → `pre_tool_use`.
pub fn event_label(event: &str) -> String {
    let mut label = String::with_capacity(event.len() + 4);
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                label.push('_');
            }
            label.push(c.to_ascii_lowercase());
        } else {
            label.push(c);
        }
    }
    label
}

/// Whether Codex keeps a group's matcher for `event` (`matcher_pattern_for_event`).
fn takes_matcher(event: &str) -> bool {
    !matches!(event, "UserPromptSubmit" | "Stop")
}

/// The `trusted_hash` Codex records when the user trusts this handler in `/hooks`.
pub fn trusted_hash(identity: &HookIdentity) -> String {
    use serde_json::{Map, Value};
    use sha2::{Digest, Sha256};
    // Keys inserted in sorted order (the crate's serde_json keeps insertion order).
    let mut handler = Map::new();
    if let Some(limit) = identity.additional_context_limit {
        handler.insert("additionalContextLimit".into(), limit.into());
    }
    handler.insert("async".into(), identity.run_async.into());
    handler.insert("command".into(), identity.command.into());
    if let Some(message) = identity.status_message {
        handler.insert("statusMessage".into(), message.into());
    }
    handler.insert(
        "timeout".into(),
        identity.timeout.unwrap_or(600).max(1).into(),
    );
    handler.insert("type".into(), "command".into());
    let mut group = Map::new();
    group.insert("event_name".into(), event_label(identity.event).into());
    group.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
    if let Some(matcher) = identity.matcher.filter(|_| takes_matcher(identity.event)) {
        group.insert("matcher".into(), matcher.into());
    }
    let bytes = serde_json::to_vec(&Value::Object(group)).unwrap_or_default();
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// The key of a handler's `[hooks.state."…"]` table: `FILE:pre_tool_use:GROUP:HANDLER`,
/// with `file` as Codex names it ([`user_config`] for the user's file).
pub fn trust_key(file: &Path, event: &str, group: usize, handler: usize) -> String {
    format!(
        "{}:{}:{group}:{handler}",
        file.display(),
        event_label(event)
    )
}

/// The config file whose `[hooks.state]` Codex reads, named as Codex names it in trust
/// keys: `$CODEX_HOME/config.toml` with `$CODEX_HOME` canonicalized (as far as it exists),
/// else `~/.codex/config.toml` with the home as given. `None`: no home.
pub fn user_config(home: Option<&Path>, codex_home: Option<&Path>) -> Option<PathBuf> {
    match codex_home.filter(|h| !h.as_os_str().is_empty()) {
        Some(codex_home) => Some(crate::paths::leads_to(codex_home).join("config.toml")),
        None => Some(home?.join(".codex").join("config.toml")),
    }
}

/// What `install` says after writing the trust of hookhost's handlers.
pub const TRUSTED_NOTE: &str = "hookhost trusted its own hook in Codex's /hooks review (a trusted_hash in [hooks.state], as Codex 0.171.0 computes it): running install is that trust, so Codex runs the hook without asking.";

/// What `install` says where it cannot write that trust (a project's config.toml: Codex
/// keeps the trust only in the user's).
pub const REVIEW_NOTE: &str = "Codex skips this hook without a word until you trust it: run `codex`, type /hooks and trust hookhost's hooks (t). hookhost cannot write that trust for a project: Codex keeps it only in your own config.toml.";

/// Whether `install` writes the trust of hookhost's handlers into `file`: whether it is
/// the user's config.toml ([`user_config`] of this process).
pub fn trusts_in(file: &Path) -> bool {
    user_config_of_process().is_some_and(|user| is_user_config(file, &user))
}

/// [`user_config`] for this process's `$HOME` and `$CODEX_HOME`.
pub(super) fn user_config_of_process() -> Option<PathBuf> {
    let env = crate::env::Environment::of_process();
    let codex_home = env.get("CODEX_HOME").map(PathBuf::from);
    user_config(env.home().as_deref(), codex_home.as_deref())
}

/// Whether `file` is `user_config` (the same path, or the same once links are resolved).
pub(super) fn is_user_config(file: &Path, user_config: &Path) -> bool {
    file == user_config || crate::paths::leads_to(file) == crate::paths::leads_to(user_config)
}

/// The note after `install` changed Codex's settings: whether hookhost could write Codex's
/// trust of its hook there, or the user must give it in `/hooks`.
pub fn install_note(change: &super::Change) -> Option<&'static str> {
    change
        .changes_anything()
        .then(|| match trusts_in(&change.file) {
            true => TRUSTED_NOTE,
            false => REVIEW_NOTE,
        })
}
