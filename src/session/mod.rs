//! The library API: one [`Session`] per agent session.
//!
//! [`Session::start`] loads the config, guards the hooks' paths, probes the sandbox and
//! prepares every hook's executor (WASM modules compiled and pre-linked), so that the
//! first call is warm. Then [`Session::pre_tool_use`] and [`Session::prompt`] run a gate each,
//! [`Session::end_turn`] starts a new turn. The command line, `serve` and `eval` are thin
//! layers over this type; an embedder in Rust needs the binary only as the box's
//! Landlock entry point ([`SessionOptions::box_entry`]).
//!
//! The files:
//! - `mod.rs`: [`Session`], its gates ([`Session::pre_tool_use`], [`Session::prompt`],
//!   [`Session::end_turn`]) and accessors, and [`StartError`];
//! - `options.rs`: [`SessionOptions`], every default stated once, and [`Mode`];
//! - `start.rs`: [`Session::start`], a pipeline of named steps (load → resume plan →
//!   folders → sandbox → guard → prepare hooks → banner), then the session record;
//! - `shared.rs`: [`Session::start_shared`], a session on a record many processes share
//!   (the bridge's: one process per call), bounded by the caller's deadline;
//! - `prepare.rs`: each hook's executor (WASM on the session's engine, argv on the host
//!   or in the box);
//! - `boxed.rs`: the session's box (folders, the probe) and [`SessionBox`] for
//!   `hookhost box`;
//! - `banner.rs`: the spec's banner line (`banner`).

mod banner;
mod boxed;
mod options;
mod prepare;
mod shared;
mod start;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::call::{CallerFacts, ClaudeInputSource, ToolCall};
use crate::config::{ConfigError, Event, HookDef, UnknownTools};
use crate::dispatch::{
    self, Decision, Gate, HookOwner, Inputs, LoadedHook, Recorder, RunEvent, Turn, Verdict,
};
use crate::envelope::{self, EnvelopeShape, SessionInfo};
use crate::executor::CancellationToken;
use crate::record::RecordError;

pub use banner::banner;
pub use boxed::SessionBox;
use boxed::SessionSandbox;
pub use options::{Mode, Scope, SessionOptions};
pub use shared::SharedStartError;

