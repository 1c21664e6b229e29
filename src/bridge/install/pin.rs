//! Pinned registrations: what `install` wrote, kept in hookhost's own state
//! (`$XDG_STATE_HOME/hookhost/pins.json`, 0600), and the check each bridged call makes that
//! the registration is still there as written.
//!
//! Why: the agent can usually write its own settings file, and a registration removed or
//! weakened there (a shorter timeout, no fail-closed setting) switches every hook off
//! without hookhost ever running. A pin makes that visible: the next bridged call, Claude
//! Code's `ConfigChange` event and `hookhost doctor` all find it, and the bridge refuses
//! calls until the user runs `install` again (which pins what it writes) or `uninstall`.
//!
//! The check is cheap on the common path: the settings file's digest is compared with the
//! one pinned; only a file that changed is parsed, and it drifted only when installing
//! again would change it (so the user's own edits elsewhere in the file are not drift).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Change, Options, Outcome, Request, Scope};
use crate::bridge::{AgentKind, SwitchOff};
use crate::env::Environment;

/// One pinned registration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pin {
    /// The agent (`claude-code`, …).
    pub agent: String,
    /// The settings file.
    pub file: PathBuf,
    /// The project, for a project-scope registration: checked only for calls from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
    /// The hookhost binary registered.
    pub hookhost: PathBuf,
    /// The bridge's budget, when not the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_ms: Option<u64>,
    /// Whether Claude Code's `onFailure: "block"` was written.
    #[serde(default)]
    pub claude_on_failure_block: bool,
    /// The agent's timeout as written (`30 s`), for messages.
    pub timeout: String,
    /// The fail-closed setting written (`failClosed: true`), for messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_closed: Option<String>,
    /// `sha256:` of the settings file's text as `install` left it.
    pub digest: String,
    /// When it was pinned (RFC 3339 UTC).
    pub pinned_at: String,
}

/// The pins file.
#[derive(Debug, Default, Serialize, Deserialize)]
struct PinsFile {
    version: u32,
    pins: Vec<Pin>,
}

/// How a pinned registration differs from the settings file now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    /// The registration (or the whole file) is gone.
    Removed,
    /// It is there but not as written: its command, timeout or failure setting differs, or
    /// an event lost it.
    Weakened,
    /// The registration is there, but the file turns every hook off (the key named).
    SwitchedOff(&'static str),
    /// The file cannot be read or parsed.
    Unreadable(String),
}

/// Why the pins could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    /// Neither `$XDG_STATE_HOME` nor `$HOME` is set.
    #[error("neither XDG_STATE_HOME nor HOME is set, so hookhost has nowhere to keep its pins")]
    NoStateFolder,
    /// The pins file could not be read or written.
    #[error("{}: {}", path.display(), crate::access::explain(path, source))]
    Io {
        /// The pins file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The pins file is not what hookhost writes.
    #[error("{}: not a hookhost pins file ({why}); run `hookhost install` again for each agent to pin it afresh", path.display())]
    Malformed {
        /// The pins file.
        path: PathBuf,
        /// The parser's words.
        why: String,
    },
}

impl Pin {
    /// The pin of a change `install` applied.
    pub fn of(change: &Change, request: &Request) -> Pin {
        let text = change.after.as_deref().unwrap_or_default();
        Pin {
            agent: request.agent.flag_name().into(),
            file: change.file.clone(),
            project: (request.scope == Scope::Project).then(|| request.places.project.clone()),
            hookhost: request.hookhost.clone(),
            budget_ms: request.options.budget_ms,
            claude_on_failure_block: request.options.claude_on_failure_block,
            timeout: change.registration.timeout_text(),
            fail_closed: change
                .registration
                .fail_closed
                .map(|f| format!("{}: {}", f.key(), f.value())),
            digest: digest(text),
            pinned_at: crate::record::now_rfc3339(),
        }
    }

    /// The choices `install` was given (budget, Claude Code's `onFailure`).
    pub fn options(&self) -> Options {
        Options {
            budget_ms: self.budget_ms,
            claude_on_failure_block: self.claude_on_failure_block,
        }
    }

