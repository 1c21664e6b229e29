//! Loading configs: every key, every problem, by file and hook.
use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(Path::new("/home/u/.config/harness/config.toml"), text)
}

#[test]
fn defaults_apply() {
    let c = parse("[[hooks]]\nname = \"a\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\n")
        .unwrap();
    let h = &c.hooks[0];
    assert_eq!(h.timeout, 30);
    assert!(h.sandbox);
    assert_eq!(h.on_failure, OnFailure::Block);
    assert_eq!(h.tools, None);
    assert_eq!(h.envelope, None);
}

#[test]
fn envelope_key_is_validated_at_load() {
    let hook = |value: &str| {
        format!(
            "[[hooks]]\nname = \"a\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\nenvelope = {value}\n"
        )
    };
    let c = parse(&hook("\"claude-code\"")).unwrap();
    assert_eq!(c.hooks[0].envelope, Some(EnvelopeShape::ClaudeCode));
    let c = parse(&hook("\"spec\"")).unwrap();
    assert_eq!(c.hooks[0].envelope, Some(EnvelopeShape::Spec));
    let err = parse(&hook("\"claude\"")).unwrap_err().to_string();
    assert_eq!(
        err,
        "/home/u/.config/harness/config.toml: hook a: envelope \"claude\" is not valid: use \"claude-code\" (Claude Code's input) or \"spec\" (hookhost's envelope)"
    );
    let err = parse(&hook("true")).unwrap_err().to_string();
    assert_eq!(
        err,
        "/home/u/.config/harness/config.toml: hook a: envelope must be \"claude-code\" or \"spec\", not boolean"
    );
}

#[test]
fn envelope_round_trips_through_a_record_and_is_absent_when_unset() {
    let c = parse(
        "[[hooks]]\nname = \"a\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\n[[hooks]]\nname = \"b\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\nenvelope = \"claude-code\"\n",
    )
    .unwrap();
    let unset = serde_json::to_string(&c.hooks[0]).unwrap();
    assert!(!unset.contains("envelope"), "{unset}");
    let set = serde_json::to_string(&c.hooks[1]).unwrap();
    assert!(set.ends_with(",\"envelope\":\"claude-code\"}"), "{set}");
    let back: HookDef = serde_json::from_str(&set).unwrap();
    assert_eq!(back, c.hooks[1]);
    let old: HookDef = serde_json::from_str(&unset).unwrap();
    assert_eq!(old.envelope, None);
}

#[test]
fn unknown_tools_per_hook_and_for_the_file() {
    let hook = |name: &str, extra: &str| {
        format!(
            "[[hooks]]\nname = \"{name}\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\n{extra}"
        )
    };
    let policy = |c: &Config, i: usize| c.hooks[i].tools.as_ref().map(ToolList::unknown_tools);
    // Absent everywhere: block.
    let c = parse(&hook("a", "tools = [\"bash\"]\n")).unwrap();
    assert_eq!(policy(&c, 0), Some(UnknownTools::Block));
    assert_eq!(c.unknown_tools, UnknownTools::Block);
    // The file's default, and a hook's own key over it.
    let text = format!(
        "unknown_tools = \"allow\"\n{}{}",
        hook("a", "tools = [\"bash\"]\n"),
        hook("b", "tools = [\"bash\"]\nunknown_tools = \"block\"\n")
    );
    let c = parse(&text).unwrap();
    assert_eq!(policy(&c, 0), Some(UnknownTools::Allow));
    assert_eq!(policy(&c, 1), Some(UnknownTools::Block));
    assert_eq!(c.hooks[0].tools.as_deref(), Some(&["bash".to_string()][..]));

    let err = |text: &str| parse(text).unwrap_err().to_string();
    assert_eq!(
        err(&hook("a", "tools = [\"bash\"]\nunknown_tools = \"deny\"\n")),
        "/home/u/.config/harness/config.toml: hook a: unknown_tools \"deny\" is not valid: use \"block\" (a hook with tools = [...] blocks a call of a tool hookhost has no name for) or \"allow\" (such a call goes on without the hook)"
    );
    assert_eq!(
        err(&hook("a", "tools = [\"bash\"]\nunknown_tools = true\n")),
        "/home/u/.config/harness/config.toml: hook a: unknown_tools must be \"block\" or \"allow\", not boolean"
    );
    assert_eq!(
        err(&hook("a", "unknown_tools = \"allow\"\n")),
        "/home/u/.config/harness/config.toml: hook a: unknown_tools means something only beside tools = [...]: a hook without tools already runs for every call, a tool hookhost has no name for included"
    );
    assert_eq!(
        err("unknown_tools = \"sometimes\"\n"),
        "/home/u/.config/harness/config.toml: unknown_tools \"sometimes\" is not valid: use \"block\" (a hook with tools = [...] blocks a call of a tool hookhost has no name for) or \"allow\" (such a call goes on without the hook)"
    );
}

#[test]
fn unknown_tools_round_trips_through_a_record() {
    let c = parse(
        "[[hooks]]\nname = \"a\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\ntools = [\"bash\"]\n[[hooks]]\nname = \"b\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\ntools = [\"bash\"]\nunknown_tools = \"allow\"\n",
    )
    .unwrap();
    // `block` is written as the list alone, as records before the key have it.
    let block = serde_json::to_string(&c.hooks[0]).unwrap();
    assert!(block.contains("\"tools\":[\"bash\"]"), "{block}");
    let allow = serde_json::to_string(&c.hooks[1]).unwrap();
    assert!(
        allow.contains("\"tools\":{\"names\":[\"bash\"],\"unknown_tools\":\"allow\"}"),
        "{allow}"
    );
    for (text, hook) in [(block, &c.hooks[0]), (allow, &c.hooks[1])] {
        let back: HookDef = serde_json::from_str(&text).unwrap();
        assert_eq!(&back, hook);
    }
}

#[test]
fn line_and_column_of_malformed_toml() {
    let err = parse("a = 1\nb = = 2\n").unwrap_err().to_string();
    assert!(err.contains("line 2, column 5"), "{err}");
    assert!(err.starts_with("/home/u/.config/harness/config.toml: malformed TOML"));
}

#[test]
fn relative_sandbox_paths_are_load_errors() {
    let err = parse(
        "[sandbox]\nhide = [\"/abs\", \"relative/secret\"]\nwritable = [\"also-relative\"]\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("[sandbox] hide: \"relative/secret\" is not an absolute path (write it in full, or start it with ~/)"),
        "{err}"
    );
    assert!(
        err.contains("[sandbox] writable: \"also-relative\" is not an absolute path"),
        "{err}"
    );
    assert!(!err.contains("/abs"), "{err}");
    let ok = parse("[sandbox]\nhide = [\"/abs\"]\nwritable = []\n").unwrap();
    assert_eq!(ok.sandbox.hide, Some(vec![PathBuf::from("/abs")]));
}

#[test]
fn names() {
    assert!(is_valid_name("no-force-push_2"));
    assert!(!is_valid_name(""));
    assert!(!is_valid_name("Upper"));
    assert!(!is_valid_name(&"a".repeat(33)));
    assert!(is_valid_name(&"a".repeat(32)));
}

#[test]
fn unknown_tool_is_the_spec_warning() {
    assert_eq!(
        unknown_tool_warning("no-force-push", "Bash"),
        "⚠ hook no-force-push lists \"Bash\", which is not a tool here; tool names are lower case, such as bash."
    );
}
