//! Hooks declared in a Markdown file's YAML frontmatter (Claude Code's skills, commands
//! and subagents), for the check of hooks that may rewrite a call ([`super::rewriting`];
//! docs/threats.md#r14). Claude Code 2.1.332 runs a skill's or command's `hooks` while it
//! is active, and a subagent's while it runs (or for the whole session, when the settings
//! name it the main agent), and applies their `updatedInput` as it does a settings hook's.
//!
//! hookhost reads no YAML: a parser other than the agent's can be made to read no `hooks`
//! where the agent reads some (merge keys, escapes, a document the two parse differently).
//! So a frontmatter is judged from its text, leaning to refusal: it may declare a hook that
//! may rewrite a call when it has a `hooks` key and names one of the agent's events that
//! can (`PreToolUse`), or when it holds an escape (`"\x68ooks"` spells the key otherwise).
//! Such a file is one hook, accepted as a whole: its frontmatter, and the state of the
//! files its commands name and, for a skill, of the files of its folder.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::bridge::FrontmatterBounds;

/// The files of a skill's folder that join its digest by their content: a skill's hook
/// most often runs a script of its own folder (`${CLAUDE_PLUGIN_ROOT}/fmt.sh`); past this
/// many, the rest by their metadata (a skill may ship a tree of reference files, and a
/// checkout that writes one again must not make it another skill).
const SKILL_FILES: usize = 512;

/// The most bytes of a skill's files known by their content, all together: past it, the
/// rest by their metadata (a skill may ship large documents).
const SKILL_BYTES: u64 = 8 << 20;

/// The most entries of a skill's folder looked at: past it, the digest says so and the
/// rest are not seen (a skill with hooks and a tree of thousands of files).
const SKILL_ENTRIES: usize = 4096;

/// The frontmatter of `text` as an agent finds it (`bounds`); `None` for a file without
/// one.
pub(super) fn of(text: &str, bounds: FrontmatterBounds) -> Option<Cow<'_, str>> {
    match bounds {
        FrontmatterBounds::ToNextDashes => to_next_dashes(text).map(Cow::Borrowed),
        FrontmatterBounds::DashLines => dash_lines(text, false).map(Cow::Owned),
        FrontmatterBounds::DashLinesWithBlanks => dash_lines(text, true).map(Cow::Owned),
    }
}

/// The frontmatter of `text` as Claude Code finds it (`/^---\s*\n([\s\S]*?)---\s*\n?/`,
/// after a byte-order mark): from the line after the opening `---` to the next `---`,
/// wherever that is. `\s` is JavaScript's (U+FEFF among its blanks, which Rust's
/// `trim_start` keeps: a frontmatter opened `---\u{feff}` was read by Claude Code 2.1.332).
fn to_next_dashes(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---")?;
    // `\s*\n`: the blanks after the opening `---`, up to the last line break among them.
    let blanks = rest.len() - rest.trim_start_matches(js_space).len();
    let opened = rest[..blanks].rfind('\n')? + 1;
    let body = &rest[opened..];
    body.find("---").map(|end| &body[..end])
}

/// The frontmatter of `text` as Qwen Code 0.24.4 finds it: a byte-order mark dropped,
/// `\r\n` and a lone `\r` made `\n`, then `/^---\n([\s\S]*?)\n---(?:\n|$)/` (its skills';
/// its subagents' want a line break after the closing `---`, so they have a frontmatter
/// only where this one finds it too, and the same). With `blanks`, a `---` line may end
/// in blanks (spaces, tabs, U+00A0 and the like: Copilot CLI 1.0.102 read a custom agent's
/// hooks so).
fn dash_lines(text: &str, blanks: bool) -> Option<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    // What may follow `---` on its line, up to the line break (or the end).
    let rest_of_line = |after: &str| -> Option<usize> {
        let line = after.split('\n').next().unwrap_or("");
        let blank = |c: char| blanks && c != '\n' && c.is_whitespace();
        line.chars().all(blank).then_some(line.len())
    };
    let opened = text.strip_prefix("---")?;
    let skip = rest_of_line(opened)?;
    let body = opened[skip..].strip_prefix('\n')?;
    let mut from = 0;
    loop {
        let at = from + body[from..].find("\n---")?;
        if rest_of_line(&body[at + "\n---".len()..]).is_some() {
            return Some(body[..at].to_string());
        }
        from = at + 1;
    }
}

