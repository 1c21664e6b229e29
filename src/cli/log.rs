//! `hookhost log show FILE` and `hookhost replay FILE`: reading session records.

use std::io::Write;
use std::path::Path;

use super::exit::Exit;
use super::{line, say};

/// `log show FILE`: notes (and a warning when others may read the record) on stderr, the
/// transcript rows on stdout.
pub fn log_show(file: &Path) -> Exit {
    let reading = match hookhost::record::read_file(file) {
        Ok(r) => r,
        Err(e) => {
            say(&format!("hookhost: {e}"));
            return Exit::CouldNotRun;
        }
    };
    for note in &reading.notes {
        say(&format!("note: {note}"));
    }
    if let Some(warning) = hookhost::record::exposure_warning_of(file) {
        say(&warning);
    }
    let mut stdout = std::io::stdout().lock();
    for row in hookhost::record::transcript::rows(&reading) {
        let _ = writeln!(stdout, "{}", line(&row));
    }
    let _ = stdout.flush();
    Exit::Success
}

/// `replay FILE`: one row per gate, problems, then the summary (notes and a warning when
/// others may read the record on stderr).
pub async fn replay(file: &Path) -> Exit {
    let reading = match hookhost::record::read_file(file) {
        Ok(r) => r,
        Err(e) => {
            say(&format!("hookhost: {e}"));
            return Exit::CouldNotRun;
        }
    };
    for note in &reading.notes {
        say(&format!("note: {note}"));
    }
    if let Some(warning) = hookhost::record::exposure_warning_of(file) {
        say(&warning);
    }
    let report = hookhost::record::replay::replay(&reading).await;
    let mut stdout = std::io::stdout().lock();
    for row in &report.rows {
        let _ = writeln!(stdout, "{}", line(row));
    }
    for problem in &report.problems {
        let _ = writeln!(stdout, "{}", line(&format!("✗ {problem}")));
    }
    let _ = writeln!(stdout, "{}", report.summary());
    let _ = stdout.flush();
    Exit::success_if(report.all_matched())
}
