//! The bridge's side of the hand-over, run before anything else in a bridge process
//! (docs/contract.md#the-warm-server): by `hookhost bridge` in its own `main`, and by
//! `hookhost-client`, the small program `install --warm` registers so that a handed-over
//! call does not pay for starting the whole hookhost binary (BENCHMARKS.md, eleventh
//! sitting).
//!
//! [`hand_over`] reads the call's stdin and hands it to the user's running server; with
//! no server it can vouch for, the call is the bridge's own to run ([`Prepared`]).
//! `hookhost-client` runs it by starting the hookhost binary beside it ([`run_hookhost`])
//! with the stdin it read and, in [`DONE_ENV`], what the hand-over came to.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::{Answer, Request};
use crate::bridge::{AgentKind, watchdog};
use crate::platform::sys::warm as os;

/// The variable that turns hookhost's operator logs on: a call with logs asked for is
/// the bridge's own (its logs go to its own stderr).
pub const LOG_ENV: &str = "HOOKHOST_LOG";

/// Set by `hookhost-client` for the hookhost it starts: the hand-over was tried already.
/// Empty: run the call here. Otherwise: the server took the call and gave no answer in
/// time, and this is why; the call is blocked with it. Read only by a bridge whose
/// arguments ask for a warm server, and the client always sets it: a value the agent
/// set can only skip a hand-over or block its own call (docs/threats.md#w1).
pub const DONE_ENV: &str = "HOOKHOST_WARM_DONE";

/// Set by `hookhost-client` beside [`DONE_ENV`]: the microseconds it ran before it
/// started hookhost, which the call's budget counts (a server that died late in a call
/// must not leave the call a fresh budget past the agent's timeout). A value can only
/// move the budget's start earlier, so a value the agent sets can only bring a deny
/// sooner.
pub const WAITED_ENV: &str = "HOOKHOST_WARM_WAITED_US";

/// The program `install --warm` registers, beside the hookhost binary.
pub const CLIENT_NAME: &str = "hookhost-client";

/// What the hand-over leaves to a bridge that runs its call itself.
#[derive(Debug)]
pub struct Prepared {
    /// Its stdin, already read.
    pub stdin: std::io::Result<Vec<u8>>,
    /// When the process started.
    pub started: Instant,
    /// The server took the call and did not answer in time: block it with this reason.
    pub unanswered: Option<String>,
}

/// How long past the call's budget the bridge waits for the server before it blocks the
/// call itself: the server's own budget deny needs a moment to arrive, and the agent's
/// timeout is set [`crate::bridge::install::TIMEOUT_MARGIN_MS`] above the budget.
const ANSWER_GRACE: Duration = Duration::from_millis(1_000);

/// Which binary the server must run for a call to be handed to it.
#[derive(Debug, Clone, Copy)]
pub enum ServerBinary<'a> {
    /// This process's own (`hookhost bridge`).
    ThisOne,
    /// The hookhost binary at this path (`hookhost-client`: the one beside it).
    At(&'a Path),
}

