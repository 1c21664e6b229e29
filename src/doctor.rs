//! `hookhost doctor`: is hookhost doing its job on this machine?
//!
//! Per agent found here (its program on `PATH`, or its settings folder in the home): is
//! the bridge registered (user and project settings), pinned, and unchanged since it was
//! pinned ([`crate::bridge::install::pin`]), and what the agent does when hookhost cannot
//! answer. Then: does the box run, can the WASM compile cache be written, and do the
//! hash chains of the most recent session records hold ([`crate::record::chain`]).
//!
//! Healthy means nothing found calls for the user: no registration drifted, none left
//! unpinned, the box and the cache work, no record's chain breaks. An agent that is
//! installed nowhere is reported, not unhealthy: that is the user's choice.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::bridge::AgentKind;
use crate::bridge::install::{self, Action, Options, Outcome, Places, Request, Scope, pin};
use crate::env::Environment;

/// How many of the most recent session records `doctor` verifies.
pub const RECORDS_CHECKED: usize = 20;

/// One check's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Whether it passed.
    pub ok: bool,
    /// What was found, one line.
    pub detail: String,
}

/// A registration's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegistrationState {
    /// Registered, pinned, unchanged since.
    Pinned,
    /// Pinned, and changed since (removed, weakened, switched off, unreadable).
    Drifted,
    /// Registered but not pinned: a change to it would go unnoticed.
    NotPinned,
    /// Not registered in this file.
    NotInstalled,
}

impl RegistrationState {
    fn name(self) -> &'static str {
        match self {
            RegistrationState::Pinned => "pinned",
            RegistrationState::Drifted => "drifted",
            RegistrationState::NotPinned => "not pinned",
            RegistrationState::NotInstalled => "not installed",
        }
    }
}

/// One settings file of one agent.
#[derive(Debug, Clone)]
pub struct RegistrationReport {
    /// User or project.
    pub scope: Scope,
    /// The settings file.
    pub file: PathBuf,
    /// Its state.
    pub state: RegistrationState,
    /// What was found, one line.
    pub detail: String,
}

/// One agent.
#[derive(Debug, Clone)]
pub struct AgentReport {
    /// The agent.
    pub agent: AgentKind,
    /// How it was found (`claude on PATH`, `~/.claude exists`); `None`: not found here.
    pub found: Option<String>,
    /// Its settings files, user then project.
    pub registrations: Vec<RegistrationReport>,
    /// What the agent does with a call when hookhost itself cannot answer.
    pub when_hookhost_cannot_answer: String,
}

/// The session records checked.
#[derive(Debug, Clone, Default)]
pub struct RecordsReport {
    /// How many were verified.
    pub checked: usize,
    /// Records whose chain breaks, with where.
    pub broken: Vec<(PathBuf, String)>,
    /// Records written before the chain (nothing to verify).
    pub unchained: usize,
}

/// Everything `doctor` found.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every agent the bridge answers.
    pub agents: Vec<AgentReport>,
    /// The pins file could not be read.
    pub pins_problem: Option<String>,
    /// Whether the box runs.
    pub sandbox: Check,
    /// Whether the WASM compile cache can be written.
    pub wasm_cache: Check,
    /// The most recent session records.
    pub records: RecordsReport,
}

impl Report {
    /// Whether nothing calls for the user.
    pub fn healthy(&self) -> bool {
        let registrations_ok = self.agents.iter().all(|a| {
            a.registrations.iter().all(|r| {
                matches!(
                    r.state,
                    RegistrationState::Pinned | RegistrationState::NotInstalled
                )
            })
        });
        registrations_ok
            && self.pins_problem.is_none()
            && self.sandbox.ok
            && self.wasm_cache.ok
            && self.records.broken.is_empty()
    }

