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
//!
//! A pin also holds hookhost's own files as `install` found them: the config the bridge
//! loads (any change to it denies, until `install` pins it again, which shows the change)
//! and the registered binary's digest (checked by `doctor`: a replaced binary runs none of
//! this code; docs/threats.md#r5). And a registration of hookhost that no pin covers
//! denies too, so that deleting the pins is not a way to switch their check off
//! (docs/threats.md#n8).

mod disabled_hooks;
mod dotenv;
mod extension_settings;
mod folder_trust;
mod frontmatter;
mod home_moved;
mod hook_environment;
mod hook_files;
mod hook_scripts;
mod modes;
mod own_files;
mod plugins;
pub mod refused_sessions;
mod rewriting;
mod switch_offs;
#[cfg(test)]
mod tests;

pub use disabled_hooks::disabled_hooks;
pub use folder_trust::distrusted;
pub use home_moved::home_moved;
pub use hook_environment::set_by_project_files;
pub use own_files::{ConfigPin, file_digest, short_digest};
use own_files::{digest, digest_bytes};
pub use rewriting::{OtherHook, found_at_install, unaccepted_project_hooks};
use switch_offs::{ProjectFile, read_project_files, switch_offs_in};
pub use switch_offs::{project_switch_offs, switches_hooks_off};

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Change, ChangeKind, Options, Request, Scope, WarmSocket};
use crate::bridge::{
    AgentKind, FrontmatterBounds, HookTableSchema, ModesWithoutHooks, RewritingHooks, SwitchOff,
};
use crate::env::Environment;
use crate::recent::{self, Place};

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
    /// The warm server the registration hands its calls to (`--warm`, `--warm-socket`);
    /// `None` (and a pin from before the hand-over was opt-in): none, every call runs in
    /// the bridge's own process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm: Option<WarmSocket>,
    /// The agent's timeout as written (`30 s`), for messages.
    pub timeout: String,
    /// The fail-closed setting written (`failClosed: true`), for messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_closed: Option<String>,
    /// `sha256:` of the settings file's text as `install` left it.
    pub digest: String,
    /// When it was pinned (RFC 3339 UTC).
    pub pinned_at: String,
    /// hookhost's own config as `install` found it; `None` in a pin made before configs
    /// were pinned, which the bridge refuses (docs/threats.md#r5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<ConfigPin>,
    /// `sha256:` of the registered binary when it was pinned (checked by `doctor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hookhost_digest: Option<String>,
    /// `sha256:` of the `hookhost-client` a registration with [`Pin::warm`] names, beside
    /// [`Pin::hookhost`], when it was pinned (checked by `doctor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_digest: Option<String>,
    /// The hooks other than hookhost's that may rewrite a call (docs/threats.md#r14), one
    /// digest each, found by `install` in the file it wrote and the project's settings:
    /// the user accepted them. `None` for an agent without such hooks, and in a pin made
    /// before hookhost looked for them (which accepts none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_hooks: Option<Vec<String>>,
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
    /// The registration is there, but the file gained a hook that may rewrite a call
    /// after hookhost allowed it, which `install` did not accept (docs/threats.md#r14).
    Rewriting(OtherHook),
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
            warm: request.options.warm.clone(),
            timeout: change.registration.timeout_text(),
            fail_closed: change
                .registration
                .fail_closed
                .map(|f| format!("{}: {}", f.key(), f.value())),
            digest: digest(text),
            pinned_at: crate::record::now_rfc3339(),
            config: None,
            hookhost_digest: None,
            client_digest: None,
            accepted_hooks: rewriting::accepted(
                request.agent,
                &rewriting::found_at_install(
                    request.agent,
                    &change.file,
                    text,
                    &change.registration,
                    &request.places,
                ),
            ),
        }
    }

    /// This pin with hookhost's own files as they are now: `config`, the file the bridge
    /// loads (`None` when no config file can be worked out: the bridge then refuses), and
    /// the registered binary's digest (`None` when it cannot be read: `doctor` says so).
    pub fn with_own_files(self, config: Option<ConfigPin>) -> Pin {
        let hookhost_digest = file_digest(&self.hookhost).ok();
        let client_digest = self.client().and_then(|client| file_digest(&client).ok());
        Pin {
            config,
            hookhost_digest,
            client_digest,
            ..self
        }
    }

    /// The `hookhost-client` the registration names, when it hands its calls to a warm
    /// server.
    pub fn client(&self) -> Option<PathBuf> {
        self.warm
            .as_ref()
            .map(|_| crate::warm::client::client_beside(&self.hookhost))
    }

    /// ` --scope project` for a project registration, for the commands messages name.
    pub(crate) fn scope_flag(&self) -> &'static str {
        if self.project.is_some() {
            " --scope project"
        } else {
            ""
        }
    }

    fn agent_name(&self) -> &str {
        self.agent()
            .map_or(self.agent.as_str(), |a| a.display_name())
    }

    /// Why a call that loads the config `loaded` is refused because of hookhost's own
    /// config: it is not the file pinned, it changed since, or this pin holds none (made
    /// before configs were pinned, or edited). `None`: it is the pinned config, unchanged.
    pub fn config_problem(&self, loaded: &Path, env: &Environment) -> Option<String> {
        let (flag, scope) = (&self.agent, self.scope_flag());
        let Some(pinned) = &self.config else {
            return Some(format!(
                "hookhost's pin of its registration with {} in {} holds no digest of hookhost's config (an older hookhost made it, or it was edited), so hookhost blocks this agent's calls rather than run hooks it did not pin. Check {}, then run `hookhost install {flag}{scope}` to pin it as it is now.",
                self.agent_name(),
                self.file.display(),
                loaded.display()
            ));
        };
        // The common call: the same bytes as pinned, found by their digest alone (the
        // config is parsed again only to say what changed).
        let digest_now = match crate::access::read_capped(loaded, crate::access::caps::CONFIG) {
            Ok(bytes) => Some(digest_bytes(&bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Some(format!(
                    "hookhost's config {} cannot be checked against its pin ({}), so hookhost blocks this agent's calls.",
                    loaded.display(),
                    crate::access::explain(loaded, &e)
                ));
            }
        };
        if pinned.file == loaded && pinned.digest == digest_now {
            return pinned.hook_file_problem().map(|(hook, file, what)| {
                format!(
                    "the file {} that hookhost's hook \"{hook}\" runs {what} since `hookhost install {flag}` pinned it, so hookhost blocks this agent's calls rather than run a hook it did not pin. If you made this change, check it (`hookhost check`), then run `hookhost install {flag}{scope}` to pin it as it is now; if you did not, restore the file.",
                    file.display()
                )
            });
        }
        let now = match ConfigPin::now(loaded, env) {
            Ok(now) => now,
            Err(e) => {
                return Some(format!(
                    "hookhost's config cannot be checked against its pin ({e}), so hookhost blocks this agent's calls."
                ));
            }
        };
        if pinned.same_as(&now) {
            return None;
        }
        if pinned.file != now.file {
            return Some(format!(
                "this call loads hookhost's config from {}, but `hookhost install {flag}` pinned {}, so hookhost blocks this agent's calls rather than run hooks it did not pin. If the config moved on purpose, run `hookhost install {flag}{scope}` with the environment the agent runs hookhost in (HARNESS_HOME, XDG_CONFIG_HOME) to pin it.",
                now.file.display(),
                pinned.file.display()
            ));
        }
        Some(format!(
            "hookhost's config {} changed since `hookhost install {flag}` pinned it ({} then, {} now), so hookhost blocks this agent's calls rather than run hooks it did not pin. If you made this change, check it (`hookhost check`), then run `hookhost install {flag}{scope}`, which shows the change and pins the config as it is now; if you did not, restore the file.",
            now.file.display(),
            pinned.contents(),
            now.contents()
        ))
    }

    /// Whether the registered binaries are still the ones pinned (hookhost, and the
    /// `hookhost-client` a warm registration names): `None` when they are, else what
    /// `doctor` says. `digests` keeps each binary's digest, read once per `doctor`.
    pub fn binary_problem(
        &self,
        digests: &mut std::collections::HashMap<PathBuf, Result<String, String>>,
    ) -> Option<String> {
        let mut problems: Vec<String> = self
            .file_problem(
                "hookhost binary",
                &self.hookhost,
                self.hookhost_digest.as_deref(),
                digests,
            )
            .into_iter()
            .collect();
        if let Some(client) = self.client() {
            problems.extend(self.file_problem(
                crate::warm::client::CLIENT_NAME,
                &client,
                self.client_digest.as_deref(),
                digests,
            ));
        }
        (!problems.is_empty()).then(|| problems.join("; "))
    }

    /// Whether the binary `file` (`what`, for messages) is still the one pinned as
    /// `pinned`.
    fn file_problem(
        &self,
        what: &str,
        file: &Path,
        pinned: Option<&str>,
        digests: &mut std::collections::HashMap<PathBuf, Result<String, String>>,
    ) -> Option<String> {
        let (flag, scope) = (&self.agent, self.scope_flag());
        let shown = file.display();
        let Some(pinned) = pinned else {
            return Some(format!(
                "the {what} {shown} was pinned without its digest (by an older hookhost), so a replaced binary would go unnoticed: run `hookhost install {flag}{scope}` to pin it"
            ));
        };
        let now = digests
            .entry(file.to_path_buf())
            .or_insert_with(|| file_digest(file).map_err(|e| crate::access::explain(file, &e)))
            .clone();
        match now {
            Ok(now) if now == pinned => None,
            Ok(now) => Some(format!(
                "the {what} {shown} changed since `hookhost install {flag}` pinned it ({} then, {} now): the agent runs whatever is there, and a replaced binary need not run hookhost's checks at all. If you upgraded hookhost, run `hookhost install {flag}{scope}` to pin it; if not, reinstall hookhost, then run it",
                short_digest(pinned),
                short_digest(&now)
            )),
            Err(why) => Some(format!(
                "the {what} {shown} that `hookhost install {flag}` registered cannot be read ({why}): the agent's calls of it fail. Reinstall hookhost, then run `hookhost install {flag}{scope}`"
            )),
        }
    }

    /// The choices `install` was given (budget, Claude Code's `onFailure`, the warm
    /// server).
    pub fn options(&self) -> Options {
        Options {
            budget_ms: self.budget_ms,
            claude_on_failure_block: self.claude_on_failure_block,
            warm: self.warm.clone(),
            ..Options::default()
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

    /// How the settings file differs from what was pinned, `None` when it does not;
    /// `project` is the project of the call (or of `doctor`), whose files a hook of the
    /// user's settings may run.
    pub fn drift(&self, project: Option<&Path>) -> Option<Drift> {
        let text = match crate::access::read_capped(&self.file, crate::access::caps::SETTINGS) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Drift::Removed),
            Err(e) => {
                return Some(Drift::Unreadable(crate::access::explain(&self.file, &e)));
            }
        };
        // Every bridged call checks its registration's file: a warm server's thread keeps
        // what this pin and the same bytes gave (the digest and the settings' parse were
        // ~2.5 % of a warm call, BENCHMARKS.md, twenty-first sitting).
        thread_local! {
            static DRIFTS: Place<(Pin, Vec<u8>, Option<PathBuf>), Option<Drift>> =
                const { recent::place() };
        }
        let drift = recent::or_make(
            &DRIFTS,
            text.len(),
            |(pin, kept, of)| pin == self && *kept == text && of.as_deref() == project,
            || (self.clone(), text.clone(), project.map(Path::to_path_buf)),
            || self.drift_of(text.clone(), project),
        );
        // The scripts of the hooks it accepted in this file change without the file: looked
        // at on every call, never kept (docs/threats.md#r14).
        if drift.is_none()
            && self.accepted_hooks.as_ref().is_some_and(|a| !a.is_empty())
            && let Some(agent) = self.agent()
        {
            let text = String::from_utf8_lossy(&text);
            return rewriting::unaccepted(agent, &self.file, &text, &[self], project)
                .map(Drift::Rewriting);
        }
        drift
    }

    /// How the settings file's bytes `text` differ from this pin: a function of the two
    /// and `project` alone.
    fn drift_of(&self, text: Vec<u8>, project: Option<&Path>) -> Option<Drift> {
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
        // A switch-off is named as such, whatever else changed with it: "was changed"
        // would hide the key the user has to look for.
        if let Some(key) = switches_hooks_off(agent, &text) {
            return Some(Drift::SwitchedOff(key));
        }
        if let Some(key) = self.codex_trust_withdrawn(agent, &text) {
            return Some(Drift::SwitchedOff(key));
        }
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
                ChangeKind::AlreadyInstalled => {
                    rewriting::unaccepted(agent, &self.file, &text, &[self], project)
                        .map(Drift::Rewriting)
                }
                ChangeKind::Added => Some(Drift::Removed),
                _ => Some(Drift::Weakened),
            },
            Err(e) => Some(Drift::Unreadable(e.to_string())),
        }
    }

    /// Codex keeps its trust of hookhost's handler in the user's config.toml, beside the
    /// registration `install` wrote it with (`trusted_hash`): a handler whose hash Codex
    /// no longer finds there is skipped without a word (real_agents R6), so a changed
    /// trust is a switch-off. A project's registration is trusted in the user's file,
    /// which is not its pin's: `doctor` reports that one.
    fn codex_trust_withdrawn(&self, agent: AgentKind, text: &str) -> Option<&'static str> {
        use super::codex_review::{Review, review};
        if agent != AgentKind::Codex || self.project.is_some() {
            return None;
        }
        let mut key_files = vec![self.file.clone()];
        key_files.extend(std::fs::canonicalize(&self.file).ok());
        review(text, &key_files, Some(text), &self.hookhost)
            .iter()
            .any(|handler| matches!(handler.review, Review::Modified | Review::Untrusted))
            .then_some(
                "a `trusted_hash` for hookhost's handler that is not the handler's own, or none (Codex skips such a handler as \"Modified\" or not trusted, without a word)",
            )
    }

    /// What the user is told about `drift`: what changed and what to do.
    pub fn drift_message(&self, drift: &Drift) -> String {
        if let (Drift::Rewriting(hook), Some(agent)) = (drift, self.agent()) {
            let accept_in = match &self.project {
                Some(project) => format!("--scope project in {}", project.display()),
                None => "again".to_string(),
            };
            return rewriting::refusal(agent, &self.file, hook, &accept_in);
        }
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
            Drift::Rewriting(hook) => match &hook.variable {
                Some(name) => format!("sets {name} for its hooks, which install did not see"),
                None => format!("holds a {} hook install did not see", hook.event),
            },
        };
        let scope = if self.project.is_some() {
            " --scope project"
        } else {
            ""
        };
        // A table of someone else's that the agent's schema refuses is not install's to
        // remove: the user fixes it first (install refuses until then).
        let strict = self
            .agent()
            .is_some_and(|a| matches!(a.declaration().switch_off, SwitchOff::StrictHookTables(_)));
        let fix_first = if strict && matches!(drift, Drift::SwitchedOff(_)) {
            "fix or remove that entry, then "
        } else {
            ""
        };
        format!(
            "hookhost's registration with {agent} in {} {what} since `hookhost install` pinned it, so hookhost blocks this agent's calls rather than run with its hooks switched off. If you changed it, {fix_first}run `hookhost install {}{scope}` to restore and pin it again, or `hookhost uninstall {}{scope}`.",
            self.file.display(),
            self.agent,
            self.agent
        )
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
    // Every bridged call reads the pins: a warm server's thread keeps what the same
    // bytes parsed to (~1.6 % of a warm call, BENCHMARKS.md, twenty-first sitting).
    thread_local! {
        static PARSED: Place<Vec<u8>, Vec<Pin>> = const { recent::place() };
    }
    recent::or_compute(
        &PARSED,
        bytes.len(),
        |parsed| *parsed == bytes,
        || bytes.clone(),
        || {
            serde_json::from_slice::<PinsFile>(&bytes)
                .map(|file| file.pins)
                .map_err(|e| PinError::Malformed {
                    path: path.into(),
                    why: e.to_string(),
                })
        },
    )
}

