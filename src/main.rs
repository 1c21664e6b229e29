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
    // A bridged call goes to the user's warm server when one runs (src/warm/client.rs),
    // before the argument parser and the runtime cost anything.
    match hookhost::warm::client::hand_over(started, hookhost::warm::client::ServerBinary::ThisOne)
    {
        Ok(code) => code,
        Err(prepared) => {
            // What `hookhost-client` told this process is read; the hooks need not see it.
            // SAFETY: no other thread runs yet (the hand-over starts none).
            unsafe {
                std::env::remove_var(hookhost::warm::client::DONE_ENV);
                std::env::remove_var(hookhost::warm::client::WAITED_ENV);
            }
            cli::main(prepared)
        }
    }
}
