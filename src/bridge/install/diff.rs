//! A unified diff of a settings file's text before and after, for `--dry-run`.

use std::path::Path;

/// One line of the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// The unified diff (`---`/`+++` header, `@@` hunks with `context` lines around each change)
/// from `before` to `after`; `None` is a file that does not exist. Empty when they are equal.
pub(super) fn unified(
    path: &Path,
    before: Option<&str>,
    after: Option<&str>,
    context: usize,
) -> String {
    if before == after {
        return String::new();
    }
    let old: Vec<&str> = before.map(|t| t.lines().collect()).unwrap_or_default();
    let new: Vec<&str> = after.map(|t| t.lines().collect()).unwrap_or_default();
    let lines = lines(&old, &new);

    let name = path.display();
    let mut out = String::new();
    match before {
        Some(_) => out.push_str(&format!("--- {name}\n")),
        None => out.push_str("--- /dev/null\n"),
    }
    match after {
        Some(_) => out.push_str(&format!("+++ {name}\n")),
        None => out.push_str("+++ /dev/null\n"),
    }

    // Hunks: runs of lines within `context` of a change.
    let changed: Vec<usize> = (0..lines.len())
        .filter(|&i| !matches!(lines[i], Line::Same(_)))
        .collect();
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for &i in &changed {
        let start = i.saturating_sub(context);
        let end = (i + context + 1).min(lines.len());
        match hunks.last_mut() {
            Some((_, last_end)) if start <= *last_end => *last_end = end,
            _ => hunks.push((start, end)),
        }
    }
    for (start, end) in hunks {
        // Line numbers (1-based) where the hunk starts in each file.
        let old_before = lines[..start]
            .iter()
            .filter(|l| !matches!(l, Line::Added(_)))
            .count();
        let new_before = lines[..start]
            .iter()
            .filter(|l| !matches!(l, Line::Removed(_)))
            .count();
        let hunk = &lines[start..end];
        let old_len = hunk.iter().filter(|l| !matches!(l, Line::Added(_))).count();
        let new_len = hunk
            .iter()
            .filter(|l| !matches!(l, Line::Removed(_)))
            .count();
        let first = |before: usize, len: usize| if len == 0 { before } else { before + 1 };
        out.push_str(&format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            first(old_before, old_len),
            first(new_before, new_len)
        ));
        for line in hunk {
            match line {
                Line::Same(text) => out.push_str(&format!(" {text}\n")),
                Line::Removed(text) => out.push_str(&format!("-{text}\n")),
                Line::Added(text) => out.push_str(&format!("+{text}\n")),
            }
        }
    }
    out
}

/// The lines of both texts, by a longest common subsequence (after the common head and
/// tail, which settings-file edits leave long).
fn lines<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Line<'a>> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);

    // lcs[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out: Vec<Line> = old[..head].iter().map(|l| Line::Same(l)).collect();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(Line::Same(a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // A removed line before the line that replaces it, as diff(1) prints them.
            out.push(Line::Removed(a[i]));
            i += 1;
        } else {
            out.push(Line::Added(b[j]));
            j += 1;
        }
    }
    out.extend(old[old.len() - tail..].iter().map(|l| Line::Same(l)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_shows_only_the_changed_lines_with_context() {
        let before = "a\nb\nc\nd\ne\nf\ng\n";
        let after = "a\nb\nc\nD\ne\nf\ng\nh\n";
        let diff = unified(Path::new("/x/settings.json"), Some(before), Some(after), 1);
        assert_eq!(
            diff,
            "--- /x/settings.json\n+++ /x/settings.json\n\
             @@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n\
             @@ -7,1 +7,2 @@\n g\n+h\n"
        );
    }

    #[test]
    fn a_new_file_and_a_removed_file_diff_against_dev_null() {
        let diff = unified(Path::new("/x/h.json"), None, Some("{}\n"), 3);
        assert_eq!(diff, "--- /dev/null\n+++ /x/h.json\n@@ -0,0 +1,1 @@\n+{}\n");
        let diff = unified(Path::new("/x/h.json"), Some("{}\n"), None, 3);
        assert_eq!(diff, "--- /x/h.json\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-{}\n");
        assert_eq!(unified(Path::new("/x"), Some("a"), Some("a"), 3), "");
    }
}
