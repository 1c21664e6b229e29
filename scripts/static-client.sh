#!/usr/bin/env bash
# Links `hookhost-client` (the program `hookhost install AGENT --warm` registers) as a
# static executable, on Linux with glibc. It then starts without the dynamic loader:
# ~0.3 ms less of its CPU per warm call, 0.1–0.35 ms of the call's time (BENCHMARKS.md,
# thirteenth sitting). The client uses nothing a static glibc does differently (no
# user or host lookups, no dlopen, no locale), so it behaves as the dynamic one does.
#
#   bash scripts/static-client.sh [--release] [--copy-to DIR]
#
# Only the client's own link step runs again (`cargo rustc`), into target/debug or
# target/release beside hookhost, where `install --warm` finds it. A later `cargo build`
# links it dynamically again, so run this after each build, then `hookhost install
# AGENT --warm`, which pins the client as it now is (`doctor` reports a client changed
# since its pin as the binary replaced).
#
# --copy-to DIR leaves the static client in DIR instead and links the usual one back
# (scripts/test.sh: the warm tests run the static one from target/static-client/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

profile=dev
folder=debug
copy_to=
while (($#)); do
    case $1 in
        --release) profile=release folder=release ;;
        --copy-to) copy_to=${2:?--copy-to needs a folder}; shift ;;
        *) echo "static-client.sh: unknown argument $1 (see the comment at its top)" >&2; exit 2 ;;
    esac
    shift
done

host=$(rustc -vV | sed -n 's/^host: //p')
case $host in
    *-linux-gnu*) ;;
    *)
        echo "static-client.sh: only Linux with glibc links the client statically (this is $host); the usual client is the one to use here" >&2
        exit 2
        ;;
esac

cargo rustc --quiet --profile "$profile" --bin hookhost-client -- -C target-feature=+crt-static
client="${CARGO_TARGET_DIR:-target}/$folder/hookhost-client"
# A static executable has no program interpreter (no PT_INTERP header).
if LC_ALL=C readelf -l "$client" | grep -q INTERP; then
    echo "static-client.sh: $client was linked, but still names a dynamic loader" >&2
    exit 1
fi
if [[ -n $copy_to ]]; then
    mkdir -p "$copy_to"
    cp "$client" "$copy_to/hookhost-client"
    cargo build --quiet --profile "$profile" --bin hookhost-client
    echo "static-client.sh: a statically linked hookhost-client in $copy_to"
else
    echo "static-client.sh: $client is linked statically; \`hookhost install AGENT --warm\` pins it"
fi
