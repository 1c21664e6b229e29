//! hookhost: a hook host for AI coding agents.
//!
//! The agent (the "embedder") calls hookhost before each tool call (`PreToolUse`) and
//! when a prompt is submitted (`UserPromptSubmit`). hookhost loads the user's `[[hooks]]`,
//! guards their paths at start, runs each hook with one line of JSON on stdin through an
//! [`Executor`] (argv on the host or in the OS's box, or WASM), reads the
//! answers and turns them into one verdict.
//!
//! # Where to start
//!
//! [`Session`] is the library API: [`Session::start`] with [`SessionOptions`] (every
//! default stated once), then [`Session::pre_tool_use`], [`Session::prompt`] and
//! [`Session::end_turn`]; each gate gives a [`Verdict`]. `examples/embed.rs` starts a
//! session, gates calls and a prompt, cancels a running hook and ends the turn using only
//! the names re-exported here (`cargo run --example embed`): they are the API. The
//! `hookhost` binary's command line (`src/cli/`, binary only) is one front end over it;
//! [`serve`] (JSON lines for an embedder in another language), [`eval`] (hook test cases),
//! [`replay`] and [`bridge`] (the agents people already use: Claude Code, Codex, Gemini
//! CLI, Cursor, Copilot CLI, Qwen Code, Kimi Code, Kiro CLI) are the others, siblings that
//! never import one another.
//!
//! # The map
//!
//! The modules below are public for the binary, the integration tests and the benches
//! only (hidden from the API's documentation; no promise about their shapes); those in
//! plain code are the crate's own.
//!
//! | concern | modules |
//! |---|---|
//! | a session, start to verdict | [`session`] (start pipeline, options, banner, the box for `hookhost box`), [`call`] (the one tool-call type every front end builds, and the tool vocabulary), [`dispatch`] (a gate's hooks in order; the verdict, the run's events, the messages by owner) |
//! | the user's config | [`config`] (`[[hooks]]`, `[sandbox]`, every load error), `toml_file` (reading TOML files, problems by item), `recent` (a thread's last results of what follows from a file's bytes alone: the config's table, the pins, the settings' checks), [`env`](mod@env) (the environment and the user's folders, read once) |
//! | what a hook reads and answers | [`envelope`] (the spec's envelope and Claude Code's shape), [`answer`] (exit status and JSON answers), `hook_env` (the environment a hook gets: name patterns, value checks) |
//! | running hooks | [`executor`] (the `Executor` seam; argv, WASM), [`process`] (spawning, process groups, the orphan sweep, hardening), [`sandbox`] (the box's OS-neutral face, hidden homes, the Seatbelt profile, the memo of the box's trial) |
//! | refusing what the agent could rewrite | [`guard`] (the start-up path guard), `paths` (lexical paths, link walking, PATH lookup), `access` (why a path cannot be used), `file_digests` (the SHA-256 of files this process has learned, by stamp: for the pins and the WASM engine) |
//! | the administrator's policy | [`system`] (the system scope's fixed places and environment; `bridge --system`, `check --system`) |
//! | what happened | [`record`] (session records: the format, effects, write with its head, read, the hash chain, transcript, crash resume), [`doctor`] (is hookhost doing its job on this machine) |
//! | front ends | [`serve`], [`eval`], [`replay`] (a record's gates re-run with every effect served from it), [`bridge`] (with [`bridge::install`]), [`warm`] (a bridge's call handed to the user's running server; [`warm::client`] the bridge's side, which the small `hookhost-client` binary is made of), [`signals`] (stop signals for long commands), [`panics`] (a panic answered as a refusal), [`escape`] (control characters in text output) |
//! | the operating system | `platform` (crate-private: one module per OS, chosen once, each OS's box included; the types both sides name, such as `FolderStyle` and `Stop`, defined there; nothing else names `libc`, `cfg` or `std::os::unix`) |
//!
//! Linux (x86_64 and aarch64: the box's seccomp filter names their syscalls), macOS and
//! Windows; WASM hooks are the sandbox that does not depend on the OS.

// The library's API: what an embedder names (`examples/embed.rs` uses nothing else).
pub use call::{CallerFacts, ToolCall};
pub use config::{ConfigError, HookDef};
pub use dispatch::{ContextBlock, Outcome, Verdict};
pub use executor::{BoxFuture, CancellationToken, Executor, ExitStatus, Failure, RawOutput};
pub use process::harden_host_process;
pub use session::{Mode, Session, SessionOptions, StartError};

// The front ends and the parts they are built of: public for the `hookhost` binary (the
// command line, `src/cli/`, a crate of its own so that clap never reaches the library),
// the integration tests and the benches, and left out of the API's documentation: their
// names and shapes may change with any release. Each is mapped above.
#[doc(hidden)]
pub mod answer;
#[doc(hidden)]
pub mod bridge;
#[doc(hidden)]
pub mod call;
#[doc(hidden)]
pub mod config;
#[doc(hidden)]
pub mod dispatch;
#[doc(hidden)]
pub mod doctor;
#[doc(hidden)]
pub mod env;
#[doc(hidden)]
pub mod envelope;
#[doc(hidden)]
pub mod escape;
#[doc(hidden)]
pub mod eval;
#[doc(hidden)]
pub mod executor;
#[doc(hidden)]
pub mod guard;
#[doc(hidden)]
pub mod panics;
#[doc(hidden)]
pub mod process;
#[doc(hidden)]
pub mod record;
#[doc(hidden)]
pub mod replay;
#[doc(hidden)]
pub mod sandbox;
#[doc(hidden)]
pub mod serve;
#[doc(hidden)]
pub mod session;
#[doc(hidden)]
pub mod signals;
#[doc(hidden)]
pub mod system;
#[doc(hidden)]
pub mod warm;

// Used inside the crate only.
pub(crate) mod access;
pub(crate) mod file_digests;
pub(crate) mod hook_env;
pub(crate) mod paths;
pub(crate) mod platform;
pub(crate) mod recent;
pub(crate) mod toml_file;
