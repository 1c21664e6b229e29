//! The real agent CLIs, with hookhost registered as their hook (issue 26, item 7): Claude
//! Code 2.1.332 and Codex CLI 0.171.0 (native binaries), Gemini CLI 0.61.0 (on the node on
//! PATH) and Copilot CLI 1.0.102 (a Node single executable, on its BYOK provider setting),
//! installed by `scripts/agents.sh` into `target/agents/`, each driven
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
//! every agent gets, and each agent's file names them as its tests.

use std::time::Duration;

mod checks;
mod world;

mod claude_code;
mod codex;
mod copilot;
mod gemini;

use world::{World, git};

/// Which agent: how it is configured, run and answered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
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
    /// The start of every request it sends the model (method and path).
    api: &'static str,
    /// The shell and file-write tools it offers the model, which the script calls.
    tools: &'static [&'static str],
}

impl Agent {
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
        }
    }
}

const CLAUDE_CODE: Agent = Agent {
    kind: Kind::ClaudeCode,
    install: "claude-code",
    package: "@anthropic-ai/claude-code",
    version: "2.1.332",
    binary: "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    api: "POST /v1/messages",
    tools: &["Bash", "Write"],
};

const CODEX: Agent = Agent {
    kind: Kind::Codex,
    install: "codex",
    package: "@openai/codex",
    version: "0.171.0",
    binary: "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    api: "POST /v1/responses",
    tools: &["exec_command", "apply_patch"],
};

const GEMINI: Agent = Agent {
    kind: Kind::Gemini,
    install: "gemini",
    package: "@google/gemini-cli",
    version: "0.61.0",
    binary: "node_modules/@google/gemini-cli/bundle/gemini.js",
    api: "POST /v1beta/models/gemini-2.5-flash:",
    tools: &["run_shell_command", "write_file"],
};

const COPILOT: Agent = Agent {
    kind: Kind::Copilot,
    install: "copilot",
    package: "@github/copilot",
    version: "1.0.102",
    binary: "node_modules/@github/copilot-linux-x64/copilot",
    api: "POST /v1/chat/completions",
    tools: &["bash", "create"],
};

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
