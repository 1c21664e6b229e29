#!/usr/bin/env bash
# Reads the tools each agent offers its model out of the agent's own npm package, at the
# versions of tests/data/agent_tools.toml, and compares them with that file's lists.
#
#   scripts/agent-tools.sh          download what is missing, then compare
#   scripts/agent-tools.sh AGENT    one agent (claude-code, codex, gemini, qwen-code,
#                                   copilot, kimi-code)
#
# Packages go to target/agent-packages/ (npm pack; about 600 MB in all, kept for the
# next run). Not run by CI: it downloads. Exit status 1 when a package holds a tool name
# the file lacks ("+ NAME") or the file lists one the package does not hold ("- NAME");
# then edit tests/data/agent_tools.toml and src/bridge/tools/ (a row, or an UNMAPPED
# entry with its reason; docs/agents.md#tools-with-no-hookhost-name) and run
# `cargo test --lib bridge::tools`.
#
# The readers are greps over bundled JavaScript and native binaries: they find names,
# not meaning. Codex's and Copilot's tools are defined in compiled code, so for them the
# script only checks that each listed name occurs in the binary. Cursor and Kiro CLI are
# not on npm; their lists are from documentation and are not checked here.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/tests/data/agent_tools.toml"
dir="$root/target/agent-packages"
mkdir -p "$dir/x"
only=${1:-}

version() { python3 -c 'import sys,tomllib; print(tomllib.load(open(sys.argv[1],"rb"))[sys.argv[2]]["version"])' "$data" "$1"; }
listed() { python3 -c 'import sys,tomllib; print("\n".join(tomllib.load(open(sys.argv[1],"rb"))[sys.argv[2]]["tools"]))' "$data" "$1" | sort -u; }

# unpack SPEC: npm pack SPEC into $dir once, extract it under $dir/x/, print the folder.
unpack() {
    local spec=$1 tgz
    tgz=$(cd "$dir" && ls "$(echo "$spec" | sed 's/^@//; s/\//-/; s/@/-/').tgz" 2>/dev/null || true)
    if [ -z "$tgz" ]; then
        tgz=$(cd "$dir" && npm pack --silent "$spec" | tail -1)
    fi
    local out="$dir/x/${tgz%.tgz}"
    if [ ! -d "$out" ]; then
        mkdir -p "$out"
        tar -xzf "$dir/$tgz" -C "$out"
    fi
    echo "$out/package"
}

# A mismatch is noted in a file: compare runs at the end of a pipeline, in a subshell.
mismatch="$dir/.mismatch"
rm -f "$mismatch"
# compare AGENT: the names on stdin (found in the package) against the file's list.
compare() {
    local agent=$1 found
    found=$(sort -u)
    local extra missing
    extra=$(comm -13 <(listed "$agent") <(echo "$found") | sed '/^$/d')
    missing=$(comm -23 <(listed "$agent") <(echo "$found") | sed '/^$/d')
    if [ -z "$extra$missing" ]; then
        echo "$agent $(version "$agent"): the package matches the list ($(echo "$found" | wc -l) names)"
        return
    fi
    touch "$mismatch"
    echo "$agent $(version "$agent"):"
    [ -n "$extra" ] && echo "$extra" | sed 's/^/  + /'
    [ -n "$missing" ] && echo "$missing" | sed 's/^/  - /'
}

# check_present AGENT FILE: each listed name occurs in FILE (compiled tool definitions).
check_present() {
    local agent=$1 file=$2
    listed "$agent" | while read -r name; do
        grep -aqE "(^|[^a-z_A-Z])${name}([^a-z_A-Z]|$)" "$file" && echo "$name"
    done | compare "$agent"
}

want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

