//! Property-based tests: generated and mutated bad input for every parser a user, a hook,
//! an agent or a crashed session controls. The config loader ([`Config::load`],
//! [`Config::parse`]), the envelope builder, the answer parser, `serve`'s requests and
//! line reader ([`serve::run`] in process, and the real binary for a few cases), and the
//! session-record reader with what reads its records (transcript, resume plan, replay).
//!
//! Each generator is seeded with real shapes (the spec's and the README's configs, the
//! agents' `tool_input` shapes and answers from `docs/agents.md`, a
//! record the real binary writes) and mixes structured generation with byte-level
//! mutation of those seeds. The properties: no panic, no hang (each case runs on its own
//! thread, or under a tokio timeout, with a generous limit), every rejection a message
//! that names the file, line or field where the API has one, and output bounded by a
//! multiple of the input's size.
//!
//! Cases per property: `PROPTEST_CASES` when set, else each property's default (a few
//! thousand in all, well under a minute in debug). The properties that start the real
//! binary run `PROPTEST_CASES / 50` cases (at least 1). A long run:
//!
//! ```text
//! PROPTEST_CASES=100000 cargo test --release --test it properties::
//! ```
//!
//! A failing case is shrunk and saved to `tests/proptest-regressions/properties.txt`
//! (proptest's place for a module of a test binary rooted at `tests/it/main.rs`), which is
//! committed: proptest replays those cases first on every run.

use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hookhost::answer::{self, Answer, AnswerFailure, REASON_LIMIT};
use hookhost::config::{Config, ConfigError, Event, HookDef, OnFailure};
use hookhost::dispatch::{LoadedHook, Placement};
use hookhost::envelope::{self, SessionInfo};
use hookhost::executor::{BoxFuture, CancellationToken, Executor, ExitStatus, Failure, RawOutput};
use hookhost::record::{self, ResumeFrom, ResumePlan};
use hookhost::serve::{self, Request};
use hookhost::session::Session;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{Config as ProptestConfig, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};

use crate::support::{Scene, hook, sh_hook};

// ---------------------------------------------------------------------------------------
// Cases, hangs, mutations
// ---------------------------------------------------------------------------------------

/// How long one case may run before it counts as a hang: far above any real case (they
/// take milliseconds), so that only a hang reaches it on a slow, shared machine.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// `PROPTEST_CASES` when set, else `default`.
fn cases_or(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Cases for a property that starts the real binary: `PROPTEST_CASES / 50` when set.
fn process_cases_or(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(default, |n| (n / 50).max(1))
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig::with_cases(cases_or(default))
}

/// Runs `work` on its own thread and returns what it returns; a panic in it is a panic
/// here (proptest then shrinks the case), and a run past [`HANG_LIMIT`] is a hang.
fn bounded<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name(format!("bounded {what}"))
        .spawn(move || {
            let _ = done.send(work());
        })
        .expect("spawn a case thread");
    match result.recv_timeout(HANG_LIMIT) {
        Ok(value) => {
            let _ = thread.join();
            value
        }
        Err(RecvTimeoutError::Timeout) => {
            panic!("{what} did not return within {HANG_LIMIT:?}: a hang")
        }
        Err(RecvTimeoutError::Disconnected) => match thread.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => panic!("{what}: the case thread ended without a result"),
        },
    }
}

/// Bytes that matter to JSON and TOML parsers, and to UTF-8 decoding.
const INTERESTING_BYTES: &[u8] = &[
    b'"', b'\'', b'[', b']', b'{', b'}', b'=', b',', b':', b'.', b'\n', b'\r', b'\t', b'\\', b'#',
    b' ', b'0', b'-', b'+', b'e', 0x00, 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff,
];

/// Fragments that matter to the parsers: escapes, lone surrogates, numbers out of
/// range, separators of the other format, Unicode line breaks.
const INTERESTING_TOKENS: &[&str] = &[
    "\\u0000",
    "\\uD800",
    "\\udfff",
    "\\",
    "\"",
    "é",
    "∞",
    "\u{feff}",
    "\u{2028}",
    "1e999",
    "-0",
    "18446744073709551616",
    "-9223372036854775809",
    "null",
    "\"\":\"\",",
    "\r\n",
    "[[hooks]]\n",
    "[sandbox]\n",
    "= ",
    "'''",
    "\"\"\"",
    "nan",
    "inf",
    "1979-05-27T07:32:00Z",
    "{\"id\":1}",
    "\n{\"type\":\"end_turn\"}\n",
];

/// One byte-level mutation of a seed.
#[derive(Debug, Clone)]
enum Mutation {
    /// XOR one bit.
    Flip(Index, u8),
    /// Replace a byte with an interesting one.
    Set(Index, u8),
    /// Insert a fragment.
    Insert(Index, &'static str),
    /// Insert raw bytes.
    InsertBytes(Index, Vec<u8>),
    /// Remove up to N bytes.
    Delete(Index, usize),
    /// Repeat a range of up to N bytes.
    Duplicate(Index, usize),
    /// Open `depth` brackets of one kind (nesting bombs).
    Nest(Index, &'static str, usize),
    /// Cut the text here (a torn write).
    Truncate(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<Index>(), 0u8..8).prop_map(|(i, bit)| Mutation::Flip(i, 1 << bit)),
        4 => (any::<Index>(), select(INTERESTING_BYTES)).prop_map(|(i, b)| Mutation::Set(i, b)),
        3 => (any::<Index>(), select(INTERESTING_TOKENS)).prop_map(|(i, t)| Mutation::Insert(i, t)),
        2 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(i, b)| Mutation::InsertBytes(i, b)),
        3 => (any::<Index>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        2 => (any::<Index>(), 1usize..256).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        1 => (any::<Index>(), select(&["[", "{", "{\"a\":", "[[", "a = [", "a = {b="][..]), 1usize..3000)
            .prop_map(|(i, kind, depth)| Mutation::Nest(i, kind, depth)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
    ]
}

fn mutations(max: usize) -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(), 0..=max)
}

