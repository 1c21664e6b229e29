#!/bin/sh
# PreToolUse hook (bash, exec): refuses force-pushes. Reads the call as JSON on stdin.
# Exit 2 blocks; stderr is the reason the model reads. This reads the raw JSON as text,
# which is easy to route around (see the spec); the WASM no-force-push parses it.
input=$(cat)
case "$input" in
  *"git push"*"--force"*|*"git push"*" -f"*)
    echo "force-push is not allowed here" >&2
    exit 2 ;;
esac
exit 0
