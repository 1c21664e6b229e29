//! The files an `apply_patch` call touches: Codex CLI's and Copilot CLI's patch format
//! (openai/codex `codex-rs/apply-patch`), read into the list of file operations it
//! performs, so that a path policy sees every file a patch adds, changes, moves or
//! deletes. Pure: no I/O, and no input makes it panic.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path/to/new.txt
//! +line one
//! *** Update File: src/main.rs
//! *** Move to: src/app.rs
//! @@ optional context
//! -old
//! +new
//! *** Delete File: old.txt
//! *** End Patch
//! ```
//!
//! Where the patch is well formed, the result is what Codex's parser reads from it:
//!
//! - lines are split as [`str::lines`] splits them (`\n` or `\r\n`);
//! - a file header (`*** Add File: `, `*** Update File: `, `*** Delete File: `) may have
//!   whitespace around it, and its path is the rest of the trimmed line, verbatim (a
//!   path may hold spaces, and is relative to the agent's cwd or absolute);
//! - `*** Move to: ` right after an `*** Update File:` line renames that file, its path
//!   the rest of the line as is;
//! - an Add's content is its `+` lines, up to the first line that is not one;
//! - an Update's hunks (`@@`, ` `, `-`, `+` lines, blank lines, `*** End of File`)
//!   name no file and are skipped.
//!
//! Codex refuses a malformed patch outright, but a policy cannot assume every reader of
//! the patch does, so this reader is more lenient still and, when in doubt, reports the
//! path. No `*** Begin Patch` or `*** End Patch` is needed, and whatever surrounds the
//! patch is skipped: a heredoc wrapper (`apply_patch <<'EOF'` … `EOF`, which Codex
//! accepts, with or without a `cd DIR &&` before it), garbage between hunks, a second
//! patch after the first. Every line that, trimmed, starts with a file marker is a
//! header, in any state (even a context line of a hunk, which Codex would not take as
//! one), except a line that starts with `+` or `-`, which every reader takes as content.
//! Markers match in any ASCII case, and the space after the colon may be missing or
//! be other whitespace. A `*** Move to:` with no `*** Update File:` right before it is
//! attached to the Update being read if that one has no destination yet, and is
//! otherwise reported as an Update of its own path. A header with an empty path names
//! no file and is skipped.
//!
//! What this does not do: resolve paths (a relative path is relative to the agent's cwd,
//! or to the `DIR` of a `cd DIR && apply_patch <<'EOF'` command, which the caller must
//! see to) or check that the patch applies.

/// `*** Begin Patch`: opens a patch.
const BEGIN_PATCH: &str = "*** Begin Patch";
/// `*** End Patch`: closes a patch.
const END_PATCH: &str = "*** End Patch";
/// The file headers, without the space Codex wants after the colon.
const ADD_FILE: &str = "*** Add File:";
/// See [`ADD_FILE`].
const UPDATE_FILE: &str = "*** Update File:";
/// See [`ADD_FILE`].
const DELETE_FILE: &str = "*** Delete File:";
/// See [`ADD_FILE`].
const MOVE_TO: &str = "*** Move to:";

/// What a patch does to one file. Paths are as the patch spells them: relative to the
/// agent's working directory, or absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// `*** Add File:` creates (or overwrites) `path` with `content`.
    Add {
        /// The file written.
        path: String,
        /// The added lines without their leading `+`, joined with `\n` (no final
        /// newline; Codex writes one after the last line).
        content: String,
    },
    /// `*** Update File:` changes `path` in place or, with `*** Move to:`, writes the
    /// changed file to `move_to` and removes `path`.
    Update {
        /// The file changed (and, when `move_to` is set, removed).
        path: String,
        /// Where the changed file is written instead, when it is moved.
        move_to: Option<String>,
    },
    /// `*** Delete File:` removes `path`.
    Delete {
        /// The file removed.
        path: String,
    },
}

