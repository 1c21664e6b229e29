#!/usr/bin/env bash
# Runs plugins/cases.toml with `hookhost eval` against each build of the guard policy:
# Rust (protect-paths.wasm + keywords.wasm), Python (guard-py.wasm), JavaScript
# (guard-js.wasm). A build whose toolchain is missing is skipped with a line that says
# so (set HOOKHOST_REQUIRE_COMPONENTS=1 to fail instead). Exits 1 if any case fails.
#
#   bash plugins/eval.sh
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
cargo build --quiet --bin hookhost
bash plugins/build.sh >/dev/null
HOOKHOST="$REPO/target/debug/hookhost"

# The hooks and configs live outside the project (the path guard refuses them inside).
WORK="${XDG_DATA_HOME:-$HOME/.local/share}/hookhost-plugins-eval"
PROJECT="$REPO/target/plugins-eval/project"
rm -rf "$WORK" "$PROJECT"
mkdir -p "$WORK" "$PROJECT"
PATTERNS='".env", ".git/", "secrets/*.pem"'

config() { # NAME PRE_TOOL_USE_WASM PROMPT_WASM
    cp "target/wasm/$2" "$WORK/"
    cp "target/wasm/$3" "$WORK/"
    cat >"$WORK/$1.toml" <<TOML
[[hooks]]
name = "guard"
event = "PreToolUse"
tools = ["write_file", "edit_file"]
command = ["$WORK/$2", $PATTERNS]
timeout = 60

[[hooks]]
name = "ooo"
event = "UserPromptSubmit"
command = ["$WORK/$3"]
timeout = 60
TOML
}

failed=0
for build in "rust protect-paths.wasm keywords.wasm" "python guard-py.wasm guard-py.wasm" \
    "javascript guard-js.wasm guard-js.wasm"; do
    read -r name pre prompt <<<"$build"
    if [[ ! -f "target/wasm/$pre" ]]; then
        if [[ -n "${HOOKHOST_REQUIRE_COMPONENTS:-}" ]]; then
            echo "plugins/eval.sh: target/wasm/$pre was not built" >&2
            exit 1
        fi
        echo "== $name: SKIPPED, target/wasm/$pre was not built (its toolchain is missing)"
        continue
    fi
    config "$name" "$pre" "$prompt"
    echo "== $name"
    "$HOOKHOST" eval plugins/cases.toml --config "$WORK/$name.toml" --project "$PROJECT" || failed=1
done
exit "$failed"
