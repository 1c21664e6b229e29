//! Whose credential folders the box hides by default: the home `$HOME` names and the
//! real user's home in the password database (docs/threats.md#f14: with `HOME`
//! unset or wrong, following `$HOME` alone hid nothing).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::platform::sys::users;

/// The user's home folders, as far as they are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Homes {
    /// `$HOME` when it is set to an absolute path.
    pub env: Option<PathBuf>,
    /// Why `$HOME` is not used, when it is not ("HOME is unset", …).
    pub env_problem: Option<String>,
    /// The real uid's home folder in the password database, when it has one.
    pub passwd: Option<PathBuf>,
    /// The real uid.
    pub uid: u32,
}

impl Homes {
    /// The homes of this process: `home_env` (the value of `HOME` in the environment
    /// the session is made from) and the password database's entry for the real uid.
    pub fn find(home_env: Option<&OsStr>) -> Homes {
        let uid = users::real_uid();
        Homes::resolve(home_env, uid, users::home_of(uid))
    }

    /// [`Homes::find`] with the password database's answer given (for tests).
    pub fn resolve(home_env: Option<&OsStr>, uid: u32, passwd: Option<PathBuf>) -> Homes {
        let (env, env_problem) = match home_env {
            None => (None, Some("HOME is unset".to_owned())),
            Some(v) if v.is_empty() => (None, Some("HOME is empty".to_owned())),
            Some(v) if !Path::new(v).is_absolute() => (
                None,
                Some(format!(
                    "HOME ({}) is not an absolute path",
                    Path::new(v).display()
                )),
            ),
            Some(v) => (Some(PathBuf::from(v)), None),
        };
        Homes {
            env,
            env_problem,
            passwd: passwd.filter(|p| p.is_absolute()),
            uid,
        }
    }

    /// Every known home, `$HOME` first; one when both name the same folder.
    pub fn folders(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.env.iter().cloned().collect();
        if let Some(p) = &self.passwd
            && !out.iter().any(|h| same_folder(h, p))
        {
            out.push(p.clone());
        }
        out
    }

    /// The default hidden paths ([`super::default_hidden`]) under every known home.
    pub fn default_hidden(&self) -> Vec<PathBuf> {
        self.default_hidden_with(&[])
    }

    /// The default hidden paths and `extra` (relative to each home: the agents'
    /// credential stores, which the front end names) under every known home
    /// ([`super::default_hidden_with`]).
    pub fn default_hidden_with(&self, extra: &[PathBuf]) -> Vec<PathBuf> {
        self.folders()
            .iter()
            .flat_map(|h| super::default_hidden_with(h, extra))
            .collect()
    }

    /// The start-up warning for a session whose box would hide nothing by default
    /// because no home is known; `None` when one is.
    pub fn unknown_warning(&self) -> Option<String> {
        if self.env.is_some() || self.passwd.is_some() {
            return None;
        }
        let env = self.env_problem.as_deref().unwrap_or("HOME is unset");
        Some(format!(
            "⚠ no home folder is known ({env} and the password database has no entry for uid {}), so the box hides no credential folders by default; set HOME or list them in [sandbox] hide.",
            self.uid
        ))
    }
}

/// Whether two absolute paths name the same folder (equal, or the same once links are
/// followed).
fn same_folder(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_homes_are_hidden_when_they_differ() {
        let h = Homes::resolve(
            Some(OsStr::new("/wrong/home")),
            1000,
            Some(PathBuf::from("/home/dana")),
        );
        assert_eq!(
            h.folders(),
            [PathBuf::from("/wrong/home"), PathBuf::from("/home/dana")]
        );
        let hidden = h.default_hidden();
        assert!(hidden.contains(&PathBuf::from("/home/dana/.ssh")));
        assert!(hidden.contains(&PathBuf::from("/wrong/home/.ssh")));
        assert_eq!(h.unknown_warning(), None);
    }

    #[test]
    fn extra_paths_are_hidden_under_every_home_once() {
        let h = Homes::resolve(
            Some(OsStr::new("/wrong/home")),
            1000,
            Some(PathBuf::from("/home/dana")),
        );
        let extra = [
            PathBuf::from(".qwen/oauth_creds.json"),
            PathBuf::from(".aws/amazonq"),
            PathBuf::from(".ssh"),
        ];
        let hidden = h.default_hidden_with(&extra);
        for home in ["/wrong/home", "/home/dana"] {
            let home = Path::new(home);
            let count = |p: &str| hidden.iter().filter(|h| **h == home.join(p)).count();
            assert_eq!(count(".qwen/oauth_creds.json"), 1);
            assert_eq!(count(".ssh"), 1, "listed once");
            // Inside `.aws`, which is hidden whole: not covered twice.
            assert_eq!(count(".aws/amazonq"), 0);
            assert_eq!(count(".aws"), 1);
        }
        assert_eq!(
            hidden.len(),
            2 * (super::super::default_hidden(Path::new("/")).len() + 1)
        );
        assert_eq!(h.default_hidden_with(&[]), h.default_hidden());
    }

    #[test]
    fn one_home_when_they_agree() {
        let h = Homes::resolve(
            Some(OsStr::new("/home/dana/")),
            1000,
            Some(PathBuf::from("/home/dana")),
        );
        assert_eq!(h.folders(), [PathBuf::from("/home/dana/")]);
    }

    #[test]
    fn unset_empty_or_relative_home_falls_back_to_the_password_database() {
        for env in [None, Some(""), Some("relative/home")] {
            let h = Homes::resolve(env.map(OsStr::new), 0, Some(PathBuf::from("/root")));
            assert_eq!(h.folders(), [PathBuf::from("/root")], "{env:?}");
            assert!(h.default_hidden().contains(&PathBuf::from("/root/.ssh")));
        }
    }

    #[test]
    fn no_home_at_all_says_so() {
        let h = Homes::resolve(None, 54321, None);
        assert!(h.default_hidden().is_empty());
        assert_eq!(
            h.unknown_warning().as_deref(),
            Some(
                "⚠ no home folder is known (HOME is unset and the password database has no entry for uid 54321), so the box hides no credential folders by default; set HOME or list them in [sandbox] hide."
            )
        );
        let h = Homes::resolve(Some(OsStr::new("x")), 7, Some(PathBuf::from("rel")));
        assert!(h.folders().is_empty());
        assert!(
            h.unknown_warning()
                .is_some_and(|w| w.contains("HOME (x) is not an absolute path and")),
        );
    }

    #[test]
    fn the_password_database_is_read() {
        let Some(home) = crate::platform::sys::users::home_of(0) else {
            eprintln!("SKIPPED the_password_database_is_read: no passwd entry for uid 0 here");
            return;
        };
        assert!(home.is_absolute(), "{}", home.display());
        assert_eq!(
            crate::platform::sys::users::home_of(54321),
            None,
            "uid 54321 is expected to have no entry"
        );
    }
}