/// Applies `mutations` in order; every index lands inside the bytes as they are then.
fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    // `Index::index` needs a non-empty range; position `len` is a valid insertion point.
    let at = |i: &Index, len: usize| i.index(len + 1);
    for m in mutations {
        let len = bytes.len();
        match m {
            Mutation::Flip(i, bit) if len > 0 => bytes[i.index(len)] ^= bit,
            Mutation::Set(i, b) if len > 0 => bytes[i.index(len)] = *b,
            Mutation::Flip(..) | Mutation::Set(..) => {}
            Mutation::Insert(i, token) => {
                let p = at(i, len);
                bytes.splice(p..p, token.bytes());
            }
            Mutation::InsertBytes(i, raw) => {
                let p = at(i, len);
                bytes.splice(p..p, raw.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let p = at(i, len);
                bytes.drain(p..(p + n).min(len));
            }
            Mutation::Duplicate(i, n) => {
                let p = at(i, len);
                let range: Vec<u8> = bytes[p..(p + n).min(len)].to_vec();
                bytes.splice(p..p, range);
            }
            Mutation::Nest(i, kind, depth) => {
                let p = at(i, len);
                bytes.splice(p..p, kind.repeat(*depth).into_bytes());
            }
            Mutation::Truncate(i) => bytes.truncate(at(i, len)),
        }
    }
    bytes
}

/// Strings: mostly printable, some of any Unicode, some control characters.
fn text(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::string::string_regex(&format!("[ -~]{{0,{max}}}")).expect("regex"),
        2 => proptest::string::string_regex(&format!("\\PC{{0,{max}}}")).expect("regex"),
        1 => prop::collection::vec(any::<char>(), 0..max).prop_map(|c| c.into_iter().collect()),
        1 => prop::collection::vec(prop_oneof![Just('\n'), Just('\r'), Just('\0'), Just('"'),
            Just('\\'), Just('\u{2028}'), Just('\u{7f}'), Just(' '), Just('é')], 0..max)
            .prop_map(|c| c.into_iter().collect()),
    ]
}

// ---------------------------------------------------------------------------------------
// The config loader
// ---------------------------------------------------------------------------------------

const CONFIG_PATH: &str = "/home/dana/.config/harness/config.toml";

/// The spec's and the README's configs, as written there.
const CONFIG_SEEDS: &[&str] = &[
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

const TOOL_NAMES: &[&str] = &[
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

// ---------------------------------------------------------------------------------------
// The envelope builder
// ---------------------------------------------------------------------------------------

const PROJECT: &str = "/home/dana/proj";

/// `tool_input` shapes from the agents' formats (docs/agents.md).
fn tool_input_seeds() -> Vec<Value> {
    vec![
        json!({"command": "git push --force origin main"}),
        json!({"command": "npm test", "description": "Run test suite", "timeout": 120000, "run_in_background": false}),
        json!({"file_path": "/home/dana/proj/src/main.rs", "content": "fn main() {}\n"}),
        json!({"file_path": "/home/dana/proj/src/lib.rs", "old_string": "a", "new_string": "b", "replace_all": true}),
        json!({"file_path": "/home/dana/proj/README.md", "offset": 10, "limit": 200}),
        json!({"pattern": "**/*.rs", "path": "/home/dana/proj"}),
        json!({"pattern": "TODO", "path": "/home/dana/proj/src", "glob": "*.rs", "output_mode": "content", "-i": true, "multiline": false}),
        json!({"url": "https://example.com", "prompt": "summarise"}),
        json!({"query": "rust", "allowed_domains": ["docs.rs"], "blocked_domains": []}),
        json!({"prompt": "review", "description": "d", "subagent_type": "general", "model": "opus"}),
        json!({"server": "github", "tool": "create_issue", "arguments": {"title": "x", "labels": ["bug"]}}),
        json!({"command": "npm install", "working_directory": "/home/dana/proj"}),
        json!({"command": "*** Begin Patch\n*** Update File: /home/dana/proj/a.rs\n@@\n-a\n+b\n*** End Patch"}),
        json!({"toolArgs": "{\"command\":\"rm -rf /\"}"}),
        json!({}),
    ]
}

/// Strings a tool call carries: paths inside and outside the project, and any text.
fn path_like() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(PROJECT.to_string()),
        Just(format!("{PROJECT}/")),
        Just(format!("{PROJECT}//")),
        "[a-z./]{0,20}".prop_map(|s| format!("{PROJECT}/{s}")),
        "[a-z./]{0,20}".prop_map(|s| format!("{PROJECT}//{s}")),
        "[a-z./]{0,20}".prop_map(|s| format!("{PROJECT}2/{s}")),
        "[a-z./]{0,20}".prop_map(|s| format!("see {PROJECT}/{s}")),
        Just("/etc/passwd".to_string()),
        text(24),
    ]
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        path_like().prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let seeds = tool_input_seeds();
    let leaf = prop_oneof![4 => json_leaf(), 1 => select(seeds)];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop_oneof![text(12), path_like()], inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn tool_input() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => select(tool_input_seeds()),
        3 => prop::collection::vec((text(12), json_value()), 0..6)
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
    ]
}

fn session_info() -> impl Strategy<Value = SessionInfo> {
    (
        prop_oneof![Just("01M".to_string()), text(24)],
        prop_oneof![Just(PROJECT.to_string()), text(24)],
        prop_oneof![
            select(
                &[
                    "auto",
                    "manual",
                    "plan",
                    "default",
                    "acceptEdits",
                    "bypassPermissions"
                ][..]
            )
            .prop_map(String::from),
            text(12)
        ],
    )
        .prop_map(|(session_id, cwd, permission_mode)| SessionInfo {
            session_id,
            cwd,
            permission_mode,
        })
}

/// The JSON text size of `value`: what an envelope may grow by (each byte escaped to at
/// most six, `\u00XX`).
fn json_size(value: &Value) -> usize {
    value.to_string().len()
}

/// One line of JSON, `\n`-terminated, with no other newline; parsed back as an object.
fn one_line(bytes: &[u8]) -> Result<Map<String, Value>, TestCaseError> {
    prop_assert_eq!(bytes.last(), Some(&b'\n'));
    prop_assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 1);
    let text = std::str::from_utf8(bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        other => Err(TestCaseError::fail(format!("not an object: {other:?}"))),
    }
}

