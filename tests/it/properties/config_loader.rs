//! The config loader: [`Config::parse`] and [`Config::load`] on generated and mutated configs.

use super::*;

pub(super) const CONFIG_PATH: &str = "/home/dana/.config/harness/config.toml";

/// The spec's and the README's configs, as written there.
pub(super) const CONFIG_SEEDS: &[&str] = &[
    // hooks.md, "The table".
    r#"[[hooks]]
name = "no-force-push"        # required; unique; 1–32 of a-z, 0-9, "-", "_"
event = "PreToolUse"          # "PreToolUse" or "UserPromptSubmit"
tools = ["bash"]              # PreToolUse only; omitted = every tool
command = ["/home/dana/.local/share/harness/hooks/no-force-push.sh"]   # argv; no shell
timeout = 10                  # whole seconds, 1–600; default 30
sandbox = true                # default true
on_failure = "block"          # "block" (default) or "continue"
"#,
    // hooks.md, "Example: refuse force-pushes" and the MCP and keywords examples.
    r#"[[hooks]]
name = "no-force-push"
event = "PreToolUse"
tools = ["bash", "exec"]
command = ["/home/dana/.local/share/harness/hooks/no-force-push.sh"]
timeout = 10

[[hooks]]
name = "mcp-audit"
event = "PreToolUse"
tools = ["mcp"]
command = ["python3", "/home/dana/.local/share/harness/hooks/mcp-audit.py"]

[[hooks]]
name = "keywords"
event = "UserPromptSubmit"
command = ["python3", "/home/dana/.local/share/harness/hooks/keyword-detector.py"]
timeout = 5
on_failure = "continue"
"#,
    // README.md, "Using it".
    r#"# ~/.config/harness/config.toml
[[hooks]]
name = "no-force-push"        # required; unique; 1–32 of a-z, 0-9, "-", "_"
event = "PreToolUse"          # or "UserPromptSubmit"
tools = ["bash", "exec"]      # PreToolUse only; omitted = every tool
command = ["/home/dana/.local/share/harness/hooks/no-force-push.wasm"]   # argv; no shell
timeout = 10                  # whole seconds, 1–600; default 30
sandbox = true                # default true (argv hooks: run in the box)
on_failure = "block"          # or "continue"

[sandbox]
writable = ["~/scratch"]      # extra folders the agent's commands may write
hide = ["~/.ssh", "~/.aws"]   # default: ~/.ssh ~/.aws ~/.gnupg ~/.config/gcloud ~/.docker ~/.kube ~/.netrc

[wasm]
memory_limit_mib = 64
# fuel_per_second = …         # see "WASM hooks"
# cache_dir = "~/.cache/hookhost"
"#,
    // A Claude Code settings block pasted in by mistake (matcher, type).
    r#"model = "opus"
[[hooks]]
name = "cc-port"
event = "PreToolUse"
matcher = "Bash"
type = "command"
command = "jq -r .tool_input.command"
"#,
];

/// A TOML value as text: a string is quoted and escaped by the toml crate.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn toml_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| toml_string(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A valid `[[hooks]]` table, as the generator means it.
#[derive(Debug, Clone)]
struct HookSpec {
    name: String,
    event: Event,
    tools: Option<Vec<String>>,
    command: Vec<String>,
    timeout: Option<u64>,
    sandbox: Option<bool>,
    on_failure: Option<OnFailure>,
}

impl HookSpec {
    fn render(&self) -> String {
        let mut out = format!(
            "[[hooks]]\nname = {}\nevent = {}\ncommand = {}\n",
            toml_string(&self.name),
            toml_string(self.event.as_str()),
            toml_list(&self.command)
        );
        if let Some(tools) = &self.tools {
            out += &format!("tools = {}\n", toml_list(tools));
        }
        if let Some(t) = self.timeout {
            out += &format!("timeout = {t}\n");
        }
        if let Some(s) = self.sandbox {
            out += &format!("sandbox = {s}\n");
        }
        if let Some(f) = self.on_failure {
            let f = if f == OnFailure::Block {
                "block"
            } else {
                "continue"
            };
            out += &format!("on_failure = \"{f}\"\n");
        }
        out
    }

    fn expected(&self) -> HookDef {
        HookDef {
            name: self.name.clone(),
            event: self.event,
            command: self.command.clone(),
            tools: self.tools.clone().map(Into::into),
            timeout: self.timeout.unwrap_or(30),
            sandbox: self.sandbox.unwrap_or(true),
            on_failure: self.on_failure.unwrap_or(OnFailure::Block),
            envelope: None,
        }
    }
}

