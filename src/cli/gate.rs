//! The gate commands: `check`, `pre-tool-use` and `prompt`, one session each.

use std::io::{Read, Write};

use hookhost::config::{Event, HookDef, ToolList, UnknownTools};
use hookhost::dispatch::{Outcome, Verdict};
use hookhost::envelope::EnvelopeShape;
use hookhost::executor::CancellationToken;
use hookhost::session::{Mode, Session};

use super::exit::Exit;
use super::{GlobalOptions, ResumeArgs, cancel_on_stop, line, say};

fn start(global: &GlobalOptions) -> Result<Session, Exit> {
    start_with(global, &ResumeArgs::default())
}

/// Starts a one-shot session; it records only with `--log` or `--resume`.
fn start_with(global: &GlobalOptions, resume: &ResumeArgs) -> Result<Session, Exit> {
    let mut options = global.session_options(Mode::OneShot);
    options.resume = resume.resume_from();
    Session::start(options).map_err(|e| {
        say(&e.to_string());
        Exit::CouldNotRun
    })
}

/// What `check` says where the kernel has no Landlock.
const NO_LANDLOCK: &str = "⚠ this kernel has no Landlock (Linux 5.13+ with Landlock enabled), so a sandboxed hook can write into a host FIFO it can see; the rest of the box holds.";

pub fn check(global: &GlobalOptions) -> Exit {
    match start(global) {
        Ok(session) => check_report(&session),
        Err(exit) => exit,
    }
}

/// What `check` prints about a started session: its warnings, banner and hooks.
fn check_report(session: &Session) -> Exit {
    for w in session.warnings() {
        say(w);
    }
    // Said here only, not on every gate: it is a fact of this kernel, not of the session.
    if session.has_box() && hookhost::sandbox::landlock_abi().is_none() {
        say(NO_LANDLOCK);
    }
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", line(&banner_less_warnings(session)));
    // Which shape each hook reads, by the one rule (`HookDef::input_shape`).
    for hook in session.hooks() {
        let _ = writeln!(stdout, "{}", line(&shape_line(hook)));
    }
    // What a hook with `tools` does for a tool hookhost cannot name, and which tools it
    // never runs for (docs/contract.md#unknown_tools).
    let mut any_tools = false;
    for hook in session.hooks() {
        if let Some(tools) = &hook.tools {
            any_tools = true;
            let _ = writeln!(stdout, "{}", line(&unknown_tools_line(&hook.name, tools)));
        }
    }
    if any_tools {
        for unmapped in hookhost::bridge::tools::unmapped_lines() {
            let _ = writeln!(stdout, "{}", line(&unmapped));
        }
    }
    for name in session.network_importers() {
        say(&format!(
            "note: hook {name} imports network interfaces (wasi:sockets or wasi:http); it gets no network: every connection, name lookup and request fails with an error it can handle."
        ));
    }
    // A note, not the banner: stderr, as the design gives `check`'s warnings.
    if let Some(note) = prompt_context_note(session) {
        say(&note);
    }
    Exit::Success
}

/// `check`'s line saying which input shape `hook` reads, here and behind the bridge.
fn shape_line(hook: &HookDef) -> String {
    let name = &hook.name;
    let here = hook.input_shape(EnvelopeShape::Spec);
    let bridged = hook.input_shape(EnvelopeShape::ClaudeCode);
    let why = match hook.envelope {
        Some(shape) => format!("envelope = \"{}\"", shape.as_str()),
        None if hook.is_wasm() => "a WASM hook".to_string(),
        None => "an argv hook without envelope".to_string(),
    };
    if here == bridged {
        format!("hook {name} reads {} everywhere ({why})", shape_name(here))
    } else {
        format!(
            "hook {name} reads {} here and {} behind `hookhost bridge` ({why})",
            shape_name(here),
            shape_name(bridged)
        )
    }
}

/// `check`'s line saying what hook `name`, which lists `tools`, does for a tool
/// hookhost has no name for.
fn unknown_tools_line(name: &str, tools: &ToolList) -> String {
    match tools.unknown_tools() {
        UnknownTools::Block => format!(
            "hook {name}: behind `hookhost bridge`, a call of a tool hookhost has no name for is blocked (unknown_tools = \"block\")"
        ),
        UnknownTools::Allow => format!(
            "hook {name}: behind `hookhost bridge`, a call of a tool hookhost has no name for goes on without this hook (unknown_tools = \"allow\")"
        ),
    }
}

fn shape_name(shape: EnvelopeShape) -> &'static str {
    match shape {
        EnvelopeShape::Spec => "the spec's envelope",
        EnvelopeShape::ClaudeCode => "Claude Code's input",
    }
}

/// What the bridge cannot do for prompt hooks, said once in `check` as on the bridge's
/// stderr: Cursor's `beforeSubmitPrompt` takes no context.
fn prompt_context_note(session: &Session) -> Option<String> {
    let names: Vec<&str> = session
        .hooks()
        .filter(|hook| hook.event == Event::UserPromptSubmit)
        .map(|hook| hook.name.as_str())
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "note: behind `hookhost bridge`, Cursor cannot add context to a prompt; the context of UserPromptSubmit hook {} reaches the other agents only.",
            names.join(", ")
        )
    })
}

