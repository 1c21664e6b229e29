//! OpenSSH's `safe_path` rule for programs and the WASM cache, and the hard-link rule:
//! nothing on a program's way may be changed by another user, and the agent may not reach
//! the program through another name (`other_names.rs` says when another name matters).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use super::other_names::{self, LinkNote};
use super::{Plan, Refusal, Who, refusal::Ownership};
use crate::paths::{StepKind, Walk};
use crate::platform::sys::ownership::{
    effective_uid, identity, is_sticky, owner_of, writable_by_others,
};

impl Plan<'_> {
    /// OpenSSH's `safe_path` rule and the hard-link rule, as refusals; a program with
    /// other names is noted whether they matter or not (`doctor` says which).
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
            && meta.is_file()
            && let Some(id) = identity(&walk.end)
            && id.links > 1
        {
            let key = (id.dev, id.ino, self.in_box);
            let verdict = self.names.verdict(key, || {
                other_names::verdict(id, owner_of(&meta), uid, self.writable)
            });
            if verdict.matters() {
                refusals.push(Refusal::HardLinked {
                    hook: self.hook.to_owned(),
                    subject: subject.to_owned(),
                    links: id.links,
                });
            }
            self.names.note(LinkNote {
                hook: self.hook.to_owned(),
                subject: subject.to_owned(),
                path: walk.end.clone(),
                links: id.links,
                verdict,
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