/// One line of patch text, as far as files go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line<'a> {
    /// `*** Begin Patch` or `*** End Patch`.
    Boundary,
    /// `*** Add File: path`.
    Add(&'a str),
    /// `*** Update File: path`.
    Update(&'a str),
    /// `*** Delete File: path`.
    Delete(&'a str),
    /// `*** Move to: path`.
    MoveTo(&'a str),
    /// Anything else: content, a hunk line, a heredoc marker, garbage.
    Other,
}

/// How a file header's path becomes its [`Line`].
type Header<'a> = fn(&'a str) -> Line<'a>;

/// What the reader is in the middle of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between file operations (or outside any patch).
    Between,
    /// An Add, the last change: its `+` lines are its content (`first`: none yet).
    Add {
        /// No content line has been read yet.
        first: bool,
    },
    /// An Update, the last change: a `*** Move to:` attaches to it if it has none.
    Update,
}

/// Every file operation in `text`, in order; an empty Vec when `text` holds no patch
/// markers at all.
///
/// `text` is the patch (Codex's `apply_patch` `command`, Copilot's patch input), or a
/// shell command carrying one in a heredoc. A malformed patch still yields every file
/// its `*** Add File:`, `*** Update File:`, `*** Delete File:` and `*** Move to:` lines
/// name: see the [module documentation](self) for the rules. Linear in the length of
/// `text`.
pub fn file_changes(text: &str) -> Vec<FileChange> {
    let mut changes: Vec<FileChange> = Vec::new();
    let mut state = State::Between;
    for raw in text.lines() {
        // An Add's content: every `+` line right after its header (Codex's rule).
        if let State::Add { first } = state
            && let Some(added) = raw.strip_prefix('+')
        {
            if let Some(FileChange::Add { content, .. }) = changes.last_mut() {
                if !first {
                    content.push('\n');
                }
                content.push_str(added);
            }
            state = State::Add { first: false };
            continue;
        }
        match classify(raw) {
            Line::Boundary => state = State::Between,
            Line::Add(path) => {
                changes.push(FileChange::Add {
                    path: path.to_string(),
                    content: String::new(),
                });
                state = State::Add { first: true };
            }
            Line::Update(path) => {
                changes.push(FileChange::Update {
                    path: path.to_string(),
                    move_to: None,
                });
                state = State::Update;
            }
            Line::Delete(path) => {
                changes.push(FileChange::Delete {
                    path: path.to_string(),
                });
                state = State::Between;
            }
            Line::MoveTo(path) => {
                let attached = match (state, changes.last_mut()) {
                    (State::Update, Some(FileChange::Update { move_to, .. }))
                        if move_to.is_none() =>
                    {
                        *move_to = Some(path.to_string());
                        true
                    }
                    _ => false,
                };
                if !attached {
                    // A destination with no Update to belong to: still a file written.
                    changes.push(FileChange::Update {
                        path: path.to_string(),
                        move_to: None,
                    });
                }
                state = State::Between;
            }
            Line::Other => {
                // An Add's content ends at its first line that is not a `+` line; an
                // Update's hunks (and anything between operations) name no file.
                if matches!(state, State::Add { .. }) {
                    state = State::Between;
                }
            }
        }
    }
    changes
}

/// What `raw`, one line of the text, is.
fn classify<'a>(raw: &'a str) -> Line<'a> {
    // An added or removed line is content to every reader, whatever follows the sign.
    if raw.starts_with(['+', '-']) {
        return Line::Other;
    }
    let line = raw.trim();
    if !line.starts_with("***") {
        return Line::Other;
    }
    if line.eq_ignore_ascii_case(BEGIN_PATCH) || line.eq_ignore_ascii_case(END_PATCH) {
        return Line::Boundary;
    }
    // Codex reads `*** Move to: ` untrimmed, and its path to the end of the line.
    if let Some(path) = raw.strip_prefix("*** Move to: ") {
        return nonempty(path).map_or(Line::Other, Line::MoveTo);
    }
    let headers: [(&str, Header<'a>); 4] = [
        (ADD_FILE, Line::Add),
        (UPDATE_FILE, Line::Update),
        (DELETE_FILE, Line::Delete),
        (MOVE_TO, Line::MoveTo),
    ];
    for (marker, kind) in headers {
        if let Some(rest) = strip_prefix_ignore_case(line, marker) {
            // Codex's spelling: exactly one space, and the path verbatim after it (it
            // may start with a space of its own); anything else: the path's leading
            // whitespace is taken as part of the marker.
            let path = if rest.starts_with(' ') && line.starts_with(marker) {
                rest.get(1..).unwrap_or_default()
            } else {
                rest.trim_start()
            };
            return nonempty(path).map_or(Line::Other, kind);
        }
    }
    Line::Other
}

