//! The bridge process's last word: a call that outlives its budget is answered with a
//! deny, whatever it is stuck in (docs/threats.md#b10).
//!
//! Everything a bridged call does before its hooks run has no deadline of its own: the
//! read of the agent's input, the look at the warm server's socket and the hand-over,
//! the checks before the session (the agent's settings, hookhost's pins, the folders the
//! call names), and what a gate reads besides its hooks (the record, the path guard
//! before a boxed hook). A file on a file system that stops answering (a network mount,
//! a FUSE mount an agent's process serves) holds such a read, and the call, past the
//! agent's own timeout, which most agents read as "go ahead". So a bridge process arms
//! its [`Watchdog`] as it starts ([`arm_for_process`], from the warm client's
//! hand-over, which both `hookhost` and `hookhost-client` run first): a thread that
//! sleeps until the call's deadline and a grace, then, unless the call was answered,
//! writes the deny and ends the process. Until the payload names its agent the deny is
//! in the `--agent` flag's format (Claude Code's without one: exit 2 with the reason on
//! stderr, which every agent's tool-call event reads as a deny); the bridge then aims it
//! at the call's own agent and budget ([`Watchdog::aim`]). The answer is written once, by
//! whichever comes first ([`write_once`], [`answer_once`]).
//!
//! The watchdog also answers a session's start that outlives the deadline
//! ([`Watchdog::arm_start`]): the start runs on the call's own thread, as in the warm
//! server, with no thread or crossing of its own (a fresh bridged call 0.3 ms faster,
//! BENCHMARKS.md, twenty-fifth sitting).
//!
//! Only a process the agent started has one: the warm server's calls are answered at
//! their deadline by its keeper and by the bridge that handed them over
//! ([`crate::warm::client`]).

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::Reply;

/// How long past the call's deadline the watchdog waits outside the session's start:
/// the gate's own deadline answers at the deadline with a deny that says more (which hook
/// timed out), and winding a gate down (its hooks killed, its record written) takes a
/// moment. The agent's own timeout is `hookhost::bridge::install::TIMEOUT_MARGIN_MS`
/// (5 s) above the budget.
const GRACE: Duration = Duration::from_millis(1_000);

/// Whether this process's answer has been written (by the call or by the watchdog).
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// This process's watchdog, once [`arm_for_process`] started it.
static PROCESS: OnceLock<Arc<Watchdog>> = OnceLock::new();

/// Writes `reply` (stdout, then stderr) unless the watchdog answered first; `false` when
/// it did (the process is then ending with its deny).
pub fn write_once(reply: &Reply) -> bool {
    answer_once(|| write(reply))
}

/// Runs `write`, the call's answer, unless this process has answered; `false` when it
/// had (the watchdog, which is then ending the process with its deny).
pub fn answer_once(write: impl FnOnce()) -> bool {
    let mut answered = lock(&ANSWERED);
    if *answered {
        return false;
    }
    *answered = true;
    write();
    true
}

/// `reply` on this process's stdout and stderr.
pub fn write(reply: &Reply) {
    write_bytes(reply.stdout.as_bytes(), reply.stderr.as_bytes());
}

/// `stdout`, then `stderr`, on this process's own, each flushed.
pub fn write_bytes(stdout: &[u8], stderr: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(stdout);
    let _ = out.flush();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(stderr);
    let _ = err.flush();
}

/// The watchdog's deny: the call was still `doing` something at its deadline and grace.
pub fn unanswered_message(budget_ms: u64, doing: &str) -> String {
    format!(
        "hookhost did not answer this call within {budget_ms} ms, the bridge's budget for one call: it was still {doing}, so this call was blocked. This is not a policy decision: tell the user their hookhost bridge stopped answering while {doing} (a file it reads there may lie on a file system that stopped answering, such as a network or FUSE mount)."
    )
}

/// Starts this process's watchdog, which answers at `deadline` and the grace, as `agent`
/// reads it, a call of `budget_ms`, until [`Watchdog::aim`] says otherwise. An error,
/// the refusal to write, when its thread cannot be started: a call nothing would answer
/// at its deadline is not run. Arming twice keeps the first.
pub fn arm_for_process(
    deadline: Instant,
    budget_ms: u64,
    agent: super::AgentKind,
) -> Result<Arc<Watchdog>, String> {
    if let Some(armed) = PROCESS.get() {
        return Ok(Arc::clone(armed));
    }
    let deny = move |doing: &str| {
        agent
            .protocol()
            .refuse(&unanswered_message(budget_ms, doing))
    };
    let watchdog = Watchdog::arm(deadline, deny)?;
    Ok(Arc::clone(PROCESS.get_or_init(|| watchdog)))
}

/// This process's watchdog, when [`arm_for_process`] started one.
pub fn of_process() -> Option<Arc<Watchdog>> {
    PROCESS.get().cloned()
}

/// What the call was doing, for the watchdog's deny: aiming it at the call's agent ends
/// the receiving, and the session's start, once over ([`Watchdog::disarm_start`]), the
/// checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Reading the agent's input, and handing it to the warm server.
    Receiving,
    /// The checks before the session: the agent's settings, hookhost's pins and files,
    /// the folders and variables the call names. (While the session starts, the watchdog
    /// answers at the deadline with the start's own deny: [`Watchdog::arm_start`].)
    Checking,
    /// The session's hooks' runs and the gate's own reads.
    Judging,
}

