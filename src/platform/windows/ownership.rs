//! Windows: the guard's ownership questions, answered without uids or mode bits. Files
//! are the user's (ACLs decide, and the profile's are private), nothing is writable by
//! others through a mode, and std (stable) gives neither a file index nor a link count,
//! so bind-mount aliases and hard links are not seen here (the README says so).

use std::fs::Metadata;

/// One user: the caller.
pub(crate) fn effective_uid() -> u32 {
    0
}

/// Every file counts as the caller's.
pub(crate) fn owner_of(_meta: &Metadata) -> u32 {
    0
}

/// Unknown on Windows (stable std has no file index).
pub(crate) fn file_identity(_meta: &Metadata) -> Option<(u64, u64)> {
    None
}

/// Unknown on Windows: one.
pub(crate) fn link_count(_meta: &Metadata) -> u64 {
    1
}

/// No mode bits: ACLs decide, and the guard cannot read them.
pub(crate) fn writable_by_others(_meta: &Metadata) -> bool {
    false
}

/// No sticky bit.
pub(crate) fn is_sticky(_meta: &Metadata) -> bool {
    false
}

/// Windows runs a file by its extension: any file may be a program.
pub(crate) fn has_execute_bit(meta: &Metadata) -> bool {
    meta.is_file()
}
