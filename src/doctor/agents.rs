//! Each agent doctor finds: its registrations and their pins, hookhost's own files its
//! pins hold, the project switch-offs, Codex's review of hookhost's hooks.

use super::*;

pub(super) fn agent_report(
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
        system: SystemReport::default(),
    }
}

/// hookhost's own files that `agent`'s pins hold, each checked against its pin: the config
/// (as the bridge checks it on each call) and the registered binary, which only `doctor`
/// can check: a bridge whose binary was replaced runs none of hookhost's code
/// (docs/threats.md#r5). One line per file, for the first pin that names it.
pub(super) fn own_files_check(
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
            let pinned_at = match (&problem, &pin.config) {
                (None, Some(pinned)) => with_moved_stamps(pin, pinned),
                _ => pin.pinned_at.clone(),
            };
            add("config", &config, problem, &pinned_at);
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

/// "`pin.pinned_at`", and, when some of the hook files `pinned` holds were changed in their
/// metadata only (a `chmod`, a new hard link), what that costs every bridged call: the
/// bridge checks a file by its stamp and hashes it whole when the stamp moved.
fn with_moved_stamps(pin: &pin::Pin, pinned: &pin::ConfigPin) -> String {
    let pinned_at = &pin.pinned_at;
    let moved = pinned.moved_stamps();
    if moved.is_empty() {
        return pinned_at.to_string();
    }
    let bytes: u64 = moved.iter().map(|(_, size)| size).sum();
    let files: Vec<String> = moved.iter().map(|(f, _)| f.display().to_string()).collect();
    format!(
        "{pinned_at}; the metadata of {} changed since (same bytes), so every bridged call hashes {} KB again to check them: `hookhost install {}{}` pins them as they are now",
        files.join(", "),
        bytes.div_ceil(1024),
        pin.agent,
        pin.scope_flag()
    )
}

/// The project's settings files that switch `report.agent`'s hooks off, for an agent
/// hookhost is registered with (the bridge denies its calls while one is there; N7).
pub(super) fn switch_offs_check(report: &AgentReport, project: &Path) -> Vec<String> {
    let registered = report
        .registrations
        .iter()
        .any(|r| r.state != RegistrationState::NotInstalled);
    if !registered {
        return Vec::new();
    }
    let env = crate::env::Environment::of_process();
    let mut found = pin::project_switch_offs(report.agent, project);
    found.extend(pin::distrusted(report.agent, &env, project));
    found.extend(pin::environment_switch_offs(report.agent, &env, project));
    found.extend(pin::home_moved(report.agent, &env));
    found.extend(pin::disabled_hooks(report.agent, &env, Some(project)));
    found.extend(pin::unaccepted_project_hooks(&env, report.agent, project));
    found
}

pub(super) fn registration_report(
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
        return match pin.drift(Some(&places.project)) {
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
pub(super) fn codex_review(
    report: RegistrationReport,
    places: &Places,
    hookhost: &Path,
) -> RegistrationReport {
    use install::codex_trust as codex;
    // A managed hook is the administrator's: Codex runs it without its users' review
    // (docs/system-scope.md).
    if report.state == RegistrationState::NotInstalled || report.scope == Scope::System {
        return report;
    }
    let Ok(Some(text)) = install::read_existing(&report.file) else {
        return report;
    };
    let Some(user) = codex::user_config(Some(&places.home), places.agent_home("CODEX_HOME")) else {
        return report;
    };
    let (key_files, state) = match report.scope {
        Scope::User | Scope::System => (vec![user], Some(text.clone())),
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
    let skipped: Vec<String> =
        install::codex_review::review(&text, &key_files, state.as_deref(), hookhost)
            .into_iter()
            .filter(|h| h.review != install::codex_review::Review::Trusted)
            .map(|h| format!("its {} hook is {}", h.event, h.review.describe()))
            .collect();
    if skipped.is_empty() {
        return report;
    }
    // The hash is Codex 0.171.0's: a later Codex may compute another, and keep its own.
    let fix = match report.scope {
        Scope::User | Scope::System => {
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
