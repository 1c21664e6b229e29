//! `hookhost box -- CMD…`: any command in exactly the box a sandboxed hook gets.

use std::ffi::OsString;

use hookhost::session::{Mode, SessionBox};

use super::exit::Exit;
use super::{GlobalOptions, say};

/// Runs `argv` in the session's box; its own exit status, 2 when no box can start.
pub fn run_in_box(global: &GlobalOptions, argv: &[OsString]) -> Exit {
    let session_box = match SessionBox::start(&global.session_options(Mode::OneShot)) {
        Ok(b) => b,
        Err(e) => {
            say(&format!("hookhost box: {e}"));
            return Exit::CouldNotRun;
        }
    };
    for w in session_box.warnings() {
        say(w);
    }
    let status = session_box.command(argv).and_then(|mut c| c.status());
    match status {
        Ok(status) => Exit::Boxed(status.code()),
        Err(e) => {
            say(&format!("hookhost box: cannot run the box: {e}"));
            Exit::CouldNotRun
        }
    }
}
