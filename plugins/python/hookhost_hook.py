"""hookhost_hook: the small helper a Python hook needs. Copy it beside your hook.

It works the same whether the hook runs as a native `python3` program or as a WASM
component built with componentize-py against hookhost's `wit/hook.wit`:

    import hookhost_hook as hook

    def judge(event):
        if event.get("tool_name") == "bash" and "rm -rf /" in event["tool_input"].get("command", ""):
            return hook.block("not on this machine")
        return hook.allow()

    Run = hook.component(judge)          # the export componentize-py looks for
    if __name__ == "__main__":
        hook.main(judge)                 # the same hook as a native program

A judge takes the event (the one line of JSON hookhost sends on stdin, as a dict) and
returns one of `allow()`, `block(reason)` or `add_context(text)`. The answer is JSON
on stdout and exit status 0, so it never depends on exit code 2, which many WASM
toolchains cannot deliver. A judge that raises is a hook failure (exit status 1, the
error on stderr); what then happens is the hook's `on_failure` in hookhost's config.

The event is always in hookhost's vocabulary (`canonical`): a hook run with Claude
Code's input (`envelope = "claude-code"`, or an argv hook behind `hookhost bridge`)
reads `bash`, `write_file` and a project-relative `tool_input["path"]` exactly as one
run with the spec's envelope does, so a judge is written once for every front end.
"""

import json
import sys

__all__ = ["allow", "block", "add_context", "arguments", "read_event", "canonical", "answer", "main", "component"]

# Claude Code's tool names -> hookhost's (hookhost's src/call.rs, HOOKHOST_NAMES;
# docs/envelopes.md). Every `mcp__server__tool` is `mcp`.
HOOKHOST_NAMES = {
    "Bash": "bash",
    "PowerShell": "bash",
    "Read": "read_file",
    "Write": "write_file",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "NotebookEdit": "edit_file",
    "apply_patch": "edit_file",
    "Glob": "glob",
    "Grep": "search",
    "Agent": "agent",
    "Task": "agent",
    "Skill": "skill",
    "Monitor": "bash",
}
FILE_TOOLS = ("read_file", "write_file", "edit_file")


class Answer:
    """What a hook says: nothing (allow), a block with a reason, or prompt context."""

    def __init__(self, payload):
        self.payload = payload

    def text(self):
        """The answer as the one line hookhost reads on stdout ("" for allow)."""
        return "" if self.payload is None else json.dumps(self.payload)


def allow():
    """No objection: the call goes on (an empty stdout)."""
    return Answer(None)


def block(reason):
    """Blocks the tool call (PreToolUse) or the prompt (UserPromptSubmit)."""
    return Answer({"decision": "block", "reason": str(reason)})


def add_context(text, event="UserPromptSubmit"):
    """Adds `text` beside the user's prompt (UserPromptSubmit only)."""
    return Answer({"hookSpecificOutput": {"hookEventName": event, "additionalContext": str(text)}})


def arguments():
    """The hook's arguments: its `command[1:]` in hookhost's config."""
    try:  # inside a component, from wasi:cli/environment
        from wit_world.imports import environment

        return list(environment.get_arguments()[1:])
    except ImportError:  # a native program
        return sys.argv[1:]


def read_event():
    """The event hookhost sent: one line of JSON on stdin, as a dict."""
    line = sys.stdin.readline()
    try:
        event = json.loads(line)
    except ValueError as error:
        raise ValueError(f"stdin is not a JSON hook event: {error}") from None
    if not isinstance(event, dict):
        raise ValueError("stdin is not a JSON hook event: not an object")
    return canonical(event)


def canonical(event):
    """The event in hookhost's vocabulary, whichever shape it came in: Claude Code's tool
    names become hookhost's (`Bash` -> `bash`, `Write` -> `write_file`, `mcp__s__t` ->
    `mcp` with `{"server", "tool", "arguments"}`), a file tool's `file_path` becomes
    `path`, made relative to the event's `cwd` when it lies inside it. The name the hook
    was given is kept as `event["given_tool_name"]` when it changed. A spec envelope is
    returned as it is."""
    tool = event.get("tool_name")
    tool_input = event.get("tool_input")
    if not isinstance(tool, str):
        return event
    name = "mcp" if tool.startswith("mcp__") else HOOKHOST_NAMES.get(tool)
    if name is None:
        return event
    event = dict(event)
    event["tool_name"] = name
    event["given_tool_name"] = tool
    if name == "mcp":
        server, _, rest = tool[len("mcp__"):].partition("__")
        event["tool_input"] = {"server": server, "tool": rest, "arguments": tool_input}
    elif name in FILE_TOOLS and isinstance(tool_input, dict) and "path" not in tool_input:
        tool_input = dict(tool_input)
        if isinstance(tool_input.get("file_path"), str):
            tool_input["path"] = relative_to(tool_input.pop("file_path"), event.get("cwd"))
        event["tool_input"] = tool_input
    return event


def relative_to(path, cwd):
    """An absolute `path` relative to `cwd` when it lies below it (`..` resolved first, so
    `/p/../p/.env` is `.env`), else `path` unchanged."""
    if not isinstance(cwd, str) or not cwd.startswith("/") or not path.startswith("/"):
        return path
    path, root = lexical(path), lexical(cwd)
    if root != "/" and path.startswith(root + "/"):
        return path[len(root) + 1:]
    return path


def lexical(path):
    """An absolute path with empty, `.` and `..` segments resolved."""
    segments = []
    for segment in path.split("/"):
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in ("", "."):
            segments.append(segment)
    return "/" + "/".join(segments)


def answer(judge):
    """Reads the event, asks `judge`, writes its answer. Returns the exit status."""
    try:
        result = judge(read_event())
        if not isinstance(result, Answer):
            raise TypeError(f"the judge returned {result!r}, not allow(), block() or add_context()")
    except Exception as error:  # a hook failure, reported as one
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        sys.stderr.flush()
        return 1
    text = result.text()
    if text:
        print(text)
    sys.stdout.flush()
    return 0


def main(judge):
    """Runs `judge` as a native program (`python3 hook.py …`)."""
    sys.exit(answer(judge))


def component(judge):
    """The `Run` class componentize-py exports (`wasi:cli/run`) for `judge`; None when
    the hook runs as a native program (there is no `wit_world` then)."""
    try:
        from wit_world import exports
        from componentize_py_types import Err
    except ImportError:
        return None

    class Run(exports.Run):
        def run(self) -> None:
            if answer(judge) != 0:
                raise Err(None)  # run returns err: exit status 1, a hook failure

    return Run