/// Replaces the pin of `pin.agent` in `pin.file` (adds it when there is none). Its
/// config pin, when it has one, is also given to every other pin of the same config file
/// (or of none, made before configs were pinned): every registration's bridge loads that
/// one file, and pinning it is the user's act of accepting it (`install` shows the change
/// first).
pub fn pin(path: &Path, pin: Pin) -> Result<(), PinError> {
    let mut pins = load(path).unwrap_or_default();
    pins.retain(|p| !(p.agent == pin.agent && p.file == pin.file));
    if let Some(config) = &pin.config {
        for other in &mut pins {
            if other.config.as_ref().is_none_or(|c| c.file == config.file) {
                other.config = Some(config.clone());
            }
        }
    }
    pins.push(pin);
    save(path, pins)
}

/// The pin of `agent` in `file`, if there is one (none when the pins cannot be read).
pub fn pinned(path: &Path, agent: AgentKind, file: &Path) -> Option<Pin> {
    load(path)
        .ok()?
        .into_iter()
        .find(|p| p.agent == agent.flag_name() && p.file == file)
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
    let pins = match load_for_call(env) {
        Ok(pins) => pins,
        Err(refusal) => return refusal,
    };
    let mut drifts = drifted_in(&pins, agent, (cwd, env), only_file);
    if only_file.is_none()
        && let Some(cwd) = cwd
    {
        drifts.extend(project_switch_offs(agent, cwd));
        drifts.extend(distrusted(agent, env, cwd));
        drifts.extend(environment_switch_offs(agent, env, cwd));
    }
    if only_file.is_none() {
        drifts.extend(home_moved(agent, env));
        drifts.extend(disabled_hooks(agent, env, cwd));
    }
    drifts
}

