#!/usr/bin/env bash
# The platform seam (issues 16 and 14): what differs between operating systems lives in
# src/platform/ (one module per OS, chosen once as `platform::sys`; the box of each OS
# included). Everywhere else in src/ (bar src/main.rs) carries no `cfg(`, `cfg!(`
# or `cfg_attr(` other than for tests, no `libc::`, no `std::os::unix`, `std::os::fd`
# or `std::os::linux`, and no `…::unix::` module of any crate (tokio's `signal::unix`,
# `net::unix`), and no `/proc` path in a string (Linux's view of processes). Comment
# lines are not code and are not checked.
# Unit-test files (`tests.rs`, compiled only under `cfg(test)`) may use Unix calls to
# set up what they test; a port marks them as it ports the code they test.
# Lists each offending file:line and exits 1; exits 0 when there is none.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

offences=$(
    find src -name '*.rs' \
        -not -path 'src/platform/*' -not -path 'src/main.rs' \
        -not -name 'tests.rs' \
        -print0 | sort -z | xargs -0 awk '
        {
            code = $0
            if (code ~ /^[ \t]*\/\//) next
            # Test-only code may be conditional on `test`.
            gsub(/cfg\(test\)|cfg_attr\(test,/, "", code)
            if (code ~ /cfg!?\(|cfg_attr\(|libc::|std::os::(unix|fd|linux)|::unix::|"\/proc/)
                printf "%s:%d: %s\n", FILENAME, FNR, $0
        }'
)
if [ -n "$offences" ]; then
    echo "platform-specific code outside src/platform/:" >&2
    echo "$offences" >&2
    exit 1
fi
echo "platform seam: ok"
