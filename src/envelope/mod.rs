//! The one line of JSON a hook reads on stdin, in the shape the hook was written for.
//!
//! This module owns the spec's envelope: field names and order are the spec's (Claude
//! Code's, without `transcript_path`), tool names are hookhost's lower-case ones and
//! in-project paths are made relative. [`claude`] owns the other shape, Claude Code's own
//! (its tool names, absolute paths, `transcript_path`), for hooks written for Claude Code
//! and run behind the bridge. Which one a hook reads is its `envelope` key, or the rule
//! of [`crate::config::HookDef::input_shape`] ([`EnvelopeShape`]). Neither prompt envelope ever has a `turn_id`: Ouroboros reads one
//! as the mark of a Codex host.

pub mod claude;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

/// The shape of the line a hook reads: a hook's `envelope = "claude-code" | "spec"` key.
///
/// A hook without the key reads what [`crate::config::HookDef::input_shape`] decides
/// (docs/envelopes.md): a WASM hook the spec's envelope everywhere; an argv hook the
/// front end's default, Claude Code's shape under the bridge (so the Claude Code hooks
/// people already have run unchanged behind it), the spec's envelope under the command
/// line, `serve` and `eval`.
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
///
/// How strings are read follows the project's own spelling, not the OS hookhost runs
/// on. A project spelt `C:\…`, `C:/…`, `\\?\…` or `\\server\share\…` is a Windows one:
/// `\` and `/` both separate, drive letters and names match without regard to ASCII case,
/// `\\?\C:\p` is `C:\p` and `\\?\UNC\server\share` is `\\server\share`. The result is
/// still `/`-separated (`C:\p\src\main.rs` gives `src/main.rs`, for hooks written for
/// POSIX), while a path that leaves the project is shown as Windows spells it
/// (`C:\p\..\k.pem` gives `C:\k.pem`). Any other project is POSIX, where `\` is an
/// ordinary character. A project that is a whole drive or share (`C:\`), like `/`,
/// rewrites nothing.
pub fn relativize_paths(value: &mut Value, project: &Path) {
    let Some(root) = project.to_str() else {
        return;
    };
    let folds = crate::platform::sys::file_system::case_insensitive_fs();
    let Some(root) = Lexical::of(root, PathStyle::of_root(root, folds)) else {
        return;
    };
    if root.parts.is_empty() {
        // A project of `/` (or `C:\`, `\\server\share`) would make every absolute path
        // on it "in the project".
        return;
    }
    relativize(value, &root);
}

fn relativize(value: &mut Value, root: &Lexical<'_>) {
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

/// The rules a path is read by, chosen once from the project root's spelling.
///
/// Pure string rules, no `cfg`: hookhost on Linux must read a Windows agent's paths the
/// same way hookhost on Windows does, and both are tested on any host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathStyle {
    /// `/` separates; names match byte for byte; `\` is an ordinary character.
    Posix,
    /// POSIX on a file system that looks names up without regard to case (macOS's
    /// default): `/Users/dana/PROJ/secrets` is the project `/Users/dana/proj`'s
    /// `secrets`, and a path policy must see it so (ASCII folding, as on Windows).
    PosixFoldingCase,
    /// `\` and `/` both separate; paths start at a drive (`C:\`) or a share
    /// (`\\server\share`); names match without regard to ASCII case.
    Windows,
}

impl PathStyle {
    /// Windows for a root spelt with a drive (`C:\`, `C:/`), `\\?\` or `\\`; else POSIX,
    /// folding case where the file system does (`folds`). A POSIX root always starts with
    /// `/`, so no POSIX project is read as Windows.
    fn of_root(root: &str, folds: bool) -> PathStyle {
        if root.starts_with(r"\\") || drive_letter(root, PathStyle::Windows).is_some() {
            PathStyle::Windows
        } else if folds {
            PathStyle::PosixFoldingCase
        } else {
            PathStyle::Posix
        }
    }

    fn is_separator(self, c: char) -> bool {
        match self {
            PathStyle::Posix | PathStyle::PosixFoldingCase => c == '/',
            PathStyle::Windows => c == '/' || c == '\\',
        }
    }

    /// Whether two names spell the same directory entry.
    fn same_name(self, a: &str, b: &str) -> bool {
        match self {
            PathStyle::Posix => a == b,
            // NTFS looks names up without regard to case. ASCII folding is enough: a name
            // that differs from the project's only in non-ASCII case is merely left as it
            // was written, never made relative to the wrong place.
            PathStyle::Windows | PathStyle::PosixFoldingCase => a.eq_ignore_ascii_case(b),
        }
    }