/// What the bridge's environment and the `.env` files `agent` loads (each read once) set
/// that switches its hooks off, one message each: a mode without hooks (Qwen Code's),
/// a variable its hooks' shell reads before their command (docs/threats.md#n11). Empty for an agent that reads neither.
pub fn environment_switch_offs(agent: AgentKind, env: &Environment, cwd: &Path) -> Vec<String> {
    let files = hook_environment::loaded_env_files(agent, env, cwd);
    switch_offs_in_env_files(agent, env, &files)
}

/// [`environment_switch_offs`] of `.env` files read already.
fn switch_offs_in_env_files(
    agent: AgentKind,
    env: &Environment,
    files: &[ProjectFile],
) -> Vec<String> {
    let mut found = modes::modes_without_hooks(agent, env, files);
    found.extend(hook_environment::in_env_files(agent, files));
    found
}

/// What makes `agent`, run from `cwd`, run no hook at all, a system registration's
/// included, which no system setting can lock (docs/system-scope.md): a mode without hooks
/// (from the environment, a `.env` file, or the `env` object or a setting of the user's or
/// a project's settings), a variable its hooks' shell reads first (from a settings `env`
/// or a `.env` file: docs/threats.md#n11), a folder it does not trust. `bridge --system` refuses a call
/// while one is there, and `doctor` names it in the system report.
pub fn no_hook_runs(agent: AgentKind, env: &Environment, cwd: &Path) -> Vec<String> {
    let mut found = environment_switch_offs(agent, env, cwd);
    found.extend(distrusted(agent, env, cwd));
    if agent.declaration().modes_without_hooks.is_none()
        && !hook_environment::has_settings_env(agent)
    {
        return found;
    }
    let user_file =
        places(env, cwd).and_then(|user| agent.declaration().settings.file(Scope::User, &user));
    let mut files: Vec<(ProjectFile, bool)> = read_project_files(agent, cwd, |_| None)
        .into_iter()
        .filter(|f| f.merged)
        .map(|f| (f, false))
        .collect();
    if let Some(file) = user_file {
        // As the pin check reads the file it is pinned in.
        let bytes = match super::read_existing(&file) {
            Ok(None) => None,
            Ok(Some(text)) => Some(Ok(text.into_bytes())),
            Err(e) => Some(Err(e.to_string())),
        };
        if let Some(bytes) = bytes {
            let user = ProjectFile {
                file,
                bytes,
                merged: true,
                registration: false,
            };
            files.push((user, true));
        }
    }
    found.extend(switch_offs::modes_in(agent, &files));
    found
}

