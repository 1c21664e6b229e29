//! The warm server's keeper of start deadlines: one thread that answers a call whose
//! session start outlives the call's deadline.
//!
//! The server runs each call on the thread that took its connection, the session's start
//! included (docs/threats.md#n6). A start run on a blocking thread and waited for until
//! the deadline cost every call two wake-ups of another CPU, ~0.1 ms of a ~1.8 ms call
//! (BENCHMARKS.md, seventeenth sitting). So the call's thread starts the session itself,
//! and the deny a late start is answered with is left here first ([`CallSlot::arm`]), as
//! a bridge process leaves it with its watchdog (`hookhost::bridge::watchdog`).
//! If the start is still running at the deadline (a compile into an empty cache, a
//! file system that hangs), this thread sends that deny and closes the connection; the
//! call's thread, when its start ends, finds the call answered and runs no hook.
//!
//! The keeper sleeps until the earliest deadline it watches. A call that ends only marks
//! its slot (no lock of the keeper's, no wake-up): the keeper forgets it at its next
//! wake, or when its list has grown enough to be worth sweeping.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Instant;

use hookhost::warm::{self, Answer};

/// The list is swept of calls that ended when it reaches this length (then twice the
/// length left): calls end much faster than the budget the keeper next wakes for.
const FIRST_SWEEP: usize = 64;

/// The keeper: a thread and the calls it watches.
#[derive(Clone)]
pub(super) struct Keeper {
    shared: Arc<Shared>,
}

struct Shared {
    watched: Mutex<Watched>,
    wake: Condvar,
}

#[derive(Default)]
struct Watched {
    calls: Vec<(Instant, Weak<CallSlot>)>,
    /// When the keeper wakes next; `None`: when told to.
    next_wake: Option<Instant>,
    /// The length at which [`Watched::calls`] is swept next.
    sweep_at: usize,
}

impl Keeper {
    /// Starts the keeper's thread.
    pub(super) fn start() -> std::io::Result<Keeper> {
        let shared = Arc::new(Shared {
            watched: Mutex::new(Watched {
                sweep_at: FIRST_SWEEP,
                ..Watched::default()
            }),
            wake: Condvar::new(),
        });
        let keeper = Keeper { shared };
        let running = keeper.clone();
        std::thread::Builder::new()
            .name("hookhost-warm-deadlines".into())
            .spawn(move || running.keep())?;
        Ok(keeper)
    }

    fn lock(&self) -> MutexGuard<'_, Watched> {
        // A panic while the list was held leaves it whole: it holds no invariant a
        // half-done change could break.
        self.shared
            .watched
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Watches `slot` until `deadline`.
    fn watch(&self, deadline: Instant, slot: Weak<CallSlot>) {
        let mut watched = self.lock();
        if watched.calls.len() >= watched.sweep_at {
            watched.calls.retain(|(_, slot)| slot.strong_count() > 0);
            watched.sweep_at = (2 * watched.calls.len()).max(FIRST_SWEEP);
        }
        watched.calls.push((deadline, slot));
        // Only a deadline before the keeper's next wake needs it woken: most calls come
        // while it sleeps until an earlier one.
        if watched.next_wake.is_none_or(|next| deadline < next) {
            watched.next_wake = Some(deadline);
            self.shared.wake.notify_one();
        }
    }

    /// The keeper's thread: answers the calls whose deadline came, forgets the ended ones,
    /// sleeps until the next deadline.
    fn keep(self) {
        let mut watched = self.lock();
        loop {
            let now = Instant::now();
            let mut due = Vec::new();
            watched
                .calls
                .retain(|(deadline, slot)| match slot.upgrade() {
                    None => false,
                    Some(slot) if *deadline <= now => {
                        due.push(slot);
                        false
                    }
                    Some(_) => true,
                });
            watched.next_wake = watched.calls.iter().map(|(deadline, _)| *deadline).min();
            if !due.is_empty() {
                drop(watched);
                for slot in due {
                    slot.answer_late();
                }
                watched = self.lock();
                continue;
            }
            let waited = match watched.next_wake {
                None => self.shared.wake.wait(watched),
                Some(next) => {
                    let left = next.saturating_duration_since(now);
                    self.shared
                        .wake
                        .wait_timeout(watched, left)
                        .map(|(watched, _)| watched)
                        .map_err(|poisoned| PoisonError::new(poisoned.into_inner().0))
                }
            };
            watched = waited.unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// One call's connection, shared by the call's thread and the keeper: whichever answers
/// first takes it.
pub(super) struct CallSlot {
    state: Mutex<SlotState>,
    keeper: Keeper,
}

enum SlotState {
    /// Not answered yet; `late`: what the keeper answers at the deadline.
    Open {
        connection: warm::Connection,
        late: Option<Answer>,
    },
    /// Answered (by the keeper, or by the call).
    Answered,
}

impl CallSlot {
    pub(super) fn new(connection: warm::Connection, keeper: Keeper) -> Arc<CallSlot> {
        Arc::new(CallSlot {
            state: Mutex::new(SlotState::Open {
                connection,
                late: None,
            }),
            keeper,
        })
    }

    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The connection, to answer the call with; `None`: the keeper has answered it.
    pub(super) fn take(&self) -> Option<warm::Connection> {
        match std::mem::replace(&mut *self.lock(), SlotState::Answered) {
            SlotState::Open { connection, .. } => Some(connection),
            SlotState::Answered => None,
        }
    }

    /// The keeper's part: sends the deny armed, if the call is still unanswered.
    fn answer_late(&self) {
        let mut state = self.lock();
        if !matches!(&*state, SlotState::Open { late: Some(_), .. }) {
            return;
        }
        if let SlotState::Open {
            connection,
            late: Some(late),
        } = std::mem::replace(&mut *state, SlotState::Answered)
        {
            drop(state);
            let _ = connection.answer(&late);
            tracing::debug!("hookhost warm: a call's start outlived its deadline; denied");
        }
    }
}

/// Arc'd so that the keeper holds only a weak reference: a call that ended is gone.
impl super::super::bridge::LateStart for Arc<CallSlot> {
    fn arm(&self, deadline: Instant, deny: &hookhost::bridge::Reply) {
        if let SlotState::Open { late, .. } = &mut *self.lock() {
            *late = Some(super::answer_of(deny.clone()));
        }
        self.keeper.watch(deadline, Arc::downgrade(self));
    }

    fn disarm(&self) -> bool {
        match &mut *self.lock() {
            SlotState::Open { late, .. } => {
                *late = None;
                true
            }
            SlotState::Answered => false,
        }
    }
}
