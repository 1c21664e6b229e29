//! `hookhost log show FILE`, `hookhost log verify FILE` and `hookhost replay FILE`:
//! reading session records.

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

/// `log verify FILE`: the chain's summary on stdout, or where it breaks on stderr. The
/// chain is checked to the record's end against its head (`FILE.head`).
pub fn log_verify(file: &Path) -> Exit {
    let chain = match hookhost::record::verify_file(file) {
        Ok(chain) => chain,
        Err(e) => {
            say(&format!("hookhost: {e}"));
            return Exit::CouldNotRun;
        }
    };
    match chain {
        Ok(verified) => {
            for note in &verified.notes {
                say(&format!("note: {note}"));
            }
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(
                stdout,
                "{}",
                line(&format!("{}: {}", file.display(), verified.summary()))
            );
            Exit::Success
        }
        Err(broken) => {
            say(&format!(
                "{}: the hash chain breaks at {broken}",
                file.display()
            ));
            Exit::No
        }
    }
}

/// `replay FILE`: one row per gate, problems, then the summary (notes and a warning when
/// others may read the record on stderr). A record whose chain breaks is refused unless
/// `ignore_chain`.
pub async fn replay(file: &Path, ignore_chain: bool) -> Exit {
    let reading = match hookhost::record::read_file(file) {
        Ok(r) => r,
        Err(e) => {
            say(&format!("hookhost: {e}"));
            return Exit::CouldNotRun;
        }
    };
    if let Err(broken) = &reading.chain {
        if !ignore_chain {
            say(&format!(
                "hookhost: the session record {} was changed after it was written ({broken}), so replay would not show what ran; replay it anyway with --ignore-chain.",
                file.display()
            ));
            return Exit::CouldNotRun;
        }
        say(&format!(
            "⚠ the session record {} was changed after it was written ({broken}); replayed as it is now (--ignore-chain).",
            file.display()
        ));
    }
    for note in &reading.notes {
        say(&format!("note: {note}"));
    }
    if let Some(warning) = hookhost::record::exposure_warning_of(file) {
        say(&warning);
    }
    let report = hookhost::replay::replay(&reading).await;
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