/// Everything that refuses a tool call or a prompt of `agent` from `cwd` before any hook
/// runs: a drifted registration or a switch-off ([`drifted`]); hookhost's config `config`
/// (the file the call loads) not the one pinned, or changed since (docs/threats.md#r5);
/// and a registration of hookhost the agent reads that no pin covers, which is what
/// deleting or emptying the pins file leaves (docs/threats.md#n8). Of `(tool, session)`, `tool` is the agent's
/// name of the tool a tool call runs (a `Skill` call also has the project's subfolders
/// looked through for hooks that may rewrite a call), `session` the agent's session
/// (whose own hook files are read: Copilot CLI's session extensions). `hookhost` is the running binary,
/// to recognise a registration of it by its path as well as its name.
pub fn refused_call(
    env: &Environment,
    agent: AgentKind,
    cwd: Option<&Path>,
    called: (Option<&str>, Option<&str>),
    config: Option<&Path>,
    hookhost: &Path,
) -> Vec<String> {
    checked_call(env, agent, cwd, called, config, hookhost).refusals
}

/// What [`checked_call`] found of a call.
#[derive(Debug, Default)]
pub struct CallCheck {
    /// Why the call is refused, one line each ([`refused_call`]); empty: it may go on.
    pub refusals: Vec<String>,
    /// The variables the agent's project files, found from the call's `cwd`, hand its
    /// hooks ([`set_by_project_files`]), read with the files the check reads anyway.
    pub set_by_project: Vec<std::ffi::OsString>,
}

