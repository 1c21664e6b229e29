//! The `.env` files an agent loads into its environment (Gemini CLI, Qwen Code), read as
//! the agent's settings files are: each once, within one bound for all.

use std::path::{Path, PathBuf};

use super::switch_offs::{ProjectFile, read_files_up, read_settings};

/// The files named `names` (relative to a folder) in `cwd` and each folder above it, then
/// in `home`, then the files `also` names: each read once, and within the bound of the
/// project's settings files (a `.env` of 16 MiB linked into every folder of a deep `cwd`
/// is read once).
pub(super) fn read_env_files(
    names: &[&str],
    cwd: &Path,
    home: Option<&Path>,
    also: Option<PathBuf>,
) -> Vec<ProjectFile> {
    let mut files = read_files_up(names, cwd, |_| None);
    let read: Vec<PathBuf> = files.iter().map(|f| f.file.clone()).collect();
    let homes = home
        .into_iter()
        .flat_map(|home| names.iter().map(|name| home.join(name)));
    let mut others: Vec<PathBuf> = Vec::new();
    for file in homes.chain(also) {
        if !read.contains(&file) && !others.contains(&file) {
            others.push(file);
        }
    }
    files.extend(others.into_iter().filter_map(read_env_file));
    files
}

/// The `.env` file `file`, read as a settings file is ([`read_settings`]); `None` when the
/// agent finds none there.
pub(super) fn read_env_file(file: PathBuf) -> Option<ProjectFile> {
    let bytes = read_settings(&file, |_| true)?;
    Some(ProjectFile {
        file,
        bytes,
        merged: true,
        registration: false,
    })
}

/// The variables a `.env` text sets, each with the value it ends with, as the npm dotenv
/// package's `parse` (16.x, which Gemini CLI and Qwen Code bundle) reads them: its `LINE`
/// expression, ported step by step below, after `\r\n` and a lone `\r` become `\n` and a
/// byte-order mark is dropped; a name set twice keeps its last value. A reading that
/// differs from the agent's misses a line it obeys, or blocks calls for one it ignores.
pub(super) fn env_assignments(text: &str) -> Vec<(String, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text: Vec<char> = text
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .chars()
        .collect();
    let mut found: Vec<(String, String)> = Vec::new();
    let mut at = 0;
    while at < text.len() {
        // `^` with the `m` flag: a match starts at a line's start, after any of
        // JavaScript's line terminators (U+2028 and U+2029 too: a line `#<U+2028>K=v` is
        // a comment, then an assignment).
        if at > 0 && !line_end(text[at - 1]) {
            at += 1;
            continue;
        }
        match assignment_at(&text, at) {
            Some((name, value, end)) => {
                match found.iter_mut().find(|(n, _)| *n == name) {
                    Some(kept) => kept.1 = value,
                    None => found.push((name, value)),
                }
                at = end.max(at + 1);
            }
            None => at += 1,
        }
    }
    found
}