    /// The agent, if the name is one hookhost knows.
    pub fn agent(&self) -> Option<AgentKind> {
        AgentKind::from_flag(&self.agent)
    }

    /// Whether a call from `cwd` goes through this registration: every call for a user
    /// registration, calls from within the project for a project one.
    pub fn covers(&self, cwd: Option<&Path>) -> bool {
        match (&self.project, cwd) {
            (None, _) => true,
            (Some(project), Some(cwd)) => cwd.starts_with(project),
            (Some(_), None) => false,
        }
    }

    /// How the settings file differs from what was pinned, `None` when it does not.
    pub fn drift(&self) -> Option<Drift> {
        let text = match crate::access::read_capped(&self.file, crate::access::caps::SETTINGS) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Drift::Removed),
            Err(e) => {
                return Some(Drift::Unreadable(crate::access::explain(&self.file, &e)));
            }
        };
        let Some(agent) = self.agent() else {
            return Some(Drift::Unreadable(format!("unknown agent {:?}", self.agent)));
        };
        if digest_bytes(&text) == self.digest {
            // Unchanged, but never trusted to be switched on (a pin made before `install`
            // removed switch-offs could hold one).
            return switches_hooks_off(agent, &String::from_utf8_lossy(&text))
                .map(Drift::SwitchedOff);
        }
        let Ok(text) = String::from_utf8(text) else {
            return Some(Drift::Unreadable("it is not UTF-8 text".into()));
        };
        let request = Request {
            action: super::Action::Install,
            agent,
            scope: if self.project.is_some() {
                Scope::Project
            } else {
                Scope::User
            },
            places: super::Places::new("/", self.project.clone().unwrap_or_default()),
            hookhost: self.hookhost.clone(),
            options: self.options(),
        };
        match super::plan_file(&request, &self.file, Some(&text)) {
            Ok(change) => match change.outcome {
                Outcome::AlreadyInstalled => {
                    switches_hooks_off(agent, &text).map(Drift::SwitchedOff)
                }
                Outcome::Added => Some(Drift::Removed),
                _ => Some(Drift::Weakened),
            },
            Err(e) => Some(Drift::Unreadable(e.to_string())),
        }
    }

    /// What the user is told about `drift`: what changed and what to do.
    pub fn drift_message(&self, drift: &Drift) -> String {
        let agent = self
            .agent()
            .map_or(self.agent.as_str(), |a| a.display_name());
        let what = match drift {
            Drift::Removed => "was removed".to_string(),
            Drift::Weakened => format!(
                "was changed (hookhost wrote it with a timeout of {}{})",
                self.timeout,
                self.fail_closed
                    .as_deref()
                    .map(|f| format!(" and {f}"))
                    .unwrap_or_default()
            ),
            Drift::SwitchedOff(key) => format!("is switched off by {key}"),
            Drift::Unreadable(why) => format!("cannot be checked: {why}"),
        };
        let scope = if self.project.is_some() {
            " --scope project"
        } else {
            ""
        };
        format!(
            "hookhost's registration with {agent} in {} {what} since `hookhost install` pinned it, so hookhost blocks this agent's calls rather than run with its hooks switched off. If you changed it, run `hookhost install {}{scope}` to restore and pin it again, or `hookhost uninstall {}{scope}`.",
            self.file.display(),
            self.agent,
            self.agent
        )
    }
}