/// Every string in `value`, depth first.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// `value` with every string replaced by "", to compare shapes.
fn shape(value: &Value) -> Value {
    match value {
        Value::String(_) => Value::String(String::new()),
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(config(400))]

    /// The PreToolUse envelope is one line of JSON with the spec's fields in order, and
    /// says exactly what it was given, whatever strings it carries.
    #[test]
    fn envelope_pre_tool_use_is_one_exact_line(
        session in session_info(),
        tool_name in prop_oneof![select(TOOL_NAMES).prop_map(String::from), text(20)],
        input in tool_input(),
        tool_use_id in prop_oneof![Just("toolu_01ABC".to_string()), text(20)],
    ) {
        let line = {
            let (session, tool_name, input, id) =
                (session.clone(), tool_name.clone(), input.clone(), tool_use_id.clone());
            bounded("envelope::pre_tool_use", move || {
                envelope::pre_tool_use(&session, &tool_name, &input, &id)
            })
        };
        let map = one_line(&line)?;
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        prop_assert_eq!(keys, ["session_id", "hook_event_name", "cwd", "permission_mode",
            "tool_name", "tool_input", "tool_use_id"]);
        prop_assert_eq!(&map["session_id"], &json!(session.session_id));
        prop_assert_eq!(&map["hook_event_name"], &json!("PreToolUse"));
        prop_assert_eq!(&map["cwd"], &json!(session.cwd));
        prop_assert_eq!(&map["permission_mode"], &json!(session.permission_mode));
        prop_assert_eq!(&map["tool_name"], &json!(tool_name));
        // serde_json reads some floats back one ulp off; compare with its own reading.
        let reread: Value = serde_json::from_str(&input.to_string()).expect("reparse");
        prop_assert_eq!(&map["tool_input"], &reread);
        prop_assert_eq!(&map["tool_use_id"], &json!(tool_use_id));
        let given = session.session_id.len() + session.cwd.len() + session.permission_mode.len()
            + tool_name.len() + tool_use_id.len() + json_size(&input);
        prop_assert!(line.len() <= 6 * given + 200, "{} bytes for {given}", line.len());
    }

    /// The prompt envelope: one line, the spec's fields, never a `turn_id`.
    #[test]
    fn envelope_prompt_is_one_exact_line(session in session_info(), prompt in text(400)) {
        let line = {
            let (session, prompt) = (session.clone(), prompt.clone());
            bounded("envelope::prompt", move || envelope::prompt(&session, &prompt))
        };
        let map = one_line(&line)?;
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        prop_assert_eq!(keys, ["session_id", "hook_event_name", "cwd", "permission_mode", "prompt"]);
        prop_assert_eq!(&map["prompt"], &json!(prompt));
        let given = session.session_id.len() + session.cwd.len() + session.permission_mode.len()
            + prompt.len();
        prop_assert!(line.len() <= 6 * given + 200);
    }

    /// In-project paths become relative: only strings spelled from the project change,
    /// normalised lexically, never longer; one that leads out of the project stays
    /// absolute; keys never; and twice is once.
    #[test]
    fn envelope_paths_become_relative_and_only_those(
        input in tool_input(),
        root in select(&[PROJECT, "/home/dana/proj/", "/home/dana/proj//", "/", "/home"][..]),
    ) {
        let mut once = input.clone();
        envelope::relativize_paths(&mut once, Path::new(root));
        prop_assert_eq!(shape(&once), shape(&input));
        let (mut before, mut after) = (Vec::new(), Vec::new());
        strings(&input, &mut before);
        strings(&once, &mut after);
        let bare = root.trim_end_matches('/');
        for (b, a) in before.iter().zip(&after) {
            if a == b {
                continue;
            }
            let inside = !bare.is_empty() && (b == bare || b.starts_with(&format!("{bare}/")));
            prop_assert!(inside, "{b:?} is outside {root} but became {a:?}");
            prop_assert!(!a.is_empty(), "{b:?} became empty");
            prop_assert!(a.len() <= b.len() || a == ".", "{b:?} grew to {a:?}");
            // Normalised lexically (F5): no `.` or `..` left, no doubled slash (a trailing
            // slash is kept).
            let clean = |p: &str| {
                let p = p.strip_suffix('/').unwrap_or(p);
                p.split('/').all(|c| c != "." && c != ".." && !c.is_empty())
            };
            if let Some(outside) = a.strip_prefix('/') {
                // Spelled from the project but leading out of it: absolute, normalised.
                prop_assert!(
                    bare.is_empty() || !a.starts_with(&format!("{bare}/")),
                    "{b:?} became {a:?}, still in the project"
                );
                prop_assert!(outside.is_empty() || clean(outside), "{b:?} became {a:?}");
            } else {
                prop_assert!(a == "." || clean(a), "{b:?} became {a:?}");
            }
        }
        let mut twice = once.clone();
        envelope::relativize_paths(&mut twice, Path::new(root));
        prop_assert_eq!(twice, once);
    }
}

// ---------------------------------------------------------------------------------------
// The answer parser
// ---------------------------------------------------------------------------------------

/// Real answers: Claude Code's forms, and what other agents' hooks print.
const ANSWER_SEEDS: &[&str] = &[
    "",
    "\n",
    r#"{"decision":"block","reason":"force-push is not allowed here"}"#,
    r#"{"decision":"block"}"#,
    r#"{"decision":"approve","reason":"fine"}"#,
    r#"{"decision":"deny","reason":"gemini form"}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"},"systemMessage":"careful"}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}"#,
    r#"{"continue":false,"stopReason":"stop everything"}"#,
    r#"{"continue":true,"suppressOutput":true}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"<skill-suggestion>/ouroboros:seed</skill-suggestion>"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"gemini context"}}"#,
    r#"{"permission":"deny","user_message":"no","agent_message":"no"}"#,
    r#"{"permissionDecision":"deny","permissionDecisionReason":"copilot form"}"#,
    r#"{"continue":false,"user_message":"cursor prompt block"}"#,
    "{\"prompt\":\"ooo seed\"}\n<skill-suggestion>seed</skill-suggestion>\n",
    "Welcome to your login shell\n{\"decision\":\"block\",\"reason\":\"late\"}",
    "use the seed skill\n",
    "{}",
    "[1,2]",
    "\"s\"",
    "{broken",
];

const ANSWER_KEYS: &[&str] = &[
    "decision",
    "reason",
    "continue",
    "stopReason",
    "hookSpecificOutput",
    "systemMessage",
    "suppressOutput",
];
const SPECIFIC_KEYS: &[&str] = &[
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "additionalContext",
    "updatedInput",
];

fn answer_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        select(
            &[
                "block", "approve", "deny", "allow", "ask", "defer", "", "Block"
            ][..]
        )
        .prop_map(Value::from),
        text(30).prop_map(Value::from),
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
    ]
}

