//! The hard-link rule: whether a program's other names (hard links) let the agent change
//! it, and what the guard found out about them ([`LinkNote`], which `doctor` reports).
//!
//! A file's content can be changed through any of its names by whoever may write the file
//! itself (its owner and mode, not the folder a name is in), and through a name the agent
//! can reach. So another name matters only when both hold:
//!
//! * the agent could write the file: as root, any file (root ignores modes); not root,
//!   a file we own (one writable by the group or others, or owned by another user, is
//!   already refused by OpenSSH's rule);
//! * a name for it lies in a folder the agent can write. Hard links cannot cross file
//!   systems, so only the writable folders on the file's own file system can hold one,
//!   and those are looked through here for a file of the same device and inode (not
//!   following links, not entering other file systems, at most [`MAX_ENTRIES_SEARCHED`]
//!   entries). A folder that cannot be looked through all the way (too large, unreadable)
//!   counts as holding one: the rule fails closed.
//!
//! So perf's build-id cache (`~/.debug/usr/bin/bash/<id>/elf`, a second name for
//! `/usr/bin/bash` in root's home) does not matter, while `ln hooks/hl.sh proj/hl.sh`
//! (F13) does, as root too. A link made after start is not seen (threats.md, F13).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::Place;
use super::folders::Folder;
use crate::platform::sys::ownership::{FileId, identity};

/// How many folder entries one search looks at before it gives up (and refuses): enough
/// for a large project, few enough to keep a bridged call quick.
pub const MAX_ENTRIES_SEARCHED: usize = 200_000;

/// What the guard found about a program with more than one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkNote {
    /// The hook.
    pub hook: String,
    /// The program, as the guard names it (an interpreter with where it was named).
    pub subject: String,
    /// Where it leads.
    pub path: PathBuf,
    /// How many names it has.
    pub links: u64,
    /// Whether that matters, and why.
    pub verdict: LinkVerdict,
}

/// Whether a program's other names let the agent change it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkVerdict {
    /// Not root, and the file is another user's (root's): the agent cannot write it
    /// through any name.
    NotWritable {
        /// Its owner.
        owner: u32,
    },
    /// No folder the agent can write is on its file system, so no name can be in one.
    OtherFileSystem,
    /// The writable folders on its file system were looked through: no name there.
    NoneInWritable {
        /// The folders looked through.
        searched: Vec<PathBuf>,
    },
    /// A name lies in a folder the agent can write: refused.
    Found {
        /// That name.
        name: PathBuf,
        /// The folder it is in.
        place: Place,
    },
    /// A writable folder on its file system could not be looked through: refused.
    Unsearched {
        /// The writable folder.
        dir: PathBuf,
        /// Why not (`more than 200000 entries`, a read error).
        cause: String,
    },
}

impl LinkVerdict {
    /// Whether the agent could (or might) change the program through another name.
    pub fn matters(&self) -> bool {
        matches!(
            self,
            LinkVerdict::Found { .. } | LinkVerdict::Unsearched { .. }
        )
    }
}

impl std::fmt::Display for LinkVerdict {
    /// Why it matters or not, after "PATH has N names (hard links)".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkVerdict::NotWritable { owner } => write!(
                f,
                "it belongs to uid {owner}, so the agent cannot write it through any of them; that does not matter"
            ),
            LinkVerdict::OtherFileSystem => f.write_str(
                "no folder the agent can write is on its file system, and a hard link cannot leave one; that does not matter",
            ),
            LinkVerdict::NoneInWritable { searched } => {
                let searched: Vec<String> =
                    searched.iter().map(|d| d.display().to_string()).collect();
                write!(
                    f,
                    "none is in a folder the agent can write (looked through {}); that does not matter",
                    searched.join(", ")
                )
            }
            LinkVerdict::Found { name, place } => write!(
                f,
                "and {} {place}, so the agent could change it through that name: the hook is refused. Give the hook a copy of its own",
                name.display()
            ),
            LinkVerdict::Unsearched { dir, cause } => write!(
                f,
                "and {} could not be looked through for them ({cause}), so one may be there: the hook is refused. Give the hook a copy of its own",
                dir.display()
            ),
        }
    }
}

/// What one run of the guard learnt about programs with other names: each file's verdict
/// (looked for once, however many hooks run it) and the notes, in the order met.
#[derive(Debug, Default)]
pub(super) struct Names {
    verdicts: RefCell<HashMap<(u64, u64, bool), LinkVerdict>>,
    notes: RefCell<Vec<LinkNote>>,
}

impl Names {
    /// The verdict for `key` (device, inode, whether the hook is boxed), worked out once.
    pub(super) fn verdict(
        &self,
        key: (u64, u64, bool),
        work_out: impl FnOnce() -> LinkVerdict,
    ) -> LinkVerdict {
        if let Some(known) = self.verdicts.borrow().get(&key) {
            return known.clone();
        }
        let verdict = work_out();
        self.verdicts.borrow_mut().insert(key, verdict.clone());
        verdict
    }

    /// Notes a program, once per hook and name.
    pub(super) fn note(&self, note: LinkNote) {
        let mut notes = self.notes.borrow_mut();
        if !notes
            .iter()
            .any(|n| n.hook == note.hook && n.subject == note.subject)
        {
            notes.push(note);
        }
    }

