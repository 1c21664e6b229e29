//! `hookhost install AGENT` and `hookhost uninstall AGENT`: the registration of
//! `hookhost bridge` in the agent's own settings file ([`hookhost::bridge::install`]).
//!
//! Prints, on stdout: with `--dry-run`, the change's preview (a diff, or the summary
//! when nothing would change); else the summary, the backup made, and the notes the
//! user should know (what the agent does when hookhost cannot answer, its own review of
//! a new hook). For Claude Code, the `claude` on `PATH` is asked its version: from
//! 2.1.295 the registration says `onFailure: "block"`. What is written is pinned in
//! hookhost's state ([`pin`]), with hookhost's config and binary as they are now (a change
//! to either since the last pin is said first: installing again is how it is accepted),
//! and `uninstall` unpins it. An error (the file cannot be read, does not parse, cannot be written)
//! goes to stderr and leaves the file untouched: exit 2.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub use hookhost::bridge::install::Action;
use hookhost::bridge::install::{self, Options, Places, Request, Scope, WarmSocket, pin};
use hookhost::bridge::{AgentKind, Declaration, FailClosedSetting, version_at_least};
use hookhost::env::Environment;
use hookhost::{Mode, Session};

use super::exit::Exit;
use super::{GlobalOptions, line, say};

/// Runs `hookhost install` or `hookhost uninstall`.
pub fn command(
    global: &GlobalOptions,
    action: Action,
    agent: &str,
    scope: &str,
    dry_run: bool,
    budget_ms: Option<u64>,
    warm: Option<WarmSocket>,
) -> Exit {
    match request(global, action, agent, scope, budget_ms, warm) {
        Ok(mut request) => {
            if request.scope == Scope::System
                && let Err(refusal) = system_preconditions(&request, dry_run)
            {
                say(&format!("hookhost: {refusal}"));
                return Exit::CouldNotRun;
            }
            let declared = request.agent.declaration();
            let version_note = match declared.fail_closed {
                FailClosedSetting::WhenAsked { since, .. } if action == Action::Install => {
                    let (supports, note) = fail_closed_supported(declared, since, request.scope);
                    request.options.claude_on_failure_block = supports;
                    Some(note)
                }
                _ => None,
            };
            // The config the registered bridge loads: the one named, else the default.
            let config = global
                .config
                .clone()
                .or_else(|| Environment::of_process().config_file())
                .map(|c| std::path::absolute(&c).unwrap_or(c));
            run(
                global,
                &request,
                dry_run,
                version_note.as_deref(),
                config.as_deref(),
            )
        }
        Err(message) => {
            say(&format!("hookhost: {message}"));
            Exit::CouldNotRun
        }
    }
}

/// The warm server `install`'s `--warm` and `--warm-socket` ask the registration to hand
/// its calls to (clap keeps them apart).
pub fn warm_choice(warm: bool, socket: Option<std::path::PathBuf>) -> Option<WarmSocket> {
    match (warm, socket) {
        (_, Some(socket)) => Some(WarmSocket::At(socket)),
        (true, None) => Some(WarmSocket::Default),
        (false, None) => None,
    }
}

