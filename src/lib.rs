//! hookhost: a hook host for AI coding agents.
//!
//! The agent (the "embedder") calls hookhost before each tool call (`PreToolUse`) and
//! when a prompt is submitted (`UserPromptSubmit`). hookhost loads the user's `[[hooks]]`,
//! guards their paths at start, runs each hook with one line of JSON on stdin, and turns
//! the answers into one verdict.

pub mod executor;
pub mod guard;
