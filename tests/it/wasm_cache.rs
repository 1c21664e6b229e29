//! The WASM compile cache's integrity check (F19) through the real binary and a real
//! plugin: a cache file whose bytes changed, or one without a checksum (written by an
//! older hookhost), is never loaded; it is compiled again, with a start-up warning that
//! names it, and the verdict is right.

use std::path::{Path, PathBuf};

use crate::support::{Scene, cache_artifacts, hook, plugin, text};

/// A scene whose one hook is the `no-force-push` plugin, with its own compile cache.
fn cached_scene() -> (Scene, PathBuf) {
    let scene = Scene::new();
    let plugin = plugin(&scene, "no-force-push.wasm");
    let cache = scene.root.path().join("wasm-cache");
    scene.write_config(&format!(
        "[wasm]\ncache_dir = {:?}\n\n{}",
        cache.to_str().unwrap(),
        hook(
            "no-force-push",
            "PreToolUse",
            &[plugin.to_str().unwrap()],
            "tools = [\"bash\"]"
        )
    ));
    (scene, cache)
}

/// `git push --force` in text mode: must be blocked; returns stderr.
fn force_push(scene: &Scene) -> String {
    let out = scene
        .hookhost()
        .args(["pre-tool-use", "--tool", "bash", "--input"])
        .arg(r#"{"command":"git push --force origin main"}"#)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("blocked by the user's hook \"no-force-push\": force-push"),
        "{stdout}"
    );
    stderr
}

/// The one cache file.
fn cache_file(cache: &Path) -> PathBuf {
    let files = cache_artifacts(cache);
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

#[test]
fn a_flipped_byte_in_a_cache_file_is_compiled_again_with_a_warning() {
    let (scene, cache) = cached_scene();
    let stderr = force_push(&scene);
    assert!(!stderr.contains("cache"), "{stderr}");
    let file = cache_file(&cache);
    let good = std::fs::read(&file).unwrap();
    // Warm: loaded from the cache, nothing to say.
    assert!(!force_push(&scene).contains("cache"));

    // One bit in the middle of the artifact (its code), written in place: the write
    // moves the file's change time, so the memo of its last check no longer holds.
    let mut bad = good.clone();
    let middle = bad.len() / 2;
    bad[middle] ^= 0x01;
    std::fs::write(&file, &bad).unwrap();
    let stderr = force_push(&scene);
    let warning = format!(
        "⚠ the WASM cache file {} does not match its checksum (it is damaged), so it was compiled again",
        file.display()
    );
    assert!(stderr.lines().any(|l| l == warning), "{stderr}");
    // Replaced by a good file: the next start loads it and says nothing.
    assert_eq!(std::fs::read(&file).unwrap(), good);
    assert!(!force_push(&scene).contains("cache"));
}

#[test]
fn a_cache_file_without_a_checksum_is_compiled_again() {
    let (scene, cache) = cached_scene();
    force_push(&scene);
    let file = cache_file(&cache);
    let good = std::fs::read(&file).unwrap();
    // The bare artifact, which wasmtime would load as is: the file less its trailer (a
    // magic line, then a 16-byte checksum).
    let trailer = b"hookhost wasm artifact, xxh3-128\n".len() + 16;
    assert!(good[..good.len() - 16].ends_with(b"hookhost wasm artifact, xxh3-128\n"));
    std::fs::write(&file, &good[..good.len() - trailer]).unwrap();
    let stderr = force_push(&scene);
    let warning = format!(
        "⚠ the WASM cache file {} has no checksum (it was written by an older hookhost, or damaged), so it was compiled again",
        file.display()
    );
    assert!(stderr.lines().any(|l| l == warning), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), good);
}
