//! Interrupting threads blocked in a system call: a signal (Linux: a real-time one;
//! macOS: SIGUSR2) with a handler that
//! does nothing, installed without `SA_RESTART`, so that a thread it reaches returns from
//! a blocking call (`open` of a FIFO with no writer, a `read` of one) with `EINTR`.
//!
//! Only threads that registered themselves are ever signalled: the threads of the WASM
//! guests' blocking pool (see `executor::wasm::blocking`), which run nothing else.

use std::io;
use std::sync::{Mutex, OnceLock};

/// The signal: one of the real-time signals glibc leaves to programs.
#[cfg(target_os = "linux")]
fn interrupt_signal() -> libc::c_int {
    libc::SIGRTMIN() + 3
}

/// The signal: macOS has no real-time signals, and nothing in hookhost (nor wasmtime,
/// which takes its traps through Mach ports there) uses SIGUSR2.
#[cfg(target_os = "macos")]
fn interrupt_signal() -> libc::c_int {
    libc::SIGUSR2
}

extern "C" fn do_nothing(_signal: libc::c_int) {}

/// Installs the handler, once per process. Until it is installed, no thread may be
/// registered (the signal's default action would end the process).
pub(crate) fn install() -> io::Result<()> {
    static INSTALLED: OnceLock<Result<(), i32>> = OnceLock::new();
    let result = INSTALLED.get_or_init(|| {
        // SAFETY: a zeroed sigaction is a valid starting point; the handler is an
        // `extern "C"` function that touches nothing (async-signal-safe), and sa_flags
        // leaves SA_RESTART out on purpose.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = do_nothing as *const () as libc::sighandler_t;
            action.sa_flags = 0;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(interrupt_signal(), &action, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error().raw_os_error().unwrap_or(0));
            }
        }
        Ok(())
    });
    result.map_err(io::Error::from_raw_os_error)
}

/// The registered threads.
fn registered() -> std::sync::MutexGuard<'static, Vec<libc::pthread_t>> {
    static THREADS: Mutex<Vec<libc::pthread_t>> = Mutex::new(Vec::new());
    // A panic while holding the lock leaves the list whole (pushes and removals are
    // single calls).
    THREADS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Registers the calling thread ([`install`] must have succeeded).
pub(crate) fn register_current_thread() {
    // SAFETY: pthread_self has no preconditions.
    let me = unsafe { libc::pthread_self() };
    registered().push(me);
}

/// Removes the calling thread; called before it exits.
pub(crate) fn unregister_current_thread() {
    // SAFETY: pthread_self has no preconditions.
    let me = unsafe { libc::pthread_self() };
    registered().retain(|&t| t != me);
}

/// Signals every registered thread: each one blocked in an interruptible call returns
/// from it with `EINTR`; the others run the empty handler and go on.
pub(crate) fn interrupt_registered() {
    let threads = registered();
    for &thread in threads.iter() {
        // SAFETY: a registered thread is alive: it unregisters (under this lock) before
        // it exits; the handler is installed (install succeeded before registering).
        unsafe {
            libc::pthread_kill(thread, interrupt_signal());
        }
    }
}