/// The setting in an agent's settings `text` that turns every hook off, or hookhost's
/// registration by name, if it is set: Claude Code's and Qwen Code's `"disableAllHooks":
/// true`; Codex's `[features] hooks = false` (or its old name `codex_hooks`) and
/// `enabled = false` in a `[hooks.state."…"]` table, as Codex's `/hooks` writes it; Gemini
/// CLI's `hooksConfig.enabled: false` and `"hookhost"` in `hooksConfig.disabled`
/// (docs/agents.md). `install` removes each of them from its own file again.
pub fn switches_hooks_off(agent: AgentKind, text: &str) -> Option<&'static str> {
    match agent.declaration().switch_off {
        SwitchOff::DisableAllHooks => {
            let settings: serde_json::Value = serde_json::from_str(text).ok()?;
            (settings.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)))
                .then_some("\"disableAllHooks\": true")
        }
        SwitchOff::CodexFeatures => {
            let settings: toml::Table = text.parse().ok()?;
            let features = settings.get("features").and_then(toml::Value::as_table);
            let off = |key: &str| {
                features
                    .and_then(|f| f.get(key))
                    .and_then(toml::Value::as_bool)
                    == Some(false)
            };
            let handler_off = || {
                settings
                    .get("hooks")?
                    .get("state")?
                    .as_table()?
                    .values()
                    .any(|entry| entry.get("enabled").and_then(toml::Value::as_bool) == Some(false))
                    .then_some("enabled = false in [hooks.state]")
            };
            if off("hooks") {
                Some("[features] hooks = false")
            } else if off("codex_hooks") {
                Some("[features] codex_hooks = false")
            } else {
                handler_off()
            }
        }
        SwitchOff::HooksConfig { handler_name } => {
            let settings: serde_json::Value = serde_json::from_str(text).ok()?;
            let config = settings.get("hooksConfig")?;
            if config.get("enabled") == Some(&serde_json::Value::Bool(false)) {
                return Some("\"hooksConfig\": {\"enabled\": false}");
            }
            config
                .get("disabled")?
                .as_array()?
                .iter()
                .any(|name| name.as_str() == Some(handler_name))
                .then_some("\"hooksConfig\": {\"disabled\": [\"hookhost\"]}")
        }
        SwitchOff::None => None,
    }
}

/// The pins file: `$XDG_STATE_HOME/hookhost/pins.json`.
pub fn pins_path(env: &Environment) -> Result<PathBuf, PinError> {
    env.record_dir()
        .map(|dir| dir.join("pins.json"))
        .ok_or(PinError::NoStateFolder)
}

/// Every pin; none when the file does not exist.
pub fn load(path: &Path) -> Result<Vec<Pin>, PinError> {
    let bytes = match crate::access::read_capped(path, crate::access::caps::SETTINGS) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(PinError::Io {
                path: path.into(),
                source,
            });
        }
    };
    serde_json::from_slice::<PinsFile>(&bytes)
        .map(|file| file.pins)
        .map_err(|e| PinError::Malformed {
            path: path.into(),
            why: e.to_string(),
        })
}

/// Replaces the pin of `pin.agent` in `pin.file` (adds it when there is none).
pub fn pin(path: &Path, pin: Pin) -> Result<(), PinError> {
    let mut pins = load(path).unwrap_or_default();
    pins.retain(|p| !(p.agent == pin.agent && p.file == pin.file));
    pins.push(pin);
    save(path, pins)
}

/// Removes the pin of `agent` in `file`, if any.
pub fn unpin(path: &Path, agent: AgentKind, file: &Path) -> Result<(), PinError> {
    let mut pins = load(path)?;
    let before = pins.len();
    pins.retain(|p| !(p.agent == agent.flag_name() && p.file == file));
    if pins.len() == before {
        return Ok(());
    }
    save(path, pins)
}

/// The drifted registrations a call from `agent` in `cwd` goes through, with their
/// messages. An unreadable pins file is itself a drift: pins never fail open.
///
/// `only_file` narrows the check to the pins of one settings file (a settings-change event
/// that names its file).
pub fn drifted(
    env: &Environment,
    agent: AgentKind,
    cwd: Option<&Path>,
    only_file: Option<&Path>,
) -> Vec<String> {
    let pins = match pins_path(env).and_then(|path| load(&path)) {
        Ok(pins) => pins,
        Err(PinError::NoStateFolder) => return Vec::new(),
        Err(e) => {
            return vec![format!(
                "hookhost cannot read its pinned registrations, so it blocks this call: {e}"
            )];
        }
    };
    let same_file = |pinned: &Path| {
        only_file.is_none_or(|file| {
            file == pinned
                || matches!(
                    (std::fs::canonicalize(file), std::fs::canonicalize(pinned)),
                    (Ok(a), Ok(b)) if a == b
                )
        })
    };
    let mut drifts: Vec<String> = pins
        .iter()
        .filter(|p| p.agent == agent.flag_name() && p.covers(cwd) && same_file(&p.file))
        .filter_map(|p| p.drift().map(|d| p.drift_message(&d)))
        .collect();
    if only_file.is_none()
        && let Some(cwd) = cwd
    {
        drifts.extend(project_switch_offs(agent, cwd));
    }
    drifts
}

