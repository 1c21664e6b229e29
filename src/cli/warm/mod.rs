//! `hookhost warm`, and what a bridge the warm server did not answer runs with
//! ([`hookhost::warm`], docs/contract.md#the-warm-server).
//!
//! - The hand-over itself ([`hookhost::warm::client::hand_over`]) runs in `main` before
//!   anything else (no argument parser, no runtime); a call it leaves to this process
//!   runs with the stdin it read ([`caller`]).
//! - [`command`] is the server: each call is answered on the thread that took its
//!   connection ([`Acceptors`]), on that thread's own runtime, which runs
//!   [`super::bridge::command`] with the caller's arguments, environment, folder and
//!   stdin, exactly as a bridge process would; the session's start included, a start
//!   that outlives the call's deadline being answered by the [`keeper`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hookhost::bridge::AgentKind;
use hookhost::env::Environment;
use hookhost::executor::CancellationToken;
use hookhost::executor::wasm::EngineShelf;
use hookhost::signals::StopSignals;
use hookhost::warm::client::Prepared;
use hookhost::warm::{self, Answer, Request, Server};

use super::bridge::{self as bridge_cli, Caller};
use super::exit::Exit;
use super::{Cli, Command, say};

mod keeper;

use keeper::{CallSlot, Keeper};

/// The caller a bridged call the hand-over did not answer is run for: this process,
/// with what was read.
pub fn caller(prepared: Prepared) -> Caller {
    let mut caller = Caller::this_process(Some(Vec::new()), prepared.started);
    caller.stdin = prepared.stdin;
    caller.refused = prepared.unanswered;
    caller
}