/// The request the flags and the environment describe.
fn request(
    global: &GlobalOptions,
    action: Action,
    agent: &str,
    scope: &str,
    budget_ms: Option<u64>,
    warm: Option<WarmSocket>,
) -> Result<Request, String> {
    let agent: AgentKind = agent
        .parse()
        .map_err(|e: install::InstallError| e.to_string())?;
    let scope: Scope = scope
        .parse()
        .map_err(|e: install::InstallError| e.to_string())?;
    // Refused before anything else (root, the agent's version): the registration would
    // refuse it too.
    match &warm {
        Some(warm) if scope == Scope::System => {
            return Err(install::InstallError::WarmWithSystem { flag: warm.flag() }.to_string());
        }
        Some(WarmSocket::At(socket)) if !socket.is_absolute() => {
            return Err(install::InstallError::WarmSocketNotAbsolute(socket.clone()).to_string());
        }
        _ => {}
    }
    let home = Environment::of_process().home().ok_or(
        "no home folder is known (HOME, or USERPROFILE on Windows, is not set), so the agent's user settings cannot be found",
    )?;
    let project = match &global.project {
        Some(project) => std::path::absolute(project)
            .map_err(|e| format!("the project {}: {e}", project.display()))?,
        None => std::env::current_dir().map_err(|e| format!("the current folder: {e}"))?,
    };
    let hookhost = std::env::current_exe()
        .map_err(|e| format!("cannot find the hookhost binary to register: {e}"))?;
    // A bridge that hands its calls over is `hookhost-client`, built and installed beside
    // hookhost: registering a file that is not there would fail every call.
    if let Some(warm) = &warm {
        let client = hookhost::warm::client::client_beside(&hookhost);
        if !client.is_file() {
            return Err(format!(
                "{} registers {}, the small program that hands calls to the warm server, and there is none beside {}: install both (`cargo install` and `cargo build --release` build both), or register without {}",
                warm.flag(),
                client.display(),
                hookhost.display(),
                warm.flag()
            ));
        }
    }
    // A folder variable of the agent's that is not an absolute path names a folder that
    // depends on where the agent runs, or on a `~` it may expand: hookhost cannot know
    // which folder the agent reads, and a registration elsewhere is never called.
    if let Some(variable) = agent.declaration().settings.home_variable
        && let Some(value) = std::env::var_os(variable).filter(|v| !v.is_empty())
        && !std::path::Path::new(&value).is_absolute()
    {
        return Err(format!(
            "{variable}={} is not an absolute path, so hookhost cannot tell which folder {} reads its settings from; set {variable} to an absolute path (or unset it) and run it again",
            value.to_string_lossy(),
            agent.display_name()
        ));
    }
    Ok(Request {
        action,
        agent,
        scope,
        places: Places::from_environment(home, project, |name| std::env::var_os(name)),
        hookhost,
        options: Options {
            budget_ms,
            warm,
            ..Options::default()
        },
    })
}

/// What a system-scope install or uninstall needs before anything is read: the agent has
/// a system scope here (so that its refusal comes first, whoever runs it), and, unless it
/// is a dry run (which writes nothing), the caller is the administrator, since the file
/// must stay the administrator's.
fn system_preconditions(request: &Request, dry_run: bool) -> Result<(), String> {
    install::settings_file(request.agent, request.scope, &request.places)
        .map_err(|e| e.to_string())?;
    if !dry_run {
        install::system::require_administrator().map_err(|e| e.to_string())?;
    }
    // The bridge's system mode refuses a binary that anyone but the administrator can
    // write; install refuses to register one, with the same check.
    hookhost::guard::check_admin_only_as(hookhost::guard::Who::Binary, &request.hookhost)
        .map_err(|refusal| refusal.to_string())?;
    if request.action == Action::Install && !dry_run {
        make_system_folders()?;
    }
    Ok(())
}

/// The system scope's own folders, where the OS has install make them (Windows: the
/// config's and the cache under `C:\ProgramData`, which would otherwise inherit "Users may
/// create files"), made the administrator's alone when missing and checked as the bridge
/// checks them. One that exists and fails is refused with its fix, never re-ACLed: what a
/// user could write into it may already be there (docs/system-scope.md).
fn make_system_folders() -> Result<(), String> {
    for folder in hookhost::system::INSTALL_MAKES {
        let folder = std::path::Path::new(folder);
        hookhost::system::make_admin_folder(folder)
            .map_err(|e| format!("the system folder {} cannot be made: {e}", folder.display()))?;
        hookhost::guard::check_admin_only(folder).map_err(|refusal| {
            format!(
                "{refusal} install --scope system does not change the permissions of a folder it did not make: look at what it holds first."
            )
        })?;
    }
    Ok(())
}

