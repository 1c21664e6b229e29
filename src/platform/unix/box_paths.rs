//! The boxes' path checks (Linux's and macOS's; Windows has no box): a path that must be
//! absolute, a folder that must exist, and where a hidden path leads.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use crate::paths::{MAX_LINK_HOPS, lexical};
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
/// longest existing prefix is canonicalized and a dangling link is followed to where it
/// would create its target. More than [`MAX_LINK_HOPS`] links is an error.
///
/// It remembers every folder it resolved on the way. A box resolves its whole hidden list
/// (some eighty paths under two homes) for every command; path by path, each `realpath`
/// read every link of the home again, 0.7 ms of a boxed call (BENCHMARKS.md,
/// twenty-second sitting). One resolver serves one list, looked at once, so nothing it
/// keeps is older than the command it helps build.
#[derive(Default)]
pub(crate) struct Resolver {
    /// By each path's bytes: hashing a `Path` walks its components, a fifth of the
    /// resolver's time.
    known: HashMap<OsString, PathBuf>,
    /// The paths being resolved, outermost first. A link that leads through itself
    /// (`L -> L/x`) asks for one of them again: a loop, which would otherwise recurse
    /// until the stack overflows (docs/threats.md B2).
    open: Vec<OsString>,
}

/// Where one absolute path leads (a [`Resolver`] of its own).
#[cfg(test)]
pub(crate) fn resolve(path: &Path) -> io::Result<PathBuf> {
    Resolver::default().resolve(path)
}

impl Resolver {
    /// Where `path` (absolute) leads.
    pub(crate) fn resolve(&mut self, path: &Path) -> io::Result<PathBuf> {
        if let Some(known) = self.known.get(path.as_os_str()) {
            return Ok(known.clone());
        }
        if self.open.iter().any(|open| open == path.as_os_str()) {
            return Err(too_many_links());
        }
        self.open.push(path.as_os_str().to_owned());
        let resolved = self.resolve_anew(path);
        self.open.pop();
        let resolved = resolved?;
        self.known
            .insert(path.as_os_str().to_owned(), resolved.clone());
        Ok(resolved)
    }

    fn resolve_anew(&mut self, path: &Path) -> io::Result<PathBuf> {
        let mut path = path.to_owned();
        // As many links as the kernel follows, and one look more at where the last leads.
        for _ in 0..=MAX_LINK_HOPS {
            // macOS's `realpath` spells each part as the disk does (its case, its Unicode
            // form), and Seatbelt compares that spelling: there, a name is never taken as
            // given where the path exists.
            #[cfg(target_os = "macos")]
            if let Ok(canonical) = std::fs::canonicalize(&path) {
                return Ok(canonical);
            }
            // `/`, or a path that ends in `..`: the kernel's own answer, or the path as
            // given when there is none (its parts are then taken by spelling).
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return Ok(std::fs::canonicalize(&path).unwrap_or(path));
            };
            // The parent resolved, the last component looked at itself: where it is no
            // link (or nothing), the resolved parent and its name are where it leads.
            let parent = self.resolve(parent)?;
            let here = parent.join(name);
            match std::fs::symlink_metadata(&here) {
                Ok(meta) if meta.file_type().is_symlink() => match std::fs::read_link(&here) {
                    Ok(target) => path = parent.join(target), // absolute targets replace `parent`
                    Err(_) => return Ok(lexical(&here)),
                },
                _ => return Ok(lexical(&here)), // on an already-canonical prefix
            }
        }
        Err(too_many_links())
    }
}

fn too_many_links() -> io::Error {
    io::Error::other("too many levels of symbolic links")
}

#[cfg(test)]
mod tests {
    use super::*;
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
            "missing/..",
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
}
