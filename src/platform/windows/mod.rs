//! Windows: one file per concept (see [`crate::platform`]). No box for argv hooks (WASM
//! hooks are the sandbox here); each hook runs in a Job Object that ends it and all its
//! descendants.

pub(crate) mod beneath;
pub(crate) mod boxed;
pub(crate) mod file_system;
pub(crate) mod files;
pub(crate) mod folders;
pub(crate) mod harden;
pub(crate) mod interrupt;
pub(crate) mod ownership;
pub(crate) mod process;
pub(crate) mod security;
pub(crate) mod signal;
pub(crate) mod stdio;
pub(crate) mod system_scope;
pub(crate) mod users;

pub(crate) use super::generic::{mapped, memory, pid_namespace, warm};
