#!/usr/bin/env bash
# What CI checks of the other OSes, at the least build cost: the Windows binary in the
# `smoke` profile (unoptimised, no debug info: the fastest build wine can run) for
# scripts/windows-smoke.sh, and `cargo check` of the Apple-silicon macOS target (types,
# borrows, every cfg(target_os = "macos") line, with no code generated). One macOS target
# is enough here: hookhost has no code that differs between the two Mac architectures
# (its only cfg(target_arch) is Linux's seccomp filter), and a second check is a whole
# extra pass over wasmtime and cranelift. Release binaries for every OS, both Macs
# included, come from scripts/cross-build.sh, on demand.
#
# The two builds and the wine prefix run at the same time: each build ends on a long
# stretch of one crate at a time (cranelift's and wasmtime's front ends, hookhost's own,
# the link), which leaves a core idle that the other fills; making the prefix mostly
# waits. Different profiles lock different folders of target/, so the builds do not wait
# for each other, and the macOS check still reuses the Linux build's proc-macros.
#
#   bash scripts/other-os-ci.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v cargo-zigbuild >/dev/null 2>&1 || {
    echo "other-os-ci: cargo-zigbuild is missing (pip install cargo-zigbuild ziglang)" >&2
    exit 2
}
mkdir -p target
# run WHAT LOG COMMAND…: runs it, prints its time, and on failure its log.
run() {
    local what=$1 log=$2
    shift 2
    local start=$SECONDS
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "other-os-ci: $what failed (the log above is $log)" >&2
        return 1
    fi
    # Its warnings, errors and SKIPPED lines (rustc asks xcrun for a macOS SDK only to stamp
    # its version; zig links without one).
    grep -E '^(warning|error|SKIPPED)' "$log" | grep -v -e 'xcrun' -e 'generated 1 warning' || true
    echo "$what: $((SECONDS - start)) s"
}
run "check aarch64-apple-darwin" target/macos-check.log \
    cargo-zigbuild check --locked --bin hookhost --bin hookhost-client --target aarch64-apple-darwin &
macos=$!
run "build x86_64-pc-windows-gnu (smoke profile)" target/windows-build.log \
    cargo-zigbuild build --locked --profile smoke --bin hookhost --bin hookhost-client --target x86_64-pc-windows-gnu &
windows=$!
run "wine prefix" target/wine-prefix.log bash scripts/windows-smoke.sh --prefix-only &
prefix=$!
failed=0
wait "$macos" || failed=1
wait "$windows" || failed=1
wait "$prefix" || failed=1
((failed == 0)) || exit 1
exe=target/x86_64-pc-windows-gnu/smoke/hookhost.exe
[[ -f $exe ]] || { echo "other-os-ci: $exe was not built" >&2; exit 1; }
bash scripts/windows-smoke.sh "$exe"