/// `text` without `prefix`, compared in any ASCII case.
fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    if head.eq_ignore_ascii_case(prefix) {
        text.get(prefix.len()..)
    } else {
        None
    }
}

/// `path`, unless it is empty (a header that names no file).
fn nonempty(path: &str) -> Option<&str> {
    (!path.is_empty()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn add(path: &str, content: &str) -> FileChange {
        FileChange::Add {
            path: path.into(),
            content: content.into(),
        }
    }

    fn update(path: &str) -> FileChange {
        FileChange::Update {
            path: path.into(),
            move_to: None,
        }
    }

    fn moved(path: &str, to: &str) -> FileChange {
        FileChange::Update {
            path: path.into(),
            move_to: Some(to.into()),
        }
    }

    fn delete(path: &str) -> FileChange {
        FileChange::Delete { path: path.into() }
    }

    /// The brief's example, as Codex's own tests spell it.
    const EXAMPLE: &str = "*** Begin Patch
*** Add File: path/to/new.txt
+line one
+line two
*** Update File: src/main.rs
*** Move to: src/app.rs
@@ optional context
-old
+new
*** Delete File: old.txt
*** End Patch
";

    #[test]
    fn reads_add_update_move_and_delete_in_order() {
        assert_eq!(
            file_changes(EXAMPLE),
            [
                add("path/to/new.txt", "line one\nline two"),
                moved("src/main.rs", "src/app.rs"),
                delete("old.txt"),
            ]
        );
    }

    #[test]
    fn reads_each_operation_alone() {
        assert_eq!(
            file_changes("*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"),
            [add("a.txt", "hi")]
        );
        assert_eq!(
            file_changes(
                "*** Begin Patch\n*** Update File: b.rs\n@@ fn main()\n-a\n+b\n c\n*** End of File\n*** End Patch"
            ),
            [update("b.rs")]
        );
        assert_eq!(
            file_changes("*** Begin Patch\n*** Delete File: c.txt\n*** End Patch"),
            [delete("c.txt")]
        );
        assert_eq!(
            file_changes(
                "*** Begin Patch\n*** Update File: d.rs\n*** Move to: e.rs\n@@\n-x\n+y\n*** End Patch"
            ),
            [moved("d.rs", "e.rs")]
        );
    }

    #[test]
    fn an_update_without_a_first_context_marker_and_with_blank_lines() {
        // Codex: the first chunk may start without `@@`, and blank lines separate chunks.
        let patch = "*** Begin Patch
*** Update File: file2.py
 import foo
+bar

@@ def f():
-    pass
+    return 1
*** Add File: other.py
+content
*** End Patch";
        assert_eq!(
            file_changes(patch),
            [update("file2.py"), add("other.py", "content")]
        );
    }

    #[test]
    fn add_content_is_the_plus_lines_joined() {
        assert_eq!(
            file_changes("*** Begin Patch\n*** Add File: a\n+one\n+\n+  three \n*** End Patch"),
            [add("a", "one\n\n  three ")]
        );
        // An Add with no lines is an empty file; `+++` and `+-` lines are content.
        assert_eq!(
            file_changes("*** Add File: empty\n*** Add File: signs\n++x\n+-y\n"),
            [add("empty", ""), add("signs", "+x\n-y")]
        );
        // Content lines that look like headers are content, not operations.
        assert_eq!(
            file_changes(
                "*** Begin Patch\n*** Add File: doc.md\n+*** Delete File: /etc/passwd\n+*** Begin Patch\n*** End Patch"
            ),
            [add(
                "doc.md",
                "*** Delete File: /etc/passwd\n*** Begin Patch"
            )]
        );
    }

    #[test]
    fn several_files_in_one_patch() {
        let patch = "*** Begin Patch
*** Add File: a.txt
+a
*** Add File: b.txt
+b
*** Update File: c.rs
@@
-1
+2
*** Update File: d.rs
*** Move to: e.rs
@@
-3
+4
*** Delete File: f.txt
*** Delete File: g.txt
*** Update File: h.rs
@@
+5
*** End Patch";
        assert_eq!(
            file_changes(patch),
            [
                add("a.txt", "a"),
                add("b.txt", "b"),
                update("c.rs"),
                moved("d.rs", "e.rs"),
                delete("f.txt"),
                delete("g.txt"),
                update("h.rs"),
            ]
        );
    }

    #[test]
    fn absolute_paths_are_kept() {
        let patch = "*** Begin Patch
*** Add File: /tmp/new.py
+x
*** Update File: /home/u/p/src/lib.rs
*** Move to: /etc/cron.d/job
@@
-a
+b
*** Delete File: C:\\Users\\u\\file.txt
*** End Patch";
        assert_eq!(
            file_changes(patch),
            [
                add("/tmp/new.py", "x"),
                moved("/home/u/p/src/lib.rs", "/etc/cron.d/job"),
                delete("C:\\Users\\u\\file.txt"),
            ]
        );
    }

    #[test]
    fn crlf_line_endings() {
        let patch = EXAMPLE.replace('\n', "\r\n");
        assert_eq!(file_changes(&patch), file_changes(EXAMPLE));
        assert_eq!(
            file_changes("*** Add File: a\r\n+one\r\n+two\r\n"),
            [add("a", "one\ntwo")]
        );
    }

    #[test]
    fn whitespace_around_markers() {
        // Codex trims the header lines (and the Begin/End markers); its paths are the
        // rest of the trimmed line.
        let patch = "  \n\t*** Begin Patch  \n   *** Add File: a.txt   \n+x\n\t*** Delete File: b.txt\t\n  *** Update File: c.rs \n@@\n-a\n+b\n  *** End Patch\t\n\n";
        assert_eq!(
            file_changes(patch),
            [add("a.txt", "x"), delete("b.txt"), update("c.rs")]
        );
        // A second space after the colon is part of the path, as Codex reads it.
        assert_eq!(file_changes("*** Delete File:  x"), [delete(" x")]);
        // Codex reads `*** Move to: ` untrimmed: a trailing space is in the path.
        assert_eq!(
            file_changes("*** Update File: a\n*** Move to: b \n@@\n+c"),
            [moved("a", "b ")]
        );
        // Indented, it is still taken as a move (Codex would not), trimmed.
        assert_eq!(
            file_changes("*** Update File: a\n  *** Move to: b  \n@@\n+c"),
            [moved("a", "b")]
        );
    }

    #[test]
    fn lenient_marker_spellings() {
        assert_eq!(
            file_changes(
                "*** add file: a\n+x\n*** UPDATE FILE:b\n*** move TO:\tc\n*** Delete File:\t d\n*** end patch"
            ),
            [add("a", "x"), moved("b", "c"), delete("d")]
        );
    }

    #[test]
    fn a_path_with_spaces() {
        let patch = "*** Begin Patch
*** Add File: my docs/read me.txt
+hello world
*** Update File: src/a file.rs
*** Move to: src/the file.rs
@@
-a
+b
*** Delete File: old stuff/x y.txt
*** End Patch";
        assert_eq!(
            file_changes(patch),
            [
                add("my docs/read me.txt", "hello world"),
                moved("src/a file.rs", "src/the file.rs"),
                delete("old stuff/x y.txt"),
            ]
        );
    }

    #[test]
    fn the_heredoc_forms() {
        let body = "*** Begin Patch\n*** Update File: README.md\n@@\n-a\n+b\n*** Add File: x.txt\n+x\n*** End Patch";
        let expected = [update("README.md"), add("x.txt", "x")];
        for wrapped in [
            // What GPT-4.1 passes as `apply_patch`'s argument (Codex's lenient mode).
            format!("<<EOF\n{body}\nEOF\n"),
            format!("<<'EOF'\n{body}\nEOF\n"),
            format!("<<\"EOF\"\n{body}\nEOF\n"),
            // The shell forms Codex recognises in `bash -lc`.
            format!("apply_patch <<'EOF'\n{body}\nEOF\n"),
            format!("applypatch <<'EOF'\n{body}\nEOF"),
            format!("cd sub/dir && apply_patch <<'PATCH'\n{body}\nPATCH\n"),
            // Not forms Codex runs, but the files are the same.
            format!(
                "apply_patch <<'EOF'\r\n{}\r\nEOF\r\n",
                body.replace('\n', "\r\n")
            ),
            format!("set -e\napply_patch <<EOF\n{body}\nEOF\necho done\n"),
        ] {
            assert_eq!(file_changes(&wrapped), expected, "{wrapped:?}");
        }
    }

    #[test]
    fn a_malformed_patch_still_names_its_files() {
        // No `*** Begin Patch`, no `*** End Patch`, garbage between and inside hunks, a
        // hunk line where a header should be, an Update without hunks, a stray move.
        let patch = "here is my patch:
*** Add File: a.txt
+a
this line is not a plus line
+so this is not content
*** Update File: b.rs
garbage
@@
-x
+y
 *** Delete File: hidden-in-context.txt
*** Update File: c.rs
*** Delete File: d.txt
*** Move to: stray.rs
*** Update File: e.rs
@@
-1
+2
*** Move to: late.rs
*** Move to: second.rs
*** Add File: f.txt
+f";
        assert_eq!(
            file_changes(patch),
            [
                add("a.txt", "a"),
                update("b.rs"),
                delete("hidden-in-context.txt"),
                update("c.rs"),
                delete("d.txt"),
                update("stray.rs"),
                moved("e.rs", "late.rs"),
                update("second.rs"),
                add("f.txt", "f"),
            ]
        );
    }

    #[test]
    fn a_move_first_or_after_an_add_is_its_own_update() {
        assert_eq!(
            file_changes("*** Move to: a\n*** Add File: b\n+b\n*** Move to: c"),
            [update("a"), add("b", "b"), update("c")]
        );
    }

    #[test]
    fn text_after_the_end_and_a_second_patch() {
        let text = format!(
            "{EXAMPLE}trailing words\n*** Begin Patch\n*** Delete File: z\n*** End Patch\n"
        );
        let mut expected = file_changes(EXAMPLE);
        expected.push(delete("z"));
        assert_eq!(file_changes(&text), expected);
    }

    #[test]
    fn empty_and_non_patch_text_have_no_changes() {
        for text in [
            "",
            "\n\n  \r\n",
            "*** Begin Patch\n*** End Patch",
            "git diff --stat\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
            "ls -la && echo '*** not a marker'",
            "*** Add File: \n*** Update File:\n*** Delete File:   \n*** Move to: ",
            "*** Add Files: x\n*** Updated File: y\n*** Delete: z\n** Add File: w",
            "+*** Add File: a\n-*** Delete File: b",
            "***",
            "*** Add File",
        ] {
            assert_eq!(file_changes(text), [], "{text:?}");
        }
    }

    #[test]
    fn multibyte_text_does_not_panic() {
        assert_eq!(
            file_changes("*** Äd File: x\n*** Add File: héllo wörld/ファイル.txt\n+ü\n*** Up"),
            [add("héllo wörld/ファイル.txt", "ü")]
        );
        assert_eq!(file_changes("***é"), []);
        assert_eq!(file_changes("*** Add File:\u{a0}x"), [add("x", "")]);
    }

    #[test]
    fn a_large_patch_is_read_in_one_pass() {
        const FILES: usize = 10_000;
        let mut patch = String::from("*** Begin Patch\n");
        for i in 0..FILES {
            match i % 4 {
                0 => patch.push_str(&format!("*** Add File: dir/add{i}.txt\n+line {i}\n+more\n")),
                1 => patch.push_str(&format!("*** Update File: dir/up{i}.rs\n@@\n-a\n+b\n")),
                2 => patch.push_str(&format!(
                    "*** Update File: dir/mv{i}.rs\n*** Move to: dir/moved{i}.rs\n@@\n-a\n+b\n"
                )),
                _ => patch.push_str(&format!("*** Delete File: dir/del{i}.txt\n")),
            }
        }
        // And one Add of 100,000 lines, whose content must not be rebuilt per line.
        patch.push_str("*** Add File: big.txt\n");
        for _ in 0..100_000 {
            patch.push_str("+0123456789\n");
        }
        patch.push_str("*** End Patch\n");

        let started = std::time::Instant::now();
        let changes = file_changes(&patch);
        let elapsed = started.elapsed();

        assert_eq!(changes.len(), FILES + 1);
        assert_eq!(changes[0], add("dir/add0.txt", "line 0\nmore"));
        assert_eq!(changes[1], update("dir/up1.rs"));
        assert_eq!(changes[2], moved("dir/mv2.rs", "dir/moved2.rs"));
        assert_eq!(
            changes[FILES - 1],
            delete(&format!("dir/del{}.txt", FILES - 1))
        );
        let Some(FileChange::Add { path, content }) = changes.last() else {
            panic!("the last change is the big Add: {:?}", changes.last());
        };
        assert_eq!(path, "big.txt");
        assert_eq!(content.len(), 100_000 * 11 - 1);
        // A generous bound: a quadratic reader would take minutes on this input.
        assert!(elapsed.as_secs() < 10, "took {elapsed:?}");
    }

    /// A line of patch text: markers, their near misses, hunk lines and noise.
    fn patch_line() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("*** Begin Patch".to_string()),
            Just("*** End Patch".to_string()),
            Just("*** End of File".to_string()),
            Just("@@".to_string()),
            "[ \\t]{0,2}\\*\\*\\* (Add|Update|Delete) File:[ \\t]?[a-z/ .]{0,6}[ \\t]{0,2}",
            "[ \\t]{0,2}\\*\\*\\* Move to:[ \\t]?[a-z/ .]{0,6}",
            "[-+ @*]{0,3}[a-z*: ]{0,8}",
            "\\PC{0,12}",
        ]
    }

    proptest! {
        #[test]
        fn never_panics_on_any_text(text in "(?s).{0,300}") {
            let _ = file_changes(&text);
        }

        #[test]
        fn every_header_line_is_reported(lines in prop::collection::vec(patch_line(), 0..30), crlf: bool) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            let changes = file_changes(&text);
            let reported: Vec<&str> = changes
                .iter()
                .flat_map(|c| match c {
                    FileChange::Add { path, .. } | FileChange::Delete { path } => vec![path.as_str()],
                    FileChange::Update { path, move_to } => {
                        std::iter::once(path.as_str()).chain(move_to.as_deref()).collect()
                    }
                })
                .collect();
            // Every header line is one reported path, and every path is a header's.
            let headers: Vec<&str> = text
                .lines()
                .filter(|line| !matches!(classify(line), Line::Other | Line::Boundary))
                .collect();
            prop_assert_eq!(reported.len(), headers.len());
            for path in reported {
                prop_assert!(!path.is_empty());
                prop_assert!(text.contains(path));
            }
        }
    }
}
