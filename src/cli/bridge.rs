//! `hookhost bridge`: one agent event on stdin, answered on stdout, stderr and the exit
//! status in the calling agent's own language ([`hookhost::bridge`]).
//!
//! I/O only: the library reads the payload, knows the caller and writes the answer; this
//! file reads stdin, starts the session (its record shared by every call of the agent's
//! session), runs the gate inside the time budget and writes the [`Reply`] exactly. It
//! never returns an [`super::exit::Exit`]: its exit status is the agent's (Codex: 2
//! denies), so `main` exits with [`Reply::exit_code`].
//!
//! `--system` (docs/contract.md#system-mode) runs two sessions per call, the
//! administrator's and then the user's, and joins their answers with
//! [`scope::combine`]; [`system_answer`] is the whole of that mode here.
//!
//! Everything a call reads from the process it runs in is one [`Caller`]: this process's,
//! or that of a bridge that handed its call to `hookhost warm` (`super::warm`), which
//! runs this same code for it.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookhost::bridge::install::pin;
use hookhost::bridge::{
    self, AgentKind, AgentSession, BridgeError, Event, Reply, Ruling, detect, scope,
};
use hookhost::call::CallerFacts;
use hookhost::dispatch::{self, Gate, HookOwner, Verdict};
use hookhost::env::Environment;
use hookhost::envelope::EnvelopeShape;
use hookhost::executor::CancellationToken;
use hookhost::executor::wasm::EngineShelf;
use hookhost::panics::catching_panics;
use hookhost::session::{Mode, Scope, Session};

use super::GlobalOptions;
use hookhost::bridge::watchdog::{self, Watchdog, unanswered_message};

/// The process a bridged call came from: everything the call reads from it.
pub struct Caller {
    /// Its whole environment (the agent's steering is taken out per call).
    pub env: Environment,
    /// Its working folder, against which relative paths are resolved; `None`: this
    /// process's own (the call runs in the process the agent started).
    pub cwd: Option<PathBuf>,
    /// The binary the agent ran: registrations are recognised by its path.
    pub exe: PathBuf,
    /// Its stdin, read to the end (or why it could not be).
    pub stdin: std::io::Result<Vec<u8>>,
    /// When it started: the call's time budget counts from here.
    pub started: Instant,
    /// Cancelled when the caller gives up on the call; `None`: this process's SIGINT or
    /// SIGTERM.
    pub stop: Option<CancellationToken>,
    /// Why the call is blocked without being judged: the warm server took it and never
    /// answered within its budget, and judging it again here would outlive the agent's
    /// timeout; or this process could not set itself up to judge it (a log filter that
    /// does not parse, its hardening refused).
    pub refused: Option<String>,
    /// The WASM engines of a process that judges many calls (the warm server), kept
    /// between them; `None`: this call makes its own.
    pub engines: Option<EngineShelf>,
    /// What answers the call if its session's start, run on the call's own thread,
    /// outlives the deadline: the warm server's keeper. `None`: the call is this
    /// process's whole work (the bridge the agent started), and this process's
    /// [`Watchdog`] answers it at its deadline, or at the deadline and a grace if anything
    /// else holds it; its answer is written through [`watchdog::write_once`].
    pub late_start: Option<Box<dyn LateStart>>,
}

/// What answers a call whose session start, run on the call's own thread, outlives the
/// call's deadline (docs/threats.md#n6): the warm server's keeper of deadlines, or a
/// bridge process's [`Watchdog`]. Armed with the deny before the start, disarmed after it.
pub trait LateStart: Send + Sync {
    /// From now on, answers the call with `deny` at `deadline`, unless disarmed first.
    fn arm(&self, deadline: Instant, deny: &Reply);
    /// Stops that; `false`: too late, the call was answered with the deny.
    fn disarm(&self) -> bool;
}

/// The session's start runs on the call's own thread, and a bridge process's watchdog
/// answers it at its deadline with the start's deny.
impl LateStart for std::sync::Arc<Watchdog> {
    fn arm(&self, deadline: Instant, deny: &Reply) {
        self.arm_start(deadline, deny);
    }

    fn disarm(&self) -> bool {
        self.disarm_start()
    }
}

