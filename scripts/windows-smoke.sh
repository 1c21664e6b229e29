#!/usr/bin/env bash
# The Windows binary, tested under wine: `check`, gates with WASM hooks (a
# wasip1 and a wasip2 component: block, allow, prompt context), a host argv hook run by
# `cmd /c` (exit 2 with a reason), a timeout that ends the hook and its grandchild (the
# hook's Job Object), `serve` answering requests, `eval`, and the system scope's refusal
# of a binary that is not an administrator's (all that wine's file security can show).
#
#   bash scripts/windows-smoke.sh [path/to/hookhost.exe]
#   bash scripts/windows-smoke.sh --prefix-only   # only make the wine prefix (no timing in it)
#
# Needs wine (Debian: wine64) and the WASM plugins (plugins/build.sh). The wine prefix
# lives in target/wine, so nothing is kept outside target/. What wine cannot show (a
# real Windows console, Windows' own Job Object quirks) is said at the end, by name.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="$PWD"
PREFIX_ONLY=false
[[ "${1-}" == --prefix-only ]] && PREFIX_ONLY=true
EXE="${1:-$REPO/target/x86_64-pc-windows-gnu/release/hookhost.exe}"
$PREFIX_ONLY || [[ -f "$EXE" ]] || { echo "windows-smoke: no $EXE (build it with cargo zigbuild --release --target x86_64-pc-windows-gnu)" >&2; exit 2; }
command -v wine >/dev/null 2>&1 || { echo "windows-smoke: wine is not installed (Debian: apt install wine64)" >&2; exit 2; }

export WINEPREFIX="$REPO/target/wine"
mkdir -p "$REPO/target"   # wine makes the prefix, but not the folder it goes in
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="   # no Mono or Gecko installer prompts
if [[ ! -f "$WINEPREFIX/system.reg" ]]; then
    echo "== making the wine prefix (once)"
    wineboot --init >/dev/null 2>&1 || true
    wineserver --wait || true
fi

# Rust's std (and getrandom) draw randomness from bcryptprimitives.dll's ProcessPrng,
# which Windows 10+ has and wine 8.0 (Debian 12) lacks: without it no Rust program
# starts. The stand-in (scripts/wine/bcryptprimitives.c, built with zig) goes into this
# prefix only.
SHIM="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if ! wine cmd /c exit 0 >/dev/null 2>&1 || [[ ! -f "$SHIM" ]] || ! grep -q ProcessPrng "$SHIM"; then
    python3 -m ziglang cc -target x86_64-windows-gnu -shared -O2 -o "$SHIM.new" \
        scripts/wine/bcryptprimitives.c -ladvapi32
    mv "$SHIM.new" "$SHIM"
    echo "SKIPPED-ON-WINE bcryptprimitives: wine $(wine --version) lacks ProcessPrng; a stand-in is installed in target/wine (Windows 10+ has the real one)"
fi
if $PREFIX_ONLY; then
    wineserver --wait || true
    exit 0
fi

# A Linux path as wine's Windows programs name it (Z: is the root).
win() { printf 'Z:%s' "${1//\//\\}"; }

SMOKE="$REPO/target/windows-smoke"
rm -rf "$SMOKE"
mkdir -p "$SMOKE/hooks" "$SMOKE/project/src" "$SMOKE/state"
bash plugins/build.sh >/dev/null
cp target/wasm/no-force-push.wasm target/wasm/protect-paths.wasm target/wasm/keywords.wasm "$SMOKE/hooks/"
CONFIG="$SMOKE/config.toml"
toml_path() { win "$1" | sed 's/\\/\\\\/g'; }
cat >"$CONFIG" <<TOML
[[hooks]]
name = "no-force-push"
event = "PreToolUse"
tools = ["bash"]
command = ["$(toml_path "$SMOKE/hooks/no-force-push.wasm")"]
timeout = 10

[[hooks]]
name = "protect-paths"
event = "PreToolUse"
tools = ["write_file"]
command = ["$(toml_path "$SMOKE/hooks/protect-paths.wasm")", ".env"]
timeout = 10

