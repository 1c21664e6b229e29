#!/usr/bin/env bash
# The release binaries for every OS hookhost supports, built here with zig as
# the linker (cargo-zigbuild; no macOS SDK or MinGW install needed), and their sizes.
#
#   bash scripts/cross-build.sh [TARGET…]    # default: the three below
#
# Linux's own binary is `cargo build --release`. The Windows one is then run under wine
# by scripts/windows-smoke.sh; the macOS ones are only built and linked here (no macOS
# machine): their tests run on a Mac (see the README's "Platforms").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

targets=("$@")
((${#targets[@]} > 0)) || targets=(x86_64-pc-windows-gnu x86_64-apple-darwin aarch64-apple-darwin)
command -v cargo-zigbuild >/dev/null 2>&1 || {
    echo "cross-build: cargo-zigbuild is missing (pip install cargo-zigbuild ziglang)" >&2
    exit 2
}
# One cargo run for every target: each target's last crates (hookhost's own, mostly one
# thread's work) then overlap with the others' instead of leaving a core idle.
target_args=()
for target in "${targets[@]}"; do target_args+=(--target "$target"); done
log=target/cross-build.log
mkdir -p target
start=$SECONDS
echo "== building ${targets[*]}"
if ! cargo-zigbuild build --release --locked --bin hookhost --bin hookhost-client "${target_args[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    echo "cross-build: the build failed (the log above is $log)" >&2
    exit 1
fi
# rustc asks xcrun for a macOS SDK only to stamp its version; zig links without one.
grep -E '^(warning|error)' "$log" | grep -v -e 'xcrun' -e 'generated 1 warning' || true
echo "built in $((SECONDS - start)) s"
for target in "${targets[@]}"; do
    binary="target/$target/release/hookhost"
    [[ $target == *windows* ]] && binary+=".exe"
    [[ -f $binary ]] || { echo "cross-build: $binary was not built" >&2; exit 1; }
    printf '%s: %s bytes (%s MiB)\n' "$binary" "$(stat -c %s "$binary")" \
        "$(($(stat -c %s "$binary") / 1048576))"
done
