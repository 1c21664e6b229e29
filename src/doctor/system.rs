//! The system scope, per agent: is hookhost registered in the agent's
//! administrator-managed settings, which scope is in force, and what a user can write (or
//! has written) that weakens a system registration (docs/system-scope.md).

use super::*;
use crate::bridge::install::system::SystemScope;
use crate::bridge::install::{Action, ChangeKind, Options, Request};

/// One agent's system scope.
#[derive(Debug, Clone, Default)]
pub struct SystemReport {
    /// The administrator-managed file on this OS; `None`: the agent has none here.
    pub file: Option<PathBuf>,
    /// Why the agent has no system scope, when it has none.
    pub none_because: Option<&'static str>,
    /// hookhost's registration is there.
    pub registered: bool,
    /// It is there as `install --scope system` writes it (handler, lock-down keys).
    pub as_installed: bool,
    /// What a user or a project has done here that weakens the system registration:
    /// each makes doctor unhealthy.
    pub weakened: Vec<String>,
    /// What a user or a project could write that would weaken it (the agent's own rules,
    /// which no install can change).
    pub could_weaken: Vec<String>,
}

impl SystemReport {
    /// `system`, `user`, `system and user` or `none`: the registrations the agent runs.
    pub fn in_force(&self, registrations: &[RegistrationReport]) -> &'static str {
        let user = registrations
            .iter()
            .any(|r| r.scope != Scope::System && r.state != RegistrationState::NotInstalled);
        match (self.registered && self.weakened.is_empty(), user) {
            (true, true) => "system and user",
            (true, false) => "system",
            (false, true) => "user",
            (false, false) => "none",
        }
    }

    /// Whether nothing here calls for the administrator.
    pub fn ok(&self) -> bool {
        !self.registered || (self.as_installed && self.weakened.is_empty())
    }
}

/// `agent`'s system scope, its file found under `places` (`/`, or a test's root), as
/// `hookhost` (the binary a registration should name) would install it.
pub(super) fn system_check(
    env: &Environment,
    agent: AgentKind,
    places: &Places,
    hookhost: &Path,
) -> SystemReport {
    let declared = agent.declaration();
    let managed = match declared.settings.system {
        SystemScope::Managed(file) => file,
        SystemScope::None(reason) => {
            return SystemReport {
                none_because: Some(reason),
                ..SystemReport::default()
            };
        }
    };
    let Some(file) = declared.settings.file(Scope::System, places) else {
        return SystemReport {
            none_because: Some(crate::bridge::install::system::NOT_ON_THIS_OS),
            ..SystemReport::default()
        };
    };
    let mut report = SystemReport {
        file: Some(file.clone()),
        ..SystemReport::default()
    };
    let Ok(Some(text)) = install::read_existing(&file) else {
        return report;
    };
    let request = |action| Request {
        action,
        agent,
        scope: Scope::System,
        places: places.clone(),
        hookhost: hookhost.to_path_buf(),
        options: Options::default(),
    };
    let outcome = |action| {
        install::plan_file(&request(action), &file, Some(&text))
            .ok()
            .map(|c| c.outcome)
    };
    report.registered = outcome(Action::Uninstall) == Some(ChangeKind::Removed);
    if !report.registered {
        return report;
    }
    report.as_installed = outcome(Action::Install) == Some(ChangeKind::AlreadyInstalled);
    if let Some(variable) = managed.moved_by {
        match env.get(variable) {
            Some(value) if !value.is_empty() => report.weakened.push(format!(
                "{variable} is set (to {}): {} reads that file instead of {}",
                std::path::Path::new(value).display(),
                declared.display_name,
                file.display()
            )),
            _ => report.could_weaken.push(format!(
                "{variable}, set in a user's environment, makes {} read another file instead of this one",
                declared.display_name
            )),
        }
    }
    for scope in [Scope::User, Scope::Project] {
        let Some(theirs) = declared.settings.file(scope, places) else {
            continue;
        };
        let Ok(Some(text)) = install::read_existing(&theirs) else {
            continue;
        };
        if let Some(key) = install::pin::switches_hooks_off(agent, &text)
            && managed.user_switch_offs.contains(&key)
        {
            report.weakened.push(format!(
                "{} sets {key}, which {} applies over its system settings: it runs no hookhost hook. Remove it (the user can put it back; only the agent could stop that)",
                theirs.display(),
                declared.display_name
            ));
        }
    }
    // What stops the agent running any hook, the system file's included: a mode without
    // hooks, a folder it does not trust (docs/system-scope.md).
    report
        .weakened
        .extend(install::pin::no_hook_runs(agent, env, &places.project));
    if let Some(problem) = not_the_administrators(&file) {
        report.weakened.push(problem);
    }
    report
        .could_weaken
        .extend(managed.weakened_by.iter().map(|w| w.to_string()));
    report
}

/// Why `file` (or its folder) is not the administrator's alone, if it is not: someone
/// else who can write it can take hookhost's registration out. Each is judged as the OS
/// says "the administrator's alone" (POSIX: root's, no group or world write; Windows: the
/// owner and DACL), the folder as strictly as the file, since whoever may add to it can
/// add a settings file or drop-in beside it.
fn not_the_administrators(file: &Path) -> Option<String> {
    use crate::platform::sys::ownership::{admin_only_problem, owner_of};
    use crate::platform::{AdminProblem, Standing};
    let folder = file.parent()?;
    for path in [file, folder] {
        let meta = std::fs::metadata(path).ok()?;
        match admin_only_problem(path, &meta, Standing::End) {
            None => {}
            Some(AdminProblem::Acl(problem)) => {
                return Some(format!(
                    "{} {problem}, so someone other than the administrator can change it: fix its owner and permissions as administrator (`icacls \"{}\"` shows them)",
                    path.display(),
                    path.display()
                ));
            }
            Some(AdminProblem::OpenMode | AdminProblem::OwnerUid(_)) => {
                return Some(format!(
                    "{} can be written by someone other than the administrator (owner {}, or group- or world-writable): chown it to root and chmod it 0644 (a folder 0755)",
                    path.display(),
                    owner_of(&meta)
                ));
            }
        }
    }
    None
}

#[cfg(test)]
#[path = "system_tests.rs"]
mod tests;
