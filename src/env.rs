//! The host environment a session reads, and the folders it names.
//!
//! A session is made from one environment: the process's own, or one an embedder injects
//! ([`crate::session::SessionOptions::env`]). [`Environment`] is that environment, read
//! once, and the one place that turns it into folders: the config file, the session
//! records' folder, the WASM compile cache, and `~/` in config paths. Each folder has one
//! precedence rule, written once below; a variable set to the empty string counts as
//! unset, as the XDG Base Directory specification says.
//!
//! Why not the `etcetera` or `dirs` crates: both read the process's own environment (and
//! the password database), so they cannot honour an injected one; and the rules here are
//! Linux's XDG rules plus hookhost's own `HARNESS_HOME`. The portability work can add
//! each OS's rules in this module, behind the same methods.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// The environment a session is made from: variable lookups, the home folder and the
/// folders hookhost reads and writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: Vec<(OsString, OsString)>,
}

impl Environment {
    /// The process's own environment, as it is now.
    pub fn of_process() -> Environment {
        Environment::from_vars(std::env::vars_os().collect())
    }

    /// An environment given as `(name, value)` pairs; where a name repeats, the first
    /// pair wins.
    pub fn from_vars(vars: Vec<(OsString, OsString)>) -> Environment {
        Environment { vars }
    }

    /// `injected`, or the process's own when it is `None`.
    pub fn injected_or_process(injected: Option<&[(OsString, OsString)]>) -> Environment {
        match injected {
            Some(vars) => Environment::from_vars(vars.to_vec()),
            None => Environment::of_process(),
        }
    }

    /// Every variable, in order.
    pub fn vars(&self) -> &[(OsString, OsString)] {
        &self.vars
    }

    /// The value of `name`, if it is set (possibly to the empty string).
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// The value of `name` as a path, when it is set and not empty.
    fn non_empty(&self, name: &str) -> Option<PathBuf> {
        self.get(name).filter(|v| !v.is_empty()).map(PathBuf::from)
    }

    /// The home folder: `$HOME`, when set and not empty.
    pub fn home(&self) -> Option<PathBuf> {
        self.non_empty("HOME")
    }

    /// An XDG base folder: `$VARIABLE`, else `~/under_home`.
    fn xdg(&self, variable: &str, under_home: &str) -> Option<PathBuf> {
        self.non_empty(variable)
            .or_else(|| self.home().map(|home| home.join(under_home)))
    }

    /// The default config file: `$HARNESS_HOME/config.toml`, else
    /// `$XDG_CONFIG_HOME/harness/config.toml`, else `~/.config/harness/config.toml`;
    /// `None` with none of the three set.
    pub fn config_file(&self) -> Option<PathBuf> {
        if let Some(home) = self.non_empty("HARNESS_HOME") {
            return Some(home.join("config.toml"));
        }
        Some(
            self.xdg("XDG_CONFIG_HOME", ".config")?
                .join("harness")
                .join("config.toml"),
        )
    }

    /// The folder of the default session records: `$XDG_STATE_HOME/hookhost`, else
    /// `~/.local/state/hookhost`; `None` with neither variable set.
    pub fn record_dir(&self) -> Option<PathBuf> {
        Some(self.xdg("XDG_STATE_HOME", ".local/state")?.join("hookhost"))
    }

    /// The default WASM compile cache: `$XDG_CACHE_HOME/hookhost/wasm`, else
    /// `~/.cache/hookhost/wasm`; `None` with neither variable set.
    pub fn wasm_cache_dir(&self) -> Option<PathBuf> {
        Some(
            self.xdg("XDG_CACHE_HOME", ".cache")?
                .join("hookhost")
                .join("wasm"),
        )
    }

    /// Expands a leading `~/` to the home folder; any other path, or any path when there
    /// is no home, is returned as written.
    pub fn expand_home(&self, path: &str) -> PathBuf {
        match (path.strip_prefix("~/"), self.home()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(path),
        }
    }
}

impl From<Vec<(OsString, OsString)>> for Environment {
    fn from(vars: Vec<(OsString, OsString)>) -> Environment {
        Environment::from_vars(vars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(path: &str) -> Option<PathBuf> {
        Some(PathBuf::from(path))
    }

    fn env(pairs: &[(&str, &str)]) -> Environment {
        Environment::from_vars(
            pairs
                .iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v)))
                .collect(),
        )
    }

    #[test]
    fn config_file_precedence() {
        let all = env(&[
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "/x"),
            ("HARNESS_HOME", "/hh"),
        ]);
        assert_eq!(all.config_file(), p("/hh/config.toml"));
        let xdg = env(&[
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "/x"),
            ("HARNESS_HOME", ""),
        ]);
        assert_eq!(xdg.config_file(), p("/x/harness/config.toml"));
        let home = env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "")]);
        assert_eq!(home.config_file(), p("/h/.config/harness/config.toml"));
        assert_eq!(env(&[("HOME", "")]).config_file(), None);
    }

    #[test]
    fn record_and_cache_folders() {
        let home = env(&[("HOME", "/h")]);
        assert_eq!(home.record_dir(), p("/h/.local/state/hookhost"));
        assert_eq!(home.wasm_cache_dir(), p("/h/.cache/hookhost/wasm"));
        let xdg = env(&[
            ("HOME", "/h"),
            ("XDG_STATE_HOME", "/s"),
            ("XDG_CACHE_HOME", "/c"),
        ]);
        assert_eq!(xdg.record_dir(), p("/s/hookhost"));
        assert_eq!(xdg.wasm_cache_dir(), p("/c/hookhost/wasm"));
        assert_eq!(env(&[]).record_dir(), None);
        assert_eq!(env(&[]).wasm_cache_dir(), None);
    }

    #[test]
    fn home_expansion_reads_the_given_environment() {
        let e = env(&[("HOME", "/given"), ("HOME", "/second")]);
        assert_eq!(e.expand_home("~/a/b"), PathBuf::from("/given/a/b"));
        assert_eq!(e.expand_home("/abs"), PathBuf::from("/abs"));
        assert_eq!(env(&[]).expand_home("~/a"), PathBuf::from("~/a"));
    }
}
