//! The one poller: a condition checked until it holds or a generous limit passes.

use std::time::{Duration, Instant};

/// How long [`wait_until`] polls: far above what any condition takes, so that only a
/// condition that never holds reaches it on a slow, shared machine.
const LIMIT: Duration = Duration::from_secs(20);

/// Polls `condition` every 20 ms for up to 20 s; true as soon as it holds.
pub fn wait_until(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + LIMIT;
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    condition()
}
