//! The system scope (docs/contract.md#system-mode): the administrator's policy, which a
//! same-user agent cannot weaken. Its config and compile cache are at fixed places (not
//! from the environment, not from a user's files), every file they depend on must be
//! root's alone ([`crate::guard::check_admin_only`]; on Windows: owned by SYSTEM,
//! Administrators or TrustedInstaller, and writable by no one else), and the environment
//! its session is made from has nothing in it that could move them.

use std::ffi::{OsStr, OsString};

use crate::env::{Environment, FolderStyle};
use crate::platform::sys::system_scope;

/// The system scope runs on this OS (Linux, macOS and Windows all have it); where it did
/// not, every system command would refuse with [`NOT_SUPPORTED`].
pub const SUPPORTED: bool = system_scope::SUPPORTED;

/// The system config (`/etc/hookhost/config.toml` on Linux and macOS,
/// `C:\ProgramData\hookhost\config.toml` on Windows).
pub const CONFIG: &str = system_scope::CONFIG;

/// The system compile cache (`/var/cache/hookhost`, `C:\ProgramData\hookhost\cache` on
/// Windows), filled by `hookhost check --system`.
pub const CACHE: &str = system_scope::CACHE;

/// Who may run `check --system` and `install --scope system`, in messages: root, or on
/// Windows an elevated administrator.
pub const ADMINISTRATOR: &str = system_scope::ADMINISTRATOR;

/// The command that fills the system compile cache (`sudo hookhost check --system`).
pub const CHECK_COMMAND: &str = system_scope::CHECK_COMMAND;

/// The folders `install --scope system` makes the administrator's alone when they are
/// missing: on Windows the config's and the cache's, under `C:\ProgramData`; none on
/// Linux and macOS.
pub const INSTALL_MAKES: &[&str] = system_scope::INSTALL_MAKES;

/// Makes `dir` (and any missing folder above it) as the system scope's folders are made:
/// on Windows owned by Administrators with a protected DACL (SYSTEM and Administrators
/// full control, Users read); elsewhere mode 0755 less the umask. An existing folder is
/// left as it is.
pub fn make_admin_folder(dir: &std::path::Path) -> std::io::Result<()> {
    system_scope::make_admin_folder(dir)
}

/// Why a system command refuses where the system scope does not run.
pub const NOT_SUPPORTED: &str = "hookhost's system scope (--system) is not supported on this operating system yet (Linux and macOS only), so this call was blocked. This is not a policy decision: tell the administrator to register `hookhost bridge` without --system here.";

/// The variables that would steer where hookhost's files are or which box it runs; in
/// system mode each is ignored.
const STEERING: [&str; 8] = [
    "HARNESS_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "HOOKHOST_BWRAP",
    "HOOKHOST_SANDBOX_EXEC",
    "HOOKHOST_BOX_PROGRAM",
];

/// Refuses the running binary (`std::env::current_exe`: where the kernel says it was
/// started from, links resolved) unless it is root's alone: whoever can replace it
/// decides every answer (docs/threats.md#system-scope).
pub fn check_running_binary() -> Result<(), crate::guard::Refusal> {
    let binary = std::env::current_exe().map_err(|e| crate::guard::Refusal::Untraceable {
        who: crate::guard::Who::Binary,
        subject: "(the running binary)".into(),
        cause: format!("the OS does not say where it is: {e}"),
    })?;
    crate::guard::check_admin_only_as(crate::guard::Who::Binary, &binary)
}

/// Whether hookhost runs as root, on Windows as an elevated administrator (`check
/// --system` must).
pub fn is_root() -> bool {
    system_scope::is_root()
}

/// The environment a system-mode session is made from, and the names of the variables
/// of `process` it ignored (set and not empty; values are not shown, they may be long or
/// private).
///
/// Gone: every variable that chooses hookhost's folders or box (`STEERING`), wherever it
/// points. Replaced: `HOME` (on Windows also `USERPROFILE`, `APPDATA` and
/// `LOCALAPPDATA`), by the real user's home in the password database (Windows: the
/// token's profile), each named as ignored when it said otherwise, removed when there is
/// no entry, since records and the box's hidden folders follow it (Windows'
/// `HOMEDRIVE`/`HOMEPATH` stay: with `HOME` set they choose nothing); `PATH`, by the
/// system's fixed one, since the system hooks' bare names and the box program are looked
/// up on it. Set: the box program's variable, to where the
/// OS keeps it, so no lookup is made at all. Names are matched as the OS matches them
/// (on Windows, without ASCII case).
pub fn environment(process: &Environment) -> (Environment, Vec<String>) {
    let home = system_scope::user_home();
    let replacements = home
        .as_deref()
        .map(system_scope::home_vars)
        .unwrap_or_default();
    let named = |name: &OsStr, wanted: &str| match process.style() {
        FolderStyle::Windows => name.eq_ignore_ascii_case(wanted),
        FolderStyle::Xdg | FolderStyle::MacOs => name == wanted,
    };
    let mut ignored = Vec::new();
    let mut vars: Vec<(OsString, OsString)> = Vec::with_capacity(process.vars().len());
    for (name, value) in process.vars() {
        let steering = STEERING.iter().any(|s| named(name, s));
        let replaced = system_scope::REPLACED.iter().find(|r| named(name, r));
        let differs = replaced.is_some_and(|r| {
            replacements
                .iter()
                .find(|(n, _)| n == r)
                .is_none_or(|(_, v)| v != value)
        });
        if (steering || differs) && !value.is_empty() {
            ignored.push(name.to_string_lossy().into_owned());
        }
        if steering || replaced.is_some() || named(name, "PATH") {
            continue;
        }
        vars.push((name.clone(), value.clone()));
    }
    for (name, value) in replacements {
        vars.push((name.into(), value));
    }
    vars.push(("PATH".into(), system_scope::PATH.into()));
    if !system_scope::BOX_PROGRAM.is_empty() {
        vars.push((
            crate::sandbox::PROGRAM_ENV.into(),
            system_scope::BOX_PROGRAM.into(),
        ));
    }
    let env = Environment::from_vars(vars).with_style(process.style());
    (env, ignored)
}

/// The one line that says which variables system mode ignored; `None` when none was set.
pub fn ignored_line(ignored: &[String]) -> Option<String> {
    (!ignored.is_empty()).then(|| {
        format!(
            "hookhost bridge --system ignores {}: the administrator's policy takes nothing from the environment (its config is {CONFIG}, its cache {CACHE}, the box the OS's own).",
            ignored.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steering_variables_are_named_and_dropped() {
        let process = Environment::from_vars(vec![
            ("HARNESS_HOME".into(), "/p/h".into()),
            ("HOOKHOST_BWRAP".into(), "/p/bwrap".into()),
            ("XDG_STATE_HOME".into(), "".into()),
            ("LANG".into(), "C".into()),
            ("PATH".into(), "/p/bin".into()),
        ]);
        let (env, ignored) = environment(&process);
        assert_eq!(ignored, ["HARNESS_HOME", "HOOKHOST_BWRAP"]);
        assert_eq!(env.get("HARNESS_HOME"), None);
        assert_eq!(env.get("LANG"), Some("C".as_ref()));
        assert_eq!(env.get("PATH"), Some(system_scope::PATH.as_ref()));
        assert!(ignored_line(&ignored).is_some_and(|l| l.contains("HARNESS_HOME, HOOKHOST_BWRAP")));
        assert_eq!(ignored_line(&[]), None);
    }
}
