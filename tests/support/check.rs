//! Reading `hookhost check`'s stdout: the spec's banner line, then one line per hook
//! saying which input shape it reads (docs/envelopes.md).

/// The banner of `check`'s `stdout` (its first line, with its newline), after asserting
/// that every later line is a hook's shape line.
pub fn banner_of(stdout: &str) -> String {
    let mut lines = stdout.lines();
    let banner = lines.next().unwrap_or_default();
    for line in lines {
        assert!(
            line.starts_with("hook ") && line.contains(" reads "),
            "not a shape line after the banner: {line:?} in\n{stdout}"
        );
    }
    format!("{banner}\n")
}
