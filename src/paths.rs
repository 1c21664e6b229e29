//! Path helpers shared by the start-up path guard ([`crate::guard`]) and the box
//! ([`crate::sandbox`]): lexical normalisation, following links (with one hop limit for
//! both), "is this an executable file", and the PATH search.
//!
//! Link following exists twice on purpose, with one limit ([`MAX_LINK_HOPS`]):
//! * `walk` is the guard's: it follows a path part by part as the kernel would and
//!   records every folder, link and the end it passed (the guard checks each of them), and
//!   it stops with an error on anything but a missing part (an unreadable folder is a path
//!   the guard cannot vouch for);
//! * `resolve` is the box's (`platform/unix/box_paths.rs`, beside the boxes of Linux and
//!   macOS that use it): it wants only where a hidden path leads, canonicalising the
//!   longest existing prefix, and takes a link it cannot read as the end of the path.
//!
//! Merging them would change what one of them refuses, so both stay, with one limit.
//!
//! The guard asks the same questions of the same folders many times in one check (every
//! path's walk passes `/`, `/home`, the project's parents; every writable folder is
//! compared by identity against every folder on the way): [`memoised`] answers each
//! question about a path once per check ([`lstat`], [`stat`], [`read_link`],
//! [`identity`]), which cut a bridged host hook's 387 `statx` to 99 (BENCHMARKS.md,
//! seventh sitting). The answers live only while the check runs, so a check still sees
//! the file system as it is when it starts, as before.

use std::cell::RefCell;
use std::collections::HashMap;
use std::env;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::thread::LocalKey;

use crate::platform::FileId;
use crate::platform::sys;
use crate::platform::sys::ownership;

/// What one check has learnt of the file system, by path (see [`memoised`]). Keyed by the
/// path's exact bytes, not by `Path`'s equality, which takes `a/`, `a/.` and `a` for one
/// path: `lstat` of the first two follows a link at `a`, of the last it does not. An
/// error is kept only when it is the OS's (an errno), so that it reads the same when it
/// is made again; any other error is asked for again.
#[derive(Default)]
struct Lookups {
    lstat: HashMap<OsString, Result<fs::Metadata, i32>>,
    stat: HashMap<OsString, Result<fs::Metadata, i32>>,
    links: HashMap<OsString, Result<PathBuf, i32>>,
    ids: HashMap<OsString, Option<FileId>>,
}

thread_local! {
    /// The lookups of the check running on this thread, if one runs in [`memoised`].
    static LOOKUPS: RefCell<Option<Lookups>> = const { RefCell::new(None) };
}

/// Runs `check` with each of [`lstat`], [`stat`], [`read_link`] and [`identity`] asked
/// of the file system at most once per path (a second question is answered from the
/// first); within an outer `memoised`, shares its answers. Everything is forgotten when
/// the outermost one returns.
pub(crate) fn memoised<T>(check: impl FnOnce() -> T) -> T {
    in_thread_memo(&LOOKUPS, check)
}

/// Runs `run` with the per-thread table `memo` set (empty) unless an outer run has set
/// it already, which it then shares; the outermost run forgets it when it returns.
pub(crate) fn in_thread_memo<M: Default + 'static, T>(
    memo: &'static LocalKey<RefCell<Option<M>>>,
    run: impl FnOnce() -> T,
) -> T {
    let outer = memo.with(|m| {
        let mut m = m.borrow_mut();
        let outer = m.is_some();
        if !outer {
            *m = Some(M::default());
        }
        outer
    });
    // Forget the table however `run` ends (a panic included), so that no later run on
    // this thread trusts it.
    struct Forget<M: 'static>(&'static LocalKey<RefCell<Option<M>>>, bool);
    impl<M: 'static> Drop for Forget<M> {
        fn drop(&mut self) {
            if !self.1 {
                self.0.with(|m| *m.borrow_mut() = None);
            }
        }
    }
    let _forget = Forget(memo, outer);
    run()
}

/// One table of [`Lookups`].
type Table<E> = fn(&mut Lookups) -> &mut HashMap<OsString, E>;

/// What `table` of the running check holds for `path`: `None` when no check runs,
/// `Some(None)` when this check has not asked yet.
fn recalled<E: Clone>(table: Table<E>, path: &Path) -> Option<Option<E>> {
    LOOKUPS.with(|l| {
        l.borrow_mut()
            .as_mut()
            .map(|lookups| table(lookups).get(path.as_os_str()).cloned())
    })
}

