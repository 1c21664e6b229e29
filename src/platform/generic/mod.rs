//! What an OS without a facility answers for it, written once for every such OS (see
//! [`crate::platform`]).

pub(crate) mod entry;
pub(crate) mod memory;
pub(crate) mod pid_namespace;
