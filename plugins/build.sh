#!/usr/bin/env bash
# Builds hookhost's WASM hook plugins and copies them to target/wasm/.
#
#   bash plugins/build.sh          # build (quick when nothing changed)
#   bash plugins/build.sh --test   # also run the plugins' unit tests on the host
#
# Each crate is built only for the targets it needs:
#   wasm32-wasip1: no-force-push, fixture, net-probe
#   wasm32-wasip2: protect-paths, keywords, fixture, net-probe
# Cargo's output goes to $REPO/target/plugins (never plugins/target); the
# finished hooks are $REPO/target/wasm/*.wasm, and their paths are printed.
# The Python and JavaScript hooks (plugins/python, plugins/js) are components
# built against wit/ with componentize-py (PyPI) and componentize-js (npm; looked
# for in $REPO/target/js-tools, where .ci/run installs it, then on PATH); each is
# rebuilt only when its sources, wit/ or the toolchain's version change, and
# skipped, with a line that says so, where its toolchain is missing.
set -euo pipefail

PLUGINS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$PLUGINS")"
MANIFEST="$PLUGINS/Cargo.toml"
export CARGO_TARGET_DIR="$REPO/target/plugins"
OUT="$REPO/target/wasm"

run_tests=false
for arg in "$@"; do
    case "$arg" in
        --test) run_tests=true ;;
        -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "build.sh: unknown argument: $arg" >&2; exit 64 ;;
    esac
done

# Targets: add only what is missing (rustup is slow even when there is nothing to do).
installed="$(rustup target list --installed)"
missing=()
for target in wasm32-wasip1 wasm32-wasip2; do
    grep -qx "$target" <<<"$installed" || missing+=("$target")
done
if ((${#missing[@]})); then
    rustup target add "${missing[@]}"
fi

cargo build --release --manifest-path "$MANIFEST" --target wasm32-wasip1 \
    -p no-force-push -p fixture -p net-probe
cargo build --release --manifest-path "$MANIFEST" --target wasm32-wasip2 \
    -p protect-paths -p keywords -p fixture -p net-probe

mkdir -p "$OUT"
P1="$CARGO_TARGET_DIR/wasm32-wasip1/release"
P2="$CARGO_TARGET_DIR/wasm32-wasip2/release"
# source | destination name
outputs=(
    "$P1/no-force-push.wasm|no-force-push.wasm"
    "$P2/protect-paths.wasm|protect-paths.wasm"
    "$P2/keywords.wasm|keywords.wasm"
    "$P1/fixture.wasm|fixture-p1.wasm"
    "$P2/fixture.wasm|fixture-p2.wasm"
    "$P1/net-probe.wasm|net-probe-p1.wasm"
    "$P2/net-probe.wasm|net-probe-p2.wasm"
)
for pair in "${outputs[@]}"; do
    src="${pair%%|*}"
    dst="$OUT/${pair##*|}"
    # Copy only when changed, so the outputs' mtimes say when they last changed.
    if ! cmp -s "$src" "$dst" 2>/dev/null; then
        cp "$src" "$dst.tmp"
        mv "$dst.tmp" "$dst"
    fi
    echo "$dst"
done

# A component from another language's toolchain, rebuilt only when what it is built
# from changes (componentize-py takes ~15 s, componentize-js ~10 s, even for no change).
#   build_component NAME TOOL_VERSION SOURCES... -- BUILD COMMAND...
build_component() {
    local name="$1" version="$2"
    shift 2
    local sources=()
    while [[ "$1" != "--" ]]; do sources+=("$1"); shift; done
    shift
    local dst="$OUT/$name" stamp="$OUT/.$name.inputs"
    local inputs
    inputs="$( { echo "$version"; cat "${sources[@]}"; find "$REPO/wit" -type f -name '*.wit' -print0 | sort -z | xargs -0 cat; } | sha256sum)"
    if [[ -f "$dst" && -f "$stamp" && "$(cat "$stamp")" == "$inputs" ]]; then
        echo "$dst"
        return
    fi
    "$@" -o "$dst.tmp" >"$OUT/.$name.log" 2>&1 || {
        cat "$OUT/.$name.log" >&2
        echo "build.sh: building $name failed (the tool's output is above)" >&2
        exit 1
    }
    mv "$dst.tmp" "$dst"
    echo "$inputs" >"$stamp"
    echo "$dst"
}

# name | entry module (plugins/python/NAME.py) | its sources
python_components=(
    "guard-py.wasm|guard|guard.py hookhost_hook.py"
    "probe-py.wasm|probe|probe.py"
)
js_components=(
    "guard-js.wasm|guard.js|guard.js hookhost_hook.js"
    "probe-js.wasm|probe.js|probe.js"
)
if command -v componentize-py >/dev/null 2>&1; then
    version="$(componentize-py --version)"
    for entry in "${python_components[@]}"; do
        IFS='|' read -r name module files <<<"$entry"
        sources=()
        for f in $files; do sources+=("$PLUGINS/python/$f"); done
        build_component "$name" "$version" "${sources[@]}" -- \
            componentize-py -d "$REPO/wit" -w hook componentize -p "$PLUGINS/python" "$module"
    done
else
    echo "build.sh: skipped the Python components: componentize-py not found" \
        "(pip install componentize-py)" >&2
fi

componentize_js="$REPO/target/js-tools/node_modules/.bin/componentize-js"
[[ -x "$componentize_js" ]] || componentize_js="$(command -v componentize-js || true)"
if [[ -n "$componentize_js" ]]; then
    version="$("$componentize_js" --version)"
    for entry in "${js_components[@]}"; do
        IFS='|' read -r name script files <<<"$entry"
        sources=()
        for f in $files; do sources+=("$PLUGINS/js/$f"); done
        build_component "$name" "$version" "${sources[@]}" -- \
            "$componentize_js" --wit "$REPO/wit" --world-name hook "$PLUGINS/js/$script"
    done
else
    echo "build.sh: skipped the JavaScript components: componentize-js not found" \
        "(npm install --prefix target/js-tools @bytecodealliance/componentize-js)" >&2
fi

if $run_tests; then
    cargo test --manifest-path "$MANIFEST"
    (cd "$PLUGINS/python" && python3 -m unittest -q)
fi