impl Caller {
    /// This process, started at `started`; `stdin` when `main` has already read it.
    pub fn this_process(stdin: Option<Vec<u8>>, started: Instant) -> Caller {
        let stdin = match stdin {
            Some(bytes) => Ok(bytes),
            None => {
                let mut bytes = Vec::new();
                std::io::stdin().read_to_end(&mut bytes).map(|_| bytes)
            }
        };
        Caller {
            env: Environment::of_process(),
            cwd: None,
            exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("/hookhost")),
            stdin,
            started,
            stop: None,
            refused: None,
            engines: None,
            late_start: None,
        }
    }

    /// `path` as the caller names it: relative to its folder when it has one of its own.
    fn resolve(&self, path: PathBuf) -> PathBuf {
        match &self.cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path,
        }
    }
}

/// Runs one bridged call; returns what to write and the exit status, the agent's.
pub async fn command(
    global: &GlobalOptions,
    flag: Option<AgentKind>,
    budget_ms: Option<u64>,
    system: bool,
    caller: Caller,
) -> Reply {
    let read = match ReadCall::of(flag, &caller) {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let ReadCall {
        detected,
        event,
        refusal,
    } = read;
    if let Some(why) = &caller.refused {
        return refusal.refuse(why);
    }
    let kind = detected.agent;
    let budget_ms = budget_ms.unwrap_or_else(|| kind.default_budget_ms());
    let watchdog;
    let late_start: &dyn LateStart = match &caller.late_start {
        Some(late) => late.as_ref(),
        None => {
            let deadline = caller.started + Duration::from_millis(budget_ms);
            let note = detected.note.clone();
            let late = refusal.clone();
            let deny = move |doing: &str| {
                let reply = late.refuse(&unanswered_message(budget_ms, doing));
                match &note {
                    Some(note) => reply.with_note(note),
                    None => reply,
                }
            };
            // The process's own, armed as it started (`hookhost::warm::client`'s
            // hand-over), now aimed at this call's agent; one of its own should the call
            // not have come through the hand-over.
            watchdog = match watchdog::of_process() {
                Some(armed) => {
                    armed.aim(deadline, deny);
                    armed
                }
                None => match Watchdog::arm(deadline, deny) {
                    Ok(watchdog) => watchdog,
                    Err(why) => return refusal.refuse(&why),
                },
            };
            &watchdog
        }
    };
    let reply = match event {
        // The note that the payload is not the flag's agent's says most here.
        Err(e) => refusal.refuse(&bridge::unreadable_message(&e)),
        Ok(event) => {
            let judged = answer(global, event, kind, budget_ms, &caller, system, late_start);
            // A panic would end the process with a status most agents read as "go ahead".
            match catching_panics(judged).await {
                Ok(reply) => reply,
                Err(panic) => refusal.refuse(&format!(
                    "hookhost failed while it judged this call ({panic}), so this call was blocked. This is not a policy decision: it is a bug in hookhost; tell the user."
                )),
            }
        }
    };
    match &detected.note {
        Some(note) => reply.with_note(note),
        None => reply,
    }
}

/// A call's payload, read: who sent it, what it asks, and how to refuse it.
struct ReadCall {
    detected: detect::Caller,
    /// The event, or why the payload is not one the agent's protocol reads.
    event: Result<Event, BridgeError>,
    refusal: Refusal,
}

impl ReadCall {
    /// Reads the caller's stdin as the payload of the agent it names (else `flag`'s);
    /// `Err`: the refusal of a call that could not be read.
    fn of(flag: Option<AgentKind>, caller: &Caller) -> Result<ReadCall, Reply> {
        let fallback = flag.unwrap_or(AgentKind::ClaudeCode);
        let bytes = caller.stdin.as_ref().map_err(|e| {
            fallback.protocol().refuse(&format!(
                "hookhost could not read this call (stdin: {e}), so it was blocked. This is not a policy decision: tell the user their hookhost bridge cannot read the agent's hook input."
            ))
        })?;
        let payload: serde_json::Value = serde_json::from_slice(bytes).map_err(|_| {
            let error = BridgeError::NotAnObject { agent: fallback };
            fallback
                .protocol()
                .refuse(&bridge::unreadable_message(&error))
        })?;
        let detected = detect::caller(&payload, flag);
        let mut event = detected.agent.protocol().parse(&payload);
        // A path under `~`, as the agent expands it: the home is the agent's.
        if let Ok(Event::PreToolUse { session, call }) = &mut event {
            // With no HOME, the agents' own fallback: the user's home (Node's
            // `os.homedir()` reads the password database then).
            let home = caller.env.home().or_else(std::env::home_dir);
            bridge::tools::expand_home(
                detected.agent,
                call,
                session.cwd.as_deref(),
                home.as_deref(),
            );
        }
        let refusal = Refusal::of(detected.agent, event.as_ref().ok());
        Ok(ReadCall {
            detected,
            event,
            refusal,
        })
    }
}

/// How a call is refused without being judged: in the form that blocks the event it is
/// (some agents read a prompt's block otherwise than a tool call's: Copilot CLI takes
/// `{"decision":"block"}` on a prompt and ignores its tool-call deny), as a policy's
/// block of it would be; an event the bridge cannot read, or one it has no hooks for, by
/// the agent's catch-all deny ([`bridge::Protocol::refuse`]).
#[derive(Clone)]
struct Refusal {
    agent: AgentKind,
    event: Option<Event>,
}

impl Refusal {
    /// The refusal of `event` (`None`: not read) from `agent`. It keeps of the event what
    /// an answer is made of (which event, its session's fields), not its arguments or
    /// prompt, which can be megabytes: the watchdog holds a copy.
    fn of(agent: AgentKind, event: Option<&Event>) -> Refusal {
        let event = event.and_then(|event| match event {
            Event::PreToolUse { session, call } => Some(Event::PreToolUse {
                session: session.clone(),
                call: hookhost::call::ToolCall {
                    tool: call.tool.clone(),
                    hookhost_tool: call.hookhost_tool,
                    tool_input: serde_json::Value::Null,
                    tool_use_id: call.tool_use_id.clone(),
                    given: call.given,
                    files: Vec::new(),
                    unknown_to: call.unknown_to.clone(),
                },
            }),
            Event::Prompt { session, .. } => Some(Event::Prompt {
                session: session.clone(),
                prompt: String::new(),
            }),
            _ => None,
        });
        Refusal { agent, event }
    }

    fn refuse(&self, why: &str) -> Reply {
        let agent = self.agent.protocol();
        match &self.event {
            Some(event @ (Event::PreToolUse { .. } | Event::Prompt { .. })) => {
                agent.answer(event, &Ruling::refused(why))
            }
            _ => agent.refuse(why),
        }
    }
}

/// Refuses the call `caller` brings, unjudged, for `why`: for a process that could not
/// set itself up to judge it (no runtime). Reads the payload as [`command`] does, to
/// answer in the form that blocks its event.
pub fn refuse_unjudged(flag: Option<AgentKind>, caller: &Caller, why: &str) -> Reply {
    match ReadCall::of(flag, caller) {
        Ok(read) => read.refusal.refuse(why),
        Err(refused) => refused,
    }
}

/// What the agent said about its session that hooks reading Claude Code's input get.
fn caller_facts(session: &AgentSession) -> CallerFacts {
    CallerFacts {
        transcript_path: session.transcript_path.clone(),
    }
}

/// The answer to `event` as `kind` reads it; with `system`, the administrator's policy
/// first, then the user's ([`system_answer`]).
async fn answer(
    global: &GlobalOptions,
    event: Event,
    kind: AgentKind,
    budget_ms: u64,
    caller: &Caller,
    system: bool,
    late_start: &dyn LateStart,
) -> Reply {
    let agent = kind.protocol();
    let session = match &event {
        // No hook runs: each agent says so in its own way (a note, or nothing at all).
        Event::Other { .. } => return agent.answer(&event, &Ruling::no_objection()),
        // In system mode the registration is in a file only root can write: the user's
        // pins guard the user's registrations, which that call does not come through.
        Event::SettingsChanged { .. } if system => {
            return agent.answer(&event, &Ruling::no_objection());
        }
        Event::SettingsChanged {
            session, file_path, ..
        } => return settings_changed(kind, &event, session, file_path.as_deref(), caller),
        Event::PreToolUse { session, .. } | Event::Prompt { session, .. } => session,
    };
    // Nothing that decides where hookhost's own files are, or which box it runs, is taken
    // from an environment the agent's settings can set.
    let cwd = session
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(|c| caller.resolve(PathBuf::from(c)));
    let cwd = cwd.as_deref();
    let (env, mut steering) = caller
        .env
        .without_agent_steering(cwd, kind.stated_root(&caller.env).as_deref());
    if system {
        // The box program's variables are ignored by both sessions, and the system
        // line names them (names only): one line, not two, and no value shown.
        steering.retain(|w| !w.starts_with("hookhost bridge ignores HOOKHOST_"));
    }
    let answer = |outcome: Ruling| {
        let mut outcome = outcome;
        outcome.warnings.extend(steering.iter().cloned());
        agent.answer(&event, &outcome)
    };
    // A `HOME` ignored with none to put in its place (the user has no home in the password
    // database) leaves no config and no pins to find: the refusal says why, rather than
    // ask for the HOME just ignored.
    if !system && caller.env.get("HOME").is_some() && env.get("HOME").is_none() {
        return answer(Ruling::refused(
            "hookhost ignored the HOME it was given (it lies where the agent can write), and this user has no home in the password database to use instead, so it cannot find its config and pins; this call is blocked. Start the agent with a HOME outside the project and the temp folders, or give the user a home in the password database.",
        ));
    }
    let deadline = caller.started + Duration::from_millis(budget_ms);
    let late_start = (
        late_start,
        answer(Ruling::refused(&start_timeout_message(budget_ms))),
    );
    let call = Call {
        global,
        kind,
        event: &event,
        agent: session,
        deadline,
        budget_ms,
        caller,
        late_start,
        set_by_project: None,
    };
    if system {
        return answer(system_answer(&call, &env, cwd).await);
    }
    // The registration this call came through must still be the pinned one: a removed
    // or weakened one elsewhere means hooks are being switched off. So must the config
    // this call loads (docs/threats.md#r5), and a registration must have its pin
    // (docs/threats.md#n8).
    let config = global
        .config
        .clone()
        .or_else(|| env.config_file())
        .map(|c| match &caller.cwd {
            Some(_) => caller.resolve(c),
            None => std::path::absolute(&c).unwrap_or(c),
        });
    // Registrations are recognised by the binary's path or its name, `hookhost`.
    let hookhost = &caller.exe;
    // A settings change refused earlier in this session blocks the rest of it.
    if let Some(earlier) = session
        .session_id
        .as_deref()
        .and_then(|id| pin::refused_sessions::earlier_refusal(&env, kind, id))
    {
        return answer(Ruling::block(earlier));
    }
    let tool = match &event {
        Event::PreToolUse { call, .. } => Some(call.tool.as_str()),
        _ => None,
    };
    let called = (tool, session.session_id.as_deref());
    let check = pin::checked_call(&env, kind, cwd, called, config.as_deref(), hookhost);
    if !check.refusals.is_empty() {
        return answer(Ruling::block(check.refusals.join("\n")));
    }
    let call = Call {
        set_by_project: Some(check.set_by_project),
        ..call
    };
    answer(call.judge(&env, Scope::User).await)
}

/// One bridged call, as every session that judges it needs it.
struct Call<'a> {
    global: &'a GlobalOptions,
    kind: AgentKind,
    event: &'a Event,
    agent: &'a AgentSession,
    deadline: Instant,
    budget_ms: u64,
    caller: &'a Caller,
    /// The caller's [`LateStart`], with the answer to a start that outlives the deadline
    /// as the agent reads it, for it to send.
    late_start: (&'a dyn LateStart, Reply),
    /// What the agent's project files, found from the call's folder, hand its hooks, when
    /// the pin check read them already ([`pin::CallCheck`]).
    set_by_project: Option<Vec<OsString>>,
}

impl Call<'_> {
    /// Starts the `scope` session made from `env` and runs the call's gate in it, all
    /// within the call's deadline: a refusal at start and a hook that outlives the budget
    /// are denies.
    async fn judge(&self, env: &Environment, scope: Scope) -> Ruling {
        let host = match start_within(self, env, scope).await {
            Ok(host) => host,
            Err(refusal) => return Ruling::refused(&refusal),
        };
        // SIGINT or SIGTERM (the agent giving up on the bridge), or the bridge that handed
        // this call over closing its connection, ends the hooks in order; the answer is
        // then a deny.
        let (cancel, _stopped) = match &self.caller.stop {
            Some(stop) => (stop.child_token(), None),
            None => {
                let cancel = CancellationToken::new();
                let stopped = super::cancel_on_stop(cancel.clone());
                (cancel, Some(stopped))
            }
        };
        let gate = async {
            match self.event {
                Event::PreToolUse { session, call } => {
                    host.pre_tool_use_call(call, &caller_facts(session), &cancel)
                        .await
                }
                Event::Prompt { session, prompt } => {
                    // A prompt starts the agent's next turn: failure warnings may be shown
                    // again.
                    host.end_turn();
                    host.prompt_from(prompt, &caller_facts(session), &cancel)
                        .await
                }
                Event::Other { .. } | Event::SettingsChanged { .. } => Verdict::allow(),
            }
        };
        // The deadline is polled beside the gate, not by a task of its own: in the warm
        // server a task's spawn wakes a worker thread on another CPU on every call.
        let deadline = tokio::time::sleep_until(self.deadline.into());
        let verdict = until_done(gate, deadline, || cancel.cancel()).await;
        let out_of_time = Instant::now() >= self.deadline;
        let is_prompt = matches!(self.event, Event::Prompt { .. });
        let outcome = match (&verdict.outcome, out_of_time) {
            (dispatch::Outcome::Interrupted, true) => {
                timed_out(&verdict, scope.owner(), is_prompt, self.budget_ms)
            }
            _ => Ruling::from_verdict(&verdict, scope.owner()),
        };
        // The record is released before the answer is written: the agent's next call of
        // this session may be waiting for it.
        drop(host);
        outcome
    }
}