/// How long `AGENT --version` may take before hookhost stops waiting for it.
const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// Whether the agent on `PATH` takes its fail-closed setting (Claude Code's `onFailure:
/// "block"`, from `since` on), and the line that says what was found and what it means.
fn fail_closed_supported(
    agent: &Declaration,
    since: (u64, u64, u64),
    scope: Scope,
) -> (bool, String) {
    let name = agent.display_name;
    let program = agent.program;
    // The command to run again names the scope, unless it is the default.
    let flag = match scope {
        Scope::User => agent.flag.to_string(),
        scope => format!("{} --scope {scope}", agent.flag),
    };
    let (key, value) = match agent.fail_closed {
        FailClosedSetting::WhenAsked { setting, .. } | FailClosedSetting::Always(setting) => {
            (setting.key(), setting.value().to_string())
        }
        FailClosedSetting::None => return (false, String::new()),
    };
    let first = since;
    let since = format!("{}.{}.{}", first.0, first.1, first.2);
    let output = match version_output(program) {
        Ok(output) => output,
        Err(why) => {
            return (
                false,
                format!(
                    "No {name} found to ask its version ({why}), so {key} is not written: a {name} older than {since} lets a call through when hookhost cannot answer. Run `hookhost install {flag}` again where `{program}` is on PATH."
                ),
            );
        }
    };
    let version = output.lines().next().unwrap_or_default().trim().to_string();
    match version_at_least(&output, first) {
        Some(true) => (
            true,
            format!("{name} {version} is on PATH: {key}: {value} is written."),
        ),
        Some(false) => (
            false,
            format!(
                "{name} {version} is on PATH, older than {since}, which added {key}: it lets a call through when hookhost cannot answer. After upgrading it, run `hookhost install {flag}` again."
            ),
        ),
        None => (
            false,
            format!(
                "`{program} --version` printed no version ({version:?}), so {key} is not written: a {name} older than {since} lets a call through when hookhost cannot answer."
            ),
        ),
    }
}

/// `program --version`'s stdout, within [`VERSION_TIMEOUT`].
fn version_output(program: &str) -> Result<String, String> {
    let path = std::env::var_os("PATH");
    let found = install::agent_program(program, path.as_deref())
        .ok_or_else(|| format!("`{program}` is in no absolute folder of PATH"))?;
    let mut child = Command::new(&found)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("`{program} --version`: {e}"))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < VERSION_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(10))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`{program} --version` did not answer within {} s",
                    VERSION_TIMEOUT.as_secs()
                ));
            }
        }
    }
    let mut output = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = std::io::Read::read_to_string(&mut stdout, &mut output);
    }
    Ok(output)
}

/// Plans and (unless `dry_run`) applies `request`, pins what it wrote with hookhost's own
/// `config` and binary, and says what it did (and what changed in those since the last pin).
fn run(
    global: &GlobalOptions,
    request: &Request,
    dry_run: bool,
    claude_note: Option<&str>,
    config: Option<&std::path::Path>,
) -> Exit {
    let report = match install::run(request, dry_run) {
        Ok(report) => report,
        Err(e) => {
            say(&format!("hookhost: {e}"));
            return Exit::CouldNotRun;
        }
    };
    let change = &report.change;
    let mut stdout = std::io::stdout().lock();
    if dry_run {
        let _ = write!(stdout, "{}", line(&change.preview()));
    } else {
        let _ = writeln!(stdout, "{}", line(&change.summary()));
        if let Some(backup) = report.applied.as_ref().and_then(|a| a.backup.as_ref()) {
            let _ = writeln!(
                stdout,
                "{}",
                line(&format!(
                    "The file as it was is kept in {}.",
                    backup.display()
                ))
            );
        }
        if let Some(note) = claude_note {
            let _ = writeln!(stdout, "{}", line(note));
        }
        for note in change.notes(&request.options) {
            let _ = writeln!(stdout, "{}", line(note));
        }
    }
    let _ = stdout.flush();
    let result = pin_change(request, change, config, dry_run);
    if let Ok(lines) = &result {
        let mut stdout = std::io::stdout().lock();
        for text in lines {
            let _ = writeln!(stdout, "{}", line(text));
        }
        let _ = stdout.flush();
    }
    match result {
        Ok(_) => {
            if request.action == Action::Install && !dry_run {
                warm_up(global, request.scope);
            }
            Exit::Success
        }
        Err(e) => {
            say(&format!(
                "hookhost: the registration is written but not pinned, so a later change to it would go unnoticed: {e}"
            ));
            Exit::CouldNotRun
        }
    }
}