/// A message per project settings file, in `cwd` or a folder above it, that switches
/// `agent`'s hooks off: the call is denied, naming the file and the key, so that the
/// user learns of it now rather than find the next session unguarded.
pub fn project_switch_offs(agent: AgentKind, cwd: &Path) -> Vec<String> {
    let files = agent.declaration().merged_project_settings;
    let mut found = Vec::new();
    for folder in cwd.ancestors() {
        for name in files {
            let file = folder.join(name);
            let Ok(bytes) = crate::access::read_capped(&file, crate::access::caps::SETTINGS) else {
                continue;
            };
            if let Some(key) = switches_hooks_off(agent, &String::from_utf8_lossy(&bytes)) {
                found.push(format!(
                    "{} sets {key}, which switches off every {} hook, hookhost's among them, so hookhost blocks this agent's calls. Remove it from {} if you did not put it there (`hookhost doctor` lists every switch-off it finds).",
                    file.display(),
                    agent.display_name(),
                    file.display()
                ));
            }
        }
    }
    found
}

/// Why a settings change the agent reports (Claude Code's `ConfigChange`, naming `file`
/// when it can) is refused: it drifted a pinned registration of `agent`, or `file` now
/// turns every hook off (any settings file can, not only the one hookhost is pinned in).
/// Empty: no objection.
pub fn refused_change(
    env: &Environment,
    agent: AgentKind,
    cwd: Option<&Path>,
    file: Option<&Path>,
) -> Vec<String> {
    let drift = drifted(env, agent, cwd, file);
    if !drift.is_empty() {
        return drift;
    }
    let switched_off = file.and_then(|file| {
        let bytes = crate::access::read_capped(file, crate::access::caps::SETTINGS).ok()?;
        let key = switches_hooks_off(agent, &String::from_utf8_lossy(&bytes))?;
        Some(format!(
            "{file} now sets {key}, which would switch off every hook, hookhost's among them; hookhost refuses this change. Remove it from {file} if you did not make it.",
            file = file.display()
        ))
    });
    switched_off.into_iter().collect()
}

/// Writes the pins file whole: a temporary file (0600) renamed over it.
fn save(path: &Path, pins: Vec<Pin>) -> Result<(), PinError> {
    let io = |source| PinError::Io {
        path: path.into(),
        source,
    };
    if let Some(folder) = path.parent() {
        crate::record::write::create_private_dirs(folder).map_err(io)?;
    }
    let text = serde_json::to_string_pretty(&PinsFile { version: 1, pins })
        .map_err(|e| io(std::io::Error::other(e)))?;
    let temporary = path.with_extension("json.tmp");
    let mut file = crate::platform::sys::files::private_file_mode(
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true),
    )
    .open(&temporary)
    .map_err(io)?;
    crate::platform::sys::files::make_file_private(&file).map_err(io)?;
    std::io::Write::write_all(&mut file, text.as_bytes()).map_err(io)?;
    drop(file);
    std::fs::rename(&temporary, path).map_err(io)
}

fn digest(text: &str) -> String {
    digest_bytes(text.as_bytes())
}

