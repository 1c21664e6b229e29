//! Replay: an [`Executor`] that serves each run from a session record by hook and
//! input digest, and starts nothing (no process, no WASM instance).
//!
//! Effects for the same hook and input are served in the order they were recorded. An
//! input the record does not hold, and an effect whose output the record cut (so it
//! cannot be given back exactly), are noted as problems; the run then fails with
//! "could not start: not in the record", and the replay as a whole does not match.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use crate::dispatch::input_digest;
use crate::executor::{BoxFuture, CancellationToken, Executor, Failure, RawOutput};
use crate::record::Effect;

/// The recorded effects, shared by every hook's [`ReplayExecutor`].
#[derive(Debug, Default)]
pub struct ReplayStore {
    effects: Mutex<HashMap<(String, String), VecDeque<Effect>>>,
    problems: Mutex<Vec<String>>,
    served: Mutex<usize>,
}

impl ReplayStore {
    /// A store holding `effects`, in record order.
    pub fn new(effects: impl IntoIterator<Item = Effect>) -> ReplayStore {
        let mut map: HashMap<(String, String), VecDeque<Effect>> = HashMap::new();
        for e in effects {
            map.entry((e.hook.clone(), e.input_digest.clone()))
                .or_default()
                .push_back(e);
        }
        ReplayStore {
            effects: Mutex::new(map),
            ..ReplayStore::default()
        }
    }

    /// What could not be served, one line each.
    pub fn problems(&self) -> Vec<String> {
        self.problems.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// How many runs were served from the record.
    pub fn served(&self) -> usize {
        self.served.lock().map(|n| *n).unwrap_or(0)
    }

    fn serve(&self, hook: &str, stdin: &[u8]) -> Result<RawOutput, Failure> {
        let digest = input_digest(stdin);
        let next = self
            .effects
            .lock()
            .ok()
            .and_then(|mut m| m.get_mut(&(hook.to_string(), digest.clone()))?.pop_front());
        let problem = match next.map(|e| e.result()) {
            Some(Ok(result)) => {
                if let Ok(mut n) = self.served.lock() {
                    *n += 1;
                }
                return result;
            }
            Some(Err(why)) => format!(
                "hook {hook}: the recorded effect for input {digest} cannot be served exactly: {why}; it was not run"
            ),
            None => {
                format!("hook {hook}: input {digest} is not in the record; it was not run")
            }
        };
        if let Ok(mut p) = self.problems.lock() {
            p.push(problem);
        }
        Err(Failure::CouldNotStart("not in the record".into()))
    }
}

/// One hook's runs, served from a [`ReplayStore`].
#[derive(Debug, Clone)]
pub struct ReplayExecutor {
    hook: String,
    store: Arc<ReplayStore>,
}

impl ReplayExecutor {
    /// The executor for `hook`.
    pub fn new(hook: &str, store: Arc<ReplayStore>) -> ReplayExecutor {
        ReplayExecutor {
            hook: hook.into(),
            store,
        }
    }
}

impl Executor for ReplayExecutor {
    fn run<'a>(
        &'a self,
        stdin: Arc<[u8]>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<RawOutput, Failure>> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(Failure::Interrupted);
            }
            self.store.serve(&self.hook, &stdin)
        })
    }
}
