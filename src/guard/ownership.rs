//! OpenSSH's `safe_path` rule for programs and the WASM cache, and the hard-link rule:
//! nothing on a program's way may be changed by another user, and the agent may not reach
//! the program through another name.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use super::{Plan, Refusal, Who, refusal::Ownership};
use crate::paths::{StepKind, Walk};
use crate::platform::sys::ownership::{
    effective_uid, identity, is_sticky, owner_of, writable_by_others,
};

impl Plan<'_> {
    /// OpenSSH's `safe_path` rule and the hard-link rule, as refusals.
    pub(super) fn ownership_refusals(&self, subject: &str, walk: &Walk) -> Vec<Refusal> {
        let uid = effective_uid();
        let mut refusals = Vec::new();
        if let Some(problem) = ownership_problem(walk, uid) {
            refusals.push(Refusal::Ownership {
                who: Who::Hook(self.hook.to_owned()),
                subject: subject.to_owned(),
                problem,
            });
        }
        if let Ok(meta) = fs::metadata(&walk.end)
            && let Some(id) = identity(&walk.end)
            && hard_link_risk(
                meta.is_file(),
                id.links,
                owner_of(&meta),
                uid,
                self.writable.iter().any(|f| f.dev == Some(id.dev)),
            )
        {
            refusals.push(Refusal::HardLinked {
                hook: self.hook.to_owned(),
                subject: subject.to_owned(),
                links: id.links,
            });
        }
        refusals
    }
}

/// OpenSSH's `safe_path` rule over everything a walk passed: the end must not be writable
/// by others (sticky or not) nor owned by another user, and the folders and links on the way must be owned by root or `uid`, the
/// folders not group- or world-writable unless sticky. Missing parts are skipped.
pub(super) fn ownership_problem(walk: &Walk, uid: u32) -> Option<Ownership> {
    let foreign = |owner: u32| owner != 0 && owner != uid;
    if let Ok(meta) = fs::symlink_metadata(&walk.end) {
        // The end itself: the sticky bit does not help (others could add files to it).
        if writable_by_others(&meta) {
            return Some(Ownership::OpenItself);
        }
        if foreign(owner_of(&meta)) {
            return Some(Ownership::OwnedItself(owner_of(&meta)));
        }
    }
    for step in walk.steps.iter().filter(|s| s.kind == StepKind::Link) {
        if let Ok(meta) = fs::symlink_metadata(&step.path)
            && foreign(owner_of(&meta))
        {
            return Some(Ownership::OwnedOnTheWay(step.path.clone(), owner_of(&meta)));
        }
    }
    let folders: BTreeSet<&Path> = walk
        .steps
        .iter()
        .flat_map(|s| s.path.ancestors().skip(1))
        .collect();
    for folder in folders {
        let Ok(meta) = fs::symlink_metadata(folder) else {
            continue;
        };
        if is_open(&meta) {
            return Some(Ownership::OpenFolder(folder.to_path_buf()));
        }
        if foreign(owner_of(&meta)) {
            return Some(Ownership::OwnedOnTheWay(
                folder.to_path_buf(),
                owner_of(&meta),
            ));
        }
    }
    None
}

/// Group- or world-writable, and not a sticky folder.
fn is_open(meta: &fs::Metadata) -> bool {
    let sticky_dir = meta.is_dir() && is_sticky(meta);
    !meta.file_type().is_symlink() && writable_by_others(meta) && !sticky_dir
}

/// A file with other hard links that the agent could write: another name for it may sit
/// in a folder the agent can write, and writing through it changes this file.
///
/// Not root: the agent (our uid) can write only files we own, so those are refused
/// wherever they are. Root can write every file, and as root all the system's programs
/// are "ours", several with more than one name (Debian's `/usr/bin/perl` and
/// `perl5.36.0`, `gunzip`, `bzip2`), which is why root was once exempt altogether. A
/// hard link cannot cross file systems, so as root a file is refused only when it lies
/// on the file system of a writable folder (`same_fs_as_writable`): there another name
/// for it may be in that folder (F13: `ln hooks/hl.sh proj/hl.sh`).
fn hard_link_risk(
    is_file: bool,
    nlink: u64,
    owner: u32,
    uid: u32,
    same_fs_as_writable: bool,
) -> bool {
    let agent_could_write = if uid == 0 {
        same_fs_as_writable
    } else {
        owner == uid
    };
    is_file && nlink > 1 && agent_could_write
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hard_link_rule_for_our_own_files_or_as_root_on_a_writable_file_system() {
        // Not root: our own files, on any file system.
        assert!(hard_link_risk(true, 2, 1000, 1000, false));
        assert!(hard_link_risk(true, 2, 1000, 1000, true));
        assert!(!hard_link_risk(true, 1, 1000, 1000, true));
        assert!(!hard_link_risk(true, 2, 0, 1000, true));
        assert!(!hard_link_risk(false, 2, 1000, 1000, true));
        // Root: any file on the file system of a writable folder.
        assert!(hard_link_risk(true, 2, 0, 0, true));
        assert!(!hard_link_risk(true, 2, 0, 0, false));
        assert!(!hard_link_risk(true, 1, 0, 0, true));
        assert!(!hard_link_risk(false, 3, 0, 0, true));
    }
}
