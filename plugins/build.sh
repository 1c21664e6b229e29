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

if $run_tests; then
    cargo test --manifest-path "$MANIFEST"
fi
