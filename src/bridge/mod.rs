//! The bridge: hookhost as the one hook that Claude Code, Codex, Gemini CLI, Cursor and Copilot CLI call.
pub mod install;
