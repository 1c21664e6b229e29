//! The command line: a thin layer over [`crate::session::Session`].
//!
//! Exit statuses: 0 go ahead (or the session can start), 1 blocked, 2 could not run
//! (a load error, a refusal, bad input), 130 interrupted.
//!
//! Text output is for a person's terminal: every line goes through
//! [`crate::escape::for_terminal`] (through `say` and `line`), except the prompt that
//! `prompt` echoes, which is the caller's own input given back byte for byte. `--json`
//! output is exact.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::dispatch::{Outcome, Verdict};
use crate::escape::for_terminal;
use crate::executor::CancellationToken;
use crate::session::{Mode, Session, SessionBox, SessionOptions};

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
    /// The config file (default: $HARNESS_HOME/config.toml, $XDG_CONFIG_HOME/harness/config.toml or ~/.config/harness/config.toml).
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
    /// The session record (default: under $XDG_STATE_HOME/hookhost).
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
    pub fn resume_from(&self) -> Option<crate::record::ResumeFrom> {
        self.resume.clone().map(|file| crate::record::ResumeFrom {
            file,
            clean: self.clean,
        })
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load, validate and guard the hooks; print the banner.
    Check,
    /// Session records.
    Log {
        #[command(subcommand)]
        command: LogCommand,
    },
    /// Re-run a recorded session, serving every hook's effect from the record and starting
    /// nothing; exit 0 when every verdict matched, 1 when not, 2 when the file cannot be read.
    Replay {
        /// The session record.
        file: PathBuf,
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
    /// Run any command in exactly the box a sandboxed hook gets.
    #[command(name = "box")]
    Boxed {
        /// The command and its arguments (after `--`).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        argv: Vec<std::ffi::OsString>,
    },
}

#[derive(Debug, Subcommand)]
enum LogCommand {
    /// Print the transcript rows of a session record.
    Show {
        /// The session record.
        file: PathBuf,
    },
}

impl GlobalOptions {
    /// The host options these flags describe.
    pub fn host_options(&self, mode: Mode) -> SessionOptions {
        SessionOptions {
            config: self.config.clone(),
            project: self.project.clone().unwrap_or_default(),
            no_hooks: self.no_hooks,
            no_sandbox: self.no_sandbox,
            writable: self.writable.clone(),
            private_tmp: self.private_tmp.clone(),
            session_id: self.session_id.clone(),
            permission_mode: self.permission_mode.clone(),
            mode,
            env: None,
            log: self.log.clone(),
            resume: None,
            // This very binary is the box's entry point (src/main.rs): the running
            // image, even if the file was replaced since.
            box_entry: Some(PathBuf::from("/proc/self/exe")),
        }
    }
}

/// Runs the command line; returns the exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = init_logs(cli.global.verbose) {
        say(&format!("hookhost: {e}"));
        return ExitCode::from(2);
    }
    if let Err(e) = crate::process::harden_host_process(true) {
        say(&format!("hookhost: cannot harden the host process: {e}"));
        return ExitCode::from(2);
    }
    // `serve` runs requests in parallel; every other command runs one thing at a time.
    let mut builder = match cli.command {
        Command::Serve { .. } => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(2);
            b
        }
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            say(&format!("hookhost: cannot start the runtime: {e}"));
            return ExitCode::from(2);
        }
    };
    let code = runtime.block_on(run(cli));
    // A read of stdin may still be pending on a blocking thread (`serve` after a
    // signal): do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

/// The variable that turns operator logs on, with a `RUST_LOG`-style filter.
pub const LOG_ENV: &str = "HOOKHOST_LOG";

/// Installs the operator-log subscriber when `HOOKHOST_LOG` is set or `-v` given:
/// stderr only (stdout carries verdicts and serve's protocol), no colours, span closes
/// with their duration. Off by default, so a quiet run pays nothing for it. A filter that
/// does not parse is an error, not silently no logs.
fn init_logs(verbose: u8) -> Result<(), String> {
    use tracing_subscriber::fmt::format::FmtSpan;
    let filter = match std::env::var(LOG_ENV) {
        Ok(spec) if !spec.is_empty() => {
            tracing_subscriber::EnvFilter::try_new(&spec).map_err(|e| {
                format!("{LOG_ENV}={spec:?} is not a log filter ({e}); try {LOG_ENV}=debug")
            })?
        }
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

async fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Check => check(&cli.global),
        Command::Log {
            command: LogCommand::Show { file },
        } => log_show(&file),
        Command::Replay { file } => replay(&file).await,
        Command::PreToolUse {
            resume,
            tool,
            input,
            tool_use_id,
            json,
        } => pre_tool_use(&cli.global, &resume, &tool, input, tool_use_id, json).await,
        Command::Prompt { resume, text, json } => prompt(&cli.global, &resume, text, json).await,
        Command::Boxed { argv } => run_in_box(&cli.global, &argv),
        Command::Serve { resume } => crate::serve::command(&cli.global, &resume).await,
        Command::Eval { cases } => crate::eval::command(&cli.global, &cases).await,
    }
}

