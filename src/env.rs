//! The host environment a session reads, and the folders it names.
//!
//! A session is made from one environment: the process's own, or one an embedder injects
//! ([`crate::session::SessionOptions::env`]). [`Environment`] is that environment, read
//! once, and the one place that turns it into folders: the config file, the session
//! records' folder, the WASM compile cache, and `~/` in config paths. Each folder has one
//! precedence rule, written once below; a variable set to the empty string counts as
//! unset, as the XDG Base Directory specification says.
//!
//! The rules follow a [`FolderStyle`]: the running OS's ([`FolderStyle::native`]) unless
//! [`Environment::with_style`] says otherwise. They are plain code over the variables,
//! with no `cfg` and no OS calls, so every style is tested on every OS. In every style
//! `$HARNESS_HOME` comes first for the config file, and an XDG variable that is set wins
//! over the style's own folder (users of command-line tools on macOS and Windows set
//! them too):
//!
//! | | [`Xdg`](FolderStyle::Xdg) (Linux) | [`MacOs`](FolderStyle::MacOs) | [`Windows`](FolderStyle::Windows) |
//! |---|---|---|---|
//! | home | `$HOME` | `$HOME` | `%HOME%`, else `%USERPROFILE%`, else `%HOMEDRIVE%%HOMEPATH%` |
//! | config file | `~/.config/harness/config.toml` | `~/Library/Application Support/harness/config.toml` | `%APPDATA%\harness\config.toml` |
//! | records | `~/.local/state/hookhost` | `~/Library/Application Support/hookhost/records` | `%LOCALAPPDATA%\hookhost\records` |
//! | WASM cache | `~/.cache/hookhost/wasm` | `~/Library/Caches/hookhost/wasm` | `%LOCALAPPDATA%\hookhost\cache\wasm` |
//! | `~` in paths | `~/` | `~/` | `~/` and `~\` |
//! | variable names | case-sensitive | case-sensitive | ASCII case-insensitive |
//!
//! In the Windows style, without `%APPDATA%` or `%LOCALAPPDATA%` the home's
//! `AppData\Roaming` and `AppData\Local` stand in for them.
//!
//! Why not the `etcetera` or `dirs` crates: both read the process's own environment (and
//! the password database, or Windows' known-folder calls), so they cannot honour an
//! injected one.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

// Defined in the platform seam, which picks the running OS's; re-exported here, where its
// rules are applied, so that `platform` needs nothing from this module.
pub use crate::platform::FolderStyle;

impl Default for FolderStyle {
    /// The running OS's style ([`FolderStyle::native`]).
    fn default() -> FolderStyle {
        FolderStyle::native()
    }
}

/// The environment a session is made from: variable lookups, the home folder and the
/// folders hookhost reads and writes, by the rules of one [`FolderStyle`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: Vec<(OsString, OsString)>,
    style: FolderStyle,
}

impl Environment {
    /// The process's own environment, as it is now, in the running OS's style.
    pub fn of_process() -> Environment {
        Environment::from_vars(std::env::vars_os().collect())
    }

    /// An environment given as `(name, value)` pairs, in the running OS's style; where a
    /// name repeats (in the Windows style: up to ASCII case), the first pair wins.
    pub fn from_vars(vars: Vec<(OsString, OsString)>) -> Environment {
        Environment {
            vars,
            style: FolderStyle::native(),
        }
    }

    /// `injected`, or the process's own when it is `None`; in the running OS's style.
    pub fn injected_or_process(injected: Option<&[(OsString, OsString)]>) -> Environment {
        match injected {
            Some(vars) => Environment::from_vars(vars.to_vec()),
            None => Environment::of_process(),
        }
    }

