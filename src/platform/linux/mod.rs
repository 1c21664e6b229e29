//! Linux: one file per concept (see [`crate::platform`]).

pub(crate) mod file_system;
pub(crate) mod files;
pub(crate) mod harden;
pub(crate) mod interrupt;
pub(crate) mod memory;
pub(crate) mod ownership;
pub(crate) mod pid_namespace;
pub(crate) mod process;
pub(crate) mod signal;
pub(crate) mod stdio;
