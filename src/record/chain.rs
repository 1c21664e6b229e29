//! The hash chain: every record line after the first carries `prev`, the `sha256:`
//! digest of the line before it (its exact bytes, without the newline), so that a line
//! changed, removed or inserted after it was written breaks the chain at that place.
//!
//! The chain's end is kept too, in the record's head ([`Head`]): a small file beside the
//! record (`FILE.head`, [`head_path`]) that holds how many whole lines the writer had
//! written, where the last one ends and its digest. The writer rewrites it in place after
//! every gate (its `gate.verdict`), after a `record.cut` and when the session ends, under
//! the record's lock, so that every process of a bridged session leaves it matching the
//! record it wrote. [`check_head`] then catches what no line after it could: the last line
//! changed, lines cut off the end (down to a line boundary or into the last line), the
//! line before a torn last line changed. Every `session.started` and `session.resumed` a
//! writer with a head writes says `"chain_head":true`, so that a head removed is a break,
//! not a record from before heads.
//!
//! What it shows and what not: neither the chain nor the head is keyed, so whoever can
//! write the record and its head can rewrite both (every line after the one they changed,
//! and the head after it); they catch a change by anything that does not know the scheme
//! (an agent's `sed`, a hand edit, a truncation). Lines written after the head was last
//! updated (a session killed mid-gate) are covered by the chain alone: the last of them
//! can be changed, or they can be cut off, unseen. Records live outside every folder the
//! agent may write (the path guard refuses others), which is the defence; the chain makes
//! a change visible to `hookhost log verify`, `replay` and a resume ([`super::verify_file`]
//! is the whole check of a record file, chain and head).
//!
//! Records written before the chain existed carry no `prev`: lines before the first one
//! that does are accepted as unchained; after it, every line must carry a matching one.
//! A line that is not JSON (a crash's torn line, closed by the next resume's newline) is
//! a note, not a break: the line after it must still link to its exact bytes, a torn line
//! that starts with its `prev` (the writer puts it first) is checked against the line
//! before it, and the first line a resume writes after closing a torn line carries
//! `torn_prev`, the digest of the line before the torn one, which is checked too.

mod links;

use std::path::{Path, PathBuf};

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
    /// Lines whose own link could not be read (not JSON: a crash's torn line), and lines
    /// written after the head was last updated.
    pub notes: Vec<String>,
    /// A line says its writer keeps a head (`"chain_head":true`), so a missing head is a
    /// break.
    pub head_expected: bool,
    /// What the head said of the record's end, once [`check_head`] looked; `None` before.
    pub end: Option<End>,
}

/// What [`check_head`] found of a record's end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The head's last line is the record's line `lines`, as written.
    Matches {
        /// The whole lines the head covers.
        lines: usize,
    },
    /// No head beside the record, and no line that says there should be one (a record
    /// written by a hookhost without heads): its end is not checked.
    NoHead,
}