/// `hookhost warm`: answers bridged calls at `socket` (else the user's default) until
/// SIGINT or SIGTERM, or until the hookhost binary it runs is replaced.
pub async fn command(socket: Option<PathBuf>) -> Exit {
    let Some(socket) = socket.or_else(warm::default_socket) else {
        say(&format!("hookhost warm: {}", warm::WarmError::NoSocket));
        return Exit::CouldNotRun;
    };
    if !socket.is_absolute() {
        say(&format!(
            "hookhost warm: --warm-socket {} is not an absolute path; the bridge takes absolute ones only",
            socket.display()
        ));
        return Exit::CouldNotRun;
    }
    let server = match Server::listen(&socket) {
        Ok(server) => Arc::new(server),
        Err(e) => {
            say(&format!("hookhost warm: {e}"));
            return Exit::CouldNotRun;
        }
    };
    // Its boxed hooks start the small entry program this binary carries; its host
    // hooks' namespaces are made ahead of their calls, by this binary.
    hookhost::sandbox::prepare_carried_entry();
    hookhost::process::prepare_host_namespaces_ahead_by_this_binary();
    say(&format!(
        "hookhost warm: answering bridged calls at {} (pid {}); stop it with Ctrl-C or SIGTERM",
        socket.display(),
        std::process::id()
    ));
    let runtime = tokio::runtime::Handle::current();
    let (replaced_tx, mut replaced) = tokio::sync::mpsc::unbounded_channel::<()>();
    let keeper = match Keeper::start() {
        Ok(keeper) => keeper,
        Err(e) => {
            say(&format!("hookhost warm: cannot start a thread: {e}"));
            return Exit::CouldNotRun;
        }
    };
    Arc::new(Acceptors {
        server: server.clone(),
        engines: EngineShelf::new(),
        keeper,
        runtime,
        replaced: replaced_tx,
        waiting: AtomicUsize::new(0),
        alive: AtomicUsize::new(0),
    })
    .start_one();
    let stop = async {
        match StopSignals::listen() {
            Ok(mut signals) => {
                signals.recv().await;
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    };
    // A replaced binary is noticed at the next call, or within this period when idle.
    let watch = async {
        loop {
            tokio::time::sleep(Duration::from_secs(10)).await;
            if server.binary_replaced() {
                return;
            }
        }
    };
    let why = tokio::select! {
        _ = stop => "stopped",
        _ = replaced.recv() => "its binary was replaced",
        _ = watch => "its binary was replaced",
    };
    // Calls in flight are abandoned with the process: their bridges see the connection
    // close and judge the call themselves.
    let _ = std::fs::remove_file(&socket);
    say(&format!("hookhost warm: {why}; no longer answering"));
    Exit::Success
}

/// How many calls the server runs at once. A call is a thread (and a bridge waiting);
/// past this a connection waits in the socket's queue until a call ends, and its bridge,
/// greeted by no one within a second (or finding the queue full), runs the call itself.
const MAX_CALLS: usize = 256;

/// How many threads wait for the next connection beyond the one that takes it: more
/// than that are ended as their calls end.
const SPARE_ACCEPTORS: usize = 2;

/// The threads that take the connections. Each waits in `accept` and answers the call it
/// took itself, so that a call starts on the thread the kernel woke for it, with no
/// thread made for it while one waits (a crossing between threads costs a wake-up on
/// another CPU: BENCHMARKS.md, tenth sitting). When the last waiting thread takes a
/// call, another starts waiting.
struct Acceptors {
    server: Arc<Server>,
    engines: EngineShelf,
    /// Answers a call whose start outlives its deadline.
    keeper: Keeper,
    runtime: tokio::runtime::Handle,
    replaced: tokio::sync::mpsc::UnboundedSender<()>,
    /// Threads waiting in `accept`.
    waiting: AtomicUsize,
    /// Threads alive, waiting or answering: at most [`MAX_CALLS`].
    alive: AtomicUsize,
}

impl Acceptors {
    /// Starts one more waiting thread, unless [`MAX_CALLS`] are alive.
    fn start_one(self: &Arc<Self>) {
        let counted = self
            .alive
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_CALLS).then_some(n + 1)
            })
            .is_ok();
        if !counted {
            tracing::debug!("hookhost warm: {MAX_CALLS} calls in flight; the next one waits");
            return;
        }
        self.waiting.fetch_add(1, Ordering::AcqRel);
        let acceptors = self.clone();
        let started = std::thread::Builder::new()
            .name("hookhost-warm-call".into())
            .spawn(move || acceptors.take_calls());
        if let Err(e) = started {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            self.alive.fetch_sub(1, Ordering::AcqRel);
            tracing::debug!("hookhost warm: no thread for the next call: {e}");
        }
    }

    /// Takes connections and answers their calls until the listener fails or enough
    /// other threads wait.
    fn take_calls(self: Arc<Self>) {
        // A runtime of the thread's own: a call's pipes, pidfds, timers and connection are
        // then watched by the call's own thread, which the kernel wakes directly, not by
        // a worker that then wakes it (a host hook's call crossed threads 18 times,
        // now 11: BENCHMARKS.md, seventeenth sitting). Without one, the shared runtime.
        let own = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .inspect_err(|e| tracing::debug!("hookhost warm: no runtime of the thread's own: {e}"))
            .ok();
        let runtime = match &own {
            Some(own) => CallRuntime::Own(own),
            None => CallRuntime::Shared(&self.runtime),
        };
        let mut failures = 0;
        loop {
            let connection = match self.server.accept() {
                Ok(connection) => {
                    failures = 0;
                    connection
                }
                // A connection gone before it was taken, or no fd left for one right now
                // (a burst of hooks holds them): the next one may well be taken.
                Err(e) if failures < 100 && warm::passing(&e) => {
                    failures += 1;
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                Err(e) => {
                    say(&format!("hookhost warm: the socket failed: {e}"));
                    self.waiting.fetch_sub(1, Ordering::AcqRel);
                    self.alive.fetch_sub(1, Ordering::AcqRel);
                    let _ = self.replaced.send(());
                    return;
                }
            };
            if self.waiting.fetch_sub(1, Ordering::AcqRel) == 1 {
                self.start_one();
            }
            one_call(
                &self.engines,
                &self.keeper,
                &self.server,
                connection,
                &runtime,
                &self.replaced,
            );
            if self.waiting.load(Ordering::Acquire) > SPARE_ACCEPTORS {
                self.alive.fetch_sub(1, Ordering::AcqRel);
                return;
            }
            self.waiting.fetch_add(1, Ordering::AcqRel);
        }
    }
}