    /// The notes.
    pub(super) fn into_notes(self) -> Vec<LinkNote> {
        self.notes.into_inner()
    }
}

/// Whether another name for the file `id` (owned by `owner`; we are `uid`) lets the
/// agent change it, given the folders it can write.
pub(super) fn verdict(id: FileId, owner: u32, uid: u32, writable: &[Folder]) -> LinkVerdict {
    if uid != 0 && owner != uid {
        return LinkVerdict::NotWritable { owner };
    }
    let on_its_fs: Vec<&Folder> = writable.iter().filter(|f| f.dev == Some(id.dev)).collect();
    if on_its_fs.is_empty() {
        return LinkVerdict::OtherFileSystem;
    }
    search(&on_its_fs, id, MAX_ENTRIES_SEARCHED)
}

/// Looks through `folders` for a name of `target`, at most `budget` entries in all.
fn search(folders: &[&Folder], target: FileId, budget: usize) -> LinkVerdict {
    let mut seen = 0usize;
    let mut visited = HashSet::new();
    let mut searched = Vec::new();
    for folder in folders {
        let root = folder.search_root();
        let Some(id) = identity(root) else {
            continue; // not there (yet): nothing in it
        };
        if id.dev != target.dev || !visited.insert((id.dev, id.ino)) {
            continue;
        }
        searched.push(folder.dir.clone());
        let unsearched = |cause: String| LinkVerdict::Unsearched {
            dir: folder.dir.clone(),
            cause,
        };
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                // We cannot pass through it, so neither can the agent (it is us).
                Err(_) if !traversable(&dir) => continue,
                Err(e) => return unsearched(format!("{}: {e}", dir.display())),
            };
            for entry in entries {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(e) => return unsearched(format!("{}: {e}", dir.display())),
                };
                seen += 1;
                if seen > budget {
                    return unsearched(format!("more than {budget} entries"));
                }
                let Ok(kind) = entry.file_type() else {
                    return unsearched(format!("{}: unknown file type", entry.path().display()));
                };
                let path = entry.path();
                if kind.is_dir() {
                    // A folder we cannot stat we cannot enter, nor can the agent.
                    if let Some(id) = identity(&path)
                        && id.dev == target.dev
                        && visited.insert((id.dev, id.ino))
                    {
                        stack.push(path);
                    }
                } else if kind.is_file()
                    && identity(&path).is_some_and(|i| i.dev == target.dev && i.ino == target.ino)
                {
                    return LinkVerdict::Found {
                        name: path,
                        place: folder.place(),
                    };
                }
            }
        }
    }
    LinkVerdict::NoneInWritable { searched }
}

/// Whether a folder can be passed through (looked up in) though not listed: `dir/.`
/// resolves only with search permission on `dir`.
fn traversable(dir: &Path) -> bool {
    fs::metadata(dir.join(".")).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(dir: &Path, why: &'static str) -> Folder {
        Folder::new(dir.to_path_buf(), why, dir)
    }

    #[test]
    fn another_name_matters_only_in_a_writable_folder_the_agent_can_reach() {
        let tmp = tempfile::tempdir().unwrap();
        let (hooks, proj) = (tmp.path().join("hooks"), tmp.path().join("proj"));
        fs::create_dir_all(proj.join("deep/er")).unwrap();
        fs::create_dir(&hooks).unwrap();
        let prog = hooks.join("h.sh");
        fs::write(&prog, "#!/bin/sh\n").unwrap();
        // A copy is not a name of it.
        fs::copy(&prog, proj.join("copy.sh")).unwrap();
        fs::hard_link(&prog, tmp.path().join("elsewhere.sh")).unwrap();
        let writable = [folder(&proj, super::super::WHY_PROJECT)];
        let id = identity(&prog).unwrap();
        let v = verdict(id, 0, 0, &writable);
        assert_eq!(
            v,
            LinkVerdict::NoneInWritable {
                searched: vec![proj.clone()]
            }
        );
        assert!(!v.matters());
        // Not root, a file of another user's: no search at all.
        assert_eq!(
            verdict(id, 0, 1000, &writable),
            LinkVerdict::NotWritable { owner: 0 }
        );
        // A name deep in the project.
        let inside = proj.join("deep/er/h.sh");
        fs::hard_link(&prog, &inside).unwrap();
        let id = identity(&prog).unwrap();
        let v = verdict(id, 0, 0, &writable);
        assert!(
            matches!(&v, LinkVerdict::Found { name, .. } if *name == inside),
            "{v:?}"
        );
        assert!(v.matters());
        // A folder too large to look through counts as holding one.
        let v = search(&[&writable[0]], id, 2);
        assert!(
            matches!(&v, LinkVerdict::Unsearched { cause, .. } if cause == "more than 2 entries"),
            "{v:?}"
        );
        // No writable folder on its file system (a made-up device): nothing to look at.
        let other = FileId {
            dev: id.dev ^ 1,
            ..id
        };
        assert_eq!(
            verdict(other, 0, 0, &writable),
            LinkVerdict::OtherFileSystem
        );
    }
}
