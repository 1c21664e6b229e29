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
fn line_column(text: &str, offset: usize) -> (usize, usize) {
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
