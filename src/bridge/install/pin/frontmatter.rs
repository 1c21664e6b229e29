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

use std::path::{Path, PathBuf};

/// The files of a skill's folder that join its digest: a skill's hook most often runs a
/// script of its own folder (`${CLAUDE_SKILL_DIR}/fmt.sh`); past this many, the rest are
/// not looked at (a skill may ship a tree of reference files).
const SKILL_FILES: usize = 64;

/// The frontmatter of `text` as Claude Code finds it (`/^---\s*\n([\s\S]*?)---\s*\n?/`,
/// after a byte-order mark): from the line after the opening `---` to the next `---`,
/// wherever that is. `None` for a file without one.
pub(super) fn of(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---")?;
    // `\s*\n`: the blanks after the opening `---`, up to the last line break among them.
    let blanks = rest.len() - rest.trim_start().len();
    let opened = rest[..blanks].rfind('\n')? + 1;
    let body = &rest[opened..];
    body.find("---").map(|end| &body[..end])
}

/// Whether `frontmatter` may declare a hook of one of `events`: a `hooks` key (any case,
/// quoted or not, in a block or a flow mapping) and one of the events named, or an escape
/// anywhere (a quoted key may spell either with one).
pub(super) fn may_declare(frontmatter: &str, events: &[&str]) -> bool {
    let lower = frontmatter.to_ascii_lowercase();
    if lower.contains('\\') {
        return true;
    }
    let names_event = events
        .iter()
        .any(|event| lower.contains(&event.to_ascii_lowercase()));
    names_event && has_hooks_key(&lower)
}

/// Whether `lower` (lowercased) has `hooks` as a key: where a key begins (a line's start,
/// after `- ` or `? `, or in a flow mapping after `{` or `,`; an anchor or a tag may come
/// first), then a colon after an optional closing quote and blanks (a line break too:
/// `? hooks\n: …`). A value's text (`description: git hooks: …`) is no key.
fn has_hooks_key(lower: &str) -> bool {
    let blank = |c: char| c == ' ' || c == '\t';
    lower.match_indices("hooks").any(|(at, _)| {
        let after = lower[at + "hooks".len()..].trim_start_matches(['"', '\'']);
        if !after.trim_start().starts_with(':') {
            return false;
        }
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
        before.is_empty() || before.ends_with(['\n', '{', ',', '?', '-'])
    })
}

/// The commands the frontmatter's handlers run (each `command:` value, unquoted as YAML
/// quotes it; a block scalar's lines), for messages and for the files they name. One
/// spelled otherwise (a flow mapping) is not found here: the file's own digest still
/// covers it, only its scripts are not.
pub(super) fn commands(frontmatter: &str) -> Vec<String> {
    let lines: Vec<&str> = frontmatter.lines().collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start().trim_start_matches("- ").trim_start();
        let Some(value) = trimmed
            .strip_prefix("command")
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix(':'))
            .map(str::trim)
        else {
            continue;
        };
        if value.starts_with('|') || value.starts_with('>') {
            let indent = |l: &str| l.len() - l.trim_start().len();
            let own = indent(line);
            let block: Vec<&str> = lines[at + 1..]
                .iter()
                .take_while(|l| l.trim().is_empty() || indent(l) > own)
                .map(|l| l.trim())
                .collect();
            found.push(block.join("\n"));
        } else if !value.is_empty() {
            found.push(unquoted(value));
        }
    }
    found
}

/// A YAML scalar as written on one line: a double-quoted one with its escapes of quotes
/// and backslashes read, a single-quoted one with `''` read, a plain one up to a comment.
fn unquoted(value: &str) -> String {
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
    value
        .split(" #")
        .next()
        .unwrap_or(value)
        .trim_end()
        .to_string()
}

/// The files of the skill whose `SKILL.md` is `file` (its folder, and the folders in it),
/// at most [`SKILL_FILES`], in name order: what its hooks may run. Empty for another file.
pub(super) fn skill_files(file: &Path) -> Vec<PathBuf> {
    if file.file_name().is_none_or(|name| name != "SKILL.md") {
        return Vec::new();
    }
    let Some(folder) = file.parent() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(listing) = std::fs::read_dir(&current) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = listing.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if files.len() == SKILL_FILES {
                return files;
            }
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_dir() => pending.push(path),
                Ok(_) if path != file => files.push(path),
                _ => {}
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: &[&str] = &["PreToolUse", "PermissionRequest"];

    #[test]
    fn the_frontmatter_is_found_as_claude_code_finds_it() {
        assert_eq!(of("---\nname: x\n---\nbody"), Some("name: x\n"));
        assert_eq!(of("\u{feff}---  \n\nname: x\n---"), Some("name: x\n"));
        // The first `---`, even inside a value, ends it.
        assert_eq!(of("---\ndescription: a---b\n---\n"), Some("description: a"));
        assert_eq!(of("--- name: x\n---\n"), None);
        assert_eq!(of("# Title\n---\nname: x\n---\n"), None);
        assert_eq!(of("---\nname: x\n"), None);
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
        ] {
            assert!(may_declare(spelled, EVENTS), "{spelled}");
        }
        for harmless in [
            "name: fmt\ndescription: Sets up git hooks.\n",
            "hooks:\n  Stop:\n    - hooks: []\n",
            "githooks: {PreToolUse: 1}",
            "description: Runs before PreToolUse hooks fire\n",
            "description: Writes git hooks: for PreToolUse\n",
        ] {
            assert!(!may_declare(harmless, EVENTS), "{harmless}");
        }
    }

    #[test]
    fn the_commands_of_its_handlers_are_read_as_yaml_quotes_them() {
        let frontmatter = "hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: \"bash \\\"$CLAUDE_PROJECT_DIR\\\"/x.sh\"\n        - command: 'it''s.sh'\n        - command: plain.sh # a comment\n        - command: |\n            cd hooks\n            ./y.sh\n";
        assert_eq!(
            commands(frontmatter),
            [
                "bash \"$CLAUDE_PROJECT_DIR\"/x.sh",
                "it's.sh",
                "plain.sh",
                "cd hooks\n./y.sh"
            ]
        );
    }
}
