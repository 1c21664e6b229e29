//! Serve mode (one engine for many calls) and the cost of a call.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_pooled_instance_starts_with_fresh_memory() {
    // The pooling allocator reuses memory slots and resets the pages a run wrote by
    // copying the image back (up to a threshold, then `madvise`): nothing one run wrote,
    // in the data segment or in memory grown far past the threshold, may reach the
    // next run, which gets the same slot.
    let project = project();
    let cancel = CancellationToken::new();
    for f in BOTH {
        let engine = WasmEngine::new(&WasmSettings::default(), EngineMode::Serve).expect("engine");
        eprintln!(
            "{f}: memory reset by page scan: {}",
            engine.resets_memory_by_page_scan()
        );
        let exec = engine
            .prepare(
                &wasm(f),
                &strings(&["scribble"]),
                project.path(),
                Duration::from_secs(5),
            )
            .expect("prepare");
        let mut slots_after_first = None;
        for run in 0..5 {
            let out = ok(exec.run(Arc::from(&b"{}"[..]), &cancel).await);
            assert_eq!(
                lossy(&out.stdout),
                "data 7, grown memory clean\n",
                "{f}, run {run}"
            );
            let warm = engine.warm_memory_slots().expect("a pooling engine");
            assert!(warm > 0, "{f}: no slot was used");
            // Later runs took the slots the first one left warm, not new ones.
            assert_eq!(
                *slots_after_first.get_or_insert(warm),
                warm,
                "{f}, run {run}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_pooling_engine_runs_hooks_many_times() {
    let engine = WasmEngine::new(&WasmSettings::default(), EngineMode::Serve).expect("engine");
    let project = project();
    for f in BOTH {
        let exec = engine
            .prepare(
                &wasm(f),
                &strings(&["echo"]),
                project.path(),
                Duration::from_secs(5),
            )
            .expect("prepare");
        let cancel = CancellationToken::new();
        let n = 200;
        let began = Instant::now();
        for i in 0..n {
            let input = format!("{{\"n\":{i}}}");
            let out = ok(exec.run(Arc::from(input.as_bytes()), &cancel).await);
            assert_eq!(out.stdout, input.as_bytes());
        }
        eprintln!("{f}: {:?} per call (pooling)", began.elapsed() / n);
        // The memory limit holds in the pool too.
        let alloc = engine
            .prepare(
                &wasm(f),
                &strings(&["alloc"]),
                project.path(),
                Duration::from_secs(5),
            )
            .expect("prepare");
        let r = alloc.run(Arc::from(&b""[..]), &cancel).await;
        assert!(
            matches!(&r, Err(Failure::Trapped(w)) if w.contains("memory limit")),
            "{f}: {r:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_on_demand_engine_runs_a_hook_many_times() {
    // Speed is the benchmarks' business (benches/hook_latency.rs); this checks that each
    // call of the on-demand allocator gets a fresh instance that answers in full.
    let project = project();
    for f in BOTH {
        let exec = prepared(f, &["echo"], project.path(), Duration::from_secs(5));
        let cancel = CancellationToken::new();
        for i in 0..100 {
            let line = format!("{{\"call\":{i}}}");
            let out = ok(exec.run(Arc::from(line.as_bytes()), &cancel).await);
            assert_eq!(out.stdout, line.as_bytes(), "{f}, call {i}");
        }
    }
}
