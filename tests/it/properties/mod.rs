//! Property-based tests: generated and mutated bad input for every parser a user, a hook,
//! an agent or a crashed session controls. The config loader ([`Config::load`],
//! [`Config::parse`]), the envelope builder, the answer parser, `serve`'s requests and
//! line reader ([`serve::run`] in process, and the real binary for a few cases), and the
//! session-record reader with what reads its records (transcript, resume plan, replay).
//!
//! Each generator is seeded with real shapes (the spec's and the README's configs, the
//! agents' `tool_input` shapes and answers from `docs/agents.md`, a
//! record the real binary writes) and mixes structured generation with byte-level
//! mutation of those seeds. The properties: no panic, no hang (each case runs on its own
//! thread, or under a tokio timeout, with a generous limit), every rejection a message
//! that names the file, line or field where the API has one, and output bounded by a
//! multiple of the input's size.
//!
//! Cases per property: `PROPTEST_CASES` when set, else each property's default (a few
//! thousand in all, well under a minute in debug). The properties that start the real
//! binary run `PROPTEST_CASES / 50` cases (at least 1). A long run:
//!
//! ```text
//! PROPTEST_CASES=100000 cargo test --release --test it properties::
//! ```
//!
//! A failing case is shrunk and saved to `tests/proptest-regressions/properties/PARSER.txt`
//! (proptest's place for the file `tests/it/properties/PARSER.rs` of a test binary rooted
//! at `tests/it/main.rs`), which is committed: proptest replays those cases first on
//! every run.
//!
//! One module per parser (`config_loader`, `envelope_builder`, `answer_parser`,
//! `serve_lines`, `record_reader`); this one
//! holds what they share: the case runner, the hang limit and the mutations.

use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hookhost::answer::{self, Answer, AnswerFailure, REASON_LIMIT};
use hookhost::config::{Config, ConfigError, Event, HookDef, OnFailure};
use hookhost::dispatch::{LoadedHook, Placement};
use hookhost::envelope::{self, SessionInfo};
use hookhost::executor::{BoxFuture, CancellationToken, Executor, ExitStatus, Failure, RawOutput};
use hookhost::record::{self, ResumeFrom, ResumePlan};
use hookhost::serve::{self, Request};
use hookhost::session::Session;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{Config as ProptestConfig, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};

use crate::support::{Scene, hook, sh_hook};

// ---------------------------------------------------------------------------------------
// Cases, hangs, mutations
// ---------------------------------------------------------------------------------------

/// How long one case may run before it counts as a hang: far above any real case (they
/// take milliseconds), so that only a hang reaches it on a slow, shared machine.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// `PROPTEST_CASES` when set, else `default`.
fn cases_or(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Cases for a property that starts the real binary: `PROPTEST_CASES / 50` when set.
fn process_cases_or(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(default, |n| (n / 50).max(1))
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig::with_cases(cases_or(default))
}

/// Runs `work` on its own thread and returns what it returns; a panic in it is a panic
/// here (proptest then shrinks the case), and a run past [`HANG_LIMIT`] is a hang.
fn bounded<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name(format!("bounded {what}"))
        .spawn(move || {
            let _ = done.send(work());
        })
        .expect("spawn a case thread");
    match result.recv_timeout(HANG_LIMIT) {
        Ok(value) => {
            let _ = thread.join();
            value
        }
        Err(RecvTimeoutError::Timeout) => {
            panic!("{what} did not return within {HANG_LIMIT:?}: a hang")
        }
        Err(RecvTimeoutError::Disconnected) => match thread.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => panic!("{what}: the case thread ended without a result"),
        },
    }
}

/// Bytes that matter to JSON and TOML parsers, and to UTF-8 decoding.
const INTERESTING_BYTES: &[u8] = &[
    b'"', b'\'', b'[', b']', b'{', b'}', b'=', b',', b':', b'.', b'\n', b'\r', b'\t', b'\\', b'#',
    b' ', b'0', b'-', b'+', b'e', 0x00, 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff,
];

