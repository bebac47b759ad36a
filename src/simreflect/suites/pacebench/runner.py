"""`python -P -m simreflect.suites.pacebench.runner PROGRAM`: the sandbox side of a PACE-Bench evaluation.

The design program is PACE-Bench's: `build_agent(sandbox)` and, optionally, `agent_action(sandbox,
agent_body, step_count)`. Its `sandbox` is a proxy: every attribute read, call and assignment is
one message to the trusted process, which holds the real environment and decides (bridge.py).
Bodies, joints and the world are handles; vectors come back as values. JSON lines, one request on
stdin, one reply on stdout:

    {"op": "build"}              -> {"op": "built", "value": <components>, "action": bool}
    {"op": "act", "step": n}     -> {"op": "acted"}
    while either runs, any number of
                                    {"op": "call", "kind": "get"|"set"|"invoke", "h": id, "name": str, ...}
    answered by                  {"op": "ret", "value": v} or {"op": "raise", "type": str, "error": str}
    an exception in the program  -> {"op": "failed", "where": "load"|"build"|"act", "type": str, "error": str}

Anything else from the trusted side (a refusal ends the evaluation) makes the runner exit.
Names starting with `_` on a body or joint handle are the program's own scratch (kept here, never
sent; PACE-Bench's C_01 reference keeps its integrator state on the cart body); on the sandbox
they are asked for, and refused.
"""

from __future__ import annotations

import json
import math
import os
import sys
import types

MAX_REQUEST_BYTES = 8 << 20


class _Link:
    def __init__(self) -> None:
        self.requests = os.fdopen(os.dup(0), "rb")
        self.replies = os.fdopen(os.dup(1), "wb")
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)  # the program's prints go to the captured output, never on the reply channel

    def send(self, obj: dict) -> None:
        self.replies.write(json.dumps(obj, separators=(",", ":"), allow_nan=False).encode() + b"\n")
        self.replies.flush()

    def receive(self) -> dict:
        line = self.requests.readline(MAX_REQUEST_BYTES)
        if not line:
            raise SystemExit(0)
        msg = json.loads(line)
        if not isinstance(msg, dict):
            raise SystemExit(3)
        return msg

    def ask(self, call: dict):
        if call.get("kind") != "get":
            EPOCH[0] += 1
        self.send(call)
        msg = self.receive()
        op = msg.get("op")
        if op == "ret":
            return decode(msg.get("value"))
        if op == "raise":
            raise _exception(str(msg.get("type", "")), str(msg.get("error", "")))
        if op == "local" and call.get("kind") == "set":
            return _LOCAL
        raise SystemExit(3)  # the trusted side ended the evaluation (a refusal)


LINK: _Link | None = None
#: Bumped at every request of the trusted side and every call or assignment of the program: a
#: handle's snapshot (bridge.Encoder) answers reads only within the epoch it arrived in.
EPOCH = [0]
_FN = object()
_LOCAL = object()  # the trusted side's answer to an assignment of the program's own attribute
_BUILTIN_ERRORS = {"ValueError": ValueError, "TypeError": TypeError, "AttributeError": AttributeError,
                   "IndexError": IndexError, "KeyError": KeyError, "ZeroDivisionError": ZeroDivisionError,
                   "RuntimeError": RuntimeError, "AssertionError": AssertionError}


def _exception(kind: str, message: str) -> Exception:
    return _BUILTIN_ERRORS.get(kind, RuntimeError)(message)


