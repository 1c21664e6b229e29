//! The one line of JSON a hook reads on stdin, in the shape the hook was written for.
//!
//! This module owns the spec's envelope: field names and order are the spec's (Claude
//! Code's, without `transcript_path`), tool names are hookhost's lower-case ones and
//! in-project paths are made relative. [`claude`] owns the other shape, Claude Code's own
//! (its tool names, absolute paths, `transcript_path`), for hooks written for Claude Code
//! and run behind the bridge. Which one a hook reads is its `envelope` key
//! ([`EnvelopeShape`]). Neither prompt envelope ever has a `turn_id`: Ouroboros reads one
//! as the mark of a Codex host.

pub mod claude;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

/// The shape of the line a hook reads: a hook's `envelope = "claude-code" | "spec"` key.
///
/// A hook without the key gets the front end's default: Claude Code's shape under the
/// bridge (so the Claude Code hooks people already have run unchanged behind it), the
/// spec's envelope under the command line, `serve` and `eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub enum EnvelopeShape {
    /// Claude Code's own input: its tool names (`Bash`, `Write`, `mcp__server__tool`),
    /// absolute `file_path`, `transcript_path` ([`claude`]).
    #[serde(rename = "claude-code")]
    ClaudeCode,
    /// The spec's envelope: hookhost's tool names (`bash`, `write_file`, `mcp`),
    /// project-relative paths, no `transcript_path`.
    #[serde(rename = "spec")]
    Spec,
}

impl EnvelopeShape {
    /// The config's spelling: `claude-code` or `spec`.
    pub fn as_str(self) -> &'static str {
        match self {
            EnvelopeShape::ClaudeCode => "claude-code",
            EnvelopeShape::Spec => "spec",
        }
    }

    /// The shape named by a config value, if it is one.
    pub fn from_config(value: &str) -> Option<EnvelopeShape> {
        match value {
            "claude-code" => Some(EnvelopeShape::ClaudeCode),
            "spec" => Some(EnvelopeShape::Spec),
            _ => None,
        }
    }
}

/// What every envelope shares.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    /// The session running the call.
    pub session_id: String,
    /// The project root, as the envelope's `cwd`.
    pub cwd: String,
    /// The mode in force (`auto` by default).
    pub permission_mode: String,
}

#[derive(Serialize)]
struct PreToolUseEnvelope<'a> {
    session_id: &'a str,
    hook_event_name: &'static str,
    cwd: &'a str,
    permission_mode: &'a str,
    tool_name: &'a str,
    tool_input: &'a Value,
    tool_use_id: &'a str,
}

#[derive(Serialize)]
struct PromptEnvelope<'a> {
    session_id: &'a str,
    hook_event_name: &'static str,
    cwd: &'a str,
    permission_mode: &'a str,
    prompt: &'a str,
}

/// The PreToolUse envelope, one line ending in `\n`. `tool_input` must already have its
/// in-project paths made relative ([`relativize_paths`]).
pub fn pre_tool_use(
    session: &SessionInfo,
    tool_name: &str,
    tool_input: &Value,
    tool_use_id: &str,
) -> Vec<u8> {
    line(&PreToolUseEnvelope {
        session_id: &session.session_id,
        hook_event_name: "PreToolUse",
        cwd: &session.cwd,
        permission_mode: &session.permission_mode,
        tool_name,
        tool_input,
        tool_use_id,
    })
}

/// The UserPromptSubmit envelope, one line ending in `\n`.
pub fn prompt(session: &SessionInfo, prompt: &str) -> Vec<u8> {
    line(&PromptEnvelope {
        session_id: &session.session_id,
        hook_event_name: "UserPromptSubmit",
        cwd: &session.cwd,
        permission_mode: &session.permission_mode,
        prompt,
    })
}

pub(crate) fn line<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising these plain structs cannot fail: every field is a string or a Value.
    let mut bytes = serde_json::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Rewrites, in place, every string in `value` that is an absolute path inside `project`
/// to the same path relative to it (the project itself becomes `.`). Other values are
/// left untouched; object keys are never rewritten.
///
/// Paths are compared after lexical normalisation (no filesystem access: `.` dropped,
/// `..` resolved, repeated `/` folded), so `/p/../p/secrets/k` is `secrets/k`, never
/// `../p/secrets/k`. A string that starts with the project but leaves it through `..`
/// (`/p/../etc/x`) is replaced by its normalised absolute form (`/etc/x`), so a hook never
/// sees a project prefix on a path outside it. A trailing `/` is kept.
pub fn relativize_paths(value: &mut Value, project: &Path) {
    let Some(root) = project.to_str() else {
        return;
    };
    let Some(root) = Lexical::of(root) else {
        return;
    };
    if root.parts.is_empty() {
        return; // a project of `/` would make every absolute path "in the project"
    }
    relativize(value, &root.parts);
}

fn relativize(value: &mut Value, root: &[&str]) {
    match value {
        Value::String(s) => {
            if let Some(rel) = relative_to(s, root) {
                *s = rel;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| relativize(v, root)),
        Value::Object(map) => map.values_mut().for_each(|v| relativize(v, root)),
        _ => {}
    }
}

/// An absolute path resolved by spelling alone: its parts and whether it ended in `/`.
struct Lexical<'a> {
    parts: Vec<&'a str>,
    trailing_slash: bool,
}