pub(super) const TOOL_NAMES: &[&str] = &[
    "bash",
    "exec",
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "search",
    "skill",
    "agent",
    "script",
    "mcp",
    "mcp_schema", // harness's
    "Bash",
    "Edit",
    "Write",
    "Task",
    "MultiEdit",
    "mcp__github__create_issue",
    "run_shell_command",
    "apply_patch",
    "Shell",
    "", // other agents'
];

const ARGV_SEEDS: &[&[&str]] = &[
    &["/home/dana/.local/share/harness/hooks/no-force-push.sh"],
    &[
        "python3",
        "/home/dana/.local/share/harness/hooks/keyword-detector.py",
    ],
    &[
        "/home/dana/.local/share/harness/hooks/no-force-push.wasm",
        "--strict",
    ],
    &[
        "sh",
        "-c",
        "jq -r .tool_input.command | grep -q 'push -f' && exit 2",
    ],
    &[
        "/usr/bin/env",
        "node",
        "--rules=hooks/r.yaml",
        "--header=Content-Type:application/json",
    ],
];

fn valid_hook(index: usize) -> impl Strategy<Value = HookSpec> {
    let name = "[a-z0-9_-]{1,28}".prop_map(move |n| format!("{n}{index}"));
    let command = prop_oneof![
        select(ARGV_SEEDS).prop_map(|a| a.iter().map(|s| s.to_string()).collect()),
        // A NUL can be no program argument: a load error, not a valid config.
        (
            text(40).prop_filter("command[0] is not empty and has no NUL", |s| {
                !s.is_empty() && !s.contains('\0')
            }),
            prop::collection::vec(text(20).prop_filter("no NUL", |s| !s.contains('\0')), 0..4)
        )
            .prop_map(|(first, rest)| std::iter::once(first).chain(rest).collect()),
    ];
    // `tools = []` would never run: a load error, not a valid config.
    let tools = prop::option::of(prop::collection::vec(
        select(TOOL_NAMES).prop_map(String::from),
        1..4,
    ));
    (
        name,
        any::<bool>(),
        tools,
        command,
        prop::option::of(1u64..=600),
        prop::option::of(any::<bool>()),
        prop::option::of(prop_oneof![
            Just(OnFailure::Block),
            Just(OnFailure::Continue)
        ]),
    )
        .prop_map(
            |(name, pre, tools, command, timeout, sandbox, on_failure)| HookSpec {
                name,
                event: if pre {
                    Event::PreToolUse
                } else {
                    Event::UserPromptSubmit
                },
                tools: if pre { tools } else { None },
                command,
                timeout,
                sandbox,
                on_failure,
            },
        )
}

fn valid_config() -> impl Strategy<Value = Vec<HookSpec>> {
    (0usize..5).prop_flat_map(|n| (0..n).map(valid_hook).collect::<Vec<_>>())
}

/// One `key = value` line of a `[[hooks]]` table: right, wrong or unknown.
fn hook_line() -> impl Strategy<Value = String> {
    let values = |key: &'static str, values: &'static [&'static str]| {
        select(values).prop_map(move |v| format!("{key} = {v}"))
    };
    prop_oneof![
        values(
            "name",
            &[
                "\"no-force-push\"",
                "\"keywords\"",
                "\"\"",
                "\"Upper\"",
                "\"a b\"",
                "\"ü\"",
                "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
                "5",
                "true",
                "[]",
                "{}",
                "'lit'",
                "\"\"\"multi\nline\"\"\""
            ]
        ),
        "[a-z0-9_-]{0,40}".prop_map(|n| format!("name = {}", toml_string(&n))),
        values(
            "event",
            &[
                "\"PreToolUse\"",
                "\"UserPromptSubmit\"",
                "\"PostToolUse\"",
                "\"pretooluse\"",
                "\"BeforeTool\"",
                "\"\"",
                "1",
                "[\"PreToolUse\"]"
            ]
        ),
        values(
            "tools",
            &[
                "[\"bash\"]",
                "[\"bash\", \"exec\"]",
                "[\"Bash\"]",
                "[]",
                "\"bash\"",
                "[1]",
                "[\"mcp\"]",
                "[[\"bash\"]]",
                "{bash = true}",
                "[\"mcp__github__create_issue\"]"
            ]
        ),
        values(
            "command",
            &[
                "[\"/bin/true\"]",
                "[]",
                "[\"\"]",
                "\"sh -c x\"",
                "[\"sh\", \"-c\", \"…\"]",
                "[1, 2]",
                "[\"/x.wasm\", \"--flag\"]",
                "[[]]",
                "[\"\", \"x\"]",
                "[\"python3\", \"/home/dana/.local/share/harness/hooks/keyword-detector.py\"]"
            ]
        ),
        values(
            "timeout",
            &[
                "0",
                "1",
                "10",
                "600",
                "601",
                "-1",
                "9223372036854775807",
                "-9223372036854775808",
                "1.5",
                "\"10\"",
                "true",
                "inf",
                "nan",
                "1e3"
            ]
        ),
        values("sandbox", &["true", "false", "\"true\"", "1", "[]"]),
        values(
            "on_failure",
            &[
                "\"block\"",
                "\"continue\"",
                "\"Block\"",
                "\"fail\"",
                "1",
                "\"\""
            ]
        ),
        values("matcher", &["\"Bash\"", "\"*\"", "\"\""]),
        values("type", &["\"command\""]),
        values("if", &["\"x\""]),
        ("[a-z_]{1,12}", text(16)).prop_map(|(k, v)| format!("{k} = {}", toml_string(&v))),
    ]
}

