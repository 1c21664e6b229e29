//! The `hookhost` binary: the command line ([`cli`]) over the `hookhost` library.

mod cli;

fn main() -> std::process::ExitCode {
    let first = std::env::args_os().nth(1);
    // The box's entry point: bwrap runs this binary first, inside the box, to confine
    // writes with Landlock before the command (src/platform/linux/boxed/landlock.rs).
    if first.as_deref() == Some(std::ffi::OsStr::new(hookhost::sandbox::BOX_ENTRY_ARG)) {
        return hookhost::sandbox::box_entry_main();
    }
    cli::main()
}
