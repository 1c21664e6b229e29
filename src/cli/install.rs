//! `hookhost install AGENT` and `hookhost uninstall AGENT`: the registration of
//! `hookhost bridge` in the agent's own settings file ([`hookhost::bridge::install`]).
//!
//! Prints, on stdout: with `--dry-run`, the change's preview (a diff, or the summary
//! when nothing would change); else the summary, the backup made, and the notes the
//! user should know (what the agent does when hookhost cannot answer, its own review of
//! a new hook). An error (the file cannot be read, does not parse, cannot be written)
//! goes to stderr and leaves the file untouched: exit 2.

use std::io::Write;
use std::path::PathBuf;

pub use hookhost::bridge::install::Action;
use hookhost::bridge::install::{self, Agent, Options, Places, Request, Scope};

use super::exit::Exit;
use super::{GlobalOptions, line, say};

/// Runs `hookhost install` or `hookhost uninstall`.
pub fn command(
    global: &GlobalOptions,
    action: Action,
    agent: &str,
    scope: &str,
    dry_run: bool,
    budget_ms: Option<u64>,
) -> Exit {
    match request(global, action, agent, scope, budget_ms) {
        Ok(request) => run(&request, dry_run),
        Err(message) => {
            say(&format!("hookhost: {message}"));
            Exit::CouldNotRun
        }
    }
}

/// The request the flags and the environment describe.
fn request(
    global: &GlobalOptions,
    action: Action,
    agent: &str,
    scope: &str,
    budget_ms: Option<u64>,
) -> Result<Request, String> {
    let agent: Agent = agent
        .parse()
        .map_err(|e: install::InstallError| e.to_string())?;
    let scope: Scope = scope
        .parse()
        .map_err(|e: install::InstallError| e.to_string())?;
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or("HOME is not set, so the agent's user settings cannot be found")?;
    let project = match &global.project {
        Some(project) => std::path::absolute(project)
            .map_err(|e| format!("the project {}: {e}", project.display()))?,
        None => std::env::current_dir().map_err(|e| format!("the current folder: {e}"))?,
    };
    let hookhost = std::env::current_exe()
        .map_err(|e| format!("cannot find the hookhost binary to register: {e}"))?;
    let env_dir = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    Ok(Request {
        action,
        agent,
        scope,
        places: Places {
            codex_home: env_dir("CODEX_HOME"),
            copilot_home: env_dir("COPILOT_HOME"),
            ..Places::new(home, project)
        },
        hookhost,
        options: Options {
            budget_ms,
            ..Options::default()
        },
    })
}

/// Plans and (unless `dry_run`) applies `request`, and says what it did.
fn run(request: &Request, dry_run: bool) -> Exit {
    let report = match install::run(request, dry_run) {
        Ok(report) => report,
        Err(e) => {
            say(&format!("hookhost: {e}"));
            return Exit::CouldNotRun;
        }
    };
    let change = &report.change;
    let mut stdout = std::io::stdout().lock();
    if dry_run {
        let _ = write!(stdout, "{}", line(&change.preview()));
    } else {
        let _ = writeln!(stdout, "{}", line(&change.summary()));
        if let Some(backup) = report.applied.as_ref().and_then(|a| a.backup.as_ref()) {
            let _ = writeln!(
                stdout,
                "{}",
                line(&format!(
                    "The file as it was is kept in {}.",
                    backup.display()
                ))
            );
        }
        for note in change.notes(&request.options) {
            let _ = writeln!(stdout, "{}", line(note));
        }
    }
    let _ = stdout.flush();
    Exit::Success
}
