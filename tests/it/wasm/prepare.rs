//! Errors found when a hook is prepared, before it runs.

use super::*;

#[test]
fn corrupt_missing_and_unlinkable_programs_fail_at_prepare() {
    let project = project();
    let dir = tempfile::tempdir().expect("tempdir");
    let timeout = Duration::from_secs(5);

    let missing = dir.path().join("missing.wasm");
    let err = engine()
        .prepare(&missing, &[], project.path(), timeout)
        .expect_err("missing");
    assert!(matches!(err, WasmError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains("missing.wasm"), "{err}");

    let text_file = dir.path().join("script.wasm");
    std::fs::write(&text_file, "#!/bin/sh\necho hi\n").expect("write");
    let err = engine()
        .prepare(&text_file, &[], project.path(), timeout)
        .expect_err("not wasm");
    assert!(matches!(err, WasmError::NotWasm { .. }), "{err:?}");

    // A real module, truncated: the header is fine, the body is not.
    let good = std::fs::read(wasm("fixture-p1.wasm")).expect("read");
    let corrupt = dir.path().join("corrupt.wasm");
    std::fs::write(&corrupt, &good[..good.len() / 2]).expect("write");
    let err = engine()
        .prepare(&corrupt, &[], project.path(), timeout)
        .expect_err("corrupt");
    assert!(matches!(err, WasmError::Compile { .. }), "{err:?}");
    assert!(
        err.to_string().contains("corrupt.wasm does not compile"),
        "{err}"
    );

    // Same for a component.
    let good = std::fs::read(wasm("fixture-p2.wasm")).expect("read");
    let corrupt = dir.path().join("corrupt2.wasm");
    std::fs::write(&corrupt, &good[..good.len() / 2]).expect("write");
    let err = engine()
        .prepare(&corrupt, &[], project.path(), timeout)
        .expect_err("corrupt");
    assert!(matches!(err, WasmError::Compile { .. }), "{err:?}");

    // A module importing something the host does not provide:
    // (module (import "env" "launch_missiles" (func)) (func (export "_start")))
    let foreign: &[u8] = &[
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
        0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type 0: [] -> []
        0x02, 0x17, 0x01, 0x03, b'e', b'n', b'v', 0x0f, b'l', b'a', b'u', b'n', b'c', b'h', b'_',
        b'm', b'i', b's', b's', b'i', b'l', b'e', b's', 0x00, 0x00, // import
        0x03, 0x02, 0x01, 0x00, // one func of type 0
        0x07, 0x0a, 0x01, 0x06, b'_', b's', b't', b'a', b'r', b't', 0x00, 0x01, // export
        0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code: empty body
    ];
    let foreign_file = dir.path().join("foreign.wasm");
    std::fs::write(&foreign_file, foreign).expect("write");
    let err = engine()
        .prepare(&foreign_file, &[], project.path(), timeout)
        .expect_err("foreign");
    assert!(matches!(err, WasmError::UnknownImport { .. }), "{err:?}");
    assert!(err.to_string().contains("env::launch_missiles"), "{err}");

    // A project that is not a folder.
    let err = engine()
        .prepare(&wasm("fixture-p1.wasm"), &[], &missing, timeout)
        .expect_err("no project");
    assert!(matches!(err, WasmError::Project { .. }), "{err:?}");
}

/// A component importing an interface the host does not link is refused at prepare,
/// naming it. (Made by renaming `terminal-input` in the real fixture, same length.)
#[test]
fn a_component_importing_an_unknown_interface_is_refused_at_prepare() {
    let project = project();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = std::fs::read(wasm("fixture-p2.wasm")).expect("read");
    let (from, to) = (b"terminal-input", b"terminal-inpuz");
    let mut renamed = 0;
    for i in 0..bytes.len().saturating_sub(from.len()) {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            renamed += 1;
        }
    }
    assert!(renamed > 0);
    let file = dir.path().join("odd.wasm");
    std::fs::write(&file, bytes).expect("write");
    let err = engine()
        .prepare(&file, &[], project.path(), Duration::from_secs(5))
        .expect_err("refused");
    assert!(matches!(err, WasmError::UnknownImport { .. }), "{err:?}");
    let shown = err.to_string();
    assert!(
        shown.contains("imports wasi:cli/terminal-inpuz@0.2."),
        "{shown}"
    );
    assert!(shown.contains("which the host does not provide"), "{shown}");
}

