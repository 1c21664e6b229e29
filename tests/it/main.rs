//! The integration tests, as one test binary: each module is one former
//! `tests/<name>.rs`, so that the library and wasmtime are linked once, not once per file.
//!
//!     cargo test --test it                     # all of them
//!     cargo test --test it serve::             # one module
//!     cargo test --test it a_record_in_the     # by (part of) a test's name
//!
//! `tests/host_process.rs` and `tests/no_leaks.rs` stay binaries of their own: the first
//! changes the test process itself (non-dumpable), the second counts the process's file
//! descriptors and children, which other tests running beside it would change.

//! Linux only: these tests run real POSIX processes (`/bin/sh` hooks, bubblewrap,
//! `/proc`, signals, process groups). Windows' binary is tested by
//! `scripts/windows-smoke.sh` under wine; macOS's is only built and linked here
//! (`scripts/cross-build.sh`), and its Seatbelt profile is unit-tested in the library.
#![cfg(target_os = "linux")]

#[path = "../support/mod.rs"]
mod support;

mod boxed_hooks;
mod bridge;
mod config_cli;
mod escapes;
mod eval;
mod faults;
mod gates;
mod guard;
mod hardening;
mod hook_env;
mod languages;
mod load;
mod properties;
mod real_agents;
mod record;
mod record_trust;
mod sandbox;
mod serve;
mod shipped_policies;
mod switch_offs;
mod system;
mod system_scope;
mod system_scope_agents;
mod unknown_tools;
mod warm;
mod wasm;
mod wasm_cache;
mod wasm_hooks;
