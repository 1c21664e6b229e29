//! Unit tests of the WASM executor's internals (the behaviour on real hooks is in
//! `tests/it/wasm/`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::{Engine, Module, Store, Trap};

use super::engine::{Kind, TICK, kind_of};
use super::limits::{fuel_for, wall_limit};
use super::*;
use crate::config::{Event, HookDef, OnFailure};
use crate::executor::{CancellationToken, Executor, ExitStatus, Failure};

/// `(module (func (export "_start") (loop (br 0))))`, encoded by hand.
const LOOP_MODULE: &[u8] = &[
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: [] -> []
    0x03, 0x02, 0x01, 0x00, // function section: one func of type 0
    0x07, 0x0a, 0x01, 0x06, b'_', b's', b't', b'a', b'r', b't', 0x00, 0x00, // export
    0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, // code: loop br 0
];

/// `_start` loops on `random_get` of 1 MiB: a guest that spends its time in host calls,
/// each burning one unit of fuel, and has no loop of its own long enough to yield by fuel.
const HOST_CALL_LOOP_MODULE: &[u8] = &[
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
    // types: 0 (i32, i32) -> i32, 1 [] -> []
    0x01, 0x0a, 0x02, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x00,
    // import: wasi_snapshot_preview1.random_get, type 0
    0x02, 0x25, 0x01, 0x16, b'w', b'a', b's', b'i', b'_', b's', b'n', b'a', b'p', b's', b'h', b'o',
    b't', b'_', b'p', b'r', b'e', b'v', b'i', b'e', b'w', b'1', 0x0a, b'r', b'a', b'n', b'd', b'o',
    b'm', b'_', b'g', b'e', b't', 0x00, 0x00, 0x03, 0x02, 0x01,
    0x01, // function section: one func of type 1
    0x05, 0x03, 0x01, 0x00, 0x10, // memory: 16 pages (1 MiB)
    // exports: _start (func 1), memory
    0x07, 0x13, 0x02, 0x06, b'_', b's', b't', b'a', b'r', b't', 0x00, 0x01, 0x06, b'm', b'e', b'm',
    b'o', b'r', b'y', 0x02, 0x00, // code: loop (random_get 0 1048576; drop; br 0)
    0x0a, 0x13, 0x01, 0x11, 0x00, 0x03, 0x40, 0x41, 0x00, 0x41, 0x80, 0x80, 0xc0, 0x00, 0x10, 0x00,
    0x1a, 0x0c, 0x00, 0x0b, 0x0b,
];

fn loop_func(engine: &Engine, store: &mut Store<()>) -> wasmtime::TypedFunc<(), ()> {
    let module = Module::from_binary(engine, LOOP_MODULE).expect("the test module compiles");
    let instance =
        wasmtime::Instance::new(&mut *store, &module, &[]).expect("the test module instantiates");
    instance
        .get_typed_func::<(), ()>(&mut *store, "_start")
        .expect("the test module exports _start")
}

fn test_engine() -> WasmEngine {
    WasmEngine::new(&WasmSettings::default(), EngineMode::OneShot).expect("engine")
}

#[test]
fn headers_tell_modules_from_components() {
    assert_eq!(kind_of(b"\0asm\x01\0\0\0rest"), Some(Kind::Module));
    assert_eq!(kind_of(b"\0asm\x0d\0\x01\0rest"), Some(Kind::Component));
    assert_eq!(kind_of(b"\0asm\x02\0\0\0"), None);
    assert_eq!(kind_of(b"\0asm"), None);
    assert_eq!(kind_of(b"#!/bin/sh\n"), None);
}

/// A hook that runs `command0`.
fn hook_running(command0: &str) -> HookDef {
    HookDef {
        name: "check".into(),
        event: Event::PreToolUse,
        command: vec![command0.into()],
        tools: None,
        timeout: 10,
        sandbox: false,
        on_failure: OnFailure::Block,
        envelope: None,
    }
}

/// What makes a hook a WASM hook ([`HookDef::is_wasm`], the one answer to that).
#[test]
fn wasm_commands_end_in_dot_wasm() {
    assert!(hook_running("hooks/check.wasm").is_wasm());
    assert!(!hook_running("hooks/check.sh").is_wasm());
    assert!(!hook_running("wasm").is_wasm());
}

#[test]
fn fuel_scales_with_the_timeout() {
    assert_eq!(fuel_for(Duration::from_secs(10), 1000), 10_000);
    assert_eq!(fuel_for(Duration::from_millis(500), 1000), 500);
    assert_eq!(fuel_for(Duration::from_secs(u64::MAX), u64::MAX), u64::MAX);
    assert_eq!(
        wall_limit(Duration::from_secs(1)),
        Duration::from_millis(1250)
    );
    assert_eq!(
        wall_limit(Duration::from_secs(10)),
        Duration::from_millis(12500)
    );
}

