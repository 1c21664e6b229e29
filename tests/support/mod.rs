//! What the integration tests and the benches share: the [`Scene`] (a project, a hooks
//! folder outside it and a config, and the real `hookhost` binary run against them),
//! the WASM fixtures ([`wasm_dir`]), one poller ([`wait_until`]), one process runner
//! ([`run`]), the `serve` harness ([`Server`]), a scripted model for the real agents
//! ([`ModelServer`]) and a world another user can reach
//! ([`OtherUserWorld`], [`as_nobody`]), a machine of the test's own for the system scope
//! ([`SystemRoot`]: its own `/etc` and `/var/cache` in a private mount namespace), and the one place a test that lacks bubblewrap,
//! root, an unprivileged user or a component skips or, with its `HOOKHOST_REQUIRE_*`
//! switch set, fails ([`skip_or_fail`], [`Prerequisite`]).
//!
//! The tests include it from `tests/it/main.rs`; each bench with
//! `#[path = "../tests/support/mod.rs"] mod support;`. Not every user needs every item.
#![allow(dead_code, unused_imports)]

mod check;
mod fixtures;
mod model_server;
mod poll;
mod prerequisite;
mod process;
mod scene;
mod serve;
mod system_root;

pub use check::banner_of;
pub use fixtures::{
    SLOW_COMPILE_OK, cache_artifacts, component_or_skip, plugin, python_wasm_or_skip, wasm_dir,
};
pub use model_server::{ModelRequest, ModelServer};
pub use poll::wait_until;
pub use prerequisite::{Prerequisite, root_or_skip, skip_or_fail};
pub use process::{
    OtherUserWorld, as_nobody, bwrap_available, bwrap_or_skip, copy_program, is_root, lossy,
    nobody_or_skip, process_alive, run, run_with_stdin, text,
};
pub use scene::{Scene, hook, message, sh_hook, test_root, verdict};
pub use serve::{READ_TIMEOUT, Server};
pub use system_root::{NOBODY, SystemRoot, chmod, chown};
