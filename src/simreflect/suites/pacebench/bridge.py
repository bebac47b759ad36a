"""The trusted end of the proxy: the real PACE-Bench environment answers the program's calls.

Every message from the program is hostile data. The session reads it with core.untrusted (one
JSON line, bounded bytes, depth, items, strings; no NaN); here each message must be one of the
runner's forms, names are short identifiers, handles are ids this side issued, every call is
judged by the task's Policy, and a turn (the build, or one step's action) makes at most
MAX_CALLS_PER_TURN calls. A refused call raises Refused: the evaluation ends there, whatever the
program would have done with an exception, and the refusal is the verdict.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

from simreflect.suites.pacebench.policy import Policy

MAX_CALLS_PER_TURN = 20_000
MAX_HANDLES = 200_000
MAX_VALUE_ITEMS = 50_000
MAX_DEPTH = 16
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,79}\Z")
_SCALARS = (type(None), bool, int, str)


class Refused(Exception):
    """The program asked for something the proxy does not allow (or broke the protocol)."""


class ProgramFailed(Exception):
    """The program raised (or had no build_agent): `where` is load, build, act or missing."""

    def __init__(self, where: str, kind: str, message: str):
        super().__init__(message)
        self.where, self.kind = where, kind


class Handles:
    """The environment's objects the program holds, by id (0 is the environment itself)."""

    def __init__(self, environment: Any) -> None:
        self.objects: list[Any] = [environment]
        self._ids: dict[Any, int] = {}

    def issue(self, obj: Any) -> int:
        try:
            key: Any = (type(obj), hash(obj))
        except TypeError:
            key = ("id", id(obj))
        found = self._ids.get(key)
        if found is not None and (self.objects[found] is obj or self.objects[found] == obj):
            return found
        if len(self.objects) >= MAX_HANDLES:
            raise Refused(f"the program holds more than {MAX_HANDLES} environment objects")
        self.objects.append(obj)
        self._ids[key] = len(self.objects) - 1
        return len(self.objects) - 1

    def get(self, h: Any) -> Any:
        if type(h) is not int or not 0 <= h < len(self.objects):
            raise Refused(f"protocol: {h!r} is not a handle this environment issued")
        return self.objects[h]


def _has_attribute(obj: Any, name: str) -> bool:
    """Whether the object has `name`, judged without running any of its code (no getter, no __getattr__)."""
    return hasattr(type(obj), name) or name in getattr(obj, "__dict__", {})


def _is_vec(obj: Any) -> bool:
    return type(obj).__name__ == "b2Vec2"


class Encoder:
    """Environment values to the wire: scalars as they are, vectors as values, objects as handles.

    A handle carries a snapshot of its readable attributes (those of `reads` the object has, with a
    scalar or vector value): the world does not move while the program's turn lasts, so the runner
    answers those reads itself until the turn ends or the program calls or assigns anything (then
    it asks again). One snapshot instead of one message per read: a controller that walks a few
    hundred particles every step costs one message, not a thousand."""

    def __init__(self, handles: Handles, reads: frozenset[str] = frozenset()) -> None:
        self.handles = handles
        self.reads = reads
        self.items = 0

    def __call__(self, v: Any, depth: int = 0) -> Any:
        self.items += 1
        if self.items > MAX_VALUE_ITEMS or depth > MAX_DEPTH:
            raise Refused(f"a value of the environment is too large to hand to the program (> {MAX_VALUE_ITEMS} "
                          f"items or {MAX_DEPTH} levels)")
        if isinstance(v, _SCALARS):
            return v if not isinstance(v, str) else v[:10_000]
        if isinstance(v, float):
            return v if math.isfinite(v) else {"$f": repr(v)}
        if _is_vec(v):
            return {"$v": [self(float(v[0]), depth + 1), self(float(v[1]), depth + 1)]}
        if isinstance(v, list):
            return [self(x, depth + 1) for x in v]
        if isinstance(v, tuple):
            return {"$t": [self(x, depth + 1) for x in v]}
        if isinstance(v, dict):
            return {"$d": [[self(k, depth + 1), self(x, depth + 1)] for k, x in v.items()]}
        if isinstance(v, (set, frozenset)):
            return [self(x, depth + 1) for x in v]
        if hasattr(v, "__float__") and type(v).__module__ == "numpy":
            return self(float(v), depth)
        h = self.handles.issue(v)
        out: dict[str, Any] = {"$h": h, "c": type(v).__name__[:40]}
        if h != 0 and self.reads:
            out["s"] = self._snapshot(v, depth)
        return out

    def _snapshot(self, obj: Any, depth: int) -> dict[str, Any]:
        snap: dict[str, Any] = {}
        for name in sorted(self.reads):
            try:
                value = getattr(obj, name)
            except Exception:  # noqa: BLE001 - not readable: a live read will say why
                continue
            if isinstance(value, (bool, int, float, str)) or _is_vec(value):
                snap[name] = self(value, depth + 1)
        return snap


