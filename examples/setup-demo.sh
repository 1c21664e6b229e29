#!/usr/bin/env bash
# The demo's set-up, sourced by examples/demo.sh and examples/eval.sh: builds hookhost
# and the WASM plugins, installs the example hooks outside the demo project (as the spec
# asks: the agent must not be able to rewrite its own policy) and writes the config
# $DEMO/config.toml. The hooks and the config go to the user's data folder
# ($XDG_DATA_HOME or ~/.local/share, as the spec recommends), the demo project to
# target/demo/project. Sets REPO, HOOKHOST, DEMO and PROJECT, and leaves the shell in
# $REPO.
#
#   source examples/setup-demo.sh
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
echo "== building hookhost and the WASM plugins (the first build takes a few minutes)"
cargo build --quiet --bin hookhost --bin hookhost-client
bash plugins/build.sh >/dev/null
HOOKHOST="$REPO/target/debug/hookhost"

DEMO="${XDG_DATA_HOME:-$HOME/.local/share}/hookhost-demo"
PROJECT="$REPO/target/demo/project"
rm -rf "$DEMO" "$REPO/target/demo"
mkdir -p "$DEMO/hooks" "$PROJECT/src"
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
