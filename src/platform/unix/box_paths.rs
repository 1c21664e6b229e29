//! The boxes' path checks (Linux's and macOS's; Windows has no box): a path that must be
//! absolute, a folder that must exist, and where a hidden path leads.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use crate::paths::{MAX_LINK_HOPS, MAX_WALKED_PARTS, Part, TraceError, longest_walked, parts};
use crate::sandbox::SandboxError;

/// `path` is absolute, else the error that names `what`.
pub(crate) fn absolute(what: &'static str, path: &Path) -> Result<(), SandboxError> {
    if path.is_absolute() {
        Ok(())
    } else {
        Err(SandboxError::NotAbsolute {
            what,
            path: path.to_owned(),
        })
    }
}

/// `path` (absolute) resolved to the folder it names, else the error that names `what`.
pub(crate) fn canonical_dir(what: &'static str, path: &Path) -> Result<PathBuf, SandboxError> {
    absolute(what, path)?;
    let err = |source| SandboxError::Path {
        what,
        path: path.to_owned(),
        source,
    };
    let c = std::fs::canonicalize(path).map_err(err)?;
    if !c.is_dir() {
        return Err(err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a folder",
        )));
    }
    Ok(c)
}

/// Where absolute paths lead, following symlinks even when the end is missing: the
/// longest existing prefix is resolved as the kernel resolves it and a dangling link is
/// followed to where it would create its target; from the first part that is not there
/// (or cannot be looked at) on, the rest is taken by spelling. More than
/// [`MAX_LINK_HOPS`] links on the way is an error, as it is to the kernel.
///
/// It walks as the guard's `paths::walk` does, with one difference: what it cannot look
/// at is taken by spelling (hidden there), where the guard refuses it. The path is walked
/// part by part, never by recursion: a link's target may hold
/// thousands of parts, each a link again, and an agent that can write near a hidden path
/// can make such links (docs/threats.md B2). It stops where the guard's walk stops: past
/// the longest path the OS names, or past a bound of parts (B7).
///
/// It remembers what each place it looked at is, for the one list it serves. A box
/// resolves its whole hidden list (some eighty paths under two homes) for every command;
/// path by path through `realpath`, each read every link of its home again, 0.7 ms of a
/// boxed call (BENCHMARKS.md, twenty-second sitting). One resolver serves one list,
/// looked at once, so nothing it keeps is older than the command it helps build.
#[derive(Default)]
pub(crate) struct Resolver {
    /// What is at each place looked at, by the path's bytes: hashing a `Path` walks its
    /// components, a fifth of the resolver's time.
    seen: HashMap<OsString, Place>,
}

/// What a resolver found at a place (a path without links).
#[derive(Clone)]
enum Place {
    /// A link, to this target.
    Link(PathBuf),
    /// Something that is no link.
    Other,
    /// Nothing, or nothing this process can look at.
    Nothing,
}

/// Where one absolute path leads (a [`Resolver`] of its own).
#[cfg(test)]
pub(crate) fn resolve(path: &Path) -> io::Result<PathBuf> {
    Resolver::default().resolve(path)
}

impl Resolver {
    /// Where `path` (absolute) leads.
    pub(crate) fn resolve(&mut self, path: &Path) -> io::Result<PathBuf> {
        // The parts still to walk, the next one last: a link's target goes on top.
        let mut todo = parts(path);
        todo.reverse();
        let mut here = PathBuf::from("/");
        let mut links = 0;
        let mut missing = false;
        let mut taken = 0;
        while let Some(part) = todo.pop() {
            taken += 1;
            if taken > MAX_WALKED_PARTS {
                return Err(io::Error::other(TraceError::TooLong));
            }
            let name = match part {
                Part::Root => {
                    here = PathBuf::from("/");
                    continue;
                }
                Part::Up => {
                    here.pop();
                    continue;
                }
                Part::Prefix(_) => continue, // none on Unix
                Part::Name(name) => name,
            };
            let next = here.join(&name);
            if next.as_os_str().len() > longest_walked(links) {
                return Err(io::Error::other(TraceError::TooLong));
            }
            let place = match missing {
                true => Place::Nothing,
                false => self.look(&next),
            };
            match place {
                Place::Link(target) => {
                    links += 1;
                    if links > MAX_LINK_HOPS {
                        return Err(too_many_links());
                    }
                    // A relative target goes on from the link's folder, `here`.
                    todo.extend(parts(&target).into_iter().rev());
                }
                Place::Other => here = next,
                Place::Nothing => {
                    if !missing {
                        here = disk_spelling(here);
                        missing = true;
                    }
                    here.push(name);
                }
            }
        }
        Ok(if missing { here } else { disk_spelling(here) })
    }

