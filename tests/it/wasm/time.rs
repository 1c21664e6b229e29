//! Time: fuel, the wall clock and cancellation.

use super::*;

/// `file` with `args` under a 1 s timeout times out, within 1.6 s; how long it took.
async fn times_out_on_time(file: &str, args: &[&str]) -> Duration {
    let project = project();
    let r = run_in(file, args, b"", Duration::from_secs(1), project.path()).await;
    eprintln!(
        "{file}: {} with a 1 s timeout ended after {:?}",
        args.join(" "),
        r.took
    );
    assert_eq!(
        r.outcome,
        Err(Failure::TimedOut(Duration::from_secs(1))),
        "{file}"
    );
    assert!(
        r.took < Duration::from_millis(1600),
        "{file} took {:?}",
        r.took
    );
    r.took
}

/// [`times_out_on_time`] on both fixtures, in [`BOTH`]'s order.
async fn assert_times_out_on_time(args: &[&str]) -> Vec<Duration> {
    let mut took = Vec::new();
    for f in BOTH {
        took.push(times_out_on_time(f, args).await);
    }
    took
}

#[tokio::test(flavor = "multi_thread")]
async fn a_busy_loop_times_out_on_time() {
    for (f, took) in BOTH.iter().zip(assert_times_out_on_time(&["loop"]).await) {
        assert!(took > Duration::from_millis(300), "{f} took {took:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_guest_blocked_in_sleep_times_out_on_time() {
    assert_times_out_on_time(&["sleep", "100"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_short_sleep_completes() {
    let project = project();
    let r = run_in(
        "fixture-p1.wasm",
        &["sleep", "1"],
        b"",
        Duration::from_secs(5),
        project.path(),
    )
    .await;
    assert_eq!(lossy(&ok(r.outcome).stdout), "slept 1\n");
}

/// Fuel decides, deterministically: with a small rate, the loop runs out of fuel long
/// before any wall-clock limit, every time, while a quick hook passes every time.
#[tokio::test(flavor = "multi_thread")]
async fn fuel_is_deterministic() {
    let settings = WasmSettings {
        fuel_per_second: 5_000_000,
        ..WasmSettings::default()
    };
    let engine = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
    let project = project();
    let timeout = Duration::from_secs(10);
    for f in BOTH {
        let looping = engine
            .prepare(&wasm(f), &strings(&["loop"]), project.path(), timeout)
            .expect("prepare");
        let quick = engine
            .prepare(&wasm(f), &strings(&["echo"]), project.path(), timeout)
            .expect("prepare");
        let cancel = CancellationToken::new();
        for _ in 0..2 {
            let began = Instant::now();
            let r = looping.run(Arc::from(&b"x"[..]), &cancel).await;
            assert_eq!(r, Err(Failure::TimedOut(timeout)), "{f}");
            // 50 M fuel is gone in well under a second; the wall clock allows 12.5 s.
            assert!(began.elapsed() < Duration::from_secs(3), "{f}");
            let r = quick.run(Arc::from(&b"x"[..]), &cancel).await;
            assert_eq!(ok(r).stdout, b"x", "{f}");
        }
    }
}

/// The same loop with the same (default) settings fails the same way twice.
#[tokio::test(flavor = "multi_thread")]
async fn the_same_loop_fails_the_same_way_twice() {
    let project = project();
    let exec = prepared(
        "fixture-p1.wasm",
        &["loop"],
        project.path(),
        Duration::from_secs(1),
    );
    let cancel = CancellationToken::new();
    let first = exec.run(Arc::from(&b""[..]), &cancel).await;
    let second = exec.run(Arc::from(&b""[..]), &cancel).await;
    assert_eq!(first, Err(Failure::TimedOut(Duration::from_secs(1))));
    assert_eq!(first, second);
}

async fn cancel_after(
    file: &str,
    args: &[&str],
    after: Duration,
) -> (Result<RawOutput, Failure>, Duration) {
    let project = project();
    let exec = prepared(file, args, project.path(), Duration::from_secs(30));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        trigger.cancel();
    });
    let began = Instant::now();
    let r = exec.run(Arc::from(&b""[..]), &cancel).await;
    (r, began.elapsed())
}

/// On both fixtures: `args` cancelled at 300 ms ends as interrupted within 600 ms.
async fn assert_cancel_is_prompt(args: &[&str]) {
    for f in BOTH {
        let (r, took) = cancel_after(f, args, Duration::from_millis(300)).await;
        eprintln!("{f}: {} cancelled at 300 ms ended after {took:?}", args[0]);
        assert_eq!(r, Err(Failure::Interrupted), "{f}");
        assert!(took < Duration::from_millis(600), "{f} took {took:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_stops_a_busy_loop_promptly() {
    assert_cancel_is_prompt(&["loop"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_stops_a_sleep_promptly() {
    assert_cancel_is_prompt(&["sleep", "100"]).await;
}

/// On a current-thread runtime too (the guest yields at every epoch tick, so the timer
/// and the canceller get to run).
#[tokio::test(flavor = "current_thread")]
async fn timeouts_and_cancel_work_on_a_current_thread_runtime() {
    times_out_on_time("fixture-p2.wasm", &["loop"]).await;
    times_out_on_time("fixture-p1.wasm", &["sleep", "100"]).await;
    for f in BOTH {
        let (r, took) = cancel_after(f, &["loop"], Duration::from_millis(200)).await;
        assert_eq!(r, Err(Failure::Interrupted), "{f}");
        assert!(took < Duration::from_millis(500), "{f} took {took:?}");
    }
    let out = ok(run("fixture-p1.wasm", &["read", "/project/file"], b"").await);
    assert_eq!(lossy(&out.stdout), "hello from the project\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_already_cancelled_token_runs_nothing() {
    let project = project();
    let exec = prepared(
        "fixture-p1.wasm",
        &["echo"],
        project.path(),
        Duration::from_secs(5),
    );
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert_eq!(
        exec.run(Arc::from(&b""[..]), &cancel).await,
        Err(Failure::Interrupted)
    );
}