/// [`refused_call`], and what the project's files it read hand the agent's hooks.
///
/// One look at the file system (`paths::memoised`): the walks up the folders for settings
/// files and for folders of hook files ask of the same folders, each once, and each
/// settings file is read once (`switch_offs::each_read_once`).
pub fn checked_call(
    env: &Environment,
    agent: AgentKind,
    cwd: Option<&Path>,
    called: (Option<&str>, Option<&str>),
    config: Option<&Path>,
    hookhost: &Path,
) -> CallCheck {
    crate::paths::memoised(|| {
        switch_offs::each_read_once(|| check_call(env, agent, cwd, called, config, hookhost))
    })
}

/// [`checked_call`]'s work.
fn check_call(
    env: &Environment,
    agent: AgentKind,
    cwd: Option<&Path>,
    (tool, session): (Option<&str>, Option<&str>),
    config: Option<&Path>,
    hookhost: &Path,
) -> CallCheck {
    let pins = match load_for_call(env) {
        Ok(pins) => pins,
        Err(refusals) => {
            return CallCheck {
                refusals,
                set_by_project: Vec::new(),
            };
        }
    };
    let mut set_by_project = Vec::new();
    let mut refusals = drifted_in(&pins, agent, (cwd, env), None);
    // The project's settings files, read once for the switch-offs and the unpinned
    // registrations both (each call walks the cwd's folders once).
    let user = places(env, cwd.unwrap_or(Path::new("/")));
    let project_files = match (cwd, &user) {
        (Some(cwd), Some(user)) => read_project_files(agent, cwd, |folder| {
            let at = super::Places {
                project: folder.to_path_buf(),
                ..user.clone()
            };
            agent.declaration().settings.file(Scope::Project, &at)
        }),
        (Some(cwd), None) => read_project_files(agent, cwd, |_| None),
        (None, _) => Vec::new(),
    };
    refusals.extend(switch_offs_in(agent, &project_files));
    if let Some(cwd) = cwd {
        refusals.extend(distrusted(agent, env, cwd));
        // The `.env` files the agent loads, read once for the variables that switch its
        // hooks off and those that choose what its other hooks run.
        let env_files = hook_environment::loaded_env_files(agent, env, cwd);
        refusals.extend(switch_offs_in_env_files(agent, env, &env_files));
        refusals.extend(rewriting::in_env_files(agent, env, cwd, &env_files, &pins));
        set_by_project =
            hook_environment::project_variables(agent, env, &project_files, &env_files);
    }
    refusals.extend(home_moved(agent, env));
    refusals.extend(disabled_hooks(agent, env, cwd));
    let covering: Vec<&Pin> = pins
        .iter()
        .filter(|p| p.agent == agent.flag_name() && p.covers(cwd))
        .collect();
    // A payload that names no folder: the agent runs its hook in its session's folder,
    // and the user's files hold hooks whatever the folder.
    let here = cwd
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok());
    if let Some(here) = &here {
        refusals.extend(rewriting::in_call_files(
            env,
            agent,
            here,
            (tool, session),
            &project_files,
            &pins,
        ));
    }
    // One message per config problem: each covering pin holds the same config pin.
    if let Some(config) = config {
        let mut seen = Vec::new();
        for problem in covering
            .iter()
            .filter_map(|p| p.config_problem(config, env))
        {
            if !seen.contains(&problem) {
                seen.push(problem);
            }
        }
        refusals.extend(seen);
    }
    if let Some(user) = &user {
        refusals.extend(unpinned_registrations(
            env,
            agent,
            user,
            &project_files,
            &pins,
            hookhost,
        ));
    }
    CallCheck {
        refusals,
        set_by_project,
    }
}