impl Verified {
    /// One line for `log verify` and `doctor`.
    pub fn summary(&self) -> String {
        let end = match &self.end {
            Some(End::Matches { lines: 0 }) => "; its head covers no line yet".to_string(),
            Some(End::Matches { lines }) => {
                format!("; its end matches its head (line {lines})")
            }
            Some(End::NoHead) => "; no head beside it (written by a hookhost without one), so a changed or removed last line would not show".into(),
            None => String::new(),
        };
        let chain = match self.chained_from {
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
        };
        chain + &end
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
    // The line before `previous`, and whether `previous` is not JSON.
    let mut before_previous: Option<&[u8]> = None;
    let mut previous_torn = false;
    for (i, line) in pieces.iter().enumerate() {
        let number = lines_before + i + 1;
        let link = match links::links_of(line) {
            Some(links) => {
                if links.chain_head == Some(serde_json::Value::Bool(true)) {
                    verified.head_expected = true;
                }
                // The first line a resume writes after closing a torn line vouches for
                // the line before the torn one.
                if let (true, Some(serde_json::Value::String(torn_prev)), Some(before)) =
                    (previous_torn, &links.torn_prev, before_previous)
                    && *torn_prev != digest(before)
                {
                    return Err(ChainBreak {
                        line: number - 2,
                        why: format!(
                            "changed after it was written (line {number}'s torn_prev does not match it), or a line was removed or inserted after it"
                        ),
                    });
                }
                links.prev
            }
            _ => {
                // A torn line that kept its `prev` (written first) still links.
                if let (Some(prev), Some(before)) = (torn_prev(line), previous)
                    && prev != digest(before)
                {
                    return Err(ChainBreak {
                        line: number - 1,
                        why: format!(
                            "changed after it was written (the prev that line {number}, torn, begins with does not match it), or a line was removed or inserted after it"
                        ),
                    });
                }
                verified.notes.push(format!(
                    "line {number} is not a record (torn by a crash?); its own link is not checked"
                ));
                before_previous = previous;
                previous = Some(line);
                previous_torn = true;
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
        before_previous = previous;
        previous = Some(line);
        previous_torn = false;
    }
    Ok(verified)
}

/// The `prev` a line that is not JSON begins with (`{"prev":"sha256:…"`, as the writer
/// writes every line), if it does.
fn torn_prev(line: &[u8]) -> Option<String> {
    const START: &[u8] = b"{\"prev\":\"sha256:";
    let hex = line.strip_prefix(START)?.get(..64)?;
    let closed = line.get(START.len() + 64) == Some(&b'"');
    let lower_hex = hex
        .iter()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b));
    (closed && lower_hex).then(|| format!("sha256:{}", String::from_utf8_lossy(hex)))
}

/// The record's head: the writer's last word on how far the record goes, kept beside it
/// in [`head_path`] and rewritten in place (one fixed-size write of [`HEAD_LEN`] bytes,
/// JSON padded with spaces: `{"lines":13,"end":4567,"last":"sha256:…"}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The whole lines written (the last one is line `lines`).
    pub lines: usize,
    /// The record's length after that line's newline.
    pub end: u64,
    /// The digest of line `lines` (`None` with no line).
    pub last: Option<String>,
}

/// A head's size on disk.
pub const HEAD_LEN: usize = 160;

impl Head {
    /// The head's bytes: [`HEAD_LEN`] of them, ending with a newline:
    /// `{"lines":N,"end":N,"last":"sha256:…"}` (or `"last":null`), padded with spaces.
    /// Written straight rather than through a `json!` map: the writer rewrites the head
    /// after every gate, and the map was ~8k instructions of a recorded call (the text
    /// is the map's, `record::write::head`'s `encoded_as_the_map_was` holds them equal).
    pub fn encode(&self) -> Vec<u8> {
        use std::fmt::Write as _;
        let mut text = String::with_capacity(HEAD_LEN);
        // Writing into a String cannot fail.
        let _ = write!(
            text,
            "{{\"lines\":{},\"end\":{},\"last\":",
            self.lines, self.end
        );
        match &self.last {
            // A digest is `sha256:` and hex, which JSON writes as it is; anything else
            // goes through serde's escaping.
            Some(last) if last.bytes().all(|b| b.is_ascii_alphanumeric() || b == b':') => {
                text.push('"');
                text.push_str(last);
                text.push('"');
            }
            Some(last) => text.push_str(&serde_json::Value::String(last.clone()).to_string()),
            None => text.push_str("null"),
        }
        text.push('}');
        let mut bytes = text.into_bytes();
        if bytes.len() < HEAD_LEN - 1 {
            bytes.resize(HEAD_LEN - 1, b' ');
        }
        bytes.push(b'\n');
        bytes
    }

