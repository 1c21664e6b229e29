//! The command line: the binary's thin layer over the library's
//! [`hookhost::session::Session`]. Part of the binary only: clap never reaches the library.
//!
//! - `mod.rs`: the flags ([`Cli`], [`GlobalOptions`] → [`hookhost::session::SessionOptions`]),
//!   the runtime, logs, and text output helpers;
//! - [`exit`]: the one place an exit status is chosen (0 go ahead, 1 blocked, 2 could not
//!   run, 130 interrupted, …);
//! - [`gate`] (`check`, `pre-tool-use`, `prompt`), [`serve`], [`eval`], [`log`] (`log show`,
//!   `replay`) and [`boxed`] (`box`): one file per front end, siblings that never import
//!   one another.
//!
//! Text output is for a person's terminal: every line goes through
//! [`hookhost::escape::for_terminal`] (through `say` and `line`), except the prompt that
//! `prompt` echoes, which is the caller's own input given back byte for byte. `--json`
//! output is exact.

mod boxed;
mod bridge;
mod bridge_args;
mod doctor;
mod eval;
mod exit;
mod gate;
mod install;
mod log;
mod serve;
mod warm;

use hookhost::warm::client::Prepared;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use clap::{Args, Parser, Subcommand};
use hookhost::escape::for_terminal;
use hookhost::executor::CancellationToken;
use hookhost::session::{Mode, SessionOptions};
use hookhost::signals::{Stop, StopSignals};

use exit::Exit;

/// hookhost: runs an agent's hooks before tool calls and on prompts.
#[derive(Debug, Parser)]
#[command(name = "hookhost", version, about)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalOptions,
    #[command(subcommand)]
    command: Command,
}

/// Options every subcommand takes, before or after it.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalOptions {
    /// The config file (default: $HARNESS_HOME/config.toml, else $XDG_CONFIG_HOME/harness/config.toml, else ~/.config/harness/config.toml on Linux, ~/Library/Application Support/harness/config.toml on macOS, %APPDATA%\harness\config.toml on Windows).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The project root (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Run no hooks at all (the way out of a hook that is failing closed).
    #[arg(long, global = true)]
    pub no_hooks: bool,
    /// A session without a sandbox: every argv hook runs on the host.
    #[arg(long, global = true)]
    pub no_sandbox: bool,
    /// A folder the agent's commands may write (repeatable; adds to `[sandbox] writable`).
    #[arg(long, global = true, value_name = "DIR")]
    pub writable: Vec<PathBuf>,
    /// The agent's private temp folder.
    #[arg(long, global = true, value_name = "DIR")]
    pub private_tmp: Option<PathBuf>,
    /// The session id (default: a new one).
    #[arg(long, global = true, value_name = "ID")]
    pub session_id: Option<String>,
    /// The permission mode in force.
    #[arg(long, global = true, value_name = "NAME", default_value = "auto")]
    pub permission_mode: String,
    /// The session record (default: under $XDG_STATE_HOME/hookhost, else ~/.local/state/hookhost on Linux, ~/Library/Application Support/hookhost/records on macOS, %LOCALAPPDATA%\hookhost\records on Windows).
    #[arg(long, global = true, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Operator logs on stderr: -v for debug (a line per gate and hook run), -vv for
    /// trace (also each hook's input). HOOKHOST_LOG=FILTER (RUST_LOG syntax) overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// `--resume FILE [--clean]`: resume a recorded session (crash resume).
#[derive(Debug, Args, Clone, Default)]
pub struct ResumeArgs {
    /// Resume the session recorded in FILE (appending to it), keeping the hooks it recorded.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// With --resume: read today's config instead of keeping the recorded hooks.
    #[arg(long, requires = "resume")]
    pub clean: bool,
}