/// Reads, judges and answers one bridged call.
fn one_call(
    engines: &EngineShelf,
    keeper: &Keeper,
    server: &Server,
    mut connection: warm::Connection,
    runtime: &CallRuntime<'_>,
    replaced: &tokio::sync::mpsc::UnboundedSender<()>,
) {
    // Checked before the call is read: a bridge of the new binary greets, sees another
    // binary, and leaves without sending one.
    if server.binary_replaced() {
        let _ = replaced.send(());
        return;
    }
    let taken = Instant::now();
    let request = match connection.read_call(server) {
        Ok(request) => request,
        Err(e) => {
            tracing::debug!("hookhost warm: a connection not served: {e}");
            return;
        }
    };
    let options = match bridged(&request) {
        Ok(options) => options,
        Err(why) => {
            tracing::debug!(
                took_us = taken.elapsed().as_micros() as u64,
                "hookhost warm: a bridged call declined ({why})"
            );
            let _ = connection.answer(&Answer::Declined(why));
            return;
        }
    };
    let (global, flag, budget_ms) = options;
    let stop = CancellationToken::new();
    let Ok(closed) = connection.closed(runtime.handle()) else {
        let _ = connection.answer(&Answer::Declined("the call cannot be watched".into()));
        return;
    };
    // The connection is shared with the keeper: whichever answers first takes it.
    let slot = CallSlot::new(connection, keeper.clone());
    let waited = Duration::from_micros(request.waited_us);
    let caller = Caller {
        env: Environment::from_vars(request.env),
        cwd: Some(request.cwd),
        exe: request.exe,
        stdin: Ok(request.stdin),
        started: Instant::now()
            .checked_sub(waited)
            .unwrap_or_else(Instant::now),
        stop: Some(stop.clone()),
        refused: None,
        engines: Some(engines.clone()),
        late_start: Some(Box::new(slot.clone())),
    };
    let judged = bridge_cli::command(&global, flag, budget_ms, false, caller);
    let reply = runtime.block_on(bridge_cli::until_done(judged, closed, move || {
        stop.cancel()
    }));
    let exit_code = reply.exit_code;
    let outcome = match slot.take() {
        Some(connection) => {
            let _ = connection.answer(&answer_of(reply));
            format!("answered, exit {exit_code}")
        }
        None => "answered at its deadline, its start still running".to_string(),
    };
    tracing::debug!(
        took_us = taken.elapsed().as_micros() as u64,
        "hookhost warm: a bridged call {outcome}"
    );
}

/// The runtime a call runs on: its thread's own (a current-thread runtime, which only
/// its `Runtime::block_on` drives: a `Handle::block_on` of it would leave the call's
/// spawned readers and its I/O unpolled), else the server's.
enum CallRuntime<'a> {
    Own(&'a tokio::runtime::Runtime),
    Shared(&'a tokio::runtime::Handle),
}

impl CallRuntime<'_> {
    fn handle(&self) -> &tokio::runtime::Handle {
        match self {
            CallRuntime::Own(own) => own.handle(),
            CallRuntime::Shared(handle) => handle,
        }
    }

    fn block_on<F: std::future::Future>(&self, work: F) -> F::Output {
        match self {
            CallRuntime::Own(own) => own.block_on(work),
            CallRuntime::Shared(handle) => handle.block_on(work),
        }
    }
}

/// `reply` as the wire carries it.
fn answer_of(reply: hookhost::bridge::Reply) -> Answer {
    Answer::Reply {
        stdout: reply.stdout.into_bytes(),
        stderr: reply.stderr.into_bytes(),
        exit_code: reply.exit_code,
    }
}

/// The bridge call `request` makes, when it is one the server takes.
fn bridged(request: &Request) -> Result<BridgeOptions, String> {
    let taken = bridge_options(&request.argv)?;
    // A relative HOME names the bridge's folders (config, pins, records) from its own
    // working folder: that call, too, is the bridge's own to run.
    let home = request.env.iter().find(|(name, _)| name == "HOME");
    if home.is_some_and(|(_, value)| !value.is_empty() && Path::new(value).is_relative()) {
        return Err("a relative HOME".into());
    }
    Ok(taken)
}

/// A bridge's options, agent flag and budget.
type BridgeOptions = (super::GlobalOptions, Option<AgentKind>, Option<u64>);

