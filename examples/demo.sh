#!/usr/bin/env bash
# The main job, end to end: real hooks (shell, python and WASM) judging real tool calls
# and prompts. Builds hookhost and the WASM plugins, installs the hooks outside the demo
# project (as the spec asks: the agent must not be able to rewrite its own policy), and
# runs a few gates through the real binary.
#
#   bash examples/demo.sh
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/setup-demo.sh"

hh() { "$HOOKHOST" --config "$DEMO/config.toml" --project "$PROJECT" "$@"; }

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
call write_file "{\"path\":\"$PROJECT/.env\",\"content\":\"KEY=1\"}"
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

# The bridge: the same hooks behind an agent's own hook call. The payloads are the agents'
# real shapes (examples/agents/), with cwd set to the demo project and the agent's own tool
# name and arguments; each answer is in the form that agent obeys. The WASM policies read
# the spec's envelope behind the bridge too (docs/envelopes.md): `git push origin +main` is
# caught only by no-force-push.wasm, `.env` only by protect-paths.wasm. The records go to
# a demo folder.
bridged() {
    local agent=$1 payload=$2 tool=$3 input=$4
    echo
    echo "== hookhost bridge, $agent: $tool $input"
    set +e
    python3 - "$payload" "$PROJECT" "$tool" "$input" <<'PY' | XDG_STATE_HOME="$DEMO/state" "${BRIDGE:-$HOOKHOST}" --config "$DEMO/config.toml" bridge --agent "$agent" ${WARM:+--warm-socket "$WARM"}
import json, sys
payload = json.load(open(sys.argv[1]))
payload["cwd"] = sys.argv[2]
payload["tool_name"] = sys.argv[3]
payload["tool_input"] = json.loads(sys.argv[4].replace("$PROJECT", sys.argv[2]))
print(json.dumps(payload))
PY
    echo "-> exit $?"
    set -e
}
bridged claude-code "$REPO/examples/agents/claude-code/PreToolUse.json" Bash '{"command":"git push origin +main"}'
bridged claude-code "$REPO/examples/agents/claude-code/PreToolUse.json" Write '{"file_path":"$PROJECT/.env","content":"KEY=1"}'
bridged codex "$REPO/examples/agents/codex/PreToolUse.json" Bash '{"command":"git push --force origin main"}'
bridged gemini "$REPO/examples/agents/gemini/BeforeTool.json" write_file '{"file_path":".env","content":"KEY=1"}'
bridged gemini "$REPO/examples/agents/gemini/BeforeTool.json" run_shell_command '{"command":"git status"}'

# The same calls handed to a warm server (`hookhost warm`, Linux): one process judges every
# bridged call, with the same checks and the same answers, without a process's start per
# call (docs/contract.md#the-warm-server). They go through `hookhost-client`, the small
# program `hookhost install AGENT --warm` registers.
mkdir -p "$DEMO/run" && chmod 700 "$DEMO/run"
"$HOOKHOST" -v warm --warm-socket "$DEMO/run/warm.sock" 2>"$DEMO/warm.log" &
warm_pid=$!
trap 'kill $warm_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$DEMO/run/warm.sock" ] && break; sleep 0.05; done
if [ -S "$DEMO/run/warm.sock" ]; then
    WARM="$DEMO/run/warm.sock"
    BRIDGE="$(dirname "$HOOKHOST")/hookhost-client"
    bridged claude-code "$REPO/examples/agents/claude-code/PreToolUse.json" Bash '{"command":"git push origin +main"}'
    bridged gemini "$REPO/examples/agents/gemini/BeforeTool.json" run_shell_command '{"command":"git status"}'
    echo
    echo "== the warm server's log: $(grep -c 'a bridged call answered' "$DEMO/warm.log") calls answered"
else
    echo
    echo "== no warm server here: $(cat "$DEMO/warm.log")"
fi
