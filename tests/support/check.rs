//! Reading `hookhost check`'s stdout: the spec's banner line, then one line per hook
//! saying which input shape it reads (docs/envelopes.md), then, when a hook lists `tools`,
//! one line per such hook saying what it does for a tool hookhost has no name for and one
//! line per agent naming its tools without one (docs/contract.md#unknown_tools).

/// The banner of `check`'s `stdout` (its first line, with its newline), after asserting
/// that every later line is one of the lines above.
pub fn banner_of(stdout: &str) -> String {
    let mut lines = stdout.lines();
    let banner = lines.next().unwrap_or_default();
    for line in lines {
        let shape = line.starts_with("hook ") && line.contains(" reads ");
        let unknown = line.starts_with("hook ")
            && line
                .contains(": behind `hookhost bridge`, a call of a tool hookhost has no name for ");
        let unmapped = line.contains(": no hookhost name for ");
        assert!(
            shape || unknown || unmapped,
            "not a line check prints after the banner: {line:?} in\n{stdout}"
        );
    }
    format!("{banner}\n")
}
