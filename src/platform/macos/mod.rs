//! macOS: one file per concept (see [`crate::platform`]); what it shares with Linux is
//! POSIX's, in `unix/`, and what it lacks (PID namespaces, a swap reading) is answered
//! once in `generic/`.

pub(crate) mod boxed;
pub(crate) mod file_system;
pub(crate) mod harden;
pub(crate) mod process;

pub(crate) use super::generic::{mapped, memory, pid_namespace, warm};
pub(crate) use super::unix::{
    beneath, files, folders, interrupt, ownership, signal, stdio, system_scope, users,
};