    /// The names of `rest` (a path after its anchor), without the empty and `.` ones.
    fn names(self, rest: &str) -> impl Iterator<Item = &str> {
        rest.split(move |c| self.is_separator(c))
            .filter(|name| !name.is_empty() && *name != ".")
    }

    /// Whether `names` begins with every name of `root`.
    fn begins_with<'n>(self, names: impl IntoIterator<Item = &'n str>, root: &[&str]) -> bool {
        let mut names = names.into_iter();
        root.iter()
            .all(|r| names.next().is_some_and(|n| self.same_name(n, r)))
    }
}

/// Where an absolute path starts: what `..` can never climb above.
#[derive(Debug, Clone, Copy)]
enum Anchor<'a> {
    /// POSIX `/`.
    Slash,
    /// A Windows drive, its letter upper-cased: `C:\`.
    Drive(char),
    /// A Windows share: `\\server\share`.
    Share { server: &'a str, share: &'a str },
}

impl<'a> Anchor<'a> {
    /// The anchor `path` starts with and the rest of it, or `None` for a string that is
    /// not an absolute path in `style`.
    fn split(path: &'a str, style: PathStyle) -> Option<(Anchor<'a>, &'a str)> {
        if style != PathStyle::Windows {
            return path.strip_prefix('/').map(|rest| (Anchor::Slash, rest));
        }
        // `\\?\` (only ever with backslashes) is how canonicalize spells every path: it
        // tells Windows not to normalise the rest, which a canonical path never needs, so
        // the rest is read like any other path.
        if let Some(verbatim) = path.strip_prefix(r"\\?\") {
            return match verbatim.get(..4) {
                Some(unc) if unc.eq_ignore_ascii_case(r"UNC\") => share(&verbatim[4..], style),
                _ => drive(verbatim, style),
            };
        }
        let mut chars = path.chars();
        if chars.next().is_some_and(|c| style.is_separator(c))
            && chars.next().is_some_and(|c| style.is_separator(c))
        {
            return share(&path[2..], style);
        }
        drive(path, style)
    }

    /// Whether two anchors are the same place: Windows ones without regard to ASCII case.
    fn same_as(&self, other: &Anchor<'_>) -> bool {
        match (self, other) {
            (Anchor::Slash, Anchor::Slash) => true,
            (Anchor::Drive(a), Anchor::Drive(b)) => a == b,
            (
                Anchor::Share { server, share },
                Anchor::Share {
                    server: other_server,
                    share: other_share,
                },
            ) => {
                server.eq_ignore_ascii_case(other_server) && share.eq_ignore_ascii_case(other_share)
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for Anchor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Anchor::Slash => f.write_str("/"),
            Anchor::Drive(letter) => write!(f, "{letter}:\\"),
            Anchor::Share { server, share } => write!(f, r"\\{server}\{share}\"),
        }
    }
}

/// The drive letter `path` starts with, upper-cased, if it is spelt `C:\` or `C:/`. A bare
/// `C:` is the current folder on that drive: not absolute.
fn drive_letter(path: &str, style: PathStyle) -> Option<char> {
    let mut chars = path.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    let absolute = chars.next() == Some(':') && chars.next().is_some_and(|c| style.is_separator(c));
    absolute.then(|| letter.to_ascii_uppercase())
}

fn drive(path: &str, style: PathStyle) -> Option<(Anchor<'_>, &str)> {
    // The letter, `:` and the separator are one byte each.
    drive_letter(path, style).map(|letter| (Anchor::Drive(letter), &path[3..]))
}

/// `server\share\rest`, after the leading `\\`.
fn share(path: &str, style: PathStyle) -> Option<(Anchor<'_>, &str)> {
    let mut pieces = path.splitn(3, |c| style.is_separator(c));
    let server = pieces.next()?;
    let share = pieces.next()?;
    // `\\.\…` and `//?/…` name devices, not shares: not paths a project can hold.
    if server.is_empty() || share.is_empty() || server == "." || server == "?" {
        return None;
    }
    Some((Anchor::Share { server, share }, pieces.next().unwrap_or("")))
}

/// An absolute path resolved by spelling alone: where it starts, its names and whether it
/// ended in a separator.
struct Lexical<'a> {
    style: PathStyle,
    anchor: Anchor<'a>,
    /// The names after the anchor as written, before `.` and `..` were resolved.
    written: &'a str,
    parts: Vec<&'a str>,
    trailing_separator: bool,
}

impl<'a> Lexical<'a> {
    /// `None` for a string that is not an absolute path in `style`.
    fn of(path: &'a str, style: PathStyle) -> Option<Lexical<'a>> {
        let (anchor, written) = Anchor::split(path, style)?;
        let mut parts = Vec::new();
        for name in style.names(written) {
            match name {
                // `/..` is `/`, as the kernel has it (and `C:\..` is `C:\` on Windows).
                ".." => {
                    parts.pop();
                }
                name => parts.push(name),
            }
        }
        Some(Lexical {
            style,
            anchor,
            written,
            parts,
            trailing_separator: path.ends_with(|c| style.is_separator(c)),
        })
    }

    /// The parts from `from` on, `/`-separated whatever the style (hooks are written for
    /// POSIX paths); `.` when none is left.
    fn relative_from(&self, from: usize) -> String {
        let rest = &self.parts[from..];
        if rest.is_empty() {
            return ".".into();
        }
        self.joined(String::new(), rest, '/')
    }

    /// The whole path, spelt as its style spells it: `/etc/x`, `C:\Users\x`.
    fn absolute(&self) -> String {
        let anchor = self.anchor.to_string();
        if self.parts.is_empty() {
            return anchor;
        }
        let separator = match self.style {
            PathStyle::Posix | PathStyle::PosixFoldingCase => '/',
            PathStyle::Windows => '\\',
        };
        self.joined(anchor, &self.parts, separator)
    }

    /// `out`, then `names` joined by `separator`, then one more if the path ended in one.
    fn joined(&self, mut out: String, names: &[&str], separator: char) -> String {
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                out.push(separator);
            }
            out.push_str(name);
        }
        if self.trailing_separator {
            out.push(separator);
        }
        out
    }
}

/// The rewritten form of `s` (see [`relativize_paths`]), or `None` to leave it alone.
fn relative_to(s: &str, root: &Lexical<'_>) -> Option<String> {
    let style = root.style;
    let path = Lexical::of(s, style)?;
    if !path.anchor.same_as(&root.anchor) {
        return None; // another drive or share
    }
    if style.begins_with(path.parts.iter().copied(), &root.parts) {
        return Some(path.relative_from(root.parts.len()));
    }
    // Spelled from inside the project but leading out of it: show where it leads.
    let written_in_project = style.begins_with(
        style.names(path.written).take_while(|name| *name != ".."),
        &root.parts,
    );
    written_in_project.then(|| path.absolute())
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

    #[test]
    fn posix_root_reads_backslashes_as_ordinary_characters() {
        let mut v = json!({
            "inside": "/home/dana/proj/a\\b.rs",
            "dir_named_with_backslash": "/home/dana/proj\\",
            "not_dot_dot": "/home/dana/proj\\..\\etc",
            "inside_then_backslash_dots": "/home/dana/proj/src\\..\\x",
            "windows_shaped": "C:\\Users\\dana\\proj\\x",
            "unc": "\\\\server\\share\\proj",
            "slash_then_backslash_dots": "/home/dana/proj/..\\x"
        });
        relativize_paths(&mut v, Path::new("/home/dana/proj"));
        assert_eq!(
            v,
            json!({
                "inside": "a\\b.rs",
                "dir_named_with_backslash": "/home/dana/proj\\",
                "not_dot_dot": "/home/dana/proj\\..\\etc",
                "inside_then_backslash_dots": "src\\..\\x",
                "windows_shaped": "C:\\Users\\dana\\proj\\x",
                "unc": "\\\\server\\share\\proj",
                "slash_then_backslash_dots": "..\\x"
            })
        );
    }

    /// The call a Windows agent makes for a project at `root`, after relativising.
    /// On a file system that folds case (macOS's default), another spelling of the
    /// project's folders is the project: a path policy sees `secrets/k.pem`, not an
    /// absolute path its patterns never match. Byte for byte elsewhere.
    #[test]
    fn a_posix_project_on_a_case_folding_file_system_matches_any_case() {
        let written = json!({
            "file_path": "/Users/dana/PROJ/secrets/k.pem",
            "other": "/Users/Dana/proj/../Proj/.env",
        });
        let root = Lexical::of("/Users/dana/proj", PathStyle::PosixFoldingCase).unwrap();
        let mut folded = written.clone();
        relativize(&mut folded, &root);
        assert_eq!(
            folded,
            json!({"file_path": "secrets/k.pem", "other": ".env"})
        );
        let root = Lexical::of("/Users/dana/proj", PathStyle::Posix).unwrap();
        let mut exact = written.clone();
        relativize(&mut exact, &root);
        assert_eq!(exact, written);
    }

    fn on_windows(root: &str, mut v: Value) -> Value {
        relativize_paths(&mut v, Path::new(root));
        v
    }

    #[test]
    fn windows_paths_inside_the_project_become_relative() {
        let v = json!({
            "file_path": r"C:\Users\dana\proj\src\main.rs",
            "root": r"C:\Users\dana\proj",
            "root_slash": r"C:\Users\dana\proj\",
            "dir": r"C:\Users\dana\proj\src\",
            "doubled": r"C:\Users\dana\proj\\src\.\lib.rs",
            "sibling": r"C:\Users\dana\project2\x",
            "text": r"see C:\Users\dana\proj\a"
        });
        assert_eq!(
            on_windows(r"C:\Users\dana\proj", v),
            json!({
                "file_path": "src/main.rs",
                "root": ".",
                "root_slash": ".",
                "dir": "src/",
                "doubled": "src/lib.rs",
                "sibling": r"C:\Users\dana\project2\x",
                "text": r"see C:\Users\dana\proj\a"
            })
        );
    }

    #[test]
    fn windows_forward_slash_spellings_are_read_too() {
        let v = json!({
            "forward": "C:/Users/dana/proj/src/main.rs",
            "mixed": r"C:/Users\dana/proj\src/main.rs",
            "dir": "C:/Users/dana/proj/src/"
        });
        let expected = json!({"forward": "src/main.rs", "mixed": "src/main.rs", "dir": "src/"});
        assert_eq!(on_windows(r"C:\Users\dana\proj", v.clone()), expected);
        assert_eq!(on_windows("C:/Users/dana/proj", v), expected);
        assert_eq!(
            on_windows("C:/Users/dana/proj/", json!(r"C:\Users\dana\proj\a.rs")),
            json!("a.rs")
        );
    }

    #[test]
    fn windows_drive_and_names_match_without_regard_to_case() {
        let v = json!({
            "lower": r"c:\users\DANA\proj\x.rs",
            "kept_as_written": r"C:\Users\dana\PROJ\Src\Main.rs",
            "leaves": r"c:\USERS\dana\Proj\..\other\k.pem"
        });
        assert_eq!(
            on_windows(r"C:\Users\dana\proj", v),
            json!({
                "lower": "x.rs",
                "kept_as_written": "Src/Main.rs",
                "leaves": r"C:\USERS\dana\other\k.pem"
            })
        );
    }

    #[test]
    fn windows_verbatim_prefix_is_the_plain_path() {
        // The root as canonicalize gives it, the value as the agent writes it...
        assert_eq!(
            on_windows(
                r"\\?\C:\Users\dana\proj",
                json!([r"C:\Users\dana\proj\src\main.rs", "c:/Users/dana/proj"])
            ),
            json!(["src/main.rs", "."])
        );
        // ...and the other way round.
        assert_eq!(
            on_windows(
                r"C:\Users\dana\proj",
                json!([
                    r"\\?\C:\Users\dana\proj\src\main.rs",
                    r"\\?\C:\Users\dana\proj"
                ])
            ),
            json!(["src/main.rs", "."])
        );
        assert_eq!(
            on_windows(
                r"\\?\C:\Users\dana\proj",
                json!(r"\\?\C:\Users\dana\proj\..\k.pem")
            ),
            json!(r"C:\Users\dana\k.pem")
        );
    }

    #[test]
    fn windows_unc_share_projects() {
        let v = json!({
            "plain": r"\\server\share\proj\src\main.rs",
            "verbatim": r"\\?\UNC\server\share\proj\b.rs",
            "cased": r"\\SERVER\Share\proj\c.rs",
            "forward": "//server/share/proj/d.rs",
            "other_server": r"\\other\share\proj\x",
            "other_share": r"\\server\share2\proj\x",
            "drive": r"C:\share\proj\x",
            "device": r"\\.\server\share\proj\x",
            "leaves": r"\\server\share\proj\..\x",
            "leaves_far": r"\\server\share\proj\..\..\..\x"
        });
        let expected = json!({
            "plain": "src/main.rs",
            "verbatim": "b.rs",
            "cased": "c.rs",
            "forward": "d.rs",
            "other_server": r"\\other\share\proj\x",
            "other_share": r"\\server\share2\proj\x",
            "drive": r"C:\share\proj\x",
            "device": r"\\.\server\share\proj\x",
            // `..` never climbs above the share, as on Windows.
            "leaves": r"\\server\share\x",
            "leaves_far": r"\\server\share\x"
        });
        assert_eq!(on_windows(r"\\server\share\proj", v.clone()), expected);
        assert_eq!(on_windows(r"\\?\UNC\server\share\proj\", v), expected);
    }

    #[test]
    fn windows_paths_leaving_the_project_show_where_they_lead() {
        let v = json!({
            "leaves": r"C:\Users\dana\proj\..\other\k.pem",
            "leaves_forward": "C:/Users/dana/proj/../other/k.pem",
            "leaves_dir": r"C:\Users\dana\proj\..\other\",
            "leaves_far": r"C:\Users\dana\proj\..\..\..\..\..\Windows\System32",
            "to_the_drive": r"C:\Users\dana\proj\..\..\..",
            "back_in": r"C:\Users\dana\proj\..\proj\secrets\k.pem",
            "from_above": r"C:\..\Users\dana\x\..\proj\config\id",
            "dots": r"C:\Users\dana\.\proj\\src\.\..\.env",
            "unrelated": r"C:\Windows\..\Windows\win.ini"
        });
        assert_eq!(
            on_windows(r"C:\Users\dana\x\..\proj\.", v),
            json!({
                "leaves": r"C:\Users\dana\other\k.pem",
                "leaves_forward": r"C:\Users\dana\other\k.pem",
                "leaves_dir": r"C:\Users\dana\other\",
                "leaves_far": r"C:\Windows\System32",
                "to_the_drive": r"C:\",
                "back_in": "secrets/k.pem",
                "from_above": "config/id",
                "dots": ".env",
                "unrelated": r"C:\Windows\..\Windows\win.ini"
            })
        );
    }

    #[test]
    fn windows_other_drives_and_relative_strings_are_left_alone() {
        let v = json!({
            "other_drive": r"D:\Users\dana\proj\x.rs",
            "other_drive_leaving": r"D:\Users\dana\proj\..\x.rs",
            "relative": r"src\main.rs",
            "dot_dot": r"..\proj\secrets\k.pem",
            "drive_relative": r"C:Users\dana\proj\x.rs",
            "bare_drive": "C:",
            "no_drive": r"\Users\dana\proj\x.rs",
            "posix": "/Users/dana/proj/x.rs",
            "device": r"\\.\C:\Users\dana\proj\x.rs",
            "url": "https://example.com/Users/dana/proj"
        });
        assert_eq!(on_windows(r"C:\Users\dana\proj", v.clone()), v);
    }

    #[test]
    fn windows_drive_root_project_rewrites_nothing() {
        let v = json!([r"C:\Users\dana\x.rs", "C:/Windows/../x", r"C:\"]);
        for root in [
            r"C:\",
            "C:/",
            r"\\?\C:\",
            r"C:\Users\..",
            r"\\server\share\",
        ] {
            assert_eq!(on_windows(root, v.clone()), v, "{root}");
        }
    }

    #[test]
    fn windows_nested_json_is_rewritten_but_keys_are_not() {
        let v = json!({
            "edits": [
                {"file_path": r"C:\Users\dana\proj\a.rs", "notebook_path": r"C:\Users\dana\proj\b"},
                [r"C:\Users\dana\proj\c\", 7, null, true]
            ],
            "by_path": {r"C:\Users\dana\proj\key.rs": {r"C:\Users\dana\proj\k2": r"C:\Users\dana\proj\v"}}
        });
        assert_eq!(
            on_windows(r"C:\Users\dana\proj", v),
            json!({
                "edits": [
                    {"file_path": "a.rs", "notebook_path": "b"},
                    ["c/", 7, null, true]
                ],
                "by_path": {r"C:\Users\dana\proj\key.rs": {r"C:\Users\dana\proj\k2": "v"}}
            })
        );
    }
}