    /// The report as text, one line each.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for agent in &self.agents {
            let name = agent.agent.display_name();
            let found = agent
                .found
                .as_deref()
                .unwrap_or("not found on this machine");
            lines.push(format!("{name}: {found}"));
            for r in &agent.registrations {
                let mark = match r.state {
                    RegistrationState::Pinned => "✓",
                    RegistrationState::NotInstalled => "-",
                    _ => "✗",
                };
                lines.push(format!(
                    "  {mark} {} scope, {}: {}",
                    r.scope,
                    r.file.display(),
                    r.detail
                ));
            }
            if agent
                .registrations
                .iter()
                .any(|r| r.state != RegistrationState::NotInstalled)
            {
                lines.push(format!(
                    "  when hookhost cannot answer: {}",
                    agent.when_hookhost_cannot_answer
                ));
            }
        }
        if let Some(problem) = &self.pins_problem {
            lines.push(format!("✗ pins: {problem}"));
        }
        let check = |what: &str, c: &Check| format!("{} {what}: {}", mark(c.ok), c.detail);
        lines.push(check("box", &self.sandbox));
        lines.push(check("WASM cache", &self.wasm_cache));
        let records = &self.records;
        lines.push(format!(
            "{} session records: {} most recent checked, {} broken, {} written before the chain",
            mark(records.broken.is_empty()),
            records.checked,
            records.broken.len(),
            records.unchained
        ));
        for (file, why) in &records.broken {
            lines.push(format!(
                "  ✗ {}: the hash chain breaks at {why}",
                file.display()
            ));
        }
        lines.push(if self.healthy() {
            "healthy".to_string()
        } else {
            "not healthy: see the lines marked ✗".to_string()
        });
        lines
    }

    /// The report as JSON, for scripts.
    pub fn to_json(&self) -> Value {
        let agents: Vec<Value> = self
            .agents
            .iter()
            .map(|a| {
                json!({
                    "agent": a.agent.flag_name(),
                    "found": a.found,
                    "registrations": a.registrations.iter().map(|r| json!({
                        "scope": r.scope.name(),
                        "file": r.file,
                        "state": r.state.name(),
                        "detail": r.detail,
                    })).collect::<Vec<_>>(),
                    "when_hookhost_cannot_answer": a.when_hookhost_cannot_answer,
                })
            })
            .collect();
        json!({
            "healthy": self.healthy(),
            "agents": agents,
            "pins_problem": self.pins_problem,
            "box": {"ok": self.sandbox.ok, "detail": self.sandbox.detail},
            "wasm_cache": {"ok": self.wasm_cache.ok, "detail": self.wasm_cache.detail},
            "records": {
                "checked": self.records.checked,
                "unchained": self.records.unchained,
                "broken": self.records.broken.iter().map(|(file, why)| json!({
                    "file": file, "where": why,
                })).collect::<Vec<_>>(),
            },
        })
    }
}

fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