    /// This environment without what an agent could have set to steer hookhost, for a
    /// front end the agent's own process starts (the bridge): an agent's settings can set
    /// the environment of its hooks (Claude Code's `env` key, Gemini CLI's `.gemini/.env`;
    /// docs/threats.md#n11). Gone, each with a warning naming it:
    /// - the box program (`HOOKHOST_BWRAP`, `HOOKHOST_SANDBOX_EXEC`, `HOOKHOST_BOX_PROGRAM`),
    ///   always: under the bridge the box is the one found where the OS keeps it;
    /// - `HARNESS_HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME` and `XDG_CACHE_HOME` when they
    ///   are relative or lie in a folder the call's project may be ([`project_folders`]:
    ///   the call's `cwd`, the root the agent `stated`) or a temp folder (where the agent
    ///   writes), as spelled or as they resolve, since they choose the config, the pins
    ///   and records, and the compile cache;
    /// - `HOME` on the same terms (it chooses all of those when the others are unset),
    ///   replaced by the password database's home of the real uid when it has one.
    pub fn without_agent_steering(
        &self,
        cwd: Option<&Path>,
        stated: Option<&Path>,
    ) -> (Environment, Vec<String>) {
        const BOX_PROGRAMS: [&str; 3] = [
            "HOOKHOST_BWRAP",
            "HOOKHOST_SANDBOX_EXEC",
            "HOOKHOST_BOX_PROGRAM",
        ];
        const FOLDERS: [&str; 4] = [
            "HARNESS_HOME",
            "XDG_CONFIG_HOME",
            "XDG_STATE_HOME",
            "XDG_CACHE_HOME",
        ];
        // Each folder as spelled and as it resolves, and each value the same: a value
        // spelled through a link (`/proc/self/cwd/…`, macOS's `/private/tmp`) lies where
        // it leads.
        let with_resolved = |folders: Vec<PathBuf>| -> Vec<PathBuf> {
            let resolved: Vec<PathBuf> = folders.iter().map(|f| resolved(f)).collect();
            folders.into_iter().chain(resolved).collect()
        };
        let places = with_resolved(
            project_folders(cwd, stated)
                .into_iter()
                .chain(agent_temp_folders(&self.temp_folder()))
                .collect(),
        );
        let lies_where_the_agent_writes = |path: &Path| {
            let forms = [crate::paths::lexical(path), resolved(path)];
            !path.is_absolute()
                || places
                    .iter()
                    .any(|place| forms.iter().any(|at| at.starts_with(place)))
        };
        let mut warnings = Vec::new();
        let mut vars = Vec::with_capacity(self.vars.len());
        for (name, value) in &self.vars {
            let named = |names: &[&str]| {
                names.iter().any(|n| match self.style {
                    FolderStyle::Windows => name.eq_ignore_ascii_case(n),
                    FolderStyle::Xdg | FolderStyle::MacOs => name == n,
                })
            };
            let shown = || format!("{}={}", name.to_string_lossy(), value.to_string_lossy());
            if named(&BOX_PROGRAMS) {
                warnings.push(format!(
                    "hookhost bridge ignores {}: the agent's settings can set its hooks' environment, so the box program is never taken from it.",
                    shown()
                ));
                continue;
            }
            // HOME chooses hookhost's config, pins and records too (through the XDG
            // defaults): one in the project would be a config and pins the agent wrote.
            // The password database's home stands in for it.
            let is_home = self.style != FolderStyle::Windows && name == "HOME";
            if is_home && !value.is_empty() && lies_where_the_agent_writes(Path::new(value)) {
                let uid = crate::platform::sys::users::real_uid();
                let instead = crate::platform::sys::users::home_of(uid);
                warnings.push(format!(
                    "hookhost bridge ignores {}: it is in a folder the agent can write (the project or a temp folder), and it would choose hookhost's config, pins, records or cache; {}.",
                    shown(),
                    match &instead {
                        Some(home) => format!("it uses the password database's home {} instead", home.display()),
                        None => format!("uid {uid} has no home in the password database, so none is used"),
                    }
                ));
                if let Some(home) = instead {
                    vars.push((name.clone(), home.into_os_string()));
                }
                continue;
            }
            if named(&FOLDERS) && !value.is_empty() && lies_where_the_agent_writes(Path::new(value))
            {
                warnings.push(format!(
                    "hookhost bridge ignores {}: it is in a folder the agent can write (the project or a temp folder), and it would choose hookhost's config, pins, records or cache.",
                    shown()
                ));
                continue;
            }
            vars.push((name.clone(), value.clone()));
        }
        (
            Environment {
                vars,
                style: self.style,
            },
            warnings,
        )
    }

    /// The same variables, read by `style`'s rules instead.
    pub fn with_style(self, style: FolderStyle) -> Environment {
        Environment { style, ..self }
    }

    /// The rules this environment is read by.
    pub fn style(&self) -> FolderStyle {
        self.style
    }

    /// Every variable, in order.
    pub fn vars(&self) -> &[(OsString, OsString)] {
        &self.vars
    }