fn run_in_box(global: &GlobalOptions, argv: &[std::ffi::OsString]) -> ExitCode {
    let session_box = match SessionBox::start(&global.host_options(Mode::OneShot)) {
        Ok(b) => b,
        Err(e) => {
            say(&format!("hookhost box: {e}"));
            return ExitCode::from(2);
        }
    };
    for w in session_box.warnings() {
        say(w);
    }
    let status = session_box.command(argv).and_then(|mut c| c.status());
    match status {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::from(1),
        },
        Err(e) => {
            say(&format!("hookhost box: cannot run the box: {e}"));
            ExitCode::from(2)
        }
    }
}

fn start(global: &GlobalOptions) -> Result<Session, ExitCode> {
    start_with(global, &ResumeArgs::default())
}

/// Starts a one-shot host; it records only with `--log` or `--resume`.
fn start_with(global: &GlobalOptions, resume: &ResumeArgs) -> Result<Session, ExitCode> {
    let mut options = global.host_options(Mode::OneShot);
    options.resume = resume.resume_from();
    Session::start(options).map_err(|e| {
        say(&e.to_string());
        ExitCode::from(2)
    })
}

/// What `check` says where the kernel has no Landlock.
const NO_LANDLOCK: &str = "⚠ this kernel has no Landlock (Linux 5.13+ with Landlock enabled), so a sandboxed hook can write into a host FIFO it can see; the rest of the box holds.";

fn check(global: &GlobalOptions) -> ExitCode {
    let host = match start(global) {
        Ok(h) => h,
        Err(code) => return code,
    };
    for w in host.warnings() {
        say(w);
    }
    // Said here only, not on every gate: it is a fact of this kernel, not of the session.
    if host.has_box() && crate::sandbox::landlock_abi().is_none() {
        say(NO_LANDLOCK);
    }
    let _ = writeln!(std::io::stdout(), "{}", line(&banner_less_warnings(&host)));
    ExitCode::SUCCESS
}

/// The banner without the lines that are also start-up warnings (the bubblewrap notice is
/// both, so that `serve`'s ready line carries it), for commands that print the warnings
/// too: each is shown once.
fn banner_less_warnings(host: &Session) -> String {
    let lines: Vec<&str> = host
        .banner()
        .lines()
        .filter(|line| !host.warnings().iter().any(|w| w == line))
        .collect();
    lines.join("\n")
}

/// The argument when given, else all of stdin (read before the session starts, so that
/// bad input starts nothing).
fn arg_or_stdin(arg: Option<String>) -> Result<String, ExitCode> {
    match arg {
        Some(text) => Ok(text),
        None => read_stdin(),
    }
}

fn read_stdin() -> Result<String, ExitCode> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| {
        say(&format!("hookhost: cannot read stdin: {e}"));
        ExitCode::from(2)
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Cancels `token` on SIGINT; the verdict is then `interrupted`.
fn cancel_on_sigint(token: CancellationToken) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            token.cancel();
        }
    });
}

async fn pre_tool_use(
    global: &GlobalOptions,
    resume: &ResumeArgs,
    tool: &str,
    input: Option<String>,
    tool_use_id: Option<String>,
    json: bool,
) -> ExitCode {
    let text = match arg_or_stdin(input) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let tool_input: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        Ok(_) => {
            say("hookhost: the tool input must be a JSON object");
            return ExitCode::from(2);
        }
        Err(e) => {
            say(&format!("hookhost: the tool input is not valid JSON: {e}"));
            return ExitCode::from(2);
        }
    };
    let host = match start_with(global, resume) {
        Ok(h) => h,
        Err(code) => return code,
    };
    announce(&host, json);
    let cancel = CancellationToken::new();
    cancel_on_sigint(cancel.clone());
    let verdict = host
        .pre_tool_use(tool, tool_input, tool_use_id.as_deref(), &cancel)
        .await;
    report(&verdict, json, None)
}

