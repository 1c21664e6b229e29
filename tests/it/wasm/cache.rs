//! The compile cache, as the executor uses it.

use super::*;

/// Default settings with the compile cache in `dir`.
fn cached_in(dir: &Path) -> WasmSettings {
    WasmSettings {
        cache_dir: Some(dir.to_path_buf()),
        ..WasmSettings::default()
    }
}

#[test]
fn a_second_engine_loads_the_compiled_artifact_from_the_cache() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().expect("tempdir");
    let cache = base.path().join("cache/hookhost");
    let settings = cached_in(&cache);
    let project = project();
    let timeout = Duration::from_secs(5);
    for f in BOTH {
        let first = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
        let began = Instant::now();
        let cold = first
            .prepare(&wasm(f), &[], project.path(), timeout)
            .expect("prepare");
        let compile = began.elapsed();
        assert!(!cold.from_cache(), "{f}");
        let file = cold.cache_file().expect("a cache file").to_path_buf();
        assert!(file.is_file(), "{f}: {}", file.display());
        assert!(file.starts_with(&cache));
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{f}");
        let mode = std::fs::metadata(&cache)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700, "{f}");

        let second = WasmEngine::new(&settings, EngineMode::OneShot).expect("engine");
        let began = Instant::now();
        let warm = second
            .prepare(&wasm(f), &[], project.path(), timeout)
            .expect("prepare");
        let load = began.elapsed();
        assert!(warm.from_cache(), "{f}");
        assert_eq!(warm.cache_file(), Some(file.as_path()), "{f}");
        eprintln!("{f}: compile {compile:?}, cached load {load:?}");
    }
    // Two artifacts, each with the memo of its check, and no temporary file left behind.
    assert_eq!(crate::support::cache_artifacts(&cache).len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_cache_file_is_replaced() {
    let base = tempfile::tempdir().expect("tempdir");
    let settings = cached_in(&base.path().join("c"));
    let project = project();
    let timeout = Duration::from_secs(5);
    // A fresh engine each time, as a fresh process would be: an engine compiles or loads
    // each program once and shares it afterwards.
    let prepare = || {
        WasmEngine::new(&settings, EngineMode::OneShot)
            .expect("engine")
            .prepare(
                &wasm("fixture-p1.wasm"),
                &strings(&["echo"]),
                project.path(),
                timeout,
            )
            .expect("prepare")
    };
    let first = prepare();
    let file = first.cache_file().expect("cache file").to_path_buf();
    std::fs::write(&file, b"garbage").expect("write");
    let again = prepare();
    assert!(!again.from_cache());
    let out = ok(again
        .run(Arc::from(&b"hi"[..]), &CancellationToken::new())
        .await);
    assert_eq!(out.stdout, b"hi");
    assert!(prepare().from_cache());
}

#[tokio::test(flavor = "multi_thread")]
async fn hooks_running_the_same_program_share_it() {
    let base = tempfile::tempdir().expect("tempdir");
    let settings = cached_in(&base.path().join("c"));
    let project = project();
    let timeout = Duration::from_secs(5);
    let engine = WasmEngine::new(&settings, EngineMode::Serve).expect("engine");
    let echo = engine
        .prepare(
            &wasm("fixture-p1.wasm"),
            &strings(&["echo"]),
            project.path(),
            timeout,
        )
        .expect("prepare");
    let file = echo.cache_file().expect("cache file").to_path_buf();
    // The same bytes under another name, with other arguments: not compiled, not even
    // looked up in the cache again (its file is gone), yet each runs with its own
    // arguments.
    std::fs::remove_file(&file).expect("remove");
    let copy = base.path().join("copy.wasm");
    std::fs::copy(wasm("fixture-p1.wasm"), &copy).expect("copy");
    let exit = engine
        .prepare(&copy, &strings(&["exit", "3"]), project.path(), timeout)
        .expect("prepare");
    assert!(
        !file.exists(),
        "the second prepare compiled the program again"
    );
    assert_eq!(exit.argv()[0], "copy.wasm");
    let out = ok(echo
        .run(Arc::from(&b"hi"[..]), &CancellationToken::new())
        .await);
    assert_eq!(out.stdout, b"hi");
    let out = ok(exit
        .run(Arc::from(&b"hi"[..]), &CancellationToken::new())
        .await);
    assert_eq!(out.status, ExitStatus::Code(3));
}
