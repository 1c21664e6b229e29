//! `protect-paths`: a PreToolUse hook that refuses writes to protected paths.
//!
//! Built for `wasm32-wasip2` (a component). A component cannot pass exit code
//! 2 through (Rust's std turns every non-zero exit into plain failure), so it
//! answers with JSON on stdout and exit 0: `{"decision":"block","reason":"…"}`
//! blocks; empty stdout lets the call through.
//!
//! Its arguments (argv[1..]) are the patterns, e.g. `.env .git/ secrets/*.pem`.
//! For `write_file` and `edit_file` calls it takes `tool_input.path` (or
//! `tool_input.file_path`), relative to the project, and checks it against
//! each pattern:
//!
//! * a pattern ending in `/` (`.git/`, `config/keys/`) protects that folder and
//!   everything under it; a folder pattern without an inner `/` (`.git/`)
//!   protects a folder of that name at any depth;
//! * a pattern with `*` or `?` is a glob on the whole relative path: `?` is one
//!   character and `*` any run of characters within one path segment, `**`
//!   any run including `/` (`secrets/*.pem`, `**/*.key`);
//! * any other pattern matches the exact path, or the file name (`.env`
//!   protects `.env` and `deploy/.env`).
//!
//! Paths and patterns compare without case (`.ENV` is `.env`, as on macOS and Windows;
//! stricter than Linux's file system, never looser). They are normalised: leading `./`, `.` segments and doubled
//! slashes are dropped, `..` is resolved lexically (so `src/../.env` is
//! `.env`), and then an absolute path under the envelope's `cwd` (or under the
//! guest's `/project`) is made relative (so `/p/../p/.env` is `.env` too). A
//! relative path that climbs out with a leading `..` is resolved against `cwd`
//! (`../p/.env` from `/p` is `.env`); a leading `..` is never dropped, so a path
//! outside the project is never taken for one inside it.

fn main() {
    let patterns: Vec<String> = std::env::args().skip(1).collect();
    // In hookhost's vocabulary whatever shape it came in (`Bash` is `bash`, a
    // `file_path` is a relative `path`): see the hookhost-hook crate.
    let envelope = match hookhost_hook::read_event() {
        Ok(event) => event,
        Err(e) => {
            // Failing closed would block every call on a broken host; report it instead.
            eprintln!("protect-paths: {e}");
            std::process::exit(1);
        }
    };
    if let Some(reason) = check_envelope(&envelope, &patterns) {
        println!("{}", block_json(&reason));
    }
}

pub use hookhost_hook::block_json;

/// Returns the block reason if the envelope is a write to a protected path.
pub fn check_envelope(envelope: &serde_json::Value, patterns: &[String]) -> Option<String> {
    let tool = envelope.get("tool_name")?.as_str()?;
    if tool != "write_file" && tool != "edit_file" {
        return None;
    }
    let input = envelope.get("tool_input")?;
    let cwd = envelope.get("cwd").and_then(|v| v.as_str());
    for key in ["path", "file_path"] {
        let Some(raw) = input.get(key).and_then(|v| v.as_str()) else {
            continue;
        };
        let path = relative_path(raw, cwd);
        for pattern in patterns {
            if matches(pattern, &path) {
                return Some(format!(
                    "{tool} on {raw} is not allowed: the path is protected (pattern {pattern})"
                ));
            }
        }
    }
    None
}

/// The path relative to the project, normalised (see the crate docs).
///
/// `..` is resolved before the project prefix is taken off, so `/p/../p/.env` is `.env`.
/// A relative path that climbs out with a leading `..` is resolved against `cwd` (the
/// project); without a `cwd` it keeps its leading `..`, so it never passes for a path
/// inside the project.
pub fn relative_path(raw: &str, cwd: Option<&str>) -> String {
    let cwd = cwd.filter(|c| c.starts_with('/')).map(|c| {
        let c = normalise(c);
        if c.len() > 1 {
            c.trim_end_matches('/').to_owned()
        } else {
            c
        }
    });
    let path = match (&cwd, normalise(raw)) {
        (Some(cwd), rel) if rel == ".." || rel.starts_with("../") => {
            normalise(&format!("{cwd}/{rel}"))
        }
        (_, path) => path,
    };
    if !path.starts_with('/') {
        return path;
    }
    for root in cwd.iter().map(String::as_str).chain(["/project"]) {
        if root == "/" {
            continue; // a project of `/` would make every path "in the project"
        }
        if let Some(rest) = path.strip_prefix(root)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return rest.trim_start_matches('/').to_owned();
        }
    }
    path
}

/// Drops empty and `.` segments, resolves `..` lexically. Keeps a leading `/`
/// (a path outside the project stays absolute; `/..` is `/`), a leading `..` of a
/// relative path (it leads out of the project) and a trailing `/`.
pub fn normalise(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => match segments.last() {
                Some(&last) if last != ".." => {
                    segments.pop();
                }
                _ if absolute => {}
                _ => segments.push(".."),
            },
            s => segments.push(s),
        }
    }
    let mut out = String::new();
    if absolute {
        out.push('/');
    }
    out.push_str(&segments.join("/"));
    if path.ends_with('/') && !segments.is_empty() {
        out.push('/');
    }
    out
}

