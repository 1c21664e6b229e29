//! Whether a variable's value holds a credential, whatever its name: a URL with a
//! password or a token for its user, a secret parameter, a JWT, a provider's token, or
//! under a [`DSN_PATTERNS`] name a DSN with a password.

use super::{DSN_PATTERNS, matches_any};

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
        // A later `eyJ` inside the same run ends where it ends, before the same byte:
        // it cannot pass where the whole run did not. Skipping the run keeps the scan
        // linear (a value of `eyJ` repeated rescanned its rest at each one: a 129 KB
        // value took 25 s, docs/threats.md#b9).
        from = start + header.max(3);
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

#[cfg(test)]
mod tests {
    use super::*;

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
        // One run is looked at once (B9: `eyJ` repeated was a scan per repeat), and a
        // JWT after a run that is none, or inside a longer run, is still found.
        assert!(!has_jwt("eyJ".repeat(43_000).as_bytes()));
        assert!(has_jwt(
            b"eyJ.x eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkYW5hIn0.sig"
        ));
        assert!(has_jwt(
            b"xxeyJeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkYW5hIn0.sig"
        ));
        // DSNs: a host or a Go network after the last `@`.
        assert!(is_dsn_with_password(b"u:p@ss@db:5432/app"));
        assert!(is_dsn_with_password(b"u:p@/app"));
        assert!(!is_dsn_with_password(b"u:p@db:x"));
        assert!(!is_dsn_with_password(b"u:p@"));
        assert!(!is_dsn_with_password(b"a b:c@d"));
    }
}
