//! The argv executor: an ordinary program, on the host or inside the OS's box
//! (bubblewrap on Linux, Seatbelt on macOS).
//!
//! No shell. Each run is its own process group, forked from the spawner thread
//! ([`crate::process::spawn`]), or, for a host hook in `hookhost warm` and `serve`, the
//! group of a keeper made ahead of the call (`Spawned::Ready`). Stdin (the envelope) is written while stdout and stderr
//! are read, each with a cap, so that a hook that never reads a large input cannot
//! deadlock and one that prints without end cannot exhaust memory. When the hook
//! exits, times out or is cancelled, its whole group is killed, orphans that escaped
//! with `setsid` are swept, and the pipes are drained with a deadline, so that a
//! background child holding stdout open cannot hold the verdict back.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::{
    BoxFuture, CancellationToken, Executor, ExitStatus, Failure, OUTPUT_CAP, RawOutput, Stream,
};
use crate::platform::sys;
use crate::process;

/// How long to wait for the pipes to close once the hook's group is dead.
const DRAIN_DEADLINE: Duration = Duration::from_secs(2);

/// Builds the command to run for one argv hook run.
pub trait Launcher: Send + Sync {
    /// A std `Command` that runs `argv` with exactly `env`, in `cwd`. Stdio, the process
    /// group and the death signal are set by the executor.
    fn command(
        &self,
        argv: &[OsString],
        env: &[(OsString, OsString)],
        cwd: &std::path::Path,
    ) -> std::io::Result<std::process::Command>;

    /// Whether a hook killed by a signal ends, as this launcher sees it, with exit status
    /// 128 + the signal rather than with the signal: bubblewrap reports its child's
    /// death that way, as a shell does.
    fn reports_signals_as_exit_codes(&self) -> bool {
        false
    }

    /// When spawning a command of this launcher failed with `error` in the launcher's
    /// own set-up, before the program was executed (so it has not run): the launcher to
    /// start it with instead. `None` (the default) for every other failure.
    fn fallback(&self, _error: &std::io::Error) -> Option<Arc<dyn Launcher>> {
        None
    }

    /// A command of this launcher was spawned (its set-up reached the program's exec).
    fn started(&self) {}

    /// Whether a run may start its hook in a namespace this process made ahead of the
    /// call, where it keeps them ([`process::prepare_host_namespaces_ahead`]), instead
    /// of spawning [`Launcher::command`]. `false` (the default).
    fn starts_in_ready_namespaces(&self) -> bool {
        false
    }

    /// Whether a run of a command this launcher spawned, whose process then exited
    /// (with a code, not killed by a signal), has left nothing running and no child for
    /// this process to reap, so that the orphan sweep has nothing to find. `false` (the
    /// default): the sweep runs.
    fn leaves_nothing_behind(&self) -> bool {
        false
    }
}

/// The status bubblewrap (or a shell) reports for a child killed by a signal: 128 + the
/// signal, for the signals there are (1–64).
const SIGNAL_EXIT_CODES: std::ops::RangeInclusive<i32> = 129..=192;

/// Runs the program directly on the host, with its stdio and (on Linux) no other fd of
/// this process's.
#[derive(Debug, Default, Clone, Copy)]
pub struct HostLauncher;

impl Launcher for HostLauncher {
    fn command(
        &self,
        argv: &[OsString],
        env: &[(OsString, OsString)],
        cwd: &std::path::Path,
    ) -> std::io::Result<std::process::Command> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| std::io::Error::other("the command is empty"))?;
        let mut command = std::process::Command::new(program);
        command
            .args(args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(cwd);
        sys::process::stdio_only_across_exec(&mut command);
        Ok(command)
    }
}

/// Runs the program on the host in a PID namespace and a `/proc` of its own
/// ([`process::HookNamespace`]), so that it cannot see the agent's process.
#[derive(Debug, Clone)]
pub struct IsolatedHostLauncher {
    namespace: Arc<process::HookNamespace>,
}

impl IsolatedHostLauncher {
    /// A launcher whose hooks enter `namespace` (from
    /// [`process::HookNamespace::for_this_process`]).
    pub fn new(namespace: process::HookNamespace) -> IsolatedHostLauncher {
        IsolatedHostLauncher {
            namespace: Arc::new(namespace),
        }
    }
}

impl Launcher for IsolatedHostLauncher {
    fn command(
        &self,
        argv: &[OsString],
        env: &[(OsString, OsString)],
        cwd: &std::path::Path,
    ) -> std::io::Result<std::process::Command> {
        let mut command = HostLauncher.command(argv, env, cwd)?;
        // A spawn of this process found that the namespace cannot be made: the later
        // hooks start without trying again (the warning says so once).
        if process::HookNamespace::known_failure().is_none() {
            sys::pid_namespace::enter_before_exec(&mut command, self.namespace.clone(), argv, env)?;
        }
        Ok(command)
    }

