//! A settings change refused during a session (Claude Code's `ConfigChange`) blocks the
//! rest of that session, so that the user learns of it at once and a change undone in
//! time to hide it still shows (docs/threats.md#r4): the refusal is kept beside the
//! session's record, with the digest of the pins it was judged against, and every later
//! call of the session is denied with it until the pins change, which is `hookhost
//! install` run again (it restores the registration and pins what it wrote).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{AgentKind, Environment, digest_bytes, pins_path};

/// What is kept of one refusal.
#[derive(Debug, Serialize, Deserialize)]
struct Refusal {
    /// The pins file's digest when the change was refused (`none`: no pins file).
    pins: String,
    /// What the refusal said (the file and the key).
    said: String,
}

/// Where the refusal of `agent`'s session `session_id` is kept: beside its record.
fn place(env: &Environment, agent: AgentKind, session_id: &str) -> Option<PathBuf> {
    let record = crate::bridge::record_path(env, agent, session_id)?;
    let mut name = record.file_name()?.to_os_string();
    name.push(".refused-change");
    Some(record.with_file_name(name))
}

/// The pins file's digest now.
fn pins_now(env: &Environment) -> String {
    pins_path(env)
        .ok()
        .and_then(|path| crate::access::read_capped(&path, crate::access::caps::SETTINGS).ok())
        .map_or_else(|| "none".to_string(), |bytes| digest_bytes(&bytes))
}

/// Keeps `said`, the refusal of a settings change in `agent`'s session `session_id`.
/// Fails quietly: the refusal itself has been answered, and the later calls still check
/// the settings files themselves.
pub fn remember(env: &Environment, agent: AgentKind, session_id: &str, said: &str) {
    let Some(path) = place(env, agent, session_id) else {
        return;
    };
    let refusal = Refusal {
        pins: pins_now(env),
        said: said.to_string(),
    };
    let Ok(text) = serde_json::to_string(&refusal) else {
        return;
    };
    let _ = write_private(&path, text.as_bytes());
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(folder) = path.parent() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        crate::platform::sys::files::private_dir_mode(&mut builder).create(folder)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    crate::platform::sys::files::private_file_mode(&mut options);
    let mut file = options.open(path)?;
    crate::platform::sys::files::make_file_private(&file)?;
    file.write_all(bytes)
}

/// The deny for a call of `agent`'s session `session_id` after a refused settings change
/// in it, while the pins are those it was refused against; `None` when there was none.
pub fn earlier_refusal(env: &Environment, agent: AgentKind, session_id: &str) -> Option<String> {
    let path = place(env, agent, session_id)?;
    let bytes = crate::access::read_capped(&path, crate::access::caps::SETTINGS).ok()?;
    let refusal: Refusal = match serde_json::from_slice(&bytes) {
        Ok(refusal) => refusal,
        // Unreadable: it was a refusal all the same.
        Err(_) => Refusal {
            pins: pins_now(env),
            said: format!("(the refusal kept in {} cannot be read)", path.display()),
        },
    };
    if refusal.pins != pins_now(env) {
        return None;
    }
    Some(format!(
        "Earlier in this session hookhost refused a change to {}'s settings, so it blocks the rest of this session: {} Once the settings are as `hookhost install {}` wrote them (`hookhost doctor` says what is wrong), run `hookhost install {}` again, which pins them and lets this session go on, or start a new session.",
        agent.display_name(),
        refusal.said.trim_end(),
        agent.flag_name(),
        agent.flag_name()
    ))
}