def decode(v: Any, handles: Handles, depth: int = 0) -> Any:
    """A value of the program (already a bounded JSON value) to what the environment takes."""
    if depth > MAX_DEPTH:
        raise Refused("protocol: a value of the program is nested too deeply")
    if isinstance(v, _SCALARS) or isinstance(v, float):
        return v
    if isinstance(v, list):
        return [decode(x, handles, depth + 1) for x in v]
    if isinstance(v, dict) and len(v) == 1:
        (tag, x), = v.items()
        if tag == "$h":
            return handles.get(x)
        if tag == "$v" and isinstance(x, list) and len(x) == 2:
            from Box2D import b2Vec2

            a, b = (decode(e, handles, depth + 1) for e in x)
            if not all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in (a, b)):
                raise Refused("protocol: a vector of the program is not two numbers")
            return b2Vec2(float(a), float(b))
        if tag == "$t" and isinstance(x, list):
            return tuple(decode(e, handles, depth + 1) for e in x)
        if tag == "$d" and isinstance(x, list):
            out = {}
            for pair in x:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise Refused("protocol: a mapping of the program is malformed")
                key = decode(pair[0], handles, depth + 1)
                try:
                    out[key] = decode(pair[1], handles, depth + 1)
                except TypeError:
                    raise Refused("protocol: a mapping key of the program is not hashable") from None
            return out
        if tag == "$f" and x in ("nan", "inf", "-inf"):
            return float(x)
    raise Refused(f"protocol: {str(v)[:80]!r} is not a value the runner sends")


class Bridge:
    """Serves one program session against one live environment under a Policy."""

    def __init__(self, request: Callable[[dict, float], Any], environment: Any, policy: Policy,
                 timeout_s: float) -> None:
        self.request = request
        self.handles = Handles(environment)
        self.policy = policy
        self.timeout_s = timeout_s
        self.calls = 0

    def turn(self, msg: dict, done: str) -> dict:
        """Send `msg` and serve the program's calls until it answers `done` (returned)."""
        for _ in range(MAX_CALLS_PER_TURN + 1):
            reply = self.request(msg, self.timeout_s)
            op = reply.get("op") if isinstance(reply, dict) else None
            if op == done:
                return reply
            if op == "failed":
                raise ProgramFailed(str(reply.get("where", ""))[:20], str(reply.get("type", ""))[:80],
                                    str(reply.get("error", ""))[:2000])
            if op != "call":
                raise Refused(f"protocol: the program answered {str(reply)[:80]!r} instead of {done!r} or a call")
            msg = self.serve(reply)
        raise Refused(f"the program made more than {MAX_CALLS_PER_TURN} environment calls in one "
                      f"{'build' if done == 'built' else 'step'}")

    def _encode(self, value: Any) -> Any:
        return Encoder(self.handles, self.policy.reads)(value)

    def serve(self, call: dict) -> dict:
        kind, name, h = call.get("kind"), call.get("name"), call.get("h")
        if kind not in ("get", "set", "invoke") or not isinstance(name, str) or not _NAME.match(name):
            raise Refused(f"protocol: {str(call)[:80]!r} is not a call the runner makes")
        obj = self.handles.get(h)
        why = self.policy.refusal(h == 0, kind, name)
        if why and h != 0 and kind in ("get", "set") and not _has_attribute(obj, name):
            # A name the object does not have is the program's own: PACE-Bench's in-process designs
            # keep controller state on a body (C_03's Stage-4 reference sets `agent_body.s4`). It is
            # kept in the sandbox and never reaches the environment; reading it first is the
            # AttributeError the real object would raise.
            if kind == "set":
                return {"op": "local"}
            return {"op": "raise", "type": "AttributeError",
                    "error": f"'{type(obj).__name__}' object has no attribute '{name}'"}
        if why:
            raise Refused(why)
        self.calls += 1
        try:
            if kind == "set":
                setattr(obj, name, decode(call.get("value"), self.handles))
                return {"op": "ret", "value": None}
            value = getattr(obj, name)
            if kind == "get":
                if callable(value) and not _is_vec(value) and not isinstance(value, type):
                    return {"op": "ret", "value": {"$fn": 1}}
                return {"op": "ret", "value": self._encode(value)}
            args, kwargs = call.get("args", []), call.get("kwargs", {})
            if not isinstance(args, list) or not isinstance(kwargs, dict) or len(args) + len(kwargs) > 64:
                raise Refused("protocol: a call's arguments are malformed")
            if not callable(value) or not all(isinstance(k, str) and _NAME.match(k) for k in kwargs):
                raise Refused(f"protocol: .{name} cannot be called with these arguments")
            result = value(*decode(args, self.handles), **{k: decode(x, self.handles) for k, x in kwargs.items()})
            return {"op": "ret", "value": self._encode(result)}
        except Refused:
            raise
        except Exception as e:  # noqa: BLE001 - the environment's own error, handed to the program as PACE-Bench would
            return {"op": "raise", "type": type(e).__name__, "error": str(e)[:2000]}
