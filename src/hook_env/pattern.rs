//! A variable name's pattern (`[sandbox] remove_env`, and the built-in lists) and the
//! checks of a `keep_env` or `remove_env` entry.

use std::fmt;

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
pub(super) fn glob_matches(pattern: &[u8], name: &[u8]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