/// JavaScript's `\s`: Unicode white space and the byte-order mark.
fn js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// A line terminator, where `$` matches with the `m` flag (and `.` stops).
fn line_end(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// dotenv's `LINE` matched at `start`:
/// `\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(VALUE)?\s*(?:#.*)?$`, with `VALUE` one of
/// `\s*'(?:\\'|[^'])*'`, the same with `"` and `` ` ``, or `[^#\r\n]+`. The name, the
/// value as `parse` keeps it, and where the match ends.
fn assignment_at(text: &[char], start: usize) -> Option<(String, String, usize)> {
    let skip_space = |mut i: usize| {
        while i < text.len() && js_space(text[i]) {
            i += 1;
        }
        i
    };
    let after_space = skip_space(start);
    // `(?:export\s+)?` is tried first, then without it (the name may be `export`).
    let export: Vec<char> = "export".chars().collect();
    let mut name_starts = Vec::new();
    if text[after_space..].starts_with(&export)
        && text
            .get(after_space + export.len())
            .is_some_and(|c| js_space(*c))
    {
        name_starts.push(skip_space(after_space + export.len()));
    }
    name_starts.push(after_space);
    name_starts
        .into_iter()
        .find_map(|name_start| assignment_from(text, name_start))
}

/// The rest of [`assignment_at`], from where the name starts.
fn assignment_from(text: &[char], name_start: usize) -> Option<(String, String, usize)> {
    let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    let mut name_end = name_start;
    while name_end < text.len() && word(text[name_end]) {
        name_end += 1;
    }
    if name_end == name_start {
        return None;
    }
    let name: String = text[name_start..name_end].iter().collect();
    // `\s*=\s*?` (the lazy space taking none: the value's own `\s*` and the tail take any),
    // else `:\s+?` (one space).
    let mut i = name_end;
    while i < text.len() && js_space(text[i]) {
        i += 1;
    }
    let value_start = if text.get(i) == Some(&'=') {
        i + 1
    } else if text.get(name_end) == Some(&':')
        && text.get(name_end + 1).is_some_and(|c| js_space(*c))
    {
        name_end + 2
    } else {
        return None;
    };
    // The value's forms in their order, each kept only if the tail matches after it; then
    // no value at all.
    let quoted = ['\'', '"', '`']
        .into_iter()
        .flat_map(|quote| quoted_ends(text, value_start, quote));
    let unquoted = {
        let mut end = value_start;
        while end < text.len() && !matches!(text[end], '#' | '\r' | '\n') {
            end += 1;
        }
        (end > value_start).then_some(end)
    };
    let (value_end, end) = quoted
        .chain(unquoted)
        .chain(std::iter::once(value_start))
        .find_map(|value_end| Some((value_end, tail_end(text, value_end)?)))?;
    Some((name, kept_value(&text[value_start..value_end]), end))
}

/// Where `\s*Q(?:\\Q|[^Q])*Q` can end from `from`, in the order the expression tries
/// them: the first quote no backslash escapes, then each escaped one before it, last
/// first (giving back `\\Q` to read the backslash alone).
fn quoted_ends(text: &[char], from: usize, quote: char) -> Vec<usize> {
    let mut i = from;
    while i < text.len() && js_space(text[i]) {
        i += 1;
    }
    if text.get(i) != Some(&quote) {
        return Vec::new();
    }
    let mut escaped = Vec::new();
    let mut j = i + 1;
    while j < text.len() {
        if text[j] == '\\' && text.get(j + 1) == Some(&quote) {
            escaped.push(j + 2);
            j += 2;
        } else if text[j] == quote {
            let mut ends = vec![j + 1];
            ends.extend(escaped.iter().rev());
            return ends;
        } else {
            j += 1;
        }
    }
    escaped.into_iter().rev().collect()
}

/// Where the tail `\s*(?:#.*)?$` ends from `from`, if it matches: a comment to its line's
/// end, else the last place within the spaces where a line ends (or the text does).
fn tail_end(text: &[char], from: usize) -> Option<usize> {
    let mut i = from;
    while i < text.len() && js_space(text[i]) {
        i += 1;
    }
    if text.get(i) == Some(&'#') {
        let mut end = i;
        while end < text.len() && !line_end(text[end]) {
            end += 1;
        }
        return Some(end);
    }
    (from..=i)
        .rev()
        .find(|&at| at == text.len() || line_end(text[at]))
}

/// A value as `parse` keeps it: trimmed, one pair of matching quotes around it taken off,
/// and in double quotes `\n` and `\r` read as the line ends they name.
fn kept_value(raw: &[char]) -> String {
    let value: String = raw.iter().collect();
    let value = value.trim_matches(js_space);
    let first = value.chars().next();
    let unquoted = match first {
        Some(q @ ('\'' | '"' | '`')) if value.len() >= 2 && value.ends_with(q) => {
            &value[1..value.len() - 1]
        }
        _ => value,
    };
    match first {
        Some('"') => unquoted.replace("\\n", "\n").replace("\\r", "\r"),
        _ => unquoted.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each text read as dotenv 16's `parse` read it (run under node with the `LINE`
    /// expression Qwen Code 0.24.4 bundles): its separators, quotes, comments cut at any
    /// `#`, a name set twice keeping its last value, spaces (newlines among them) before
    /// `=`, a byte-order mark, JavaScript's other line terminators, and what it does not take
    /// (`C :3`, a line with no name).
    #[test]
    fn env_lines_are_read_as_dotenv_reads_them() {
        let cases: &[(&str, &str)] = &[
            (
                "# c\nexport GEMINI_CLI_TRUST_WORKSPACE=\"false\"\nA = 'x y' \nB=1 # note\n=x\nC=1\rD: false\nexport\tE=2\n",
                "[[\"GEMINI_CLI_TRUST_WORKSPACE\", \"false\"], [\"A\", \"x y\"], [\"B\", \"1\"], [\"C\", \"1\"], [\"D\", \"false\"], [\"E\", \"2\"]]",
            ),
            (
                "QWEN_HOME=~/.qwen\nQWEN_HOME=/srv/x\n",
                "[[\"QWEN_HOME\", \"/srv/x\"]]",
            ),
            ("QWEN_CODE_SIMPLE=1#x\n", "[[\"QWEN_CODE_SIMPLE\", \"1\"]]"),
            (
                "\u{feff}QWEN_CODE_SIMPLE=1\n",
                "[[\"QWEN_CODE_SIMPLE\", \"1\"]]",
            ),
            ("QWEN_CODE_SIMPLE\n=1\n", "[[\"QWEN_CODE_SIMPLE\", \"1\"]]"),
            ("A:1\nB: 2\nC :3\n", "[[\"B\", \"2\"]]"),
            (
                "A='a' b\nB=\"x\\ny\"\nC=`q`\nD='unclosed\nE=5\n",
                "[[\"A\", \"'a' b\"], [\"B\", \"x\\ny\"], [\"C\", \"q\"], [\"D\", \"'unclosed\"], [\"E\", \"5\"]]",
            ),
            (
                "A=\"multi\nline\"\nB=2\n",
                "[[\"A\", \"multi\\nline\"], [\"B\", \"2\"]]",
            ),
            (
                "export=1\nexport  X=2\nexportY=3\n",
                "[[\"export\", \"1\"], [\"X\", \"2\"], [\"exportY\", \"3\"]]",
            ),
            (
                "A=\n'x'\nB=#c\nC=  spaced  \n",
                "[[\"A\", \"x\"], [\"B\", \"\"], [\"C\", \"spaced\"]]",
            ),
            (
                "A='it\\'s'\nB='x\\' y\n",
                "[[\"A\", \"it\\\\'s\"], [\"B\", \"'x\\\\' y\"]]",
            ),
            ("  \n\n  K=v\r\nL=w\r", "[[\"K\", \"v\"], [\"L\", \"w\"]]"),
            // A line starts after U+2028 and U+2029 too, as JavaScript's `^` reads them; an
            // unquoted value runs over them to the line's `\n`.
            (
                "#\u{2028}K=v\nL=w\u{2029}M=x\n",
                "[[\"K\", \"v\"], [\"L\", \"w\\u2029M=x\"]]",
            ),
            ("A=1\u{2028}B=2\n", "[[\"A\", \"1\\u2028B=2\"]]"),
            (
                "A=1 2 # c\nB=\"1\" # c\nC=\"1\" x\n",
                "[[\"A\", \"1 2\"], [\"B\", \"1\"], [\"C\", \"\\\"1\\\" x\"]]",
            ),
        ];
        for (text, dotenv) in cases {
            let dotenv: Vec<(String, String)> = serde_json::from_str(dotenv).unwrap();
            assert_eq!(env_assignments(text), dotenv, "{text:?}");
        }
    }
}
