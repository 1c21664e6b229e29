//! The `.env` files an agent loads into its environment (Gemini CLI, Qwen Code), read as
//! the agent's settings files are: each once, within one bound for all.

use std::path::Path;

use super::switch_offs::{ProjectFile, read_files_up, read_settings};

/// The files named `names` (relative to a folder) in `cwd` and each folder above it, then
/// in `home`: each read once, and within the bound of the project's settings files (a
/// `.env` of 16 MiB linked into every folder of a deep `cwd` is read once).
pub(super) fn read_env_files(names: &[&str], cwd: &Path, home: Option<&Path>) -> Vec<ProjectFile> {
    let mut files = read_files_up(names, cwd, |_| None);
    if let Some(home) = home {
        let read: Vec<std::path::PathBuf> = files.iter().map(|f| f.file.clone()).collect();
        files.extend(
            names
                .iter()
                .map(|name| home.join(name))
                .filter(|file| !read.contains(file))
                .filter_map(|file| {
                    let bytes = read_settings(&file, |_| true)?;
                    Some(ProjectFile {
                        file,
                        bytes,
                        merged: true,
                        registration: false,
                    })
                }),
        );
    }
    files
}

/// The `NAME=value` lines of a `.env` text, as dotenv reads them closely enough to find
/// a variable: a line ends at `\n`, `\r\n` or a lone `\r`; `export` and blanks before the
/// name; `=` or `:` after it; the value unquoted, `#` comments left out.
pub(super) fn env_assignments(text: &str) -> Vec<(String, String)> {
    text.split(['\n', '\r'])
        .filter_map(|line| {
            let line = line.trim_start();
            let line = match line.strip_prefix("export") {
                Some(rest) if rest.starts_with(char::is_whitespace) => rest.trim_start(),
                _ => line,
            };
            let name_end = line
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
                .unwrap_or(line.len());
            let (name, rest) = line.split_at(name_end);
            if name.is_empty() {
                return None;
            }
            let rest = rest.trim_start_matches([' ', '\t']);
            let value = match rest.strip_prefix('=') {
                Some(value) => value,
                None => rest.strip_prefix(':')?,
            };
            let value = value.trim();
            let value = match value.chars().next() {
                Some(q @ ('"' | '\'' | '`')) => value[1..].split(q).next().unwrap_or(""),
                _ => value.split(" #").next().unwrap_or(value).trim(),
            };
            Some((name.to_string(), value.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_lines_are_read_as_dotenv_reads_them() {
        let text = "# c\nexport GEMINI_CLI_TRUST_WORKSPACE=\"false\"\nA = 'x y' \nB=1 # note\n=x\nC=1\rD: false\nexport\tE=2\n";
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            env_assignments(text),
            pairs(&[
                ("GEMINI_CLI_TRUST_WORKSPACE", "false"),
                ("A", "x y"),
                ("B", "1"),
                ("C", "1"),
                ("D", "false"),
                ("E", "2"),
            ])
        );
    }
}
