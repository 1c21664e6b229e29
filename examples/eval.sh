#!/usr/bin/env bash
# Hook test cases: sets up the demo (examples/setup-demo.sh) and runs
# examples/cases.toml against its config with `hookhost eval`. Prints one line per case
# and "N passed, M failed"; exits 0 when every case passed, 1 otherwise.
#
#   bash examples/eval.sh
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/setup-demo.sh"

echo
echo "== hookhost eval examples/cases.toml"
exec "$HOOKHOST" eval examples/cases.toml --config "$DEMO/config.toml" --project "$PROJECT"
