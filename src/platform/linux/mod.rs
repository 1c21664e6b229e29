//! Linux: one file per concept (see [`crate::platform`]).

pub(crate) mod file_system;
pub(crate) mod memory;
pub(crate) mod ownership;
pub(crate) mod signal;