[[hooks]]
name = "no-deletes"
event = "PreToolUse"
tools = ["exec"]
command = ["cmd", "/c", "echo deleting is not allowed here 1>&2 & exit 2"]
timeout = 20

[[hooks]]
name = "slow"
event = "PreToolUse"
tools = ["edit_file"]
command = ['C:\windows\system32\cmd.exe', "/c", "start /b ping -n 120 127.0.0.1 >nul & ping -n 120 127.0.0.1 >nul"]
timeout = 3

[[hooks]]
name = "keywords"
event = "UserPromptSubmit"
command = ["$(toml_path "$SMOKE/hooks/keywords.wasm")"]
timeout = 10
TOML

failures=0
pass() { echo "ok: $1"; }
fail() { echo "FAILED: $1" >&2; failures=$((failures + 1)); }

hh() { wine "$EXE" --config "$(win "$CONFIG")" --project "$(win "$SMOKE/project")" "$@"; }

# expect NAME STATUS OUTPUT-PATTERN -- ARGS…: runs hookhost with ARGS (`hh`).
expect() { expect_by hh "$@"; }
# expect_by RUNNER NAME STATUS OUTPUT-PATTERN -- ARGS…: the same, run by RUNNER.
expect_by() {
    local run=$1 name=$2 want_status=$3 pattern=$4
    shift 5
    local out status
    set +e
    out=$("$run" "$@" 2>&1 | tr -d '\r')
    status=$?
    # Wine's own connection to its wineserver can break under load ("wine client
    # error:0: recvmsg: Connection reset by peer", seen once in CI): that is wine's
    # failure, not hookhost's, and the step runs once more, saying so.
    if [[ $out == *"wine client error"* ]]; then
        echo "again: $name (wine lost its wineserver: ${out%%$'\n'*})"
        out=$("$run" "$@" 2>&1 | tr -d '\r')
        status=$?
    fi
    set -e
    if [[ $status == "$want_status" ]] && grep -qE -- "$pattern" <<<"$out"; then
        pass "$name (exit $status)"
    else
        fail "$name: exit $status (wanted $want_status), output: $out"
    fi
}

echo "== hookhost.exe under $(wine --version)"
expect "check loads the config; argv hooks run on the host" 0 "no-deletes \\(exec, on the host\\)" -- check
expect "check says there is no box and recommends WASM hooks" 0 "Windows has none.*Write the hooks as WASM hooks" -- check
expect "a WASM (wasip1) hook blocks a force push" 1 'blocked by the user.s hook "no-force-push"' -- \
    pre-tool-use --tool bash --input '{"command":"git push --force origin main"}'
expect "the same hook lets a plain push through" 0 "" -- \
    pre-tool-use --tool bash --input '{"command":"git push origin main"}'
expect "a WASM (wasip2) hook blocks a write to .env" 1 'blocked by the user.s hook "protect-paths"' -- \
    pre-tool-use --tool write_file --input '{"path":".env","content":"K=1"}'
expect "a Windows-shaped path in the project is judged relative" 1 "\\.env" -- \
    pre-tool-use --tool write_file --input "{\"path\":\"$(win "$SMOKE/project/.env" | sed 's/\\/\\\\/g')\",\"content\":\"K=1\"}"
expect "the wasip2 hook lets src/main.rs through" 0 "" -- \
    pre-tool-use --tool write_file --input '{"path":"src/main.rs","content":"fn main() {}"}'
expect "a WASM prompt hook adds context" 0 'Context from the user.s hook "keywords"' -- prompt "ooo seed my requirements"
expect "a cmd /c hook's exit 2 blocks with its reason" 1 'blocked by the user.s hook "no-deletes": deleting is not allowed here' -- \
    pre-tool-use --tool exec --input '{"command":"del src\\main.rs"}'

# The path guard, Windows' way: a hook program in the project, named with another case
# (NTFS, and wine's Z: drive, ignore case), is still refused at start.
printf '@echo off\r\nexit 0\r\n' >"$SMOKE/project/hook.bat"
cat >"$SMOKE/guard.toml" <<TOML
[[hooks]]
name = "in-project"
event = "PreToolUse"
command = ['$(win "$SMOKE/PROJECT/hook.bat")']
TOML
set +e
guard_out=$(wine "$EXE" --config "$(win "$SMOKE/guard.toml")" --project "$(win "$SMOKE/project")" check 2>&1 | tr -d '\r')
guard_status=$?
set -e
if [[ $guard_status == 2 ]] && grep -q 'PROJECT\\hook.bat is in the project, so the agent could change it' <<<"$guard_out"; then
    pass "the guard refuses a hook in the project, whatever the case of its path (exit 2)"
