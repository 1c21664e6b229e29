//! Linux: one file per concept (see [`crate::platform`]).
