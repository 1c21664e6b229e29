//! Gemini CLI's file paths as its tools open them (0.61.0's bundle): a leading `@` (its
//! mention syntax) dropped, %-escapes decoded, and, for `replace`, a relative path that is
//! not there looked for in the project. A policy reading the path as written saw `@.env`,
//! `%2Eenv` or `k.pem` where Gemini changed `.env` or `secrets/k.pem`
//! (docs/agents.md#gemini-cli).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::paths::lexical;

/// The most folders [`found_by_search`] reads. Gemini's own search reads 50 that its
/// ignore files leave, which may lie beyond any number of ignored ones: past this many,
/// hookhost cannot show every file Gemini could pick, and the call is refused.
const SEARCHED_FOLDERS: usize = 10_000;

/// Gemini's own tools that resolve their `file_path` so (an MCP server's or a discovered
/// tool's gets the path as written).
const RESOLVING_TOOLS: &[&str] = &["read_file", "write_file", "replace"];

/// Sets `map`'s `file_path` to the file Gemini opens for it (`resolveDefensiveToolPath`,
/// then `resolveToRealPath`), and gives the files a `replace` of a relative path that is
/// not there may change instead (`correctPath`), each of which the bridge gates too. An
/// error: the search was too large to follow.
pub(super) fn read_as_gemini_does(
    map: &mut Map<String, Value>,
    cwd: Option<&str>,
    tool: &str,
) -> Result<Vec<String>, String> {
    let Some(cwd) = cwd.map(Path::new).filter(|c| c.is_absolute()) else {
        return Ok(Vec::new());
    };
    if !RESOLVING_TOOLS.contains(&tool) {
        return Ok(Vec::new());
    }
    let Some(Value::String(path)) = map.get_mut("file_path") else {
        return Ok(Vec::new());
    };
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let clean = path.replace('\0', "");
    let written = if there(cwd, &clean) {
        clean.as_str()
    } else {
        without_mention(&clean, cwd)
    };
    let searched =
        if tool == "replace" && !Path::new(path.as_str()).is_absolute() && !there(cwd, written) {
            found_by_search(cwd, written)?
        } else {
            Vec::new()
        };
    *path = opened(&cwd.join(written));
    Ok(searched.iter().map(|file| opened(file)).collect())
}

/// Whether `path`, resolved against `cwd` by its spelling first (`path.resolve`, then
/// `existsSync`, as Gemini asks), is there: `@/../.env` is the project's `.env` even
/// where no folder `@` is.
fn there(cwd: &Path, path: &str) -> bool {
    lexical(&cwd.join(path)).exists()
}

/// The file Gemini's `resolveToRealPath` opens for the absolute `path`: its escapes
/// decoded after it is resolved, then resolved again.
fn opened(path: &Path) -> String {
    let resolved = lexical(path);
    let resolved = resolved.to_string_lossy();
    let decoded = decode_uri_component(&resolved).unwrap_or_else(|| resolved.to_string());
    lexical(Path::new(&decoded)).to_string_lossy().into_owned()
}

/// `path` without Gemini's leading `@`, as `resolveDefensiveToolPath` drops it for a path
/// that is not there as written: `@/x` is `x`; `@a/b` is `a/b` unless `@a` is there.
fn without_mention<'a>(path: &'a str, cwd: &Path) -> &'a str {
    let Some(rest) = path.strip_prefix('@').filter(|rest| !rest.is_empty()) else {
        return path;
    };
    let stripped = rest.trim_start_matches(['/', '\\']);
    if rest.starts_with(['/', '\\']) {
        return if stripped.is_empty() { path } else { stripped };
    }
    match stripped.split(['/', '\\']).next() {
        Some(first) if !first.is_empty() && !there(cwd, &format!("@{first}")) => stripped,
        _ => path,
    }
}

/// The files Gemini's `correctPath` may pick for `written`: those named as its last part,
/// found breadth-first under `cwd` (links not followed, as Gemini's search does), whose
/// path ends with `written`. Gemini reads only what its ignore files leave and picks one
/// file only when it finds one; every file it could find is here.
fn found_by_search(cwd: &Path, written: &str) -> Result<Vec<PathBuf>, String> {
    let target = written.replace('\\', "/");
    let Some(name) = Path::new(written).file_name() else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    let mut queue = std::collections::VecDeque::from([cwd.to_path_buf()]);
    let mut read = 0;
    while let Some(folder) = queue.pop_front() {
        if read == SEARCHED_FOLDERS {
            return Err(format!(
                "Gemini CLI looks for \"{written}\" in the project, which has more than {SEARCHED_FOLDERS} folders to look in"
            ));
        }
        read += 1;
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                queue.push_back(path);
            } else if kind.is_file()
                && entry.file_name() == name
                && path.to_string_lossy().replace('\\', "/").ends_with(&target)
            {
                found.push(path);
            }
        }
    }
    Ok(found)
}

/// JavaScript's `decodeURIComponent`: every `%XX` decoded, `None` (the text kept as it is)
/// for a `%` without two hex digits or bytes that are not UTF-8, where it throws.
fn decode_uri_component(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_string());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