/// A Claude-format answer object, its known fields right or mistyped.
fn answer_object() -> impl Strategy<Value = Map<String, Value>> {
    let specific = prop::collection::vec((select(SPECIFIC_KEYS), answer_value()), 0..5)
        .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
    let field = (
        select(ANSWER_KEYS),
        prop_oneof![3 => answer_value(), 2 => specific],
    );
    prop::collection::vec(field, 0..6)
        .prop_map(|kv| kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// What the spec's tables say `map` means (hooks.md, "What the answer means").
fn spec_answer(event: Event, map: &Map<String, Value>) -> Answer {
    fn text<'a>(m: &'a Map<String, Value>, k: &str) -> Result<Option<&'a str>, ()> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(()),
        }
    }
    let not_hook_json = Answer::Failed(AnswerFailure::NotHookJson);
    let (Ok(decision), Ok(why), Ok(stop)) = (
        text(map, "decision"),
        text(map, "reason"),
        text(map, "stopReason"),
    ) else {
        return not_hook_json;
    };
    let go_on = match map.get("continue") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return not_hook_json,
    };
    let specific = match map.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => return not_hook_json,
    };
    if decision == Some("block") {
        return Answer::Block(answer::reason(why.unwrap_or("")));
    }
    if !go_on {
        return Answer::Block(answer::reason(stop.unwrap_or("")));
    }
    let Some(specific) = specific else {
        return Answer::NoObjection;
    };
    match event {
        Event::PreToolUse => match (
            text(specific, "permissionDecision"),
            text(specific, "permissionDecisionReason"),
        ) {
            (Ok(Some("deny")), Ok(why)) => Answer::Block(answer::reason(why.unwrap_or(""))),
            (Ok(_), Ok(_)) => Answer::NoObjection,
            _ => not_hook_json,
        },
        Event::UserPromptSubmit => match text(specific, "additionalContext") {
            Ok(Some(c)) if !c.trim().is_empty() => {
                Answer::Context(c.trim_end().trim_start_matches(['\n', '\r']).to_string())
            }
            Ok(_) => Answer::NoObjection,
            Err(()) => not_hook_json,
        },
    }
}

fn exit_status() -> impl Strategy<Value = ExitStatus> {
    prop_oneof![
        6 => Just(ExitStatus::Code(0)),
        3 => Just(ExitStatus::Code(2)),
        1 => any::<i32>().prop_map(ExitStatus::Code),
        1 => (1i32..65).prop_map(ExitStatus::Signal),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![Just(Event::PreToolUse), Just(Event::UserPromptSubmit)]
}

fn stream() -> impl Strategy<Value = Vec<u8>> {
    let padding = select(&["", " ", "\n", "\r\n", "\t \n"][..]);
    prop_oneof![
        3 => (select(ANSWER_SEEDS), mutations(3)).prop_map(|(s, ms)| mutate(s.as_bytes().to_vec(), &ms)),
        3 => (padding.clone(), answer_object(), padding)
            .prop_map(|(a, map, b)| format!("{a}{}{b}", Value::Object(map)).into_bytes()),
        1 => text(300).prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..300),
        1 => (1usize..6000).prop_map(|n| "é".repeat(n).into_bytes()),
    ]
}

/// What every answer must satisfy, whatever the output.
fn check_answer(event: Event, out: &RawOutput, answer: &Answer) -> Result<(), TestCaseError> {
    match (out.status, answer) {
        (ExitStatus::Code(2), Answer::Block(_)) => {}
        (ExitStatus::Code(2), other) => prop_assert!(false, "exit 2 gave {other:?}"),
        (ExitStatus::Code(0), _) => {}
        (ExitStatus::Code(c), a) => {
            prop_assert_eq!(a, &Answer::Failed(AnswerFailure::ExitedWithCode(c)))
        }
        (ExitStatus::Signal(_), a) => {
            prop_assert_eq!(a, &Answer::Failed(AnswerFailure::KilledBySignal))
        }
    }
    match answer {
        Answer::Block(reason) => {
            prop_assert!(!reason.is_empty());
            prop_assert_eq!(reason.trim(), reason.as_str());
            prop_assert!(reason.chars().count() <= REASON_LIMIT);
        }
        Answer::Context(text) => {
            prop_assert_eq!(event, Event::UserPromptSubmit, "context on PreToolUse");
            prop_assert!(!text.trim().is_empty());
            // Lossy decoding turns one bad byte into three.
            prop_assert!(text.len() <= 3 * out.stdout.len());
        }
        Answer::Failed(kind) => prop_assert!(!kind.to_string().is_empty()),
        Answer::NoObjection => {}
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1000))]

    /// Any output, any exit: an answer the tables allow, never a panic; reasons trimmed
    /// and cut, context only for a prompt, failures named.
    #[test]
    fn answer_any_output_is_read(
        event in event(),
        status in exit_status(),
        stdout in stream(),
        stderr in stream(),
    ) {
        let out = RawOutput { status, stdout, stderr };
        let answer = {
            let out = out.clone();
            bounded("answer::interpret", move || answer::interpret(event, &out))
        };
        check_answer(event, &out, &answer)?;
    }

    /// A Claude-format answer object on exit 0 means what the spec's table says.
    #[test]
    fn answer_objects_mean_what_the_spec_says(
        event in event(),
        map in answer_object(),
        pad in select(&["", " ", "\n", "\r\n"][..]),
    ) {
        let out = RawOutput {
            status: ExitStatus::Code(0),
            stdout: format!("{pad}{}{pad}", Value::Object(map.clone())).into_bytes(),
            stderr: Vec::new(),
        };
        let answer = answer::interpret(event, &out);
        check_answer(event, &out, &answer)?;
        prop_assert_eq!(answer, spec_answer(event, &map));
    }
}

// ---------------------------------------------------------------------------------------
// `serve`: request lines, and the line reader through `serve::run`
// ---------------------------------------------------------------------------------------

/// Request lines as README's `serve` section shows them, and their near misses.
const REQUEST_SEEDS: &[&str] = &[
    r#"{"id":1,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"git push -f"},"tool_use_id":"toolu_1"}"#,
    r#"{"id":"p","type":"user_prompt_submit","prompt":"ooo seed my requirements"}"#,
    r#"{"id":2,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"sleep-forever"}}"#,
    r#"{"type":"cancel","id":"never-sent"}"#,
    r#"{"type":"end_turn"}"#,
    r#"{"id":3,"type":"pre_tool_use","tool_name":"bash","tool_input":[]}"#,
    r#"{"id":{},"type":"pre_tool_use"}"#,
    r#"{"id":4,"type":"bogus"}"#,
    r#"{"type":"user_prompt_submit","prompt":"no id"}"#,
    r#"{"id":1.5e300,"type":"user_prompt_submit","prompt":"float id"}"#,
    r#"{"id":-0,"type":"user_prompt_submit","prompt":"negative zero"}"#,
    r#"{"id":"x","type":"pre_tool_use","tool_name":5,"tool_input":{}}"#,
    r#"{"id":"y","type":"pre_tool_use","tool_name":"bash","tool_input":{},"tool_use_id":7}"#,
    r#"{"id":"z","type":"pre_tool_use","tool_name":"bash","tool_input":null}"#,
    "[1,2,3]",
    "not json at all",
    "",
    "   \t",
    "\r",
];

