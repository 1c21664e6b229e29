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

mod agents;
mod report;
mod system;
#[cfg(test)]
mod tests;

use agents::{agent_report, own_files_check, switch_offs_check};
pub use system::SystemReport;

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
    /// Its administrator-managed settings: hookhost's registration there, and what
    /// weakens it (docs/system-scope.md).
    pub system: SystemReport,
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
    /// A folder standing for the file system's root, where the agents'
    /// administrator-managed files are looked for (tests); `None`: `/`.
    pub system_root: Option<PathBuf>,
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
    /// The warm servers the pinned registrations hand their calls to.
    pub warm: Check,
}

/// Examines this machine for `project` (the project-scope settings), with `hookhost` the
/// binary a registration should name, and the default config.
pub fn examine(env: &Environment, project: &Path, hookhost: &Path) -> Report {
    examine_with(env, project, hookhost, &Given::default())
}

/// [`examine`], with what the command line gave (`--config`, `--writable`, …).
pub fn examine_with(env: &Environment, project: &Path, hookhost: &Path, given: &Given) -> Report {
    let home = env.home().unwrap_or_default();
    let mut places = Places::from_environment(&home, project, |name| env.get(name).map(Into::into));
    if let Some(root) = &given.system_root {
        places = places.with_system_root(root);
    }
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
        report.system = system::system_check(env, report.agent, &places, hookhost);
        if report.system.registered {
            report.install = None;
        }
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
        warm: warm_check(&pins),
    }
}

/// What listens where the pinned registrations hand their calls (`--warm`,
/// `--warm-socket`): a server their bridges vouch for, nothing (their calls run in their
/// own processes), or something they would not hand a call to (docs/threats.md#w1),
/// which is the one finding that fails the check: restart `hookhost warm`.
fn warm_check(pins: &[pin::Pin]) -> Check {
    let mut seen: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut lines = Vec::new();
    let mut ok = true;
    for pin in pins {
        let Some(choice) = &pin.warm else { continue };
        let socket = match choice {
            install::WarmSocket::At(socket) => Some(socket.clone()),
            install::WarmSocket::Default => crate::warm::default_socket(),
        };
        let Some(socket) = socket else {
            lines.push(format!(
                "{} ({}): this user has no /run/user/UID folder, so its calls run in their own processes",
                pin.agent,
                choice.flag()
            ));
            continue;
        };
        if seen.contains(&(socket.clone(), pin.hookhost.clone())) {
            continue;
        }
        seen.push((socket.clone(), pin.hookhost.clone()));
        let line = match crate::warm::probe(&socket, &pin.hookhost) {
            crate::warm::Probe::Answering(pid) => format!(
                "{}: handed to the warm server at {} (pid {pid}, {})",
                pin.agent,
                socket.display(),
                pin.hookhost.display()
            ),
            crate::warm::Probe::RefusesThisProcess(pid, why) => format!(
                "{}: the warm server at {} (pid {pid}) takes no call from this process ({why}), so calls made from here run in their own processes",
                pin.agent,
                socket.display()
            ),
            crate::warm::Probe::NotRunning(_) => format!(
                "{}: no warm server at {}, so its calls run in their own processes (start `hookhost warm`{})",
                pin.agent,
                socket.display(),
                match choice {
                    install::WarmSocket::At(_) => format!(" --warm-socket {}", socket.display()),
                    install::WarmSocket::Default => String::new(),
                }
            ),
            crate::warm::Probe::Refused(why) => {
                ok = false;
                format!(
                    "{}: what listens at {} gets no call ({why}), so its calls run in their own processes; stop it and start `hookhost warm` again",
                    pin.agent,
                    socket.display()
                )
            }
        };
        lines.push(line);
    }
    if lines.is_empty() {
        lines.push("no registration hands its calls to a warm server".into());
    }
    Check {
        ok,
        detail: lines.join("; "),
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
        agent_outside_box: true,
        hidden: Vec::new(),
        path_env: env.get("PATH").map(std::ffi::OsStr::to_os_string),
        tmpdir_env: env
            .get(crate::platform::sys::file_system::TEMP_ENV)
            .map(PathBuf::from),
        admin_only: false,
    };
    let hooks: Vec<HookToGuard> = config
        .hooks
        .iter()
        .map(|h| HookToGuard::new(&h.name, &h.command, h.sandbox, h.is_wasm()))
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
