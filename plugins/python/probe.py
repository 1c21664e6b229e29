"""probe: a test fixture for Python components (built by plugins/build.sh into
target/wasm/probe-py.wasm). Its first argument picks what it does:

- `sys-exit N`: `sys.exit(N)`, which componentize-py delivers as exit status 1;
- `exit-with-code N`: calls `wasi:cli/exit.exit-with-code(N)`, which delivers N;
- `connect HOST PORT`: opens a TCP connection, prints `connected` or `ERR: <error>`;
- `read PATH`: prints the file's text or `ERR: <error>` (relative paths read the project);
- `import-late`: imports `csv` inside the function, a module nothing imports at build
  time, so componentize-py did not bundle it: Python raises `ModuleNotFoundError`, the
  runtime prints the traceback on stderr and traps (the crash hookhost shows with it);
- `raise-after N`: writes N `x`s on stderr, then raises `RuntimeError` (a trap too).
"""

import socket
import sys

from wit_world import exports
from wit_world.imports import environment
from wit_world.imports import exit as wasi_exit


def probe(args):
    mode = args[0] if args else ""
    if mode == "sys-exit":
        print("reason from python", file=sys.stderr)
        sys.exit(int(args[1]))
    if mode == "exit-with-code":
        print("reason from python", file=sys.stderr)
        sys.stderr.flush()
        wasi_exit.exit_with_code(int(args[1]))
    if mode == "connect":
        try:
            socket.create_connection((args[1], int(args[2])), timeout=2).close()
            print("connected")
        except Exception as error:  # the point: an ordinary error the hook can handle
            print(f"ERR: {type(error).__name__}: {error}")
        return
    if mode == "read":
        try:
            with open(args[1]) as file:
                print(file.read(), end="")
        except Exception as error:
            print(f"ERR: {type(error).__name__}: {error}")
        return
    if mode == "import-late":
        import csv  # noqa: F401 (the point: not bundled, so it raises)

        print("imported csv")
        return
    if mode == "raise-after":
        print("x" * int(args[1]), file=sys.stderr)
        raise RuntimeError("raised on purpose")
    print(f"probe: unknown mode {mode!r}", file=sys.stderr)
    sys.exit(1)


class Run(exports.Run):
    def run(self) -> None:
        probe(list(environment.get_arguments()[1:]))
        sys.stdout.flush()