else
    fail "the guard: exit $guard_status, output: $guard_out"
fi

# The timeout: the hook (cmd) starts a grandchild (ping) in the background and waits; at
# 3 s hookhost ends the hook's Job Object. The grandchild must be seen running first, and
# gone after.
pkill -f 'ping.exe -n 120' 2>/dev/null || true
timeout_out="$SMOKE/timeout.out"
(
    set +e
    hh pre-tool-use --tool edit_file --input '{"path":"src/main.rs"}' >"$timeout_out" 2>&1
    echo "exit $?" >>"$timeout_out"
) &
gate=$!
# Looked for until the gate ends, not at a fixed moment: on a loaded machine wine may
# take more than a second or two to start hookhost, cmd and ping.
seen=false
while kill -0 "$gate" 2>/dev/null; do
    pgrep -f 'ping.exe -n 120' >/dev/null && { seen=true; break; }
    sleep 0.2
done
if $seen; then
    pass "the slow hook's grandchild is running while the hook waits"
else
    fail "the slow hook's grandchild never started, so the Job Object test below proves nothing"
fi
wait "$gate"
if grep -q 'failed (timed out after 3 s), so this call was blocked' "$timeout_out" && grep -q '^exit 1$' "$timeout_out"; then
    pass "a hook past its timeout fails the call closed (exit 1)"
else
    fail "the timeout: $(tr -d '\r' <"$timeout_out")"
fi
sleep 1
if pgrep -f 'ping.exe -n 120' >/dev/null; then
    fail "the timed-out hook's grandchild outlived it (Job Object)"
    pkill -f 'ping.exe -n 120' || true
else
    pass "no grandchild outlives a timed-out hook (Job Object kill-on-close)"
fi

# serve: a few requests in, one ready line and one answer each out.
set +e
answers=$(printf '%s\n' \
    '{"id":1,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"git push -f"},"tool_use_id":"t1"}' \
    '{"id":2,"type":"pre_tool_use","tool_name":"bash","tool_input":{"command":"ls"},"tool_use_id":"t2"}' \
    '{"id":3,"type":"user_prompt_submit","prompt":"ooo seed my requirements"}' |
    hh serve 2>/dev/null | tr -d '\r')
set -e
if grep -q '"type":"ready"' <<<"$answers" &&
    grep -q '"id":1.*' <<<"$answers" && grep '"id":1' <<<"$answers" | grep -q '"outcome":"block"' &&
    grep '"id":2' <<<"$answers" | grep -q '"outcome":"allow"' &&
    grep '"id":3' <<<"$answers" | grep -q '"context":\[{'; then
    pass "serve answers requests (block, allow, context)"
else
    fail "serve: $answers"
fi

cat >"$SMOKE/cases.toml" <<'TOML'
[[case]]
name = "force push is blocked"
tool = "bash"
input = { command = "git push --force" }
expect.outcome.in = ["blocked"]

[[case]]
name = "a plain push goes ahead"
tool = "bash"
input = { command = "git push" }
expect.outcome.in = ["completed"]
TOML
expect "eval runs cases" 0 "2 passed|2/2" -- eval "$(win "$SMOKE/cases.toml")"