/// A config of hooks with right, wrong and unknown keys, `[sandbox]`, `[wasm]` and the
/// embedder's own keys around them.
fn messy_config() -> impl Strategy<Value = String> {
    let table = prop::collection::vec(hook_line(), 0..9)
        .prop_map(|lines| format!("[[hooks]]\n{}\n", lines.join("\n")));
    let top = select(
        &[
            "",
            "model = \"gpt-5\"\n",
            "hooks = 5\n",
            "hooks = []\n",
            "hooks = [1, \"x\"]\n",
            "hooks = [{}]\n",
            "hooks = [{name = \"inline\", event = \"PreToolUse\", command = [\"/bin/true\"]}]\n",
            "sandbox = 5\n",
            "wasm = \"x\"\n",
        ][..],
    );
    let sandbox = select(
        &[
            "",
            "[sandbox]\nwritable = [\"~/scratch\"]\nhide = [\"~/.ssh\", \"~/.aws\"]\n",
            "[sandbox]\nwritable = \"~/scratch\"\n",
            "[sandbox]\nhide = [1]\nnetwork = true\n",
            "[sandbox]\nwritable = []\nhide = []\n",
        ][..],
    );
    let wasm = select(
        &[
            "",
            "[wasm]\nmemory_limit_mib = 64\nfuel_per_second = 10000000000\ncache_dir = \"~/.cache/hookhost\"\n",
            "[wasm]\nmemory_limit_mib = 0\n",
            "[wasm]\nmemory_limit_mib = -1\nfuel_per_second = \"fast\"\ncache_dir = 5\n",
            "[wasm]\nthreads = 4\n",
        ][..],
    );
    let other = select(
        &[
            "",
            "[mcp_servers.github]\ncommand = \"gh\"\n",
            "[hooks.x]\n",
        ][..],
    );
    (
        top,
        prop::collection::vec(table, 0..4),
        sandbox,
        wasm,
        other,
    )
        .prop_map(|(top, tables, sandbox, wasm, other)| {
            format!("{top}{}{sandbox}{wasm}{other}", tables.concat())
        })
}

/// Whether `message` names what it is about: a key of a hook, a section or the hooks.
fn names_a_field(message: &str) -> bool {
    [
        "name",
        "event",
        "tools",
        "command",
        "timeout",
        "sandbox",
        "on_failure",
        "key",
        "[wasm]",
        "[sandbox]",
        "hooks",
        "hook",
    ]
    .iter()
    .any(|field| message.contains(field))
}