/// Zero fuel (the default of a new store) traps at once: `arm` must set it.
#[tokio::test]
async fn a_store_without_fuel_traps_at_once() {
    let engine = test_engine();
    let engine = &engine.inner.engine;
    let mut store = Store::new(engine, ());
    store.set_epoch_deadline(u64::MAX / 2);
    let start = loop_func(engine, &mut store);
    let began = Instant::now();
    let error = start
        .call_async(&mut store, ())
        .await
        .expect_err("it traps");
    assert_eq!(error.downcast_ref::<Trap>(), Some(&Trap::OutOfFuel));
    assert!(began.elapsed() < Duration::from_millis(100));
}

/// An epoch deadline of 0 (the default of a new store) traps at once: `arm` must set it.
#[tokio::test]
async fn a_store_without_an_epoch_deadline_traps_at_once() {
    let engine = test_engine();
    let engine = &engine.inner.engine;
    let mut store = Store::new(engine, ());
    store.set_fuel(u64::MAX).expect("fuel is on");
    let start = loop_func(engine, &mut store);
    let began = Instant::now();
    let error = start
        .call_async(&mut store, ())
        .await
        .expect_err("it traps");
    assert_eq!(error.downcast_ref::<Trap>(), Some(&Trap::Interrupt));
    assert!(began.elapsed() < Duration::from_millis(100));
}

/// A store armed like a real run's lasts until its fuel runs out, and no sooner.
#[tokio::test]
async fn an_armed_store_runs_until_its_fuel_is_gone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wasm = dir.path().join("loop.wasm");
    std::fs::write(&wasm, LOOP_MODULE).expect("write");
    let engine = test_engine();
    let exec = engine
        .prepare(&wasm, &[], dir.path(), Duration::from_secs(1))
        .expect("prepare");
    // 1 s at the default rate: the loop runs out of fuel (or hits the wall-clock
    // backstop on a loaded machine), not instantly.
    let began = Instant::now();
    let cancel = CancellationToken::new();
    let outcome = exec.run(Arc::from(&b""[..]), &cancel).await;
    let took = began.elapsed();
    assert_eq!(outcome, Err(Failure::TimedOut(Duration::from_secs(1))));
    assert!(
        took > Duration::from_millis(200),
        "ended too soon: {took:?}"
    );
    assert!(
        took < Duration::from_millis(1600),
        "ended too late: {took:?}"
    );
}

/// A guest that spends its time in host calls meets the clock in a one-shot engine too,
/// which has no epoch ticker: it times out at the wall-clock limit, and a cancellation
/// stops it within a few ticks (each host call looks at the clock and yields).
#[test]
fn a_guest_busy_in_host_calls_times_out_and_is_cancelled_without_a_ticker() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wasm = dir.path().join("random.wasm");
    std::fs::write(&wasm, HOST_CALL_LOOP_MODULE).expect("write");
    let engine = test_engine();
    let exec = engine
        .prepare(&wasm, &[], dir.path(), Duration::from_millis(300))
        .expect("prepare");
    // On a thread of its own: a guest that never yields would hold its runtime for good,
    // and the test must fail rather than hang.
    let (sent, results) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let began = Instant::now();
            let timed = exec
                .run(Arc::from(&b""[..]), &CancellationToken::new())
                .await;
            let _ = sent.send(("timed out", timed, began.elapsed()));
            let cancel = CancellationToken::new();
            let canceller = cancel.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                canceller.cancel();
            });
            let began = Instant::now();
            let cancelled = exec.run(Arc::from(&b""[..]), &cancel).await;
            let _ = sent.send(("cancelled", cancelled, began.elapsed()));
        });
    });
    let (what, outcome, took) = results
        .recv_timeout(Duration::from_secs(10))
        .expect("the guest busy in host calls was stopped by its wall clock");
    assert_eq!(
        (what, outcome),
        (
            "timed out",
            Err(Failure::TimedOut(Duration::from_millis(300)))
        )
    );
    assert!(took < Duration::from_secs(2), "stopped late: {took:?}");
    let (what, outcome, took) = results
        .recv_timeout(Duration::from_secs(10))
        .expect("the guest busy in host calls was stopped by its cancellation");
    assert_eq!((what, outcome), ("cancelled", Err(Failure::Interrupted)));
    assert!(
        took < Duration::from_millis(250),
        "cancelled late: {took:?}"
    );
}

/// `wit/hook.wit` imports exactly what the component linker links.
#[test]
fn hook_wit_matches_the_linker() {
    let wit = include_str!("../../../wit/hook.wit");
    let mut imports: Vec<&str> = wit
        .lines()
        .filter_map(|l| l.trim().strip_prefix("import "))
        .map(|l| l.trim_end_matches(';'))
        .map(|l| l.split('@').next().unwrap_or(l))
        .collect();
    imports.sort_unstable();
    let mut linked = HOOK_WORLD_IMPORTS.to_vec();
    linked.sort_unstable();
    assert_eq!(imports, linked);
    assert!(wit.contains("export wasi:cli/run@"));
}