/// Runs `work` to its end, calling `then` once if `trigger` ends first (a deadline, the
/// bridge that handed the call over giving up): `work` then winds down on its own, its
/// hooks cancelled. Both are polled by the thread that awaits this, so nothing is spawned.
pub(super) async fn until_done<T>(
    work: impl std::future::Future<Output = T>,
    trigger: impl std::future::Future<Output = ()>,
    then: impl FnOnce(),
) -> T {
    let mut work = std::pin::pin!(work);
    let mut trigger = std::pin::pin!(trigger);
    let mut then = Some(then);
    std::future::poll_fn(|cx| {
        if then.is_some()
            && trigger.as_mut().poll(cx).is_ready()
            && let Some(then) = then.take()
        {
            then();
        }
        work.as_mut().poll(cx)
    })
    .await
}

/// `bridge --system` (docs/contract.md#system-mode): the administrator's session, made
/// from nothing the agent could set (the fixed config, a stripped environment, this
/// binary root's alone), then, unless it blocked, the user's own session as without
/// `--system` (`user_env`: the environment less the agent's steering), the two answers
/// joined by [`scope::combine`]. The user-scope pin checks do not apply: the
/// registration lives in a file only root can write. What the user can write that makes
/// the agent run no hook at all, the system file's included (a mode without hooks, a
/// folder it does not trust: docs/system-scope.md), refuses the call as it does without
/// `--system`.
async fn system_answer(call: &Call<'_>, user_env: &Environment, cwd: Option<&Path>) -> Ruling {
    if !hookhost::system::SUPPORTED {
        return Ruling::block(hookhost::system::NOT_SUPPORTED);
    }
    let (env, ignored) = hookhost::system::environment(&call.caller.env);
    let ignored: Vec<String> = hookhost::system::ignored_line(&ignored)
        .into_iter()
        .collect();
    let with_ignored = |ruling: Ruling| Ruling {
        warnings: ignored.iter().cloned().chain(ruling.warnings).collect(),
        ..ruling
    };
    if let Err(refusal) = hookhost::system::check_running_binary() {
        return with_ignored(Ruling::refused(&refusal.to_string()));
    }
    if let Some(cwd) = cwd {
        let off = pin::no_hook_runs(call.kind, user_env, cwd);
        if !off.is_empty() {
            return with_ignored(Ruling::block(off.join("\n")));
        }
    }
    let system = call.judge(&env, Scope::System { fill_cache: false }).await;
    let user = match system.block {
        Some(_) => None,
        None => Some(call.judge(user_env, Scope::User).await),
    };
    with_ignored(scope::combine(system, user))
}