/// The pins, for a bridged call: none when hookhost has no state folder; a refusal when
/// they cannot be read (pins never fail open).
fn load_for_call(env: &Environment) -> Result<Vec<Pin>, Vec<String>> {
    match pins_path(env).and_then(|path| load(&path)) {
        Ok(pins) => Ok(pins),
        Err(PinError::NoStateFolder) => Ok(Vec::new()),
        Err(e) => Err(vec![format!(
            "hookhost cannot read its pinned registrations, so it blocks this call: {e}"
        )]),
    }
}

fn drifted_in(
    pins: &[Pin],
    agent: AgentKind,
    (cwd, env): (Option<&Path>, &Environment),
    only_file: Option<&Path>,
) -> Vec<String> {
    let same_file = |pinned: &Path| only_file.is_none_or(|file| same_path(file, pinned));
    let project = cwd.map(|cwd| rewriting::call_project(agent, env, cwd));
    pins.iter()
        .filter(|p| p.agent == agent.flag_name() && p.covers(cwd) && same_file(&p.file))
        .filter_map(|p| p.drift(project.as_deref()).map(|d| p.drift_message(&d)))
        .collect()
}

/// Whether two paths name one file: equal, or equal once links are resolved.
pub fn same_path(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// The folders `install` would find `agent`'s settings in for a call from `project`:
/// the home and the agents' own folder variables of `env` (`CODEX_HOME`, …).
fn places(env: &Environment, project: &Path) -> Option<super::Places> {
    Some(super::Places::from_environment(
        env.home()?,
        project,
        |name| env.get(name).map(Into::into),
    ))
}

/// A message per settings file that `agent` reads for a call from `cwd` (its user file,
/// and a project's in `cwd` or a folder above it) holding a registration of hookhost that
/// no pin covers. The bridge is running, so a registration exists; one with no pin is
/// what deleting the pins leaves, and would let its weakening pass unseen
/// (docs/threats.md#n8). Only files that exist are read, and a pinned one is skipped, so
/// the common call reads nothing more.
fn unpinned_registrations(
    env: &Environment,
    agent: AgentKind,
    user: &super::Places,
    project_files: &[ProjectFile],
    pins: &[Pin],
    hookhost: &Path,
) -> Vec<String> {
    let settings = &agent.declaration().settings;
    // The user's file, then the project's (an agent with no project scope, Kimi Code,
    // has none among them). A file that is there but that hookhost does not read is kept
    // with why, as `read_project_files` keeps it.
    let user_file = settings.file(Scope::User, user).and_then(|file| {
        let bytes = switch_offs::read_settings(&file, |_| true)?;
        Some((Scope::User, file, bytes))
    });
    let files = user_file.into_iter().chain(
        project_files
            .iter()
            .filter(|f| f.registration)
            .map(|f| (Scope::Project, f.file.clone(), f.bytes.clone())),
    );
    let Ok(pins_file) = pins_path(env) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (scope, file, bytes) in files {
        if found.iter().any(|(f, _)| f == &file)
            || pins
                .iter()
                .any(|p| p.agent == agent.flag_name() && same_path(&p.file, &file))
        {
            continue;
        }
        let request = Request {
            action: super::Action::Install,
            agent,
            scope,
            places: user.clone(),
            hookhost: hookhost.to_path_buf(),
            options: Options::default(),
        };
        // Whether the file registers hookhost, or why hookhost cannot tell. It is read as
        // the agents read text (not UTF-8 is no reason to skip it); one that the plan
        // refuses (malformed to serde_json, too large written back) but that names
        // hookhost's binary may hold a registration the agent reads (docs/threats.md#b8).
        // With no pin of this agent's at all (the pins removed), any such file may be the
        // one the agent calls hookhost from.
        let agent_pinned = pins.iter().any(|p| p.agent == agent.flag_name());
        let registered = bytes.and_then(|bytes| {
            let text = String::from_utf8_lossy(&bytes);
            match super::plan_file(&request, &file, Some(&text)) {
                Ok(change) => Ok(change.outcome != ChangeKind::Added),
                Err(e) if !agent_pinned || names_binary(&text, hookhost) => Err(e.to_string()),
                Err(_) => Ok(false),
            }
        });
        let scope = if scope == Scope::Project {
            " --scope project"
        } else {
            ""
        };
        let message = match registered {
            Ok(false) => continue,
            Ok(true) => format!(
                "hookhost is registered with {} in {}, but no pin covers it ({} is missing or holds no pin for it), so hookhost blocks this agent's calls: without its pin, a change to the registration or to hookhost's config would go unnoticed. If you did not remove the pins, something did: check {} and hookhost's config, then run `hookhost install {}{scope}` to pin them again.",
                agent.display_name(),
                file.display(),
                pins_file.display(),
                file.display(),
                agent.flag_name()
            ),
            Err(why) => format!(
                "hookhost cannot tell whether {} registers it with {} ({why}), and no pin covers that file ({} is missing or holds no pin for it), so hookhost blocks this agent's calls: the agent may call hookhost from it, and without a pin a change to that registration or to hookhost's config would go unnoticed. If you did not remove the pins, something did: mend {} and check hookhost's config, then run `hookhost install {}{scope}` to pin them again.",
                file.display(),
                agent.display_name(),
                pins_file.display(),
                file.display(),
                agent.flag_name()
            ),
        };
        found.push((file, message));
    }
    found.into_iter().map(|(_, message)| message).collect()
}

/// Whether a settings `text` names hookhost as a registration would: the running
/// binary's path (`hookhost-client` beside it included) or the name `hookhost`, in any
/// case, as written or escaped in a JSON or TOML string (`\\`, `\u0068`).
fn names_binary(text: &str, hookhost: &Path) -> bool {
    let text = with_unicode_escapes_decoded(text).to_lowercase();
    let path = hookhost.to_string_lossy().to_lowercase();
    let escaped = path.replace('\\', "\\\\");
    text.contains("hookhost") || text.contains(&path) || text.contains(&escaped)
}

/// `text` with its `\uXXXX` and `\UXXXXXXXX` escapes (JSON's and TOML's) read as the
/// characters they name; anything else as it is.
fn with_unicode_escapes_decoded(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("\\u") && !text.contains("\\U") {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let digits = match rest.as_bytes().get(1) {
            Some(b'u') => 4,
            Some(b'U') => 8,
            _ => 0,
        };
        let decoded = rest
            .get(2..2 + digits)
            .filter(|hex| digits > 0 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .and_then(char::from_u32);
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[2 + digits..];
            }
            None => {
                out.push('\\');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out.into()
}

/// Why a settings change the agent reports (Claude Code's `ConfigChange`, naming `file`
/// when it can) is refused: it drifted a pinned registration of `agent`; no pin covers
/// `agent` at all, though the agent called hookhost's hook (the pins removed); or `file`
/// now turns every hook off (any settings file can, not only the one hookhost is pinned
/// in). Empty: no objection.
pub fn refused_change(
    env: &Environment,
    agent: AgentKind,
    cwd: Option<&Path>,
    file: Option<&Path>,
) -> Vec<String> {
    let pins = match load_for_call(env) {
        Ok(pins) => pins,
        Err(refusal) => return refusal,
    };
    let drift = drifted_in(&pins, agent, (cwd, env), file);
    if !drift.is_empty() {
        return drift;
    }
    // The agent called hookhost's own settings-change hook, so hookhost is registered in
    // what this session loaded: no pin for it at all is the pins removed, perhaps with the
    // registration in the same command, which no later call would see (docs/threats.md#n8).
    let mut refusals = Vec::new();
    if let Ok(pins_file) = pins_path(env)
        && !pins
            .iter()
            .any(|p| p.agent == agent.flag_name() && p.covers(cwd))
    {
        let changed = file.map_or("the agent's settings".to_string(), |f| {
            f.display().to_string()
        });
        refusals.push(format!(
            "{} called hookhost's settings-change hook, so hookhost is registered, but no pin covers it ({} is missing or holds no pin for it); hookhost refuses this change to {changed}, so this session keeps hookhost's hooks. If you ran `hookhost uninstall {}`, they go with the next session; if not, something removed the pins: check {changed}, then run `hookhost install {}` to pin the registration again.",
            agent.display_name(),
            pins_file.display(),
            agent.flag_name(),
            agent.flag_name()
        ));
    }
    let switched_off = file.and_then(|file| {
        let examined = match crate::access::read_capped(file, crate::access::caps::SETTINGS) {
            Ok(bytes) => switch_offs::examine(agent, &String::from_utf8_lossy(&bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => Err(switch_offs::unread(&e)),
        };
        match examined {
            Ok(key) => Some(format!(
                "{file} now sets {key}, which would switch off every hook, hookhost's among them; hookhost refuses this change. Remove it from {file} if you did not make it.",
                key = key?,
                file = file.display()
            )),
            // A change the agent reports may be of another kind of file (Claude Code's
            // `skills`): only a settings file hookhost cannot read is refused.
            Err(why) => switch_offs::is_settings_file(agent, file)
                .then(|| switch_offs::unreadable(agent, file, &why)),
        }
    });
    refusals.extend(switched_off);
    // A hook that may rewrite a call, new in a file no pin covers (one a pin covers is its
    // drift, above): refused now, so that this session keeps the settings it had.
    if let Some(file) = file
        && agent.declaration().rewriting_hooks.is_some()
        && switch_offs::is_settings_file(agent, file)
    {
        let covering: Vec<&Pin> = pins
            .iter()
            .filter(|p| p.agent == agent.flag_name() && p.covers(cwd))
            .collect();
        // The administrator's managed file is not the agent's to write.
        let system = places(env, cwd.unwrap_or(Path::new("/")))
            .and_then(|p| agent.declaration().settings.file(Scope::System, &p));
        if !covering.iter().any(|p| same_path(&p.file, file))
            && !system.is_some_and(|s| same_path(&s, file))
            && let Ok(bytes) = crate::access::read_capped(file, crate::access::caps::SETTINGS)
        {
            let files = [switch_offs::ProjectFile {
                file: file.to_path_buf(),
                bytes: Ok(bytes),
                merged: true,
                registration: false,
            }];
            let project = cwd.map(|cwd| rewriting::call_project(agent, env, cwd));
            refusals.extend(rewriting::in_files(
                agent,
                &files,
                &covering,
                project.as_deref(),
            ));
        }
    }
    refusals
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
