//! The bridge: hookhost as the one hook that Claude Code, Codex, Gemini CLI, Cursor, Copilot CLI, Qwen Code, Kimi Code and Kiro CLI call.
//!
//! This module owns the library half of `hookhost bridge`, pure code with no I/O: reading
//! one agent's event ([`Protocol::parse`] → [`Event`], the canonical call in Claude Code's
//! vocabulary), knowing who really called ([`detect`]), the one table of tool names and
//! input fields ([`tools`]), and writing the answer in that agent's own language
//! ([`Protocol::answer`] → [`Reply`]: stdout, stderr and an exit status with the *agent's*
//! meaning, never hookhost's own exit statuses). The front end (`hookhost bridge`) reads
//! stdin, runs the session's gate, fills an [`Ruling`] from its
//! [`crate::dispatch::Verdict`] and writes the [`Reply`] out.
//!
//! An agent is one file: its [`Declaration`] (names, program, settings, timeout, failure
//! setting, switch-offs, login; read by `install`, `doctor`, the bridge and the command
//! line through [`AgentKind::declaration`]) and a unit struct implementing [`Protocol`]
//! (its events, its answers, its exit-code rules), with their tests below them. A trait
//! rather than an enum with a `match` in every method, so that everything one agent does
//! is read in one place ([`agents`](AgentKind) says what a new agent touches).
//!
//! What every agent's answer must respect (docs/agents.md#what-every-agent-gets): no
//! agent gets `allow` when the meaning is "no objection" (Claude Code skips its permission
//! prompt on `allow`, Codex counts a bare `allow` as a failed hook), except Cursor's
//! permission events, where a hook registered with `failClosed` must print an answer and
//! `allow` is the only one that is not a deny. A failure is a deny (fail closed, unlike
//! every agent's own default).

pub mod install;

mod agents;
pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod credentials;
pub mod cursor;
pub mod detect;
pub mod gemini;
pub mod kimi;
pub mod kiro;
pub mod patch;
pub mod qwen;
pub mod scope;
pub mod tools;
pub mod touched;
pub mod watchdog;

#[cfg(test)]
mod captured;

use serde_json::{Map, Value};

use crate::dispatch::{self, Verdict};

pub use agents::{
    AgentKind, Declaration, DisabledHooks, ExtensionSettings, Extensions, FailClosedSetting,
    FlatTomlHandler, FolderTrust, FrontmatterBounds, FrontmatterHooks, HookEnvironment, HookFiles,
    HookTableSchema, JsonHandler, Markdown, ModeVariable, ModesWithoutHooks, NestedHookFiles,
    Plugins, RewritingHooks, Settings, Shape, SwitchOff, TomlHandler, version_at_least,
};

/// One agent's hook protocol: how to read its event and how to answer it.
///
/// Implementations are unit structs, one file each. [`Protocol::parse`] turns the agent's
/// stdin into the canonical [`Event`] (Claude Code's tool names and input shape, through
/// [`tools`]); [`Protocol::answer`] writes an [`Ruling`] in the form that agent obeys, for
/// the event it answers; [`Protocol::refuse`] denies a call the bridge could not read or
/// could not run, in a form that blocks whichever event it was.
pub trait Protocol: Sync {
    /// Which agent this is.
    fn kind(&self) -> AgentKind;

    /// Reads the agent's stdin payload. An event the bridge has no hooks for is
    /// [`Event::Other`], not an error; an error is a payload the bridge cannot gate
    /// (a pre-tool event with no tool name, say), which the front end answers with
    /// [`Protocol::refuse`].
    fn parse(&self, payload: &Value) -> Result<Event, BridgeError>;

    /// The answer to `event` (as [`Protocol::parse`] returned it) for `outcome`.
    fn answer(&self, event: &Event, outcome: &Ruling) -> Reply;

    /// A deny that blocks whatever the agent asked, with `reason`: for a payload the
    /// bridge could not read, or a bridge that could not run its hooks.
    fn refuse(&self, reason: &str) -> Reply;
}

