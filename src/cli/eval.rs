//! `hookhost eval CASES.toml` ([`hookhost::eval`] holds the cases and their checks).

use std::path::Path;

use hookhost::eval::{load, run_case, summary};
use hookhost::executor::CancellationToken;
use hookhost::session::{Mode, Session};

use super::exit::Exit;
use super::{GlobalOptions, cancel_on_stop, line, say};

/// Loads the cases, then the hooks, runs every case and prints the report; 0 all passed,
/// 1 any failed, 2 the cases or the session could not load, 130 on SIGINT.
pub async fn command(global: &GlobalOptions, cases_path: &Path) -> Exit {
    let cases = match load(cases_path) {
        Ok(cases) => cases,
        Err(e) => {
            say(&e.to_string());
            return Exit::CouldNotRun;
        }
    };
    let session = match Session::start(global.session_options(Mode::OneShot)) {
        Ok(session) => session,
        Err(e) => {
            say(&e.to_string());
            return Exit::CouldNotRun;
        }
    };
    say(session.banner());
    for w in session.warnings() {
        say(w);
    }
    let cancel = CancellationToken::new();
    let _stopped = cancel_on_stop(cancel.clone());
    let (mut passed, mut failed) = (0, 0);
    for case in &cases {
        let result = run_case(&session, case, &cancel).await;
        for w in &result.verdict.warnings {
            say(w);
        }
        report(&result.line(&case.name));
        if result.passed() {
            passed += 1;
        } else {
            failed += 1;
        }
        if cancel.is_cancelled() {
            say("hookhost: interrupted; the remaining cases did not run");
            report(&summary(passed, failed));
            return Exit::Interrupted;
        }
    }
    report(&summary(passed, failed));
    Exit::success_if(failed == 0)
}

/// Writes a report line on stdout, its controls escaped ([`hookhost::escape`]): case names
/// come from the cases file and messages from hooks.
fn report(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{}", line(text));
}
