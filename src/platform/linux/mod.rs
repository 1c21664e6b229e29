//! Linux: one file per concept (see [`crate::platform`]); what it shares with macOS is
//! POSIX's, in `unix/`, re-exported here.

pub(crate) mod boxed;
pub(crate) mod file_system;
pub(crate) mod harden;
pub(crate) mod mapped;
pub(crate) mod memory;
pub(crate) mod pid_namespace;
pub(crate) mod process;
pub(crate) mod warm;

pub(crate) use super::unix::{
    beneath, files, folders, interrupt, ownership, signal, stdio, system_scope, users,
};