/// The common fields of an agent's call, under Claude Code's names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentSession {
    /// The event's name as the agent spelled it (`PreToolUse`, `BeforeTool`,
    /// `preToolUse`, `beforeShellExecution`, …): the answer depends on it.
    pub event_name: String,
    /// The agent's session (Cursor's `conversation_id`, Copilot's `sessionId`).
    pub session_id: Option<String>,
    /// The agent's working directory (Cursor: the first workspace root when the event
    /// has no `cwd`).
    pub cwd: Option<String>,
    /// The agent's transcript, when it gave one.
    pub transcript_path: Option<String>,
    /// The agent's permission mode (Claude Code, Codex), when it gave one.
    pub permission_mode: Option<String>,
}

pub use crate::call::ToolCall;

/// One agent event, canonical.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A tool call about to run (Claude Code's `PreToolUse`, Gemini's `BeforeTool`,
    /// Cursor's `preToolUse`, `beforeShellExecution`, `beforeMCPExecution`,
    /// `beforeReadFile`, Copilot's `preToolUse`).
    PreToolUse {
        /// The common fields.
        session: AgentSession,
        /// The call.
        call: ToolCall,
    },
    /// A prompt about to be sent (Claude Code's `UserPromptSubmit`, Gemini's
    /// `BeforeAgent`, Cursor's `beforeSubmitPrompt`, Copilot's `userPromptSubmitted`).
    Prompt {
        /// The common fields.
        session: AgentSession,
        /// The prompt's text.
        prompt: String,
    },
    /// A settings file changed while the agent runs (Claude Code's `ConfigChange`): the
    /// bridge refuses a change that removes or weakens its pinned registration
    /// ([`install::pin`]).
    SettingsChanged {
        /// The common fields.
        session: AgentSession,
        /// Which settings changed (`user_settings`, `project_settings`, …).
        source: Option<String>,
        /// The file that changed, when the agent names it.
        file_path: Option<String>,
    },
    /// Any other event: answered with no objection and a one-line note on stderr.
    Other {
        /// The event's name as the agent spelled it (`unnamed` when it gave none).
        event_name: String,
    },
}

impl Event {
    /// The event's name as the agent spelled it.
    pub fn event_name(&self) -> &str {
        match self {
            Event::PreToolUse { session, .. }
            | Event::Prompt { session, .. }
            | Event::SettingsChanged { session, .. } => &session.event_name,
            Event::Other { event_name } => event_name,
        }
    }
}

/// What the bridge decided, as every agent's answer needs it: filled by the front end
/// from a [`Verdict`] ([`Ruling::from_verdict`]) or from a refusal at start
/// ([`Ruling::refused`]), so that no agent depends on the session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ruling {
    /// `Some(reason)` to deny the call or block the prompt; `None` for no objection.
    /// The reason is the text the agent shows: the verdict's message (`blocked by the
    /// user's hook "x": …`, or the administrator's in system mode, the spec's failure
    /// message, the refusal at start).
    pub block: Option<String>,
    /// Context for the prompt, framed, hooks in file order, joined by a blank line;
    /// `None` when there is none (always `None` with a block).
    pub context: Option<String>,
    /// The hooks that added the context, for the note where an agent cannot take it.
    pub context_hooks: Vec<String>,
    /// Warnings for the user, the spec's lines.
    pub warnings: Vec<String>,
}

impl Ruling {
    /// No objection, nothing to say.
    pub fn no_objection() -> Ruling {
        Ruling::default()
    }

    /// A deny (or a blocked prompt) with `reason`.
    pub fn block(reason: impl Into<String>) -> Ruling {
        Ruling {
            block: Some(reason.into()),
            ..Ruling::default()
        }
    }

    /// The session refused to start (a guard, a config error): a deny whose reason is
    /// the refusal text, so that the user sees why in their agent.
    pub fn refused(refusal: &str) -> Ruling {
        Ruling::block(crate::escape::for_terminal(refusal.trim_end()))
    }

