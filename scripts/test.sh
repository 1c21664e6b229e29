#!/usr/bin/env bash
# Every test: the WASM plugins' own unit tests, the crate's tests (which build the
# plugins and run real processes, real bubblewrap and real wasm), and the example
# hooks' and the guard plugins' eval cases. Needs bubblewrap and the wasm32-wasip1/wasip2
# targets; the Python and JavaScript components need componentize-py and componentize-js
# (.ci/run installs them all; without the last two, their tests say SKIPPED).
# The integration tests are one binary, tests/it (one module per former tests/*.rs),
# plus tests/host_process.rs and tests/no_leaks.rs, which need a process of their own:
#   cargo test --test it serve::          # one module; any part of a test's name works
# tests/it/properties/ runs a few thousand generated cases; a long run of them:
#   PROPTEST_CASES=100000 cargo test --release --test it properties::
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash plugins/build.sh --test
# The warm tests also run a statically linked hookhost-client (Linux with glibc only).
if [[ "$(rustc -vV | sed -n 's/^host: //p')" == *-linux-gnu* ]]; then
    bash scripts/static-client.sh --copy-to "${CARGO_TARGET_DIR:-target}/static-client"
fi
cargo test
bash examples/eval.sh
bash plugins/eval.sh
