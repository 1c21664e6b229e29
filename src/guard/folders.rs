//! The folders a path must stay out of (agent-writable, or hidden by the box), and how a
//! path is found in one: by spelling, along every link on its way, and by (device, inode)
//! against each folder it passes; plus the per-process links that no start-up check can
//! follow for the hook.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::Place;
use crate::paths::{StepKind, TraceError, Walk, identity, lexical, walk};
use crate::platform::sys::file_system::case_insensitive_fs;

/// A folder the agent can write (or the sandbox hides), ready for comparisons.
#[derive(Debug, Clone)]
pub(super) struct Folder {
    /// As the session names it.
    pub(super) dir: PathBuf,
    why: &'static str,
    /// The lexical form of the absolute path and, when it can be walked, where it leads.
    forms: Vec<PathBuf>,
    /// Its (device, inode), when it exists: a bind mount of it has the same.
    id: Option<(u64, u64)>,
    /// The device it is on (or, while it does not exist, its nearest existing parent is).
    pub(super) dev: Option<u64>,
}

impl Folder {
    /// A folder, made absolute against the project if it is relative.
    pub(super) fn new(dir: PathBuf, why: &'static str, project: &Path) -> Folder {
        let abs = project.join(&dir);
        let mut forms = vec![lexical(&abs)];
        if let Ok(w) = walk(&abs)
            && !forms.contains(&w.end)
        {
            forms.push(w.end);
        }
        let id = identity(&abs).map(|i| (i.dev, i.ino));
        let dev = id
            .map(|(dev, _)| dev)
            .or_else(|| abs.ancestors().find_map(identity).map(|i| i.dev));
        Folder {
            dir,
            why,
            forms,
            id,
            dev,
        }
    }

    /// Where to look through it: where it leads.
    pub(super) fn search_root(&self) -> &Path {
        self.forms
            .last()
            .map_or(self.dir.as_path(), PathBuf::as_path)
    }

    /// The [`Place`] of a path found in it as written.
    pub(super) fn place(&self) -> Place {
        Place {
            dir: self.dir.clone(),
            why: self.why,
            through: None,
            alias: None,
        }
    }

    /// Whether `path` is in this folder (or strictly below it).
    fn holds(&self, path: &Path, strict: bool) -> bool {
        self.forms.iter().any(|form| within(path, form, strict))
    }
}

/// `path` is `folder` or below it (strictly below, if `strict`), by whole components.
/// On macOS and Windows, whose file systems usually ignore case, case is ignored too.
fn within(path: &Path, folder: &Path, strict: bool) -> bool {
    let (path, folder) = (fold_case(path), fold_case(folder));
    path.starts_with(&folder) && !(strict && path == folder)
}

/// The path as compared: lower-cased where the OS ignores case (macOS, Windows),
/// unchanged (not copied) elsewhere.
fn fold_case(path: &Path) -> Cow<'_, Path> {
    if case_insensitive_fs() {
        Cow::Owned(PathBuf::from(path.to_string_lossy().to_lowercase()))
    } else {
        Cow::Borrowed(path)
    }
}

/// A folder a path was found in, and how.
pub(super) struct Found<'f> {
    pub(super) folder: &'f Folder,
    /// The last link followed before it got there.
    pub(super) through: Option<PathBuf>,
    /// The folder on the way that is `folder` by device and inode, when only that says so.
    alias: Option<PathBuf>,
}

impl Found<'_> {
    /// The [`Place`] of the path.
    pub(super) fn place(self) -> Place {
        Place {
            dir: self.folder.dir.clone(),
            why: self.folder.why,
            through: self.through,
            alias: self.alias,
        }
    }
}

/// The first folder among `folders` that a path is in; or why it could not be followed.
/// Checked by spelling: the path as written (lexically), each folder or link on the way
/// (strictly inside), and where it leads. Then by identity: each folder the walk passed
/// through (and the end) against the folders' (device, inode), which catches a bind mount
/// of a writable folder mounted under another name.
pub(super) fn find_in<'f>(
    seen: &Examined,
    folders: &'f [Folder],
) -> Result<Option<Found<'f>>, String> {
    let first = |path: &Path, strict: bool| folders.iter().find(|f| f.holds(path, strict));
    if let Some(folder) = first(&seen.lexical, false) {
        return Ok(Some(Found {
            folder,
            through: None,
            alias: None,
        }));
    }
    let walk = seen.walk.as_ref().map_err(ToString::to_string)?;
    for step in &walk.steps {
        if let Some(folder) = first(&step.path, step.kind != StepKind::End) {
            return Ok(Some(Found {
                folder,
                through: step.via.clone(),
                alias: None,
            }));
        }
    }
    if folders.iter().all(|f| f.id.is_none()) {
        return Ok(None);
    }
    // By the paths' bytes: the ancestors of the walk's (lexical) paths are their
    // prefixes, and comparing bytes costs a fraction of comparing `Path`s by component.
    let mut stated = HashSet::new();
    for step in &walk.steps {
        // The walk's paths hold no links, so each parent is a real folder.
        let strict = usize::from(step.kind != StepKind::End);
        for dir in step.path.ancestors().skip(strict) {
            if !stated.insert(dir.as_os_str()) {
                continue;
            }
            // The walk's paths hold no links, so following them changes nothing.
            let Some(id) = identity(dir) else {
                continue;
            };
            let id = Some((id.dev, id.ino));
            if let Some(folder) = folders.iter().find(|f| f.id == id) {
                return Ok(Some(Found {
                    folder,
                    through: step.via.clone(),
                    alias: Some(dir.to_path_buf()),
                }));
            }
        }
    }
    Ok(None)
}

/// The per-process link a path goes through, as written or on the way to where it leads:
/// `/proc/self`, `/proc/thread-self`, `/proc/<pid>`, `/dev/fd`, `/dev/stdin`,
/// `/dev/stdout` or `/dev/stderr`. The kernel resolves each in the context of the process
/// that opens it (its cwd, root, open files), so hookhost following it at start learns
/// nothing about what the hook will open.
pub(super) fn per_process_link(seen: &Examined) -> Option<PathBuf> {
    let walked = seen
        .walk
        .iter()
        .flat_map(|w| w.steps.iter().map(|s| &s.path));
    std::iter::once(&seen.lexical)
        .chain(walked)
        .find_map(|path| per_process_prefix(path))
}

/// The `/proc/X` or `/dev/X` a lexical, absolute path starts with, if X is per-process.
fn per_process_prefix(path: &Path) -> Option<PathBuf> {
    let mut parts = path.components();
    if parts.next() != Some(Component::RootDir) {
        return None;
    }
    let (Some(Component::Normal(top)), Some(Component::Normal(name))) =
        (parts.next(), parts.next())
    else {
        return None;
    };
    let name_bytes = name.as_encoded_bytes();
    let per_process = match top.as_encoded_bytes() {
        b"proc" => {
            matches!(name_bytes, b"self" | b"thread-self")
                || name_bytes.iter().all(u8::is_ascii_digit)
        }
        b"dev" => matches!(name_bytes, b"fd" | b"stdin" | b"stdout" | b"stderr"),
        _ => false,
    };
    per_process.then(|| Path::new("/").join(top).join(name))
}

/// A path, with its lexical form and its walk.
pub(super) struct Examined {
    pub(super) lexical: PathBuf,
    pub(super) walk: Result<Walk, TraceError>,
}

impl Examined {
    /// Examines an absolute path.
    pub(super) fn new(path: PathBuf) -> Examined {
        Examined {
            lexical: lexical(&path),
            walk: walk(&path),
        }
    }
}