async fn prompt(
    global: &GlobalOptions,
    resume: &ResumeArgs,
    text: Option<String>,
    json: bool,
) -> ExitCode {
    let text = match arg_or_stdin(text) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let host = match start_with(global, resume) {
        Ok(h) => h,
        Err(code) => return code,
    };
    announce(&host, json);
    let cancel = CancellationToken::new();
    cancel_on_sigint(cancel.clone());
    let verdict = host.prompt(&text, &cancel).await;
    report(&verdict, json, Some(&text))
}

/// The banner and start-up warnings on stderr, as `-p` prints them.
fn announce(host: &Session, json: bool) {
    if json {
        return;
    }
    say(&banner_less_warnings(host));
    for w in host.warnings() {
        say(w);
    }
}

/// Writes a line for a person to stderr, its controls escaped.
///
/// Not `eprintln!`, which panics when stderr is closed or a broken pipe.
pub(crate) fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{}", line(text));
}

/// A line of text output, its controls escaped ([`crate::escape`]).
pub(crate) fn line(text: &str) -> std::borrow::Cow<'_, str> {
    for_terminal(text)
}

/// Prints a verdict and gives its exit status. For a prompt (`prompt` is the text),
/// stdout is what the model reads: the prompt, then each context block.
///
/// In text mode the prompt is written as given (it is the caller's own input, and the
/// model must read exactly what the user wrote); everything a hook wrote (messages,
/// context blocks, warnings) has its controls escaped. `--json` is exact.
fn report(verdict: &Verdict, json: bool, prompt: Option<&str>) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    if json {
        let json_line = serde_json::to_string(verdict).unwrap_or_default();
        let _ = writeln!(stdout, "{json_line}");
    } else {
        for w in &verdict.warnings {
            say(w);
        }
        let message = verdict.message.as_deref().unwrap_or_default();
        match (verdict.outcome, prompt) {
            (Outcome::Allow, Some(prompt)) => {
                let _ = write!(stdout, "{prompt}");
                for block in &verdict.context {
                    let _ = write!(stdout, "\n\n{}", line(&block.framed()));
                }
                let _ = writeln!(stdout);
            }
            (Outcome::Allow, None) => {}
            (_, Some(_)) => say(message),
            (_, None) => {
                let _ = writeln!(stdout, "{}", line(message));
            }
        }
    }
    let _ = stdout.flush();
    match verdict.outcome {
        Outcome::Allow => ExitCode::SUCCESS,
        Outcome::Block => ExitCode::from(1),
        Outcome::Interrupted => ExitCode::from(130),
    }
}

/// `log show FILE`: notes (and a warning when others may read the record) on stderr, the
/// transcript rows on stdout.
fn log_show(file: &std::path::Path) -> ExitCode {
    let reading = match crate::record::read_file(file) {
        Ok(r) => r,
        Err(e) => {
            say(&format!("hookhost: {e}"));
            return ExitCode::from(2);
        }
    };
    for note in &reading.notes {
        say(&format!("note: {note}"));
    }
    if let Some(warning) = crate::record::exposure_warning_of(file) {
        say(&warning);
    }
    let mut stdout = std::io::stdout().lock();
    for row in crate::record::transcript::rows(&reading) {
        let _ = writeln!(stdout, "{}", line(&row));
    }
    let _ = stdout.flush();
    ExitCode::SUCCESS
}

/// `replay FILE`: one row per gate, problems, then the summary (notes and a warning when
/// others may read the record on stderr).
async fn replay(file: &std::path::Path) -> ExitCode {
    let reading = match crate::record::read_file(file) {
        Ok(r) => r,
        Err(e) => {
            say(&format!("hookhost: {e}"));
            return ExitCode::from(2);
        }
    };
    for note in &reading.notes {
        say(&format!("note: {note}"));
    }
    if let Some(warning) = crate::record::exposure_warning_of(file) {
        say(&warning);
    }
    let report = crate::record::replay::replay(&reading).await;
    let mut stdout = std::io::stdout().lock();
    for row in &report.rows {
        let _ = writeln!(stdout, "{}", line(row));
    }
    for problem in &report.problems {
        let _ = writeln!(stdout, "{}", line(&format!("✗ {problem}")));
    }
    let _ = writeln!(stdout, "{}", report.summary());
    let _ = stdout.flush();
    if report.all_matched() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