/// A settings file changed while the agent runs: refused when the change removes,
/// weakens or switches off a pinned registration of hookhost (then the agent keeps the
/// settings it had), else no objection.
fn settings_changed(
    kind: AgentKind,
    event: &Event,
    session: &AgentSession,
    file_path: Option<&str>,
    caller: &Caller,
) -> Reply {
    let cwd = session
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(|c| caller.resolve(PathBuf::from(c)));
    let cwd = cwd.as_deref();
    let (env, _) = caller
        .env
        .without_agent_steering(cwd, kind.stated_root(&caller.env).as_deref());
    let file_path = file_path.map(|f| caller.resolve(PathBuf::from(f)));
    let problems = pin::refused_change(&env, kind, cwd, file_path.as_deref());
    if !problems.is_empty()
        && let Some(id) = session.session_id.as_deref()
    {
        pin::refused_sessions::remember(&env, kind, id, &problems.join(" "));
    }
    let outcome = match problems.is_empty() {
        true => Ruling::no_objection(),
        false => Ruling::block(problems.join("\n")),
    };
    kind.protocol().answer(event, &outcome)
}

/// A hook that outlived the bridge's budget: a failure, fail closed, with the spec's
/// message for the hook that was running, named as `owner`'s.
fn timed_out(verdict: &Verdict, owner: HookOwner, is_prompt: bool, budget_ms: u64) -> Ruling {
    let kind = format!("timed out after {budget_ms} ms, the bridge's budget for one call");
    let hook = verdict.hook.as_deref().unwrap_or("unnamed");
    // The failure message names only the gate's kind, not its fields.
    let (event, gate) = if is_prompt {
        (
            hookhost::config::Event::UserPromptSubmit,
            Gate::Prompt { prompt: "" },
        )
    } else {
        (
            hookhost::config::Event::PreToolUse,
            Gate::Call {
                tool_name: "",
                tool_use_id: "",
            },
        )
    };
    let mut warnings = verdict.warnings.clone();
    warnings.push(dispatch::failure_warning(event, owner, hook, &kind, true));
    Ruling {
        block: Some(dispatch::failure_message(gate, owner, hook, &kind)),
        warnings,
        ..Ruling::default()
    }
}

