//! OpenSSH's `safe_path` rule for programs and the WASM cache, and the hard-link rule:
//! nothing on a program's way may be changed by another user, and the agent may not reach
//! the program through another name (`other_names.rs` says when another name matters).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use super::folders::Examined;
use super::other_names::{self, LinkNote};
use super::{Plan, Refusal, Who, refusal::Ownership};
use crate::paths::{StepKind, Walk, identity, lstat, stat};
use crate::platform::sys::ownership::{effective_uid, is_sticky, owner_of, writable_by_others};

impl Plan<'_> {
    /// OpenSSH's `safe_path` rule and the hard-link rule, as refusals; a program with
    /// other names is noted whether they matter or not (`doctor` says which).
    pub(super) fn ownership_refusals(&self, subject: &str, walk: &Walk) -> Vec<Refusal> {
        let uid = effective_uid();
        let mut refusals = Vec::new();
        let who = Who::Hook(self.hook.to_owned());
        let subject_owned = subject.to_owned();
        if self.ctx.admin_only {
            if let Some(problem) = ownership_problem(walk, Owners::RootOnly) {
                refusals.push(Refusal::NotAdminOnly {
                    who,
                    subject: subject_owned,
                    problem,
                });
            }
        } else if let Some(problem) = ownership_problem(walk, Owners::RootOr(uid)) {
            refusals.push(Refusal::Ownership {
                who,
                subject: subject_owned,
                problem,
            });
        }
        if let Ok(meta) = stat(&walk.end)
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

impl Plan<'_> {
    /// System mode: an existing file a hook's argument names (a script, a rules file)
    /// that someone other than root could change. Nothing in user mode, where OpenSSH's
    /// rule is for programs only.
    pub(super) fn admin_only_refusal(&self, subject: &str, seen: &Examined) -> Option<Refusal> {
        let walk = seen.walk.as_ref().ok().filter(|w| w.end_exists)?;
        if !self.ctx.admin_only {
            return None;
        }
        let problem = ownership_problem(walk, Owners::RootOnly)?;
        Some(Refusal::NotAdminOnly {
            who: Who::Hook(self.hook.to_owned()),
            subject: subject.to_owned(),
            problem,
        })
    }
}

/// Whose files count as safe: the user mode's "root or us" (OpenSSH's rule), or the
/// system mode's root alone (docs/contract.md#system-mode), where "us" is the very user
/// the administrator's policy is kept from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owners {
    /// Root or this uid.
    RootOr(u32),
    /// Root alone.
    RootOnly,
}

impl Owners {
    /// Whether `owner` is not among them.
    fn foreign(self, owner: u32) -> bool {
        match self {
            Owners::RootOr(uid) => owner != 0 && owner != uid,
            Owners::RootOnly => owner != 0,
        }
    }

    /// The problem of a path (`None`: the end itself) owned by `owner`, in this mode's words.
    fn owned(self, on_the_way: Option<&Path>, owner: u32) -> Ownership {
        match (self, on_the_way) {
            (Owners::RootOr(_), None) => Ownership::OwnedItself(owner),
            (Owners::RootOr(_), Some(path)) => Ownership::OwnedOnTheWay(path.into(), owner),
            (Owners::RootOnly, None) => Ownership::NotRootItself(owner),
            (Owners::RootOnly, Some(path)) => Ownership::NotRootOnTheWay(path.into(), owner),
        }
    }
}

/// OpenSSH's `safe_path` rule over everything a walk passed: the end must not be writable
/// by others (sticky or not) nor owned by anyone outside `owners`, and the folders and
/// links on the way must be owned by `owners`, the folders not group- or world-writable
/// unless sticky (an entry of a sticky folder is then held to `owners` like any other
/// step). Missing parts are skipped.
pub(super) fn ownership_problem(walk: &Walk, owners: Owners) -> Option<Ownership> {
    if let Ok(meta) = lstat(&walk.end) {
        // The end itself: the sticky bit does not help (others could add files to it).
        if writable_by_others(&meta) {
            return Some(Ownership::OpenItself);
        }
        if owners.foreign(owner_of(&meta)) {
            return Some(owners.owned(None, owner_of(&meta)));
        }
    }
    for step in walk.steps.iter().filter(|s| s.kind == StepKind::Link) {
        if let Ok(meta) = lstat(&step.path)
            && owners.foreign(owner_of(&meta))
        {
            return Some(owners.owned(Some(&step.path), owner_of(&meta)));
        }
    }
    let folders: BTreeSet<&Path> = walk
        .steps
        .iter()
        .flat_map(|s| s.path.ancestors().skip(1))
        .collect();
    for folder in folders {
        let Ok(meta) = lstat(folder) else {
            continue;
        };
        if is_open(&meta) {
            return Some(Ownership::OpenFolder(folder.to_path_buf()));
        }
        if owners.foreign(owner_of(&meta)) {
            return Some(owners.owned(Some(folder), owner_of(&meta)));
        }
    }
    None
}

/// Group- or world-writable, and not a sticky folder.
fn is_open(meta: &fs::Metadata) -> bool {
    let sticky_dir = meta.is_dir() && is_sticky(meta);
    !meta.file_type().is_symlink() && writable_by_others(meta) && !sticky_dir
}
