//! The TOML files a user writes (the config, eval's cases): reading them, and errors
//! that name the file, the item at fault (`hook NAME`, `case #2`) and what is wrong.
//!
//! A file's problems are all reported at once, one line each, so that one edit can fix
//! them all. The items a file lists as an array of tables (`[[hooks]]`, `[[case]]`) are
//! walked the same way in every file ([`ItemKind::parse_items`]): each labelled by its
//! name or number, each name unique.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::recent::{self, Place};

/// One problem in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The item it is in (`hook NAME`, `case #N`), when it is inside one.
    pub item: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Why a file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TomlFileError {
    /// The file exists but could not be read.
    #[error("{}: cannot read the {what}: {}", path.display(), crate::access::explain(path, source))]
    Read {
        /// What the file is ("config", "cases file").
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("{}: malformed TOML at line {line}, column {column}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
    /// The file parsed but what it says is wrong; every problem is listed.
    #[error("{}", render(path, problems))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every problem found.
        problems: Vec<Problem>,
    },
}

fn render(path: &Path, problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| match &p.item {
            Some(item) => format!("{}: {}: {}", path.display(), item, p.message),
            None => format!("{}: {}", path.display(), p.message),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The deepest a TOML text hookhost parses may nest its tables and arrays, by
/// [`nesting_within_bound`]'s count. The parsers (`toml`, `toml_edit`) bound inline
/// nesting and a key's dotted parts each, but not their product: `a.a.…(79 parts) = {
/// a.a.… = { … } }` is 13 KB of text and six thousand levels, whose parse and drop
/// recurse once a level and overflowed the stack, killing the bridge, which reads the
/// agent's settings (Codex's `config.toml`) on every call (docs/threats.md#b5). Files
/// people write nest a handful of levels.
pub(crate) const MAX_NESTING: usize = 64;

/// `Ok` when `text` nests no deeper than [`MAX_NESTING`]; else the 1-based line where it
/// passes. The count is a scan, not a parse, and never under the parser's depth: each
/// open `{` or `[` counts one level plus the dots of the key before it, a table header
/// two levels a part, and a key its dots; dots in strings and comments do not count, and
/// dots in values (`1.5`) count, which only over-counts.
pub(crate) fn nesting_within_bound(text: &str) -> Result<(), usize> {
    let bytes = text.as_bytes();
    let mut line = 1;
    // Per open bracket, the levels it added; the dots of the key being read; the levels
    // of the last table header.
    let mut open: Vec<usize> = Vec::new();
    let mut open_levels = 0usize;
    let mut key_dots = 0usize;
    let mut header = 0usize;
    let mut line_start = true;
    // A byte order mark, which the parsers skip.
    let mut i = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while i < bytes.len() {
        let byte = bytes[i];
        match byte {
            b'\n' => {
                line += 1;
                key_dots = 0;
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                let (end, lines) = skip_string(bytes, i);
                line += lines;
                i = end;
                line_start = false;
                continue;
            }
            b'[' if open.is_empty() && line_start => {
                // A table header, `[a.b]` or `[[a.b]]`: each part two levels, since any of
                // them may name an array of tables (an array, then its last table).
                let mut dots = 0;
                i += 1;
                while i < bytes.len() && bytes[i] != b']' && bytes[i] != b'\n' {
                    match bytes[i] {
                        b'"' | b'\'' => i = skip_string(bytes, i).0,
                        b'.' => {
                            dots += 1;
                            i += 1;
                        }
                        _ => i += 1,
                    }
                }
                header = 2 * (dots + 1);
                while i < bytes.len() && bytes[i] == b']' {
                    i += 1;
                }
                line_start = false;
                if header > MAX_NESTING {
                    return Err(line);
                }
                continue;
            }
            b'{' | b'[' => {
                let levels = 1 + key_dots;
                open.push(levels);
                open_levels += levels;
                key_dots = 0;
            }
            b'}' | b']' => {
                open_levels -= open.pop().unwrap_or(0);
                key_dots = 0;
            }
            b',' => key_dots = 0,
            b'.' => key_dots += 1,
            _ => {}
        }
        line_start = false;
        if header + open_levels + key_dots > MAX_NESTING {
            return Err(line);
        }
        i += 1;
    }
    Ok(())
}

/// Where the string starting at `bytes[start]` (a quote) ends, just past its closing
/// quote (or at the text's end), and the line breaks inside it. Basic strings (`"`)
/// skip their escapes; literal ones (`'`) have none; `"""` and `\'\'\'` span lines.
fn skip_string(bytes: &[u8], start: usize) -> (usize, usize) {
    let quote = bytes[start];
    let triple = bytes.len() >= start + 3 && bytes[start + 1] == quote && bytes[start + 2] == quote;
    let mut i = start + if triple { 3 } else { 1 };
    let mut lines = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if byte == b'\\' && quote == b'"' {
            if bytes.get(i + 1) == Some(&b'\n') {
                lines += 1;
            }
            i += 2;
            continue;
        }
        if byte == b'\n' {
            if !triple {
                return (i, lines); // an unclosed one-line string: the parser says so
            }
            lines += 1;
        }
        if byte == quote {
            if !triple {
                return (i + 1, lines);
            }
            if bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote) {
                // A closing `"""` may be followed by up to two more quotes of the string.
                let mut end = i + 3;
                while end < i + 5 && bytes.get(end) == Some(&quote) {
                    end += 1;
                }
                return (end, lines);
            }
        }
        i += 1;
    }
    (i, lines)
}

/// What a text nested past [`MAX_NESTING`] is told.
pub(crate) fn too_deep() -> String {
    format!("tables and arrays nested more than {MAX_NESTING} levels deep")
}

/// Parses `text` as a TOML table; a syntax error gives its line and column. `path` is
/// only used in messages.
///
/// The tables of the texts this thread parsed last are kept ([`crate::recent`]), and the
/// same text again gets a copy: a warm server's thread reads the same config on every
/// call, and its parse was ~3 % of a warm WASM call (BENCHMARKS.md, twentieth sitting).
/// The table is a function of the text alone, so a copy is what a parse would give.
pub fn parse_table(path: &Path, text: &str) -> Result<toml::Table, TomlFileError> {
    thread_local! {
        static PARSED: Place<String, toml::Table> = const { recent::place() };
    }
    recent::or_compute(
        &PARSED,
        text.len(),
        |parsed| parsed == text,
        || text.to_owned(),
        || parse_text(path, text),
    )
}

fn parse_text(path: &Path, text: &str) -> Result<toml::Table, TomlFileError> {
    if let Err(line) = nesting_within_bound(text) {
        return Err(TomlFileError::Malformed {
            path: path.to_path_buf(),
            line,
            column: 1,
            message: too_deep(),
        });
    }
    toml::from_str(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map(|s| line_column(text, s.start))
            .unwrap_or((1, 1));
        TomlFileError::Malformed {
            path: path.to_path_buf(),
            line,
            column,
            message: e.message().trim().to_string(),
        }
    })
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..text.floor_char_boundary(offset.min(text.len()))];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// A kind of item a file lists as an array of tables (`[[hooks]]`, `[[case]]`): the
/// words its messages use and which names may label it.
pub struct ItemKind {
    /// One item: `hook`, `case`.
    pub one: &'static str,
    /// Several: `hooks`, `cases`.
    pub many: &'static str,
    /// How the array is written: `[[hooks]]`, `[[case]]`.
    pub written: &'static str,
    /// Whether an item's `name` may label it in messages (`hook NAME`); otherwise it is
    /// labelled by its number (`hook #2`).
    pub labels_by_name: fn(&str) -> bool,
}