/// Fragments that matter to the parsers: escapes, lone surrogates, numbers out of
/// range, separators of the other format, Unicode line breaks.
const INTERESTING_TOKENS: &[&str] = &[
    "\\u0000",
    "\\uD800",
    "\\udfff",
    "\\",
    "\"",
    "é",
    "∞",
    "\u{feff}",
    "\u{2028}",
    "1e999",
    "-0",
    "18446744073709551616",
    "-9223372036854775809",
    "null",
    "\"\":\"\",",
    "\r\n",
    "[[hooks]]\n",
    "[sandbox]\n",
    "= ",
    "'''",
    "\"\"\"",
    "nan",
    "inf",
    "1979-05-27T07:32:00Z",
    "{\"id\":1}",
    "\n{\"type\":\"end_turn\"}\n",
];

/// One byte-level mutation of a seed.
#[derive(Debug, Clone)]
enum Mutation {
    /// XOR one bit.
    Flip(Index, u8),
    /// Replace a byte with an interesting one.
    Set(Index, u8),
    /// Insert a fragment.
    Insert(Index, &'static str),
    /// Insert raw bytes.
    InsertBytes(Index, Vec<u8>),
    /// Remove up to N bytes.
    Delete(Index, usize),
    /// Repeat a range of up to N bytes.
    Duplicate(Index, usize),
    /// Open `depth` brackets of one kind (nesting bombs).
    Nest(Index, &'static str, usize),
    /// Cut the text here (a torn write).
    Truncate(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<Index>(), 0u8..8).prop_map(|(i, bit)| Mutation::Flip(i, 1 << bit)),
        4 => (any::<Index>(), select(INTERESTING_BYTES)).prop_map(|(i, b)| Mutation::Set(i, b)),
        3 => (any::<Index>(), select(INTERESTING_TOKENS)).prop_map(|(i, t)| Mutation::Insert(i, t)),
        2 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(i, b)| Mutation::InsertBytes(i, b)),
        3 => (any::<Index>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        2 => (any::<Index>(), 1usize..256).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        1 => (any::<Index>(), select(&["[", "{", "{\"a\":", "[[", "a = [", "a = {b="][..]), 1usize..3000)
            .prop_map(|(i, kind, depth)| Mutation::Nest(i, kind, depth)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
    ]
}

fn mutations(max: usize) -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(), 0..=max)
}

/// Applies `mutations` in order; every index lands inside the bytes as they are then.
fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    // `Index::index` needs a non-empty range; position `len` is a valid insertion point.
    let at = |i: &Index, len: usize| i.index(len + 1);
    for m in mutations {
        let len = bytes.len();
        match m {
            Mutation::Flip(i, bit) if len > 0 => bytes[i.index(len)] ^= bit,
            Mutation::Set(i, b) if len > 0 => bytes[i.index(len)] = *b,
            Mutation::Flip(..) | Mutation::Set(..) => {}
            Mutation::Insert(i, token) => {
                let p = at(i, len);
                bytes.splice(p..p, token.bytes());
            }
            Mutation::InsertBytes(i, raw) => {
                let p = at(i, len);
                bytes.splice(p..p, raw.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let p = at(i, len);
                bytes.drain(p..(p + n).min(len));
            }
            Mutation::Duplicate(i, n) => {
                let p = at(i, len);
                let range: Vec<u8> = bytes[p..(p + n).min(len)].to_vec();
                bytes.splice(p..p, range);
            }
            Mutation::Nest(i, kind, depth) => {
                let p = at(i, len);
                bytes.splice(p..p, kind.repeat(*depth).into_bytes());
            }
            Mutation::Truncate(i) => bytes.truncate(at(i, len)),
        }
    }
    bytes
}

/// Strings: mostly printable, some of any Unicode, some control characters.
fn text(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::string::string_regex(&format!("[ -~]{{0,{max}}}")).expect("regex"),
        2 => proptest::string::string_regex(&format!("\\PC{{0,{max}}}")).expect("regex"),
        1 => prop::collection::vec(any::<char>(), 0..max).prop_map(|c| c.into_iter().collect()),
        1 => prop::collection::vec(prop_oneof![Just('\n'), Just('\r'), Just('\0'), Just('"'),
            Just('\\'), Just('\u{2028}'), Just('\u{7f}'), Just(' '), Just('é')], 0..max)
            .prop_map(|c| c.into_iter().collect()),
    ]
}

mod answer_parser;
mod config_loader;
mod envelope_builder;
mod record_reader;
mod serve_lines;

// The generators and seeds more than one parser's properties use.
use answer_parser::answer_value;
use config_loader::{CONFIG_PATH, CONFIG_SEEDS, TOOL_NAMES};
use envelope_builder::{PROJECT, json_value, tool_input};
