#!/usr/bin/env bash
# The main job, end to end: real hooks (shell, python and WASM) judging real tool calls
# and prompts. Builds hookhost and the WASM plugins, installs the hooks outside the demo
# project (as the spec asks: the agent must not be able to rewrite its own policy), and
# runs a few gates through the real binary.
#
#   bash examples/demo.sh
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
echo "== building hookhost and the WASM plugins (the first build takes a few minutes)"
cargo build --quiet --bin hookhost
bash plugins/build.sh >/dev/null
HOOKHOST="$REPO/target/debug/hookhost"

DEMO="$REPO/target/demo"
rm -rf "$DEMO"
mkdir -p "$DEMO/hooks" "$DEMO/project/src" "$DEMO/state"
cp examples/hooks/* "$DEMO/hooks/"
cp target/wasm/no-force-push.wasm target/wasm/protect-paths.wasm target/wasm/keywords.wasm "$DEMO/hooks/"
PYTHON="$(command -v python3)"
cat >"$DEMO/config.toml" <<TOML
# The agent's config: keys that are not ours (model, …) are ignored.
model = "some-model"

[[hooks]]
name = "no-force-push"
event = "PreToolUse"
tools = ["bash", "exec"]
command = ["$DEMO/hooks/no-force-push.wasm"]
timeout = 5

[[hooks]]
name = "no-force-push-sh"
event = "PreToolUse"
tools = ["bash"]
command = ["/bin/sh", "$DEMO/hooks/no-force-push.sh"]
timeout = 5

[[hooks]]
name = "protect-paths"
event = "PreToolUse"
tools = ["write_file", "edit_file"]
command = ["$DEMO/hooks/protect-paths.wasm", ".env", ".git/"]

[[hooks]]
name = "lockfiles"
event = "PreToolUse"
tools = ["write_file", "edit_file"]
command = ["$PYTHON", "$DEMO/hooks/audit-writes.py"]

[[hooks]]
name = "keywords"
event = "UserPromptSubmit"
command = ["$PYTHON", "$DEMO/hooks/keyword-detector.py"]
timeout = 5
on_failure = "continue"

[[hooks]]
name = "keywords-wasm"
event = "UserPromptSubmit"
command = ["$DEMO/hooks/keywords.wasm"]
TOML

hh() { "$HOOKHOST" --config "$DEMO/config.toml" --project "$DEMO/project" "$@"; }

echo
echo "== hookhost check"
hh check

call() {
    local tool=$1 input=$2
    echo
    echo "== $tool $input"
    set +e
    hh pre-tool-use --tool "$tool" --input "$input" 2>/dev/null
    local status=$?
    set -e
    case $status in
        0) echo "-> go ahead (exit 0)" ;;
        1) echo "-> blocked (exit 1)" ;;
        *) echo "-> could not run (exit $status)" ;;
    esac
}
call bash '{"command":"git status"}'
call bash '{"command":"git push --force origin main"}'
call bash '{"command":"git push origin +main"}'
call write_file "{\"path\":\"$DEMO/project/.env\",\"content\":\"KEY=1\"}"
call write_file '{"path":"Cargo.lock","content":""}'
call write_file '{"path":"src/main.rs","content":"fn main() {}"}'

prompt() {
    echo
    echo "== prompt: $1"
    set +e
    hh prompt "$1" 2>/dev/null
    echo "-> exit $?"
    set -e
}
prompt "ooo seed my requirements"
prompt "fix the failing test"

echo
echo "== the same call as JSON, for an embedding agent"
set +e
hh pre-tool-use --tool bash --input '{"command":"git push -f"}' --json
set -e