/// Keeps `entry` for `path` in `table` of the running check, if one runs.
fn remember<E>(table: Table<E>, path: &Path, entry: E) {
    LOOKUPS.with(|l| {
        if let Some(lookups) = l.borrow_mut().as_mut() {
            table(lookups).insert(path.as_os_str().to_owned(), entry);
        }
    });
}

/// One question about `path`, answered from `table` of the running check when it was
/// asked before, else by `ask` (and remembered when a check runs).
fn remembered<V: Clone>(
    table: Table<Result<V, i32>>,
    path: &Path,
    ask: impl FnOnce(&Path) -> io::Result<V>,
) -> io::Result<V> {
    let known = recalled(table, path);
    match known {
        Some(Some(Ok(v))) => return Ok(v),
        Some(Some(Err(errno))) => return Err(io::Error::from_raw_os_error(errno)),
        Some(None) | None => {}
    }
    let answer = ask(path);
    if known.is_some() {
        let kept = match &answer {
            Ok(v) => Some(Ok(v.clone())),
            Err(e) => e.raw_os_error().map(Err),
        };
        if let Some(kept) = kept {
            remember(table, path, kept);
        }
    }
    answer
}

/// [`fs::symlink_metadata`], once per path within [`memoised`].
pub(crate) fn lstat(path: &Path) -> io::Result<fs::Metadata> {
    remembered(|l| &mut l.lstat, path, |p| fs::symlink_metadata(p))
}

/// [`fs::metadata`] (links followed), once per path within [`memoised`].
pub(crate) fn stat(path: &Path) -> io::Result<fs::Metadata> {
    remembered(|l| &mut l.stat, path, |p| fs::metadata(p))
}

/// [`fs::read_link`], once per path within [`memoised`].
pub(crate) fn read_link(path: &Path) -> io::Result<PathBuf> {
    remembered(|l| &mut l.links, path, |p| fs::read_link(p))
}

/// The OS's identity of what `path` names (links followed), once per path within
/// [`memoised`].
pub(crate) fn identity(path: &Path) -> Option<FileId> {
    let known = recalled(|l| &mut l.ids, path);
    if let Some(Some(id)) = known {
        return id;
    }
    // What this check's `lstat` of the same spelling found, when that was no link, is
    // what `stat` would find: every folder a walk passed is answered so.
    if known.is_some()
        && let Some(Some(Ok(meta))) = recalled(|l| &mut l.lstat, path)
        && !meta.file_type().is_symlink()
        && let Some(id) = ownership::identity_in(&meta)
    {
        remember(|l| &mut l.ids, path, Some(id));
        return Some(id);
    }
    // Where this check's `lstat` found nothing there (or a parent no folder), following
    // a link at the end finds nothing either: most of a box's hidden paths are absent,
    // and each cost a `stat` more (BENCHMARKS.md, twenty-second sitting).
    if known.is_some()
        && let Some(Some(Err(errno))) = recalled(|l| &mut l.lstat, path)
        && is_missing(&io::Error::from_raw_os_error(errno))
    {
        remember(|l| &mut l.ids, path, None);
        return None;
    }
    let id = ownership::identity(path);
    if known.is_some() {
        remember(|l| &mut l.ids, path, id);
    }
    id
}

/// The most links followed while resolving one path; more is refused as a loop (the
/// kernel's own limit).
pub const MAX_LINK_HOPS: usize = 40;

/// The longest path a walk spells out once it has followed a link, in bytes: Linux names
/// no longer path in one call (`PATH_MAX`, with its NUL), and macOS a shorter one. Past a
/// missing part the walk goes on by spelling, and links whose targets each add thousands
/// of parts would have it spell a path of megabytes and copy it at every step
/// (docs/threats.md B7). The box's resolution of its hidden paths stops at the same
/// bounds.
pub(crate) const MAX_WALKED_PATH: usize = 4096;

/// The longest path a walk spells out before it follows a link: Windows' longest path.
/// Such a path is at most as long as the one asked about, which the agent may still
/// choose (a variable of its settings); each step keeps a copy, so it too is bounded.
const MAX_UNLINKED_PATH: usize = 32 << 10;

/// The longest path a walk spells out, having followed `hops` links.
pub(crate) fn longest_walked(hops: usize) -> usize {
    if hops > 0 {
        MAX_WALKED_PATH
    } else {
        MAX_UNLINKED_PATH
    }
}