/// Measures how much fuel a busy-loop guest burns per wall second (run by hand:
/// `HOOKHOST_CALIBRATE_WASM=target/wasm/fixture-p1.wasm cargo test calibrate -- --ignored
/// --nocapture`; without the variable it measures the hand-made `loop br 0` module).
///
/// A trap does not flush the fuel counter of the running frame back to the store, so
/// the fuel left cannot be read after the loop is stopped; instead each run gets a known
/// amount of fuel and a generous wall clock, and the time it takes to run out is timed.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement, not a test"]
async fn calibrate_fuel_per_second() {
    let (bytes, args) = match std::env::var_os("HOOKHOST_CALIBRATE_WASM") {
        Some(path) => (std::fs::read(path).expect("read"), vec!["loop".to_string()]),
        None => (LOOP_MODULE.to_vec(), vec![]),
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let wasm = dir.path().join("calibrate.wasm");
    std::fs::write(&wasm, bytes).expect("write");
    for fuel in [100_000_000u64, 1_000_000_000, 3_000_000_000, 6_000_000_000] {
        // 10 s of timeout at fuel/10 per second: `fuel` in all, 12.5 s of wall clock.
        let settings = WasmSettings {
            fuel_per_second: fuel / 10,
            ..WasmSettings::default()
        };
        let engine = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
        let exec = engine
            .prepare(&wasm, &args, dir.path(), Duration::from_secs(10))
            .expect("prepare");
        assert_eq!(exec.fuel(), fuel);
        let began = Instant::now();
        let outcome = exec
            .run(Arc::from(&b""[..]), &CancellationToken::new())
            .await;
        let took = began.elapsed();
        assert_eq!(outcome, Err(Failure::TimedOut(Duration::from_secs(10))));
        println!(
            "{fuel:.1e} fuel gone in {took:?}: {:.3e} fuel/s",
            fuel as f64 / took.as_secs_f64()
        );
    }
}

/// A run is admitted by its largest share of any kind of the pool: 64 core-module runs
/// (a stack each) fill it exactly, as do 64 runs of 14 core instances where there are
/// 1,024 (but 18 where there are 256), and a mix never holds more of a kind than there
/// is.
#[test]
fn admission_takes_the_largest_share_of_any_kind() {
    use super::limits::ADMISSION_UNITS;
    let totals = PoolTotals {
        core_instances: 1024,
        memories: 128,
        tables: 256,
        component_instances: 64,
        stacks: 64,
    };
    let module = PoolFootprint {
        core_instances: 1,
        memories: 1,
        tables: 1,
        component_instances: 0,
        stacks: 1,
        counted: true,
    };
    assert_eq!(totals.admission(&module), Ok(ADMISSION_UNITS / 64));
    let python = PoolFootprint {
        core_instances: 14,
        memories: 2,
        tables: 3,
        component_instances: 1,
        stacks: 1,
        counted: true,
    };
    let permits = totals.admission(&python).expect("fits");
    // Its stack (1 of 64) is its largest share: 64 run at once, using 896 of 1024
    // core instances, 128 of 128 memories.
    assert_eq!(permits, ADMISSION_UNITS / 64);
    let greedy = PoolFootprint {
        core_instances: 100,
        memories: 5,
        ..python
    };
    let greedy_permits = totals.admission(&greedy).expect("fits");
    assert_eq!(
        greedy_permits,
        (100 * u64::from(ADMISSION_UNITS)).div_ceil(1024) as u32
    );
    // Any set of runs that fits the permits fits every kind of the pool.
    for (a, b) in [(module, greedy), (python, greedy), (module, python)] {
        let (pa, pb) = (totals.admission(&a).unwrap(), totals.admission(&b).unwrap());
        for n in 0..=ADMISSION_UNITS / pa {
            let m = (ADMISSION_UNITS - n * pa) / pb;
            assert!(n * a.core_instances + m * b.core_instances <= totals.core_instances);
            assert!(n * a.memories + m * b.memories <= totals.memories);
            assert!(n * a.tables + m * b.tables <= totals.tables);
            assert!(n * a.stacks + m * b.stacks <= totals.stacks);
            let instances = n * a.component_instances + m * b.component_instances;
            assert!(instances <= totals.component_instances);
        }
    }
    // One that could never fit is refused, naming the kind and the total.
    let huge = PoolFootprint {
        memories: 129,
        ..python
    };
    assert_eq!(totals.admission(&huge), Err((129, 128, "memories")));
    // `serve`'s own pool: 18 Python runs at once, 64 Rust ones.
    let serve = super::engine::SERVE_POOL;
    assert_eq!(ADMISSION_UNITS / serve.admission(&python).unwrap(), 18);
    assert_eq!(ADMISSION_UNITS / serve.admission(&module).unwrap(), 64);
}

/// The core instances of a component, read from its binary: a core `instantiate` each,
/// and an adapter for a lowering of the component's own lift; none for a lowering of an
/// import. Anything it cannot read (cut short, a nested component with code) is `None`.
#[test]
fn core_instances_are_counted_in_the_component_binary() {
    use super::limits::component_core_instances;
    const HEADER: &[u8] = b"\0asm\x0d\0\x01\0";
    let component = |sections: &[(u8, &[u8])]| {
        let mut bytes = HEADER.to_vec();
        for (id, body) in sections {
            bytes.push(*id);
            bytes.push(u8::try_from(body.len()).unwrap());
            bytes.extend_from_slice(body);
        }
        bytes
    };
    // Two core instances: `instantiate 0` with no arguments, then one with an argument
    // ("a" = instance 0); and a bundle of exports, which is no instance of a module.
    let core = [
        3, 0x00, 0, 0, 0x00, 0, 1, 1, b'a', 0x12, 0, 0x01, 1, 1, b'f', 0x00, 0,
    ];
    assert_eq!(component_core_instances(&component(&[(2, &core)])), Some(2));
    // An imported function lowered: a host call, no adapter.
    let import = [1, 0x00, 1, b'f', 0x01, 0];
    let lower_0 = [1, 0x01, 0x00, 0, 0];
    assert_eq!(
        component_core_instances(&component(&[(10, &import), (8, &lower_0)])),
        Some(0)
    );
    // A lifted function lowered again: an adapter module.
    let lift_then_lower = [2, 0x00, 0x00, 0, 1, 0x03, 0, 0, 0x01, 0x00, 1, 0];
    assert_eq!(
        component_core_instances(&component(&[(10, &import), (8, &lift_then_lower)])),
        Some(1)
    );
    // A nested component of types, imports and exports only: inert.
    let inert = component(&[(10, &import)]);
    let nested_inert = component(&[(4, &inert), (2, &core)]);
    assert_eq!(component_core_instances(&nested_inert), Some(2));
    // One with core instances of its own: not counted here.
    let busy = component(&[(2, &core)]);
    assert_eq!(component_core_instances(&component(&[(4, &busy)])), None);
    // Cut short, or a section this reader does not know.
    let whole = component(&[(10, &import), (8, &lift_then_lower)]);
    assert_eq!(component_core_instances(&whole[..whole.len() - 1]), None);
    assert_eq!(component_core_instances(&component(&[(9, &[0, 0])])), None);
}

/// What a program's footprint says one run holds is what wasmtime's pool counts while
/// one run is instantiated, for every built plugin (a core module, Rust's wasip2
/// components, and the componentize-py and componentize-js ones where built); so
/// admission by footprint keeps a burst within the pool.
#[tokio::test(flavor = "multi_thread")]
async fn pool_footprint_is_what_a_run_holds() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let settings = WasmSettings {
        // The integration tests' cache (`XDG_CACHE_HOME` = target/tmp/cache), so that
        // CPython is not compiled again here when they have run.
        cache_dir: Some(repo.join("target/tmp/cache/hookhost/wasm")),
        compile_deadline: Duration::from_secs(600),
        ..WasmSettings::default()
    };
    let engine = WasmEngine::new(&settings, EngineMode::Serve).expect("engine");
    let metrics = engine
        .inner
        .engine
        .pooling_allocator_metrics()
        .expect("serve pools");
    let project = tempfile::tempdir().expect("tempdir");
    let names = [
        "fixture-p1.wasm",
        "fixture-p2.wasm",
        "protect-paths.wasm",
        "guard-py.wasm",
        "guard-js.wasm",
    ];
    for name in names {
        let path = repo.join("target/wasm").join(name);
        if !path.is_file() {
            eprintln!("SKIPPED {name}: not built (bash plugins/build.sh)");
            continue;
        }
        let exec = engine
            .prepare(&path, &[], project.path(), Duration::from_secs(10))
            .unwrap_or_else(|e| panic!("{e}"));
        let footprint = exec.pool_footprint();
        assert!(footprint.counted, "{name}: {footprint:?}");
        let store = exec.instantiate_idle().await.expect(name);
        let held = (
            metrics.core_instances(),
            metrics.memories(),
            metrics.tables(),
            metrics.component_instances(),
        );
        let counted = (
            u64::from(footprint.core_instances),
            footprint.memories as usize,
            footprint.tables as usize,
            u64::from(footprint.component_instances),
        );
        assert_eq!(held, counted, "{name}: held, counted");
        assert!(metrics.stacks() <= footprint.stacks as usize, "{name}");
        // Counting is once per program, when it is prepared; time it anyway.
        let bytes = std::fs::read(&path).expect("read");
        let began = Instant::now();
        let counted = super::limits::component_core_instances(&bytes);
        let took = began.elapsed();
        if footprint.component_instances == 1 {
            assert_eq!(counted, Some(footprint.core_instances), "{name}");
        }
        println!(
            "{name}: {footprint:?}, {} permits; counted in {took:?} ({} bytes)",
            exec.permits,
            bytes.len()
        );
        drop(store);
    }
}

