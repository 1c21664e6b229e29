//! The `hookhost` binary: the command line ([`cli`]) over the `hookhost` library.

mod cli;

fn main() -> std::process::ExitCode {
    let started = std::time::Instant::now();
    let first = std::env::args_os().nth(1);
    // The box's entry point: bwrap runs this binary first, inside the box, to confine
    // writes with Landlock before the command (src/platform/linux/boxed/landlock.rs).
    if first.as_deref() == Some(std::ffi::OsStr::new(hookhost::sandbox::BOX_ENTRY_ARG)) {
        return hookhost::sandbox::box_entry_main();
    }
    // A bridged call goes to the user's warm server when one runs (src/cli/warm.rs),
    // before the argument parser and the runtime cost anything.
    match cli::hand_over(started) {
        Ok(code) => code,
        Err(prepared) => cli::main(prepared),
    }
}