    /// The outcome a gate's verdict means. A block, a failure that `on_failure =
    /// "block"` turned into a block and an interrupted hook are all a deny with the
    /// verdict's message (fail closed); contexts are framed as the model reads them.
    ///
    /// Every text is made safe to show ([`crate::escape::for_terminal`]: control
    /// characters as visible escapes), since each agent shows some of them to the user,
    /// JSON answers included, and the hooks' texts may quote the model (docs/threats.md#n17).
    ///
    /// `owner` is whose hooks the session ran: a block without a message names them
    /// ([`dispatch::unnamed_block_message`]), as every other message does.
    pub fn from_verdict(verdict: &Verdict, owner: dispatch::HookOwner) -> Ruling {
        let shown = |text: &str| crate::escape::for_terminal(text).into_owned();
        let block = match verdict.outcome {
            dispatch::Outcome::Allow => None,
            dispatch::Outcome::Block | dispatch::Outcome::Interrupted => Some(shown(
                &verdict
                    .message
                    .clone()
                    .unwrap_or_else(|| dispatch::unnamed_block_message(owner)),
            )),
        };
        let (context, context_hooks) = if block.is_some() || verdict.context.is_empty() {
            (None, Vec::new())
        } else {
            let framed: Vec<String> = verdict.context.iter().map(|c| shown(&c.framed())).collect();
            (
                Some(framed.join("\n\n")),
                verdict.context.iter().map(|c| c.hook.clone()).collect(),
            )
        };
        Ruling {
            block,
            context,
            context_hooks,
            warnings: verdict.warnings.iter().map(|w| shown(w)).collect(),
        }
    }

    /// The warnings as one text, one per line; `None` when there are none.
    pub fn warning_text(&self) -> Option<String> {
        (!self.warnings.is_empty()).then(|| self.warnings.join("\n"))
    }
}

/// What the bridge writes back: stdout, stderr and the exit status, all with the
/// calling agent's meaning.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    /// Exactly what goes to stdout (a JSON line ending in `\n`, or nothing).
    pub stdout: String,
    /// Exactly what goes to stderr (lines ending in `\n`, or nothing).
    pub stderr: String,
    /// The exit status, in the agent's exit-code language (Codex: 2 denies).
    pub exit_code: i32,
    /// `stderr` is one JSON answer (Qwen Code's refusal, [`Reply::json_on_stderr`]): a
    /// note joins its `systemMessage`, since a line after it would unmake it.
    pub stderr_is_json: bool,
}

impl Reply {
    /// Exit 0, nothing printed: "no opinion" for every agent.
    pub fn silent() -> Reply {
        Reply::default()
    }

    /// Exit 0 with `json` on stdout, one line.
    pub fn json(json: Value) -> Reply {
        Reply {
            stdout: format!("{json}\n"),
            ..Reply::default()
        }
    }

    /// Plain text on stdout (the context Kimi Code and Kiro CLI read), its control
    /// characters made visible ([`crate::escape::for_terminal`]): it is shown as well as read.
    pub fn text(text: &str) -> Reply {
        Reply {
            stdout: format!("{}\n", crate::escape::for_terminal(text)),
            ..Reply::default()
        }
    }

    /// Exit 2 with `json` on stderr, one line: an answer an agent reads from stderr on
    /// that status (Qwen Code).
    pub fn json_on_stderr(json: Value) -> Reply {
        Reply {
            stderr: format!("{json}\n"),
            exit_code: 2,
            stderr_is_json: true,
            ..Reply::default()
        }
    }

    /// Adds a line to stderr (after what is there: a Codex deny's reason stays first),
    /// its control characters made visible ([`crate::escape::for_terminal`]): an agent
    /// may show stderr on the user's terminal, and a hook's reason may quote the model's
    /// command (docs/threats.md#n17). A JSON answer on stderr takes the note as a line
    /// of its `systemMessage` instead.
    pub fn with_note(mut self, note: &str) -> Reply {
        if self.stderr_is_json
            && let Ok(Value::Object(mut answer)) = serde_json::from_str::<Value>(&self.stderr)
        {
            let note = crate::escape::for_terminal(note.trim_end());
            let message = match answer.get("systemMessage").and_then(Value::as_str) {
                Some(earlier) => format!("{earlier}\n{note}"),
                None => note.into_owned(),
            };
            answer.insert("systemMessage".into(), message.into());
            self.stderr = format!("{}\n", Value::Object(answer));
            return self;
        }
        self.stderr
            .push_str(&crate::escape::for_terminal(note.trim_end()));
        self.stderr.push('\n');
        self
    }
}

/// The record of one agent session behind the bridge:
/// `<record folder>/<agent flag name>/<name>` ([`crate::env::Environment::record_dir`],
/// [`crate::record::file_name_for`]: one file per id, none for an empty id). Every call of
/// the session appends to it.
pub fn record_path(
    env: &crate::env::Environment,
    agent: AgentKind,
    session_id: &str,
) -> Option<std::path::PathBuf> {
    let name = crate::record::file_name_for(session_id)?;
    Some(env.record_dir()?.join(agent.flag_name()).join(name))
}

