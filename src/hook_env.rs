//! The environment a hook runs with: the host's, less every variable that looks like a
//! credential, by its name or by its value.
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
//! - the user's `[sandbox] remove_env` entries remove more, and `[sandbox] keep_env`
//!   names pass through whatever matched them ([`EnvPolicy`]).
//!
//! Host hooks and boxed hooks get the same environment; WASM hooks get none at all.

use std::ffi::{OsStr, OsString};
use std::fmt;

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

/// Parameter names (lower case, `_` and `-` left out) whose value is a credential in a
/// URL query or a connection string: `?password=…`, `;Pwd=…;`, `AccountKey=…`,
/// `SharedAccessSignature=…`, `sig=…` (an Azure SAS), `X-Amz-Signature=…`, `token=…`.
const SECRET_PARAMETERS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "pass",
    "passphrase",
    "secret",
    "clientsecret",
    "token",
    "accesstoken",
    "authtoken",
    "refreshtoken",
    "idtoken",
    "apikey",
    "key",
    "accountkey",
    "sharedaccesskey",
    "sharedaccesssignature",
    "sig",
    "signature",
    "xamzsignature",
    "xamzsecuritytoken",
];

/// The prefixes of providers' tokens, recognised as a whole value (`ghp_…`) or as a URL's
/// user (`https://ghp_…@github.com`) when 16 or more letters, digits, `_` or `-` follow,
/// digits and letters among them.
const TOKEN_PREFIXES: &[&str] = &[
    // GitHub.
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    // GitLab.
    "glpat-",
    // Slack.
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "xapp-",
    // Anthropic, OpenAI (`sk-ant-…`, `sk-proj-…`, `sk-…`).
    "sk-",
    // Stripe.
    "sk_live_",
    "rk_live_",
    // Hugging Face, npm, PyPI, DigitalOcean.
    "hf_",
    "npm_",
    "pypi-",
    "dop_v1_",
    // AWS access key ids, Google API keys.
    "AKIA",
    "ASIA",
    "AIza",
];

/// A variable-name pattern: letters, digits and `_` (any byte but `=`, NUL and
/// whitespace, in fact), with `*` for any run of characters. Matched ignoring ASCII case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvPattern {
    /// As written, upper-cased.
    upper: String,
}

/// Why a `keep_env` or `remove_env` entry is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// `""`.
    #[error("is empty")]
    Empty,
    /// A byte no variable name can hold.
    #[error("holds {0}, which no variable name can hold")]
    BadCharacter(&'static str),
    /// `**`.
    #[error("has \"**\": one \"*\" already matches any run of characters")]
    DoubleStar,
    /// A `*` in a `keep_env` entry.
    #[error("is a pattern: keep_env takes exact names, so that no credential passes unnoticed")]
    PatternNotAllowed,
}

impl EnvPattern {
    /// Parses a `remove_env` entry: a name, or a pattern with `*`.
    pub fn parse(text: &str) -> Result<EnvPattern, PatternError> {
        check_name_bytes(text)?;
        if text.contains("**") {
            return Err(PatternError::DoubleStar);
        }
        Ok(EnvPattern {
            upper: text.to_ascii_uppercase(),
        })
    }

    /// Whether `name` matches, ignoring ASCII case.
    pub fn matches(&self, name: &[u8]) -> bool {
        glob_matches(self.upper.as_bytes(), name)
    }
}

impl fmt::Display for EnvPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.upper)
    }
}

/// Checks a `keep_env` entry: an exact name, no `*`.
pub fn parse_kept_name(text: &str) -> Result<String, PatternError> {
    check_name_bytes(text)?;
    if text.contains('*') {
        return Err(PatternError::PatternNotAllowed);
    }
    Ok(text.to_string())
}

