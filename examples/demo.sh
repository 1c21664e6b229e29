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
# real shapes (examples/agents/), with cwd set to the demo project; each answer is in the
# form that agent obeys (agent_formats.md, table 2.3). The records go to a demo folder.
bridged() {
    local agent=$1 payload=$2 command=$3
    echo
    echo "== hookhost bridge, $agent: $command"
    set +e
    python3 - "$payload" "$PROJECT" "$command" <<'PY' | XDG_STATE_HOME="$DEMO/state" "$HOOKHOST" --config "$DEMO/config.toml" bridge --agent "$agent"
import json, sys
payload = json.load(open(sys.argv[1]))
payload["cwd"] = sys.argv[2]
payload["tool_input"]["command"] = sys.argv[3]
print(json.dumps(payload))
PY
    echo "-> exit $?"
    set -e
}
bridged claude-code "$REPO/examples/agents/claude-code/PreToolUse.json" "git push --force origin main"
bridged codex "$REPO/examples/agents/codex/PreToolUse.json" "git push --force origin main"
bridged gemini "$REPO/examples/agents/gemini/BeforeTool.json" "git status"