    /// What is at `place`, looked at once.
    fn look(&mut self, place: &Path) -> Place {
        if let Some(seen) = self.seen.get(place.as_os_str()) {
            return seen.clone();
        }
        let found = match std::fs::symlink_metadata(place) {
            Ok(meta) if meta.file_type().is_symlink() => match std::fs::read_link(place) {
                Ok(target) => Place::Link(target),
                Err(_) => Place::Nothing,
            },
            Ok(_) => Place::Other,
            Err(_) => Place::Nothing,
        };
        self.seen
            .insert(place.as_os_str().to_owned(), found.clone());
        found
    }
}

/// The spelling of an existing, link-free path as the file system has it. macOS's
/// `realpath` gives each part as the disk spells it (its case, its Unicode form), which
/// Seatbelt compares; elsewhere the path is already that.
fn disk_spelling(path: PathBuf) -> PathBuf {
    #[cfg(target_os = "macos")]
    if let Ok(canonical) = std::fs::canonicalize(&path) {
        return canonical;
    }
    path
}

fn too_many_links() -> io::Error {
    io::Error::other("too many levels of symbolic links")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::lexical;
    use std::os::unix::fs::symlink;

    /// The resolution [`Resolver`] replaced, path by path through `realpath`: the
    /// reference its answers must equal.
    fn by_realpath(path: &Path) -> io::Result<PathBuf> {
        let mut path = path.to_owned();
        for _ in 0..MAX_LINK_HOPS {
            if let Ok(c) = std::fs::canonicalize(&path) {
                return Ok(c);
            }
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return Ok(path);
            };
            let parent = by_realpath(parent)?;
            let here = parent.join(name);
            match std::fs::read_link(&here) {
                Ok(target) => path = parent.join(target),
                Err(_) => return Ok(lexical(&here)),
            }
        }
        Err(io::Error::other("too many levels of symbolic links"))
    }

    #[test]
    fn a_resolver_leads_where_realpath_path_by_path_led() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        std::fs::create_dir_all(t.join("real/home/.config")).unwrap();
        std::fs::create_dir_all(t.join("real/elsewhere")).unwrap();
        std::fs::write(t.join("real/home/.netrc"), "").unwrap();
        symlink(t.join("real/home"), t.join("home")).unwrap(); // a home that is a link
        symlink("../elsewhere", t.join("real/home/.ssh")).unwrap(); // relative, with ..
        symlink("missing/deeper", t.join("real/home/.aws")).unwrap(); // dangling
        symlink(t.join("real/home/.gnupg"), t.join("real/home/.gnupg")).unwrap(); // itself
        symlink("b", t.join("real/a")).unwrap(); // a loop of two
        symlink("a", t.join("real/b")).unwrap();
        symlink(".netrc", t.join("real/home/.npmrc")).unwrap(); // to a file
        let paths = [
            "home/.ssh",
            "home/.ssh/id_rsa",
            "home/.aws",
            "home/.aws/credentials",
            "home/.gnupg",
            "home/.gnupg/x",
            "home/.config/gcloud",
            "home/.config",
            "home/.netrc",
            "home/.netrc/below-a-file",
            "home/.npmrc",
            "home/nothing/at/all",
            "home/..",
            "home/../real/home/.ssh",
            "home/.ssh/..",
            "home/./.config/./gh",
            "real/a",
            "real/a/x",
            "",
        ];
        let mut resolver = Resolver::default();
        // Twice over, so the second round's answers come from what the first kept.
        for _ in 0..2 {
            for p in paths {
                let path = t.join(p);
                let expected = by_realpath(&path).map_err(|e| e.to_string());
                let got = resolver.resolve(&path).map_err(|e| e.to_string());
                assert_eq!(got, expected, "{}", path.display());
                // A fresh resolver agrees as well.
                let fresh = Resolver::default()
                    .resolve(&path)
                    .map_err(|e| e.to_string());
                assert_eq!(fresh, expected, "{} (fresh)", path.display());
            }
        }
        assert_eq!(resolve(Path::new("/")).unwrap(), PathBuf::from("/"));
        // Past a missing part the rest is spelling, a last `..` too, as the guard's walk
        // takes it (the old resolution kept such a path as written).
        assert_eq!(resolve(&t.join("missing/..")).unwrap(), t);
        assert_eq!(
            resolve(&t.join("home/nothing/../.ssh/x")).unwrap(),
            t.join("real/home/.ssh/x")
        );
    }

    /// A chain of as many links as the kernel follows leads to its end; a link that
    /// leads through itself is a loop, refused, not a recursion without end.
    #[test]
    fn a_resolver_follows_the_kernels_links_and_refuses_a_link_through_itself() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path().canonicalize().unwrap();
        std::fs::create_dir(t.join("end")).unwrap();
        for i in 0..MAX_LINK_HOPS {
            let next = if i + 1 == MAX_LINK_HOPS {
                t.join("end")
            } else {
                t.join(format!("l{}", i + 1))
            };
            symlink(next, t.join(format!("l{i}"))).unwrap();
        }
        assert_eq!(resolve(&t.join("l0")).unwrap(), t.join("end"));
        assert_eq!(resolve(&t.join("l0/.ssh")).unwrap(), t.join("end/.ssh"));
        symlink("self/x", t.join("self")).unwrap();
        symlink("b/x", t.join("a")).unwrap();
        symlink("a/y", t.join("b")).unwrap();
        for looped in ["self", "self/.ssh", "a", "b/.aws"] {
            let err = resolve(&t.join(looped)).unwrap_err();
            assert!(
                err.to_string().contains("too many levels"),
                "{looped}: {err}"
            );
        }
    }

    /// Links whose targets hold hundreds of parts, each part a link again, are walked,
    /// not recursed into: on a thread with a small stack the answer comes, where a
    /// resolution by recursion went hundreds of calls deep for each link. Targets that
    /// spell the path past what the OS names are refused (docs/threats.md B7).
    #[test]
    fn a_resolver_walks_long_link_targets_on_a_small_stack() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path().canonicalize().unwrap();
        let chain = |name: &str, count| vec![name; count].join("/");
        let resolve_small = |path: PathBuf| {
            std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(move || resolve(&path).map_err(|e| e.to_string()))
                .unwrap()
                .join()
                .expect("no stack overflow")
        };
        symlink(chain("a", 600), t.join("secrets")).unwrap();
        symlink(chain("b", 600), t.join("a")).unwrap();
        symlink(chain("c", 600), t.join("b")).unwrap();
        let answer = resolve_small(t.join("secrets/token"));
        // `t/c` is not there: from it on, the rest is taken by spelling.
        let mut expected = t.clone();
        for (name, count) in [("c", 600), ("b", 599), ("a", 599), ("token", 1)] {
            for _ in 0..count {
                expected.push(name);
            }
        }
        assert_eq!(answer, Ok(expected));
        symlink(chain("e", 1500), t.join("longer")).unwrap();
        symlink(chain("f", 1500), t.join("e")).unwrap();
        symlink(chain("g", 1500), t.join("f")).unwrap();
        let answer = resolve_small(t.join("longer/token"));
        assert!(
            answer
                .as_ref()
                .is_err_and(|e| e.starts_with("longer than 4096 bytes")),
            "{answer:?}"
        );
    }
}
