//! The bridge process's last word: a call that outlives its budget is answered with a
//! deny, whatever it is stuck in (docs/threats.md#b10).
//!
//! The checks before the session (the agent's settings, hookhost's pins, the folders the
//! call names) have no deadline of their own, and neither has what a gate reads besides
//! its hooks (the record, the path guard before a boxed hook). A file on a file system
//! that stops answering (a network mount, a FUSE mount an agent's process serves) holds
//! such a read, and the call, past the agent's own timeout, which most agents read as
//! "go ahead". So a bridge process arms a [`Watchdog`] once it knows
//! its agent: a thread that sleeps until the call's deadline and a grace, then, unless
//! the call was answered, writes the deny and ends the process. The answer is written
//! once, by whichever comes first ([`write_once`]).
//!
//! The watchdog is also the process's [`LateStart`]: the session's start runs on the
//! call's own thread, as in the warm server, and the watchdog answers at the deadline
//! itself with the start's deny while it runs. Before, the start ran on a blocking thread
//! waited for until the deadline: one thread per call either way, but no crossing to it
//! and back now, and the watchdog wakes only at the deadline (a fresh bridged call
//! 0.3 ms faster, BENCHMARKS.md, twenty-fifth sitting).
//!
//! Only the process the agent started has one: the warm server's calls are answered at
//! their deadline by its keeper and by the bridge that handed them over
//! (`hookhost::warm::client`).

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use hookhost::bridge::Reply;

use super::bridge::LateStart;

/// How long past the call's deadline the watchdog waits outside the session's start:
/// the gate's own deadline answers at the deadline with a deny that says more (which hook
/// timed out), and winding a gate down (its hooks killed, its record written) takes a
/// moment. The agent's own timeout is `hookhost::bridge::install::TIMEOUT_MARGIN_MS`
/// (5 s) above the budget.
const GRACE: Duration = Duration::from_millis(1_000);

/// Whether this process's answer has been written (by the call or by the watchdog).
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// Writes `reply` unless the watchdog answered first; `false` when it did (the process is
/// then ending with its deny).
pub fn write_once(reply: &Reply) -> bool {
    let mut answered = lock(&ANSWERED);
    if *answered {
        return false;
    }
    *answered = true;
    super::bridge::write(reply);
    true
}

/// What the call was doing, for the watchdog's deny: the session's start, once over
/// (`LateStart::disarm`), ends the checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The checks before the session: the agent's settings, hookhost's pins and files,
    /// the folders and variables the call names. (While the session starts, the watchdog
    /// answers at the deadline with the start's own deny: [`LateStart`].)
    Checking,
    /// The session's hooks' runs and the gate's own reads.
    Judging,
}

impl Stage {
    fn doing(self) -> &'static str {
        match self {
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
                stage: Stage::Checking,
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
        super::bridge::write(&reply);
        // Still holding the lock: the call's own answer can never follow this one, nor its
        // exit status replace the deny's.
        std::process::exit(i32::from(u8::try_from(reply.exit_code).unwrap_or(2)));
    }
}

/// The session's start runs on the call's thread, and the watchdog answers it at its
/// deadline with the start's deny.
impl LateStart for Arc<Watchdog> {
    fn arm(&self, deadline: Instant, deny: &Reply) {
        let mut plan = lock(&self.plan);
        plan.start = Some((deadline, deny.clone()));
        // Never so for a bridged call, whose start's deadline is the call's.
        if deadline < plan.wake {
            plan.wake = deadline;
            self.changed.notify_one();
        }
    }

    fn disarm(&self) -> bool {
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