    /// The namespace could not be entered (the hook has not run): the hook starts on the
    /// host as where no namespace can be made at all, and the start-up warning says why.
    fn fallback(&self, error: &std::io::Error) -> Option<Arc<dyn Launcher>> {
        let why = sys::pid_namespace::setup_failure(error)?;
        tracing::warn!("{}", process::no_namespace_warning(&why));
        Some(Arc::new(HostLauncher))
    }

    /// The namespace was made: from now on this process knows it works, and a set-up
    /// that fails later fails its run rather than falling back.
    fn started(&self) {
        sys::pid_namespace::made(&self.namespace);
    }

    /// Yes, unless a spawn of this process found that the namespace cannot be made.
    fn starts_in_ready_namespaces(&self) -> bool {
        process::HookNamespace::known_failure().is_none()
    }

    /// A run that entered the namespace ends with it: its keeper exits with a code only
    /// once it has reaped the namespace's init, and the kernel lets the init end only
    /// once every process of the namespace has ended and been reaped (no process can
    /// leave a PID namespace). A keeper killed before (a hook can signal its own
    /// group) leaves the init to this process: the sweep reaps it.
    /// What this process knows of the namespace is only ever set once, so a command
    /// spawned while no failure was known entered it, and if none is known after the
    /// spawn, none was before.
    fn leaves_nothing_behind(&self) -> bool {
        process::HookNamespace::known_failure().is_none()
    }
}

/// An argv hook prepared to run.
pub struct ArgvExecutor {
    argv: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    cwd: PathBuf,
    timeout: Duration,
    launcher: Arc<dyn Launcher>,
}

impl ArgvExecutor {
    /// An executor for `argv` (its first element already resolved to an absolute path)
    /// with exactly `env`, run from `cwd` (`/` on the host, the project in the box).
    pub fn new(
        argv: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
        cwd: PathBuf,
        timeout: Duration,
        launcher: Arc<dyn Launcher>,
    ) -> ArgvExecutor {
        ArgvExecutor {
            argv,
            env,
            cwd,
            timeout,
            launcher,
        }
    }

    fn program_name(&self) -> String {
        self.argv
            .first()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// One run, as named steps: wait for a process slot ([`process::process_slots`]),
    /// start the hook in a process group of its own, feed its
    /// stdin and read its output in the background, wait for it (or its timeout, or a
    /// cancel), end its whole group, then collect what it wrote.
    async fn run_once(
        &self,
        stdin: Arc<[u8]>,
        cancel: &CancellationToken,
    ) -> Result<RawOutput, Failure> {
        // A process slot first: waiting for one is not the hook's time, which starts
        // once it runs.
        let _slot = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(Failure::Interrupted),
            slot = process::process_slots().clone().acquire_owned() => slot.map_err(|_| {
                Failure::CouldNotStart("hookhost is shutting down".into())
            })?,
        };
        let (mut child, leaves_nothing_behind) = self.spawn(cancel).await?;
        let Some(pid) = child.id() else {
            return Err(Failure::CouldNotStart(
                "the process vanished at start".into(),
            ));
        };
        let group = GroupGuard { pid };
        let streams = Streams::attach(child.take_pipes(), stdin, pid);
        let ended = tokio::select! {
            status = child.wait() => Ok(status),
            _ = tokio::time::sleep(self.timeout) => Err(Failure::TimedOut(self.timeout)),
            _ = cancel.cancelled() => Err(Failure::Interrupted),
        };
        // Whatever happened, nothing of the hook's group outlives this run.
        process::kill_group(pid);
        let status = match ended {
            Ok(status) => status,
            Err(failure) => {
                let _ = child.wait().await;
                end_group(group).await;
                streams.abort().await;
                return Err(failure);
            }
        };
        // A process that exited (not one killed: a kill of the group may have come
        // before it had ended its run), of a launcher whose runs end whole: nothing
        // escaped to sweep (the sweep reads every thread's children list from /proc).
        if leaves_nothing_behind && status.as_ref().is_ok_and(|s| s.code().is_some()) {
            drop(group);
        } else {
            end_group(group).await;
        }
        let (stdout, stderr) = streams.collect().await?;
        let status =
            status.map_err(|e| Failure::CouldNotStart(format!("waiting for the hook: {e}")))?;
        let status = match (status.code(), sys::process::exit_signal(&status)) {
            (Some(code), _)
                if self.launcher.reports_signals_as_exit_codes()
                    && SIGNAL_EXIT_CODES.contains(&code) =>
            {
                ExitStatus::Signal(code - 128)
            }
            (Some(code), _) => ExitStatus::Code(code),
            (None, Some(signal)) => ExitStatus::Signal(signal),
            (None, None) => ExitStatus::Signal(0),
        };
        Ok(RawOutput {
            status,
            stdout,
            stderr,
        })
    }