    /// A head read back; `None` when `bytes` are not one.
    pub fn decode(bytes: &[u8]) -> Option<Head> {
        let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        let last = match value.get("last")? {
            serde_json::Value::Null => None,
            serde_json::Value::String(d) if d.starts_with("sha256:") => Some(d.clone()),
            _ => return None,
        };
        let head = Head {
            lines: usize::try_from(value.get("lines")?.as_u64()?).ok()?,
            end: value.get("end")?.as_u64()?,
            last,
        };
        // No line: nothing else; a line: where it ends, and its digest.
        let empty = head.lines == 0;
        (empty == (head.end == 0) && empty == head.last.is_none()).then_some(head)
    }
}

/// The head of the record at `record`: `FILE.head` beside it.
pub fn head_path(record: &Path) -> PathBuf {
    let mut name = record.as_os_str().to_owned();
    name.push(".head");
    PathBuf::from(name)
}

/// What was found where a record's head should be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeadSeen {
    /// No file there.
    Missing,
    /// A file that is not a head (changed?).
    NotAHead,
    /// The head.
    Found(Head),
}

/// Checks the end of a record's whole text (whose chain [`verify`] found intact, as
/// `verified`) against its head, read from `head_file`: line `head.lines` must be there,
/// whole and as written. Lines after it (written after the head was last updated) get a
/// note; a missing head is a break when a line says there is one.
pub fn check_head(
    text: &[u8],
    head: &HeadSeen,
    head_file: &Path,
    verified: &mut Verified,
) -> Result<(), ChainBreak> {
    let last_line = verified.lines.max(1);
    let head = match head {
        HeadSeen::Found(head) => head,
        HeadSeen::Missing if !verified.head_expected => {
            verified.end = Some(End::NoHead);
            return Ok(());
        }
        HeadSeen::Missing => {
            return Err(ChainBreak {
                line: last_line,
                why: format!(
                    "cannot be checked: the record's head {} is missing (removed?), though the record says it keeps one",
                    head_file.display()
                ),
            });
        }
        HeadSeen::NotAHead => {
            return Err(ChainBreak {
                line: last_line,
                why: format!(
                    "cannot be checked: the record's head {} is not one (changed?)",
                    head_file.display()
                ),
            });
        }
    };
    let mut pieces: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    // The piece after the last newline: empty, or a torn last line.
    let torn = !pieces.pop().unwrap_or_default().is_empty();
    let whole = pieces.len();
    if head.lines > whole {
        let (line, why) = if torn && whole + 1 == head.lines {
            (
                head.lines,
                format!(
                    "cut short or changed after it was written: the record's head {} says it was written whole",
                    head_file.display()
                ),
            )
        } else {
            (
                whole + 1,
                format!(
                    "removed: the record ends at line {}, but its head {} says {} lines were written (lines were cut off its end)",
                    whole + usize::from(torn),
                    head_file.display(),
                    head.lines
                ),
            )
        };
        return Err(ChainBreak { line, why });
    }
    if head.lines > 0 && Some(digest(pieces[head.lines - 1])) != head.last {
        return Err(ChainBreak {
            line: head.lines,
            why: format!(
                "changed after it was written (it is not the line the record's head {} says was written last)",
                head_file.display()
            ),
        });
    }
    match whole - head.lines {
        0 => {}
        1 => verified.notes.push(format!(
            "line {whole} was written after the record's head was last updated (a session killed mid-gate?): only the chain covers it"
        )),
        _ => verified.notes.push(format!(
            "lines {} to {whole} were written after the record's head was last updated (a session killed mid-gate?): only the chain covers them",
            head.lines + 1
        )),
    }
    verified.end = Some(End::Matches { lines: head.lines });
    Ok(())
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

    /// The head of `text`'s first `lines` lines.
    fn head_of(text: &str, lines: usize) -> HeadSeen {
        let kept: Vec<&str> = text.lines().take(lines).collect();
        HeadSeen::Found(Head {
            lines,
            end: kept.iter().map(|l| l.len() as u64 + 1).sum(),
            last: kept.last().map(|l| digest(l.as_bytes())),
        })
    }

    fn checked(text: &str, head: &HeadSeen) -> Result<Verified, ChainBreak> {
        let mut verified = verify(text.as_bytes(), 0)?;
        check_head(text.as_bytes(), head, Path::new("r.head"), &mut verified)?;
        Ok(verified)
    }

    #[test]
    fn the_head_sees_the_end_a_line_edit_or_a_cut_changes() {
        let text = chained(&[
            r#"{"type":"session.started","chain_head":true}"#,
            r#"{"type":"hook.started"}"#,
            r#"{"type":"gate.verdict","outcome":"allow"}"#,
        ]);
        let head = head_of(&text, 3);
        let ok = checked(&text, &head).unwrap();
        assert_eq!(ok.end, Some(End::Matches { lines: 3 }));
        assert!(
            ok.summary()
                .ends_with("; its end matches its head (line 3)")
        );
        let HeadSeen::Found(h) = &head else { panic!() };
        assert_eq!(Head::decode(&h.encode()).as_ref(), Some(h));
        assert_eq!(h.encode().len(), HEAD_LEN);
        assert_eq!(Head::decode(b"{\"lines\":1,\"end\":0,\"last\":null}"), None);

        // The last line edited, as a plain sed would.
        let edited = text.replace("\"allow\"", "\"block\"");
        assert_eq!(checked(&edited, &head).unwrap_err().line, 3);
        // The last line removed, or cut into.
        let cut: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
        let removed = checked(&cut, &head).unwrap_err();
        assert_eq!(removed.line, 3, "{removed}");
        assert!(removed.why.starts_with("removed"), "{removed}");
        let short = &text[..text.len() - 2];
        assert_eq!(checked(short, &head).unwrap_err().line, 3);

        // A crash's torn line after the head: fine; the line before it edited: not.
        let torn = format!("{text}{{\"type\":\"effect\",\"at");
        let v = checked(&torn, &head).unwrap();
        assert_eq!(v.notes.len(), 1, "{:?}", v.notes);
        let torn_edited = torn.replace("\"allow\"", "\"block\"");
        assert_eq!(checked(&torn_edited, &head).unwrap_err().line, 3);

        // Lines after the head (a session killed mid-gate) are notes.
        assert!(
            checked(&text, &head_of(&text, 2)).unwrap().notes[0]
                .starts_with("line 3 was written after")
        );
        // A head removed, where the record says there is one; none in an old record.
        assert_eq!(checked(&text, &HeadSeen::Missing).unwrap_err().line, 3);
        assert_eq!(checked(&text, &HeadSeen::NotAHead).unwrap_err().line, 3);
        let old = chained(&[r#"{"type":"session.started"}"#, r#"{"type":"effect"}"#]);
        assert_eq!(
            checked(&old, &HeadSeen::Missing).unwrap().end,
            Some(End::NoHead)
        );
    }

    #[test]
    fn a_torn_line_keeps_its_link_and_the_resume_after_it_vouches() {
        let whole = chained(&[
            r#"{"type":"session.started"}"#,
            r#"{"type":"hook.started"}"#,
        ]);
        let last = whole.lines().last().unwrap();
        // Written with prev first, then torn: its link is still checked.
        let torn = format!("{{\"prev\":\"{}\",\"type\":\"eff", digest(last.as_bytes()));
        let text = format!("{whole}{torn}\n");
        assert!(verify(text.as_bytes(), 0).is_ok());
        let edited = text.replace("hook.started", "hook.startex");
        assert_eq!(verify(edited.as_bytes(), 0).unwrap_err().line, 2);
        // Torn before its link ends: the next line's torn_prev vouches for line 2.
        let torn = "{\"prev\":\"sha2";
        let next = format!(
            "{{\"prev\":\"{}\",\"type\":\"session.resumed\",\"torn_prev\":\"{}\"}}",
            digest(torn.as_bytes()),
            digest(last.as_bytes())
        );
        let text = format!("{whole}{torn}\n{next}\n");
        assert!(verify(text.as_bytes(), 0).is_ok());
        let edited = text.replace("hook.started", "hook.startex");
        assert_eq!(verify(edited.as_bytes(), 0).unwrap_err().line, 2);
    }
}