/// The banner without the lines that are also start-up warnings (the bubblewrap notice is
/// both, so that `serve`'s ready line carries it), for commands that print the warnings
/// too: each is shown once.
fn banner_less_warnings(session: &Session) -> String {
    let lines: Vec<&str> = session
        .banner()
        .lines()
        .filter(|line| !session.warnings().iter().any(|w| w == line))
        .collect();
    lines.join("\n")
}

/// The argument when given, else all of stdin (read before the session starts, so that
/// bad input starts nothing).
fn arg_or_stdin(arg: Option<String>) -> Result<String, Exit> {
    match arg {
        Some(text) => Ok(text),
        None => read_stdin(),
    }
}

fn read_stdin() -> Result<String, Exit> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| {
        say(&format!("hookhost: cannot read stdin: {e}"));
        Exit::CouldNotRun
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub async fn pre_tool_use(
    global: &GlobalOptions,
    resume: &ResumeArgs,
    tool: &str,
    input: Option<String>,
    tool_use_id: Option<String>,
    json: bool,
) -> Exit {
    let text = match arg_or_stdin(input) {
        Ok(t) => t,
        Err(exit) => return exit,
    };
    let tool_input: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        Ok(_) => {
            say("hookhost: the tool input must be a JSON object");
            return Exit::CouldNotRun;
        }
        Err(e) => {
            say(&format!("hookhost: the tool input is not valid JSON: {e}"));
            return Exit::CouldNotRun;
        }
    };
    // Listening before the session starts: a stop signal during start (the box's temp
    // folder made, nothing run yet) also ends in order.
    let cancel = CancellationToken::new();
    let stopped = cancel_on_stop(cancel.clone());
    let session = match start_with(global, resume) {
        Ok(h) => h,
        Err(exit) => return exit,
    };
    announce(&session, json);
    let verdict = session
        .pre_tool_use(tool, tool_input, tool_use_id.as_deref(), &cancel)
        .await;
    stopped.exit(report(&verdict, json, None))
}

pub async fn prompt(
    global: &GlobalOptions,
    resume: &ResumeArgs,
    text: Option<String>,
    json: bool,
) -> Exit {
    let text = match arg_or_stdin(text) {
        Ok(t) => t,
        Err(exit) => return exit,
    };
    let cancel = CancellationToken::new();
    let stopped = cancel_on_stop(cancel.clone());
    let session = match start_with(global, resume) {
        Ok(h) => h,
        Err(exit) => return exit,
    };
    announce(&session, json);
    let verdict = session.prompt(&text, &cancel).await;
    stopped.exit(report(&verdict, json, Some(&text)))
}

/// The banner and start-up warnings on stderr, as `-p` prints them.
fn announce(session: &Session, json: bool) {
    if json {
        return;
    }
    say(&banner_less_warnings(session));
    for w in session.warnings() {
        say(w);
    }
}

/// Prints a verdict and gives its exit status. For a prompt (`prompt` is the text),
/// stdout is what the model reads: the prompt, then each context block.
///
/// In text mode the prompt is written as given (it is the caller's own input, and the
/// model must read exactly what the user wrote); everything a hook wrote (messages,
/// context blocks, warnings) has its controls escaped. `--json` is exact.
fn report(verdict: &Verdict, json: bool, prompt: Option<&str>) -> Exit {
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
    Exit::of(verdict.outcome)
}

/// `check --system`, run as root: the system config checked as `bridge --system` checks
/// it (the config, its hooks' files and this binary root's alone, nothing from the
/// environment), its WASM hooks compiled into the system cache, which the bridge only
/// reads (docs/contract.md#system-mode); then `check`'s report.
pub fn check_system(global: &GlobalOptions) -> Exit {
    if !hookhost::system::SUPPORTED {
        say(
            "hookhost check --system: the system scope is not supported on this operating system yet (Linux and macOS only).",
        );
        return Exit::CouldNotRun;
    }
    if !hookhost::system::is_root() {
        say(&format!(
            "hookhost check --system compiles the system hooks into {}, which only {admin} may write: run it as {admin} (`{}`).",
            hookhost::system::CACHE,
            hookhost::system::CHECK_COMMAND,
            admin = hookhost::system::ADMINISTRATOR
        ));
        return Exit::CouldNotRun;
    }
    let process = hookhost::env::Environment::of_process();
    let (env, ignored) = hookhost::system::environment(&process);
    if let Some(line) = hookhost::system::ignored_line(&ignored) {
        say(&line);
    }
    if let Err(refusal) = hookhost::system::check_running_binary() {
        say(&refusal.to_string());
        return Exit::CouldNotRun;
    }
    let mut options = global.session_options(Mode::OneShot);
    options.config = Some(hookhost::system::CONFIG.into());
    options.scope = hookhost::session::Scope::System { fill_cache: true };
    options.env = Some(env.vars().to_vec());
    // No folder from the environment: the administrator's box hides the default places.
    options.extra_default_hidden = hookhost::bridge::credentials::hidden_paths();
    match Session::start(options) {
        Ok(session) => check_report(&session),
        Err(e) => {
            say(&e.to_string());
            Exit::CouldNotRun
        }
    }
}