/// A program loaded from the cache runs from wasmtime's mapping of the file its checksum
/// was checked in, a core module and a component alike (where files are mapped: Linux):
/// its code is executable there, and a run's linear memory starts as a copy-on-write
/// mapping of the same file, not a copy. A damaged file found in the check is refused
/// with a warning, compiled again and replaced, and nothing of it stays mapped
/// (docs/threats.md#f19).
#[tokio::test]
async fn cached_programs_run_from_the_checked_file() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cache = tempfile::tempdir().expect("tempdir");
    let project = tempfile::tempdir().expect("tempdir");
    let settings = WasmSettings {
        cache_dir: Some(cache.path().to_path_buf()),
        ..WasmSettings::default()
    };
    let cache_dir = cache.path().to_string_lossy().into_owned();
    // This process's mappings of files in the cache folder: (permissions, path).
    let mappings = || {
        std::fs::read_to_string("/proc/self/maps")
            .expect("maps")
            .lines()
            .filter(|l| l.contains(&cache_dir))
            .map(|l| {
                let fields: Vec<&str> = l.split_whitespace().collect();
                (fields[1].to_owned(), fields[fields.len() - 1].to_owned())
            })
            .collect::<Vec<_>>()
    };
    if !crate::platform::sys::mapped::MAPS_FILES {
        eprintln!("SKIPPED: files are not mapped on this platform");
        return;
    }
    for name in ["fixture-p1.wasm", "fixture-p2.wasm"] {
        let path = repo.join("target/wasm").join(name);
        if !path.is_file() {
            eprintln!("SKIPPED {name}: not built (bash plugins/build.sh)");
            continue;
        }
        let prepare = || {
            let engine = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
            engine
                .prepare(&path, &[], project.path(), Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
        let compiled = prepare();
        assert!(!compiled.from_cache, "{name}: compiled first");
        assert_eq!(
            mappings(),
            Vec::new(),
            "{name}: a compile maps no cache file"
        );
        let file = compiled.cache_file().expect("a cache file").to_path_buf();
        let file_name = file.to_string_lossy().into_owned();
        drop(compiled);

        let loaded = prepare();
        assert!(loaded.from_cache, "{name}");
        assert!(
            loaded.cache_warnings.is_empty(),
            "{:?}",
            loaded.cache_warnings
        );
        // The file mapped, its code executable, nothing of it writable.
        let mapped = mappings();
        assert!(
            mapped.iter().all(|(_, p)| *p == file_name),
            "{name}: {mapped:?}"
        );
        assert!(
            mapped.iter().any(|(perms, _)| perms == "r-xp"),
            "{name}: no executable mapping of the cache file: {mapped:?}"
        );
        assert!(
            mapped.iter().all(|(perms, _)| !perms.contains('w')),
            "{name}: {mapped:?}"
        );
        // An instance's memory starts as a private writable mapping of the same file.
        let store = loaded.instantiate_idle().await.expect(name);
        let running = mappings();
        assert!(
            running.iter().any(|(perms, _)| perms == "rw-p"),
            "{name}: the linear memory is not mapped from the cache file: {running:?}"
        );
        drop(store);
        // A clone for another hook keeps the mapping alive after the first is gone.
        let other = loaded
            .for_another_hook(&[], project.path(), Duration::from_secs(10))
            .expect("another hook");
        drop(loaded);
        assert!(
            !mappings().is_empty(),
            "{name}: unmapped under a live program"
        );
        drop(other);
        assert_eq!(mappings(), Vec::new(), "{name}: unmapped with its program");

        // One bit of the artifact's code flipped, written in place: its change time
        // moves (written again until it has, a clock tick later), so the memo of the
        // last check no longer holds; found in the mapping, refused with a warning,
        // compiled again (on a thread), the file replaced, nothing left mapped.
        let mut bytes = std::fs::read(&file).expect("read");
        let middle = bytes.len() / 2;
        bytes[middle] ^= 1;
        let stamp =
            || crate::platform::sys::files::change_stamp(&std::fs::metadata(&file).expect("stat"));
        let checked = stamp();
        while stamp() == checked {
            std::fs::write(&file, &bytes).expect("write");
        }
        let again = prepare();
        assert!(!again.from_cache, "{name}: compiled again");
        assert_eq!(again.cache_warnings.len(), 1, "{:?}", again.cache_warnings);
        assert!(
            again.cache_warnings[0].contains("does not match its checksum"),
            "{:?}",
            again.cache_warnings
        );
        assert_eq!(
            mappings(),
            Vec::new(),
            "{name}: the damaged file is not mapped"
        );
        assert_ne!(
            std::fs::read(&file).expect("read"),
            bytes,
            "{name}: replaced"
        );
        drop(again);
        assert!(prepare().from_cache, "{name}: the replacement loads");
    }
}

/// A cache file is the artifact, then its trailer: a file cut short, one without the
/// trailer's magic, and one whose artifact changed are each refused for what they are.
#[test]
fn a_cache_file_is_checked_by_its_trailer() {
    let artifact = b"\x7fELF an artifact".to_vec();
    let file = cache::with_trailer(artifact.clone());
    assert_eq!(file.len(), artifact.len() + cache::TRAILER);
    assert_eq!(
        cache::verified_artifact(&file).expect("verified"),
        &artifact[..]
    );
    assert!(matches!(
        cache::verified_artifact(&file[..cache::TRAILER - 1]),
        Err(cache::Unverified::NoDigest)
    ));
    assert!(matches!(
        cache::verified_artifact(&artifact),
        Err(cache::Unverified::NoDigest)
    ));
    let mut changed = file.clone();
    changed[0] ^= 1;
    assert!(matches!(
        cache::verified_artifact(&changed),
        Err(cache::Unverified::Mismatch)
    ));
}

/// Only a compile runs on a compile thread (bounded by the compile deadline): a program
/// loaded from the cache, a core module or a component, is loaded on the calling thread,
/// and so is a damaged cache file's check (it is then compiled, on a thread, again).
#[test]
fn a_cache_hit_starts_no_compile_thread() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cache = tempfile::tempdir().expect("tempdir");
    let project = tempfile::tempdir().expect("tempdir");
    let settings = WasmSettings {
        cache_dir: Some(cache.path().to_path_buf()),
        ..WasmSettings::default()
    };
    for name in ["fixture-p1.wasm", "fixture-p2.wasm"] {
        let path = repo.join("target/wasm").join(name);
        if !path.is_file() {
            eprintln!("SKIPPED {name}: not built (bash plugins/build.sh)");
            continue;
        }
        // A fresh engine each time, as a fresh process would have.
        let prepare = || {
            let engine = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
            let exec = engine
                .prepare(&path, &[], project.path(), Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            (exec, engine.compile_threads_started())
        };
        let (compiled, threads) = prepare();
        assert!(!compiled.from_cache, "{name}: compiled first");
        assert_eq!(threads, 1, "{name}: a compile runs on its thread");
        let (loaded, threads) = prepare();
        assert!(loaded.from_cache, "{name}: then loaded");
        assert_eq!(threads, 0, "{name}: a cache hit starts no thread");
        // Damaged: a miss, with its warning, compiled on a thread again.
        let file = loaded.cache_file().expect("a cache file").to_path_buf();
        let mut bytes = std::fs::read(&file).expect("read");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&file, &bytes).expect("write");
        let (again, threads) = prepare();
        assert!(!again.from_cache, "{name}: compiled again");
        assert_eq!(threads, 1, "{name}");
        assert_eq!(again.cache_warnings.len(), 1, "{:?}", again.cache_warnings);
        assert!(
            again.cache_warnings[0].contains("does not match its checksum"),
            "{:?}",
            again.cache_warnings
        );
    }
}

