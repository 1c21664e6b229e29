//! The environment a hook runs with: the host's, less every provider key.
//!
//! A hook never sees the agent's model credentials. Names are matched exactly against a
//! fixed list and by suffix (`*_API_KEY`, `*_AUTH_TOKEN`, …), ignoring case.

use std::ffi::{OsStr, OsString};

/// Provider and cloud credentials removed by exact name.
pub const PROVIDER_KEYS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
    "MISTRAL_API_KEY",
    "XAI_API_KEY",
    "HF_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AZURE_CLIENT_SECRET",
    "AZURE_OPENAI_API_KEY",
];

/// Suffixes that mark a variable as a credential.
pub const PROVIDER_KEY_SUFFIXES: &[&str] = &[
    "_API_KEY",
    "_AUTH_TOKEN",
    "_ACCESS_TOKEN",
    "_SECRET_KEY",
    "_BEARER_TOKEN",
    "_SESSION_TOKEN",
    "_OAUTH_TOKEN",
    "_CLIENT_SECRET",
];

/// Whether the variable `name` is a provider key a hook must not see.
pub fn is_provider_key(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    let upper = name.to_ascii_uppercase();
    PROVIDER_KEYS.contains(&upper.as_str())
        || PROVIDER_KEY_SUFFIXES.iter().any(|s| upper.ends_with(s))
        || upper.starts_with("OTEL_EXPORTER_OTLP") && upper.ends_with("HEADERS")
}

/// The host's environment without provider keys and without `PATH` (the caller sets
/// `PATH` as the session's rules say).
pub fn scrubbed(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(k, _)| !is_provider_key(k) && k != "PATH")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_by_name_and_pattern() {
        for k in [
            "ANTHROPIC_API_KEY",
            "openai_api_key",
            "MY_SERVICE_API_KEY",
            "GITHUB_AUTH_TOKEN",
            "X_SECRET_KEY",
            "OTEL_EXPORTER_OTLP_HEADERS",
        ] {
            assert!(is_provider_key(OsStr::new(k)), "{k}");
        }
        for k in ["HOME", "PATH", "API_KEYS_DIR", "TERM"] {
            assert!(!is_provider_key(OsStr::new(k)), "{k}");
        }
    }
}
