//! `hookhost doctor`: is hookhost doing its job on this machine?
//!
//! Per agent found here (its program on `PATH`, or its settings folder in the home): is
//! the bridge registered (user and project settings), pinned, and unchanged since it was
//! pinned ([`crate::bridge::install::pin`]), whether hookhost's own files its pins hold (the
//! config, the registered binary: only `doctor` can check the binary, since a replaced one
//! runs none of hookhost's code; docs/threats.md#r5) are as pinned, which of the project's
//! settings files switch its hooks off, and what the agent does when hookhost cannot
//! answer. Then: does the box run, can the WASM compile cache be written, and do the
//! hash chains of the most recent session records hold ([`crate::record::chain`]).
//!
//! Then the config: where it is, how many hooks it has, and which hook programs (or `#!`
//! interpreters) have other names (hard links) and whether the path guard minds
//! ([`crate::guard::hard_link_notes`], with the writable folders of a session without a
//! sandbox, the stricter view).
//!
//! Healthy means nothing found calls for the user: hookhost is registered with at least
//! one agent and has a config file that loads, no registration drifted, none left
//! unpinned, its pinned config and binary are as pinned, no project switch-off, no hook program has a name the agent could change it through, the box and
//! the cache work, no record's chain breaks. What a newcomer still has to do is said with
//! the command that does it ([`Report::missing`]). One agent installed nowhere while
//! another calls hookhost is reported (with its `hookhost install` line), not unhealthy:
//! that is the user's choice.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::bridge::AgentKind;
use crate::bridge::install::{self, Action, ChangeKind, Options, Places, Request, Scope, pin};
use crate::config::Config;
use crate::env::Environment;
use crate::guard::{self, GuardContext, HookToGuard, LinkNote};

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
    /// Registered, but the agent skips it: in Codex's `/hooks` review hookhost's handler is
    /// not trusted, trusted as it was before, or switched off (real_agents R6).
    NotRun,
}

impl RegistrationState {
    fn name(self) -> &'static str {
        match self {
            RegistrationState::Pinned => "pinned",
            RegistrationState::Drifted => "drifted",
            RegistrationState::NotPinned => "not pinned",
            RegistrationState::NotInstalled => "not installed",
            RegistrationState::NotRun => "not run by the agent",
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
    /// Found here but registered in none of its settings files: the command that
    /// registers hookhost (`hookhost install codex`).
    pub install: Option<String>,
    /// hookhost's own files its pins hold (the config, the registered binary), each
    /// checked against its pin.
    pub own_files: Vec<OwnFile>,
    /// For an agent hookhost is registered with: the project's settings files that switch
    /// its hooks off, one message each ([`pin::project_switch_offs`]).
    pub switch_offs: Vec<String>,
}

/// One of hookhost's own files, as a pin holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnFile {
    /// `config` or `binary`.
    pub what: &'static str,
    /// The file.
    pub file: PathBuf,
    /// Whether it is as pinned.
    pub ok: bool,
    /// What was found, one line.
    pub detail: String,
}

/// What `doctor` is told on the command line about the sessions it stands for.
#[derive(Debug, Clone, Default)]
pub struct Given {
    /// `--config`: the config file named (it must exist), else the default one.
    pub config: Option<PathBuf>,
    /// `--writable` folders.
    pub writable: Vec<PathBuf>,
    /// `--private-tmp`.
    pub private_tmp: Option<PathBuf>,
}

/// The config file's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigState {
    /// It loads and has hooks.
    Hooks,
    /// It loads and has no `[[hooks]]`: every call goes ahead.
    NoHooks,
    /// There is none (or no place for one can be worked out): no hooks.
    Missing,
    /// It cannot be read or does not load: every session refuses to start.
    Unreadable,
}

impl ConfigState {
    fn name(self) -> &'static str {
        match self {
            ConfigState::Hooks => "ok",
            ConfigState::NoHooks => "no hooks",
            ConfigState::Missing => "missing",
            ConfigState::Unreadable => "unreadable",
        }
    }
}

