//! The environment a hook runs with: the host's, less every variable that looks like a
//! credential, by its name or by its value, and every one that chooses what code its
//! programs load.
//!
//! The rules, in the style of Codex's `shell_environment_policy` default excludes:
//!
//! - a name that matches one of [`SECRET_PATTERNS`] (`*KEY*`, `*TOKEN*`, `*SECRET*`,
//!   `*PASSWORD*`, `*_PASS`, `*_PWD`, `*PASSPHRASE*`, `*_JWT`, `*_AUTH`, …; ignoring
//!   case, on the name's bytes) is removed, unless it is one of the few harmless names
//!   the patterns would catch ([`HARMLESS`]);
//! - a value that holds a credential is removed whatever its name ([`value_holds_secret`]):
//!   a URL with a password (`postgres://user:password@host`, a proxy's
//!   `http://user:password@proxy:3128`) or with a token for its user
//!   (`https://ghp_…@github.com`), a password, key or token as a parameter (`?password=…`,
//!   `;Password=…;`, `AccountKey=…`, `token=…`), a JWT (`eyJ….eyJ….…`), or a provider's
//!   token on its own (`ghp_…`, `sk-ant-…`, `AKIA…`); and under a name that can hold a
//!   connection string ([`DSN_PATTERNS`]: `*_URL*`, `*DSN*`, `*PROXY*`, …) the scheme-less
//!   DSN `user:password@tcp(host)/db`;
//! - a variable that chooses what code a hook's programs load ([`LOADS_CODE`]:
//!   `LD_PRELOAD`, `BASH_ENV`, `NODE_OPTIONS`, `PYTHONPATH`, …) is removed;
//! - the user's `[sandbox] remove_env` entries remove more, and `[sandbox] keep_env`
//!   names pass through whatever matched them ([`EnvPolicy`]).
//!
//! Host hooks and boxed hooks get the same environment; WASM hooks get none at all.
//!
//! The names are matched by [`EnvPattern`]s (`pattern`), the values read by `value`;
//! this module holds the lists and puts the rules together.

mod pattern;
mod value;

pub use pattern::{EnvPattern, PatternError, parse_kept_name};
pub use value::value_holds_secret;

use std::ffi::{OsStr, OsString};

/// Name patterns (`*` is any run of characters, case is ignored) of the variables a
/// hook never sees. `*KEY*` and `*TOKEN*` stay substrings, as they always were: they
/// cost a few harmless names (`MONKEYPATCH`; `keep_env` them), and a narrower rule would
/// let `OPENAI_KEY_V2` or `GH_TOKEN_2` through. The newer patterns are narrower, because
/// their words are common in settings: `*_PASS` (not `*PASS*`, which would take
/// `GIT_ASKPASS`), `*_AUTH`/`*_AUTH_*` (not `*AUTH*`, which would take
/// `GIT_AUTHOR_NAME`), `*_JWT` (not `JWT_ALGORITHM`), `BW_SESSION` (not `*SESSION`, which
/// would take `DESKTOP_SESSION`).
pub const SECRET_PATTERNS: &[&str] = &[
    "*KEY*",
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*CREDENTIAL*",
    // GitHub personal access tokens (`GITHUB_PAT`, read by gh's and R's tooling).
    "*_PAT",
    // Passwords by their short names: `DB_PASS`, `SMTP_PASS`, `REDIS_PASS`, `MYSQL_PWD`
    // (`PWD` and `OLDPWD`, the working folders, do not match).
    "PASS",
    "*_PASS",
    "*_PWD",
    // `GPG_PASSPHRASE`, `SSH_PASSPHRASE`, `BORG_PASSPHRASE`.
    "*PASSPHRASE*",
    // CI identity tokens: GitLab's `CI_JOB_JWT`, `CI_JOB_JWT_V2`.
    "JWT",
    "*_JWT",
    "*_JWT_*",
    // Credentials named for what they authenticate: `NPM_CONFIG__AUTH` (npm's base64
    // `user:password`), `BASIC_AUTH`, `DOCKER_AUTH_CONFIG` (registry logins),
    // `HTTP_AUTHORIZATION`. `SSH_AUTH_SOCK` is a socket path ([`HARMLESS`]).
    "AUTH",
    "*_AUTH",
    "*_AUTH_*",
    "*AUTHORIZATION*",
    // Session cookies.
    "COOKIE",
    "*_COOKIE",
    // Password managers' unlocked sessions: Bitwarden's, 1Password's `OP_SESSION_<account>`.
    "BW_SESSION",
    "OP_SESSION_*",
    // Connection strings: `AZURE_STORAGE_CONNECTION_STRING` (`AccountKey=…`), .NET's
    // `ConnectionStrings__Default` (`Password=…`).
    "*CONNECTION_STRING*",
    "CONNECTIONSTRINGS__*",
    // Headers that carry an `Authorization:` or an API key.
    "ANTHROPIC_CUSTOM_HEADERS",
    "OTEL_EXPORTER_OTLP*HEADERS",
];

/// Names whose value may be a connection string without a scheme, withheld when it is a
/// DSN with a password (`user:password@tcp(db:3306)/app`, a proxy's
/// `user:password@proxy:3128`). Only under these names: elsewhere `a:b@c` is too often
/// something else (`LANGUAGE=sr_RS:sr@latin`, an image `name:tag@sha256:…`).
pub const DSN_PATTERNS: &[&str] = &[
    "*DSN*",
    "URL",
    "*_URL*",
    "URI",
    "*_URI*",
    "*CONN*",
    "*DATABASE*",
    "*_DB",
    "*PROXY*",
];