/// One request, built from parts that may be missing or of the wrong type.
fn request_line() -> impl Strategy<Value = Vec<u8>> {
    let id = prop_oneof![
        any::<u32>().prop_map(Value::from),
        "[a-z0-9]{1,6}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!({})),
        Just(json!([1])),
        Just(json!(true)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
    ];
    let kind = prop_oneof![
        6 => select(&["pre_tool_use", "user_prompt_submit", "cancel", "end_turn"][..]).prop_map(Value::from),
        1 => text(12).prop_map(Value::from),
        1 => Just(json!(5)),
    ];
    let field = prop_oneof![
        (
            Just("tool_name"),
            prop_oneof![select(TOOL_NAMES).prop_map(Value::from), answer_value()]
        ),
        (
            Just("tool_input"),
            prop_oneof![tool_input(), answer_value()]
        ),
        (
            Just("tool_use_id"),
            prop_oneof![text(16).prop_map(Value::from), answer_value()]
        ),
        (
            Just("prompt"),
            prop_oneof![text(200).prop_map(Value::from), answer_value()]
        ),
        (Just("extra"), json_value()),
    ];
    (
        prop::option::of(id),
        prop::option::of(kind),
        prop::collection::vec(field, 0..5),
    )
        .prop_map(|(id, kind, fields)| {
            let mut map = Map::new();
            if let Some(id) = id {
                map.insert("id".into(), id);
            }
            if let Some(kind) = kind {
                map.insert("type".into(), kind);
            }
            for (k, v) in fields {
                map.insert(k.to_string(), v);
            }
            Value::Object(map).to_string().into_bytes()
        })
}

/// A whole input: lines of every kind, joined, some ending in `\r\n`, then mutated (which
/// may join, split or tear lines).
fn serve_input(max_lines: usize) -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        3 => request_line(),
        2 => select(REQUEST_SEEDS).prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..64)
            .prop_map(|b| b.into_iter().filter(|&b| b != b'\n').collect()),
        1 => (1usize..20000).prop_map(|n| "[".repeat(n).into_bytes()),
        1 => (1usize..200_000).prop_map(|n| format!("{{\"id\":\"long\",\"type\":\"user_prompt_submit\",\"prompt\":\"{}\"}}", "a".repeat(n)).into_bytes()),
    ];
    let ending = select(&["\n", "\n", "\n", "\r\n", ""][..]);
    (
        prop::collection::vec((line, ending), 0..max_lines),
        mutations(4),
    )
        .prop_map(|(lines, ms)| {
            let mut bytes = Vec::new();
            for (line, ending) in lines {
                bytes.extend_from_slice(&line);
                // An empty ending joins two lines; only the last may lack a newline.
                bytes.extend_from_slice(if ending.is_empty() {
                    b" "
                } else {
                    ending.as_bytes()
                });
            }
            mutate(bytes, &ms)
        })
}

/// What the server owes for `input`: `(min, max)` lines after `ready` and the ids any
/// of them may carry. Each request or bad line gets one line; `end_turn` none; a
/// `cancel` one (an error) unless it found its request running.
fn owed(input: &[u8]) -> (usize, usize, HashSet<String>) {
    let (mut min, mut extra, mut ids) = (0, 0, HashSet::new());
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match Request::parse(line) {
            Ok(Request::EndTurn) => {}
            Ok(Request::Cancel { id }) => {
                extra += 1;
                ids.insert(id_key(&id_value(&id)));
            }
            Ok(Request::PreToolUse { id, .. } | Request::Prompt { id, .. }) => {
                min += 1;
                ids.insert(id_key(&id_value(&id)));
            }
            Err(bad) => {
                min += 1;
                if let Some(id) = bad.id {
                    ids.insert(id_key(&id_value(&id)));
                }
            }
        }
    }
    (min, min + extra, ids)
}

/// A request id read as a JSON value.
fn id_value(id: &hookhost::serve::Id) -> Value {
    serde_json::from_str(id.as_json()).unwrap_or(Value::Null)
}

/// An id as the test compares it: serde_json (without its `float_roundtrip` feature)
/// may read a float one ulp off, so floats compare on their first ten digits.
fn id_key(id: &Value) -> String {
    match id.as_f64() {
        Some(f) if id.is_f64() => format!("{f:.10e}"),
        _ => id.to_string(),
    }
}

/// Checks serve's output for `input`: `ready` first, then only whole JSON lines, each
/// an answer or an error with a message, as many as owed, ids echoed from the input.
fn check_serve_output(input: &[u8], output: &[u8]) -> Result<(), TestCaseError> {
    let text = std::str::from_utf8(output).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(text.is_empty() || text.ends_with('\n'), "a torn last line");
    let mut lines = text.lines();
    let ready: Value = serde_json::from_str(lines.next().unwrap_or_default())
        .map_err(|e| TestCaseError::fail(format!("no ready line: {e}")))?;
    prop_assert_eq!(&ready["type"], &json!("ready"));
    let (min, max, ids) = owed(input);
    let mut count = 0;
    for line in lines {
        count += 1;
        let v: Value = serde_json::from_str(line)
            .map_err(|e| TestCaseError::fail(format!("not JSON ({e}): {line}")))?;
        if v["type"] == "error" {
            let error = v["error"].as_str().unwrap_or_default();
            prop_assert!(!error.trim().is_empty(), "{line}");
        } else {
            prop_assert!(
                ["allow", "block", "interrupted"].contains(&v["outcome"].as_str().unwrap_or("")),
                "{line}"
            );
            prop_assert!(v.get("id").is_some(), "an answer without an id: {line}");
        }
        if let Some(id) = v.get("id") {
            prop_assert!(ids.contains(&id_key(id)), "id {id} was never sent: {line}");
        }
    }
    prop_assert!(
        min <= count && count <= max,
        "{count} lines for {min}..={max} owed"
    );
    // Bounded: a line per input line, each quoting at most its id and a short message.
    let input_lines = input.iter().filter(|&&b| b == b'\n').count() + 1;
    prop_assert!(
        output.len() <= 2 * input.len() + 1024 * input_lines,
        "{} bytes out for {} in",
        output.len(),
        input.len()
    );
    Ok(())
}

/// A hook answering in process, as a real one would: it blocks a force-push, adds
/// context to a prompt, and otherwise has no objection.
struct InProcessHook;