fn check_name_bytes(text: &str) -> Result<(), PatternError> {
    if text.is_empty() {
        return Err(PatternError::Empty);
    }
    for c in text.chars() {
        let what = match c {
            '=' => "\"=\"",
            '\0' => "a NUL",
            c if c.is_whitespace() => "white space",
            c if c.is_control() => "a control character",
            _ => continue,
        };
        return Err(PatternError::BadCharacter(what));
    }
    Ok(())
}

/// Whether `name` matches `pattern` (upper case; `*` is any run of bytes), ignoring the
/// ASCII case of `name`. Greedy with one back-track point: linear in practice.
fn glob_matches(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if p < pattern.len() && pattern[p] == name[n].to_ascii_uppercase() {
            p += 1;
            n += 1;
        } else if let Some((sp, sn)) = star {
            // Let the last `*` swallow one more byte and try again from there.
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}

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
        self.remove.iter().any(|p| p.matches(name)) || is_secret(name, value.as_encoded_bytes())
    }
}

/// Whether the built-in rules remove `name=value` (see the module docs).
pub fn is_secret(name: &[u8], value: &[u8]) -> bool {
    let harmless = HARMLESS.iter().any(|h| name == h.as_bytes());
    (!harmless && matches_any(SECRET_PATTERNS, name)) || value_holds_secret(name, value)
}

fn matches_any(patterns: &[&str], name: &[u8]) -> bool {
    patterns.iter().any(|p| glob_matches(p.as_bytes(), name))
}

/// Whether `value` holds a credential whatever the name (a URL with a password or a
/// token for its user, a secret parameter, a JWT, a provider's token), or, under a
/// [`DSN_PATTERNS`] name, is a DSN with a password.
pub fn value_holds_secret(name: &[u8], value: &[u8]) -> bool {
    url_has_credentials(value)
        || has_secret_parameter(value)
        || has_jwt(value)
        || is_provider_token(value)
        || matches_any(DSN_PATTERNS, name) && is_dsn_with_password(value)
}

/// Whether any URL in `value` (`scheme://…`, one or several) carries a password
/// (`user:password@`, `:password@`) or a token for its user (`https://ghp_…@`,
/// `https://<32 hex>@o1.ingest.sentry.io`): in its userinfo, never in its path.
fn url_has_credentials(value: &[u8]) -> bool {
    let mut from = 0;
    while let Some(found) = find(&value[from..], b"://") {
        let start = from + found + 3;
        let rest = &value[start..];
        let authority_end = rest
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#') || b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if let Some(at) = authority.iter().rposition(|&b| b == b'@') {
            let userinfo = &authority[..at];
            let secret = match userinfo.iter().position(|&b| b == b':') {
                Some(colon) => colon + 1 < userinfo.len(),
                None => looks_like_token(userinfo),
            };
            if secret {
                return true;
            }
        }
        from = start;
    }
    false
}

/// A URL's user that is a token: a provider's ([`TOKEN_PREFIXES`]), or 20 or more
/// letters, digits, `_`, `-`, `.` or `~` with digits and letters among them (not `git`,
/// `app`, `x-access-token`, `oauth2`).
fn looks_like_token(user: &[u8]) -> bool {
    if is_provider_token(user) {
        return true;
    }
    user.len() >= 20
        && user
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'~'))
        && digits_and_letters(user)
}

fn digits_and_letters(s: &[u8]) -> bool {
    s.iter().any(u8::is_ascii_digit) && s.iter().any(u8::is_ascii_alphabetic)
}

/// Whether the whole of `value` is a provider's token: a [`TOKEN_PREFIXES`] prefix, then
/// 16 or more letters, digits, `_` or `-`, digits and letters among them.
fn is_provider_token(value: &[u8]) -> bool {
    TOKEN_PREFIXES.iter().any(|prefix| {
        value.strip_prefix(prefix.as_bytes()).is_some_and(|body| {
            body.len() >= 16
                && body
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
                && digits_and_letters(body)
        })
    })
}