impl ItemKind {
    /// How the item is named in messages: `hook NAME`, or `hook #N` when it has no
    /// usable name.
    pub fn label_for(&self, table: &toml::Table, number: usize) -> String {
        match table.get("name") {
            Some(toml::Value::String(name)) if (self.labels_by_name)(name) => {
                format!("{} {name}", self.one)
            }
            _ => format!("{} #{number}", self.one),
        }
    }

    /// Parses each item of `items` with `parse`, in order, and keeps those that parsed
    /// with no problem and whose name (`name_of`) is not taken by an earlier item. A
    /// name used twice is a problem of the later item; an item that is not a table is a
    /// problem too. Every problem goes to `problems`, labelled with the item.
    pub fn parse_items<T>(
        &self,
        items: &[toml::Value],
        problems: &mut Vec<Problem>,
        mut parse: impl FnMut(&toml::Table, &mut ItemProblems<'_>) -> Option<T>,
        name_of: impl Fn(&T) -> &str,
    ) -> Vec<T> {
        let mut kept = Vec::new();
        let mut first_seen: HashMap<String, usize> = HashMap::new();
        for (index, item) in items.iter().enumerate() {
            let number = index + 1;
            let toml::Value::Table(table) = item else {
                problems.push(Problem {
                    item: Some(format!("{} #{number}", self.one)),
                    message: format!(
                        "each {} must be a table, written {}",
                        self.one, self.written
                    ),
                });
                continue;
            };
            let mut out = ItemProblems {
                label: self.label_for(table, number),
                problems,
                count: 0,
            };
            let Some(parsed) = parse(table, &mut out) else {
                continue;
            };
            let name = name_of(&parsed);
            if let Some(first) = first_seen.get(name) {
                out.push(format!(
                    "the name is used twice ({} #{first} and #{number}); names must be unique",
                    self.many
                ));
            } else {
                first_seen.insert(name.to_string(), number);
                if out.count == 0 {
                    kept.push(parsed);
                }
            }
        }
        kept
    }
}

/// The problems of one item: each is labelled with the item and counted.
pub struct ItemProblems<'a> {
    label: String,
    problems: &'a mut Vec<Problem>,
    count: usize,
}

