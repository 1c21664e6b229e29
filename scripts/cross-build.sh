#!/usr/bin/env bash
# The release binaries for every OS hookhost supports (issue 14), built here with zig as
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
for target in "${targets[@]}"; do
    echo "== $target"
    start=$SECONDS
    log="target/cross-build-$target.log"
    mkdir -p target
    if ! cargo-zigbuild build --release --locked --target "$target" --bin hookhost >"$log" 2>&1; then
        cat "$log" >&2
        echo "cross-build: $target failed" >&2
        exit 1
    fi
    # rustc asks xcrun for a macOS SDK only to stamp its version; zig links without one.
    grep -E '^(warning|error)' "$log" | grep -v -e 'xcrun' -e 'generated 1 warning' || true
    binary="target/$target/release/hookhost"
    [[ $target == *windows* ]] && binary+=".exe"
    [[ -f $binary ]] || { echo "cross-build: $binary was not built" >&2; exit 1; }
    printf '%s: %s bytes (%s MiB), built in %d s\n' "$binary" "$(stat -c %s "$binary")" \
        "$(($(stat -c %s "$binary") / 1048576))" "$((SECONDS - start))"
done
