//! The start of a session whose record many processes share: behind the bridge, every
//! call of an agent's session is a fresh process that appends to one record.
//!
//! The first call creates the record; the others resume it with today's config; a call
//! that finds it held by another waits, within the caller's deadline. Nothing here loops
//! past that deadline, and a record path that is a link is refused, never followed
//! (docs/threats.md#n3: a dangling link there made every start fail with "exists" and
//! retry forever, past the agent's timeout, which most agents read as "go ahead").

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{Session, SessionOptions, StartError};
use crate::record::{RecordError, ResumeFrom};

/// How often a call waits for the record that another call of its session holds.
const LOCK_RETRY: Duration = Duration::from_millis(5);

/// How long a record may hold no session before it counts as broken: the call that
/// created it writes its first line right after creating it.
const EMPTY_RECORD_GRACE: Duration = Duration::from_millis(500);

/// Why a session on a shared record did not start.
#[derive(Debug, thiserror::Error)]
pub enum SharedStartError {
    /// The session itself could not start (config, guard, hooks, record).
    #[error(transparent)]
    Start(#[from] StartError),
    /// Other calls held the record until the deadline.
    #[error(
        "hookhost timed out after {budget_ms} ms, the bridge's budget for one call, waiting for the session record {} that other calls of this session held, so this call was blocked. This is not a policy decision: retrying may help; tell the user if it keeps happening.",
        record.display()
    )]
    Busy {
        /// The record.
        record: PathBuf,
        /// The caller's budget, for the message.
        budget_ms: u64,
    },
    /// The record's path is a symbolic link, which hookhost never follows.
    #[error(
        "the session record {} is a symbolic link, which hookhost never follows (something other than hookhost put it there), so this call was blocked. Remove the link; hookhost makes the record again on the next call.",
        record.display()
    )]
    Link {
        /// The record.
        record: PathBuf,
    },
}

impl Session {
    /// Starts `options` on the record `record` that every call of the session shares:
    /// creates it, or resumes it cleanly with today's config, or waits while another
    /// call holds it, until `deadline` (`budget_ms` names it in the message).
    pub async fn start_shared(
        options: SessionOptions,
        record: PathBuf,
        deadline: Instant,
        budget_ms: u64,
    ) -> Result<Session, SharedStartError> {
        let mut empty_since: Option<Instant> = None;
        loop {
            let mut attempt = options.clone();
            match std::fs::symlink_metadata(&record) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(SharedStartError::Link { record });
                }
                Ok(_) => {
                    attempt.resume = Some(ResumeFrom {
                        file: record.clone(),
                        clean: true,
                    });
                }
                Err(_) => attempt.log = Some(record.clone()),
            }
            let waited = match Session::start(attempt) {
                Ok(session) => return Ok(session),
                // Another call of this session created it first: resume it.
                Err(StartError::Record(RecordError::Exists(_))) => false,
                // A record with no session in it for longer than a creator takes to
                // write its first line is broken, not busy: say so rather than wait.
                Err(e @ StartError::Record(RecordError::NoSession(_)))
                    if empty_since.is_some_and(|t| t.elapsed() >= EMPTY_RECORD_GRACE) =>
                {
                    return Err(e.into());
                }
                // Another call holds it (or has just created it and not yet written its
                // first line): wait, within the deadline.
                Err(StartError::Record(
                    error @ (RecordError::Locked(_) | RecordError::NoSession(_)),
                )) => {
                    if matches!(error, RecordError::NoSession(_)) {
                        empty_since.get_or_insert_with(Instant::now);
                    }
                    true
                }
                Err(e) => return Err(e.into()),
            };
            // Every turn, however it ended, is bounded by the deadline.
            if Instant::now() + LOCK_RETRY >= deadline {
                return Err(SharedStartError::Busy { record, budget_ms });
            }
            if waited {
                tokio::time::sleep(LOCK_RETRY).await;
            }
        }
    }
}