impl ResumeArgs {
    /// The host option these flags describe.
    pub fn resume_from(&self) -> Option<hookhost::record::ResumeFrom> {
        self.resume
            .clone()
            .map(|file| hookhost::record::ResumeFrom {
                file,
                clean: self.clean,
            })
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load, validate and guard the hooks; print the banner.
    Check {
        /// The administrator's policy: check the system config (/etc/hookhost/config.toml)
        /// as `bridge --system` does, and compile its WASM hooks into the system cache
        /// (/var/cache/hookhost). Run as root.
        #[arg(long)]
        system: bool,
    },
    /// Session records.
    Log {
        #[command(subcommand)]
        command: LogCommand,
    },
    /// Re-run a recorded session, serving every hook's effect from the record and starting
    /// nothing; exit 0 when every verdict matched, 1 when not, 2 when the file cannot be read
    /// or its hash chain breaks.
    Replay {
        /// The session record.
        file: PathBuf,
        /// Replay a record whose hash chain breaks (changed after it was written).
        #[arg(long)]
        ignore_chain: bool,
    },
    /// Run one PreToolUse gate.
    PreToolUse {
        #[command(flatten)]
        resume: ResumeArgs,
        /// The tool's name (bash, exec, write_file, …).
        #[arg(long, value_name = "NAME")]
        tool: String,
        /// The call's arguments as JSON (default: read from stdin).
        #[arg(long, value_name = "JSON")]
        input: Option<String>,
        /// The call's id (default: generated).
        #[arg(long, value_name = "ID")]
        tool_use_id: Option<String>,
        /// Print one JSON verdict.
        #[arg(long)]
        json: bool,
    },
    /// Run one UserPromptSubmit gate; stdout is what the model reads.
    Prompt {
        #[command(flatten)]
        resume: ResumeArgs,
        /// The prompt (default: read from stdin).
        text: Option<String>,
        /// Print one JSON verdict.
        #[arg(long)]
        json: bool,
    },
    /// Serve a long session as JSON lines on stdin/stdout (see `hookhost::serve`).
    Serve {
        #[command(flatten)]
        resume: ResumeArgs,
    },
    /// Run hook test cases from a TOML file; prints `N passed, M failed`.
    Eval {
        /// The cases file (`[[case]]` tables).
        #[arg(value_name = "CASES.toml")]
        cases: PathBuf,
    },
    /// Answer one agent's hook event (stdin) in that agent's own form: the one hook that
    /// Claude Code, Codex, Gemini CLI, Cursor and Copilot CLI call. Exits with the agent's
    /// status (2 denies for Claude Code and Codex), not hookhost's.
    Bridge {
        /// The agent registered (the payload's own fingerprint wins when it names another).
        #[arg(long, value_name = "AGENT", value_parser = AGENT_NAMES)]
        agent: Option<String>,
        /// The time budget for this call, in milliseconds (default: the agent's, below
        /// its own hook timeout); a hook that outlives it is a fail-closed deny.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        budget_ms: Option<u64>,
        /// The administrator's policy first (/etc/hookhost/config.toml, root's alone,
        /// nothing taken from the environment), then the user's own hooks; what an
        /// administrator registers in an agent's managed settings.
        #[arg(long)]
        system: bool,
        /// Hand the call to the user's `hookhost warm` at the default socket
        /// (/run/user/UID/hookhost/warm.sock). With neither this nor --warm-socket the call
        /// always runs in this process.
        #[arg(long)]
        warm: bool,
        /// Hand the call to the `hookhost warm` listening at this socket (absolute path;
        /// implies --warm). With no server there the call runs in this process.
        #[arg(long = "warm-socket", value_name = "SOCKET")]
        warm_socket: Option<PathBuf>,
    },
    /// Answer bridged calls from one long-running process: every `hookhost bridge` of this
    /// user hands its call here (same checks, same answers, without a process's start).
    Warm {
        /// The socket (absolute path; its folder is made 0700 when missing; default:
        /// /run/user/UID/hookhost/warm.sock).
        #[arg(long = "warm-socket", value_name = "SOCKET")]
        warm_socket: Option<PathBuf>,
    },
    /// Register `hookhost bridge` in an agent's own settings file.
    Install {
        /// The agent.
        #[arg(value_name = "AGENT", value_parser = AGENT_NAMES)]
        agent: String,
        /// The user's settings (in the home folder), the project's, or the agent's
        /// administrator-managed settings (`system`: run as root).
        #[arg(long, value_name = "SCOPE", value_parser = ["user", "project", "system"], default_value = "user")]
        scope: String,
        /// Print the change; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// The bridge's budget per call in milliseconds (written as `--budget-ms N`; the
        /// agent's timeout is set above it).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        budget_ms: Option<u64>,
        /// Register a bridge that hands its calls to the user's `hookhost warm` at the
        /// default socket (written as `--warm` and pinned). Without it (or --warm-socket)
        /// every call runs in the bridge's own process. Not with --scope system.
        #[arg(long, conflicts_with = "warm_socket")]
        warm: bool,
        /// Register a bridge that hands its calls to the `hookhost warm` at this socket
        /// (absolute path; written as `--warm-socket SOCKET` and pinned). Not with
        /// --scope system.
        #[arg(long = "warm-socket", value_name = "SOCKET")]
        warm_socket: Option<PathBuf>,
    },
    /// Is hookhost doing its job here? Per agent: the bridge registered, pinned and
    /// unchanged, what happens when hookhost cannot answer; the box, the WASM cache, the
    /// recent session records' hash chains. Exit 0 healthy, 1 not, 2 could not run.
    Doctor {
        /// One JSON object on stdout, for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Remove `hookhost bridge` from an agent's own settings file.
    Uninstall {
        /// The agent.
        #[arg(value_name = "AGENT", value_parser = AGENT_NAMES)]
        agent: String,
        /// The user's settings (in the home folder), the project's, or the agent's
        /// administrator-managed settings (`system`: run as root).
        #[arg(long, value_name = "SCOPE", value_parser = ["user", "project", "system"], default_value = "user")]
        scope: String,
        /// Print the change; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Run any command in exactly the box a sandboxed hook gets.
    #[command(name = "box")]
    Boxed {
        /// The command and its arguments (after `--`).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        argv: Vec<std::ffi::OsString>,
    },
}

/// The agents `--agent`, `install` and `uninstall` take.
const AGENT_NAMES: [&str; 8] = [
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "copilot",
    "qwen-code",
    "kimi-code",
    "kiro",
];

#[derive(Debug, Subcommand)]
enum LogCommand {
    /// Print the transcript rows of a session record.
    Show {
        /// The session record.
        file: PathBuf,
    },
    /// Check a session record's hash chain: exit 0 intact, 1 broken (the first changed
    /// line named), 2 unreadable.
    Verify {
        /// The session record.
        file: PathBuf,
    },
}

impl GlobalOptions {
    /// The session options these flags describe.
    pub fn session_options(&self, mode: Mode) -> SessionOptions {
        SessionOptions {
            config: self.config.clone(),
            project: self.project.clone().unwrap_or_default(),
            no_hooks: self.no_hooks,
            no_sandbox: self.no_sandbox,
            writable: self.writable.clone(),
            // Every agent's credential stores, hidden in the box by default (N12), in
            // the folders this process's environment moves them to too.
            extra_default_hidden: hookhost::bridge::credentials::hidden_paths_in(
                |name| std::env::var_os(name),
                &(self.project.clone())
                    .or_else(|| std::env::current_dir().ok())
                    .unwrap_or_default(),
                std::env::home_dir().as_deref(),
            ),
            private_tmp: self.private_tmp.clone(),
            agent_outside_box: false,
            withheld_from_hooks: Vec::new(),
            session_id: self.session_id.clone(),
            permission_mode: self.permission_mode.clone(),
            mode,
            env: None,
            log: self.log.clone(),
            resume: None,
            // This very binary is the box's entry point (src/main.rs).
            box_entry: Some(hookhost::sandbox::running_binary()),
            default_envelope: hookhost::envelope::EnvelopeShape::Spec,
            keep_recorded_project: false,
            scope: hookhost::session::Scope::User,
            engines: None,
        }
    }
}

/// Runs the command line of a process started at `started`; returns the exit status.
/// `prepared`: a bridged call the warm server did not answer, its stdin already read
/// ([`hookhost::warm::client::hand_over`]).
pub fn main(prepared: Option<Prepared>, started: std::time::Instant) -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = bridge_args::registered_bridge(&args).unwrap_or_else(|| Cli::parse_from(&args));
    // A bridged call is refused in its agent's own form whatever stops this process: exit
    // 2 alone is a deny to most agents' tool calls, but not to all their events (Copilot
    // CLI only warns of it on a prompt, and sends the prompt).
    let bridged = match &cli.command {
        Command::Bridge { agent, .. } => Some(
            agent
                .as_deref()
                .and_then(hookhost::bridge::AgentKind::from_flag),
        ),
        _ => None,
    };
    // What keeps this process from judging anything: the command ends with it, and a
    // bridged call is refused with it.
    let unready = init_logs(cli.global.verbose)
        .and_then(|()| {
            hookhost::process::harden_host_process(true)
                .map_err(|e| format!("cannot harden the host process: {e}"))
        })
        .err();
    if let (Some(why), None) = (&unready, bridged) {
        say(&format!("hookhost: {why}"));
        return Exit::CouldNotRun.into();
    }
    // A burst of hook processes needs fds; the slots for them follow this limit.
    let _ = hookhost::process::raise_open_file_limit();
    // `serve` runs requests in parallel; every other command runs one thing at a time.
    let mut builder = match cli.command {
        Command::Serve { .. } | Command::Warm { .. } => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(2);
            if matches!(cli.command, Command::Warm { .. }) {
                // An agent's calls come seconds apart (the model thinks between them):
                // with tokio's 10 s, each such call would start the thread its session
                // start runs on afresh. A few idle threads cost nothing.
                b.thread_keep_alive(WARM_THREAD_KEEP_ALIVE);
            }
            b
        }
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            let why = format!("cannot start the runtime: {e}");
            return match bridged {
                Some(flag) => {
                    let caller = bridge_caller(prepared, started);
                    bridge_exit(&bridge::refuse_unjudged(flag, &caller, &not_started(&why)))
                }
                None => {
                    say(&format!("hookhost: {why}"));
                    Exit::CouldNotRun.into()
                }
            };
        }
    };
    // A panic ends with "could not run" and says it is a bug, not with Rust's 101, which
    // no command's contract has (`pre-tool-use`'s 1 is "blocked", 2 "could not run"); a
    // bridged call is refused (its judging catches its own panics, and refuses the call
    // in the form for its event).
    let ran = runtime.block_on(hookhost::panics::catching_panics(run(
        cli,
        prepared,
        started,
        unready.as_deref().map(not_started),
    )));
    let code = match (ran, bridged) {
        (Ok(code), _) => code,
        (Err(panic), Some(flag)) => {
            let agent = flag.unwrap_or(hookhost::bridge::AgentKind::ClaudeCode);
            bridge_exit(&agent.protocol().refuse(&format!(
                "hookhost failed while it read this call ({panic}), so this call was blocked. This is not a policy decision: it is a bug in hookhost; tell the user."
            )))
        }
        (Err(panic), None) => {
            say(&format!(
                "hookhost: an internal error stopped this command ({panic}); this is a bug in hookhost"
            ));
            Exit::CouldNotRun.into()
        }
    };
    // A read of stdin may still be pending on a blocking thread (`serve` after a
    // signal): do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

/// The refusal of a bridged call this process could not set itself up to judge.
fn not_started(why: &str) -> String {
    format!(
        "hookhost could not start ({why}), so this call was blocked. This is not a policy decision: tell the user."
    )
}

/// The caller of a bridged call: this process, or the one whose call the warm server did
/// not answer.
fn bridge_caller(prepared: Option<Prepared>, started: std::time::Instant) -> bridge::Caller {
    match prepared {
        Some(prepared) => warm::caller(prepared),
        None => bridge::Caller::this_process(None, started),
    }
}

/// Writes a bridged call's `reply`, unless the watchdog answered first, and gives the
/// status to exit with.
fn bridge_exit(reply: &hookhost::bridge::Reply) -> ExitCode {
    if !hookhost::bridge::watchdog::write_once(reply) {
        // The watchdog answered with its deny and is ending the process with it.
        return ExitCode::from(2);
    }
    // Every agent's statuses fit a byte (0 or 2); anything else would be a bug, and 2 is
    // a deny wherever the status means anything.
    ExitCode::from(u8::try_from(reply.exit_code).unwrap_or(2))
}

/// How long the warm server keeps an idle blocking thread for the next call.
const WARM_THREAD_KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(600);

/// The variable that turns operator logs on, with a `RUST_LOG`-style filter.
pub const LOG_ENV: &str = hookhost::warm::client::LOG_ENV;

/// Installs the operator-log subscriber when `HOOKHOST_LOG` is set or `-v` given:
/// stderr only (stdout carries verdicts and serve's protocol), no colours, span closes
/// with their duration. Off by default, so a quiet run pays nothing for it. A filter that
/// does not parse is an error, not silently no logs.
fn init_logs(verbose: u8) -> Result<(), String> {
    use tracing_subscriber::fmt::format::FmtSpan;
    let filter = match std::env::var(LOG_ENV) {
        // Field values are matched as text, never compiled as regular expressions: the
        // variable can come from a project's settings, and a regex's automaton has no
        // bound on its size or time (a bridge held past its budget, docs/threats.md#b6).
        Ok(spec) if !spec.is_empty() => tracing_subscriber::EnvFilter::builder()
            .with_regex(false)
            .parse(&spec)
            .map_err(|e| {
                format!("{LOG_ENV}={spec:?} is not a log filter ({e}); try {LOG_ENV}=debug")
            })?,
        _ => match verbose {
            0 => return Ok(()),
            1 => tracing_subscriber::EnvFilter::new("hookhost=debug,warn"),
            _ => tracing_subscriber::EnvFilter::new("hookhost=trace,warn"),
        },
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_span_events(FmtSpan::CLOSE)
        .try_init()
        .map_err(|e| format!("cannot start the logs: {e}"))
}

/// Runs the command. The bridge exits with the agent's status (its [`Reply`]), every
/// other command with hookhost's own ([`Exit`]).
///
/// [`Reply`]: hookhost::bridge::Reply
///
/// `unready`: why a bridged call is refused unjudged (this process could not set itself
/// up); every other command has ended before.
async fn run(
    cli: Cli,
    prepared: Option<Prepared>,
    started: std::time::Instant,
    unready: Option<String>,
) -> ExitCode {
    let global = &cli.global;
    let exit = match cli.command {
        Command::Bridge {
            agent,
            budget_ms,
            system,
            warm: _,
            warm_socket: _,
        } => {
            let flag = agent
                .as_deref()
                .and_then(hookhost::bridge::AgentKind::from_flag);
            let mut caller = bridge_caller(prepared, started);
            caller.refused = caller.refused.or(unready);
            let reply = bridge::command(global, flag, budget_ms, system, caller).await;
            return bridge_exit(&reply);
        }
        Command::Check { system: false } => gate::check(global),
        Command::Check { system: true } => gate::check_system(global),
        Command::Log {
            command: LogCommand::Show { file },
        } => log::log_show(&file),
        Command::Log {
            command: LogCommand::Verify { file },
        } => log::log_verify(&file),
        Command::Replay { file, ignore_chain } => log::replay(&file, ignore_chain).await,
        Command::PreToolUse {
            resume,
            tool,
            input,
            tool_use_id,
            json,
        } => gate::pre_tool_use(global, &resume, &tool, input, tool_use_id, json).await,
        Command::Prompt { resume, text, json } => gate::prompt(global, &resume, text, json).await,
        Command::Boxed { argv } => boxed::run_in_box(global, &argv),
        Command::Serve { resume } => serve::command(global, &resume).await,
        Command::Warm { warm_socket } => warm::command(warm_socket).await,
        Command::Eval { cases } => eval::command(global, &cases).await,
        Command::Doctor { json } => doctor::command(global, json),
        Command::Install {
            agent,
            scope,
            dry_run,
            budget_ms,
            warm,
            warm_socket,
        } => install::command(
            global,
            install::Action::Install,
            &agent,
            &scope,
            dry_run,
            budget_ms,
            install::warm_choice(warm, warm_socket),
        ),
        Command::Uninstall {
            agent,
            scope,
            dry_run,
        } => install::command(
            global,
            install::Action::Uninstall,
            &agent,
            &scope,
            dry_run,
            None,
            None,
        ),
    };
    exit.into()
}

/// Which stop signal cancelled a one-shot command, if one did.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stopped(Arc<OnceLock<Stop>>);

impl Stopped {
    /// `exit`, or 143 where SIGTERM (not SIGINT) interrupted the command: a shell's
    /// status for the signal that ended it.
    pub(crate) fn exit(&self, exit: Exit) -> Exit {
        match (exit, self.0.get()) {
            (Exit::Interrupted, Some(Stop::Terminate)) => Exit::Terminated,
            (exit, _) => exit,
        }
    }
}

/// Cancels `token` on SIGINT or SIGTERM (listening from now on, so that neither ends the
/// process with its hooks and temp folder left behind); the verdict is then
/// `interrupted`, and [`Stopped::exit`] tells the two apart.
fn cancel_on_stop(token: CancellationToken) -> Stopped {
    let stopped = Stopped::default();
    let seen = stopped.clone();
    match StopSignals::listen() {
        Ok(mut signals) => {
            tokio::spawn(async move {
                let stop = signals.recv().await;
                let _ = seen.0.set(stop);
                token.cancel();
            });
        }
        Err(_) => {
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    let _ = seen.0.set(Stop::Interrupt);
                    token.cancel();
                }
            });
        }
    }
    stopped
}

/// Writes a line for a person to stderr, its controls escaped.
///
/// Not `eprintln!`, which panics when stderr is closed or a broken pipe.
pub(crate) fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{}", line(text));
}

/// A line of text output, its controls escaped ([`hookhost::escape`]).
pub(crate) fn line(text: &str) -> std::borrow::Cow<'_, str> {
    for_terminal(text)
}

#[cfg(test)]
mod agent_names_tests {
    use super::AGENT_NAMES;
    use hookhost::bridge::AgentKind;

    #[test]
    fn the_flags_name_every_agent_of_the_bridge_in_order() {
        let bridge: Vec<&str> = AgentKind::ALL.iter().map(|a| a.flag_name()).collect();
        assert_eq!(AGENT_NAMES.to_vec(), bridge);
    }
}