/// Examines this machine for `project` (the project-scope settings), with `hookhost` the
/// binary a registration should name.
pub fn examine(env: &Environment, project: &Path, hookhost: &Path) -> Report {
    let home = env.home().unwrap_or_default();
    let places = Places {
        codex_home: env
            .get("CODEX_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        copilot_home: env
            .get("COPILOT_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        kimi_code_home: env
            .get("KIMI_CODE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        ..Places::new(&home, project)
    };
    let (pins, pins_problem) = match pin::pins_path(env).and_then(|path| pin::load(&path)) {
        Ok(pins) => (pins, None),
        Err(pin::PinError::NoStateFolder) => (Vec::new(), None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let agents = AgentKind::ALL
        .into_iter()
        .map(|agent| agent_report(env, agent, &places, &pins, hookhost))
        .collect();
    Report {
        agents,
        pins_problem,
        sandbox: sandbox_check(env, project),
        wasm_cache: cache_check(env),
        records: records_check(env),
    }
}

/// The program each agent's command line is.
fn program(agent: AgentKind) -> &'static str {
    match agent {
        AgentKind::ClaudeCode => "claude",
        AgentKind::Codex => "codex",
        AgentKind::Gemini => "gemini",
        AgentKind::Cursor => "cursor-agent",
        AgentKind::Copilot => "copilot",
        AgentKind::Qwen => "qwen",
        AgentKind::Kimi => "kimi",
        AgentKind::Kiro => "kiro-cli",
    }
}

fn agent_report(
    env: &Environment,
    agent: AgentKind,
    places: &Places,
    pins: &[pin::Pin],
    hookhost: &Path,
) -> AgentReport {
    let name = program(agent);
    let on_path = env.get("PATH").and_then(|path| {
        std::env::split_paths(path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    });
    let user_file = install::settings_file(agent, Scope::User, places);
    let settings_folder = user_file
        .ancestors()
        .find(|dir| dir.parent() == Some(places.home.as_path()))
        .filter(|dir| dir.is_dir())
        .map(Path::to_path_buf);
    let found = match (on_path, settings_folder) {
        (Some(path), _) => Some(format!("{name} on PATH ({})", path.display())),
        (None, Some(folder)) => Some(format!("{} exists", folder.display())),
        (None, None) => None,
    };
    let files: Vec<(Scope, PathBuf, Option<&pin::Pin>)> = [Scope::User, Scope::Project]
        .into_iter()
        .map(|scope| {
            let file = install::settings_file(agent, scope, places);
            let pinned = pins
                .iter()
                .find(|p| p.agent == agent.flag_name() && p.file == file);
            (scope, file, pinned)
        })
        .collect();
    // What the agent does when hookhost cannot answer follows what was installed (the
    // project's registration where there is one).
    let options = files
        .iter()
        .rev()
        .find_map(|(_, _, pinned)| pinned.map(|p| p.options()))
        .unwrap_or_default();
    let registrations = files
        .into_iter()
        .map(|(scope, file, pinned)| {
            registration_report(agent, scope, file, pinned, places, hookhost)
        })
        .collect();
    AgentReport {
        agent,
        found,
        registrations,
        when_hookhost_cannot_answer: agent.when_hookhost_cannot_answer(&options).to_string(),
    }
}

fn registration_report(
    agent: AgentKind,
    scope: Scope,
    file: PathBuf,
    pinned: Option<&pin::Pin>,
    places: &Places,
    hookhost: &Path,
) -> RegistrationReport {
    let report = |state, detail: String| RegistrationReport {
        scope,
        file: file.clone(),
        state,
        detail,
    };
    if let Some(pin) = pinned {
        return match pin.drift() {
            None => report(
                RegistrationState::Pinned,
                format!("installed, pinned {}, unchanged", pin.pinned_at),
            ),
            Some(drift) => report(RegistrationState::Drifted, pin.drift_message(&drift)),
        };
    }
    let existing = match install::read_existing(&file) {
        Ok(Some(text)) => text,
        Ok(None) => return report(RegistrationState::NotInstalled, "no settings file".into()),
        Err(e) => return report(RegistrationState::NotPinned, e.to_string()),
    };
    let request = Request {
        action: Action::Install,
        agent,
        scope,
        places: places.clone(),
        hookhost: hookhost.to_path_buf(),
        options: Options::default(),
    };
    match install::plan(&request, Some(&existing)) {
        Ok(change) if change.outcome == Outcome::Added => report(
            RegistrationState::NotInstalled,
            "hookhost is not registered here".into(),
        ),
        Ok(_) => report(
            RegistrationState::NotPinned,
            format!(
                "hookhost is registered but not pinned, so a change to it would go unnoticed: run `hookhost install {}{}`",
                agent.flag_name(),
                if scope == Scope::Project {
                    " --scope project"
                } else {
                    ""
                }
            ),
        ),
        Err(e) => report(RegistrationState::NotPinned, e.to_string()),
    }
}

fn sandbox_check(env: &Environment, project: &Path) -> Check {
    let override_path = env.get(crate::sandbox::PROGRAM_ENV).map(PathBuf::from);
    match crate::sandbox::probe(override_path.as_deref(), env.get("PATH"), project) {
        Ok(info) => Check {
            ok: true,
            detail: format!("{} runs ({})", crate::sandbox::NAME, info.path.display()),
        },
        // Where the OS has no box at all (Windows), its absence is a fact, not a fault.
        Err(why) => Check {
            ok: !crate::sandbox::EXISTS_ON_THIS_OS,
            detail: format!("{} {}", why.reason, why.advice),
        },
    }
}

fn cache_check(env: &Environment) -> Check {
    let Some(dir) = env.wasm_cache_dir() else {
        return Check {
            ok: false,
            detail: "no cache folder: neither XDG_CACHE_HOME nor HOME is set".into(),
        };
    };
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    let written = crate::record::write::create_private_dirs(&dir)
        .and_then(|_| std::fs::write(&probe, b"probe"))
        .and_then(|_| std::fs::remove_file(&probe));
    match written {
        Ok(()) => {
            let entries = std::fs::read_dir(&dir).map_or(0, |d| d.count());
            Check {
                ok: true,
                detail: format!("{} is writable ({entries} entries)", dir.display()),
            }
        }
        Err(e) => Check {
            ok: false,
            detail: format!("{}: {}", dir.display(), crate::access::explain(&dir, &e)),
        },
    }
}

fn records_check(env: &Environment) -> RecordsReport {
    let Some(dir) = env.record_dir() else {
        return RecordsReport::default();
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    let mut folders = vec![dir];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                folders.push(path);
            } else if meta.is_file() && path.extension().is_some_and(|e| e == "jsonl") {
                files.push((meta.modified().unwrap_or(std::time::UNIX_EPOCH), path));
            }
        }
    }
    files.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    let mut report = RecordsReport::default();
    for (_, file) in files.into_iter().take(RECORDS_CHECKED) {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        report.checked += 1;
        match crate::record::chain::verify(&bytes, 0) {
            Ok(verified) if verified.chained_from.is_none() && verified.lines > 1 => {
                report.unchained += 1
            }
            Ok(_) => {}
            Err(broken) => report.broken.push((file, broken.to_string())),
        }
    }
    report
}