impl ItemProblems<'_> {
    /// Adds a problem of this item.
    pub fn push(&mut self, message: String) {
        self.count += 1;
        self.problems.push(Problem {
            item: Some(self.label.clone()),
            message,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nesting bound (docs/threats.md#b5): the texts people write pass, dots and
    /// brackets in strings and comments do not count, and the product of dotted keys and
    /// inline tables that overflowed the parser's stack is refused at its line, by every
    /// parse of a file hookhost reads.
    #[test]
    fn nesting_past_the_bound_is_refused_before_the_parse() {
        let codex = r#"
model = "gpt-5.1" # a.b.c.d [[x]] {{{
approval_policy = "on-request"
[features]
hooks = true
[mcp_servers.docs.env]
TOKEN = "a.b.c.d.e.f.g.h[[[[{{{{"
PATH = 'C:\x\y.z'
notes = """
a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t
[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
""""
[[hooks.PreToolUse]]
matcher = "*"
hooks = [{ type = "command", command = "/usr/bin/hookhost bridge", timeout = 30.5 }]
[hooks.state."/usr/bin/hookhost bridge"]
enabled = true
"#;
        assert_eq!(nesting_within_bound(codex), Ok(()));
        assert!(codex.parse::<toml::Table>().is_ok());

        let key = vec!["a"; 79].join(".");
        let mut bomb = String::from("1");
        for _ in 0..78 {
            bomb = format!("{{ {key} = {bomb} }}");
        }
        let bomb = format!("x = 1\n{key} = {bomb}\n");
        assert_eq!(nesting_within_bound(&bomb), Err(2));
        // Each part of the product past the bound alone: dotted keys (a table for each
        // part before the last), inline tables, arrays, a header.
        let dotted = format!("{} = 1\n", vec!["a"; 66].join("."));
        let inline = format!("x = {}1{}\n", "{ a = ".repeat(65), " }".repeat(65));
        let arrays = format!("x = {}1{}\n", "[".repeat(65), "]".repeat(65));
        let header = format!("[[{}]]\nx = 1\n", vec!["a"; 33].join("."));
        for text in [&dotted, &inline, &arrays, &header] {
            assert_eq!(nesting_within_bound(text), Err(1), "{text}");
        }
        let behind_a_mark = format!("\u{feff}{header}");
        assert_eq!(nesting_within_bound(&behind_a_mark), Err(1));
        // At the bound, each passes, and the parsers read it and drop it on a thread of
        // the 2 MiB std and tokio give (in a debug build, whose frames are larger).
        let at_the_bound = [
            format!("{} = 1\n", vec!["a"; 65].join(".")),
            format!("x = {}1{}\n", "{ a = ".repeat(64), " }".repeat(64)),
            format!("x = {}1{}\n", "[".repeat(64), "]".repeat(64)),
            format!("x = {}1{}\n", "[{ a = ".repeat(32), " }]".repeat(32)),
            format!("\u{feff}[[{}]]\nx = 1\n", vec!["a"; 32].join(".")),
            format!(
                "[[{}]]\n{} = {}1{}\n",
                vec!["a"; 16].join("."),
                vec!["b"; 17].join("."),
                "[".repeat(16),
                "]".repeat(16)
            ),
        ];
        for text in at_the_bound {
            assert_eq!(nesting_within_bound(&text), Ok(()), "{text}");
            let parsed = std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || {
                    let table = text.parse::<toml::Table>().is_ok();
                    let document = text.parse::<toml_edit::DocumentMut>().is_ok();
                    (table, document)
                })
                .unwrap()
                .join()
                .unwrap();
            assert_eq!(parsed, (true, true));
        }

        let path = Path::new("/home/ada/.codex/config.toml");
        match parse_table(path, &bomb) {
            Err(e @ TomlFileError::Malformed { line: 2, .. }) => assert_eq!(
                e.to_string(),
                "/home/ada/.codex/config.toml: malformed TOML at line 2, column 1: tables and arrays nested more than 64 levels deep"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_kept_table_is_only_ever_the_same_texts() {
        let path = Path::new("/config.toml");
        let one = "[[hooks]]\nname = \"a\"\n";
        let other = "[[hooks]]\nname = \"b\"\n";
        let first = parse_table(path, one).unwrap();
        assert_eq!(parse_table(path, one).unwrap(), first);
        let second = parse_table(path, other).unwrap();
        assert_ne!(second, first);
        assert_eq!(second, parse_text(path, other).unwrap());
        // An error is not kept, and does not replace what is.
        let bad = "[[hooks]\n";
        for _ in 0..2 {
            assert!(matches!(
                parse_table(path, bad),
                Err(TomlFileError::Malformed { line: 1, .. })
            ));
        }
        assert_eq!(parse_table(path, other).unwrap(), second);
        assert_eq!(parse_table(path, one).unwrap(), first);
    }
}