/// The most parts (names and `..`) one walk takes, its links' included: 40 links of 4 KiB
/// targets could hold 80,000, each a step that keeps its path; a real path has dozens.
pub(crate) const MAX_WALKED_PARTS: usize = 4096;

/// The path with `.`, `..`, repeated and trailing `/` resolved by spelling alone (a `..`
/// at the root, or at the start of a relative path, is dropped).
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where `path` leads: absolute, the links of its longest existing ancestor resolved, the
/// rest appended as written (the whole path as written when nothing of it resolves).
pub(crate) fn leads_to(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut at = path.as_path();
    loop {
        if let Ok(found) = fs::canonicalize(at) {
            return rest.iter().rev().fold(found, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path,
        }
    }
}

/// A regular file (after links) with an execute bit.
pub(crate) fn is_executable_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && ownership::has_execute_bit(&m))
}

/// The folders a PATH search visits, in order, with each entry's index in `path`.
/// Empty and relative entries are taken from `cwd` when given, else skipped.
pub(crate) fn path_dirs<'a>(
    path: &'a OsStr,
    cwd: Option<&'a Path>,
) -> impl Iterator<Item = (usize, PathBuf)> + 'a {
    env::split_paths(path)
        .enumerate()
        .filter_map(move |(i, entry)| match (entry.is_absolute(), cwd) {
            (true, _) => Some((i, entry)),
            (false, Some(cwd)) => Some((i, cwd.join(entry))),
            (false, None) => None,
        })
}

/// Finds `name` on `path`: the index of the entry and the executable file found there.
/// Empty and relative entries are searched from `cwd` when given, else skipped.
pub(crate) fn lookup_on_path(
    name: &OsStr,
    path: Option<&OsStr>,
    cwd: Option<&Path>,
) -> Option<(usize, PathBuf)> {
    if name.is_empty() {
        return None;
    }
    // Windows finds `cmd` as `cmd.exe` (PATHEXT); POSIX only by its name.
    let names = sys::file_system::executable_names(name);
    path_dirs(path?, cwd).find_map(|(i, dir)| {
        names
            .iter()
            .map(|n| dir.join(n))
            .find(|candidate| is_executable_file(candidate))
            .map(|candidate| (i, candidate))
    })
}

/// What a step of a walk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepKind {
    /// A folder (or a missing part) passed on the way.
    Pass,
    /// A link, followed.
    Link,
    /// Where the path leads.
    End,
}

/// One place a walk passed, and the last link followed before it.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) path: PathBuf,
    pub(crate) kind: StepKind,
    pub(crate) via: Option<PathBuf>,
}

/// A path followed to where it leads.
#[derive(Debug, Clone)]
pub(crate) struct Walk {
    /// Every folder, link and the end, in order; their paths contain no links.
    pub(crate) steps: Vec<Step>,
    /// Where it leads.
    pub(crate) end: PathBuf,
    /// Whether `end` exists.
    pub(crate) end_exists: bool,
    /// A link was followed to somewhere that does not exist (yet).
    pub(crate) dangling: bool,
}

/// Why a walk stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TraceError {
    #[error("a loop of links, or more than {MAX_LINK_HOPS} of them")]
    Loop,
    #[error(
        "longer than {MAX_WALKED_PATH} bytes once a link is followed ({MAX_UNLINKED_PATH} before), or of more than {MAX_WALKED_PARTS} parts"
    )]
    TooLong,
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// One part of a path still to walk.
pub(crate) enum Part {
    /// A Windows drive or share (`C:`, `\\server\share`): the root that follows is its.
    Prefix(OsString),
    Root,
    Up,
    Name(OsString),
}

/// The parts of a path, in order (`.` left out).
pub(crate) fn parts(path: &Path) -> Vec<Part> {
    path.components()
        .filter_map(|c| match c {
            Component::Prefix(prefix) => Some(Part::Prefix(prefix.as_os_str().to_owned())),
            Component::RootDir => Some(Part::Root),
            Component::ParentDir => Some(Part::Up),
            Component::Normal(name) => Some(Part::Name(name.to_owned())),
            Component::CurDir => None,
        })
        .collect()
}