/// JavaScript's `\s`: its white space (`Zs` among it) and line terminators.
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The frontmatter with YAML's line breaks as `\n` (a lone `\r` is one: Claude Code
/// 2.1.332 read a frontmatter of `\r`-separated lines), lowercased.
fn normalized(frontmatter: &str) -> String {
    frontmatter
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .to_ascii_lowercase()
}

/// Whether `frontmatter` may declare a hook of one of `events`: a `hooks` key (any case,
/// quoted or not, in a block or a flow mapping) and one of the events named; or, whatever
/// it names, a spelling hookhost does not read ([`unplain`]).
pub(super) fn may_declare(frontmatter: &str, events: &[&str]) -> bool {
    if unplain(frontmatter).is_some() {
        return true;
    }
    let lower = normalized(frontmatter);
    let names_event = events
        .iter()
        .any(|event| lower.contains(&event.to_ascii_lowercase()));
    names_event && key_at(&lower, "hooks").next().is_some()
}

/// What of `frontmatter` hookhost does not read, which may spell any key or value
/// otherwise than as written: an escape in a double-quoted text (`"\x68ooks"`,
/// `"tools\x2frun.sh"`; `\"` and `\\` are read), or an alias of an anchor (`*k :` with `&k hooks` is a `hooks`
/// key; Claude Code 2.1.332 ran both). A backslash with no double quote (`C:\build`) or
/// a `*` with no anchor of its name (`*.md`) is plain text.
pub(super) fn unplain(frontmatter: &str) -> Option<&'static str> {
    let lower = normalized(frontmatter);
    if has_escape(&lower) {
        return Some("an escape in a quoted text");
    }
    has_alias(&lower).then_some("an alias of an anchor (`*name`)")
}

/// Whether `lower` holds an escape other than `\"` and `\\` (which spell what they show)
/// in a double-quoted text: one opened by a `"` where a node begins (a line's start or
/// after `:`, `-`, `?`, `[`, `{` or `,`, blanks between), up to its closing `"`, over
/// lines. A `"` or a `\` inside plain text (`C:\Users\me to "posix" form`) is neither.
fn has_escape(lower: &str) -> bool {
    let chars: Vec<char> = lower.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        if chars[at] == '"' {
            let before = chars[..at].iter().rev().find(|c| **c != ' ' && **c != '\t');
            let opens = before.is_none_or(|c| "\n:-?[{,".contains(*c));
            if opens {
                at += 1;
                while at < chars.len() && chars[at] != '"' {
                    if chars[at] == '\\' {
                        if !matches!(chars.get(at + 1), Some('"' | '\\')) {
                            return true;
                        }
                        at += 1;
                    }
                    at += 1;
                }
            }
        }
        at += 1;
    }
    false
}

/// Whether `lower` holds an alias of one of its anchors: `*name` and `&name` where a node
/// begins (a line's start or after blanks, `[`, `{`, `,`, `:`, `-` or `?`).
fn has_alias(lower: &str) -> bool {
    let names = |sigil: char| {
        lower
            .match_indices(sigil)
            .filter(|(at, _)| {
                lower[..*at]
                    .chars()
                    .next_back()
                    .is_none_or(|c| c.is_whitespace() || "[{,:-?".contains(c))
            })
            .map(|(at, _)| {
                lower[at + 1..]
                    .split(|c: char| c.is_whitespace() || ",[]{}".contains(c))
                    .next()
                    .unwrap_or("")
            })
            .filter(|name| !name.is_empty())
            .collect::<std::collections::HashSet<&str>>()
    };
    !names('&').is_disjoint(&names('*'))
}