/// `(module (func (export "_start")))`, encoded by hand.
const EMPTY_MODULE: &[u8] = &[
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: [] -> []
    0x03, 0x02, 0x01, 0x00, // function section: one func of type 0
    0x07, 0x0a, 0x01, 0x06, b'_', b's', b't', b'a', b'r', b't', 0x00, 0x00, // export
    0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code: an empty body
];

/// An engine builds only the linker its programs need, and a long-lived one starts its
/// epoch ticker with the first run, not before: a one-shot call of a core module never
/// builds the component linker, and a one-shot engine never starts a ticker (its runs
/// yield by fuel).
#[tokio::test]
async fn an_engine_builds_what_its_programs_need_when_they_need_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wasm = dir.path().join("empty.wasm");
    std::fs::write(&wasm, EMPTY_MODULE).expect("write");
    let engine = test_engine();
    assert_eq!(engine.built(), (false, false, false), "a new engine");
    let exec = engine
        .prepare(&wasm, &[], dir.path(), Duration::from_secs(1))
        .expect("prepare");
    assert_eq!(engine.built(), (true, false, false), "a module prepared");
    let outcome = exec
        .run(Arc::from(&b""[..]), &CancellationToken::new())
        .await
        .expect("it runs");
    assert_eq!(outcome.status, ExitStatus::Code(0));
    assert_eq!(engine.built(), (true, false, false), "after a one-shot run");
    let serving = WasmEngine::new(&WasmSettings::default(), EngineMode::Serve).expect("engine");
    let exec = serving
        .prepare(&wasm, &[], dir.path(), Duration::from_secs(1))
        .expect("prepare");
    assert_eq!(serving.built(), (true, false, false), "a module prepared");
    let outcome = exec
        .run(Arc::from(&b""[..]), &CancellationToken::new())
        .await
        .expect("it runs");
    assert_eq!(outcome.status, ExitStatus::Code(0));
    assert_eq!(serving.built(), (true, false, true), "after a served run");

    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let component = repo.join("target/wasm/fixture-p2.wasm");
    if !component.is_file() {
        eprintln!("SKIPPED fixture-p2.wasm: not built (bash plugins/build.sh)");
        return;
    }
    let engine = test_engine();
    engine
        .prepare(&component, &[], dir.path(), Duration::from_secs(10))
        .expect("prepare");
    assert_eq!(engine.built(), (false, true, false), "a component prepared");
}

