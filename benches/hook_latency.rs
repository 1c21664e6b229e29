//! Per-call latency of one PreToolUse gate through the library API (`Session::pre_tool_use`).
//!
//! Each case is a criterion group (mean/median with confidence intervals), followed by
//! our own pass of individually timed calls after a warm-up, which prints median and p99
//! (`RESULT` lines); the targets are checked on those (`TARGET` lines).
//!
//!     cargo bench --bench hook_latency            # everything
//!     cargo bench --bench hook_latency -- wasm    # criterion's filter (our pass still runs
//!                                                 # only for the groups that match)
//!
//! Sessions are `Mode::Serve` (the long-lived embedder: pooling allocator, module
//! compiled and `InstancePre` ready at start) unless the case says `oneshot`. Sessions
//! record nothing (no `HOME`/`XDG_STATE_HOME` in their environment, no `log`), except
//! the `recorded` cases, which keep the `Mode::Serve` default: a session record on disk.

mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use common::Stats;
use criterion::Criterion;
use hookhost::dispatch::Outcome;
use hookhost::executor::CancellationToken;
use hookhost::session::{Mode, Session, SessionOptions};
use serde_json::json;
use support::Scene;

struct Bench {
    criterion: Criterion,
    rt: tokio::runtime::Runtime,
    scene: Scene,
    results: Vec<(String, Stats)>,
}

/// How one case is measured.
struct Plan {
    /// Criterion's measurement time.
    measure: Duration,
    /// Criterion's sample count.
    samples: usize,
    /// Our own pass: untimed warm-up calls, then timed calls.
    warmup: usize,
    n: usize,
}

const MICRO: Plan = Plan {
    measure: Duration::from_secs(3),
    samples: 100,
    warmup: 2_000,
    n: 20_000,
};

const PROCESS: Plan = Plan {
    measure: Duration::from_secs(4),
    samples: 20,
    warmup: 30,
    n: 300,
};

impl Bench {
    fn env(&self, recorded: bool) -> Vec<(OsString, OsString)> {
        let mut env = vec![
            ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
            ("XDG_CACHE_HOME".into(), common::cache(&self.scene).into()),
        ];
        if recorded {
            env.push(("XDG_STATE_HOME".into(), self.scene.state().into()));
        }
        env
    }

    fn session(&self, name: &str, hooks: &str, mode: Mode, recorded: bool) -> Arc<Session> {
        let text = common::with_default_hidden(hooks);
        let config = self.scene.config_file(&format!("{name}.toml"), &text);
        let session = Session::start(SessionOptions {
            config: Some(config),
            project: self.scene.project.clone(),
            mode,
            env: Some(self.env(recorded)),
            // The box's Landlock entry point, as the command line has it.
            box_entry: Some(env!("CARGO_BIN_EXE_hookhost").into()),
            ..SessionOptions::default()
        })
        .unwrap_or_else(|e| panic!("{name}: the session did not start: {e}"));
        for w in session.warnings() {
            eprintln!("{name}: start-up warning: {w}");
        }
        Arc::new(session)
    }

    /// Benchmarks one PreToolUse gate on `bash` against `session`.
    fn case(&mut self, name: &str, session: &Session, plan: &Plan) {
        let input = json!({"command": "git status --short", "description": "Show status"});
        let cancel = CancellationToken::new();
        let call = || {
            self.rt.block_on(session.pre_tool_use(
                "bash",
                input.clone(),
                Some("toolu_01Bench"),
                &cancel,
            ))
        };
        let first = call();
        assert_eq!(first.outcome, Outcome::Allow, "{name}: {first:?}");
        assert!(first.warnings.is_empty(), "{name}: {first:?}");

        let mut group = self.criterion.benchmark_group(name);
        group
            .measurement_time(plan.measure)
            .warm_up_time(Duration::from_secs(1))
            .sample_size(plan.samples);
        let mut ran = false;
        group.bench_function("pre_tool_use", |b| {
            ran = true;
            b.iter(&call)
        });
        group.finish();
        if !ran {
            return; // filtered out on the command line
        }
        let stats = common::sample(plan.warmup, plan.n, || {
            std::hint::black_box(call());
        });
        common::report(name, &stats);
        self.results.push((name.to_string(), stats));
    }