/// What a bridge's arguments ask of the server (its options, agent and budget), or why
/// the server does not take them. The shapes `install` writes are read as a bridge
/// process reads them, without clap ([`super::bridge_args`]); any other goes through
/// clap's parser.
fn bridge_options(argv: &[OsString]) -> Result<BridgeOptions, String> {
    let cli = match super::bridge_args::registered_bridge(argv) {
        Some(cli) => cli,
        None => parse(argv)?,
    };
    match cli.command {
        Command::Bridge {
            agent,
            budget_ms,
            system: false,
            ..
        } if cli.global.verbose == 0 => {
            // A relative path names a file from the bridge's own folder, and its messages
            // name it as given: that call is the bridge's own to run.
            let global = &cli.global;
            let relative = |p: &Option<PathBuf>| p.as_deref().is_some_and(|p| p.is_relative());
            if relative(&global.config)
                || relative(&global.project)
                || relative(&global.log)
                || relative(&global.private_tmp)
                || global.writable.iter().any(|p| p.is_relative())
            {
                return Err("a relative path among its options".into());
            }
            let flag = agent.as_deref().and_then(AgentKind::from_flag);
            Ok((cli.global, flag, budget_ms))
        }
        _ => Err("not a bridged call the warm server takes".into()),
    }
}

/// `argv` through clap's parser, built once and parsing in place (clap builds its whole
/// command tree on every parse). Calls at once take turns (a parse is tens of
/// microseconds).
fn parse(argv: &[OsString]) -> Result<Cli, String> {
    static PARSER: std::sync::OnceLock<std::sync::Mutex<clap::Command>> =
        std::sync::OnceLock::new();
    let parser = PARSER.get_or_init(|| {
        let mut parser = <Cli as clap::CommandFactory>::command();
        parser.build();
        std::sync::Mutex::new(parser)
    });
    let matches = parser
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .try_get_matches_from_mut(argv)
        .map_err(|e| e.kind().to_string())?;
    <Cli as clap::FromArgMatches>::from_arg_matches(&matches).map_err(|e| e.kind().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn a_bridges_arguments_read_the_same_every_time_and_a_relative_home_still_counts() {
        let argv = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        let taken = argv(&[
            "hookhost",
            "bridge",
            "--agent",
            "codex",
            "--budget-ms",
            "900",
        ]);
        let relative = argv(&[
            "hookhost", "--config", "c.toml", "bridge", "--agent", "codex",
        ]);
        let verbose = argv(&["hookhost", "-v", "bridge", "--agent", "codex"]);
        for _ in 0..2 {
            let (global, flag, budget) = bridge_options(&taken).unwrap();
            assert_eq!(
                (flag, budget, global.config),
                (Some(AgentKind::Codex), Some(900), None)
            );
            assert_eq!(
                bridge_options(&relative).unwrap_err(),
                "a relative path among its options"
            );
            assert!(bridge_options(&verbose).is_err());
        }
        // Many argument lists, one after another: each reads as parsed.
        for n in 0..20 {
            let budget = (1000 + n).to_string();
            let (_, _, kept) =
                bridge_options(&argv(&["hookhost", "bridge", "--budget-ms", &budget])).unwrap();
            assert_eq!(kept, Some(1000 + n));
        }
        // The caller's HOME is read per call.
        let request = |home: &str| Request {
            argv: taken.clone(),
            env: vec![("HOME".into(), home.into())],
            ..Request::default()
        };
        assert!(bridged(&request("/home/u")).is_ok());
        assert_eq!(bridged(&request("home/u")).unwrap_err(), "a relative HOME");
        assert!(bridged(&request("/home/u")).is_ok());
    }

    #[test]
    fn the_global_options_with_a_value_are_the_parsers() {
        let parser = Cli::command();
        let mut taking: Vec<String> = parser
            .get_arguments()
            .filter(|a| a.is_global_set() && a.get_action().takes_values())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        taking.sort();
        let mut ours = hookhost::warm::client::GLOBAL_WITH_VALUE
            .map(String::from)
            .to_vec();
        ours.sort();
        assert_eq!(taking, ours);
    }
}