    /// Starts the hook: in a namespace this process made ahead of the call, where the
    /// launcher may and one is ready ([`Launcher::starts_in_ready_namespaces`]), else
    /// through the launcher (on the host or in the box); either way its stdio piped, in
    /// a process group of its own that dies with the thread that spawned it; with
    /// whether the launcher that started it leaves nothing behind
    /// ([`Launcher::leaves_nothing_behind`]).
    async fn spawn(&self, cancel: &CancellationToken) -> Result<(Spawned, bool), Failure> {
        if let Some(ready) = self
            .launcher
            .starts_in_ready_namespaces()
            .then(process::take_ready)
            .flatten()
        {
            // The start is bounded by the hook's time: a keeper that never answers (one
            // stopped by a signal) ends the run as a hook that outlived it would.
            let started = tokio::select! {
                started = ready.start(&self.argv, &self.env, &self.cwd) => started,
                _ = tokio::time::sleep(self.timeout) => return Err(Failure::TimedOut(self.timeout)),
                _ = cancel.cancelled() => return Err(Failure::Interrupted),
            };
            match started {
                Ok(run) => {
                    self.launcher.started();
                    return Ok((Spawned::Ready(run), true));
                }
                Err(process::NotStarted::Failed(e)) => {
                    return Err(Failure::CouldNotStart(describe_spawn_error(
                        &self.program_name(),
                        &e,
                    )));
                }
                // The hook has not run: it starts the usual way.
                Err(process::NotStarted::Unused) => {}
            }
        }
        let spawned = match process::spawn(self.command(self.launcher.as_ref())?).await {
            // The launcher's set-up failed before exec: the hook has not run, and starts
            // once more the way the launcher says.
            Err(e) => match self.launcher.fallback(&e) {
                Some(fallback) => process::spawn(self.command(fallback.as_ref())?)
                    .await
                    .map(|child| (child, fallback.leaves_nothing_behind())),
                None => Err(e),
            },
            Ok(child) => {
                self.launcher.started();
                Ok((child, self.launcher.leaves_nothing_behind()))
            }
        };
        spawned
            .map(|(child, leaves_nothing_behind)| (Spawned::Child(child), leaves_nothing_behind))
            .map_err(|e| Failure::CouldNotStart(describe_spawn_error(&self.program_name(), &e)))
    }

    /// The hook's command through `launcher`, its stdio piped, in a process group of its
    /// own that dies with the thread that spawned it.
    fn command(&self, launcher: &dyn Launcher) -> Result<tokio::process::Command, Failure> {
        let mut command = launcher
            .command(&self.argv, &self.env, &self.cwd)
            .map_err(|e| Failure::CouldNotStart(format!("{}: {e}", self.program_name())))?;
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        sys::process::own_group_dying_with_spawner(&mut command);
        let mut command = tokio::process::Command::from(command);
        command.kill_on_drop(true);
        Ok(command)
    }
}

/// A hook's process: spawned for its run, or a ready keeper's.
enum Spawned {
    Child(tokio::process::Child),
    Ready(process::ReadyRun),
}

impl Spawned {
    /// The pid of the process the run waits on (its group's leader); `None` if it
    /// vanished at start.
    fn id(&self) -> Option<u32> {
        match self {
            Spawned::Child(child) => child.id(),
            Spawned::Ready(run) => Some(run.id()),
        }
    }

    /// Its stdin, stdout and stderr (once).
    fn take_pipes(&mut self) -> process::Pipes {
        match self {
            Spawned::Child(child) => (
                child
                    .stdin
                    .take()
                    .map(|p| Box::new(p) as Box<dyn AsyncWrite + Send + Unpin>),
                child
                    .stdout
                    .take()
                    .map(|p| Box::new(p) as Box<dyn AsyncRead + Send + Unpin>),
                child
                    .stderr
                    .take()
                    .map(|p| Box::new(p) as Box<dyn AsyncRead + Send + Unpin>),
            ),
            Spawned::Ready(run) => run.take_pipes(),
        }
    }

    /// Waits for it to end.
    async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        match self {
            Spawned::Child(child) => child.wait().await,
            Spawned::Ready(run) => run.wait().await,
        }
    }
}

/// Ends a run's process group (killed already) and sweeps what escaped it.
async fn end_group(group: GroupGuard) {
    drop(group);
    tokio::task::spawn_blocking(process::sweep_orphans)
        .await
        .ok();
}