/// Where each `key` key of `lower` is and where its value begins (after its colon): where
/// a key begins (a line's start, after `- ` or `? `, or in a flow mapping after `{` or
/// `,`; an anchor or a tag may come first), then a colon after an optional closing quote,
/// blanks, line breaks and comments (`? hooks # why\n: …` is a key: Claude Code 2.1.332
/// ran such a skill's hook). A value's text (`description: git hooks: …`) is no key.
fn key_at<'a>(lower: &'a str, key: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
    let blank = |c: char| c == ' ' || c == '\t';
    lower.match_indices(key).filter_map(move |(at, _)| {
        let mut after = lower[at + key.len()..].trim_start_matches(['"', '\'']);
        loop {
            after = after.trim_start();
            match after.strip_prefix('#') {
                Some(comment) => after = comment.split_once('\n').map_or("", |(_, rest)| rest),
                None => break,
            }
        }
        let value = after.strip_prefix(':')?;
        let mut before = lower[..at]
            .trim_end_matches(['"', '\''])
            .trim_end_matches(blank);
        // `&anchor hooks:`, `!!str hooks:`
        for _ in 0..2 {
            let token = before
                .rsplit(|c: char| c.is_whitespace())
                .next()
                .unwrap_or("");
            if token.starts_with('&') || token.starts_with('!') {
                before = before[..before.len() - token.len()].trim_end_matches(blank);
            }
        }
        let begins = before.is_empty() || before.ends_with(['\n', '{', ',', '?', '-']);
        begins.then_some((at, lower.len() - value.len()))
    })
}

/// The commands the frontmatter's handlers run: each value of one of `keys` (`command`; quoted or
/// not, in a block or a flow mapping, on its line or continued on the lines indented
/// below it, which YAML folds into one), unquoted as YAML quotes it, a block scalar's
/// lines joined; for messages and for the files they name. A plain value is read both
/// whole and cut where a flow mapping would end it (`${X}/a.sh` in a block, `{command:
/// a.sh, timeout: 5}`): a word too many names no file. A value spelled otherwise (an
/// alias) is not found: the file's own digest still covers it, only its scripts are not.
pub(super) fn commands(frontmatter: &str, keys: &[&str]) -> Vec<String> {
    let text = frontmatter.replace("\r\n", "\n").replace('\r', "\n");
    // Keys are found in the lowercased text, which has the same byte offsets (ASCII case
    // alone changes), and values read from the text as written.
    let lower = text.to_ascii_lowercase();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut found = Vec::new();
    let at = keys
        .iter()
        .flat_map(|k| key_at(&lower, k).collect::<Vec<_>>());
    for (key, end) in at {
        let line_start = text[..key].rfind('\n').map_or(0, |at| at + 1);
        let mut lines = text[end..].lines();
        let first = lines.next().unwrap_or("").trim_start_matches([' ', '\t']);
        // A line below indented past the key's own column continues its value; with
        // nothing after the key on its line, one indented past that line (a flow
        // mapping's value may start below its key, further left).
        let column = match first.trim().is_empty() || first.trim_start().starts_with('#') {
            true => indent(&text[line_start..]),
            false => key - line_start,
        };
        let below: Vec<&str> = lines
            .take_while(|l| l.trim().is_empty() || indent(l) > column)
            .map(str::trim)
            .collect();
        if first.starts_with('|') || first.starts_with('>') {
            found.push(below.join("\n").trim().to_string());
            continue;
        }
        let joined = std::iter::once(first)
            .chain(below.iter().copied())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        for flow in [false, true] {
            let value = unquoted(&joined, flow);
            if !value.is_empty() && !found.contains(&value) {
                found.push(value);
            }
        }
    }
    found
}

/// A YAML scalar as written: a double-quoted one with its escapes of quotes and
/// backslashes read, a single-quoted one with `''` read, a plain one up to a comment (and,
/// in a flow mapping, `flow`, up to `,`, `}` or `]`).
fn unquoted(value: &str, flow: bool) -> String {
    if let Some(inner) = value.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => out.extend(chars.next()),
                c => out.push(c),
            }
        }
        return out;
    }
    if let Some(inner) = value.strip_prefix('\'') {
        let mut out = String::new();
        let mut rest = inner;
        while let Some(at) = rest.find('\'') {
            out.push_str(&rest[..at]);
            if rest[at + 1..].starts_with('\'') {
                out.push('\'');
                rest = &rest[at + 2..];
            } else {
                return out;
            }
        }
        out.push_str(rest);
        return out;
    }
    let end = match flow {
        true => value.find([',', '}', ']']).unwrap_or(value.len()),
        false => value.len(),
    };
    let value = &value[..end];
    value
        .split(" #")
        .next()
        .unwrap_or(value)
        .trim_end()
        .to_string()
}