/// What every answer of the config loader must satisfy, for the text it was given.
fn check_config_result(
    text: &str,
    result: &Result<Config, ConfigError>,
) -> Result<(), TestCaseError> {
    let path = CONFIG_PATH;
    match result {
        Ok(config) => {
            let mut names = HashSet::new();
            for h in &config.hooks {
                prop_assert!(hookhost::config::is_valid_name(&h.name), "{h:?}");
                prop_assert!(names.insert(h.name.clone()), "duplicate name {}", h.name);
                prop_assert!((1..=600).contains(&h.timeout), "{h:?}");
                prop_assert!(h.command.first().is_some_and(|c| !c.is_empty()), "{h:?}");
                if h.event == Event::UserPromptSubmit {
                    prop_assert!(h.tools.is_none(), "{h:?}");
                }
            }
            for w in &config.warnings {
                prop_assert!(w.starts_with("⚠ hook "), "{w}");
            }
        }
        Err(err) => {
            let message = err.to_string();
            prop_assert!(!message.trim().is_empty());
            match err {
                ConfigError::Malformed { line, column, .. } => {
                    let first = message.lines().next().unwrap_or_default();
                    prop_assert!(
                        first.starts_with(&format!("{path}: malformed TOML at line ")),
                        "{message}"
                    );
                    prop_assert!(*line >= 1 && *line <= text.split('\n').count(), "{message}");
                    prop_assert!(*column >= 1, "{message}");
                }
                ConfigError::Invalid { problems, .. } => {
                    prop_assert!(!problems.is_empty());
                    for line in message.lines() {
                        prop_assert!(line.starts_with(&format!("{path}: ")), "{line}");
                    }
                    for p in problems {
                        prop_assert!(!p.message.trim().is_empty(), "{p:?}");
                        prop_assert!(names_a_field(&p.message), "names no field: {p:?}");
                        if let Some(item) = &p.item {
                            prop_assert!(item.starts_with("hook "), "{p:?}");
                        }
                    }
                    // Bounded: each problem is a short sentence that may quote one piece
                    // of the input (a name, a key) and names its hook (64 characters).
                    prop_assert!(
                        problems.len() <= text.len() + 3,
                        "{} problems",
                        problems.len()
                    );
                    let limit = problems.len() * (400 + path.len()) + 4 * text.len();
                    prop_assert!(message.len() <= limit, "{} > {limit}", message.len());
                }
                ConfigError::Read { .. } => prop_assert!(false, "parse cannot fail to read"),
            }
        }
    }
    Ok(())
}

fn parse_config(text: String) -> (String, Result<Config, ConfigError>) {
    bounded("Config::parse", move || {
        let result = Config::parse(Path::new(CONFIG_PATH), &text);
        (text, result)
    })
}

proptest! {
    #![proptest_config(config(300))]

    /// A generated valid config is accepted and read exactly as written, defaults
    /// applied; an unknown tool name is a warning, not an error.
    #[test]
    fn config_valid_configs_are_read_as_written(specs in valid_config()) {
        let text: String = specs.iter().map(HookSpec::render).collect();
        let (text, result) = parse_config(text);
        check_config_result(&text, &result)?;
        let config = match result {
            Ok(config) => config,
            Err(e) => return Err(TestCaseError::fail(format!("rejected:\n{text}\n{e}"))),
        };
        let expected: Vec<HookDef> = specs.iter().map(HookSpec::expected).collect();
        prop_assert_eq!(&config.hooks, &expected);
        let unknown = specs
            .iter()
            .flat_map(|s| s.tools.iter().flatten())
            .filter(|t| !hookhost::config::KNOWN_TOOLS.contains(&t.as_str()))
            .count();
        prop_assert_eq!(config.warnings.len(), unknown);
    }

    /// Hooks with right, wrong and unknown keys: an answer, never a panic; a rejection
    /// names the file and, for each problem, the hook and the field.
    #[test]
    fn config_messy_configs_are_answered_clearly(text in messy_config()) {
        let (text, result) = parse_config(text);
        check_config_result(&text, &result)?;
    }

    /// The spec's and the README's configs, mutated byte by byte and loaded from a file
    /// (so bytes that are not UTF-8 go through the loader's own decoding).
    #[test]
    fn config_mutated_files_load_or_fail_clearly(
        seed in prop_oneof![select(CONFIG_SEEDS).prop_map(String::from), messy_config()],
        ms in mutations(8),
    ) {
        let bytes = mutate(seed.into_bytes(), &ms);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, &bytes).expect("write the config");
        let loaded = {
            let path = path.clone();
            bounded("Config::load", move || Config::load(&path, true))
        };
        // The loader reads lossily; the same text parsed under the spec's path must
        // give the same answer, and that answer must be a clear one.
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (text, parsed) = parse_config(text);
        check_config_result(&text, &parsed)?;
        match (&loaded, &parsed) {
            (Ok(a), Ok(b)) => prop_assert_eq!(&a.hooks, &b.hooks),
            (Err(a), Err(b)) => {
                let a = a.to_string();
                prop_assert!(a.starts_with(&path.display().to_string()), "{a}");
                prop_assert_eq!(
                    a.replace(&path.display().to_string(), CONFIG_PATH),
                    b.to_string()
                );
            }
            _ => prop_assert!(false, "load and parse disagree: {loaded:?} / {parsed:?}"),
        }
    }
}