/// WASM bytes by hand: `n` as unsigned LEB128.
fn leb(mut n: usize, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A section: its id, its length, its contents.
fn section(id: u8, contents: &[u8], out: &mut Vec<u8>) {
    out.push(id);
    leb(contents.len(), out);
    out.extend_from_slice(contents);
}

/// A name: its length, its bytes.
fn name(text: &str, out: &mut Vec<u8>) {
    leb(text.len(), out);
    out.extend_from_slice(text.as_bytes());
}

/// A core module with `_start` and a big body that takes seconds to compile (20,000
/// functions of 40 instructions, 1.2 MB: 5.3 s in a debug build here, alone or in a
/// component), importing `import` (module, name) if given.
pub(crate) fn big_module(import: Option<(&str, &str)>) -> Vec<u8> {
    const FUNCTIONS: usize = 20_000;
    let mut m = b"\0asm\x01\0\0\0".to_vec();
    section(1, &[1, 0x60, 0, 0], &mut m); // type 0: [] -> []
    if let Some((module, field)) = import {
        let mut imports = vec![1];
        name(module, &mut imports);
        name(field, &mut imports);
        imports.extend_from_slice(&[0x00, 0x00]); // a function of type 0
        section(2, &imports, &mut m);
    }
    let mut functions = Vec::new();
    leb(FUNCTIONS, &mut functions);
    functions.resize(functions.len() + FUNCTIONS, 0x00);
    section(3, &functions, &mut m);
    let mut exports = vec![1];
    name("_start", &mut exports);
    exports.push(0x00);
    leb(usize::from(import.is_some()), &mut exports);
    section(7, &exports, &mut m);
    let mut body = vec![0x00]; // no locals
    for _ in 0..20 {
        body.extend_from_slice(&[0x41, 0x01, 0x1a]); // i32.const 1; drop
    }
    body.push(0x0b);
    let mut code = Vec::new();
    leb(FUNCTIONS, &mut code);
    for _ in 0..FUNCTIONS {
        leb(body.len(), &mut code);
        code.extend_from_slice(&body);
    }
    section(10, &code, &mut m);
    m
}

/// A component holding [`big_module`] (no imports) that imports `import`, a type.
pub(crate) fn big_component(import: &str) -> Vec<u8> {
    let mut c = b"\0asm\x0d\0\x01\0".to_vec();
    let mut imports = vec![1, 0x00];
    name(import, &mut imports);
    imports.extend_from_slice(&[0x03, 0x01]); // (type (sub resource))
    section(10, &imports, &mut c);
    section(1, &big_module(None), &mut c); // a core module
    c
}

/// A program importing what the host does not provide is refused before it is compiled,
/// with the refusal it got after compiling (ruby.wasm imports `rb-js-abi-host`; CPython
/// built for another host, its own imports): at once, however big its body, for a core
/// module and for a component alike.
#[test]
fn an_unknown_import_is_refused_before_compiling() {
    let project = project();
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "module.wasm",
            big_module(Some(("rb-js-abi-host", "foo"))),
            "module.wasm imports `rb-js-abi-host::foo`, which the host does not provide",
        ),
        (
            "component.wasm",
            big_component("rb-js-abi-host"),
            "component.wasm imports rb-js-abi-host, which the host does not provide",
        ),
    ];
    for (file, bytes, said) in cases {
        let path = dir.path().join(file);
        std::fs::write(&path, bytes).expect("write");
        // An engine of its own: nothing compiled or cached before.
        let engine =
            WasmEngine::new(&WasmSettings::default(), EngineMode::OneShot).expect("engine");
        let began = Instant::now();
        let err = engine
            .prepare(&path, &[], project.path(), Duration::from_secs(5))
            .expect_err("refused");
        let took = began.elapsed();
        assert!(matches!(err, WasmError::UnknownImport { .. }), "{err:?}");
        assert!(err.to_string().contains(said), "{err}");
        assert!(took < Duration::from_millis(500), "{file}: took {took:?}");
    }
}
