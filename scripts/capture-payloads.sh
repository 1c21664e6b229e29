#!/usr/bin/env bash
# Recaptures the real agents' payloads under examples/agents/<agent>/ (<event>-<tool>….json):
# each agent, installed by scripts/agents.sh, is driven offline against the scripted model,
# which calls each path-carrying tool once, and a recorder registered by `hookhost install`
# in hookhost's place writes what the agent handed its hook (tests/it/real_agents/capture.rs).
# The captures are checked by src/bridge/captured.rs. Not run in CI: the payloads hold
# session ids and times, so a recapture changes every file.
#
#   bash scripts/capture-payloads.sh            # every agent
#   bash scripts/capture-payloads.sh qwen        # one (claude_code, codex, gemini, copilot, qwen, kimi)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/agents.sh >/dev/null
HOOKHOST_REQUIRE_AGENTS=1 cargo test --test it -- "real_agents::capture::capture_${1:-}" \
    --ignored --test-threads 1
git status --short examples/agents/
