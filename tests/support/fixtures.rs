//! The WASM fixtures and plugins, built by `plugins/build.sh` into `target/wasm/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::Scene;

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
