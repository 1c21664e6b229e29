#!/usr/bin/env python3
"""UserPromptSubmit hook in the style of Ouroboros's keyword-detector.py.

Reads the prompt envelope on stdin; for a prompt such as "ooo seed my requirements" it
answers with hookSpecificOutput.additionalContext naming a skill. It suggests and loads
nothing. Like Ouroboros's hooks, it exits 0 whatever happens (it fails open on its own).
"""
import json
import sys

SKILLS = {"seed": "/ouroboros:seed", "run": "/ouroboros:run", "evaluate": "/ouroboros:evaluate"}

def main() -> int:
    try:
        envelope = json.loads(sys.stdin.readline() or "{}")
    except ValueError:
        return 0
    words = str(envelope.get("prompt", "")).split()
    if len(words) < 2 or words[0] != "ooo" or words[1] not in SKILLS:
        return 0
    skill = SKILLS[words[1]]
    context = f"<skill-suggestion>The user typed an ooo keyword: consider the skill {skill}.</skill-suggestion>"
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}}))
    return 0

if __name__ == "__main__":
    sys.exit(main())
