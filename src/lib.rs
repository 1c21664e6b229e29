//! hookhost: a hook host for AI coding agents.
//!
//! The agent (the "embedder") calls hookhost before each tool call (`PreToolUse`) and
//! when a prompt is submitted (`UserPromptSubmit`). hookhost loads the user's `[[hooks]]`,
//! guards their paths at start, runs each hook with one line of JSON on stdin through an
//! [`executor::Executor`] (argv on the host or in the OS's box, or WASM), reads the
//! answers and turns them into one verdict.
//!
//! # Where to start
//!
//! [`Session`] is the library API: [`Session::start`] with [`SessionOptions`] (every
//! default stated once), then [`Session::pre_tool_use`], [`Session::prompt`] and
//! [`Session::end_turn`]; each gate gives a [`Verdict`]. `examples/embed.rs` starts a
//! session, gates calls and a prompt, cancels a running hook and ends the turn using only
//! the names re-exported here (`cargo run --example embed`). The `hookhost` binary's
//! command line (`src/cli/`, binary only) is one front end over it; [`serve`] (JSON lines
//! for an embedder in another language), [`eval`] (hook test cases) and [`bridge`] (the
//! agents people already use: Claude Code, Codex, Gemini CLI, Cursor, Copilot CLI) are the
//! others, siblings that never import one another.
//!
//! # The map
//!
//! | concern | modules |
//! |---|---|
//! | a session, start to verdict | [`session`] (start pipeline, options, banner, the box for `hookhost box`), [`dispatch`] (a gate's hooks in order; verdicts, messages, warnings) |
//! | the user's config | [`config`] (`[[hooks]]`, `[sandbox]`, every load error), [`toml_file`] (reading TOML files, problems by item), [`env`](mod@env) (the environment and the user's folders, read once) |
//! | what a hook reads and answers | [`envelope`] (the spec's envelope and Claude Code's shape), [`answer`] (exit status and JSON answers), [`hook_env`] (the environment a hook gets) |
//! | running hooks | [`executor`] (the `Executor` seam; argv, WASM), [`process`] (spawning, process groups, the orphan sweep, hardening), [`sandbox`] (the box's OS-neutral face, hidden homes, the Seatbelt profile) |
//! | refusing what the agent could rewrite | [`guard`] (the start-up path guard), [`paths`] (lexical paths, link walking, PATH lookup), [`access`] (why a path cannot be used) |
//! | what happened | [`record`] (session records: write, read, the hash chain, transcript, replay and the executor that serves it, crash resume), [`doctor`] (is hookhost doing its job on this machine) |
//! | front ends | [`serve`], [`eval`], [`bridge`] (with [`bridge::install`]), [`signals`] (stop signals for long commands), [`escape`] (control characters in text output) |
//! | the operating system | `platform` (crate-private: one module per OS, chosen once, each OS's box included; nothing else names `libc`, `cfg` or `std::os::unix`) |
//!
//! Linux (x86_64 and aarch64: the box's seccomp filter names their syscalls), macOS and
//! Windows; WASM hooks are the sandbox that does not depend on the OS.

pub mod access;
pub mod answer;
pub mod bridge;
pub mod call;
pub mod config;
pub mod dispatch;
pub mod doctor;
pub mod env;
pub mod envelope;
pub mod escape;
pub mod eval;
pub mod executor;
pub mod guard;
pub mod hook_env;
pub mod paths;
pub(crate) mod platform;
pub mod process;
pub mod record;
pub mod replay;
pub mod sandbox;
pub mod serve;
pub mod session;
pub mod signals;
pub mod toml_file;

pub use dispatch::{Outcome, Verdict};
pub use executor::CancellationToken;
pub use process::harden_host_process;
pub use session::{Mode, Session, SessionOptions, StartError};