/// Where `bridge --system`'s own record of an agent session lies: beside the user's,
/// under `system/` (in the user's home, so the agent can delete it; docs/threats.md,
/// the system scope).
pub fn system_record_path(
    env: &crate::env::Environment,
    agent: AgentKind,
    session_id: &str,
) -> Option<std::path::PathBuf> {
    let name = crate::record::file_name_for(session_id)?;
    Some(
        env.record_dir()?
            .join("system")
            .join(agent.flag_name())
            .join(name),
    )
}

/// The one-line note for an event the bridge has no hooks for.
pub fn other_event_note(agent: AgentKind, event_name: &str) -> String {
    format!(
        "hookhost: {agent} event {event_name:?} has no hookhost hooks; no objection.",
        event_name = escape_line(event_name)
    )
}

/// The note for a prompt block an agent cannot obey (Copilot CLI, Kiro CLI): the prompt
/// was sent, and the block's text follows.
pub fn prompt_block_dropped_note(agent: AgentKind, event_name: &str, reason: &str) -> String {
    format!(
        "hookhost: {agent} cannot block a prompt from a command hook ({}); the prompt was sent. {reason}",
        escape_line(event_name)
    )
}

/// The answer of the agents that deny a call by exit status 2 with the reason on stderr
/// (Codex, Kimi Code, Kiro CLI).
pub(crate) fn refuse_by_exit_2(reason: &str) -> Reply {
    Reply {
        exit_code: 2,
        ..Reply::default()
    }
    .with_note(reason)
}

/// The note for context an agent cannot take on a prompt.
pub fn context_dropped_note(agent: AgentKind, event_name: &str, hooks: &[String]) -> String {
    let names = if hooks.is_empty() {
        "a hook".to_string()
    } else {
        format!("hook {}", hooks.join(", "))
    };
    format!(
        "hookhost: {agent} cannot add context to a prompt ({event_name}); the context from {names} was not sent."
    )
}

/// A value the agent sent, cut and kept on one line for a note.
fn escape_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(80)
        .collect()
}

/// Why an agent's payload could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BridgeError {
    /// stdin was not one JSON object.
    #[error("the {agent} payload is not a JSON object")]
    NotAnObject {
        /// The agent.
        agent: AgentKind,
    },
    /// A field the event needs is missing or not the right type.
    #[error("the {agent} {event} payload has no {field} (or it is not {expected})")]
    Field {
        /// The agent.
        agent: AgentKind,
        /// The event as the agent spelled it.
        event: String,
        /// The field at fault.
        field: &'static str,
        /// What it should be ("a string", "a JSON object").
        expected: &'static str,
    },
    /// The file a call names is one the agent finds by a search hookhost cannot follow
    /// to its end, so no policy could be shown the file it changes.
    #[error("hookhost cannot tell which file the {agent} {event} call changes: {why}")]
    Unresolved {
        /// The agent.
        agent: AgentKind,
        /// The event as the agent spelled it.
        event: String,
        /// Why, in words that follow the message.
        why: String,
    },
    /// A field that holds JSON in a string (Copilot's `toolArgs`, Cursor's MCP
    /// `tool_input`) does not parse to an object.
    #[error("the {agent} {event} payload's {field} is a string that is not a JSON object")]
    EncodedField {
        /// The agent.
        agent: AgentKind,
        /// The event as the agent spelled it.
        event: String,
        /// The field at fault.
        field: &'static str,
    },
}

/// The message for a payload that could not be read: what a [`Protocol::refuse`] reply
/// carries.
pub fn unreadable_message(error: &BridgeError) -> String {
    // The call was read; the file it changes is what cannot be told.
    if let BridgeError::Unresolved { .. } = error {
        return format!(
            "{error}, so this call was blocked. Name the file by its path from the project's folder."
        );
    }
    format!(
        "hookhost could not read this call ({error}), so it was blocked. This is not a policy decision: tell the user their hookhost bridge cannot read the agent's hook input."
    )
}

