//! The TOML files a user writes (the config, eval's cases): reading them, and errors
//! that name the file, the item at fault (`hook NAME`, `case #2`) and what is wrong.
//!
//! A file's problems are all reported at once, one line each, so that one edit can fix
//! them all.

use std::path::{Path, PathBuf};

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
pub fn parse_table(path: &Path, text: &str) -> Result<toml::Table, TomlFileError> {
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