/// The epoch ticker ticks while a run is in progress and not while none is: an idle
/// `serve` or `hookhost warm` wakes nothing a hundred times a second.
#[tokio::test]
async fn the_epoch_ticker_ticks_only_while_a_guest_runs() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = repo.join("target/wasm/fixture-p1.wasm");
    if !fixture.is_file() {
        eprintln!("SKIPPED fixture-p1.wasm: not built (bash plugins/build.sh)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // The ticker is the long-lived engines' (a one-shot engine's runs yield by fuel).
    let engine = WasmEngine::new(&WasmSettings::default(), EngineMode::Serve).expect("engine");
    let sleeper = engine
        .prepare(
            &fixture,
            &["sleep".into(), "1".into()],
            dir.path(),
            Duration::from_secs(5),
        )
        .expect("prepare");
    let outcome = sleeper
        .run(Arc::from(&b"{}"[..]), &CancellationToken::new())
        .await
        .expect("it runs");
    assert_eq!(outcome.status, ExitStatus::Code(0), "{outcome:?}");
    let while_running = engine.ticks();
    assert!(
        while_running >= 50,
        "a guest asleep for 1 s saw {while_running} ticks"
    );
    // The tick that was due when the run ended may still come; none after it.
    tokio::time::sleep(TICK * 3).await;
    let settled = engine.ticks();
    tokio::time::sleep(TICK * 20).await;
    assert_eq!(engine.ticks(), settled, "ticks while no guest ran");
    // The next run wakes it again.
    let again = sleeper
        .run(Arc::from(&b"{}"[..]), &CancellationToken::new())
        .await
        .expect("it runs again");
    assert_eq!(again.status, ExitStatus::Code(0));
    assert!(engine.ticks() >= settled + 50, "the second run's ticks");
}

/// A second hook of the same program (`for_another_hook`) shares the first's compiled
/// program with its own arguments, fuel and project, without reading the file again:
/// replaced by something that is not WASM at all, it still gets the program the first
/// hook was prepared from, and no cache warnings.
#[tokio::test]
async fn another_hook_of_a_program_shares_it_without_reading_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let other_project = tempfile::tempdir().expect("tempdir");
    let wasm = dir.path().join("empty.wasm");
    std::fs::write(&wasm, EMPTY_MODULE).expect("write");
    let engine = test_engine();
    let first = engine
        .prepare(&wasm, &["a".into()], dir.path(), Duration::from_secs(1))
        .expect("prepare");
    std::fs::write(&wasm, b"not wasm").expect("write");
    let second = first
        .for_another_hook(
            &["b".into(), "c".into()],
            other_project.path(),
            Duration::from_secs(2),
        )
        .expect("shared");
    assert_eq!(second.argv(), ["empty.wasm", "b", "c"]);
    assert_eq!(second.fuel(), 2 * first.fuel());
    assert!(second.cache_warnings().is_empty());
    let outcome = second
        .run(Arc::from(&b""[..]), &CancellationToken::new())
        .await
        .expect("it runs");
    assert_eq!(outcome.status, ExitStatus::Code(0));
    // The engine itself reads the file again.
    assert!(matches!(
        engine.prepare(&wasm, &[], dir.path(), Duration::from_secs(1)),
        Err(WasmError::NotWasm { .. })
    ));
}