fn digest_bytes(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::install::{Action, Places, plan};

    fn request(home: &Path, options: Options) -> Request {
        Request {
            action: Action::Install,
            agent: AgentKind::ClaudeCode,
            scope: Scope::User,
            places: Places::new(home, home.join("p")),
            hookhost: "/usr/local/bin/hookhost".into(),
            options,
        }
    }

    /// R2: `install` over a switched-off file puts the registration back (removes the
    /// switch-off) instead of pinning it; a pinned file is never trusted to be on.
    #[test]
    fn install_removes_every_switch_off_in_its_file_and_pins_never_trust_one() {
        let home = tempfile::tempdir().unwrap();
        let cases: [(AgentKind, &str, &str); 5] = [
            (
                AgentKind::ClaudeCode,
                "{\"disableAllHooks\": true, \"model\": \"opus\"}",
                "disableAllHooks",
            ),
            (
                AgentKind::Qwen,
                "{\"disableAllHooks\": true}",
                "disableAllHooks",
            ),
            (
                AgentKind::Gemini,
                "{\"hooksConfig\": {\"enabled\": false}}",
                "hooksConfig",
            ),
            (
                AgentKind::Gemini,
                "{\"hooksConfig\": {\"disabled\": [\"hookhost\", \"other\"]}}",
                "hooksConfig",
            ),
            (
                AgentKind::Codex,
                "[features]\nhooks = false\nweb = true\n",
                "[features] hooks = false",
            ),
        ];
        for (agent, before, key) in cases {
            assert!(
                switches_hooks_off(agent, before).is_some_and(|k| k.contains(key)),
                "{agent:?}: {before}"
            );
            let mut request = request(home.path(), Options::default());
            request.agent = agent;
            let change = plan(&request, Some(before)).unwrap();
            let after = change.after.clone().unwrap();
            assert_eq!(
                switches_hooks_off(agent, &after),
                None,
                "{agent:?}: {after}"
            );
            // The user's other settings stay.
            for kept in ["opus", "other", "web = true"] {
                if before.contains(kept) {
                    assert!(after.contains(kept), "{agent:?} lost {kept}: {after}");
                }
            }
            // A pin of the switched-off text itself still reports it.
            std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
            std::fs::write(&change.file, before).unwrap();
            let mut pinned = change.clone();
            pinned.after = Some(before.to_string());
            let pin = Pin::of(&pinned, &request);
            assert!(
                matches!(pin.drift(), Some(Drift::SwitchedOff(_))),
                "{agent:?}"
            );
            std::fs::remove_file(&change.file).unwrap();
        }
        // Codex's per-handler switch (as `/hooks` writes it) is seen and removed.
        let mut request = request(home.path(), Options::default());
        request.agent = AgentKind::Codex;
        let file =
            crate::bridge::install::settings_file(AgentKind::Codex, Scope::User, &request.places)
                .unwrap();
        let text = format!(
            "[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\ntrusted_hash = \"sha256:x\"\n",
            file.display()
        );
        assert!(switches_hooks_off(AgentKind::Codex, &text).is_some());
        let after = plan(&request, Some(&text)).unwrap().after.unwrap();
        assert_eq!(
            switches_hooks_off(AgentKind::Codex, &after),
            None,
            "{after}"
        );
        assert!(after.contains("trusted_hash"), "{after}");
    }

    /// A project's own settings that switch the agent's hooks off deny its calls.
    #[test]
    fn a_project_switch_off_is_reported() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("p/sub");
        std::fs::create_dir_all(root.path().join("p/.claude")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        assert!(project_switch_offs(AgentKind::ClaudeCode, &project).is_empty());
        std::fs::write(
            root.path().join("p/.claude/settings.local.json"),
            "{\"disableAllHooks\": true}",
        )
        .unwrap();
        let found = project_switch_offs(AgentKind::ClaudeCode, &project);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("settings.local.json sets \"disableAllHooks\": true"),
            "{found:?}"
        );
        assert!(project_switch_offs(AgentKind::Gemini, &project).is_empty());
    }

    #[test]
    fn a_pin_finds_removal_weakening_and_ignores_other_edits() {
        let home = tempfile::tempdir().unwrap();
        let request = request(
            home.path(),
            Options {
                claude_on_failure_block: true,
                ..Options::default()
            },
        );
        let change = plan(&request, Some("{\"model\": \"opus\"}")).unwrap();
        let text = change.after.clone().unwrap();
        std::fs::create_dir_all(change.file.parent().unwrap()).unwrap();
        std::fs::write(&change.file, &text).unwrap();
        let pin = Pin::of(&change, &request);
        assert_eq!(pin.drift(), None);

        // The user's own edit elsewhere in the file is not drift.
        std::fs::write(&change.file, text.replace("opus", "sonnet")).unwrap();
        assert_eq!(pin.drift(), None);

        let mut weakened: serde_json::Value = serde_json::from_str(&text).unwrap();
        for (_, groups) in weakened["hooks"].as_object_mut().unwrap() {
            for group in groups.as_array_mut().unwrap() {
                for handler in group["hooks"].as_array_mut().unwrap() {
                    assert!(
                        handler
                            .as_object_mut()
                            .unwrap()
                            .remove("onFailure")
                            .is_some()
                    );
                }
            }
        }
        std::fs::write(&change.file, weakened.to_string()).unwrap();
        assert_eq!(pin.drift(), Some(Drift::Weakened));
        assert!(pin.drift_message(&Drift::Weakened).contains("onFailure"));

        std::fs::write(&change.file, "{\"model\": \"opus\"}").unwrap();
        assert_eq!(pin.drift(), Some(Drift::Removed));
        std::fs::remove_file(&change.file).unwrap();
        assert_eq!(pin.drift(), Some(Drift::Removed));
        std::fs::write(&change.file, "{ not json").unwrap();
        assert!(matches!(pin.drift(), Some(Drift::Unreadable(_))));
    }

    #[test]
    fn pins_are_kept_replaced_and_removed_per_agent_and_file() {
        let state = tempfile::tempdir().unwrap();
        let path = state.path().join("hookhost/pins.json");
        let request = request(state.path(), Options::default());
        let change = plan(&request, None).unwrap();
        pin(&path, Pin::of(&change, &request)).unwrap();
        pin(&path, Pin::of(&change, &request)).unwrap();
        assert_eq!(load(&path).unwrap().len(), 1);
        unpin(&path, AgentKind::ClaudeCode, &change.file).unwrap();
        assert!(load(&path).unwrap().is_empty());
        std::fs::write(&path, "[]").unwrap();
        assert!(matches!(load(&path), Err(PinError::Malformed { .. })));
        // A bridged call never fails open on pins it cannot read: that is itself drift.
        let env = Environment::from_vars(vec![("XDG_STATE_HOME".into(), state.path().into())]);
        let drift = drifted(&env, AgentKind::ClaudeCode, None, None);
        assert_eq!(drift.len(), 1);
        assert!(
            drift[0].starts_with(
                "hookhost cannot read its pinned registrations, so it blocks this call: "
            ),
            "{drift:?}"
        );
    }

    #[test]
    fn a_settings_change_that_switches_every_hook_off_is_refused() {
        let state = tempfile::tempdir().unwrap();
        let env = Environment::from_vars(vec![("XDG_STATE_HOME".into(), state.path().into())]);
        let local = state.path().join("settings.local.json");
        std::fs::write(&local, "{\"disableAllHooks\": true}").unwrap();
        let refused = refused_change(&env, AgentKind::ClaudeCode, None, Some(&local));
        assert_eq!(refused.len(), 1);
        assert!(
            refused[0].contains("now sets \"disableAllHooks\": true"),
            "{refused:?}"
        );
        std::fs::write(&local, "{\"model\": \"opus\"}").unwrap();
        assert!(refused_change(&env, AgentKind::ClaudeCode, None, Some(&local)).is_empty());
        // Codex's switch, in its TOML.
        let codex = state.path().join("config.toml");
        std::fs::write(&codex, "[features]\nhooks = false\n").unwrap();
        assert_eq!(
            switches_hooks_off(AgentKind::Codex, &std::fs::read_to_string(&codex).unwrap()),
            Some("[features] hooks = false")
        );
    }
}
