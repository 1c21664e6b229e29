//! The environment a hook runs with: the host's, less every variable that looks like a
//! credential.
//!
//! The rules, in the style of Codex's `shell_environment_policy` default excludes:
//!
//! - a name that matches one of [`SECRET_PATTERNS`] (`*KEY*`, `*TOKEN*`, `*SECRET*`,
//!   `*PASSWORD*`, …; ignoring case, on the name's bytes) is removed;
//! - a `*_URL`, `*_URI` or `*_DSN` variable whose value carries a password
//!   (`scheme://user:password@host`, as in `DATABASE_URL`) is removed;
//! - the few harmless names the patterns would catch ([`HARMLESS`]) stay;
//! - the user's `[sandbox] remove_env` entries remove more, and `[sandbox] keep_env`
//!   names pass through whatever matched them ([`EnvPolicy`]).
//!
//! Host hooks and boxed hooks get the same environment; WASM hooks get none at all.

use std::ffi::{OsStr, OsString};
use std::fmt;

/// Name patterns (`*` is any run of characters, case is ignored) of the variables a
/// hook never sees.
pub const SECRET_PATTERNS: &[&str] = &[
    "*KEY*",
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*CREDENTIAL*",
    // GitHub personal access tokens (`GITHUB_PAT`, read by gh's and R's tooling).
    "*_PAT",
    // Headers that carry an `Authorization:` or an API key.
    "ANTHROPIC_CUSTOM_HEADERS",
    "OTEL_EXPORTER_OTLP*HEADERS",
];

/// Names whose value is a URL, removed when that URL carries a password.
pub const URL_PATTERNS: &[&str] = &["*_URL", "*_URI", "*_DSN"];

/// Names the patterns catch that hold no secret, kept so that the hooks' tools behave
/// as in the user's shell. Each is a setting, never a credential:
pub const HARMLESS: &[&str] = &[
    // zsh and the Linux console: the keyboard map.
    "KEYMAP",
    // zsh: how long to wait for the next key of a sequence.
    "KEYTIMEOUT",
    // Hugging Face tokenizers: whether to use threads (it warns on every fork without it).
    "TOKENIZERS_PARALLELISM",
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
    let matches = |patterns: &[&str]| patterns.iter().any(|p| glob_matches(p.as_bytes(), name));
    if HARMLESS.iter().any(|h| name == h.as_bytes()) {
        return false;
    }
    matches(SECRET_PATTERNS) || matches(URL_PATTERNS) && url_has_password(value)
}

/// Whether `value` is a URL with a password in it: `scheme://user:password@host…`.
fn url_has_password(value: &[u8]) -> bool {
    let Some(start) = value.windows(3).position(|w| w == b"://") else {
        return false;
    };
    let rest = &value[start + 3..];
    let authority_end = rest
        .iter()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.iter().rposition(|&b| b == b'@') {
        Some(at) => authority[..at].contains(&b':'),
        None => false,
    }
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
        assert!(!secret("PAGER_URL_STYLE", "u:p@h"));
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
