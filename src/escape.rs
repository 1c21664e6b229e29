//! Text for a person's terminal: control characters shown as visible escapes.
//!
//! hookhost prints text that others wrote: hooks' reasons and contexts, session
//! records, values from the config. A terminal obeys control sequences in such text
//! (OSC 52 writes the clipboard, CSI erases lines and moves the cursor, CR returns to
//! the start of the line), so a hook that quotes the model's command would let the
//! model drive the user's terminal. Every line hookhost writes as text (messages,
//! warnings, the banner, context blocks, `log show`, `replay`, `eval`, `check` and
//! errors) goes through [`for_terminal`].
//!
//! One style: Rust's `\u{…}` with the code point in lower-case hex (`\u{1b}` for ESC,
//! `\u{d}` for CR, `\u{202e}` for RIGHT-TO-LEFT OVERRIDE). Escaped are the C0 controls
//! other than newline and tab, DEL, the C1 controls (U+0080–U+009F) and the bidi
//! embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069), which
//! reorder what a line appears to say ("Trojan Source"). A backslash is not escaped, so
//! ordinary text (and every message of the spec) prints unchanged; `\u{1b}` written out
//! by a hook therefore looks like an escaped ESC, which is harmless.
//!
//! JSON output (`--json`, `serve`) does not use this: it is exact, and JSON has its own
//! escapes.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every character a terminal could act on (see the module docs) written
/// as `\u{…}`; borrowed unchanged when there is none.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if needs_escape(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A character a terminal could act on: a C0 control other than newline and tab, DEL,
/// a C1 control, or a bidi embedding, override or isolate control.
fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        // C0, DEL and C1: Unicode's Cc category.
        c if c.is_control() => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        let text = "blocked by the user's hook \"h\": no\n\tpath C:\\x · ✗ ⚠ שלום";
        assert!(matches!(for_terminal(text), Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn controls_become_visible() {
        assert_eq!(
            for_terminal("a\u{1b}]52;c;eA==\u{7}\u{1b}[2K\rb\u{7f}\u{85}\u{9b}\0"),
            "a\\u{1b}]52;c;eA==\\u{7}\\u{1b}[2K\\u{d}b\\u{7f}\\u{85}\\u{9b}\\u{0}"
        );
        assert_eq!(
            for_terminal("x\u{202e}y\u{2066}z\u{2069}"),
            "x\\u{202e}y\\u{2066}z\\u{2069}"
        );
    }
}