/// What a test compares of one prepared hook: its argv, whether it came from the
/// cache and its cache warnings, or its error's text.
fn summary(result: &Result<WasmExecutor, WasmError>) -> String {
    match result {
        Ok(exec) => format!(
            "ok {:?} from_cache={} {:?}",
            exec.argv(),
            exec.from_cache(),
            exec.cache_warnings()
        ),
        Err(e) => format!("error: {e}"),
    }
}

/// `requests` prepared in turn and with `prepare_many`, each on a fresh engine made by
/// `engine` after `before` (which resets whatever the first run changed).
fn in_turn_and_at_once(
    engine: impl Fn() -> WasmEngine,
    before: impl Fn(),
    requests: &[Request<'_>],
) -> (Vec<String>, Vec<String>) {
    before();
    let turn = engine();
    let in_turn = requests
        .iter()
        .map(|r| summary(&turn.prepare(r.wasm, r.args, r.project, r.timeout)))
        .collect();
    before();
    let at_once = engine().prepare_many(requests);
    (in_turn, at_once.iter().map(summary).collect())
}

/// `prepare_many` gives what preparing each request in turn gives, in the same order,
/// whichever of the programs are broken and wherever they stand: good and broken
/// programs, the same bytes under two names (shared, or the second failing again with
/// its own name after the first failed), a missing file; a read-only cache refusing
/// each program with its own name; and damaged cache files, each hook's warning with
/// that hook.
#[test]
fn many_programs_prepare_as_they_would_in_turn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        path
    };
    // Valid header, garbage after it: does not compile.
    let garbage = b"\0asm\x01\0\0\0\xff\xff\xff";
    let files = [
        file("good.wasm", EMPTY_MODULE),
        file("bad.wasm", b"not wasm"),
        file("loop.wasm", LOOP_MODULE),
        file("garbage.wasm", garbage),
        file("same.wasm", EMPTY_MODULE),
        file("garbage-too.wasm", garbage),
        dir.path().join("missing.wasm"),
    ];
    let args = [vec!["a".to_string()], vec![], vec!["b".into(), "c".into()]];
    let requests = |order: &[usize]| -> Vec<Request<'_>> {
        order
            .iter()
            .map(|&i| Request {
                wasm: &files[i],
                args: &args[i % args.len()],
                project: dir.path(),
                timeout: Duration::from_secs(1 + i as u64),
            })
            .collect()
    };
    let forward: Vec<usize> = (0..files.len()).collect();
    let backward: Vec<usize> = forward.iter().rev().copied().collect();
    let orders = [
        forward,
        backward,
        vec![1, 0],
        vec![0, 1],
        vec![3, 2],
        vec![2, 3],
    ];
    for order in &orders {
        let requests = requests(order);
        let (in_turn, at_once) = in_turn_and_at_once(test_engine, || {}, &requests);
        assert_eq!(in_turn, at_once, "order {order:?}");
    }
    let (in_turn, _) = in_turn_and_at_once(test_engine, || {}, &requests(&orders[0]));
    assert!(in_turn[0].starts_with("ok"), "{in_turn:?}");
    assert!(in_turn[1].contains("bad header"), "{in_turn:?}");
    assert!(
        in_turn[3].contains("garbage.wasm does not compile"),
        "{in_turn:?}"
    );
    assert!(
        in_turn[5].contains("garbage-too.wasm does not compile"),
        "{in_turn:?}"
    );
    assert!(in_turn[6].contains("cannot read"), "{in_turn:?}");

    // A read-only cache without the programs refuses each, by name.
    let cache = tempfile::tempdir().expect("tempdir");
    let read_only = || {
        let settings = WasmSettings {
            cache_dir: Some(cache.path().to_path_buf()),
            cache_access: CacheAccess::ReadOnly,
            ..WasmSettings::default()
        };
        WasmEngine::new(&settings, EngineMode::OneShot).expect("engine")
    };
    for order in [&[0, 2][..], &[2, 0], &[1, 2, 0]] {
        let requests = requests(order);
        let (in_turn, at_once) = in_turn_and_at_once(read_only, || {}, &requests);
        assert_eq!(in_turn, at_once, "order {order:?}");
        let refused = in_turn
            .iter()
            .filter(|s| s.contains("system compile cache"));
        assert_eq!(refused.count(), order.iter().filter(|&&i| i != 1).count());
    }

    // Damaged cache files: each program's warning goes with its own (first) hook.
    let private = || {
        let settings = WasmSettings {
            cache_dir: Some(cache.path().to_path_buf()),
            ..WasmSettings::default()
        };
        WasmEngine::new(&settings, EngineMode::OneShot).expect("engine")
    };
    let requests = requests(&[2, 0, 4]);
    let filled = private().prepare_many(&requests);
    let mut cache_files: Vec<_> = filled
        .iter()
        .map(|r| {
            r.as_ref()
                .expect("prepared")
                .cache_file()
                .expect("a file")
                .to_path_buf()
        })
        .collect();
    cache_files.dedup(); // same.wasm's is good.wasm's
    assert_eq!(cache_files.len(), 2);
    let damage = || {
        for file in &cache_files {
            let mut bytes = std::fs::read(file).expect("read");
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
            std::fs::write(file, &bytes).expect("write");
        }
    };
    let (in_turn, at_once) = in_turn_and_at_once(private, damage, &requests);
    assert_eq!(in_turn, at_once);
    assert!(
        in_turn[0].contains("does not match its checksum"),
        "{in_turn:?}"
    );
    assert!(
        in_turn[1].contains("does not match its checksum"),
        "{in_turn:?}"
    );
    // same.wasm shares good.wasm's program: no warning of its own.
    assert!(in_turn[2].ends_with("[]"), "{in_turn:?}");
}