/// Why a session could not start (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The config could not be loaded.
    #[error(transparent)]
    Config(#[from] Box<ConfigError>),
    /// One or more hooks (or the config itself) were refused; every line says why.
    #[error("{}", .0.join("\n"))]
    Refused(Vec<String>),
    /// The project folder is not usable.
    #[error("the project {}: {reason}", path.display())]
    Project {
        /// The folder given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// `hookhost box`: there is no box to run in.
    #[error("{0}")]
    NoBox(String),
    /// No config path could be worked out (no HOME, no XDG_CONFIG_HOME).
    #[error("no config path: set HARNESS_HOME, XDG_CONFIG_HOME or HOME, or pass --config FILE")]
    NoConfigPath,
    /// The session record could not be opened, read or written.
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// One agent session's hooks, ready to run.
pub struct Session {
    session: SessionInfo,
    project: PathBuf,
    hooks: Vec<LoadedHook>,
    banner: String,
    warnings: Vec<String>,
    /// Host hooks try their PID namespace at spawn without an up-front probe
    /// ([`prepare::host_launcher`]): [`Session::warnings`] asks whether it can be made.
    namespace_untried: bool,
    /// [`Session::warnings`]' answer, made at the first look.
    shown_warnings: std::sync::OnceLock<Vec<String>>,
    turn: Turn,
    recorder: Option<Arc<dyn Recorder>>,
    no_hooks: bool,
    /// Crash resume: recorded hooks this session does not run (changed since recorded).
    skipped: Vec<HookDef>,
    /// The input shape of a hook without an `envelope` key.
    default_envelope: EnvelopeShape,
    /// Whose hooks these are, as the messages name them (the scope's, [`Scope::owner`]).
    owner: HookOwner,
    _sandbox: SessionSandbox,
}

impl Session {
    /// A session over `hooks`, not recording yet, with no warnings and no skipped
    /// hooks: the one place a [`Session`] is made (start fills in the rest with
    /// struct update syntax).
    fn from_parts(
        session: SessionInfo,
        project: PathBuf,
        hooks: Vec<LoadedHook>,
        banner: String,
        sandbox: SessionSandbox,
    ) -> Session {
        Session {
            session,
            project,
            hooks,
            banner,
            warnings: Vec::new(),
            namespace_untried: false,
            shown_warnings: std::sync::OnceLock::new(),
            turn: Turn::default(),
            recorder: None,
            no_hooks: false,
            skipped: Vec::new(),
            default_envelope: EnvelopeShape::Spec,
            owner: HookOwner::User,
            _sandbox: sandbox,
        }
    }

    /// A session over hooks prepared elsewhere (replay): no config, no guard, no
    /// sandbox, no record.
    pub fn with_hooks(session: SessionInfo, hooks: Vec<LoadedHook>) -> Session {
        let project = PathBuf::from(&session.cwd);
        let banner = banner(&hooks);
        Session::from_parts(session, project, hooks, banner, SessionSandbox::Off)
    }

    /// The spec's banner line: `hooks: no-force-push (bash, exec) · …`.
    pub fn banner(&self) -> &str {
        &self.banner
    }

    /// Whether this session's sandboxed hooks run in a box (the OS's box runs here and the
    /// session has argv hooks).
    pub fn has_box(&self) -> bool {
        self._sandbox.spec().is_some()
    }

    /// Start-up warnings, the spec's lines. The first look at them asks, where the
    /// session's host hooks have not found out yet, whether this process can give them
    /// a PID namespace (a probe, once per process), so that its warning is among them
    /// as before the first hook runs; a session nobody asks (the bridge) probes nothing.
    pub fn warnings(&self) -> &[String] {
        self.shown_warnings.get_or_init(|| {
            let mut all = self.warnings.clone();
            if self.namespace_untried
                && let Err(why) = crate::process::HookNamespace::for_this_process()
            {
                let line = crate::process::no_namespace_warning(&why);
                if !all.contains(&line) {
                    all.push(line);
                }
            }
            all
        })
    }

    /// The hooks as the session runs them.
    pub fn hooks(&self) -> impl Iterator<Item = &HookDef> {
        self.hooks.iter().map(|h| &h.def)
    }

    /// The hooks that import network interfaces they get none of (WASM components whose
    /// standard library links `wasi:sockets`), for `check` to name.
    pub fn network_importers(&self) -> impl Iterator<Item = &str> {
        self.hooks
            .iter()
            .filter(|h| h.executor.imports_network())
            .map(|h| h.def.name.as_str())
    }

    /// The session's id.
    pub fn session_id(&self) -> &str {
        &self.session.session_id
    }

    /// Whether `--no-hooks` was given.
    pub fn no_hooks(&self) -> bool {
        self.no_hooks
    }

    /// Whose hooks this session runs: the user's, or the administrator's (system mode).
    pub fn owner(&self) -> HookOwner {
        self.owner
    }

    /// One PreToolUse gate for a call of hookhost's own tool `tool_name` (`bash`,
    /// `write_file`, …) with the spec's arguments: [`Session::pre_tool_use_call`] for
    /// [`ToolCall::from_hookhost`]. In-project absolute paths are made relative before the
    /// hooks see them.
    pub async fn pre_tool_use(
        &self,
        tool_name: &str,
        tool_input: Value,
        tool_use_id: Option<&str>,
        cancel: &CancellationToken,
    ) -> Verdict {
        let call = ToolCall::from_hookhost(tool_name, tool_input, tool_use_id.map(str::to_string));
        self.pre_tool_use_call(&call, &CallerFacts::default(), cancel)
            .await
    }

    /// The one PreToolUse gate: `call` as every front end builds it. `tools = [...]`
    /// matches the call's hookhost name ([`ToolCall::covered_by`]); each hook reads the
    /// spec's envelope or Claude Code's input ([`crate::config::HookDef::input_shape`];
    /// the latter with `caller`'s transcript). Then each file the call touches beyond its
    /// own arguments ([`ToolCall::files`]: a patch's files, a multi-file read) is gated as
    /// a call of its own, so that a path policy sees every one; the first block ends it,
    /// and every gate's warnings are kept. Each gate is recorded on its own.
    pub async fn pre_tool_use_call(
        &self,
        call: &ToolCall,
        caller: &CallerFacts,
        cancel: &CancellationToken,
    ) -> Verdict {
        let mut verdict = self.gate_call(call, caller, cancel).await;
        for file in &call.files {
            if verdict.outcome != dispatch::Outcome::Allow {
                break;
            }
            let mut next = self.gate_call(file, caller, cancel).await;
            verdict.warnings.append(&mut next.warnings);
            next.warnings = std::mem::take(&mut verdict.warnings);
            verdict = next;
        }
        verdict
    }

    /// One gate for `call` alone.
    async fn gate_call(
        &self,
        call: &ToolCall,
        caller: &CallerFacts,
        cancel: &CancellationToken,
    ) -> Verdict {
        // A tool hookhost cannot name: a hook with `tools` cannot tell whether it is one
        // of its own, and its `unknown_tools` says what then (docs/contract.md#unknown_tools).
        if let Some(agent) = &call.unknown_to
            && let Some(hook) = self.hooks.iter().find(|h| {
                h.def.event == Event::PreToolUse
                    && h.def
                        .tools
                        .as_ref()
                        .is_some_and(|t| t.unknown_tools() == UnknownTools::Block)
            })
        {
            return self.block_unknown_tool(call, caller, agent, &hook.def);
        }
        let covers =
            |h: &HookDef| h.event == Event::PreToolUse && call.covered_by(h.tools.as_deref());
        let matching: Vec<&LoadedHook> = self.hooks.iter().filter(|h| covers(&h.def)).collect();
        // The common case, no hook for this tool, costs no id, no envelope, no record.
        if matching.is_empty() && !self.skipped.iter().any(covers) {
            return Verdict::allow();
        }
        let generated;
        let tool_use_id = match &call.tool_use_id {
            Some(id) => id.as_str(),
            None => {
                generated = envelope::generate_tool_use_id();
                &generated
            }
        };
        let spec_name = call.spec_name();
        let gate = Gate::Call {
            tool_name: spec_name,
            tool_use_id,
        };
        self.record_skipped(gate, covers);
        if matching.is_empty() {
            return Verdict::allow();
        }
        // A hook written for Claude Code reads its tool names and absolute paths: the
        // arguments as given, before they are made relative.
        let claude = self.wants_claude(&matching).then(|| {
            envelope::claude::pre_tool_use(
                &self.session,
                caller.transcript_path.as_deref(),
                &call.tool,
                &call.tool_input,
                tool_use_id,
            )
        });
        // Replay rebuilds that input from what it was made of.
        let source = claude.is_some().then(|| ClaudeInputSource {
            default_envelope: self.default_envelope,
            transcript_path: caller.transcript_path.clone(),
            tool_name: (call.given == EnvelopeShape::ClaudeCode).then(|| call.tool.clone()),
            tool_input: Some(call.tool_input.clone()),
            unknown_to: None,
        });
        let mut spec_input = call.spec_input();
        envelope::relativize_paths(&mut spec_input, &self.project);
        let stdin = envelope::pre_tool_use(&self.session, spec_name, &spec_input, tool_use_id);
        let inputs = self.inputs(stdin, claude);
        self.run_gate(
            &matching,
            gate,
            &inputs,
            Some(&spec_input),
            source.as_ref(),
            cancel,
        )
        .await
    }

    /// The gate of a call of a tool hookhost cannot name, blocked for `hook` (the first
    /// hook with `tools` and `unknown_tools = "block"`): no hook runs; the verdict is
    /// recorded with what replay needs to block it again.
    fn block_unknown_tool(
        &self,
        call: &ToolCall,
        caller: &CallerFacts,
        agent: &str,
        hook: &HookDef,
    ) -> Verdict {
        let generated;
        let tool_use_id = match &call.tool_use_id {
            Some(id) => id.as_str(),
            None => {
                generated = envelope::generate_tool_use_id();
                &generated
            }
        };
        let gate = Gate::Call {
            tool_name: call.spec_name(),
            tool_use_id,
        };
        let listed = hook
            .tools
            .as_ref()
            .map(|t| t.names().to_vec())
            .unwrap_or_default();
        let verdict =
            dispatch::unknown_tool_verdict(self.owner, &hook.name, &listed, agent, &call.tool);
        // `log show` tells the story from the decisions: this one too.
        if let Some(r) = &self.recorder {
            let reason = format!(
                "{agent}'s tool \"{}\" has no hookhost name (unknown_tools = \"block\")",
                call.tool
            );
            r.record(RunEvent::Decided {
                hook: &hook.name,
                gate,
                decision: Decision::Block,
                reason: &reason,
            });
        }
        let source = ClaudeInputSource {
            default_envelope: self.default_envelope,
            transcript_path: caller.transcript_path.clone(),
            tool_name: Some(call.tool.clone()),
            tool_input: Some(call.tool_input.clone()),
            unknown_to: Some(agent.to_string()),
        };
        self.record_verdict(gate, None, Some(&source), &verdict);
        verdict
    }

    /// One UserPromptSubmit gate for a prompt an agent sent: as [`Session::prompt`], with
    /// `caller`'s transcript in Claude Code's input.
    pub async fn prompt_from(
        &self,
        prompt: &str,
        caller: &CallerFacts,
        cancel: &CancellationToken,
    ) -> Verdict {
        self.prompt_with(prompt, caller.transcript_path.as_deref(), cancel)
            .await
    }

    /// Whether one of `hooks` reads Claude Code's shape.
    fn wants_claude(&self, hooks: &[&LoadedHook]) -> bool {
        hooks
            .iter()
            .any(|h| Inputs::shape_of(&h.def, self.default_envelope) == EnvelopeShape::ClaudeCode)
    }

    /// A gate's inputs: the spec's envelope and, when built, Claude Code's shape.
    fn inputs(&self, spec: Vec<u8>, claude: Option<Vec<u8>>) -> Inputs {
        Inputs {
            spec: spec.into(),
            claude: claude.map(Into::into),
            default: self.default_envelope,
        }
    }

    /// One UserPromptSubmit gate.
    pub async fn prompt(&self, prompt: &str, cancel: &CancellationToken) -> Verdict {
        self.prompt_with(prompt, None, cancel).await
    }

    /// [`Session::prompt`], with the agent's transcript for Claude Code's shape.
    async fn prompt_with(
        &self,
        prompt: &str,
        transcript_path: Option<&str>,
        cancel: &CancellationToken,
    ) -> Verdict {
        let gate = Gate::Prompt { prompt };
        self.record_skipped(gate, |h| h.event == Event::UserPromptSubmit);
        let matching: Vec<&LoadedHook> = self
            .hooks
            .iter()
            .filter(|h| h.def.event == Event::UserPromptSubmit)
            .collect();
        if matching.is_empty() {
            return Verdict::allow();
        }
        let claude = self
            .wants_claude(&matching)
            .then(|| envelope::claude::prompt(&self.session, transcript_path, prompt));
        let source = claude.is_some().then(|| ClaudeInputSource {
            default_envelope: self.default_envelope,
            transcript_path: transcript_path.map(str::to_string),
            tool_name: None,
            tool_input: None,
            unknown_to: None,
        });
        let inputs = self.inputs(envelope::prompt(&self.session, prompt), claude);
        self.run_gate(&matching, gate, &inputs, None, source.as_ref(), cancel)
            .await
    }

    /// Runs the gate's hooks and records its verdict.
    async fn run_gate(
        &self,
        hooks: &[&LoadedHook],
        gate: Gate<'_>,
        inputs: &Inputs,
        tool_input: Option<&Value>,
        bridged: Option<&ClaudeInputSource>,
        cancel: &CancellationToken,
    ) -> Verdict {
        let verdict = dispatch::run_gate(
            hooks,
            self.owner,
            gate,
            inputs,
            &self.turn,
            self.recorder.as_deref(),
            cancel,
        )
        .await;
        self.record_verdict(gate, tool_input, bridged, &verdict);
        verdict
    }

    /// Marks `hooks` as having warned in the current turn (a session resumed within a
    /// turn: see [`crate::record::ResumePlan::warned_this_turn`]).
    pub(crate) fn seed_turn(&self, hooks: Vec<String>) {
        self.turn.seed(hooks);
    }

    /// Sets the input shape of a hook without an `envelope` key (replay of a bridged
    /// gate, which records the one its session had).
    pub(crate) fn set_default_envelope(&mut self, shape: EnvelopeShape) {
        self.default_envelope = shape;
    }

    /// Sets whose hooks the session runs (replay, from the recorded session line).
    pub(crate) fn set_owner(&mut self, owner: HookOwner) {
        self.owner = owner;
    }

    /// Starts a new turn: failure warnings may be shown again.
    pub fn end_turn(&self) {
        self.turn.reset();
        if let Some(r) = &self.recorder {
            r.record(RunEvent::TurnEnded);
        }
    }

    /// Records a skipped run for each recorded hook this resumed session does not run
    /// and that would have covered `gate`.
    fn record_skipped(&self, gate: Gate<'_>, covers: impl Fn(&HookDef) -> bool) {
        let Some(r) = &self.recorder else { return };
        for hook in self.skipped.iter().filter(|h| covers(h)) {
            r.record(RunEvent::Decided {
                hook: &hook.name,
                gate,
                decision: Decision::Skipped,
                reason: "changed in your config since the session was recorded",
            });
        }
    }

    fn record_verdict(
        &self,
        gate: Gate<'_>,
        tool_input: Option<&Value>,
        bridged: Option<&ClaudeInputSource>,
        verdict: &Verdict,
    ) {
        if let Some(r) = &self.recorder {
            r.record(RunEvent::Verdict {
                gate,
                tool_input,
                verdict,
                bridged,
            });
        }
    }
}
