//! The one platform seam: everything hookhost asks of the operating system that differs
//! between systems (process groups and their teardown, the hardening of hookhost's own
//! process, file locks, signals, raw stdio, `/proc`, file modes and ownership, the user's
//! folders).
//!
//! The module for the running OS is chosen once, here, and renamed `sys` (as wasmtime-wasi's
//! `filesystem.rs` and tokio's `process` do), so that callers write `platform::sys::…` and
//! carry no `cfg` of their own. Each OS module keeps one file per concept. Outside this
//! module only the box (`sandbox/`), which is Linux's bubblewrap by nature, may name `libc`,
//! `std::os::unix` or `cfg(`; `scripts/check-platform.sh` enforces that in CI.

#[cfg(target_os = "linux")]
#[path = "linux/mod.rs"]
pub(crate) mod linux;
#[cfg(target_os = "linux")]
pub(crate) use linux as sys;
