//! OpenSSH's `safe_path` rule for programs and the WASM cache, and the hard-link rule:
//! nothing on a program's way may be changed by another user, and the agent may not reach
//! the program through another name (`other_names.rs` says when another name matters).

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::folders::Examined;
use super::other_names::{self, LinkNote};
use super::{Plan, Refusal, Who, refusal::Ownership};
use crate::paths::{StepKind, Walk, identity, lstat, stat};
use crate::platform::sys::ownership::{
    admin_only_problem, effective_uid, is_sticky, owner_of, writable_by_others,
};
use crate::platform::{AdminProblem, Standing};

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
    /// Root alone (on Windows: SYSTEM, Administrators or TrustedInstaller, with a DACL
    /// that lets no one else write).
    RootOnly,
}

/// OpenSSH's `safe_path` rule over everything a walk passed: the end must not be writable
/// by others (sticky or not) nor owned by anyone outside `owners`, and the folders and
/// links on the way must be owned by `owners`, the folders not group- or world-writable
/// unless sticky (an entry of a sticky folder is then held to `owners` like any other
/// step). Missing parts are skipped. Root alone is each OS's own answer
/// ([`admin_only_problem`]).
pub(super) fn ownership_problem(walk: &Walk, owners: Owners) -> Option<Ownership> {
    let uid = match owners {
        Owners::RootOr(uid) => uid,
        Owners::RootOnly => return admin_only_walk_problem(walk),
    };
    let foreign = |owner: u32| owner != 0 && owner != uid;
    if let Ok(meta) = lstat(&walk.end) {
        // The end itself: the sticky bit does not help (others could add files to it).
        if writable_by_others(&meta) {
            return Some(Ownership::OpenItself);
        }
        if foreign(owner_of(&meta)) {
            return Some(Ownership::OwnedItself(owner_of(&meta)));
        }
    }
    for step in links_on_the_way(walk) {
        if let Ok(meta) = lstat(step)
            && foreign(owner_of(&meta))
        {
            return Some(Ownership::OwnedOnTheWay(
                step.to_path_buf(),
                owner_of(&meta),
            ));
        }
    }
    for folder in folders_on_the_way(walk) {
        let Ok(meta) = lstat(folder) else {
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

/// System mode's rule over everything a walk passed, in the same order as the user
/// mode's (the end, the links, the folders), each path judged by the OS
/// ([`admin_only_problem`]: POSIX's uid 0 and mode bits, Windows' owner and DACL).
fn admin_only_walk_problem(walk: &Walk) -> Option<Ownership> {
    let judged = |path: &Path, standing: Standing| {
        let meta = lstat(path).ok()?;
        let problem = admin_only_problem(path, &meta, standing)?;
        let on_the_way = (standing != Standing::End).then(|| path.to_path_buf());
        Some(worded(on_the_way, meta.is_dir(), problem))
    };
    if let Some(problem) = judged(&walk.end, Standing::End) {
        return Some(problem);
    }
    links_on_the_way(walk)
        .find_map(|link| judged(link, Standing::Link))
        .or_else(|| {
            folders_on_the_way(walk)
                .into_iter()
                .find_map(|folder| judged(folder, Standing::Folder))
        })
}

/// An OS's answer in the guard's words (`on_the_way`: the folder or link it is about,
/// `None` for the end itself; `folder`: that path is a folder).
fn worded(on_the_way: Option<PathBuf>, folder: bool, problem: AdminProblem) -> Ownership {
    match (problem, on_the_way) {
        (AdminProblem::OpenMode, None) => Ownership::OpenItself,
        (AdminProblem::OpenMode, Some(dir)) => Ownership::OpenFolder(dir),
        (AdminProblem::OwnerUid(uid), None) => Ownership::NotRootItself(uid),
        (AdminProblem::OwnerUid(uid), Some(path)) => Ownership::NotRootOnTheWay(path, uid),
        (AdminProblem::Acl(problem), on_the_way) => Ownership::NotAdminAcl {
            on_the_way,
            folder,
            problem: Box::new(problem),
        },
    }
}

/// The links a walk followed.
fn links_on_the_way(walk: &Walk) -> impl Iterator<Item = &Path> {
    walk.steps
        .iter()
        .filter(|s| s.kind == StepKind::Link)
        .map(|s| s.path.as_path())
}

/// Every folder above a place the walk passed, once each, in path order. Told apart by
/// their bytes first (the walk's paths are lexical, so their ancestors are prefixes of
/// them), which costs a fraction of a `BTreeSet`'s comparisons of `Path`s by component;
/// only the few left are sorted so.
fn folders_on_the_way(walk: &Walk) -> Vec<&Path> {
    let mut seen = HashSet::new();
    let mut folders: Vec<&Path> = walk
        .steps
        .iter()
        .flat_map(|s| s.path.ancestors().skip(1))
        .filter(|folder| seen.insert(folder.as_os_str()))
        .collect();
    folders.sort_unstable();
    folders.dedup();
    folders
}

/// Group- or world-writable, and not a sticky folder.
fn is_open(meta: &fs::Metadata) -> bool {
    let sticky_dir = meta.is_dir() && is_sticky(meta);
    !meta.file_type().is_symlink() && writable_by_others(meta) && !sticky_dir
}