    /// The system temp folder this environment names, as `std::env::temp_dir` reads it
    /// from the process's own: `$TMPDIR`, else `/tmp`; on Windows the OS's answer for this
    /// process (the warm server, which judges calls of other processes with their
    /// environments, is not offered there).
    pub fn temp_folder(&self) -> PathBuf {
        match self.style {
            FolderStyle::Windows => std::env::temp_dir(),
            FolderStyle::Xdg | FolderStyle::MacOs => self
                .get(crate::platform::sys::file_system::TEMP_ENV)
                .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from),
        }
    }

    /// The value of `name`, if it is set (possibly to the empty string). In the Windows
    /// style names compare ASCII-case-insensitively (`Path` is `PATH`), as Windows
    /// compares them; in the others, exactly.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        let same = |k: &OsString| match self.style {
            FolderStyle::Windows => k.eq_ignore_ascii_case(name),
            FolderStyle::Xdg | FolderStyle::MacOs => k == name,
        };
        self.vars
            .iter()
            .find(|(k, _)| same(k))
            .map(|(_, v)| v.as_os_str())
    }

    /// The value of `name` as a path, when it is set and not empty (named as in
    /// [`Environment::get`]).
    fn non_empty(&self, name: &str) -> Option<PathBuf> {
        self.get(name).filter(|v| !v.is_empty()).map(PathBuf::from)
    }

    /// The home folder. Xdg and macOS styles: `$HOME`. Windows style: `%HOME%` (Git Bash
    /// and MSYS set it), else `%USERPROFILE%`, else `%HOMEDRIVE%` followed by
    /// `%HOMEPATH%` (both needed). Each when set and not empty; `None` when none is.
    pub fn home(&self) -> Option<PathBuf> {
        let home = self.non_empty("HOME");
        match self.style {
            FolderStyle::Xdg | FolderStyle::MacOs => home,
            FolderStyle::Windows => home.or_else(|| self.non_empty("USERPROFILE")).or_else(|| {
                let mut drive = self.non_empty("HOMEDRIVE")?.into_os_string();
                drive.push(self.non_empty("HOMEPATH")?);
                Some(PathBuf::from(drive))
            }),
        }
    }

    /// The variable that names the home folder, as set (possibly empty or relative, for
    /// callers that say what is wrong with it): `HOME`; on Windows `HOME`, else
    /// `USERPROFILE`.
    pub fn home_variable(&self) -> Option<&OsStr> {
        match self.style {
            FolderStyle::Xdg | FolderStyle::MacOs => self.get("HOME"),
            FolderStyle::Windows => self.get("HOME").or_else(|| self.get("USERPROFILE")),
        }
    }

    /// The home folder with `parts` joined to it, one component each.
    fn under_home(&self, parts: &[&str]) -> Option<PathBuf> {
        Some(joined(self.home()?, parts))
    }

    /// Windows' roaming application data: `%APPDATA%`, else `home\AppData\Roaming`.
    fn roaming_app_data(&self) -> Option<PathBuf> {
        self.non_empty("APPDATA")
            .or_else(|| self.under_home(&["AppData", "Roaming"]))
    }

    /// Windows' local application data: `%LOCALAPPDATA%`, else `home\AppData\Local`.
    fn local_app_data(&self) -> Option<PathBuf> {
        self.non_empty("LOCALAPPDATA")
            .or_else(|| self.under_home(&["AppData", "Local"]))
    }

    /// The default config file: `$HARNESS_HOME/config.toml`, else
    /// `$XDG_CONFIG_HOME/harness/config.toml` (in every style), else the style's own:
    /// Xdg `~/.config/harness/config.toml`, macOS
    /// `~/Library/Application Support/harness/config.toml`, Windows
    /// `%APPDATA%\harness\config.toml` (else `home\AppData\Roaming\harness\config.toml`).
    /// `None` when none of these can be worked out (no home, no variable set).
    pub fn config_file(&self) -> Option<PathBuf> {
        if let Some(home) = self.non_empty("HARNESS_HOME") {
            return Some(home.join("config.toml"));
        }
        let base = match self.non_empty("XDG_CONFIG_HOME") {
            Some(xdg) => xdg,
            None => match self.style {
                FolderStyle::Xdg => self.under_home(&[".config"])?,
                FolderStyle::MacOs => self.under_home(&["Library", "Application Support"])?,
                FolderStyle::Windows => self.roaming_app_data()?,
            },
        };
        Some(joined(base, &["harness", "config.toml"]))
    }

    /// The folder of the default session records: `$XDG_STATE_HOME/hookhost` (in every
    /// style), else the style's own: Xdg `~/.local/state/hookhost`, macOS
    /// `~/Library/Application Support/hookhost/records`, Windows
    /// `%LOCALAPPDATA%\hookhost\records` (else `home\AppData\Local\hookhost\records`).
    /// `None` when none of these can be worked out.
    pub fn record_dir(&self) -> Option<PathBuf> {
        if let Some(state) = self.non_empty("XDG_STATE_HOME") {
            return Some(state.join("hookhost"));
        }
        match self.style {
            FolderStyle::Xdg => self.under_home(&[".local", "state", "hookhost"]),
            FolderStyle::MacOs => {
                self.under_home(&["Library", "Application Support", "hookhost", "records"])
            }
            FolderStyle::Windows => Some(joined(self.local_app_data()?, &["hookhost", "records"])),
        }
    }

    /// The default WASM compile cache: `$XDG_CACHE_HOME/hookhost/wasm` (in every style),
    /// else the style's own: Xdg `~/.cache/hookhost/wasm`, macOS
    /// `~/Library/Caches/hookhost/wasm`, Windows `%LOCALAPPDATA%\hookhost\cache\wasm`
    /// (else `home\AppData\Local\hookhost\cache\wasm`). `None` when none of these can be
    /// worked out.
    pub fn wasm_cache_dir(&self) -> Option<PathBuf> {
        Some(self.cache_dir()?.join("wasm"))
    }

    /// hookhost's cache folder, which holds the WASM compile cache and the memo of the
    /// box's trial run: the parent of [`Environment::wasm_cache_dir`].
    pub(crate) fn cache_dir(&self) -> Option<PathBuf> {
        if let Some(cache) = self.non_empty("XDG_CACHE_HOME") {
            return Some(joined(cache, &["hookhost"]));
        }
        match self.style {
            FolderStyle::Xdg => self.under_home(&[".cache", "hookhost"]),
            FolderStyle::MacOs => self.under_home(&["Library", "Caches", "hookhost"]),
            FolderStyle::Windows => Some(joined(self.local_app_data()?, &["hookhost", "cache"])),
        }
    }

    /// Expands a leading `~/` (in the Windows style, `~\` too) to the home folder
    /// ([`Environment::home`]); any other path, or any path when there is no home, is
    /// returned as written.
    pub fn expand_home(&self, path: &str) -> PathBuf {
        let rest = path.strip_prefix("~/").or_else(|| match self.style {
            FolderStyle::Windows => path.strip_prefix("~\\"),
            FolderStyle::Xdg | FolderStyle::MacOs => None,
        });
        match (rest, self.home()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(path),
        }
    }
}