impl Stage {
    fn doing(self) -> &'static str {
        match self {
            Stage::Receiving => "reading the agent's call or handing it to the warm server",
            Stage::Checking => "checking hookhost's files and the agent's settings",
            Stage::Judging => "judging the call",
        }
    }
}

/// A bridge process's watchdog, armed for one call.
pub struct Watchdog {
    plan: Mutex<Plan>,
    changed: Condvar,
}

/// The deny for a call still doing what it names.
type Deny = Box<dyn FnOnce(&str) -> Reply + Send>;

/// When the watchdog answers, and with what.
///
/// It wakes at the call's deadline (a start still running is then answered with the
/// start's deny), and at the deadline and [`GRACE`] (anything else still running); a
/// call that ends in time never wakes it. Arming and disarming the start change the plan
/// without waking it: the start's deadline is the call's.
struct Plan {
    stage: Stage,
    /// When it next looks.
    wake: Instant,
    /// The call's deadline and grace, and the deny for it given what the call was doing.
    deadline: Instant,
    deny: Option<Deny>,
    /// While the session starts: the start's deadline and its deny.
    start: Option<(Instant, Reply)>,
}

impl Watchdog {
    /// Starts the thread that answers with `deny` (given what the call was doing) at
    /// `deadline` and [`GRACE`], unless [`write_once`] answered first. An error, the
    /// refusal to send, when the thread cannot be started: a call nothing would answer
    /// at its deadline is not run.
    pub fn arm(
        deadline: Instant,
        deny: impl FnOnce(&str) -> Reply + Send + 'static,
    ) -> Result<Arc<Watchdog>, String> {
        let watchdog = Arc::new(Watchdog {
            plan: Mutex::new(Plan {
                stage: Stage::Receiving,
                wake: deadline,
                deadline: deadline + GRACE,
                deny: Some(Box::new(deny)),
                start: None,
            }),
            changed: Condvar::new(),
        });
        let watched = Arc::clone(&watchdog);
        std::thread::Builder::new()
            .name("watchdog".into())
            // It formats one message and writes it: far below std's 2 MiB default.
            .stack_size(64 << 10)
            .spawn(move || watched.watch())
            .map_err(|e| format!(
                "hookhost could not start the thread that answers this call if it outlives its budget ({e}), so this call was blocked. This is not a policy decision: tell the user their machine is out of threads or memory."
            ))?;
        Ok(watchdog)
    }

    /// Sleeps until the plan's time, then answers and ends the process, unless the call
    /// was answered.
    fn watch(&self) {
        let mut plan = lock(&self.plan);
        let reply = loop {
            if let Some(left) = plan.wake.checked_duration_since(Instant::now())
                && !left.is_zero()
            {
                plan = self
                    .changed
                    .wait_timeout(plan, left)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
                continue;
            }
            let now = Instant::now();
            if plan.start.as_ref().is_some_and(|(due, _)| *due <= now)
                && let Some((_, deny)) = plan.start.take()
            {
                break deny;
            }
            if plan.deadline <= now {
                match plan.deny.take() {
                    Some(deny) => break deny(plan.stage.doing()),
                    None => return,
                }
            }
            plan.wake = match &plan.start {
                Some((due, _)) => plan.deadline.min(*due),
                None => plan.deadline,
            };
        };
        let mut answered = lock(&ANSWERED);
        if *answered {
            return;
        }
        *answered = true;
        write(&reply);
        // Still holding the lock: the call's own answer can never follow this one, nor its
        // exit status replace the deny's.
        std::process::exit(i32::from(u8::try_from(reply.exit_code).unwrap_or(2)));
    }
}

impl Watchdog {
    /// From now on answers with `deny`, at `deadline` and the grace: the call's own
    /// agent and budget, known once its payload is read. The call is then checked.
    pub fn aim(&self, deadline: Instant, deny: impl FnOnce(&str) -> Reply + Send + 'static) {
        let mut plan = lock(&self.plan);
        plan.deny = Some(Box::new(deny));
        plan.stage = Stage::Checking;
        plan.deadline = deadline + GRACE;
        if deadline < plan.wake {
            plan.wake = deadline;
            self.changed.notify_one();
        }
    }

    /// From now on, answers the call with `deny` at `deadline` (the session's start, run
    /// on the call's own thread), unless [`disarm_start`](Self::disarm_start) comes first.
    pub fn arm_start(&self, deadline: Instant, deny: &Reply) {
        let mut plan = lock(&self.plan);
        plan.start = Some((deadline, deny.clone()));
        // Never so for a bridged call, whose start's deadline is the call's.
        if deadline < plan.wake {
            plan.wake = deadline;
            self.changed.notify_one();
        }
    }

    /// Stops [`arm_start`](Self::arm_start)'s deny; `false`: too late, the call was
    /// answered with it.
    pub fn disarm_start(&self) -> bool {
        let mut plan = lock(&self.plan);
        // Taken by the watchdog: it is answering with the start's deny.
        if plan.start.take().is_none() {
            return false;
        }
        plan.stage = Stage::Judging;
        true
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