/// Starts the session the registered bridge will start, once, now: its WASM hooks are
/// compiled into the cache here rather than inside the agent's first call, where a cold
/// compile (tens of seconds for a Python component) outlasts the bridge's budget and the
/// call is denied (docs/threats.md#n6). A config that does not start is said now too: the
/// bridge would deny every call until it does. The project is an empty folder of its own:
/// compiling depends on no project, and the guard's project rule is the agent's call's.
///
/// At system scope it is the administrator's session (`check --system`'s): the system
/// config, an environment with nothing that steers it, and the system cache filled.
fn warm_up(global: &GlobalOptions, scope: Scope) {
    let mut options = global.session_options(Mode::OneShot);
    options.log = None;
    if scope == Scope::System {
        let (env, _) = hookhost::system::environment(&Environment::of_process());
        options.config = Some(hookhost::system::CONFIG.into());
        options.scope = hookhost::session::Scope::System { fill_cache: true };
        options.env = Some(env.vars().to_vec());
    }
    // A folder of our own (created, so never one someone else planted), removed after.
    let project = std::env::temp_dir().join(format!("hookhost-install-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir(&project) {
        say(&format!(
            "hookhost: note: the WASM hooks were not compiled ahead ({}: {e}); run `hookhost check` so that the agent's first call does not wait for it",
            project.display()
        ));
        return;
    }
    options.project = project.clone();
    let started = Instant::now();
    match Session::start(options) {
        Ok(session) => {
            let wasm = session.hooks().filter(|h| h.is_wasm()).count();
            if wasm > 0 {
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(
                    stdout,
                    "{}",
                    line(&format!(
                        "hookhost's {wasm} WASM hook(s) are compiled into the cache ({:.1} s), so the agent's first call starts within its budget.",
                        started.elapsed().as_secs_f64()
                    ))
                );
            }
        }
        Err(e) => say(&format!(
            "hookhost: warning: hookhost's config does not start as it is, so the bridge will deny every call of this agent until it does: {}. Fix it, then run `{}`.",
            e.to_string().trim_end_matches('.'),
            match scope {
                Scope::System => hookhost::system::CHECK_COMMAND,
                _ => "hookhost check",
            }
        )),
    }
    let _ = std::fs::remove_dir(&project);
}

/// Pins what `install` wrote, with hookhost's own `config` and binary as they are now (or
/// unpins what `uninstall` removed) in hookhost's state; with `dry_run`, pins nothing.
/// Returns what the user is told about the config and binary: pinning them is how a
/// change to either is accepted, so the change is shown (docs/threats.md#r5).
fn pin_change(
    request: &Request,
    change: &install::Change,
    config: Option<&std::path::Path>,
    dry_run: bool,
) -> Result<Vec<String>, pin::PinError> {
    // A system registration is in a file only the administrator writes; a pin in the
    // administrator's own state would guard nothing the user can change
    // (docs/system-scope.md).
    if request.scope == Scope::System {
        return Ok(Vec::new());
    }
    let env = Environment::of_process();
    let path = match pin::pins_path(&env) {
        Ok(path) => path,
        Err(_) if dry_run => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    if request.action == Action::Uninstall {
        if !dry_run {
            pin::unpin(&path, request.agent, &change.file)?;
        }
        return Ok(Vec::new());
    }
    let flag = request.agent.flag_name();
    let scope = if request.scope == Scope::Project {
        " --scope project"
    } else {
        ""
    };
    let old = pin::pinned(&path, request.agent, &change.file);
    let mut lines = Vec::new();
    let mut config_now = None;
    if let Some(config) = config {
        let now = pin::ConfigPin::now(config, &env)?;
        let then = old.as_ref().and_then(|p| p.config.as_ref());
        match then.and_then(|then| then.change_to(&now)) {
            Some(what) if dry_run => {
                lines.push(format!("{what} Installing pins it as it is now."))
            }
            Some(what) => lines.push(format!(
                "{what} It is pinned as it is now, for every agent whose registration loads it."
            )),
            None if then.is_none() && !dry_run => lines.push(format!(
                "hookhost's config {} ({}) is pinned with the registration: after you edit it, check it and run `hookhost install {flag}{scope}` again to pin it; until then hookhost blocks this agent's calls.",
                now.file.display(),
                now.contents()
            )),
            None => {}
        }
        config_now = Some(now);
    }
    if dry_run {
        return Ok(lines);
    }
    let new = pin::Pin::of(change, request).with_own_files(config_now);
    if let (Some(then), Some(now)) = (
        old.as_ref().and_then(|p| p.hookhost_digest.as_deref()),
        new.hookhost_digest.as_deref(),
    ) && then != now
        && old.as_ref().is_some_and(|p| p.hookhost == new.hookhost)
    {
        lines.push(format!(
            "The hookhost binary {} changed since it was pinned ({} then, {} now); it is pinned as it is now.",
            new.hookhost.display(),
            pin::short_digest(then),
            pin::short_digest(now)
        ));
    }
    // The hooks beside hookhost's that may rewrite a call: accepted now, each named, and
    // those an earlier install accepted (in another project) kept.
    let kept = old.as_ref().and_then(|p| p.accepted_hooks.clone());
    let mut new = new;
    if let Some(accepted) = &new.accepted_hooks {
        let found = pin::found_at_install(
            request.agent,
            &change.file,
            change.after.as_deref().unwrap_or_default(),
            &change.registration,
            &request.places,
        );
        // A file another registration of this agent is pinned in is that pin's to accept
        // (its drift judges it): not announced here.
        let others: Vec<std::path::PathBuf> = pin::load(&path)
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.agent == request.agent.flag_name() && p.file != change.file)
            .map(|p| p.file)
            .collect();
        let pinned_elsewhere =
            |file: &std::path::Path| others.iter().any(|o| pin::same_path(o, file));
        for hook in found.iter().filter(|h| {
            !kept.as_ref().is_some_and(|k| k.contains(&h.digest)) && !pinned_elsewhere(&h.file)
        }) {
            if let Some(name) = &hook.variable {
                lines.push(format!(
                    "{} sets {name} for {}'s hooks ({}), which chooses what its other hooks run; `install` accepts it as it is now, and a value added or changed since refuses its calls until you run `install` again (docs/threats.md#r14).",
                    hook.file.display(),
                    request.agent.display_name(),
                    hookhost::escape::for_terminal(&hook.what),
                ));
                continue;
            }
            lines.push(format!(
                "{} holds a {} hook beside hookhost's ({}) that may rewrite a call after hookhost allowed it; `install` accepts it as it is now, and a hook added or changed since refuses {}'s calls until you run `install` again (docs/threats.md#r14).",
                hook.file.display(),
                hook.event,
                hookhost::escape::for_terminal(&hook.what),
                request.agent.display_name()
            ));
        }
        let mut merged = accepted.clone();
        merged.extend(kept.into_iter().flatten());
        merged.sort();
        merged.dedup();
        new.accepted_hooks = Some(merged);
    }
    pin::pin(&path, new)?;
    // What `install` could not accept (a hook file it cannot read, a frontmatter spelled
    // in ways it does not read) goes on refusing the agent's calls: said now, not at the
    // first call.
    if !request.places.project.as_os_str().is_empty() {
        for refusal in pin::unaccepted_project_hooks(&env, request.agent, &request.places.project) {
            lines.push(format!("Still refused after this install: {refusal}"));
        }
    }
    Ok(lines)
}