class Vec:
    """A 2D vector read from the environment (a b2Vec2 as a value): x, y, indexing, arithmetic."""

    __slots__ = ("x", "y")

    def __init__(self, x: float = 0.0, y: float = 0.0) -> None:
        self.x, self.y = float(x), float(y)

    def __iter__(self):
        return iter((self.x, self.y))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i):
        return (self.x, self.y)[i]

    def __add__(self, o):
        ox, oy = o
        return Vec(self.x + ox, self.y + oy)

    __radd__ = __add__

    def __sub__(self, o):
        ox, oy = o
        return Vec(self.x - ox, self.y - oy)

    def __rsub__(self, o):
        ox, oy = o
        return Vec(ox - self.x, oy - self.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __truediv__(self, k):
        return Vec(self.x / k, self.y / k)

    def __neg__(self):
        return Vec(-self.x, -self.y)

    def __eq__(self, o):
        try:
            return tuple(self) == tuple(o)
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash((self.x, self.y))

    @property
    def length(self) -> float:
        return math.hypot(self.x, self.y)

    @property
    def lengthSquared(self) -> float:  # noqa: N802 - Box2D's name
        return self.x * self.x + self.y * self.y

    @property
    def tuple(self):
        return (self.x, self.y)

    def copy(self) -> "Vec":
        return Vec(self.x, self.y)

    def __repr__(self) -> str:
        return f"b2Vec2({self.x:g},{self.y:g})"


class Handle:
    """An object of the environment (the sandbox itself, a body, a joint, the world)."""

    __slots__ = ("_h", "_c", "_local", "_snap", "_epoch")
    _methods: dict[tuple[str, str], bool] = {}

    def __init__(self, h: int, c: str, snap: dict | None = None) -> None:
        object.__setattr__(self, "_h", h)
        object.__setattr__(self, "_c", c)
        object.__setattr__(self, "_local", {})
        object.__setattr__(self, "_snap", snap or {})
        object.__setattr__(self, "_epoch", EPOCH[0])

    def __getattr__(self, name: str):
        local = object.__getattribute__(self, "_local")
        if name in local:
            return local[name]
        if name.startswith("_") and self._h != 0:
            raise AttributeError(f"{self._c} has no attribute {name!r}")
        if self._epoch == EPOCH[0] and name in self._snap:
            return self._snap[name]
        h = self._h
        key = (self._c, name)
        if not Handle._methods.get(key):
            value = LINK.ask({"op": "call", "kind": "get", "h": h, "name": name})
            if value is not _FN:
                return value
            Handle._methods[key] = True

        def method(*args, **kwargs):
            return LINK.ask({"op": "call", "kind": "invoke", "h": h, "name": name,
                             "args": [encode(a) for a in args], "kwargs": {str(k): encode(v) for k, v in kwargs.items()}})

        method.__name__ = name
        return method

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_") and self._h != 0:
            self._local[name] = value
            return
        try:
            wire = encode(value)
        except (TypeError, ValueError):
            wire = {"$x": type(value).__name__}  # the trusted side judges the name first, then refuses the value
        if LINK.ask({"op": "call", "kind": "set", "h": self._h, "name": name, "value": wire}) is _LOCAL:
            self._local[name] = value  # the program's own attribute: it stays here

    def __eq__(self, other) -> bool:
        return isinstance(other, Handle) and other._h == self._h

    def __hash__(self) -> int:
        return hash(("handle", self._h))

    def __repr__(self) -> str:
        return f"<{self._c} #{self._h}>"


def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        if "$h" in v:
            snap = v.get("s")
            snap = {str(k): decode(x) for k, x in snap.items()} if isinstance(snap, dict) else None
            return Handle(int(v["$h"]), str(v.get("c", "object")), snap)
        if "$v" in v:
            return Vec(*v["$v"])
        if "$t" in v:
            return tuple(decode(x) for x in v["$t"])
        if "$d" in v:
            return {decode(k): decode(x) for k, x in v["$d"]}
        if "$f" in v:
            return float(v["$f"])
        if "$fn" in v:
            return _FN
        raise SystemExit(3)
    return v


def encode(v, depth: int = 0):
    if depth > 32:
        raise ValueError("a value passed to the environment is nested too deeply")
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"$f": repr(v)}
    if isinstance(v, Handle):
        return {"$h": v._h}
    if isinstance(v, Vec):
        return {"$v": [encode(v.x), encode(v.y)]}
    if isinstance(v, list):
        return [encode(x, depth + 1) for x in v]
    if isinstance(v, tuple):
        return {"$t": [encode(x, depth + 1) for x in v]}
    if isinstance(v, dict):
        return {"$d": [[encode(k, depth + 1), encode(x, depth + 1)] for k, x in v.items()]}
    x, y = getattr(v, "x", None), getattr(v, "y", None)
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):  # a b2Vec2 made by the program
        return {"$v": [encode(float(x)), encode(float(y))]}
    raise TypeError(f"a {type(v).__name__} cannot be passed to the environment")


def _load(path: str) -> types.ModuleType:
    with open(path, "rb") as f:
        source = f.read()
    module = types.ModuleType("solver_code")
    module.__file__ = path
    sys.modules["solver_code"] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _failed(where: str, e: BaseException) -> int:
    import traceback

    traceback.print_exc()
    sys.stderr.flush()
    LINK.send({"op": "failed", "where": where, "type": type(e).__name__, "error": f"{e}"[:2000]})
    return 1


def main(argv: list[str]) -> int:
    global LINK
    if len(argv) != 2:
        print("usage: python -m simreflect.suites.pacebench.runner PROGRAM", file=sys.stderr)
        return 2
    LINK = _Link()
    sandbox = Handle(0, "sandbox")
    components = None
    action = None
    while True:
        msg = LINK.receive()
        EPOCH[0] += 1
        op = msg.get("op")
        if op == "build":
            try:
                module = _load(argv[1])
            except BaseException as e:  # noqa: BLE001 - SystemExit of the program included
                return _failed("load", e)
            build = getattr(module, "build_agent", None)
            if not callable(build):
                LINK.send({"op": "failed", "where": "missing", "type": "", "error": "Code missing build_agent function"})
                return 1
            try:
                components = build(sandbox)
                value = encode(components)
            except BaseException as e:  # noqa: BLE001
                return _failed("build", e)
            action = getattr(module, "agent_action", None)
            LINK.send({"op": "built", "value": value, "action": callable(action)})
        elif op == "act":
            try:
                action(sandbox, components, int(msg.get("step", 0)))
            except BaseException as e:  # noqa: BLE001
                return _failed("act", e)
            LINK.send({"op": "acted"})
        else:
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
