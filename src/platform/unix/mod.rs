//! What Linux and macOS do alike (POSIX): re-exported by both OS modules, one file per
//! concept (see [`crate::platform`]).

pub(crate) mod beneath;
pub(crate) mod box_paths;
pub(crate) mod file_names;
pub(crate) mod files;
pub(crate) mod folders;
pub(crate) mod interrupt;
pub(crate) mod ownership;
pub(crate) mod process;
pub(crate) mod signal;
pub(crate) mod stdio;
pub(crate) mod system_scope;
pub(crate) mod trial;
pub(crate) mod users;