/// The config file.
#[derive(Debug, Clone)]
pub struct ConfigReport {
    /// Where it is, or would be (`None`: no home nor config variable to work it out).
    pub file: Option<PathBuf>,
    /// Its state.
    pub state: ConfigState,
    /// How many hooks it has.
    pub hooks: usize,
    /// What was found, one line.
    pub detail: String,
}

/// Something hookhost needs before it does its job here, and how to give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// `agent` or `config`.
    pub what: &'static str,
    /// What is missing and what that means, one line.
    pub detail: String,
    /// The commands (or the step) that fix it, one each.
    pub fixes: Vec<String>,
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
    /// The config file.
    pub config: ConfigReport,
    /// The hook programs (and `#!` interpreters) with more than one name.
    pub hook_files: Vec<LinkNote>,
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
        let own_files_ok = self
            .agents
            .iter()
            .all(|a| a.own_files.iter().all(|f| f.ok) && a.switch_offs.is_empty());
        registrations_ok
            && own_files_ok
            && self.missing().is_empty()
            && self.config.state != ConfigState::Unreadable
            && !self.hook_files.iter().any(|n| n.verdict.matters())
            && self.pins_problem.is_none()
            && self.sandbox.ok
            && self.wasm_cache.ok
            && self.records.broken.is_empty()
    }

    /// What hookhost still needs to do its job here: an agent to call it (`hookhost
    /// install AGENT` for each agent found), and a config file (where it goes).
    pub fn missing(&self) -> Vec<Missing> {
        let mut missing = Vec::new();
        let registered = self.agents.iter().any(|a| {
            a.registrations
                .iter()
                .any(|r| r.state != RegistrationState::NotInstalled)
        });
        if !registered {
            let fixes: Vec<String> = self
                .agents
                .iter()
                .filter_map(|a| a.install.clone())
                .collect();
            let detail = if fixes.is_empty() {
                let programs: Vec<&str> = AgentKind::ALL
                    .into_iter()
                    .map(|a| a.declaration().program)
                    .collect();
                format!(
                    "hookhost is registered with no agent, so no agent asks it anything; and none of the agents it answers was found here (on PATH: {}; nor their settings folders). Install one, then run hookhost install AGENT",
                    programs.join(", ")
                )
            } else {
                "hookhost is registered with no agent, so no agent asks it anything".to_string()
            };
            missing.push(Missing {
                what: "agent",
                detail,
                fixes,
            });
        }
        if self.config.state == ConfigState::Missing {
            let fixes = match &self.config.file {
                Some(file) => vec![format!(
                    "write [[hooks]] in {} (README: \"Using it\"), then run hookhost check",
                    file.display()
                )],
                None => vec![
                    "set HOME (or HARNESS_HOME), or name a config with --config FILE".to_string(),
                ],
            };
            missing.push(Missing {
                what: "config",
                detail: self.config.detail.clone(),
                fixes,
            });
        }
        missing
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
            for own in &agent.own_files {
                lines.push(format!(
                    "  {} {} {}: {}",
                    mark(own.ok),
                    own.what,
                    own.file.display(),
                    own.detail
                ));
            }
            for switch_off in &agent.switch_offs {
                lines.push(format!("  ✗ {switch_off}"));
            }
            if let Some(command) = &agent.install {
                lines.push(format!("  to use hookhost with it: {command}"));
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
        lines.extend(unmapped_tool_lines());
        if let Some(problem) = &self.pins_problem {
            lines.push(format!("✗ pins: {problem}"));
        }
        let missing = self.missing();
        if let Some(agents) = missing.iter().find(|m| m.what == "agent") {
            lines.push(with_fixes(
                &format!("✗ agents: {}", agents.detail),
                &agents.fixes,
            ));
        }
        let config = &self.config;
        let shown = config
            .file
            .as_ref()
            .map(|f| format!(" {}", f.display()))
            .unwrap_or_default();
        lines.push(match config.state {
            ConfigState::Hooks => format!("✓ config{shown}: {}", config.detail),
            ConfigState::NoHooks => format!("- config{shown}: {}", config.detail),
            ConfigState::Unreadable => format!("✗ config{shown}: {}", config.detail),
            ConfigState::Missing => {
                let fixes = missing
                    .iter()
                    .find(|m| m.what == "config")
                    .map(|m| m.fixes.as_slice())
                    .unwrap_or_default();
                with_fixes(&format!("✗ config: {}", config.detail), fixes)
            }
        });
        for note in &self.hook_files {
            let ok = !note.verdict.matters();
            lines.push(format!(
                "{} hook {}: {}",
                mark(ok),
                note.hook,
                link_line(note)
            ));
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
                    "install": a.install,
                    "own_files": a.own_files.iter().map(|f| json!({
                        "what": f.what,
                        "file": f.file,
                        "ok": f.ok,
                        "detail": f.detail,
                    })).collect::<Vec<_>>(),
                    "switch_offs": a.switch_offs,
                })
            })
            .collect();
        json!({
            "healthy": self.healthy(),
            "agents": agents,
            "pins_problem": self.pins_problem,
            "box": {"ok": self.sandbox.ok, "detail": self.sandbox.detail},
            "wasm_cache": {"ok": self.wasm_cache.ok, "detail": self.wasm_cache.detail},
            "missing": self.missing().iter().map(|m| json!({
                "what": m.what, "detail": m.detail, "fix": m.fixes,
            })).collect::<Vec<_>>(),
            "config": {
                "file": self.config.file,
                "state": self.config.state.name(),
                "hooks": self.config.hooks,
                "detail": self.config.detail,
            },
            "hook_files": self.hook_files.iter().map(|n| json!({
                "hook": n.hook,
                "program": n.subject,
                "path": n.path,
                "names": n.links,
                "matters": n.verdict.matters(),
                "detail": link_line(n),
            })).collect::<Vec<_>>(),
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

/// One line per agent naming the tools it offers that have no hookhost name: a hook
/// with `tools = [...]` never runs for them (docs/agents.md#tools-with-no-hookhost-name).
fn unmapped_tool_lines() -> Vec<String> {
    crate::bridge::tools::unmapped_lines()
        .into_iter()
        .map(|line| format!("- tools: {line}"))
        .collect()
}

fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

/// `PROGRAM has N names (hard links)`, then whether that matters and why.
fn link_line(note: &LinkNote) -> String {
    let sep = if note.verdict.matters() { "," } else { ";" };
    format!(
        "{} has {} names (hard links){sep} {}",
        note.subject, note.links, note.verdict
    )
}

/// `line`, then `. To fix it, run: A, or B` (or `. To fix it: STEP`), when there are fixes.
fn with_fixes(line: &str, fixes: &[String]) -> String {
    match fixes {
        [] => line.to_string(),
        [fix] if !fix.starts_with("hookhost ") => format!("{line}. To fix it: {fix}"),
        _ => format!("{line}. To fix it, run: {}", fixes.join(", or ")),
    }
}

/// Examines this machine for `project` (the project-scope settings), with `hookhost` the
/// binary a registration should name, and the default config.
pub fn examine(env: &Environment, project: &Path, hookhost: &Path) -> Report {
    examine_with(env, project, hookhost, &Given::default())
}

/// [`examine`], with what the command line gave (`--config`, `--writable`, …).
pub fn examine_with(env: &Environment, project: &Path, hookhost: &Path, given: &Given) -> Report {
    let home = env.home().unwrap_or_default();
    let places = Places::from_environment(&home, project, |name| env.get(name).map(Into::into));
    let (pins, pins_problem) = match pin::pins_path(env).and_then(|path| pin::load(&path)) {
        Ok(pins) => (pins, None),
        Err(pin::PinError::NoStateFolder) => (Vec::new(), None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let mut agents: Vec<AgentReport> = AgentKind::ALL
        .into_iter()
        .map(|agent| agent_report(env, agent, &places, &pins, hookhost))
        .collect();
    let mut digests = std::collections::HashMap::new();
    let config_file = given.config.clone().or_else(|| env.config_file());
    for report in &mut agents {
        report.own_files = own_files_check(env, report.agent, &pins, &config_file, &mut digests);
        report.switch_offs = switch_offs_check(report, project);
    }
    let (config, loaded) = config_check(env, given);
    let hook_files = loaded
        .map(|c| hook_files_check(env, project, given, &c))
        .unwrap_or_default();
    Report {
        agents,
        pins_problem,
        sandbox: sandbox_check(env, project),
        wasm_cache: cache_check(env),
        records: records_check(env),
        config,
        hook_files,
    }
}

fn agent_report(
    env: &Environment,
    agent: AgentKind,
    places: &Places,
    pins: &[pin::Pin],
    hookhost: &Path,
) -> AgentReport {
    let name = agent.declaration().program;
    let on_path = env.get("PATH").and_then(|path| {
        std::env::split_paths(path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    });
    let settings = &agent.declaration().settings;
    let user_file = settings.file(Scope::User, places).unwrap_or_default();
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
        .filter_map(|scope| Some((scope, settings.file(scope, places)?)))
        .map(|(scope, file)| {
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
    let registrations: Vec<RegistrationReport> = files
        .into_iter()
        .map(|(scope, file, pinned)| {
            let report = registration_report(agent, scope, file, pinned, places, hookhost);
            match agent {
                AgentKind::Codex => codex_review(report, places, hookhost),
                _ => report,
            }
        })
        .collect();
    let install = (found.is_some()
        && registrations
            .iter()
            .all(|r| r.state == RegistrationState::NotInstalled))
    .then(|| format!("hookhost install {}", agent.flag_name()));
    AgentReport {
        agent,
        found,
        install,
        registrations,
        when_hookhost_cannot_answer: agent.when_hookhost_cannot_answer(&options).to_string(),
        own_files: Vec::new(),
        switch_offs: Vec::new(),
    }
}

/// hookhost's own files that `agent`'s pins hold, each checked against its pin: the config
/// (as the bridge checks it on each call) and the registered binary, which only `doctor`
/// can check: a bridge whose binary was replaced runs none of hookhost's code
/// (docs/threats.md#r5). One line per file, for the first pin that names it.
fn own_files_check(
    env: &Environment,
    agent: AgentKind,
    pins: &[pin::Pin],
    config_file: &Option<PathBuf>,
    digests: &mut std::collections::HashMap<PathBuf, Result<String, String>>,
) -> Vec<OwnFile> {
    let mut files: Vec<OwnFile> = Vec::new();
    let mut add = |what: &'static str, file: &Path, problem: Option<String>, pinned_at: &str| {
        if files.iter().any(|f| f.what == what && f.file == file) {
            return;
        }
        files.push(OwnFile {
            what,
            file: file.to_path_buf(),
            ok: problem.is_none(),
            detail: problem.unwrap_or_else(|| format!("as pinned {pinned_at}")),
        });
    };
    for pin in pins.iter().filter(|p| p.agent == agent.flag_name()) {
        // The pinned config, else the one this `doctor` reads (a pin that holds none).
        if let Some(config) = pin
            .config
            .as_ref()
            .map(|c| c.file.clone())
            .or_else(|| config_file.clone())
        {
            let problem = pin.config_problem(&config, env);
            add("config", &config, problem, &pin.pinned_at);
        }
        add(
            "binary",
            &pin.hookhost,
            pin.binary_problem(digests),
            &pin.pinned_at,
        );
    }
    files
}

/// The project's settings files that switch `report.agent`'s hooks off, for an agent
/// hookhost is registered with (the bridge denies its calls while one is there; N7).
fn switch_offs_check(report: &AgentReport, project: &Path) -> Vec<String> {
    let registered = report
        .registrations
        .iter()
        .any(|r| r.state != RegistrationState::NotInstalled);
    if !registered {
        return Vec::new();
    }
    pin::project_switch_offs(report.agent, project)
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
        Ok(change) if change.outcome == ChangeKind::Added => report(
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

/// Codex runs a user hook only once it is trusted, as it is now, in its `/hooks` review, and
/// skips it silently otherwise (real_agents R6): a registration of hookhost there that is
/// not trusted, trusted as it was before (another command or timeout), or switched off
/// (`enabled = false`) is not working, whatever its pin says. The trust is in the user's
/// config.toml, for a project's registration too.
fn codex_review(
    report: RegistrationReport,
    places: &Places,
    hookhost: &Path,
) -> RegistrationReport {
    use install::codex_trust as codex;
    if report.state == RegistrationState::NotInstalled {
        return report;
    }
    let Ok(Some(text)) = install::read_existing(&report.file) else {
        return report;
    };
    let Some(user) = codex::user_config(Some(&places.home), places.agent_home("CODEX_HOME")) else {
        return report;
    };
    let (key_files, state) = match report.scope {
        Scope::User => (vec![user], Some(text.clone())),
        Scope::Project => {
            let user_file = AgentKind::Codex
                .declaration()
                .settings
                .file(Scope::User, places)
                .unwrap_or_default();
            let mut files = vec![report.file.clone()];
            files.extend(std::fs::canonicalize(&report.file).ok());
            (files, install::read_existing(&user_file).ok().flatten())
        }
    };
    let skipped: Vec<String> = codex::review(&text, &key_files, state.as_deref(), hookhost)
        .into_iter()
        .filter(|h| h.review != codex::Review::Trusted)
        .map(|h| format!("its {} hook is {}", h.event, h.review.describe()))
        .collect();
    if skipped.is_empty() {
        return report;
    }
    // The hash is Codex 0.171.0's: a later Codex may compute another, and keep its own.
    let fix = match report.scope {
        Scope::User => {
            "run `hookhost install codex`, which trusts hookhost's own hook and switches it back on (if Codex still lists it as not trusted or \"Modified\", trust it there: run `codex`, type /hooks, press t)"
        }
        Scope::Project => {
            "run `codex`, type /hooks and trust hookhost's hooks (t), or switch them back on there"
        }
    };
    let what = format!(
        "Codex does not run hookhost here: {}, and Codex skips such a hook without a word. To fix it: {fix}",
        skipped.join("; ")
    );
    match report.state {
        RegistrationState::Drifted => RegistrationReport {
            detail: format!("{} {what}", report.detail),
            ..report
        },
        _ => RegistrationReport {
            state: RegistrationState::NotRun,
            detail: what,
            ..report
        },
    }
}

/// The config file (the one named, else the default) and, when it loads, the config.
fn config_check(env: &Environment, given: &Given) -> (ConfigReport, Option<Config>) {
    let file = given.config.clone().or_else(|| env.config_file());
    let report = |state, hooks, detail: String| ConfigReport {
        file: file.clone(),
        state,
        hooks,
        detail,
    };
    let Some(path) = &file else {
        let detail = "no config file can be found: neither HARNESS_HOME, XDG_CONFIG_HOME nor HOME is set, so there are no hooks and every call goes ahead unchecked";
        return (report(ConfigState::Missing, 0, detail.into()), None);
    };
    if std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        let detail = format!(
            "no config file at {}, so there are no hooks and every call goes ahead unchecked",
            path.display()
        );
        return (report(ConfigState::Missing, 0, detail), None);
    }
    match Config::load_with_env(path, true, env) {
        Err(e) => (
            report(
                ConfigState::Unreadable,
                0,
                format!("{e} (every session refuses to start until it loads)"),
            ),
            None,
        ),
        Ok(config) if config.hooks.is_empty() => (
            report(
                ConfigState::NoHooks,
                0,
                "no [[hooks]] in it, so every call goes ahead unchecked".into(),
            ),
            Some(config),
        ),
        Ok(config) => {
            let n = config.hooks.len();
            let detail = format!("{n} hook{}", if n == 1 { "" } else { "s" });
            (report(ConfigState::Hooks, n, detail), Some(config))
        }
    }
}

/// The hook programs with other names, as the path guard judges them with the writable
/// folders of a session without a sandbox (the system temp folders count: the stricter
/// view).
fn hook_files_check(
    env: &Environment,
    project: &Path,
    given: &Given,
    config: &Config,
) -> Vec<LinkNote> {
    let mut writable = config.sandbox.writable.clone();
    writable.extend(given.writable.iter().cloned());
    let ctx = GuardContext {
        project: project.to_path_buf(),
        private_tmp: given.private_tmp.clone(),
        writable,
        sandboxed_session: false,
        hidden: Vec::new(),
        path_env: env.get("PATH").map(std::ffi::OsStr::to_os_string),
        tmpdir_env: env
            .get(crate::platform::sys::file_system::TEMP_ENV)
            .map(PathBuf::from),
    };
    let hooks: Vec<HookToGuard> = config
        .hooks
        .iter()
        .map(|h| HookToGuard {
            name: &h.name,
            command: if h.is_wasm() {
                &h.command[..1]
            } else {
                &h.command
            },
            sandbox: h.sandbox && !h.is_wasm(),
        })
        .collect();
    guard::hard_link_notes(&ctx, &hooks)
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
        // The chain to the record's end, against its head (docs/threats.md#n13).
        let Ok(verdict) = crate::record::verify_file(&file) else {
            continue;
        };
        report.checked += 1;
        match verdict {
            Ok(verified) if verified.chained_from.is_none() && verified.lines > 1 => {
                report.unchained += 1
            }
            Ok(_) => {}
            Err(broken) => report.broken.push((file, broken.to_string())),
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(found: bool, installed: bool, config: ConfigState) -> Report {
        let state = if installed {
            RegistrationState::Pinned
        } else {
            RegistrationState::NotInstalled
        };
        let agent = AgentReport {
            agent: AgentKind::Codex,
            found: found.then(|| "codex on PATH (/bin/codex)".to_string()),
            registrations: vec![RegistrationReport {
                scope: Scope::User,
                file: "/h/.codex/config.toml".into(),
                state,
                detail: String::new(),
            }],
            when_hookhost_cannot_answer: String::new(),
            install: (found && !installed).then(|| "hookhost install codex".to_string()),
            own_files: Vec::new(),
            switch_offs: Vec::new(),
        };
        let ok = Check {
            ok: true,
            detail: String::new(),
        };
        Report {
            agents: vec![agent],
            pins_problem: None,
            sandbox: ok.clone(),
            wasm_cache: ok,
            records: RecordsReport::default(),
            config: ConfigReport {
                file: Some("/h/.config/harness/config.toml".into()),
                state: config,
                hooks: usize::from(config == ConfigState::Hooks),
                detail: "no config file at /h/.config/harness/config.toml".into(),
            },
            hook_files: Vec::new(),
        }
    }

    #[test]
    fn doctor_names_what_is_missing_and_how_to_fix_it() {
        let r = report(true, false, ConfigState::Missing);
        let missing = r.missing();
        assert_eq!(missing.len(), 2);
        assert_eq!(missing[0].fixes, vec!["hookhost install codex".to_string()]);
        assert!(!r.healthy());
        let lines = r.lines();
        assert!(lines.contains(&"✗ agents: hookhost is registered with no agent, so no agent asks it anything. To fix it, run: hookhost install codex".to_string()), "{lines:?}");
        assert!(lines.contains(&"✗ config: no config file at /h/.config/harness/config.toml. To fix it: write [[hooks]] in /h/.config/harness/config.toml (README: \"Using it\"), then run hookhost check".to_string()), "{lines:?}");
        // No agent here at all: what to do first.
        let detail = &report(false, false, ConfigState::Hooks).missing()[0].detail;
        assert!(
            detail.ends_with("Install one, then run hookhost install AGENT"),
            "{detail}"
        );
        // Registered, with hooks: nothing missing; a config without hooks is said, not a fault.
        assert!(report(true, true, ConfigState::Hooks).healthy());
        assert!(report(true, true, ConfigState::NoHooks).healthy());
        assert!(!report(true, true, ConfigState::Unreadable).healthy());
        let json = report(true, true, ConfigState::Hooks).to_json();
        assert_eq!(json["missing"], json!([]));
        assert_eq!(json["config"]["state"], "ok");
    }
}