if want claude-code; then
    pkg=$(unpack "@anthropic-ai/claude-code-linux-x64@$(version claude-code)")
    # The built-in tool names, as one sorted array, and the old names' aliases.
    {
        grep -aoE '\["Agent","Artifact","AskUserQuestion","Bash"[^]]*\]' "$pkg/claude" | head -1 |
            tr -d '[]"' | tr ',' '\n'
        grep -aoE 'Task:"Agent",KillShell:"TaskStop"[^}]*' "$pkg/claude" | head -1 |
            tr ',' '\n' | sed 's/:.*//'
        echo MultiEdit # older versions' name, still in hookhost's table
    } | compare claude-code
fi

if want codex; then
    pkg=$(unpack "@openai/codex@$(version codex)-linux-x64")
    bin="$pkg/vendor/x86_64-unknown-linux-musl/bin/codex"
    echo "codex: tool handlers built in: $(grep -aoE 'tools/handlers/[a-z_/]+\.rs' "$bin" | sort -u | sed 's|tools/handlers/||; s|\.rs||' | tr '\n' ' ')"
    check_present codex "$bin"
fi

if want gemini; then
    pkg=$(unpack "@google/gemini-cli@$(version gemini)")
    {
        grep -ohE '\b[A-Z_]+_TOOL_NAME = "[a-z_]+"' "$pkg"/bundle/*.js | sed -E 's/.*"(.*)"/\1/'
        grep -ohE 'static Name = "[a-z_]+"' "$pkg"/bundle/*.js | sed -E 's/.*"(.*)"/\1/'
        grep -ohE '^  [a-z_]+: [A-Z_]+_TOOL_NAME$' "$pkg"/bundle/*.js | sed -E 's/^  ([a-z_]+):.*/\1/'
        grep -q '"analyze_screenshot"' "$pkg"/bundle/*.js && echo analyze_screenshot
    } | grep -vE '^(take_snapshot)$' | compare gemini
fi

if want qwen-code; then
    pkg=$(unpack "@qwen-code/qwen-code@$(version qwen-code)")
    file=$(grep -l 'var ToolNames = {' "$pkg"/chunks/*.js | head -1)
    {
        sed -n '/^var ToolNames = {/,/^};/p' "$file" | grep -oE ': "[a-z_]+"' | tr -d ': "'
        sed -n '/^var ToolNamesMigration = {/,/^};/p' "$file" | grep -oE '^  [a-z_]+:' | tr -d ' :'
    } | compare qwen-code
fi

if want copilot; then
    pkg=$(unpack "@github/copilot-linux-x64@$(version copilot)")
    # The single executable unpacks its JavaScript and native runtime on first start.
    cache="$dir/copilot-cache"
    mkdir -p "$cache" "$dir/copilot-home"
    HOME="$dir/copilot-home" XDG_CACHE_HOME="$cache" COPILOT_PKG_CACHE_HOME="$cache" \
        COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
        timeout 120 "$pkg/copilot" --version >/dev/null
    unpacked="$cache/pkg/linux-x64/$(version copilot)"
    cat "$unpacked"/cli-main.js "$unpacked"/definitions/*.yaml > "$dir/copilot-names.txt"
    strings -n 3 "$unpacked/prebuilds/linux-x64/runtime.node" >> "$dir/copilot-names.txt"
    check_present copilot "$dir/copilot-names.txt"
fi

if want kimi-code; then
    pkg=$(unpack "@moonshot-ai/kimi-code@$(version kimi-code)")
    {
        awk '/Tool = class ([A-Za-z]+ )?\{/ {ln=NR} /^\t+name = "[A-Za-z_]+";/ { if (NR-ln < 30) { match($0, /"[^"]+"/); print substr($0,RSTART+1,RLENGTH-2) } }' "$pkg/dist/main.mjs" |
            grep -vE 'Error$|Router$'
        # The Python Kimi CLI's names (from its docs; not in this package).
        printf '%s\n' Shell ReadFile WriteFile StrReplaceFile SearchWeb
    } | compare kimi-code
fi

[ ! -e "$mismatch" ]
