//! Linux: one file per concept (see [`crate::platform`]).

pub(crate) mod memory;
