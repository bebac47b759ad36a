"""`python -P -m simreflect.suites.pace.runner PROGRAM`: the sandbox side of an evaluation.

Speaks frames with the trusted simulator (suites/pace/wire.py): one request frame on stdin, one
reply frame on stdout. JSON frames:

    {"op": "build", "env": {...visible variables...}}
        -> {"ok": true, "design": {...}, "controller": true|false}
    {"op": "control", "sensors": {...}, "layout": {...}}   (tasks with a controller; layout optional)
        -> {"ok": true, "cmd": {...}}, or a C frame
    {"op": "close"} or end of input                -> the runner exits

and, once a layout was given, S frames (the sensors as float64s) answered like a control request:
with a C frame when the command has an exact binary form, else with the JSON reply.

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

from simreflect.suites.pace import wire
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


class _Frames:
    """Frames on two file descriptors: requests read whole (bounded), replies written whole."""

    def __init__(self, rfd: int, wfd: int):
        self.rfd, self.wfd = rfd, wfd
        self.buf = bytearray()

    def read(self) -> bytes | None:
        """The next request's payload, or None at the end of input (or anything not a frame)."""
        size = wire.HEADER.size
        if not self.buf:  # the usual case: one whole frame in one read
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                return None
            if len(chunk) >= size:
                magic, length = wire.HEADER.unpack_from(chunk)
                if len(chunk) == size + length and magic == wire.MAGIC and length <= MAX_REQUEST_BYTES:
                    return chunk[size:]
            self.buf += chunk
        while True:
            if len(self.buf) >= size:
                magic, length = wire.HEADER.unpack_from(self.buf)
                if magic != wire.MAGIC or length > MAX_REQUEST_BYTES:
                    return None
                if len(self.buf) >= size + length:
                    payload = bytes(self.buf[size:size + length])
                    del self.buf[:size + length]
                    return payload
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk

    def write(self, payload: bytes) -> None:
        data = wire.frame(payload)
        done = os.write(self.wfd, data)
        if done < len(data):
            view = memoryview(data)[done:]
            while view:
                view = view[os.write(self.wfd, view):]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m simreflect.suites.pace.runner PROGRAM", file=sys.stderr)
        return 2
    path = argv[1]
    frames = _Frames(os.dup(0), os.dup(1))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # the program's prints land in the captured output, never on the reply channel

    def reply(obj) -> None:
        frames.write(wire.json_payload(json.dumps(obj, separators=(",", ":"), allow_nan=False)))

    def failed(where: str, e: BaseException) -> int:
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        reply({"ok": False, "where": where, "error": f"{type(e).__name__}: {e}"[:2000]})
        return 1

    def send_command(cmd, layout: wire.Layout | None) -> None:
        """A command frame when the layout can carry `cmd` exactly, else the JSON reply."""
        binary = layout.encode_command(cmd) if layout is not None else None
        if binary is not None:
            frames.write(binary)
        else:
            reply({"ok": True, "cmd": cmd})

    control = None
    layout: wire.Layout | None = None
    while True:
        payload = frames.read()
        if not payload:
            return 0
        if payload[0] == wire.TAG_SENSORS and layout is not None:  # the hot path: readings in, a command out
            try:
                send_command(control(layout.decode_sensors(payload)), layout)
            except BaseException as e:
                return failed("control", e)
            continue
        if payload[0] == wire.TAG_JSON:
            msg = json.loads(payload[1:])
        else:
            return 0
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
            # a JSON control request sets the layout (none: JSON replies only)
            layout = wire.Layout.from_json(msg["layout"]) if "layout" in msg else None
            try:
                if not callable(control):
                    raise TypeError("the program defines no control(sensors) function")
                send_command(control(msg.get("sensors") or {}), layout)
            except BaseException as e:
                return failed("control", e)
        else:
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
