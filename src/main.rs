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
    // A host hook's namespace made ahead of its call by `hookhost warm` or `serve`
    // (src/platform/linux/pid_namespace/ready.rs): it waits for the hook on stdin.
    if first.as_deref()
        == Some(std::ffi::OsStr::new(
            hookhost::process::NAMESPACE_KEEPER_ARG,
        ))
    {
        hookhost::process::namespace_keeper_main();
    }
    forget_the_thread_stack_size();
    // A bridged call goes to the user's warm server when one runs (src/warm/client.rs),
    // before the argument parser and the runtime cost anything.
    match hookhost::warm::client::hand_over(started, hookhost::warm::client::ServerBinary::ThisOne)
    {
        Ok(code) => code,
        // The call's budget counts from this process's start (the hand-over's watchdog
        // does too), or from the client's before it.
        Err(prepared) => cli::main(prepared, started),
    }
}

/// Forgets `RUST_MIN_STACK`, the stack std gives the threads it starts without a size of
/// their own: a project's settings can put it in the bridge's environment, and with
/// `RUST_MIN_STACK=1` the first thread to start a session overflowed its stack, with a
/// size past what the OS gives no thread started at all; either way the bridge died,
/// which an agent reads as "go ahead" (docs/threats.md#b6). std's default (2 MiB) is what
/// hookhost's threads are made for.
fn forget_the_thread_stack_size() {
    if std::env::var_os("RUST_MIN_STACK").is_some() {
        // SAFETY: no other thread runs yet (only the box's entry point ran before, and
        // it returned).
        unsafe { std::env::remove_var("RUST_MIN_STACK") };
    }
}