/// Whether `value` holds `NAME=something` with NAME one of [`SECRET_PARAMETERS`]
/// (ignoring case, `_` and `-`) at the start or after `?`, `&`, `;`, `,` or white space,
/// and a value that is not empty: a URL's query (`?user=u&password=p`), an ADO.NET or
/// ODBC string (`Server=db;Password=p;`, `PWD=p;`), Azure's (`AccountKey=k;`), libpq's
/// keywords (`host=db password=p`). A word glued to something else (`-Dx.password=`,
/// `*.key=` in `LS_COLORS`) is no parameter.
fn has_secret_parameter(value: &[u8]) -> bool {
    let is_delimiter = |b: u8| matches!(b, b'?' | b'&' | b';' | b',') || b.is_ascii_whitespace();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-');
    for eq in (0..value.len()).filter(|&i| value[i] == b'=') {
        // The word before `=`, spaces between them allowed (`Password = p`).
        let mut end = eq;
        while end > 0 && value[end - 1] == b' ' {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && end - start < 64 && is_word(value[start - 1]) {
            start -= 1;
        }
        if start == end || (start > 0 && !is_delimiter(value[start - 1])) {
            continue;
        }
        let word: Vec<u8> = value[start..end]
            .iter()
            .filter(|b| !matches!(b, b'_' | b'-'))
            .map(u8::to_ascii_lowercase)
            .collect();
        if !SECRET_PARAMETERS.iter().any(|p| p.as_bytes() == word) {
            continue;
        }
        let after = &value[eq + 1..];
        let after = &after[after.iter().take_while(|b| **b == b' ').count()..];
        if after
            .first()
            .is_some_and(|&b| !is_delimiter(b) && b != b'#')
        {
            return true;
        }
    }
    false
}

/// Whether `value` holds a JWT (a JWS or a JWE): `eyJ` (`{"` in base64url) and 7 or more
/// base64url characters, `.`, 10 or more, `.`.
fn has_jwt(value: &[u8]) -> bool {
    let b64 = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-');
    let mut from = 0;
    while let Some(found) = find(&value[from..], b"eyJ") {
        let start = from + found;
        let header = value[start..].iter().take_while(|b| b64(b)).count();
        let rest = &value[start + header..];
        if header >= 10 && rest.first() == Some(&b'.') {
            let payload = rest[1..].iter().take_while(|b| b64(b)).count();
            if payload >= 10 && rest.get(1 + payload) == Some(&b'.') {
                return true;
            }
        }
        from = start + 3;
    }
    false
}

/// Whether `value` is a DSN with a password and no scheme: `user:password@host…`, as Go's
/// MySQL driver (`root:pw@tcp(db:3306)/app`, `u:pw@unix(/run/mysqld.sock)/app`,
/// `u:pw@/app`) and curl's proxies (`user:pw@proxy:3128`) write it. The user is letters,
/// digits, `.`, `_` or `-` (or nothing), the password anything but white space, and what
/// follows the last `@` a host (`db`, `db:3306`, then `/…` or `?…`) or a Go network
/// (`tcp(`, `unix(`), so that neither a prompt (`${debian_chroot:+…}\u@\h`) nor an
/// image (`name:tag@sha256:…`) is one.
fn is_dsn_with_password(value: &[u8]) -> bool {
    if value.iter().any(u8::is_ascii_whitespace) || find(value, b"://").is_some() {
        return false;
    }
    let Some(at) = value.iter().rposition(|&b| b == b'@') else {
        return false;
    };
    let (userinfo, host) = (&value[..at], &value[at + 1..]);
    let Some(colon) = userinfo.iter().position(|&b| b == b':') else {
        return false;
    };
    let (user, password) = (&userinfo[..colon], &userinfo[colon + 1..]);
    let user_ok = user
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !user_ok || password.is_empty() {
        return false;
    }
    let networks: [&[u8]; 5] = [b"tcp(", b"tcp6(", b"udp(", b"unix(", b"/"];
    if networks.iter().any(|p| host.starts_with(p)) {
        return true;
    }
    let name_len = host
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'))
        .count();
    let mut rest = &host[name_len..];
    if let Some(port) = rest.strip_prefix(b":") {
        let digits = port.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &port[digits..];
    }
    name_len > 0 && (rest.is_empty() || rest[0] == b'/' || rest[0] == b'?')
}

/// The first position of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
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
mod tests {
    use super::*;

    fn secret(name: &str, value: &str) -> bool {
        is_secret(name.as_bytes(), value.as_bytes())
    }

    #[test]
    fn the_reviews_variables_are_all_secret() {
        for k in [
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "NPM_TOKEN",
            "HUGGING_FACE_HUB_TOKEN",
            "SLACK_BOT_TOKEN",
            "API_KEY",
            "OPENAI_KEY",
            "ANTHROPIC_KEY",
            "COHERE_API_KEY_V2",
            "OPENAI_API_KEY_OLD",
        ] {
            assert!(secret(k, "x"), "{k}");
        }
        assert!(secret("DATABASE_URL", "postgres://app:hunter2@db:5432/app"));
    }

    #[test]
    fn keys_by_pattern_ignoring_case() {
        for k in [
            "ANTHROPIC_API_KEY",
            "openai_api_key",
            "MY_SERVICE_API_KEY",
            "GITHUB_AUTH_TOKEN",
            "X_SECRET_KEY",
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
            "ANTHROPIC_CUSTOM_HEADERS",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "PGPASSWORD",
            "MYSQL_PASSWD",
            "GITHUB_PAT",
            "API_KEYS_DIR",
        ] {
            assert!(secret(k, "x"), "{k}");
        }
        for k in [
            "HOME",
            "PATH",
            "TERM",
            "PATTERN",
            "KEYMAP",
            "KEYTIMEOUT",
            "TOKENIZERS_PARALLELISM",
            "SSH_AUTH_SOCK",
        ] {
            assert!(!secret(k, "x"), "{k}");
        }
        // The price of patterns: a harmless name with KEY in it goes too (keep_env it).
        assert!(secret("MONKEYPATCH", "x"));
    }

    #[test]
    fn urls_only_when_they_carry_a_password() {
        assert!(secret("DATABASE_URL", "postgres://u:p@h/db"));
        assert!(secret("redis_url", "redis://:p@h:6379"));
        assert!(secret(
            "MONGO_URI",
            "mongodb+srv://u:p@cluster/x?retryWrites=true"
        ));
        assert!(secret("SENTRY_DSN", "https://k:s@o1.ingest.sentry.io/2"));
        assert!(!secret("DATABASE_URL", "postgres://u@h/db"));
        assert!(!secret("DATABASE_URL", "postgres:///db?host=/run/pg"));
        assert!(!secret("HOMEPAGE_URL", "https://example.com/a:b@c"));
        // A DSN without a scheme holds a password only under a name that can hold one.
        assert!(secret("PAGER_URL_STYLE", "u:p@h"));
        assert!(!secret("PAGER_STYLE", "u:p@h"));
        // An empty password is none.
        assert!(!secret("DATABASE_URL", "postgres://u:@h/db"));
        // Any name, and every URL in the value.
        assert!(secret("CACHE", "postgres://u:p@h/db"));
        assert!(secret(
            "PIP_EXTRA_INDEX_URLS",
            "https://pypi.org/simple https://u:p@corp/simple"
        ));
    }

    /// Security review N14: real-world names and values, withheld (`true`) or kept.
    const TABLE: &[(&str, &str, bool)] = &[
        // What the review found reaching hooks.
        ("MYSQL_PWD", "hunter2", true),
        ("DB_PASS", "hunter2", true),
        ("SMTP_PASS", "hunter2", true),
        ("REDIS_PASS", "hunter2", true),
        ("PASS", "hunter2", true),
        ("GPG_PASSPHRASE", "correct horse", true),
        ("SSH_PASSPHRASE", "correct horse", true),
        ("HTTP_PROXY", "http://user:proxypass@proxy:3128", true),
        ("https_proxy", "http://user:proxypass@proxy:3128", true),
        ("ALL_PROXY", "socks5://user:proxypass@proxy:1080", true),
        ("https_proxy", "user:proxypass@proxy:3128", true),
        ("NPM_CONFIG__AUTH", "dXNlcjpwYXNz", true),
        ("npm_config__auth", "dXNlcjpwYXNz", true),
        (
            "DOCKER_AUTH_CONFIG",
            "{\"auths\":{\"r.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}",
            true,
        ),
        ("CI_JOB_JWT", "x", true),
        ("CI_JOB_JWT_V2", "x", true),
        ("BW_SESSION", "Ksu+Aq1Zk3TQf0m8w2Q==", true),
        ("OP_SESSION_my", "x", true),
        (
            "AZURE_STORAGE_CONNECTION_STRING",
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=k==;EndpointSuffix=core.windows.net",
            true,
        ),
        (
            "ConnectionStrings__Default",
            "Server=db;Database=app;User Id=u;Password=cspw;",
            true,
        ),
        ("BASIC_AUTH", "user:pass", true),
        ("AUTH", "user:pass", true),
        ("COOKIE", "session=abc", true),
        ("HTTP_COOKIE", "sid=abc", true),
        ("HTTP_AUTHORIZATION", "Basic dXNlcjpwYXNz", true),
        ("DATABASE_URL", "postgres://db/app?password=qspw", true),
        (
            "JDBC_URL",
            "jdbc:mysql://db:3306/app?user=u&password=jdbcpw",
            true,
        ),
        ("MYSQL_DSN", "root:dsnpw@tcp(127.0.0.1:3306)/app", true),
        (
            "MYSQL_DSN",
            "app:dsnpw@unix(/run/mysqld/mysqld.sock)/app",
            true,
        ),
        ("DATABASE_URL_RO", "postgres://ro:ropass@db/app", true),
        (
            "GIT_REMOTE_URL",
            "https://ghp_R4nd0mT0k3nV4lu3xxxxxxxxxxxxxxxxxx@github.com/o/r.git",
            true,
        ),
        (
            "SENTRY_DSN",
            "https://0f1e2d3c4b5a69788796a5b4c3d2e1f0@o1.ingest.sentry.io/2",
            true,
        ),
        ("PGOPTIONS", "host=db user=u password=lp", true),
        ("ODBC_STRING", "Driver={x};Server=db;UID=u;PWD=op;", true),
        (
            "BLOB_SAS_URL",
            "https://a.blob.core.windows.net/c?sv=2022-11-02&sr=c&sig=AbC%2F123",
            true,
        ),
        ("WEBHOOK", "https://hooks.example.com/in?token=a1b2c3", true),
        (
            "ID_TOKEN_COPY",
            "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
            true,
        ),
        (
            "EXTRA_HEADER",
            "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkYW5hIiwiaWF0IjoxfQ.sig",
            true,
        ),
        ("MY_GH", "ghp_0123456789abcdefghijABCDEFGHIJ012345", true),
        ("DEPLOY_ID", "AKIAIOSFODNN7EXAMPLE", true),
        ("CLAUDE", "sk-ant-api03-AbCdEf0123456789xyz", true),
        // Already withheld by name before: *_TOKEN, *_KEY, *PASSWORD*.
        ("GITHUB_TOKEN", "ghp_x", true),
        ("OPENAI_API_KEY", "sk-x", true),
        ("PGPASSWORD", "x", true),
        // Kept: the everyday environment.
        ("PATH", "/usr/local/bin:/usr/bin:/bin", false),
        ("HOME", "/home/dana", false),
        ("LANG", "en_US.UTF-8", false),
        ("LANG", "de_DE.UTF-8@euro", false),
        ("LANGUAGE", "sr_RS:sr@latin", false),
        ("LC_ALL", "C.UTF-8", false),
        ("TERM", "xterm-256color", false),
        ("SHELL", "/bin/bash", false),
        ("USER", "dana", false),
        ("PWD", "/home/dana/proj", false),
        ("OLDPWD", "/home/dana", false),
        ("EDITOR", "vim", false),
        ("http_proxy", "http://proxy:3128", false),
        ("HTTPS_PROXY", "http://proxy.corp:8080/", false),
        ("no_proxy", "localhost,127.0.0.1,.corp", false),
        ("PASSWORD_STORE_DIR", "/home/dana/.password-store", false),
        ("PGPASSFILE", "/home/dana/.pgpass", false),
        ("DB_PASS_FILE", "/run/secrets/db_pass", false),
        ("GIT_AUTHOR_NAME", "Dana Scully", false),
        ("GIT_AUTHOR_EMAIL", "dana@example.com", false),
        ("GIT_COMMITTER_NAME", "Dana Scully", false),
        ("GIT_ASKPASS", "/usr/lib/git-core/git-gui--askpass", false),
        ("SSH_AUTH_SOCK", "/run/user/1000/ssh-agent.socket", false),
        ("DESKTOP_SESSION", "ubuntu", false),
        ("XDG_SESSION_TYPE", "wayland", false),
        ("JWT_ALGORITHM", "RS256", false),
        (
            "XAUTHORITY",
            "/run/user/1000/.mutter-Xwaylandauth.X1",
            false,
        ),
        (
            "GIT_COMMIT",
            "3f1c2a9be0d54c7a8e6f1b2c3d4e5f60718293a4",
            false,
        ),
        ("DATABASE_URL", "postgres://app@db:5432/app", false),
        ("REPO_URL", "ssh://git@github.com/o/r.git", false),
        ("GIT_REMOTE", "git@github.com:o/r.git", false),
        ("DOCKER_IMAGE_URL", "nginx:1.25@sha256:0a1b2c3d", false),
        (
            "PS1",
            "${debian_chroot:+($debian_chroot)}\\u@\\h:\\w\\$ ",
            false,
        ),
        (
            "LS_COLORS",
            "rs=0:di=01;34:ln=01;36:*.key=00;33:*.pem=00;33:",
            false,
        ),
        ("JAVA_TOOL_OPTIONS", "-Dfile.encoding=UTF-8 -Xmx2g", false),
        ("GREP_COLORS", "ms=01;31:mc=01;31:sl=:cx=:fn=35", false),
        ("LESS", "-R", false),
        ("MAKEFLAGS", "-j8", false),
        ("PAGER", "less", false),
        ("KEYMAP", "us", false),
        ("HOMEPAGE_URL", "https://example.com/a:b@c", false),
        (
            "QUERY",
            "https://example.com/search?q=password&page=2",
            false,
        ),
        (
            "LOGIN_FORM_URL",
            "https://example.com/?password=&x=1",
            false,
        ),
    ];

    #[test]
    fn the_table_of_real_world_variables() {
        assert!(TABLE.len() >= 40);
        let wrong: Vec<String> = TABLE
            .iter()
            .filter(|(k, v, withheld)| secret(k, v) != *withheld)
            .map(|(k, v, withheld)| {
                format!(
                    "{k}={v}: {}",
                    if *withheld {
                        "reaches hooks"
                    } else {
                        "withheld"
                    }
                )
            })
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn keep_env_brings_any_of_them_back() {
        for (k, v, _) in TABLE {
            let policy = EnvPolicy {
                keep: vec![k.to_string()],
                remove: vec![],
            };
            assert!(!policy.withholds(OsStr::new(k), OsStr::new(v)), "{k}");
        }
    }

    #[test]
    fn value_shapes() {
        // Tokens need their length, and digits and letters.
        assert!(!is_provider_token(b"ghp_short1"));
        assert!(!is_provider_token(b"sk-some-long-hyphenated-name"));
        assert!(is_provider_token(b"glpat-Ab12Cd34Ef56Gh78Ij90"));
        // A URL's user: a token, not a name.
        assert!(!url_has_credentials(b"https://x-access-token@github.com"));
        assert!(!url_has_credentials(b"https://oauth2@gitlab.com"));
        assert!(url_has_credentials(b"redis://:pw@h:6379/0"));
        // Parameters: glued words are none, spaces around `=` are allowed.
        assert!(!has_secret_parameter(
            b"-Djavax.net.ssl.trustStorePassword=x"
        ));
        assert!(has_secret_parameter(b"Server=db; Password = p"));
        assert!(!has_secret_parameter(b"password=;x=1"));
        // JWTs: three segments, JSON headers.
        assert!(!has_jwt(b"eyJhbGciOiJIUzI1NiJ9"));
        assert!(!has_jwt(b"eyJ.eyJ."));
        // DSNs: a host or a Go network after the last `@`.
        assert!(is_dsn_with_password(b"u:p@ss@db:5432/app"));
        assert!(is_dsn_with_password(b"u:p@/app"));
        assert!(!is_dsn_with_password(b"u:p@db:x"));
        assert!(!is_dsn_with_password(b"u:p@"));
        assert!(!is_dsn_with_password(b"a b:c@d"));
    }

    #[test]
    fn globs() {
        let m = |p: &str, n: &str| glob_matches(p.as_bytes(), n.as_bytes());
        assert!(m("*KEY*", "KEY"));
        assert!(m("*KEY*", "a_key_b"));
        assert!(m(
            "OTEL_EXPORTER_OTLP*HEADERS",
            "OTEL_EXPORTER_OTLP_HEADERS"
        ));
        assert!(m("A*B*C", "AxxBxxBxxC"));
        assert!(!m("A*B*C", "AxxBxxBxxD"));
        assert!(m("*", ""));
        assert!(!m("KEY", "KEYS"));
        assert!(!m("*_URL", "URL"));
        assert!(m("*_URL", "X_URL"));
    }

    #[test]
    fn keep_wins_and_remove_adds() {
        let policy = EnvPolicy {
            keep: vec!["GITHUB_TOKEN".into()],
            remove: vec![
                EnvPattern::parse("corp_*").unwrap(),
                EnvPattern::parse("VAULT_ADDR").unwrap(),
            ],
        };
        let w = |k: &str| policy.withholds(OsStr::new(k), OsStr::new("v"));
        assert!(!w("GITHUB_TOKEN"));
        assert!(w("github_token"), "keep_env is exact, case included");
        assert!(w("CORP_THING"));
        assert!(w("VAULT_ADDR"));
        assert!(!w("HOME"));
        let all = EnvPolicy {
            keep: vec!["HOME".into()],
            remove: vec![EnvPattern::parse("*").unwrap()],
        };
        assert!(!all.withholds(OsStr::new("HOME"), OsStr::new("/h")));
        assert!(all.withholds(OsStr::new("LANG"), OsStr::new("C")));
    }

    #[test]
    fn bad_entries() {
        assert_eq!(EnvPattern::parse(""), Err(PatternError::Empty));
        assert_eq!(
            EnvPattern::parse("A=B"),
            Err(PatternError::BadCharacter("\"=\""))
        );
        assert_eq!(
            EnvPattern::parse("A\0"),
            Err(PatternError::BadCharacter("a NUL"))
        );
        assert_eq!(
            EnvPattern::parse("MY KEY"),
            Err(PatternError::BadCharacter("white space"))
        );
        assert_eq!(EnvPattern::parse("A**"), Err(PatternError::DoubleStar));
        assert_eq!(
            parse_kept_name("GH_*"),
            Err(PatternError::PatternNotAllowed)
        );
        assert_eq!(parse_kept_name("GH_TOKEN"), Ok("GH_TOKEN".into()));
    }

    #[test]
    fn non_utf8_names_are_matched_on_their_bytes() {
        let name = crate::platform::sys::file_system::os_str_from_bytes(b"MY_\xffTOKEN");
        assert!(EnvPolicy::default().withholds(name, OsStr::new("v")));
    }
}