impl<'a> Lexical<'a> {
    /// `None` for a string that is not an absolute path.
    fn of(path: &'a str) -> Option<Lexical<'a>> {
        if !path.starts_with('/') {
            return None;
        }
        let mut parts = Vec::new();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                // `/..` is `/`, as the kernel has it.
                ".." => {
                    parts.pop();
                }
                name => parts.push(name),
            }
        }
        Some(Lexical {
            parts,
            trailing_slash: path.ends_with('/'),
        })
    }

    /// The parts from `from` on, joined; `.` when none is left.
    fn join_from(&self, from: usize, absolute: bool) -> String {
        let rest = &self.parts[from..];
        if rest.is_empty() {
            return if absolute { "/".into() } else { ".".into() };
        }
        let mut out = String::new();
        if absolute {
            out.push('/');
        }
        out.push_str(&rest.join("/"));
        if self.trailing_slash {
            out.push('/');
        }
        out
    }
}

/// The rewritten form of `s` (see [`relativize_paths`]), or `None` to leave it alone.
fn relative_to(s: &str, root: &[&str]) -> Option<String> {
    let path = Lexical::of(s)?;
    if path.parts.starts_with(root) {
        return Some(path.join_from(root.len(), false));
    }
    // Spelled from inside the project but leading out of it: show where it leads.
    let written_in_project = s
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .take_while(|p| *p != "..")
        .take(root.len())
        .eq(root.iter().copied());
    written_in_project.then(|| path.join_from(0, true))
}

/// A fresh `tool_use_id` for a call that did not bring one.
pub fn generate_tool_use_id() -> String {
    format!("toolu_hh_{}", random_hex(12))
}

/// A fresh session id.
pub fn generate_session_id() -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("{millis:012x}{}", random_hex(8))
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    if getrandom::fill(&mut buf).is_err() {
        // No entropy source: fall back to the clock and the pid, still unique enough
        // for an id that only has to tell calls apart.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let seed = nanos ^ u128::from(std::process::id());
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (seed >> ((i % 16) * 8)) as u8;
        }
    }
    hex::encode(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session() -> SessionInfo {
        SessionInfo {
            session_id: "01M".into(),
            cwd: "/home/dana/proj".into(),
            permission_mode: "auto".into(),
        }
    }

    #[test]
    fn pre_tool_use_fields_in_order() {
        let line = pre_tool_use(&session(), "bash", &json!({"command": "ls"}), "7EX");
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "{\"session_id\":\"01M\",\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/home/dana/proj\",\"permission_mode\":\"auto\",\"tool_name\":\"bash\",\"tool_input\":{\"command\":\"ls\"},\"tool_use_id\":\"7EX\"}\n"
        );
    }

    #[test]
    fn prompt_has_no_turn_id() {
        let line = String::from_utf8(prompt(&session(), "ooo seed")).unwrap();
        assert_eq!(
            line,
            "{\"session_id\":\"01M\",\"hook_event_name\":\"UserPromptSubmit\",\"cwd\":\"/home/dana/proj\",\"permission_mode\":\"auto\",\"prompt\":\"ooo seed\"}\n"
        );
    }

    #[test]
    fn paths_inside_the_project_become_relative() {
        let mut v = json!({
            "path": "/home/dana/proj/src/main.rs",
            "root": "/home/dana/proj",
            "sibling": "/home/dana/project2/x",
            "outside": "/etc/passwd",
            "text": "see /home/dana/proj/a",
            "n": 3,
            "list": ["/home/dana/proj//b/", {"/home/dana/proj/key": "/home/dana/proj/v"}]
        });
        relativize_paths(&mut v, Path::new("/home/dana/proj/"));
        assert_eq!(
            v,
            json!({
                "path": "src/main.rs",
                "root": ".",
                "sibling": "/home/dana/project2/x",
                "outside": "/etc/passwd",
                "text": "see /home/dana/proj/a",
                "n": 3,
                "list": ["b/", {"/home/dana/proj/key": "v"}]
            })
        );
    }

    #[test]
    fn paths_are_normalised_before_they_are_made_relative() {
        let mut v = json!({
            "back_in": "/home/dana/proj/../proj/secrets/k.pem",
            "dots": "/home/dana/./proj//src/./../.env",
            "from_above": "/home/../home/dana/proj/config/keys/id",
            "root_dots": "/../home/dana/proj",
            "leaves": "/home/dana/proj/../proj2/x",
            "leaves_far": "/home/dana/proj/../../../../etc/passwd",
            "sibling_prefix": "/home/dana/project/../proj/a",
            "not_a_path": "// a comment",
            "unrelated": "/etc/../etc/passwd",
            "relative": "../proj/secrets/k.pem",
            "dir": "/home/dana/proj/a/b/../"
        });
        relativize_paths(&mut v, Path::new("/home/dana/x/../proj/."));
        assert_eq!(
            v,
            json!({
                "back_in": "secrets/k.pem",
                "dots": ".env",
                "from_above": "config/keys/id",
                "root_dots": ".",
                "leaves": "/home/dana/proj2/x",
                "leaves_far": "/etc/passwd",
                "sibling_prefix": "a",
                "not_a_path": "// a comment",
                "unrelated": "/etc/../etc/passwd",
                "relative": "../proj/secrets/k.pem",
                "dir": "a/"
            })
        );
    }
}