# The system scope (docs/system-scope.md#windows): every file the administrator's policy
# depends on must be owned by SYSTEM, Administrators or TrustedInstaller with a DACL that
# lets no one else write. Wine derives a file's security from its Unix mode and uid (this
# wine keeps no owner or DACL a program sets: its wineserver has no xattr support), so
# here every file's owner is the wine user's S-1-5-21-0-0-0-1000, and the refusals are
# what can be shown: each system command judges the real binary by what wine reports,
# refuses it by name with the icacls fix, and writes nothing.
SD="$SMOKE/sd.exe"
python3 -m ziglang cc -target x86_64-windows-gnu -O1 -o "$SD" scripts/wine/sd.c -ladvapi32 -lshell32
exe_win=$(win "$(realpath "$EXE")")
exe_sd=$(wine "$SD" get "$exe_win" 2>&1 | tr -d '\r')
managed="$WINEPREFIX/drive_c/Program Files/ClaudeCode/managed-settings.json"
rm -f "$managed"
system_refusal="hookhost binary $(sed 's/[][\\.*^$]/\\&/g' <<<"$exe_win") is owned by [^,]*S-1-5-21-0-0-0-1000\\)?, not by SYSTEM, Administrators or TrustedInstaller, so someone other than the administrator could change the system policy"
# The binary as the system scope runs it: without the user's config, no input.
system_hh() { wine "$EXE" "$@" </dev/null; }
# expect_system NAME STATUS PATTERN -- ARGS…: like `expect`, run by `system_hh`.
expect_system() { expect_by system_hh "$@"; }
if grep -q '^O:S-1-5-21-0-0-0-1000D:' <<<"$exe_sd"; then
    pass "wine reports the binary's owner as its user's SID ($exe_sd)"
else
    fail "the binary's security under wine: $exe_sd"
fi
expect_system "install --scope system refuses a binary an administrator's account does not own" 2 \
    "$system_refusal.*icacls \"[^\"]*hookhost.exe\" /setowner \*S-1-5-32-544" -- \
    install claude-code --scope system
if [[ -e "$managed" ]]; then
    fail "install --scope system wrote $managed after refusing"
else
    pass "install --scope system refused before writing the managed settings"
fi
expect_system "check --system runs as wine's elevated administrator and refuses the binary" 2 \
    "$system_refusal" -- check --system
set +e
bridge_out=$(printf '%s' '{"session_id":"s","transcript_path":"","cwd":"C:\\\\","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}' |
    wine "$EXE" bridge --agent claude-code --system --budget-ms 20000 2>&1 | tr -d '\r')
set -e
if grep -q '"deny"' <<<"$bridge_out" &&
    grep -qE -- 'hookhost binary [^"]*hookhost.exe is owned by [^,]*S-1-5-21-0-0-0-1000\)?, not by SYSTEM, Administrators or TrustedInstaller' <<<"$bridge_out"; then
    pass "bridge --system denies the call, naming the binary and its owner"
else
    fail "bridge --system: $bridge_out"
fi
echo "SKIPPED-ON-WINE system scope, passing path: wine $(wine --version)'s wineserver keeps no owner or DACL a program sets (no xattr support), so no file is an administrator's here; install writing managed-settings.json and the protected C:\\ProgramData\\hookhost, a system hook's block, and a config Users may write refused by name need Windows (the rule is unit-tested: cargo test --lib platform::acl)"

# hookhost-client.exe, what `install --warm` registers: Windows has no warm server, so
# it starts the hookhost.exe beside it with the call, and its answer is the bridge's.
CLIENT="$(dirname "$EXE")/hookhost-client.exe"
project_json=$(win "$SMOKE/project" | sed 's/\\/\\\\/g')
client_out=$(printf '%s' "{\"session_id\":\"c\",\"transcript_path\":\"\",\"cwd\":\"$project_json\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git push --force origin main\"}}" |
    wine "$CLIENT" --config "$(win "$CONFIG")" --project "$(win "$SMOKE/project")" bridge --agent claude-code --budget-ms 20000 2>&1 | tr -d '\r')
if grep -q '"deny"' <<<"$client_out" && grep -q 'no-force-push' <<<"$client_out"; then
    pass "hookhost-client.exe has the hookhost.exe beside it judge a bridged force push (denied)"
else
    fail "hookhost-client.exe: $client_out"
fi

wineserver --kill 2>/dev/null || true
echo
echo "Checked only on Windows itself, not under wine: a real console's Ctrl-C, Windows"
echo "Defender's scan of each new process (the agents' 17-25 s per command), ACLs (a"
echo "passing system-scope call)."
if ((failures > 0)); then
    echo "windows-smoke: $failures failed" >&2
    exit 1
fi
echo "windows-smoke: all passed"