impl Executor for InProcessHook {
    fn run<'a>(
        &'a self,
        stdin: Arc<[u8]>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<RawOutput, Failure>> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(Failure::Interrupted);
            }
            let input = String::from_utf8_lossy(&stdin);
            let (code, stdout, stderr) = if input.contains("--force") || input.contains("push -f") {
                (2, "", "force-push is not allowed here")
            } else if input.contains("\"UserPromptSubmit\"") {
                (0, "use the seed skill", "")
            } else {
                (0, "", "")
            };
            Ok(RawOutput {
                status: ExitStatus::Code(code),
                stdout: stdout.into(),
                stderr: stderr.into(),
            })
        })
    }
}

fn in_process_host() -> Session {
    let def = |name: &str, event| HookDef {
        name: name.into(),
        event,
        command: vec![format!("/hooks/{name}")],
        tools: None,
        timeout: 10,
        sandbox: false,
        on_failure: OnFailure::Block,
        envelope: None,
    };
    let hooks = [
        def("no-force-push", Event::PreToolUse),
        def("keywords", Event::UserPromptSubmit),
    ]
    .into_iter()
    .map(|def| LoadedHook {
        def,
        placement: Placement::Host,
        executor: Arc::new(InProcessHook),
    })
    .collect();
    let session = SessionInfo {
        session_id: "S1".into(),
        cwd: PROJECT.into(),
        permission_mode: "auto".into(),
    };
    Session::with_hooks(session, hooks)
}

/// Serves `input` with [`serve::run`] in process and returns everything it wrote.
fn serve_in_process(input: Vec<u8>) -> Vec<u8> {
    bounded("serve::run", move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            use tokio::io::AsyncReadExt;
            let (server_out, mut client_in) = tokio::io::duplex(64 * 1024);
            let session = Arc::new(in_process_host());
            let serving = serve::run(session, &input[..], server_out, CancellationToken::new());
            let mut output = Vec::new();
            let reading = client_in.read_to_end(&mut output);
            let (ended, read) =
                tokio::time::timeout(HANG_LIMIT, async { tokio::join!(serving, reading) })
                    .await
                    .expect("serve::run hung");
            read.expect("read serve's output");
            assert_eq!(ended, serve::Ended::EndOfInput);
            output
        })
    })
}

proptest! {
    #![proptest_config(config(300))]

    /// Any line: a request or an error with a message (and the id when it could be
    /// read), never a panic.
    #[test]
    fn serve_request_lines_parse_or_say_why(
        line in prop_oneof![request_line(), select(REQUEST_SEEDS).prop_map(|s| s.as_bytes().to_vec())],
        ms in mutations(4),
    ) {
        let line = mutate(line, &ms);
        let parsed = {
            let line = line.clone();
            bounded("Request::parse", move || Request::parse(&line))
        };
        match parsed {
            Ok(Request::PreToolUse { tool_input, .. }) => prop_assert!(tool_input.is_object()),
            Ok(_) => {}
            Err(bad) => {
                prop_assert!(!bad.message.trim().is_empty());
                prop_assert!(bad.message.len() <= 512 + line.len(), "{}", bad.message);
                if let Some(id) = &bad.id {
                    let id = id_value(id);
                    prop_assert!(id.is_number() || id.is_string());
                    let sent = serde_json::from_slice::<Value>(&line)
                        .ok()
                        .and_then(|v| v.get("id").cloned());
                    prop_assert_eq!(Some(&id), sent.as_ref());
                }
            }
        }
    }

    /// A whole input through `serve::run`: every line answered once (or skipped, for a
    /// blank line and `end_turn`), whole JSON lines out, ids echoed, end of input ends it.
    #[test]
    fn serve_run_answers_every_line(input in serve_input(12)) {
        let output = serve_in_process(input.clone());
        check_serve_output(&input, &output)?;
    }
}

/// A scene whose config has a real blocking hook and a real prompt hook.
fn serve_scene() -> Scene {
    let scene = Scene::new();
    let guard = scene.script(
        "no-force-push.sh",
        "case \"$(cat)\" in *--force*|*'push -f'*) echo 'force-push is not allowed here' >&2; exit 2 ;; esac\nexit 0",
    );
    let keywords = scene.script("keywords.sh", "cat >/dev/null\necho 'use the seed skill'");
    scene.write_config(
        &[
            sh_hook("no-force-push", &guard, "tools = [\"bash\", \"exec\"]"),
            hook(
                "keywords",
                "UserPromptSubmit",
                &["/bin/sh", keywords.to_str().unwrap()],
                "",
            ),
        ]
        .concat(),
    );
    scene
}