    fn median(&self, name: &str) -> Option<f64> {
        self.results
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.median.as_secs_f64())
    }
}

fn main() {
    let wasm = support::wasm_dir();
    let native = common::native_hook();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut bench = Bench {
        criterion: Criterion::default().configure_from_args(),
        rt,
        scene: Scene::new(),
        results: Vec::new(),
    };
    let fixture = wasm.join("fixture-p1.wasm");
    let fixture = fixture.to_str().unwrap();
    let one_wasm = common::wasm_hooks(wasm, 1);

    // 1. The host's own overhead: no hook at all, and hooks that do not match the tool.
    let session = bench.session("none-configured", "", Mode::Serve, false);
    bench.case("none-configured", &session, &MICRO);
    let other = common::hook("other-tool", &[fixture, "allow"], "tools = [\"exec\"]")
        .replace("tools = [\"bash\"]\n", "");
    let session = bench.session("none-matching", &other, Mode::Serve, false);
    bench.case("none-matching", &session, &MICRO);
    let session = bench.session("none-matching-recorded", &other, Mode::Serve, true);
    bench.case("none-matching-recorded", &session, &MICRO);

    // 2. One trivial WASM hook, warm.
    let session = bench.session("wasm-1", &one_wasm, Mode::Serve, false);
    bench.case("wasm-1", &session, &MICRO);
    let session = bench.session("wasm-1-oneshot", &one_wasm, Mode::OneShot, false);
    bench.case("wasm-1-oneshot", &session, &MICRO);
    let session = bench.session("wasm-1-recorded", &one_wasm, Mode::Serve, true);
    bench.case("wasm-1-recorded", &session, &MICRO);

    // 6. Ten WASM hooks on one call.
    let ten = common::wasm_hooks(wasm, 10);
    let session = bench.session("wasm-10", &ten, Mode::Serve, false);
    bench.case(
        "wasm-10",
        &session,
        &Plan {
            n: 5_000,
            warmup: 500,
            ..MICRO
        },
    );

    // 3.–5. The same policy as a native program, on the host and in bubblewrap; hooks
    // as users write them today, in sh and python.
    for (name, hooks) in common::process_hooks(&bench.scene, &native) {
        let session = bench.session(name, &hooks, Mode::Serve, false);
        bench.case(name, &session, &PROCESS);
    }

    bench.criterion.final_summary();
    summary(&bench);
}

fn summary(bench: &Bench) {
    println!();
    println!("== targets (medians of this run) ==");
    let m = |n| bench.median(n);
    if let (Some(wasm), Some(native)) = (m("wasm-1"), m("native-host")) {
        println!("RATIO native-host / wasm-1 = {:.1}x", native / wasm);
        common::target(
            "wasm-1 <= 1/40 of native-host (ratio wasm/native)",
            wasm / native,
            1.0 / 40.0,
            "",
        );
    }
    if let (Some(wasm), Some(boxed)) = (m("wasm-1"), m("native-bwrap")) {
        println!("RATIO native-bwrap / wasm-1 = {:.1}x", boxed / wasm);
        common::target(
            "wasm-1 <= 1/150 of native-bwrap (ratio wasm/bwrap)",
            wasm / boxed,
            1.0 / 150.0,
            "",
        );
    }
    if let Some(wasm) = m("wasm-1") {
        common::target("wasm-1 per call", wasm * 1e6, 30.0, " µs");
    }
    if let Some(none) = m("none-matching") {
        common::target("no matching hook per call", none * 1e6, 5.0, " µs");
    }
    if let (Some(one), Some(ten)) = (m("wasm-1"), m("wasm-10")) {
        common::target("wasm-10 / wasm-1", ten / one, 10.0, "x");
    }
}
