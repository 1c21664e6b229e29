#!/usr/bin/env python3
"""A/B of fresh `hookhost bridge` processes, interleaved (BENCHMARKS.md, issue 29):

    N=150 python3 scripts/bridge-ab.py before=/path/to/old/hookhost after=target/release/hookhost

Each round runs every binary once per case (no hooks, one WASM hook, one `sh` hook on
the host), Claude Code's PreToolUse payload on stdin, in a scene under target/ab-scene
(never /tmp: the guard counts it as agent-writable). Prints the median and p90 per binary.
Needs target/wasm/no-force-push.wasm (bash plugins/build.sh)."""
import json, os, statistics, subprocess, sys, time, shutil
repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
root = f'{repo}/target/ab-scene'
shutil.rmtree(root, ignore_errors=True)
project = f'{root}/project'; home = f'{root}/home'; os.makedirs(project); os.makedirs(home)
os.makedirs(f'{root}/state'); os.makedirs(f'{root}/cache'); os.makedirs(f'{root}/config')
wasm = f'{repo}/target/wasm/no-force-push.wasm'
hookdir = f'{root}/hooks'; os.makedirs(hookdir)
with open(f'{hookdir}/allow.sh', 'w') as f: f.write('#!/bin/sh\ncat >/dev/null\nexit 0\n')
os.chmod(f'{hookdir}/allow.sh', 0o755)
configs = {
  'none': '',
  'wasm': f'[[hooks]]\nname = "no-force-push"\nevent = "PreToolUse"\ncommand = ["{wasm}"]\n',
  'sh-host': f'[[hooks]]\nname = "allow"\nevent = "PreToolUse"\ncommand = ["{hookdir}/allow.sh"]\nsandbox = false\n',
}
for name, text in configs.items():
    with open(f'{root}/config/{name}.toml', 'w') as f: f.write(text)
bins = {name: os.path.abspath(path) for name, path in (a.split('=', 1) for a in sys.argv[1:])}
payload = json.dumps({"session_id": "ab-1", "transcript_path": f"{home}/t.jsonl", "cwd": project,
    "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
    "tool_input": {"command": "git status --short"}, "tool_use_id": "toolu_1"}).encode()
env = {'HOME': home, 'XDG_STATE_HOME': f'{root}/state', 'XDG_CACHE_HOME': f'{root}/cache',
       'XDG_CONFIG_HOME': f'{root}/config', 'PATH': '/usr/bin:/bin'}
def run(binary, config):
    t = time.perf_counter()
    p = subprocess.run([binary, '--config', f'{root}/config/{config}.toml', 'bridge', '--agent', 'claude-code'],
                       input=payload, capture_output=True, env=env, cwd=project)
    dt = time.perf_counter() - t
    if p.returncode != 0 or p.stdout.strip():
        sys.exit(f'{binary} {config}: exit {p.returncode} {p.stdout[:300]} {p.stderr[:300]}')
    return dt
N = int(os.environ.get('N', '150'))
for config in configs:
    times = {b: [] for b in bins}
    for b in bins: run(bins[b], config); run(bins[b], config)  # warm the cache
    for _ in range(N):
        for b, path in bins.items(): times[b].append(run(path, config))
    line = ' | '.join(f'{b} median {statistics.median(t)*1000:.2f} ms p90 {sorted(t)[int(len(t)*.9)]*1000:.2f}' for b, t in times.items())
    print(f'{config:8} {line}', flush=True)
