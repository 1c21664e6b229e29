//! Linux: one file per concept (see [`crate::platform`]).

pub(crate) mod files;
pub(crate) mod harden;
pub(crate) mod paths;
pub(crate) mod pid_namespace;
pub(crate) mod process;
pub(crate) mod stdio;
