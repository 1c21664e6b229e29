//! The hash chain: every record line after the first carries `prev`, the `sha256:`
//! digest of the line before it (its exact bytes, without the newline), so that a line
//! changed, removed or inserted after it was written breaks the chain at that place.
//!
//! What it shows and what not: the chain is not keyed, so whoever can write the record
//! can also rewrite every line after the one they changed; it catches an edit by
//! anything that does not know the scheme (an agent's `sed`, a hand edit), and a
//! truncated record is not detected at all. Records live outside every folder the agent
//! may write (the path guard refuses others), which is the defence; the chain makes a
//! change visible to `hookhost log verify`, `doctor`, `replay` and a resume.
//!
//! Records written before the chain existed carry no `prev`: lines before the first one
//! that does are accepted as unchained; after it, every line must carry a matching one.
//! A line that is not JSON (a crash's torn line, closed by the next resume's newline) is
//! a note, not a break: the line after it must still link to its exact bytes.

use sha2::{Digest, Sha256};

/// The `sha256:` digest of one line's bytes (without its newline), as `prev` holds it.
pub fn digest(line: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(line)))
}

/// Where and why a record's chain breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct ChainBreak {
    /// The first line (1-based) found changed, or missing its link.
    pub line: usize,
    /// What is wrong there.
    pub why: String,
}

/// What a whole chain check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verified {
    /// The record's lines (a torn last line counted).
    pub lines: usize,
    /// The first line that carries `prev`; `None` when none does (a record written
    /// before the chain, or a record of one line).
    pub chained_from: Option<usize>,
    /// Lines whose own link could not be read (not JSON: a crash's torn line).
    pub notes: Vec<String>,
}

impl Verified {
    /// One line for `log verify` and `doctor`.
    pub fn summary(&self) -> String {
        match self.chained_from {
            Some(1) | Some(2) => format!("intact: {} lines, every one chained", self.lines),
            Some(from) => format!(
                "intact: {} lines, chained from line {from} (the lines before were written by a hookhost without the chain)",
                self.lines
            ),
            None if self.lines <= 1 => format!("intact: {} line", self.lines),
            None => format!(
                "not chained: {} lines written by a hookhost without the chain, so changes to it cannot be detected",
                self.lines
            ),
        }
    }
}

/// Checks the chain of a record's text, whose first line is line `lines_before + 1` of
/// its file; the first line's own `prev` (linking to a line not given) is not checked.
pub fn verify(text: &[u8], lines_before: usize) -> Result<Verified, ChainBreak> {
    let mut pieces: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    // A text that ends with a newline ends with an empty piece, which is not a line.
    if pieces.last().is_some_and(|last| last.is_empty()) {
        pieces.pop();
    }
    let mut verified = Verified {
        lines: pieces.len(),
        ..Verified::default()
    };
    let mut previous: Option<&[u8]> = None;
    for (i, line) in pieces.iter().enumerate() {
        let number = lines_before + i + 1;
        let link = match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(serde_json::Value::Object(map)) => map.get("prev").cloned(),
            _ => {
                verified.notes.push(format!(
                    "line {number} is not a record (torn by a crash?); its own link is not checked"
                ));
                previous = Some(line);
                continue;
            }
        };
        match (link, previous) {
            (Some(serde_json::Value::String(prev)), Some(before)) => {
                if prev != digest(before) {
                    return Err(ChainBreak {
                        line: number - 1,
                        why: format!(
                            "changed after it was written (line {number}'s prev does not match it), or a line was removed or inserted after it"
                        ),
                    });
                }
                verified.chained_from.get_or_insert(number);
            }
            // The text's first line links to a line not given: not checked.
            (Some(serde_json::Value::String(_)), None) => {
                verified.chained_from.get_or_insert(number);
            }
            (Some(_), _) => {
                return Err(ChainBreak {
                    line: number,
                    why: "its prev is not a sha256: digest".into(),
                });
            }
            (None, _) if verified.chained_from.is_some() => {
                return Err(ChainBreak {
                    line: number,
                    why: "carries no prev, though the lines before it are chained (changed, or written by something else)".into(),
                });
            }
            (None, _) => {}
        }
        previous = Some(line);
    }
    Ok(verified)
}

/// The digest of a record's last line (a torn one too: the next resume closes it with a
/// newline and links to its bytes); `None` for an empty record.
pub fn last_line_digest(text: &[u8]) -> Option<String> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    if text.is_empty() {
        return None;
    }
    let start = text
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |newline| newline + 1);
    Some(digest(&text[start..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chained(lines: &[&str]) -> String {
        let mut text = String::new();
        let mut prev: Option<String> = None;
        for line in lines {
            let line = match &prev {
                Some(p) => line.replacen('{', &format!("{{\"prev\":\"{p}\","), 1),
                None => line.to_string(),
            };
            prev = Some(digest(line.as_bytes()));
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    #[test]
    fn an_intact_chain_verifies_and_an_edit_names_its_line() {
        let text = chained(&[
            r#"{"type":"session.started"}"#,
            r#"{"type":"hook.started"}"#,
            r#"{"type":"effect","exit_code":2}"#,
            r#"{"type":"gate.verdict"}"#,
        ]);
        let ok = verify(text.as_bytes(), 0).unwrap();
        assert_eq!((ok.lines, ok.chained_from), (4, Some(2)));
        assert_eq!(
            last_line_digest(text.as_bytes()),
            Some(digest(text.lines().last().unwrap().as_bytes()))
        );

        let edited = text.replace("\"exit_code\":2", "\"exit_code\":0");
        let broken = verify(edited.as_bytes(), 0).unwrap_err();
        assert_eq!(broken.line, 3, "{broken}");

        let mut lines: Vec<&str> = text.lines().collect();
        lines.remove(1);
        let removed = verify(lines.join("\n").as_bytes(), 0).unwrap_err();
        assert_eq!(removed.line, 1);

        let stripped = text
            .lines()
            .map(|l| {
                if l.contains("gate.verdict") {
                    r#"{"type":"gate.verdict"}"#
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(verify(stripped.as_bytes(), 0).unwrap_err().line, 4);
    }

    #[test]
    fn unchained_prefixes_and_torn_lines_are_accepted_with_their_links() {
        let legacy = "{\"type\":\"session.started\"}\n{\"type\":\"effect\"}\n";
        let v = verify(legacy.as_bytes(), 0).unwrap();
        assert_eq!(v.chained_from, None);
        assert!(v.summary().starts_with("not chained"));

        let torn = "{\"type\":\"effect\",\"at";
        let next = format!(
            "{{\"prev\":\"{}\",\"type\":\"session.resumed\"}}",
            digest(torn.as_bytes())
        );
        let text = format!("{legacy}{torn}\n{next}\n");
        let v = verify(text.as_bytes(), 0).unwrap();
        assert_eq!((v.lines, v.chained_from), (4, Some(4)));
        assert_eq!(v.notes.len(), 1);
        assert_eq!(last_line_digest(b""), None);
    }
}