/// [`start`], within `deadline`: the start loads the config and compiles or loads every
/// WASM hook, and a compile into a cold cache can take longer than the agent waits, which
/// most agents read as "go ahead" (docs/threats.md#n6). A start that does not finish in
/// time is a deny that says how to fill the cache.
///
/// The start runs on the call's own thread, and the caller's [`LateStart`] (the warm
/// server's keeper, a bridge process's [`Watchdog`]) sends the deny at the deadline if the
/// start is still running. A bridge process once ran it on a blocking thread waited for
/// until the deadline: a thread of its own per call, as the watchdog is, and a crossing
/// to it and back (two wake-ups of another CPU, BENCHMARKS.md, seventeenth sitting).
async fn start_within(call: &Call<'_>, env: &Environment, scope: Scope) -> Result<Session, String> {
    let (deadline, budget_ms) = (call.deadline, call.budget_ms);
    let how = Start {
        kind: call.kind,
        deadline,
        budget_ms,
        scope,
        folder: call.caller.cwd.clone(),
        engines: call.caller.engines.clone(),
        set_by_project: call.set_by_project.clone(),
    };
    let (late, deny) = &call.late_start;
    late.arm(deadline, deny);
    let started = start(call.global, call.agent, env, how).await;
    // A start that ended past the deadline runs no hook, whoever answers.
    if !late.disarm() || Instant::now() >= deadline {
        return Err(start_timeout_message(budget_ms));
    }
    started
}

