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
"""

import json
import sys

__all__ = ["allow", "block", "add_context", "arguments", "read_event", "answer", "main", "component"]


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
    return event


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