/// Follows an absolute path part by part, as the kernel would, following every link (a
/// link whose target is missing included: the rest is taken by spelling). A relative
/// path is walked from `/`.
pub(crate) fn walk(start: &Path) -> Result<Walk, TraceError> {
    let mut todo = parts(start);
    todo.reverse();
    // Where `/` is: the root, or on Windows the root of the drive the path names.
    let mut root = PathBuf::from("/");
    let mut cur = root.clone();
    let (mut hops, mut missing, mut dangling) = (0, false, false);
    let mut via: Option<PathBuf> = None;
    let mut steps = Vec::new();
    let mut taken = 0;
    while let Some(part) = todo.pop() {
        taken += 1;
        if taken > MAX_WALKED_PARTS {
            return Err(TraceError::TooLong);
        }
        let name = match part {
            Part::Prefix(prefix) => {
                let mut drive_root = prefix;
                drive_root.push(std::path::MAIN_SEPARATOR_STR);
                root = PathBuf::from(drive_root);
                cur = root.clone();
                continue;
            }
            Part::Root => {
                cur = root.clone();
                continue;
            }
            Part::Up => {
                cur.pop();
                continue;
            }
            Part::Name(name) => name,
        };
        let next = cur.join(&name);
        if next.as_os_str().len() > longest_walked(hops) {
            return Err(TraceError::TooLong);
        }
        let meta = if missing {
            None
        } else {
            match lstat(&next) {
                Ok(meta) => Some(meta),
                Err(e) if is_missing(&e) => None,
                Err(e) => return Err(e.into()),
            }
        };
        if meta.as_ref().is_some_and(|m| m.file_type().is_symlink()) {
            hops += 1;
            if hops > MAX_LINK_HOPS {
                return Err(TraceError::Loop);
            }
            let target = read_link(&next)?;
            let kind = StepKind::Link;
            steps.push(Step {
                path: next.clone(),
                kind,
                via: via.clone(),
            });
            todo.extend(parts(&target).into_iter().rev());
            via = Some(next);
            continue;
        }
        if meta.is_none() && !missing {
            missing = true;
            dangling = hops > 0;
        }
        if !todo.is_empty() {
            steps.push(Step {
                path: next.clone(),
                kind: StepKind::Pass,
                via: via.clone(),
            });
        }
        cur = next;
    }
    steps.push(Step {
        path: cur.clone(),
        kind: StepKind::End,
        via,
    });
    Ok(Walk {
        steps,
        end: cur,
        end_exists: !missing,
        dangling,
    })
}