/// The files of the skill whose `SKILL.md` is `file` (its folder, and the folders in it):
/// [`folder_files`] of its folder, but itself. Empty for another file.
pub(super) fn skill_files(file: &Path) -> (Vec<PathBuf>, String) {
    match (file.file_name(), file.parent()) {
        (Some(name), Some(folder)) if name == "SKILL.md" => {
            folder_files(folder, &|path| path == file)
        }
        _ => (Vec::new(), String::new()),
    }
}

/// The files of `folder` and of the folders in it but those `skip` names, in name order, at most
/// [`SKILL_ENTRIES`]: the first [`SKILL_FILES`] (within [`SKILL_BYTES`]) to be known by
/// their content, and a line for each of the rest with what its metadata says of its last
/// change (which its owner cannot set back on Unix: a script edited to its size and time
/// is seen).
pub(super) fn folder_files(folder: &Path, skip: &dyn Fn(&Path) -> bool) -> (Vec<PathBuf>, String) {
    let mut files = Vec::new();
    let mut stamps = String::new();
    let mut pending = vec![folder.to_path_buf()];
    let mut entries = 0;
    let mut bytes = 0;
    let mut folders_seen = super::hook_files::FoldersSeen::default();
    while let Some(current) = pending.pop() {
        // Each folder once, however many links lead to it.
        let Some(identity) = folders_seen.first_visit(&current) else {
            continue;
        };
        let Ok(listing) = std::fs::read_dir(&current) else {
            continue;
        };
        let mut found: Vec<PathBuf> = listing.flatten().map(|e| e.path()).collect();
        found.sort();
        for path in found {
            entries += 1;
            if entries > SKILL_ENTRIES {
                stamps.push_str(&format!("more than {SKILL_ENTRIES} entries\n"));
                return (files, stamps);
            }
            // Through a link, as the agent reads it (a plugin's `hooks/` may be a link to
            // a folder of its marketplace).
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                // A link to a folder only where a folder's identity tells a loop.
                let link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink());
                if !link || identity.is_some() {
                    pending.push(path);
                }
            } else if skip(&path) {
            } else if files.len() < SKILL_FILES && bytes + meta.len() <= SKILL_BYTES {
                bytes += meta.len();
                files.push(path);
            } else {
                let stamp = crate::platform::sys::files::change_stamp(&meta);
                stamps.push_str(&format!("{} {stamp:?}\n", path.display()));
            }
        }
    }
    (files, stamps)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: &[&str] = &["PreToolUse", "PermissionRequest"];

    #[test]
    fn the_frontmatter_is_found_as_claude_code_finds_it() {
        let of = |text| to_next_dashes(text);
        assert_eq!(of("---\nname: x\n---\nbody"), Some("name: x\n"));
        assert_eq!(of("\u{feff}---  \n\nname: x\n---"), Some("name: x\n"));
        // The first `---`, even inside a value, ends it.
        assert_eq!(of("---\ndescription: a---b\n---\n"), Some("description: a"));
        assert_eq!(of("--- name: x\n---\n"), None);
        assert_eq!(of("# Title\n---\nname: x\n---\n"), None);
        assert_eq!(of("---\nname: x\n"), None);
        // JavaScript's `\s` holds U+FEFF.
        assert_eq!(of("---\u{feff}\nname: x\n---\n"), Some("name: x\n"));
    }

    /// Qwen Code's bounds: `---` lines alone. A `---` inside a value does not end it (Claude
    /// Code's bounds would hide the `hooks` after it), nor does one with more on its line.
    #[test]
    fn the_frontmatter_is_found_as_qwen_code_finds_it() {
        let of = |text| dash_lines(text, false);
        let found = |text: &str| Some(text.to_string());
        assert_eq!(of("---\nname: x\n---\nbody"), found("name: x"));
        assert_eq!(of("---\nname: x\n---"), found("name: x"));
        let hidden = "---\ndescription: a---b\nhooks: {PreToolUse: []}\n---x\n---\n";
        assert_eq!(
            of(hidden),
            found("description: a---b\nhooks: {PreToolUse: []}\n---x")
        );
        assert_eq!(
            of("\u{feff}---\r\nname: x\rhooks: y\r\n---\r\n"),
            found("name: x\nhooks: y")
        );
        assert_eq!(of("---\n\n---\n"), found(""));
        assert_eq!(of("---  \nname: x\n---\n"), None);
        assert_eq!(of(" ---\nname: x\n---\n"), None);
        assert_eq!(of("---\n---\n"), None);
        assert_eq!(of("---\nname: x\n"), None);
        assert_eq!(of("---\nname: x\n--- \n"), None);
        // Copilot CLI's: blanks may end a `---` line.
        let with_blanks = |text| dash_lines(text, true);
        assert_eq!(with_blanks("--- \nname: x\n---\t\n"), found("name: x"));
        assert_eq!(with_blanks("---\u{a0}\nname: x\n--- "), found("name: x"));
        assert_eq!(with_blanks("--- x\nname: x\n---\n"), None);
        assert_eq!(
            with_blanks("---\nname: a\n---b\nc: d\n---\n"),
            found("name: a\n---b\nc: d")
        );
    }

    #[test]
    fn a_hooks_key_with_an_event_that_may_rewrite_is_a_hook() {
        let block = "name: fmt\nhooks:\n  PreToolUse:\n    - matcher: Bash\n";
        assert!(may_declare(block, EVENTS));
        for spelled in [
            "hooks : {PreToolUse: []}",
            "'hooks': {PreToolUse: []}",
            "\"HOOKS\":\n  permissionrequest: []",
            "x: 1\n? hooks\n: {PreToolUse: []}",
            "{name: a, hooks: {PreToolUse: []}}",
            "- &h !!str hooks: {PreToolUse: []}",
            "x: 1\n  hooks:\n    PreToolUse: []",
            // An escape may spell the key or the event.
            "\"\\x68ooks\": {PreToolUse: []}",
            "hooks: {\"Pre\\u0054oolUse\": []}",
            // An alias spells the key; a lone `\r` breaks a line.
            "description: &k hooks\n*k :\n  PreToolUse: []",
            "name: fmt\rhooks:\r  PreToolUse: []",
            // A comment between the key and its colon.
            "? hooks # the hooks\n:\n  PreToolUse: []",
        ] {
            assert!(may_declare(spelled, EVENTS), "{spelled}");
        }
        for harmless in [
            "name: fmt\ndescription: Sets up git hooks.\n",
            "hooks:\n  Stop:\n    - hooks: []\n",
            "githooks: {PreToolUse: 1}",
            "description: Runs before PreToolUse hooks fire\n",
            "description: Writes git hooks: for PreToolUse\n",
            "description: R&D, 5 * 3, PreToolUse hooks: none\n",
            "description: Formats *.md and *.rs, cleans C:\\build for PreToolUse hooks: x\n",
            "description: Converts C:\\Users\\me to \"posix\" form for PreToolUse hooks: x\n",
            "description: \"a \\\"quoted\\\" C:\\\\ path\"\nhooks: {Stop: []}\n",
        ] {
            assert!(!may_declare(harmless, EVENTS), "{harmless}");
        }
    }

    #[test]
    fn the_commands_of_its_handlers_are_read_as_yaml_quotes_them() {
        let frontmatter = "hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: \"bash \\\"$CLAUDE_PROJECT_DIR\\\"/x.sh\"\n        - command: 'it''s.sh'\n        - command: plain.sh # a comment\n        - command: |\n            cd hooks\n            ./y.sh\n        - {type: command, \"command\": flow.sh}\n        - {Command: 'quoted.sh', timeout: 5}\r        - command: cr.sh\n        - command: /bin/sh ${CLAUDE_PROJECT_DIR}/b.sh\n        - command: /bin/sh\n            folded.sh\n          timeout: 5\n        - command: \"/bin/sh\n            dq.sh\"\n        - ? command # why\n          : commented.sh\n";
        assert_eq!(
            commands(frontmatter, &["command"]),
            [
                "bash \"$CLAUDE_PROJECT_DIR\"/x.sh",
                "it's.sh",
                "plain.sh",
                "cd hooks\n./y.sh",
                // Whole, and cut where a flow mapping ends it.
                "flow.sh}",
                "flow.sh",
                "quoted.sh",
                "cr.sh",
                "/bin/sh ${CLAUDE_PROJECT_DIR}/b.sh",
                "/bin/sh ${CLAUDE_PROJECT_DIR",
                "/bin/sh folded.sh",
                "/bin/sh dq.sh",
                "commented.sh",
            ]
        );
    }
}
