#!/usr/bin/env python3
"""PreToolUse hook (write_file, edit_file): refuses writes to lock files, with JSON.

Answers in Claude Code's hookSpecificOutput format: permissionDecision "deny" blocks,
anything else is no objection.
"""
import json
import sys

envelope = json.load(sys.stdin)
path = str(envelope.get("tool_input", {}).get("path", ""))
if path.endswith(".lock") or path.endswith("package-lock.json"):
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{path} is generated: change the manifest and let the tool rewrite it",
        }
    }))
