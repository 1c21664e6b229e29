//! `hookhost doctor [--json]`: the report of [`hookhost::doctor`], as text or one JSON
//! object on stdout. Exit 0 healthy, 1 not (what is missing included: no agent registered,
//! no config), 2 when it could not run.

use std::io::Write;

use hookhost::env::Environment;

use super::exit::Exit;
use super::{GlobalOptions, line, say};

/// Runs `hookhost doctor`.
pub fn command(global: &GlobalOptions, json: bool) -> Exit {
    let project = match &global.project {
        Some(project) => std::path::absolute(project),
        None => std::env::current_dir(),
    };
    let project = match project {
        Ok(project) => project,
        Err(e) => {
            say(&format!("hookhost: the project folder: {e}"));
            return Exit::CouldNotRun;
        }
    };
    let hookhost = match std::env::current_exe() {
        Ok(path) => path,
        Err(e) => {
            say(&format!("hookhost: cannot find the hookhost binary: {e}"));
            return Exit::CouldNotRun;
        }
    };
    let given = hookhost::doctor::Given {
        config: global.config.clone(),
        writable: global.writable.clone(),
        private_tmp: global.private_tmp.clone(),
        system_root: None,
    };
    let report =
        hookhost::doctor::examine_with(&Environment::of_process(), &project, &hookhost, &given);
    let mut stdout = std::io::stdout().lock();
    if json {
        let _ = writeln!(stdout, "{}", report.to_json());
    } else {
        for text in report.lines() {
            let _ = writeln!(stdout, "{}", line(&text));
        }
    }
    let _ = stdout.flush();
    Exit::success_if(report.healthy())
}