/// `base` with each of `parts` joined to it, as one component each.
fn joined(base: PathBuf, parts: &[&str]) -> PathBuf {
    parts.iter().fold(base, |path, part| path.join(part))
}

impl From<Vec<(OsString, OsString)>> for Environment {
    fn from(vars: Vec<(OsString, OsString)>) -> Environment {
        Environment::from_vars(vars)
    }
}

/// Every folder a bridged call's project may be (docs/threats.md#n11): the call's `cwd`,
/// and the root the agent `stated` for its hooks. The model's `cd` moves Claude Code's
/// `cwd` into a subfolder of the project, and a `HOME` planted in the project beside it
/// was taken; Claude Code states its root (as Gemini CLI and Qwen Code do). A guess at
/// more (a repository above `cwd`) refused the homes of a checkout's own tests.
fn project_folders(cwd: Option<&Path>, stated: Option<&Path>) -> Vec<PathBuf> {
    cwd.into_iter()
        .chain(stated)
        .map(crate::paths::lexical)
        .collect()
}

/// Where `path` leads ([`crate::paths::leads_to`]), spelled without `.` and `..`.
fn resolved(path: &Path) -> PathBuf {
    crate::paths::leads_to(&crate::paths::lexical(path))
}

/// The temp folders an agent's commands write in, lexical: `temp` (an environment's temp
/// folder), `/tmp` and `/dev/shm`. `/var/tmp` is not among them: the path guard does not
/// count it either.
pub(crate) fn agent_temp_folders(temp: &Path) -> [PathBuf; 3] {
    [
        crate::paths::lexical(temp),
        PathBuf::from("/tmp"),
        PathBuf::from("/dev/shm"),
    ]
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

    fn mac(pairs: &[(&str, &str)]) -> Environment {
        env(pairs).with_style(FolderStyle::MacOs)
    }

    fn win(pairs: &[(&str, &str)]) -> Environment {
        env(pairs).with_style(FolderStyle::Windows)
    }

    fn xdg(pairs: &[(&str, &str)]) -> Environment {
        env(pairs).with_style(FolderStyle::Xdg)
    }

    /// A Windows path built the way the code builds it: `base` (as written), then one
    /// component per part (on Linux a `\` is an ordinary character).
    fn w(base: &str, parts: &[&str]) -> Option<PathBuf> {
        Some(joined(PathBuf::from(base), parts))
    }

    const DANA: &str = r"C:\Users\dana";
    const ROAMING: &str = r"C:\Users\dana\AppData\Roaming";
    const LOCAL: &str = r"C:\Users\dana\AppData\Local";

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

    #[test]
    fn environments_take_the_native_style_unless_told() {
        assert_eq!(env(&[]).style(), FolderStyle::native());
        assert_eq!(Environment::default().style(), FolderStyle::native());
        assert_eq!(FolderStyle::default(), FolderStyle::native());
        let vars = vec![(OsString::from("HOME"), OsString::from("/h"))];
        assert_eq!(
            Environment::from(vars.clone()).style(),
            FolderStyle::native()
        );
        assert_eq!(
            Environment::injected_or_process(Some(&vars)).style(),
            FolderStyle::native()
        );
        assert_eq!(Environment::of_process().style(), FolderStyle::native());
        let styled = Environment::from_vars(vars.clone()).with_style(FolderStyle::Windows);
        assert_eq!(styled.style(), FolderStyle::Windows);
        assert_eq!(styled.vars(), &vars[..]);
    }

    #[test]
    fn home_in_xdg_and_macos_styles_is_home_only() {
        for e in [xdg(&[("HOME", "/h")]), mac(&[("HOME", "/h")])] {
            assert_eq!(e.home(), p("/h"));
        }
        let windows_only = [
            ("USERPROFILE", DANA),
            ("HOMEDRIVE", "C:"),
            ("HOMEPATH", r"\Users\dana"),
        ];
        assert_eq!(xdg(&windows_only).home(), None);
        assert_eq!(mac(&windows_only).home(), None);
        assert_eq!(mac(&[("HOME", "")]).home(), None);
    }

    #[test]
    fn windows_home_is_home_then_userprofile_then_homedrive_homepath() {
        let all = [
            ("HOMEDRIVE", "D:"),
            ("HOMEPATH", r"\Users\dana"),
            ("USERPROFILE", DANA),
            ("HOME", "/c/Users/dana"),
        ];
        assert_eq!(win(&all).home(), p("/c/Users/dana"));
        assert_eq!(win(&all[..3]).home(), p(DANA));
        assert_eq!(win(&all[..2]).home(), p(r"D:\Users\dana"));
        // Empty counts as unset.
        let empty = [
            ("HOME", ""),
            ("USERPROFILE", ""),
            ("HOMEDRIVE", "D:"),
            ("HOMEPATH", r"\Users\dana"),
        ];
        assert_eq!(win(&empty).home(), p(r"D:\Users\dana"));
        // HOMEDRIVE and HOMEPATH only together.
        assert_eq!(win(&[("HOMEDRIVE", "D:")]).home(), None);
        assert_eq!(win(&[("HOMEPATH", r"\Users\dana")]).home(), None);
    }

    #[test]
    fn windows_names_are_case_insensitive() {
        let e = win(&[
            ("userprofile", DANA),
            ("Path", r"C:\bin"),
            ("PATH", "second"),
        ]);
        assert_eq!(e.home(), p(DANA));
        assert_eq!(e.get("PATH"), Some(OsStr::new(r"C:\bin")));
        assert_eq!(e.get("path"), Some(OsStr::new(r"C:\bin")));
        let lower = win(&[("localappdata", r"C:\L"), ("AppData", r"C:\R")]);
        assert_eq!(lower.record_dir(), w(r"C:\L", &["hookhost", "records"]));
        assert_eq!(lower.config_file(), w(r"C:\R", &["harness", "config.toml"]));
        assert_eq!(win(&[("Home", "/h")]).home(), p("/h"));
    }

    #[test]
    fn xdg_and_macos_names_are_case_sensitive() {
        for e in [xdg(&[("home", "/h")]), mac(&[("home", "/h")])] {
            assert_eq!(e.get("HOME"), None);
            assert_eq!(e.home(), None);
            assert_eq!(e.config_file(), None);
        }
        let e = xdg(&[("Path", "/a"), ("PATH", "/b")]);
        assert_eq!(e.get("PATH"), Some(OsStr::new("/b")));
        assert_eq!(e.get("Path"), Some(OsStr::new("/a")));
    }

    #[test]
    fn macos_folders_are_under_library() {
        let e = mac(&[("HOME", "/Users/dana")]);
        assert_eq!(
            e.config_file(),
            p("/Users/dana/Library/Application Support/harness/config.toml")
        );
        assert_eq!(
            e.record_dir(),
            p("/Users/dana/Library/Application Support/hookhost/records")
        );
        assert_eq!(
            e.wasm_cache_dir(),
            p("/Users/dana/Library/Caches/hookhost/wasm")
        );
        assert_eq!(e.expand_home("~/a/b"), PathBuf::from("/Users/dana/a/b"));
        assert_eq!(e.expand_home(r"~\a"), PathBuf::from(r"~\a"));
    }

    #[test]
    fn macos_takes_harness_home_and_xdg_variables_first() {
        let e = mac(&[
            ("HOME", "/Users/dana"),
            ("HARNESS_HOME", "/hh"),
            ("XDG_CONFIG_HOME", "/x"),
            ("XDG_STATE_HOME", "/s"),
            ("XDG_CACHE_HOME", "/c"),
        ]);
        assert_eq!(e.config_file(), p("/hh/config.toml"));
        assert_eq!(e.record_dir(), p("/s/hookhost"));
        assert_eq!(e.wasm_cache_dir(), p("/c/hookhost/wasm"));
        let e = mac(&[("HOME", "/Users/dana"), ("XDG_CONFIG_HOME", "/x")]);
        assert_eq!(e.config_file(), p("/x/harness/config.toml"));
    }

    #[test]
    fn windows_folders_are_under_appdata() {
        let e = win(&[
            ("USERPROFILE", DANA),
            ("APPDATA", ROAMING),
            ("LOCALAPPDATA", LOCAL),
        ]);
        assert_eq!(
            e.config_file(),
            Some(
                PathBuf::from(r"C:\Users\dana\AppData\Roaming")
                    .join("harness")
                    .join("config.toml")
            )
        );
        assert_eq!(e.record_dir(), w(LOCAL, &["hookhost", "records"]));
        assert_eq!(e.wasm_cache_dir(), w(LOCAL, &["hookhost", "cache", "wasm"]));
    }

    #[test]
    fn windows_without_appdata_uses_the_home_appdata() {
        let e = win(&[("USERPROFILE", DANA), ("APPDATA", ""), ("LOCALAPPDATA", "")]);
        assert_eq!(
            e.config_file(),
            w(DANA, &["AppData", "Roaming", "harness", "config.toml"])
        );
        assert_eq!(
            e.record_dir(),
            w(DANA, &["AppData", "Local", "hookhost", "records"])
        );
        assert_eq!(
            e.wasm_cache_dir(),
            w(DANA, &["AppData", "Local", "hookhost", "cache", "wasm"])
        );
    }

    #[test]
    fn windows_takes_harness_home_and_xdg_variables_first() {
        let e = win(&[
            ("USERPROFILE", DANA),
            ("APPDATA", ROAMING),
            ("LOCALAPPDATA", LOCAL),
            ("HARNESS_HOME", r"D:\hh"),
            ("XDG_CONFIG_HOME", r"D:\x"),
            ("XDG_STATE_HOME", r"D:\s"),
            ("XDG_CACHE_HOME", r"D:\c"),
        ]);
        assert_eq!(e.config_file(), w(r"D:\hh", &["config.toml"]));
        assert_eq!(e.record_dir(), w(r"D:\s", &["hookhost"]));
        assert_eq!(e.wasm_cache_dir(), w(r"D:\c", &["hookhost", "wasm"]));
        let e = win(&[("APPDATA", ROAMING), ("XDG_CONFIG_HOME", r"D:\x")]);
        assert_eq!(e.config_file(), w(r"D:\x", &["harness", "config.toml"]));
    }

    #[test]
    fn windows_expands_both_tildes() {
        let e = win(&[("USERPROFILE", DANA)]);
        assert_eq!(e.expand_home("~/a/b"), PathBuf::from(DANA).join("a/b"));
        assert_eq!(e.expand_home(r"~\a\b"), PathBuf::from(DANA).join(r"a\b"));
        assert_eq!(e.expand_home(r"C:\abs"), PathBuf::from(r"C:\abs"));
        assert_eq!(win(&[]).expand_home(r"~\a"), PathBuf::from(r"~\a"));
        assert_eq!(
            xdg(&[("HOME", "/h")]).expand_home(r"~\a"),
            PathBuf::from(r"~\a")
        );
    }

    #[test]
    fn nothing_known_is_none_in_every_style() {
        for style in [FolderStyle::Xdg, FolderStyle::MacOs, FolderStyle::Windows] {
            let e = env(&[("HOME", ""), ("PATH", "/bin")]).with_style(style);
            assert_eq!(e.home(), None, "{style:?}");
            assert_eq!(e.config_file(), None, "{style:?}");
            assert_eq!(e.record_dir(), None, "{style:?}");
            assert_eq!(e.wasm_cache_dir(), None, "{style:?}");
            assert_eq!(e.expand_home("~/a"), PathBuf::from("~/a"), "{style:?}");
        }
        // APPDATA alone names the config file only; LOCALAPPDATA alone the other two.
        let roaming = win(&[("APPDATA", ROAMING)]);
        assert_eq!(
            roaming.config_file(),
            w(ROAMING, &["harness", "config.toml"])
        );
        assert_eq!(roaming.record_dir(), None);
        assert_eq!(roaming.wasm_cache_dir(), None);
        let local = win(&[("LOCALAPPDATA", LOCAL)]);
        assert_eq!(local.config_file(), None);
        assert_eq!(local.record_dir(), w(LOCAL, &["hookhost", "records"]));
        assert_eq!(
            local.wasm_cache_dir(),
            w(LOCAL, &["hookhost", "cache", "wasm"])
        );
        // The macOS and Xdg styles do not read the Windows variables.
        for e in [
            xdg(&[("APPDATA", ROAMING), ("LOCALAPPDATA", LOCAL)]),
            mac(&[("APPDATA", ROAMING), ("LOCALAPPDATA", LOCAL)]),
        ] {
            assert_eq!(e.config_file(), None);
            assert_eq!(e.record_dir(), None);
        }
    }

    /// N11: a value spelled through a link into the project lies in the project: each
    /// value and each folder is compared as spelled and as it resolves. The root the agent
    /// states counts as the call's folder does.
    #[test]
    fn a_home_spelled_through_a_link_into_the_project_is_the_agents() {
        // Not in /tmp, which is a temp folder the agent writes in.
        let root = tempfile::tempdir_in("/var/tmp").unwrap_or_else(|e| panic!("{e}"));
        let project = root.path().join("project");
        let sub = project.join("sub");
        std::fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{e}"));
        crate::platform::sys::files::symlink_file(&project, &root.path().join("alias"))
            .unwrap_or_else(|e| panic!("{e}"));
        let planted = root.path().join("alias/.agent-home");
        let vars = env(&[("HOME", planted.to_str().unwrap_or_default())]);
        let (kept, warnings) = vars.without_agent_steering(Some(&project), None);
        assert_ne!(kept.get("HOME"), Some(planted.as_os_str()));
        assert!(warnings[0].contains("ignores HOME="), "{warnings:?}");
        // From a subfolder, the stated root is the project.
        let beside = project.join(".agent-home");
        let vars = env(&[("HOME", beside.to_str().unwrap_or_default())]);
        let (kept, _) = vars.without_agent_steering(Some(&sub), None);
        assert_eq!(kept.get("HOME"), Some(beside.as_os_str()), "cwd alone");
        let (kept, warnings) = vars.without_agent_steering(Some(&sub), Some(&project));
        assert_ne!(kept.get("HOME"), Some(beside.as_os_str()));
        assert!(warnings[0].contains("ignores HOME="), "{warnings:?}");
        // A home elsewhere stays.
        let elsewhere = root.path().join("home");
        let vars = env(&[("HOME", elsewhere.to_str().unwrap_or_default())]);
        let (kept, warnings) = vars.without_agent_steering(Some(&sub), Some(&project));
        assert_eq!(kept.get("HOME"), Some(elsewhere.as_os_str()));
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}