/// The bridge's hand-over, before anything else runs: `Ok` is the finished call's exit
/// status; `Err` is a call this process must run itself (`Some`: with its stdin read).
pub fn hand_over(started: Instant, binary: ServerBinary<'_>) -> Result<ExitCode, Option<Prepared>> {
    // What `hookhost-client` told this process is taken out of its environment first,
    // whatever the command: the hooks need not see it.
    let (told_done, told_waited) = (std::env::var_os(DONE_ENV), std::env::var_os(WAITED_ENV));
    if told_done.is_some() || told_waited.is_some() {
        // SAFETY: no other thread runs yet: this runs first in both binaries' `main`, and
        // the watchdog's thread starts below.
        unsafe {
            std::env::remove_var(DONE_ENV);
            std::env::remove_var(WAITED_ENV);
        }
    }
    let argv: Vec<OsString> = std::env::args_os().collect();
    if subcommand(&argv) != Some("bridge") {
        return Err(None);
    }
    let socket = super::socket_for(&argv);
    // `hookhost-client` tried already: what it came to. Read only for a registration
    // that hands its calls over (the client's always does): a value that reached a plain
    // registration's environment (from a project's file, say) is not its to read.
    let done = told_done.filter(|_| socket.is_some());
    let started = match &done {
        // The call started when the client did.
        Some(_) => told_waited
            .and_then(|us| us.to_str()?.parse::<u64>().ok())
            .and_then(|waited| started.checked_sub(Duration::from_micros(waited)))
            .unwrap_or(started),
        None => started,
    };
    // Before anything that can wait (the agent's input, the socket's folder, the server):
    // the process answers at its budget whatever holds it (docs/threats.md#b10).
    let agent = flag_agent(&argv);
    let budget_ms = budget_ms(&argv);
    let deadline = match &done {
        // The client waited for the server, then handed the call here with what came of
        // it: a moment to say it, or to judge the call in what is left of its budget.
        Some(_) => Instant::now(),
        // The hand-over waits for the server's answer until the budget and its grace,
        // then says why it has none: the watchdog answers only after that.
        None => started + Duration::from_millis(budget_ms) + ANSWER_GRACE,
    };
    if let Err(refusal) = watchdog::arm_for_process(deadline, budget_ms, agent) {
        let refusal = agent.protocol().refuse(&refusal);
        watchdog::write_once(&refusal);
        return Ok(ExitCode::from(u8::try_from(refusal.exit_code).unwrap_or(2)));
    }
    if let Some(done) = done {
        let unanswered = (!done.is_empty()).then(|| done.to_string_lossy().into_owned());
        let mut stdin = Vec::new();
        let stdin = std::io::stdin().read_to_end(&mut stdin).map(|_| stdin);
        return Err(Some(Prepared {
            stdin,
            started,
            unanswered,
        }));
    }
    if !super::SUPPORTED {
        return Err(None);
    }
    // Calls whose output is this process's own (logs, help) or that the server never takes
    // (the administrator's) run here.
    let own = |a: &OsString| {
        let a = a.to_string_lossy();
        a == "--system"
            || a == "--help"
            || a == "-h"
            || a == "--version"
            || a == "-V"
            || a == "--verbose"
            || (a.starts_with("-v") && a.chars().skip(1).all(|c| c == 'v'))
    };
    if argv.iter().skip(2).any(own) || std::env::var_os(LOG_ENV).is_some() {
        return Err(None);
    }
    let Some(socket) = socket else {
        return Err(None);
    };
    // No server: nothing read yet, the call runs as it always did.
    if std::fs::symlink_metadata(&socket).is_err() {
        return Err(None);
    }
    let mut stdin = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut stdin) {
        return Err(Some(Prepared {
            stdin: Err(e),
            started,
            unanswered: None,
        }));
    }
    let here = |stdin: Vec<u8>, unanswered: Option<String>| {
        Some(Prepared {
            stdin: Ok(stdin),
            started,
            unanswered,
        })
    };
    let (Ok(cwd), Ok(exe)) = (std::env::current_dir(), std::env::current_exe()) else {
        return Err(here(stdin, None));
    };
    let identity = match binary {
        ServerBinary::ThisOne => os::running_binary(),
        ServerBinary::At(path) => os::identity(path),
    };
    let Ok(identity) = identity else {
        return Err(here(stdin, None));
    };
    let request = Request {
        argv,
        env: std::env::vars_os()
            .filter(|(name, _)| name != DONE_ENV && name != WAITED_ENV)
            .collect(),
        cwd,
        exe,
        waited_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        stdin,
    };
    let wait = (Duration::from_millis(budget_ms) + ANSWER_GRACE).saturating_sub(started.elapsed());
    match super::hand_over(&socket, &request, identity, wait) {
        Ok(Answer::Reply {
            stdout,
            stderr,
            exit_code,
        }) => {
            let written = watchdog::answer_once(|| watchdog::write_bytes(&stdout, &stderr));
            // Not written: the watchdog answered first, and is ending the process.
            Ok(ExitCode::from(match written {
                true => u8::try_from(exit_code).unwrap_or(2),
                false => 2,
            }))
        }
        Ok(Answer::Declined(_)) => Err(here(request.stdin, None)),
        // It took the call and ran out of time: judging it again here would outlive the
        // agent's timeout, which most agents read as "go ahead".
        Err(failed) if failed.sent && failed.timed_out => {
            let why = format!(
                "hookhost's warm server took this call and did not answer within {budget_ms} ms, the bridge's budget for one call ({}), so this call was blocked. This is not a policy decision: tell the user to restart `hookhost warm`, or to stop it (then every call runs in its own process).",
                failed.why
            );
            Err(here(request.stdin, Some(why)))
        }
        // Never sent, or the server failed before answering: this process judges it (a
        // hook the server had started may run twice; none is skipped).
        Err(_) => Err(here(request.stdin, None)),
    }
}

/// The hookhost binary `hookhost-client` at `client` hands its calls to and starts when
/// none is handed over: the `hookhost` beside it.
pub fn hookhost_beside(client: &Path) -> PathBuf {
    client.with_file_name(format!("hookhost{}", std::env::consts::EXE_SUFFIX))
}

/// The `hookhost-client` a registration of the hookhost binary at `hookhost` names when
/// it hands its calls to a warm server: the one beside it.
pub fn client_beside(hookhost: &Path) -> PathBuf {
    hookhost.with_file_name(format!("{CLIENT_NAME}{}", std::env::consts::EXE_SUFFIX))
}