/// A program whose digest this process has learned under its file's stamp (the bridge's
/// pin check: `file_digests`) is found in the cache by that digest without its file
/// being read: here the file holds no program at all, and the learned one runs. Once the
/// file's stamp moves, or when the cache has no artifact for the digest, the file is
/// read as always.
#[tokio::test]
async fn a_learned_program_is_loaded_from_the_cache_without_reading_its_file() {
    use sha2::Digest;
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("tempdir");
    let settings = WasmSettings {
        cache_dir: Some(cache.path().to_path_buf()),
        ..WasmSettings::default()
    };
    let engine = || WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
    let prepare =
        |path: &std::path::Path| engine().prepare(path, &[], dir.path(), Duration::from_secs(1));
    let stamp = |path: &std::path::Path| crate::file_digests::stamp(path).expect("a file");
    // Compiled once, from a file, into the cache.
    let module = dir.path().join("empty.wasm");
    std::fs::write(&module, EMPTY_MODULE).expect("write");
    assert!(!prepare(&module).expect("compiled").from_cache);
    let digest: [u8; 32] = sha2::Sha256::digest(EMPTY_MODULE).into();

    let learned = dir.path().join("learned.wasm");
    std::fs::write(&learned, b"not wasm").expect("write");
    crate::file_digests::learn(&learned, stamp(&learned), digest);
    let exec = prepare(&learned).expect("the learned program");
    assert!(exec.from_cache);
    let outcome = exec
        .run(Arc::from(&b""[..]), &CancellationToken::new())
        .await
        .expect("it runs");
    assert_eq!(outcome.status, ExitStatus::Code(0));

    // Written since: its stamp moved, so it is read, and it is no program.
    std::fs::write(&learned, b"still not wasm").expect("write");
    assert!(matches!(prepare(&learned), Err(WasmError::NotWasm { .. })));
    // Learned again, for a digest the cache has nothing for: read as always.
    crate::file_digests::learn(&learned, stamp(&learned), [0; 32]);
    assert!(matches!(prepare(&learned), Err(WasmError::NotWasm { .. })));
}