/// Names the patterns catch that hold no secret, kept so that the hooks' tools behave
/// as in the user's shell. Each is a setting or a path, never a credential (a value that
/// holds one is withheld all the same):
pub const HARMLESS: &[&str] = &[
    // zsh and the Linux console: the keyboard map.
    "KEYMAP",
    // zsh: how long to wait for the next key of a sequence.
    "KEYTIMEOUT",
    // Hugging Face tokenizers: whether to use threads (it warns on every fork without it).
    "TOKENIZERS_PARALLELISM",
    // The ssh agent's socket: git over ssh in a host hook needs it (the box cannot
    // connect to a host socket anyway).
    "SSH_AUTH_SOCK",
    // pass(1)'s store: a folder of GPG-encrypted files, which a hook running `pass` needs
    // to find (the key that opens them is not in the environment).
    "PASSWORD_STORE_DIR",
];

/// Name patterns of the variables that choose what code a hook's programs load or run
/// besides the program itself: the loader's (`LD_PRELOAD`, `DYLD_*`), the shells'
/// (`BASH_ENV`, an exported function `BASH_FUNC_*`, `ZDOTDIR`), and the interpreters'
/// (`NODE_OPTIONS`, `PYTHONPATH`, `PERL5OPT`, `RUBYOPT`, `JAVA_TOOL_OPTIONS`, git's
/// config). A hook never sees them unless `[sandbox] keep_env` names them: an agent
/// hands its hooks variables from files it can write (Claude Code's settings `env`,
/// Gemini CLI's `.env`), and `hookhost bridge` is one of those hooks, so a
/// `PYTHONPATH` the agent wrote could make a Python hook of hookhost's load the agent's
/// module and allow what it should block (docs/threats.md#n11). A hook that needs one
/// sets it in its own command (`["env", "PYTHONPATH=/opt/lib", "python3", …]`).
pub const LOADS_CODE: &[&str] = &[
    "LD_PRELOAD",
    "LD_AUDIT",
    "LD_LIBRARY_PATH",
    "DYLD_*",
    "BASH_ENV",
    "BASH_FUNC_*",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "ZDOTDIR",
    "NODE_OPTIONS",
    "NODE_PATH",
    "NODE_REPL_EXTERNAL_MODULE",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONUSERBASE",
    // Where Python reads and writes its compiled modules: a folder holding the agent's
    // bytecode for the standard library's `json` (seen loaded by a boxed hook).
    "PYTHONPYCACHEPREFIX",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PERL5DB",
    "RUBYOPT",
    "RUBYLIB",
    "GEM_HOME",
    "GEM_PATH",
    "LUA_INIT*",
    "LUA_PATH*",
    "LUA_CPATH*",
    "PHPRC",
    "PHP_INI_SCAN_DIR",
    "JAVA_TOOL_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "_JAVA_OPTIONS",
    "CLASSPATH",
    // uv's interpreter and index (`uv run` hooks).
    "UV_*",
    // git runs programs its config names (`core.fsmonitor`, `core.pager`).
    "GIT_CONFIG",
    "GIT_CONFIG_*",
    "GIT_EXEC_PATH",
    "GIT_DIR",
    "GIT_TEMPLATE_DIR",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PROXY_COMMAND",
    "GIT_ASKPASS",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    // The C library loads character-set converters from `GCONV_PATH`, and OpenSSL the
    // engines and providers its config names: libraries, in any program that uses them.
    "GCONV_PATH",
    "OPENSSL_CONF",
    "OPENSSL_ENGINES",
    "OPENSSL_MODULES",
    // npm's settings (`npm_config_registry`): what `npx` fetches and runs.
    "NPM_CONFIG_*",
];

/// What the user's config adds to the built-in rules: `[sandbox] keep_env` and
/// `remove_env`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// Exact names passed through even though a rule matches them.
    pub keep: Vec<String>,
    /// More names or patterns to remove.
    pub remove: Vec<EnvPattern>,
}

impl EnvPolicy {
    /// Whether the variable `name=value` is withheld from hooks.
    pub fn withholds(&self, name: &OsStr, value: &OsStr) -> bool {
        if self.keep.iter().any(|k| OsStr::new(k) == name) {
            return false;
        }
        let name = name.as_encoded_bytes();
        self.remove.iter().any(|p| p.matches(name))
            || loads_code(name)
            || is_secret(name, value.as_encoded_bytes())
    }
}

/// Whether `name` is one of [`LOADS_CODE`] (ignoring ASCII case).
pub fn loads_code(name: &[u8]) -> bool {
    matches_any(LOADS_CODE, name)
}

/// Whether the built-in rules remove `name=value` (see the module docs).
pub fn is_secret(name: &[u8], value: &[u8]) -> bool {
    let harmless = HARMLESS.iter().any(|h| name == h.as_bytes());
    (!harmless && matches_any(SECRET_PATTERNS, name)) || value_holds_secret(name, value)
}

fn matches_any(patterns: &[&str], name: &[u8]) -> bool {
    patterns
        .iter()
        .any(|p| pattern::glob_matches(p.as_bytes(), name))
}

/// The host's environment without what `policy` and the built-in rules withhold, and
/// without `PATH` (the caller sets `PATH` as the session's rules say).
pub fn scrubbed(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    policy: &EnvPolicy,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(k, v)| k != "PATH" && !policy.withholds(k, v))
        .collect()
}

#[cfg(test)]
mod tests;