/// Runs this process's call in the hookhost binary at `hookhost`: its arguments, with
/// `prepared`'s stdin when the hand-over read it (else this process's own), [`DONE_ENV`]
/// saying what the hand-over came to and [`WAITED_ENV`] how long since `started`.
/// Returns the exit status where the OS waits for it; on Linux the process becomes
/// hookhost and returns only on failure.
pub fn run_hookhost(hookhost: &Path, started: Instant, prepared: Option<Prepared>) -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // A stdin that could not be read is left as it is: hookhost reads it, and says so.
    let (stdin, done) = match prepared {
        None => (None, String::new()),
        Some(prepared) => (prepared.stdin.ok(), prepared.unanswered.unwrap_or_default()),
    };
    let waited = started.elapsed().as_micros().to_string();
    // hookhost answers the call from here, with a watchdog of its own that counts from
    // `started` too (where the OS runs it as another process, this one only waits): this
    // process's watchdog must write nothing from now on. It answered already: the
    // process is ending with its deny.
    if !watchdog::answer_once(|| ()) {
        return ExitCode::from(2);
    }
    let env = [
        (DONE_ENV, OsStr::new(&done)),
        (WAITED_ENV, OsStr::new(&waited)),
    ];
    let failure = match os::run_instead(hookhost, &args, stdin.as_deref(), &env) {
        Ok(code) => return ExitCode::from(u8::try_from(code).unwrap_or(2)),
        Err(e) => e,
    };
    refuse_for_the_flags_agent(&format!(
        "{CLIENT_NAME}: cannot start hookhost at {}: {failure}, so this call was blocked. This is not a policy decision: tell the user to reinstall hookhost (`{CLIENT_NAME}` and `hookhost` must sit in one folder) and run `hookhost install` again.",
        hookhost.display()
    ))
}

/// Writes the refusal of this process's call for `why` in the form the agent `--agent`
/// names reads as one (Qwen Code's is one no later hook undoes), and gives its exit status:
/// for a client that cannot start hookhost, whose watchdog answers nothing more.
pub fn refuse_for_the_flags_agent(why: &str) -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let refusal = flag_agent(&args).protocol().refuse(why);
    watchdog::write(&refusal);
    ExitCode::from(u8::try_from(refusal.exit_code).unwrap_or(2))
}

/// The global options that take a value (`--config FILE`): the subcommand is the first
/// argument that is neither an option nor such a value. A test of the binary holds this
/// list to its parser's.
pub const GLOBAL_WITH_VALUE: [&str; 7] = [
    "--config",
    "--project",
    "--writable",
    "--private-tmp",
    "--session-id",
    "--permission-mode",
    "--log",
];

/// The subcommand `argv` names, read without the parser.
fn subcommand(argv: &[OsString]) -> Option<&str> {
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        let arg = arg.to_str()?;
        if GLOBAL_WITH_VALUE.contains(&arg) {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

/// The value of `flag` in `argv` (`--flag VALUE` or `--flag=VALUE`), read without the
/// parser.
fn flag_value(argv: &[OsString], flag: &str) -> Option<String> {
    let mut args = argv.iter().map(|a| a.to_string_lossy());
    while let Some(arg) = args.next() {
        if arg == flag {
            return args.next().map(|v| v.into_owned());
        }
        if let Some(v) = arg.strip_prefix(flag).and_then(|v| v.strip_prefix('=')) {
            return Some(v.to_string());
        }
    }
    None
}

/// The agent `--agent` names, whose refusals the call's watchdog writes until the
/// payload says which agent it is; Claude Code's without one (exit 2, the reason on
/// stderr: a deny for every agent's tool calls).
fn flag_agent(argv: &[OsString]) -> AgentKind {
    flag_value(argv, "--agent")
        .and_then(|a| AgentKind::from_flag(&a))
        .unwrap_or(AgentKind::ClaudeCode)
}

/// The call's budget as the bridge will count it: `--budget-ms N`, else the named
/// agent's default, else the smallest agent default.
fn budget_ms(argv: &[OsString]) -> u64 {
    if let Some(ms) = flag_value(argv, "--budget-ms").and_then(|v| v.parse::<u64>().ok()) {
        return ms;
    }
    match flag_value(argv, "--agent").and_then(|a| AgentKind::from_flag(&a)) {
        Some(kind) => kind.default_budget_ms(),
        None => AgentKind::ALL
            .iter()
            .map(|k| k.default_budget_ms())
            .min()
            .unwrap_or(1_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_subcommand_is_found_past_the_global_options() {
        assert_eq!(
            subcommand(&argv(&[
                "hookhost",
                "--config",
                "bridge",
                "--no-hooks",
                "bridge"
            ])),
            Some("bridge")
        );
        assert_eq!(
            subcommand(&argv(&["hookhost", "--config=c.toml", "check"])),
            Some("check")
        );
        assert_eq!(subcommand(&argv(&["hookhost", "--log", "x"])), None);
    }

    #[test]
    fn the_budget_waited_for_is_the_bridges() {
        assert_eq!(
            budget_ms(&argv(&["h", "bridge", "--budget-ms", "700"])),
            700
        );
        assert_eq!(budget_ms(&argv(&["h", "bridge", "--budget-ms=900"])), 900);
        assert_eq!(
            budget_ms(&argv(&["h", "bridge", "--agent", "codex"])),
            AgentKind::Codex.default_budget_ms()
        );
    }

    #[test]
    fn the_client_and_hookhost_sit_side_by_side() {
        let suffix = std::env::consts::EXE_SUFFIX;
        let hookhost = Path::new("/opt/hh/bin").join(format!("hookhost{suffix}"));
        let client = client_beside(&hookhost);
        assert_eq!(
            client,
            Path::new("/opt/hh/bin").join(format!("hookhost-client{suffix}"))
        );
        assert_eq!(hookhost_beside(&client), hookhost);
    }
}