/// The real binary, fed generated input on stdin: the same promises, exit status 0.
#[test]
fn serve_binary_answers_generated_input() {
    let scene = serve_scene();
    let mut runner = TestRunner::new(ProptestConfig::with_cases(process_cases_or(8)));
    let result = runner.run(&serve_input(16), |input| {
        let mut child = scene
            .hookhost()
            .args(["--no-sandbox", "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hookhost serve");
        let mut stdin = child.stdin.take().expect("stdin");
        let feeding = input.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            // The server may stop reading early only by a bug; a broken pipe shows that.
            let written = stdin.write_all(&feeding);
            drop(stdin);
            written
        });
        let output = bounded("hookhost serve", move || child.wait_with_output());
        let output = output.map_err(|e| TestCaseError::fail(e.to_string()))?;
        writer
            .join()
            .expect("the writer thread")
            .map_err(|e| TestCaseError::fail(format!("feeding stdin: {e}")))?;
        prop_assert_eq!(
            output.status.code(),
            Some(0),
            "stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        check_serve_output(&input, &output.stdout)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// ---------------------------------------------------------------------------------------
// The record reader, and what reads records
// ---------------------------------------------------------------------------------------

/// A real record, written once by the binary: a `serve` session (a block, a failure
/// that continued, context, a cut output, stdout that is not UTF-8, a timeout, a new
/// turn), then a resume whose config changed a hook (a skipped run).
fn real_record() -> &'static (Scene, String) {
    static RECORD: OnceLock<(Scene, String)> = OnceLock::new();
    RECORD.get_or_init(|| {
        let scene = Scene::new();
        let guard = scene.script(
            "no-force-push.sh",
            "case \"$(cat)\" in *--force*) echo 'force-push is not allowed here' >&2; exit 2 ;; esac\nexit 0",
        );
        let flaky = scene.script("flaky.sh", "cat >/dev/null; exit 1");
        let binary = scene.script("binary.sh", "cat >/dev/null; printf '\\377\\376bin'; exit 0");
        let slow = scene.script("slow.sh", "exec sleep 30");
        let keywords = scene.script("keywords.sh", "cat >/dev/null\necho 'use the seed skill'");
        let big = scene.script("big.sh", "cat >/dev/null\nhead -c 70000 /dev/zero | tr '\\0' x");
        let config = |keywords_timeout: u32| {
            [
                sh_hook("no-force-push", &guard, "tools = [\"bash\", \"exec\"]"),
                sh_hook("flaky", &flaky, "tools = [\"bash\"]\non_failure = \"continue\""),
                sh_hook("binary", &binary, "tools = [\"write_file\"]\non_failure = \"continue\""),
                sh_hook("slow", &slow, "tools = [\"glob\"]\ntimeout = 1\non_failure = \"continue\""),
                hook(
                    "keywords",
                    "UserPromptSubmit",
                    &["/bin/sh", keywords.to_str().unwrap()],
                    &format!("timeout = {keywords_timeout}"),
                ),
                hook("big", "UserPromptSubmit", &["/bin/sh", big.to_str().unwrap()], "on_failure = \"continue\""),
            ]
            .concat()
        };
        scene.write_config(&config(5));
        let log = scene.root.path().join("state/record.jsonl");
        let project = scene.project.display().to_string();
        let requests = [
            json!({"id": 1, "type": "pre_tool_use", "tool_name": "bash", "tool_input": {"command": "ls", "description": "list"}, "tool_use_id": "toolu_1"}),
            json!({"id": 2, "type": "pre_tool_use", "tool_name": "bash", "tool_input": {"command": "git push --force origin main"}}),
            json!({"id": 3, "type": "pre_tool_use", "tool_name": "write_file", "tool_input": {"file_path": format!("{project}/src/é.rs"), "content": "fn main() {}\n"}}),
            json!({"id": 4, "type": "pre_tool_use", "tool_name": "glob", "tool_input": {"pattern": "**/*.rs", "path": project}}),
            json!({"type": "end_turn"}),
            json!({"id": "p", "type": "user_prompt_submit", "prompt": "ooo seed my requirements"}),
        ];
        let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
        let mut child = scene
            .hookhost()
            .args(["--no-sandbox", "--session-id", "S1", "--log"])
            .arg(&log)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hookhost serve");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(input.as_bytes()).expect("write the requests");
        }
        let out = child.wait_with_output().expect("serve ends");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        // The resume: today's keywords hook differs from the recorded one, so it is skipped.
        scene.write_config(&config(6));
        let out = scene
            .hookhost()
            .args(["--no-sandbox", "prompt", "--resume"])
            .arg(&log)
            .arg("hi again")
            .output()
            .expect("run a resumed prompt");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&log).expect("read the record");
        for kind in [
            "session.started", "session.resumed", "hook.started", "effect", "hook.decided",
            "hook.context", "gate.verdict", "turn.ended", "stdout_hex", "stdout_truncated",
            "timed_out", "skipped",
        ] {
            assert!(text.contains(kind), "the record has no {kind}:\n{text}");
        }
        (scene, text)
    })
}

/// A line- or field-level change to a record.
#[derive(Debug, Clone)]
enum RecordMutation {
    /// Remove a line.
    DropLine(Index),
    /// Repeat a line.
    DuplicateLine(Index),
    /// Swap two lines.
    SwapLines(Index, Index),
    /// Remove a field, at any depth.
    DropField(Index, Vec<Index>),
    /// Give a field another value, at any depth.
    SetField(Index, Vec<Index>, Value),
}

fn odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(1e300)),
        Just(json!("")),
        Just(json!("zz")),
        Just(json!("sha256:00")),
        Just(json!([])),
        Just(json!({})),
        Just(json!(true)),
        select(
            &[
                "session.started",
                "session.resumed",
                "hook.started",
                "effect",
                "hook.decided",
                "hook.context",
                "gate.verdict",
                "turn.ended",
                "block",
                "failure_blocked",
                "interrupted",
                "skipped",
                "timed_out",
                "trapped",
                "PreToolUse"
            ][..]
        )
        .prop_map(Value::from),
        text(20).prop_map(Value::from),
    ]
}

fn record_mutation() -> impl Strategy<Value = RecordMutation> {
    let path = prop::collection::vec(any::<Index>(), 1..4);
    prop_oneof![
        any::<Index>().prop_map(RecordMutation::DropLine),
        any::<Index>().prop_map(RecordMutation::DuplicateLine),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| RecordMutation::SwapLines(a, b)),
        (any::<Index>(), path.clone()).prop_map(|(l, p)| RecordMutation::DropField(l, p)),
        (any::<Index>(), path, odd_value()).prop_map(|(l, p, v)| RecordMutation::SetField(l, p, v)),
    ]
}

/// The value at a path of indexes into objects and arrays, stopping at a leaf.
fn field_at<'a>(value: &'a mut Value, path: &[Index]) -> Option<(&'a mut Value, Index)> {
    let (first, rest) = path.split_first()?;
    let len = match value {
        Value::Object(m) => m.len(),
        Value::Array(a) => a.len(),
        _ => return None,
    };
    if len == 0 {
        return None;
    }
    let child_is_container = {
        let child = match value {
            Value::Object(m) => m.values().nth(first.index(len)),
            Value::Array(a) => a.get(first.index(len)),
            _ => None,
        };
        child.is_some_and(|c| c.is_object() || c.is_array())
    };
    if rest.is_empty() || !child_is_container {
        return Some((value, *first));
    }
    let child = match value {
        Value::Object(m) => m.values_mut().nth(first.index(len))?,
        Value::Array(a) => a.get_mut(first.index(len))?,
        _ => return None,
    };
    field_at(child, rest)
}