/// How [`start`] starts: for which agent, by when, whose policy, from which folder
/// (`None`: this process's).
struct Start {
    kind: AgentKind,
    deadline: Instant,
    budget_ms: u64,
    scope: Scope,
    folder: Option<PathBuf>,
    engines: Option<EngineShelf>,
    /// [`Call::set_by_project`].
    set_by_project: Option<Vec<OsString>>,
}

/// The deny for a start that outlived the budget.
fn start_timeout_message(budget_ms: u64) -> String {
    format!(
        "hookhost could not start its hooks within {budget_ms} ms, the bridge's budget for one call (compiling a WASM hook into an empty compile cache takes longer), so this call was blocked. This is not a policy decision: tell the user to run `hookhost check`, which fills the compile cache, or to raise the budget with `hookhost install AGENT --budget-ms N`."
    )
}

/// Starts the session for one call: the project is the one the agent's session started
/// in (the root the agent states, else its `cwd`), the session its
/// session, and the record the one every call of that session appends to (created by
/// the first call, resumed with today's config by the others, waited for while another
/// call holds it). Any error is the refusal text the agent shows.
async fn start(
    global: &GlobalOptions,
    agent: &AgentSession,
    env: &Environment,
    how: Start,
) -> Result<Session, String> {
    let Start {
        kind,
        deadline,
        budget_ms,
        scope,
        folder,
        engines,
        set_by_project,
    } = how;
    let mut options = global.session_options(Mode::OneShot);
    options.scope = scope;
    options.engines = engines;
    if options.env.is_none() {
        options.env = Some(env.vars().to_vec());
    }
    // The project: the root the agent states for its hooks, else its folder; a later call
    // of the session keeps the one its record started with, so that the model's `cd`
    // cannot move it (docs/agents.md#the-project).
    let stated = kind
        .declaration()
        .project_variable
        .and_then(|name| env.get(name))
        .map(PathBuf::from)
        .filter(|root| root.is_absolute());
    if let Some(project) = stated.or_else(|| {
        agent
            .cwd
            .as_deref()
            .filter(|c| !c.is_empty())
            .map(PathBuf::from)
    }) {
        options.project = project;
    }
    // A call handed over by another process names its folders from its own.
    if let Some(folder) = folder {
        if options.project.as_os_str().is_empty() {
            options.project = folder;
        } else if options.project.is_relative() {
            options.project = folder.join(&options.project);
        }
    }
    // The agents' logins, in their moved folders too, as this call's environment moves
    // them (docs/threats.md#f8); the administrator's session takes no folder from the
    // user's environment, which could hide the administrator's hooks' own files.
    options.extra_default_hidden = match scope {
        Scope::User => hookhost::bridge::credentials::hidden_paths_in(
            |name| env.get(name).map(ToOwned::to_owned),
            &options.project,
            env.home().as_deref(),
        ),
        Scope::System { .. } => hookhost::bridge::credentials::hidden_paths(),
    };
    options.keep_recorded_project = true;
    // The agent runs on the host: the temp folders are its, whatever box the hooks use.
    options.agent_outside_box = true;
    // What the agent's project files hand its hooks is the agent's to choose: none of it
    // reaches hookhost's (docs/threats.md#n11). Read from the project and from the call's
    // folder, which the model's `cd` moves.
    let cwd = agent
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|cwd| cwd.is_absolute());
    // One walk up from the `cwd` passes the project too, when the `cwd` is in it; the pin
    // check made that walk already, when it ran.
    let in_project = cwd
        .as_deref()
        .is_some_and(|cwd| cwd.starts_with(&options.project));
    let mut folders: Vec<&Path> = Vec::new();
    if !in_project {
        folders.push(options.project.as_path());
    }
    let mut withheld = set_by_project.unwrap_or_else(|| {
        folders.extend(cwd.as_deref());
        Vec::new()
    });
    withheld.extend(pin::set_by_project_files(kind, env, &folders));
    withheld.sort();
    withheld.dedup();
    options.withheld_from_hooks = withheld;
    if let Some(id) = &agent.session_id {
        options.session_id = Some(id.clone());
    }
    if let Some(mode) = &agent.permission_mode {
        options.permission_mode = mode.clone();
    }
    options.default_envelope = EnvelopeShape::ClaudeCode;
    // `--log FILE` names the record; else the agent's session has one of its own. A call
    // with no session id is recorded nowhere: there is no session to append to. The
    // system session reads the fixed system config and keeps a record of its own, beside
    // the user's.
    let log = options.log.take();
    let id = agent.session_id.as_deref();
    let record = match scope {
        Scope::User => log.or_else(|| bridge::record_path(env, kind, id?)),
        Scope::System { .. } => {
            options.config = Some(PathBuf::from(hookhost::system::CONFIG));
            id.and_then(|id| bridge::system_record_path(env, kind, id))
        }
    };
    let Some(record) = record else {
        return Session::start(options).map_err(|e| e.to_string());
    };
    Session::start_shared(options, record, deadline, budget_ms)
        .await
        .map_err(|e| e.to_string())
}
