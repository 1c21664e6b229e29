//! Unit tests of the WASM executor's internals (the behaviour on real hooks is in
//! `tests/it/wasm.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::{Engine, Module, Store, Trap};

use super::engine::{Kind, kind_of};
use super::limits::{fuel_for, wall_limit};
use super::*;
use crate::config::{Event, HookDef, OnFailure};
use crate::executor::{CancellationToken, Executor, Failure};

/// `(module (func (export "_start") (loop (br 0))))`, encoded by hand.
const LOOP_MODULE: &[u8] = &[
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: [] -> []
    0x03, 0x02, 0x01, 0x00, // function section: one func of type 0
    0x07, 0x0a, 0x01, 0x06, b'_', b's', b't', b'a', b'r', b't', 0x00, 0x00, // export
    0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, // code: loop br 0
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
