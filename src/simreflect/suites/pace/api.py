"""The primitive API a design program uses: it only records declarations.

This module runs inside the sandbox (with `runner`, it is all of simreflect the program can
import). It knows nothing of Box2D and holds no simulator object: every call appends a plain
record to the design, which the runner sends to the trusted simulator as JSON. The simulator
validates the design against the task's build zone, budgets and limits, builds the bodies and
owns them; nothing a program does to this module reaches the evaluation except the design data.

Units: metres, kilograms, seconds, radians (counter-clockwise positive), newtons, newton-metres.
Positions are world coordinates (x to the right, y up).

    def build(api):
        deck = api.beam((0, 0), (4, 0), thickness=0.2, material="steel")
        api.pivot(deck, api.GROUND, (0, 0))
        ...

    def control(sensors):            # only for tasks with a controller
        return {"throttle": 0.5}
"""

from __future__ import annotations

import math
from types import MappingProxyType

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing costs every sandboxed start a few ms
    from typing import Any

GROUND = "ground"
PART_KINDS = ("beam", "block", "wheel")
JOINT_KINDS = ("rigid", "pivot")


class DesignError(ValueError):
    """A declaration the API refuses outright (wrong types, non-finite numbers, unknown parts)."""


def _num(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DesignError(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v):
        raise DesignError(f"{name} must be finite, got {v!r}")
    return v


def _point(name: str, value: Any) -> list[float]:
    try:
        x, y = value
    except (TypeError, ValueError):
        raise DesignError(f"{name} must be a pair (x, y), got {value!r}") from None
    return [_num(f"{name}[0]", x), _num(f"{name}[1]", y)]


class Part:
    """A handle on a declared part (beam, block or wheel). Only its id and declaration."""

    __slots__ = ("id", "kind", "spec")

    def __init__(self, id: str, kind: str, spec: dict[str, Any]):
        self.id = id
        self.kind = kind
        self.spec = spec

    def __repr__(self) -> str:
        return f"Part({self.id!r}, {self.kind})"


class Joint:
    """A handle on a declared joint or spring."""

    __slots__ = ("id", "kind")

    def __init__(self, id: str, kind: str):
        self.id = id
        self.kind = kind

    def __repr__(self) -> str:
        return f"Joint({self.id!r}, {self.kind})"


class API:
    """What `build(api)` receives. `api.env` holds the environment's visible variables (the same
    values the task prompt shows); hidden physics is never here."""

    GROUND = GROUND

    def __init__(self, env: dict[str, Any] | None = None):
        self.env = MappingProxyType(dict(env or {}))
        self._parts: list[dict[str, Any]] = []
        self._joints: list[dict[str, Any]] = []
        self._springs: list[dict[str, Any]] = []
        self._placements: dict[str, list[float]] = {}
        self._ids: set[str] = set()

    # --- parts

    def _new_id(self, prefix: str, count: int) -> str:
        return f"{prefix}{count + 1}"

    def _ref(self, name: str, value: Any) -> str:
        if isinstance(value, Part):
            return value.id
        if value == GROUND:
            return GROUND
        if isinstance(value, str) and value in self._ids:
            return value
        raise DesignError(f"{name} must be a part returned by this api or api.GROUND, got {value!r}")

    def _add_part(self, kind: str, spec: dict[str, Any]) -> Part:
        pid = self._new_id("p", len(self._parts))
        rec = {"id": pid, "kind": kind, **spec}
        self._parts.append(rec)
        self._ids.add(pid)
        return Part(pid, kind, dict(rec))

    def beam(self, start: Any, end: Any, thickness: float = 0.2, material: str = "steel") -> Part:
        """A straight bar from `start` to `end` (its centre line), `thickness` wide."""
        a, b = _point("start", start), _point("end", end)
        return self._add_part("beam", {"x1": a[0], "y1": a[1], "x2": b[0], "y2": b[1],
                                       "thickness": _num("thickness", thickness), "material": str(material)})

    def block(self, center: Any, width: float, height: float, angle: float = 0.0, material: str = "steel") -> Part:
        """A rectangle `width` x `height` centred at `center`, turned by `angle` radians."""
        c = _point("center", center)
        return self._add_part("block", {"x": c[0], "y": c[1], "width": _num("width", width),
                                        "height": _num("height", height), "angle": _num("angle", angle),
                                        "material": str(material)})

    def wheel(self, center: Any, radius: float, material: str = "rubber") -> Part:
        """A disc of `radius` centred at `center`."""
        c = _point("center", center)
        return self._add_part("wheel", {"x": c[0], "y": c[1], "radius": _num("radius", radius),
                                        "material": str(material)})

    # --- connections

    def rigid(self, a: Any, b: Any, anchor: Any) -> Joint:
        """Weld `a` to `b` at `anchor` (a point inside both): no relative motion; carries force
        and torque up to the task's rigid-joint strength."""
        jid = self._new_id("j", len(self._joints))
        pt = _point("anchor", anchor)
        self._joints.append({"id": jid, "kind": "rigid", "a": self._ref("a", a), "b": self._ref("b", b),
                             "x": pt[0], "y": pt[1], "motor_speed": None, "max_torque": None, "limits": None})
        return Joint(jid, "rigid")

    def pivot(self, a: Any, b: Any, anchor: Any, motor_speed: float | None = None, max_torque: float | None = None,
              limits: Any = None) -> Joint:
        """Pin `a` to `b` at `anchor`: free rotation, carries force up to the task's pivot strength.
        With `motor_speed` (rad/s of b relative to a, counter-clockwise positive) and `max_torque`
        (N m) the pivot is driven; `limits` = (lower, upper) radians bounds the relative angle,
        measured from the declared pose (so lower <= 0 <= upper)."""
        jid = self._new_id("j", len(self._joints))
        pt = _point("anchor", anchor)
        rec = {"id": jid, "kind": "pivot", "a": self._ref("a", a), "b": self._ref("b", b), "x": pt[0], "y": pt[1],
               "motor_speed": None, "max_torque": None, "limits": None}
        if motor_speed is not None or max_torque is not None:
            if motor_speed is None or max_torque is None:
                raise DesignError("a motor needs both motor_speed and max_torque")
            rec["motor_speed"] = _num("motor_speed", motor_speed)
            rec["max_torque"] = _num("max_torque", max_torque)
        if limits is not None:
            lo, hi = _point("limits", limits)
            rec["limits"] = [lo, hi]
        self._joints.append(rec)
        return Joint(jid, "pivot")

    def spring(self, a: Any, b: Any, anchor_a: Any, anchor_b: Any, stiffness: float = 1000.0, damping: float = 50.0,
               rest_length: float | None = None) -> Joint:
        """A spring-damper between `anchor_a` on `a` and `anchor_b` on `b` (either may be
        api.GROUND): `stiffness` in N/m, `damping` in N s/m, `rest_length` in m (default: the
        declared distance between the anchors, so it starts unloaded). The task bounds the rest
        length to a share of that distance, and the energy a pre-load stores to its budget."""
        sid = self._new_id("s", len(self._springs))
        pa, pb = _point("anchor_a", anchor_a), _point("anchor_b", anchor_b)
        rest = math.dist(pa, pb) if rest_length is None else _num("rest_length", rest_length)
        self._springs.append({"id": sid, "a": self._ref("a", a), "b": self._ref("b", b), "ax": pa[0], "ay": pa[1],
                              "bx": pb[0], "by": pb[1], "stiffness": _num("stiffness", stiffness),
                              "damping": _num("damping", damping), "rest_length": rest})
        return Joint(sid, "spring")

    def place(self, name: str, position: Any) -> None:
        """Put one of the task's own objects (named in the task's API notes) at `position`."""
        self._placements[str(name)] = _point("position", position)

    # --- the record

    def to_dict(self) -> dict[str, Any]:
        """The declared design as plain JSON data."""
        return {"parts": [dict(p) for p in self._parts], "joints": [dict(j) for j in self._joints],
                "springs": [dict(s) for s in self._springs],
                "placements": {k: list(v) for k, v in sorted(self._placements.items())}}
