//! hookhost: a hook host for AI coding agents.
//!
//! The agent (the "embedder") calls hookhost before each tool call (`PreToolUse`) and
//! when a prompt is submitted (`UserPromptSubmit`). hookhost loads the user's `[[hooks]]`
//! ([`config`]), guards their paths at start ([`guard`]), runs each hook with one line of
//! JSON on stdin ([`envelope`]) through an [`executor::Executor`] (argv on the host or
//! in the bubblewrap box of [`sandbox`], or WASM), reads the answers ([`answer`]) and
//! turns them into one verdict ([`dispatch`]). [`session::Session`] is the library API; [`cli`]
//! is the thin command line over it.
//!
//! Linux on x86_64 and aarch64 (the box's seccomp filter names their syscalls).
//!
//! [`serve`] is the JSON-lines protocol for an embedder in another language and
//! [`eval`] runs hook test cases; both sit on [`session::Session`], as an embedder in Rust
//! does: `examples/embed.rs` starts a session, gates calls and a prompt, cancels a
//! running hook and ends the turn (`cargo run --example embed`).

pub mod access;
pub mod answer;
pub mod bridge;
pub mod cli;
pub mod config;
pub mod dispatch;
pub mod envelope;
pub mod escape;
pub mod eval;
pub mod executor;
pub mod guard;
pub mod hook_env;
pub(crate) mod platform;
pub mod process;
pub mod record;
pub mod sandbox;
pub mod serve;
pub mod session;
pub mod toml_file;
