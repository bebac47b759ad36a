"""`python -P -m simreflect.suites.pace.runner PROGRAM`: the sandbox side of an evaluation.

Speaks JSON lines with the trusted simulator: one request on stdin, one reply on stdout.

    {"op": "build", "env": {...visible variables...}}
        -> {"ok": true, "design": {...}, "controller": true|false}
    {"op": "control", "sensors": {...}}           (tasks with a controller, every control step)
        -> {"ok": true, "cmd": {...}}
    {"op": "close"} or end of input                -> the runner exits

Any exception in the program is answered with {"ok": false, "where": ..., "error": ...} (the
traceback goes to stderr, the captured output) and the runner exits with status 1. The
program's own prints go to stderr too: fd 1 is pointed there before the program is loaded, the
reply channel is a private copy of the original stdout.
"""

from __future__ import annotations

import json
import os
import sys
import types

from simreflect.suites.pace.api import API

MAX_REQUEST_BYTES = 1 << 20


def _load(path: str) -> types.ModuleType:
    """The program as the module `design_program` (compiled under its own path, so tracebacks
    and `inspect` find its lines). Plain compile and exec: importlib.util and traceback cost the
    sandbox a few milliseconds of start-up on every evaluation."""
    with open(path, "rb") as f:
        source = f.read()
    module = types.ModuleType("design_program")
    module.__file__ = path
    sys.modules["design_program"] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m simreflect.suites.pace.runner PROGRAM", file=sys.stderr)
        return 2
    path = argv[1]
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # the program's prints land in the captured output, never on the reply channel

    def reply(obj) -> None:
        replies.write(json.dumps(obj, separators=(",", ":"), allow_nan=False).encode() + b"\n")
        replies.flush()

    def failed(where: str, e: BaseException) -> int:
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        reply({"ok": False, "where": where, "error": f"{type(e).__name__}: {e}"[:2000]})
        return 1

    control = None
    while True:
        line = requests.readline(MAX_REQUEST_BYTES)
        if not line:
            return 0
        msg = json.loads(line)
        op = msg.get("op")
        if op == "build":
            try:
                module = _load(path)
                build = getattr(module, "build", None)
                if not callable(build):
                    raise TypeError("the program defines no build(api) function")
                api = API(msg.get("env") or {})
                build(api)
                control = getattr(module, "control", None)
                design = api.to_dict()
                reply({"ok": True, "design": design, "controller": callable(control)})
            except BaseException as e:  # SystemExit and KeyboardInterrupt of the program included
                return failed("build", e)
        elif op == "control":
            try:
                if not callable(control):
                    raise TypeError("the program defines no control(sensors) function")
                cmd = control(msg.get("sensors") or {})
                reply({"ok": True, "cmd": cmd})
            except BaseException as e:
                return failed("control", e)
        else:
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