/// The part does not exist (or its parent is not a folder): the rest is taken by spelling.
fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_resolves_spellings() {
        assert_eq!(
            lexical(Path::new("//a/./b//c/../d/")),
            PathBuf::from("/a/b/d")
        );
        assert_eq!(lexical(Path::new("/../..")), PathBuf::from("/"));
    }

    /// Within one check a path is asked once, and its answer kept until the check ends;
    /// `f` and `f/` are two questions (the second is "not a folder"), though `Path`
    /// takes them for one path.
    #[test]
    fn memoised_answers_each_spelling_once_per_check() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("f");
        fs::write(&file, b"x").unwrap_or_else(|e| panic!("{e}"));
        let slash = dir.path().join("f/");
        memoised(|| {
            assert!(lstat(&file).is_ok());
            assert!(lstat(&slash).is_err());
            fs::remove_file(&file).unwrap_or_else(|e| panic!("{e}"));
            assert!(lstat(&file).is_ok(), "the check's first answer is kept");
            assert!(identity(dir.path()).is_some());
        });
        assert!(lstat(&file).is_err(), "a later check asks again");
    }

    /// Within one check, `identity` of a path whose `lstat` found no link is that
    /// answer's where the OS's metadata tells it (the check sees one file system); of a
    /// link, it is where the link leads.
    #[test]
    fn identity_within_a_check_agrees_with_its_lstat_and_follows_links() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (first, target, link) = (
            dir.path().join("first"),
            dir.path().join("target"),
            dir.path().join("link"),
        );
        fs::create_dir(&first).unwrap_or_else(|e| panic!("{e}"));
        fs::write(&target, b"x").unwrap_or_else(|e| panic!("{e}"));
        sys::files::symlink_file(&target, &link).unwrap_or_else(|e| panic!("{e}"));
        // Outside a check, each question goes to the OS.
        let ino = |p: &Path| identity(p).map(|i| i.ino);
        let (first_ino, target_ino) = (ino(&first), ino(&target));
        assert!(first_ino.is_some() && target_ino.is_some());
        memoised(|| {
            let meta = lstat(&first).unwrap_or_else(|e| panic!("{e}"));
            let told_by_metadata = ownership::identity_in(&meta).is_some();
            // Moved aside, not removed, so that the new folder cannot get its inode.
            fs::rename(&first, dir.path().join("moved")).unwrap_or_else(|e| panic!("{e}"));
            fs::create_dir(&first).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                ino(&first) == first_ino,
                told_by_metadata,
                "the check's own lstat answers where metadata tells the identity"
            );
            assert!(lstat(&link).is_ok_and(|m| m.file_type().is_symlink()));
            assert_eq!(ino(&link), target_ino);
            // Nothing there to its lstat, nothing there to its identity, even once made.
            let absent = dir.path().join("absent");
            assert!(lstat(&absent).is_err() && lstat(&absent.join("below")).is_err());
            fs::create_dir(&absent).unwrap_or_else(|e| panic!("{e}"));
            fs::create_dir(absent.join("below")).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ino(&absent), None, "the check's lstat found nothing there");
            assert_eq!(ino(&absent.join("below")), None);
        });
        assert_ne!(ino(&first), first_ino, "asked again");
        let absent = dir.path().join("absent");
        assert!(ino(&absent).is_some(), "a later check asks again");
    }

    /// Links whose targets each add thousands of parts, ending at a missing part, would
    /// have the walk spell out a path far longer than any the OS can name, and keep a copy
    /// of it at each of its tens of thousands of steps (gigabytes, docs/threats.md B7):
    /// the walk stops at the longest path the OS takes, and at a bounded number of parts.
    #[test]
    fn a_walk_spelled_past_what_the_os_names_stops_with_an_error() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        // Where the temp folder leads (macOS's is under `/var`, a link to `/private/var`).
        let dir = tmp.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::TempDir::new_in(&dir).unwrap_or_else(|e| panic!("{e}"));
        // l1 -> l2/a/a/…, l2 -> l3/a/a/…, …, l40 -> missing: 40 hops, the kernel's limit.
        let tail = "/a".repeat(2_000);
        for i in 1..MAX_LINK_HOPS {
            let target = format!("l{}{tail}", i + 1);
            let link = dir.path().join(format!("l{i}"));
            sys::files::symlink_file(Path::new(&target), &link).unwrap_or_else(|e| panic!("{e}"));
        }
        let last = dir.path().join(format!("l{MAX_LINK_HOPS}"));
        sys::files::symlink_file(Path::new("missing"), &last).unwrap_or_else(|e| panic!("{e}"));
        let walked = walk(&dir.path().join("l1"));
        assert!(
            matches!(walked, Err(TraceError::TooLong)),
            "{:?}",
            walked.map(|w| (w.steps.len(), w.end.as_os_str().len()))
        );
        // Up and down in place past the bound of parts: a short path, every part a step.
        fs::create_dir(dir.path().join("d")).unwrap_or_else(|e| panic!("{e}"));
        let links = MAX_WALKED_PARTS / 1_600 + 1;
        for i in 1..=links {
            let next = if i == links {
                "missing".to_owned()
            } else {
                format!("u{}", i + 1)
            };
            let target = format!("{}{next}", "d/../".repeat(800));
            let link = dir.path().join(format!("u{i}"));
            sys::files::symlink_file(Path::new(&target), &link).unwrap_or_else(|e| panic!("{e}"));
        }
        let walked = walk(&dir.path().join("u1/x"));
        assert!(
            matches!(walked, Err(TraceError::TooLong)),
            "{:?}",
            walked.map(|w| w.steps.len())
        );
        // A walk of many parts within the bound still ends where it leads.
        let target = format!("{}missing", "d/../".repeat(800));
        let near = dir.path().join("near");
        sys::files::symlink_file(Path::new(&target), &near).unwrap_or_else(|e| panic!("{e}"));
        let walked = walk(&near.join("x")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(walked.end, dir.path().join("missing/x"));
        assert!(walked.dangling && !walked.end_exists);
        // A long path of its own, with no link on its way, is spelled as it is.
        let long = dir.path().join("x".repeat(200)).join("y".repeat(4_000));
        let walked = walk(&long).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(walked.end, long);
        // Up to Windows' longest path: each step keeps a copy of the path so far.
        let longer = dir.path().join(format!("{}/", "y".repeat(250)).repeat(140));
        assert!(matches!(walk(&longer), Err(TraceError::TooLong)));
    }
}
