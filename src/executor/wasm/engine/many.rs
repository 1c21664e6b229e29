//! Preparing the distinct programs of one start at once ([`WasmEngine::prepare_many`]):
//! each read, hashed and loaded (or compiled) on a thread of its own, with the results
//! of preparing them in turn.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::super::{WasmError, WasmExecutor};
use super::{WasmEngine, read_program};

impl WasmEngine {
    /// What [`WasmEngine::prepare`] gives for each of `requests` in turn, the same
    /// results in the same order, but with the programs read, hashed and loaded (or
    /// compiled) on up to [`std::thread::available_parallelism`] threads at once:
    /// first every file read and hashed, then each program not prepared before loaded
    /// once (the first request of the same bytes gets its cache warnings, as in turn),
    /// then the executors made in order. A request whose program's first request
    /// failed is prepared after, on the calling thread, as it would be in turn.
    ///
    /// Every request is prepared, even after one that fails (a caller that stops at the
    /// first failure just reads the results in order). Each compile keeps its own
    /// compile deadline. One request is prepared on the calling thread, with no thread.
    pub fn prepare_many(&self, requests: &[Request<'_>]) -> Vec<Result<WasmExecutor, WasmError>> {
        let prepare = |r: &Request<'_>| self.prepare(r.wasm, r.args, r.project, r.timeout);
        if requests.len() < 2 {
            return requests.iter().map(prepare).collect();
        }
        let read = in_parallel(requests, |r| {
            read_program(r.wasm, r.project)
                .map(|(bytes, preopens, digest)| (Mutex::new(bytes), preopens, digest))
        });
        // The first request of each program not prepared yet loads it.
        let mut firsts = HashMap::new();
        {
            let programs = self.programs();
            for (i, read) in read.iter().enumerate() {
                if let Ok((_, _, digest)) = read
                    && !programs.contains_key(digest)
                {
                    firsts.entry(*digest).or_insert(i);
                }
            }
        }
        let mut loads: Vec<usize> = firsts.values().copied().collect();
        loads.sort_unstable();
        let loaded = in_parallel(&loads, |&i| {
            let Ok((bytes, _, digest)) = &read[i] else {
                unreachable!("only programs read are loaded")
            };
            let bytes = std::mem::take(&mut *bytes.lock().unwrap_or_else(|p| p.into_inner()));
            self.compile(requests[i].wasm, bytes, digest)
        });
        let mut loaded: HashMap<usize, _> = loads.into_iter().zip(loaded).collect();
        requests
            .iter()
            .zip(read)
            .enumerate()
            .map(|(i, (r, read))| {
                let (bytes, preopens, digest) = read?;
                let (prepared, cache_warnings) = match loaded.remove(&i) {
                    Some(result) => {
                        let (prepared, warnings) = result?;
                        self.keep(digest, prepared.clone());
                        (prepared, warnings)
                    }
                    None => match self.programs().get(&digest).cloned() {
                        Some(prepared) => (prepared, Vec::new()),
                        None => {
                            let bytes = bytes.into_inner().unwrap_or_else(|p| p.into_inner());
                            let (prepared, warnings) = self.compile(r.wasm, bytes, &digest)?;
                            self.keep(digest, prepared.clone());
                            (prepared, warnings)
                        }
                    },
                };
                Ok(self.executor(
                    r.wasm,
                    r.args,
                    r.project,
                    r.timeout,
                    preopens,
                    prepared,
                    cache_warnings,
                ))
            })
            .collect()
    }
}

/// One hook for [`WasmEngine::prepare_many`]: what [`WasmEngine::prepare`] takes.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The `.wasm` file.
    pub wasm: &'a Path,
    /// `command[1..]`.
    pub args: &'a [String],
    /// The project folder.
    pub project: &'a Path,
    /// The hook's timeout.
    pub timeout: Duration,
}

/// `f` of each of `items`, in their order, on up to
/// [`std::thread::available_parallelism`] threads (the calling thread one of them):
/// each thread takes the next item not taken yet. One item, or one core, starts no
/// thread; a thread that cannot be started leaves its share to the others.
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let result = f(item);
            *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            let _ = std::thread::Builder::new()
                .name("hookhost-prepare".into())
                .spawn_scoped(scope, work);
        }
        work();
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .expect("every item is done once the scope ends")
        })
        .collect()
}
