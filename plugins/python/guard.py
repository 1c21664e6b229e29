"""guard: the policies of the Rust plugins protect-paths and keywords, in Python.

Built into a WASM component by plugins/build.sh (componentize-py against wit/hook.wit);
the same file runs as a native hook with `python3 guard.py PATTERN…`, so that the two
can be compared call for call.

- PreToolUse: for `write_file` and `edit_file`, blocks a write to a path that matches
  one of the hook's arguments (`.env .git/ secrets/*.pem`), with the rules of
  protect-paths: a pattern ending in `/` protects that folder (at any depth when it has
  no inner `/`); `*` and `?` glob within one path segment and `**` across them; any
  other pattern matches the exact path or the file name; all without case. Paths are normalised lexically
  and made relative to the event's `cwd` (or `/project`).
- UserPromptSubmit: for a prompt `ooo <skill word> …` adds a skill suggestion, as the
  keywords plugin does.
"""

import hookhost_hook as hook

WRITE_TOOLS = ("write_file", "edit_file")
SKILLS = {"seed": "seed", "run": "run", "execute": "run", "evaluate": "evaluate", "eval": "evaluate", "interview": "interview"}


def judge(event):
    name = event.get("hook_event_name")
    if name == "PreToolUse":
        reason = protected_write(event, hook.arguments())
        return hook.block(reason) if reason else hook.allow()
    if name == "UserPromptSubmit":
        context = suggestion(event.get("prompt"))
        return hook.add_context(context) if context else hook.allow()
    return hook.allow()


# PreToolUse: protect-paths


def protected_write(event, patterns):
    tool = event.get("tool_name")
    tool_input = event.get("tool_input")
    if tool not in WRITE_TOOLS or not isinstance(tool_input, dict):
        return None
    cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else None
    for key in ("path", "file_path"):
        raw = tool_input.get(key)
        if not isinstance(raw, str):
            continue
        path = relative_path(raw, cwd)
        for pattern in patterns:
            if matches(pattern, path):
                return f"{tool} on {raw} is not allowed: the path is protected (pattern {pattern})"
    return None


def normalise(path):
    absolute = path.startswith("/")
    segments = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments and segments[-1] != "..":
                segments.pop()
            elif not absolute:
                segments.append("..")
            continue
        segments.append(segment)
    out = ("/" if absolute else "") + "/".join(segments)
    if path.endswith("/") and segments:
        out += "/"
    return out


def relative_path(raw, cwd):
    if cwd is not None and cwd.startswith("/"):
        cwd = normalise(cwd)
        if len(cwd) > 1:
            cwd = cwd.rstrip("/")
    else:
        cwd = None
    path = normalise(raw)
    if cwd is not None and (path == ".." or path.startswith("../")):
        path = normalise(f"{cwd}/{path}")
    if not path.startswith("/"):
        return path
    for root in ([cwd] if cwd else []) + ["/project"]:
        if root == "/":
            continue  # a project of / would make every path "in the project"
        if path == root or path.startswith(root + "/"):
            return path[len(root):].lstrip("/")
    return path


def matches(pattern, path):
    # Without case, as macOS and Windows compare paths (stricter on Linux, never looser).
    pattern = normalise(pattern.lower())
    if not pattern or not path:
        return False
    path = path.lower().rstrip("/")
    if pattern.endswith("/"):
        folder = pattern[:-1]
        if path == folder or path.startswith(folder + "/"):
            return True
        return "/" not in folder and folder in path.split("/")
    if "*" in pattern or "?" in pattern:
        return glob(pattern, path)
    return path == pattern or path.rsplit("/", 1)[-1] == pattern


def glob(pattern, text):
    if not pattern:
        return not text
    head, rest = pattern[0], pattern[1:]
    if head == "*":
        if rest.startswith("*"):
            rest = rest[1:]
            if rest.startswith("/") and glob(rest[1:], text):
                return True
            return any(glob(rest, text[i:]) for i in range(len(text) + 1))
        for i in range(len(text) + 1):
            if glob(rest, text[i:]):
                return True
            if i < len(text) and text[i] == "/":
                break
        return False
    if not text:
        return False
    if head == "?":
        return text[0] != "/" and glob(rest, text[1:])
    return text[0] == head and glob(rest, text[1:])


# UserPromptSubmit: keywords


def suggestion(prompt):
    if not isinstance(prompt, str):
        return None
    words = prompt.strip().split(None, 1)
    if len(words) < 2 or words[0].lower() != "ooo":
        return None
    remaining = words[1].lstrip()
    while remaining:
        parts = remaining.split(None, 1)
        word, after = parts[0], (parts[1] if len(parts) > 1 else "")
        key = word.strip("".join(c for c in word if not c.isalnum())).lower()
        if key in SKILLS:
            skill, arguments = SKILLS[key], after.strip()
            text = f'<skill-suggestion>The user typed the Ouroboros shortcut "ooo {key}". Use the skill /ouroboros:{skill}'
            text += f" with the arguments: {arguments}" if arguments else "."
            return text + "</skill-suggestion>"
        remaining = after.lstrip()
    return None


# What componentize-py exports as wasi:cli/run.
Run = hook.component(judge)

if __name__ == "__main__":
    hook.main(judge)