fn mutate_record(text: &str, mutations: &[RecordMutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for m in mutations {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match m {
            RecordMutation::DropLine(i) => {
                lines.remove(i.index(n));
            }
            RecordMutation::DuplicateLine(i) => {
                let line = lines[i.index(n)].clone();
                lines.insert(i.index(n), line);
            }
            RecordMutation::SwapLines(a, b) => lines.swap(a.index(n), b.index(n)),
            RecordMutation::DropField(i, path) | RecordMutation::SetField(i, path, _) => {
                let line = &mut lines[i.index(n)];
                let Ok(mut value) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                if let Some((parent, at)) = field_at(&mut value, path) {
                    match (parent, m) {
                        (Value::Object(map), RecordMutation::DropField(..)) => {
                            let key = map.keys().nth(at.index(map.len())).cloned();
                            if let Some(key) = key {
                                map.shift_remove(&key);
                            }
                        }
                        (Value::Array(items), RecordMutation::DropField(..)) => {
                            items.remove(at.index(items.len()));
                        }
                        (Value::Object(map), RecordMutation::SetField(_, _, v)) => {
                            let len = map.len();
                            if let Some(slot) = map.values_mut().nth(at.index(len)) {
                                *slot = v.clone();
                            }
                        }
                        (Value::Array(items), RecordMutation::SetField(_, _, v)) => {
                            let len = items.len();
                            items[at.index(len)] = v.clone();
                        }
                        _ => {}
                    }
                }
                *line = value.to_string();
            }
        }
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Reads `bytes` as a record file and runs everything that reads records over it:
/// `log show`'s transcript, the resume plan, and replay.
struct ReadBack {
    reading: record::Reading,
    rows: Vec<String>,
    plan: Result<ResumePlan, String>,
    replay: hookhost::replay::ReplayReport,
}

fn read_back(bytes: Vec<u8>) -> ReadBack {
    bounded("reading a record", move || {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("record.jsonl");
        std::fs::write(&file, &bytes).expect("write the record");
        let reading = record::read_file(&file).expect("read the record");
        let rows = record::transcript::rows(&reading);
        let from = ResumeFrom {
            file: file.clone(),
            clean: false,
        };
        let plan = ResumePlan::new(&from, &reading).map_err(|e| e.to_string());
        if let Ok(plan) = &plan {
            let today = Config::parse(Path::new(CONFIG_PATH), CONFIG_SEEDS[1])
                .map(|c| c.hooks)
                .unwrap_or_default();
            let (kept, skipped, warnings) = plan.apply(&today);
            // One warning per changed hook, and at most one more naming today's hooks
            // the record does not list.
            assert!(
                warnings.len() >= skipped.len() && warnings.len() <= skipped.len() + 1,
                "{} skipped, {warnings:?}",
                skipped.len()
            );
            assert!(kept.len() + skipped.len() == plan.recorded.as_ref().map_or(0, Vec::len));
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let replay = runtime.block_on(async {
            tokio::time::timeout(HANG_LIMIT, hookhost::replay::replay(&reading))
                .await
                .expect("replay hung")
        });
        ReadBack {
            reading,
            rows,
            plan,
            replay,
        }
    })
}

/// What reading any record must give: records and notes for distinct non-blank lines,
/// in order, each note naming its line; messages that say something; bounded output.
fn check_read_back(bytes: &[u8], back: &ReadBack) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.split('\n').collect();
    let non_blank = lines.iter().filter(|l| !l.trim().is_empty()).count();
    let r = &back.reading;
    prop_assert!(r.records.len() + r.notes.len() <= non_blank);
    let mut last = 0;
    for record in &r.records {
        prop_assert!(
            record.line > last && record.line <= lines.len(),
            "line {}",
            record.line
        );
        last = record.line;
    }
    for note in &r.notes {
        let number: Option<usize> = note
            .strip_prefix("line ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok());
        prop_assert!(number.is_some_and(|n| n >= 1 && n <= lines.len()), "{note}");
        prop_assert!(note.ends_with("; ignored"), "{note}");
    }
    let notes: usize = r.notes.iter().map(String::len).sum();
    prop_assert!(
        notes <= 2 * bytes.len() + 200 * lines.len(),
        "{notes} bytes of notes"
    );
    let rows: usize = back.rows.iter().map(String::len).sum();
    prop_assert!(rows <= 4 * bytes.len() + 1000, "{rows} bytes of transcript");
    // A resume refuses a record with no session, or one whose hash chain breaks.
    if let Err(e) = &back.plan {
        prop_assert!(
            e.contains("record.jsonl")
                && (e.contains("no session") || e.contains("was changed after it was written")),
            "{e}"
        );
    }
    let rep = &back.replay;
    prop_assert!(rep.matched <= rep.gates);
    prop_assert_eq!(rep.rows.len(), rep.gates);
    for p in &rep.problems {
        prop_assert!(!p.trim().is_empty());
    }
    Ok(())
}

#[test]
fn record_as_written_reads_back_whole_and_replays() {
    let (_, text) = real_record();
    let back = read_back(text.clone().into_bytes());
    assert!(back.reading.notes.is_empty(), "{:?}", back.reading.notes);
    assert_eq!(back.reading.records.len(), text.lines().count());
    check_read_back(text.as_bytes(), &back).unwrap();
    // Every call and prompt replays; the cut output and the timeout are reported as
    // effects replay cannot serve exactly.
    assert!(back.replay.gates >= 5, "{:?}", back.replay);
}

proptest! {
    #![proptest_config(config(300))]

    /// A real record with lines dropped, repeated, swapped, and fields dropped or given
    /// other values: read with notes, never a panic, and so are its transcript, its
    /// resume plan and its replay.
    #[test]
    fn record_mutated_lines_and_fields_are_tolerated(ms in prop::collection::vec(record_mutation(), 1..8)) {
        let (_, text) = real_record();
        let bytes = mutate_record(text, &ms).into_bytes();
        let back = read_back(bytes.clone());
        check_read_back(&bytes, &back)?;
    }

    /// A real record torn, flipped and spliced byte by byte.
    #[test]
    fn record_mutated_bytes_are_tolerated(ms in prop::collection::vec(mutation(), 1..8)) {
        let (_, text) = real_record();
        let bytes = mutate(text.clone().into_bytes(), &ms);
        let back = read_back(bytes.clone());
        check_read_back(&bytes, &back)?;
    }
}

/// Nesting bombs (dotted keys, table headers, inline tables, arrays) 50,000 deep are
/// malformed TOML with a line and column, not a stack overflow.
#[test]
fn config_deep_nesting_is_malformed_not_a_crash() {
    let n = 50_000;
    for text in [
        format!("a{} = 1\n", ".a".repeat(n)),
        format!("[a{}]\n", ".a".repeat(n)),
        format!("a = {}1{}\n", "{b=".repeat(n), "}".repeat(n)),
        format!("a = {}1{}\n", "[".repeat(n), "]".repeat(n)),
    ] {
        let result = bounded("Config::parse", move || {
            Config::parse(Path::new(CONFIG_PATH), &text).map(|_| ())
        });
        match result {
            Err(ConfigError::Malformed { line: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
    }
}

/// Found by `config_messy_configs_are_answered_clearly`: a name with a line break split
/// its problem over two lines, the second naming no file.
#[test]
fn config_a_name_with_a_line_break_keeps_one_problem_per_line() {
    let text =
        "[[hooks]]\nname = \"\"\"multi\nline\"\"\"\nevent = \"Pre\\nToolUse\"\n\"a\\nb\" = 1\n";
    let err = Config::parse(Path::new(CONFIG_PATH), text).expect_err("a malformed name");
    let message = err.to_string();
    for line in message.lines() {
        assert!(
            line.starts_with(&format!("{CONFIG_PATH}: hook #1: ")),
            "{message}"
        );
    }
    assert!(
        message.contains(r#"the name "multi\nline" is malformed"#),
        "{message}"
    );
}