/// A running hook's stdin being written and its stdout and stderr being read, each in
/// the background.
struct Streams {
    writer: Option<tokio::task::JoinHandle<()>>,
    stdout: Option<Reader>,
    stderr: Option<Reader>,
}

impl Streams {
    /// Takes the child's pipes: writes `stdin` to it and reads both outputs, capped.
    fn attach((input, stdout, stderr): process::Pipes, stdin: Arc<[u8]>, pid: u32) -> Streams {
        let writer = input.map(|mut pipe| {
            tokio::spawn(async move {
                // A hook may exit without reading its input: EPIPE is not our failure.
                let _ = pipe.write_all(&stdin).await;
            })
        });
        Streams {
            writer,
            stdout: stdout.map(|p| read_capped(p, pid)),
            stderr: stderr.map(|p| read_capped(p, pid)),
        }
    }

    /// A run that failed: stops all three, keeping nothing.
    async fn abort(self) {
        abort_all(self.writer, self.stdout, self.stderr).await;
    }

    /// A run that ended: stops the writer, drains both outputs (within the drain
    /// deadline); an output over the cap fails the run.
    async fn collect(self) -> Result<(Vec<u8>, Vec<u8>), Failure> {
        if let Some(w) = self.writer {
            w.abort();
            let _ = w.await;
        }
        let (out, out_over) = drain(self.stdout).await;
        let (err, err_over) = drain(self.stderr).await;
        if out_over {
            return Err(Failure::OutputTooLarge(Stream::Stdout));
        }
        if err_over {
            return Err(Failure::OutputTooLarge(Stream::Stderr));
        }
        Ok((out, err))
    }
}

impl Executor for ArgvExecutor {
    fn run<'a>(
        &'a self,
        stdin: Arc<[u8]>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<RawOutput, Failure>> {
        Box::pin(self.run_once(stdin, cancel))
    }
}

/// Kills the hook's group and forgets its pid if the run is dropped half-way (a
/// cancelled `serve` request) as well as on every normal path.
struct GroupGuard {
    pid: u32,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        process::kill_group(self.pid);
        process::forget(self.pid);
    }
}

/// A stream being read in the background into a shared buffer, so that what was read
/// is kept even when the drain deadline passes.
struct Reader {
    task: tokio::task::JoinHandle<()>,
    buffer: Arc<std::sync::Mutex<Captured>>,
}

#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    overflow: bool,
}

/// Stops the writer and the readers and waits until they are gone, so that their pipe
/// ends are closed when the run returns.
async fn abort_all(
    writer: Option<tokio::task::JoinHandle<()>>,
    a: Option<Reader>,
    b: Option<Reader>,
) {
    if let Some(w) = writer {
        w.abort();
        let _ = w.await;
    }
    for r in [a, b].into_iter().flatten() {
        r.task.abort();
        let _ = r.task.await;
    }
}

/// Starts reading up to [`OUTPUT_CAP`] bytes; one byte more kills the hook's group and
/// marks the overflow, so memory stays bounded whatever the hook prints.
fn read_capped(mut pipe: impl AsyncRead + Unpin + Send + 'static, pid: u32) -> Reader {
    let buffer = Arc::new(std::sync::Mutex::new(Captured::default()));
    let shared = buffer.clone();
    let task = tokio::spawn(async move {
        let mut chunk = vec![0u8; 16 * 1024];
        loop {
            let n = match pipe.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let Ok(mut captured) = shared.lock() else {
                return;
            };
            if captured.bytes.len() + n > OUTPUT_CAP {
                captured.overflow = true;
                drop(captured);
                process::kill_group(pid);
                return;
            }
            captured.bytes.extend_from_slice(&chunk[..n]);
        }
    });
    Reader { task, buffer }
}

/// Waits for a reader with [`DRAIN_DEADLINE`]; past it, keeps what was read.
async fn drain(reader: Option<Reader>) -> (Vec<u8>, bool) {
    let Some(mut reader) = reader else {
        return (Vec::new(), false);
    };
    if tokio::time::timeout(DRAIN_DEADLINE, &mut reader.task)
        .await
        .is_err()
    {
        reader.task.abort();
        let _ = (&mut reader.task).await;
    }
    match reader.buffer.lock() {
        Ok(mut captured) => (std::mem::take(&mut captured.bytes), captured.overflow),
        Err(_) => (Vec::new(), false),
    }
}

fn describe_spawn_error(program: &str, error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => format!("{program} was not found"),
        std::io::ErrorKind::PermissionDenied => {
            format!("{program} is not executable (permission denied)")
        }
        _ => format!("{program}: {error}"),
    }
}