/// Reads a payload in Claude Code's snake_case shape (Claude Code, Codex, Gemini CLI,
/// Copilot CLI's PascalCase events): `pre` and `prompt` name the agent's events.
pub(crate) fn parse_snake_case(
    agent: AgentKind,
    payload: &Value,
    pre: &[&str],
    prompt: &[&str],
) -> Result<Event, BridgeError> {
    let map = object(agent, payload)?;
    let Some(event_name) = str_field(map, "hook_event_name") else {
        return Ok(Event::Other {
            event_name: "unnamed".into(),
        });
    };
    let session = AgentSession {
        event_name: event_name.to_string(),
        session_id: owned(map, "session_id"),
        cwd: owned(map, "cwd"),
        transcript_path: owned(map, "transcript_path"),
        permission_mode: owned(map, "permission_mode"),
    };
    if pre.contains(&event_name) {
        let tool_name = required_str(agent, event_name, map, "tool_name")?;
        let input = tool_input_field(agent, event_name, map, "tool_input")?;
        // Gemini names an MCP tool's server and tool apart; the others have no such field.
        let context = map.get("mcp_context").and_then(Value::as_object);
        let hint = tools::McpHint {
            server: context.and_then(|c| str_field(c, "server_name")),
            tool: context.and_then(|c| str_field(c, "tool_name")),
        };
        let call = tools::map_call(
            agent,
            event_name,
            tool_name,
            input,
            hint,
            session.cwd.as_deref(),
            owned(map, "tool_use_id"),
        )?;
        return Ok(Event::PreToolUse { session, call });
    }
    if prompt.contains(&event_name) {
        let prompt = required_str(agent, event_name, map, "prompt")?.to_string();
        return Ok(Event::Prompt { session, prompt });
    }
    Ok(Event::Other {
        event_name: event_name.to_string(),
    })
}

/// Adds `systemMessage` with the outcome's warnings, where the agent shows it to the user.
pub(crate) fn with_system_message(
    mut answer: Map<String, Value>,
    outcome: &Ruling,
) -> Map<String, Value> {
    if let Some(warnings) = outcome.warning_text() {
        answer.insert("systemMessage".into(), Value::String(warnings));
    }
    answer
}

/// Exit 0 with `answer` on stdout, or nothing at all when it is empty ("no opinion").
pub(crate) fn json_or_silent(answer: Map<String, Value>) -> Reply {
    if answer.is_empty() {
        Reply::silent()
    } else {
        Reply::json(Value::Object(answer))
    }
}

/// Every warning as a line on stderr (for agents with no field to show them in).
pub(crate) fn warnings_on_stderr(mut reply: Reply, outcome: &Ruling) -> Reply {
    for warning in &outcome.warnings {
        reply = reply.with_note(warning);
    }
    reply
}

// Small readers the agents share.

/// A string field, if present and a string.
pub(crate) fn str_field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// A string field as an owned `Option<String>`.
pub(crate) fn owned(map: &Map<String, Value>, key: &str) -> Option<String> {
    str_field(map, key).map(str::to_string)
}

/// The payload as an object, or the agent's error.
pub(crate) fn object(
    agent: AgentKind,
    payload: &Value,
) -> Result<&Map<String, Value>, BridgeError> {
    payload
        .as_object()
        .ok_or(BridgeError::NotAnObject { agent })
}

/// A required string field.
pub(crate) fn required_str<'a>(
    agent: AgentKind,
    event: &str,
    map: &'a Map<String, Value>,
    field: &'static str,
) -> Result<&'a str, BridgeError> {
    str_field(map, field).ok_or_else(|| BridgeError::Field {
        agent,
        event: event.to_string(),
        field,
        expected: "a string",
    })
}

/// A tool input: an object, or a string holding one (Copilot's `toolArgs`, Cursor's MCP
/// `tool_input`); absent or `null` is `{}`.
pub(crate) fn tool_input_field(
    agent: AgentKind,
    event: &str,
    map: &Map<String, Value>,
    field: &'static str,
) -> Result<Value, BridgeError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(Value::Object(o)) => Ok(Value::Object(o.clone())),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => Ok(Value::Object(o)),
            _ => Err(BridgeError::EncodedField {
                agent,
                event: event.to_string(),
                field,
            }),
        },
        Some(_) => Err(BridgeError::Field {
            agent,
            event: event.to_string(),
            field,
            expected: "a JSON object",
        }),
    }
}

#[cfg(test)]
mod tests;

/// What every agent's tests feed its `answer`: the outcomes of real verdicts.
#[cfg(test)]
pub(crate) mod test_support;