/// Does `pattern` protect the normalised relative `path`?
pub fn matches(pattern: &str, path: &str) -> bool {
    // Without case: on macOS and Windows `.ENV` is the file `.env`, and a WASM hook cannot
    // tell which OS it runs on, so it refuses the stricter way everywhere (P2).
    let pattern = normalise(&pattern.to_lowercase());
    let path = path.to_lowercase();
    if pattern.is_empty() || path.is_empty() {
        return false;
    }
    let path = path.trim_end_matches('/');
    if let Some(dir) = pattern.strip_suffix('/') {
        if path == dir || path.starts_with(&format!("{dir}/")) {
            return true;
        }
        // `.git/` also protects `sub/.git/...`: a folder of that name anywhere.
        if !dir.contains('/') {
            return path.split('/').any(|segment| segment == dir);
        }
        return false;
    }
    if pattern.contains(['*', '?']) {
        return glob(pattern.as_bytes(), path.as_bytes());
    }
    path == pattern || path.rsplit('/').next() == Some(pattern.as_str())
}

/// A small glob: `?` one non-`/` byte, `*` any non-`/` run, `**` any run.
pub fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => {
            if let Some(rest) = rest.strip_prefix(b"*") {
                // `**/` may also match nothing: `**/*.key` matches `a.key`.
                if let Some(after) = rest.strip_prefix(b"/") {
                    if glob(after, text) {
                        return true;
                    }
                }
                (0..=text.len()).any(|i| glob(rest, &text[i..]))
            } else {
                for i in 0..=text.len() {
                    if glob(rest, &text[i..]) {
                        return true;
                    }
                    if i < text.len() && text[i] == b'/' {
                        break;
                    }
                }
                false
            }
        }
        Some((b'?', rest)) => {
            matches!(text.split_first(), Some((c, t)) if *c != b'/' && glob(rest, t))
        }
        Some((p, rest)) => matches!(text.split_first(), Some((c, t)) if c == p && glob(rest, t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(pattern: &str, path: &str) -> bool {
        matches(pattern, &relative_path(path, Some("/home/dana/proj")))
    }

    /// P2: a protected path in another case is the same file on macOS and Windows.
    #[test]
    fn patterns_match_without_case() {
        assert!(m(".env", ".ENV"));
        assert!(m("secrets/", "SECRETS/k.pem"));
        assert!(m("secrets/*.pem", "Secrets/K.PEM"));
        assert!(m(".ENV", "deploy/.env"));
        assert!(!m(".env", ".env.example"));
    }

    /// Claude Code's input (what an argv hook reads behind the bridge, or any hook with
    /// `envelope = "claude-code"`) is judged as the spec's envelope is.
    #[test]
    fn claude_codes_input_is_judged_like_the_specs() {
        let patterns = vec![".env".to_string(), "secrets/".to_string()];
        for (tool, path, blocked) in [
            ("Write", "/home/dana/proj/.env", true),
            ("Edit", "/home/dana/proj/secrets/k.pem", true),
            ("MultiEdit", "/home/dana/proj/deploy/.env", true),
            ("Write", "/home/dana/proj/src/main.rs", false),
            ("Read", "/home/dana/proj/.env", false),
        ] {
            let event = hookhost_hook::canonical(json!({
                "session_id": "s", "transcript_path": null, "cwd": "/home/dana/proj",
                "hook_event_name": "PreToolUse", "tool_name": tool,
                "tool_input": {"file_path": path, "content": "x"}, "tool_use_id": "t",
            }));
            assert_eq!(
                check_envelope(&event, &patterns).is_some(),
                blocked,
                "{tool} {path}"
            );
        }
    }

    #[test]
    fn exact_and_file_name() {
        assert!(m(".env", ".env"));
        assert!(m(".env", "./.env"));
        assert!(m(".env", "deploy/.env"));
        assert!(m("./.env", ".env"));
        assert!(m("config/app.toml", "config/app.toml"));
        assert!(!m("config/app.toml", "other/config/app.toml"));
        assert!(!m(".env", ".env.example"));
        assert!(!m(".env", "src/env.rs"));
    }

    #[test]
    fn folders() {
        assert!(m(".git/", ".git"));
        assert!(m(".git/", ".git/config"));
        assert!(m(".git/", ".git/refs/heads/main"));
        assert!(m(".git/", "vendor/lib/.git/config"));
        assert!(!m(".git/", ".gitignore"));
        assert!(!m(".git/", ".github/workflows/ci.yml"));
        assert!(m("config/keys/", "config/keys/a.pem"));
        assert!(!m("config/keys/", "other/config/keys/a.pem"));
    }

    #[test]
    fn globs() {
        assert!(m("secrets/*.pem", "secrets/server.pem"));
        assert!(m("secrets/*.pem", "./secrets/server.pem"));
        assert!(!m("secrets/*.pem", "secrets/deep/server.pem"));
        assert!(!m("secrets/*.pem", "secrets/server.pem.bak"));
        assert!(!m("secrets/*.pem", "other/secrets/server.pem"));
        assert!(m("*.lock", "Cargo.lock"));
        assert!(!m("*.lock", "sub/Cargo.lock"));
        assert!(m("**/*.key", "a.key"));
        assert!(m("**/*.key", "x/y/a.key"));
        assert!(m("secrets/**", "secrets/x/y.txt"));
        assert!(m("file?.txt", "file1.txt"));
        assert!(!m("file?.txt", "file10.txt"));
    }

    #[test]
    fn normalisation() {
        assert_eq!(relative_path("./src//main.rs", None), "src/main.rs");
        assert_eq!(relative_path("src/../.env", None), ".env");
        assert_eq!(
            relative_path("/home/dana/proj/.env", Some("/home/dana/proj")),
            ".env"
        );
        assert_eq!(
            relative_path("/home/dana/proj/.env", Some("/home/dana/proj/")),
            ".env"
        );
        assert_eq!(
            relative_path("/project/.env", Some("/home/dana/proj")),
            ".env"
        );
        assert_eq!(
            relative_path("/home/dana/project2/.env", Some("/home/dana/proj")),
            "/home/dana/project2/.env"
        );
        assert!(m(".env", "src/../.env"));
    }

    #[test]
    fn dot_dot_never_hides_a_protected_path() {
        let cwd = Some("/home/dana/proj");
        // Back into the project through `..`: the review's bypasses.
        assert_eq!(
            relative_path("/home/dana/proj/../proj/secrets/k.pem", cwd),
            "secrets/k.pem"
        );
        assert_eq!(
            relative_path("/home/dana/proj/../proj/config/keys/id", cwd),
            "config/keys/id"
        );
        assert_eq!(relative_path("/home/../home/dana/proj/.env", cwd), ".env");
        assert_eq!(relative_path("../proj/secrets/k.pem", cwd), "secrets/k.pem");
        assert_eq!(relative_path("src/../../proj/.env", cwd), ".env");
        assert_eq!(relative_path("/project/../project/.env", cwd), ".env");
        assert_eq!(
            relative_path(
                "/home/dana/proj/../proj/.env",
                Some("/home/dana/x/../proj/")
            ),
            ".env"
        );
        assert!(m("secrets/*.pem", "/home/dana/proj/../proj/secrets/k.pem"));
        assert!(m("config/keys/", "/home/dana/proj/../proj/config/keys/id"));
        assert!(m("secrets/*.pem", "../proj/secrets/k.pem"));
        // Out of the project it stays outside: absolute, or a kept leading `..`.
        assert_eq!(
            relative_path("../other/secrets/k.pem", cwd),
            "/home/dana/other/secrets/k.pem"
        );
        assert_eq!(
            relative_path("/home/dana/proj/../other/k", cwd),
            "/home/dana/other/k"
        );
        assert_eq!(
            relative_path("../proj/secrets/k.pem", None),
            "../proj/secrets/k.pem"
        );
        assert_eq!(normalise("../../a/./b/../c"), "../../a/c");
        assert_eq!(normalise("a/../../b"), "../b");
        assert_eq!(normalise("/../a"), "/a");
        assert!(!m("secrets/*.pem", "../other/secrets/k.pem"));
        assert!(!matches(
            "secrets/*.pem",
            &relative_path("../proj/secrets/k.pem", None)
        ));
        // A project of `/` does not make every path relative.
        assert_eq!(relative_path("/etc/x", Some("/")), "/etc/x");
    }

    #[test]
    fn envelopes() {
        let patterns: Vec<String> = [".env", ".git/", "secrets/*.pem"]
            .map(String::from)
            .to_vec();
        let write = |tool: &str, input: serde_json::Value| {
            json!({"session_id":"s","hook_event_name":"PreToolUse","cwd":"/home/dana/proj",
                   "permission_mode":"auto","tool_name":tool,"tool_input":input,"tool_use_id":"t"})
        };
        let reason = check_envelope(
            &write("write_file", json!({"path":".env","content":"X=1"})),
            &patterns,
        )
        .unwrap();
        assert_eq!(
            reason,
            "write_file on .env is not allowed: the path is protected (pattern .env)"
        );
        assert!(
            check_envelope(
                &write("edit_file", json!({"file_path":".git/config"})),
                &patterns
            )
            .is_some()
        );
        assert!(
            check_envelope(
                &write("write_file", json!({"path":"secrets/a.pem"})),
                &patterns
            )
            .is_some()
        );
        assert!(
            check_envelope(
                &write("write_file", json!({"path":"src/main.rs"})),
                &patterns
            )
            .is_none()
        );
        assert!(check_envelope(&write("read_file", json!({"path":".env"})), &patterns).is_none());
        assert!(check_envelope(&write("write_file", json!({"path":".env"})), &[]).is_none());
    }

    #[test]
    fn json_answer() {
        assert_eq!(
            block_json("a \"quoted\" path"),
            r#"{"decision":"block","reason":"a \"quoted\" path"}"#
        );
    }
}
