"""The declared design: its schema (trusted parse of the program's JSON) and its validation.

`parse_design(data)` turns the data a program sent into a `Design` or raises `DesignInvalid`
(wrong shapes, unknown kinds, non-finite numbers or any beyond MAX_ABS_NUMBER, parts larger than
MAX_PART_SIZE, dangling references, more than the engine cap of parts): such a design is not
simulated at all. `check_design(design, rules)` then measures it
against the task's rules in the current environment and returns the three design constraints
every task has: build_zone, mass_budget and design_rules (counts, sizes, materials, primitives,
motor and spring ranges, anchors on their parts). A design that breaks them is still simulated
(motors clamped to their limits), so its feedback shows what it did, but it cannot succeed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from simreflect.suites.pace.bounds import bound_problems
from simreflect.core.untrusted import finite_float
from simreflect.suites.pace.scoring import Constraint

GROUND = "ground"
PART_KINDS = ("beam", "block", "wheel")
JOINT_KINDS = ("rigid", "pivot")
#: Above these counts a design is not simulated at all (whatever the task allows).
ENGINE_CAP = {"parts": 400, "joints": 800, "springs": 200, "placements": 16}
#: Largest magnitude of any number in a design (m, kg, rad/s, N m, N/m): finite, and no larger.
MAX_ABS_NUMBER = 1e6
#: Largest size (m) of a part the simulator takes (a task allows at most about 10 m): the checks of
#: a part cost time in proportion to its size (a 1e6 m wheel took 96 s of zone sampling).
MAX_PART_SIZE = 100.0
#: Tolerance (m) for anchors on parts and parts on zone borders.
TOLERANCE = 0.05
_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,40}$")


@dataclass(frozen=True)
class Material:
    name: str
    density: float  # kg per m^2 (2D)
    friction: float
    restitution: float
    colour: tuple[int, int, int]


#: The materials every task draws from (a task allows a subset).
MATERIALS: dict[str, Material] = {
    "steel": Material("steel", 500.0, 0.5, 0.05, (96, 110, 130)),
    "wood": Material("wood", 180.0, 0.6, 0.1, (166, 120, 70)),
    "rubber": Material("rubber", 60.0, 1.0, 0.3, (45, 45, 45)),
    "foam": Material("foam", 40.0, 0.8, 0.0, (220, 200, 120)),
    "concrete": Material("concrete", 800.0, 0.7, 0.02, (150, 150, 145)),
}


class DesignInvalid(ValueError):
    """A design that cannot be read or simulated at all."""


@dataclass(frozen=True)
class PartSpec:
    id: str
    kind: str
    material: str
    x: float  # centre
    y: float
    angle: float
    width: float = 0.0  # beam: length; block: width
    height: float = 0.0  # beam: thickness; block: height
    radius: float = 0.0  # wheel

    @property
    def area(self) -> float:
        return math.pi * self.radius ** 2 if self.kind == "wheel" else self.width * self.height

    @property
    def mass(self) -> float:
        return self.area * MATERIALS[self.material].density if self.material in MATERIALS else 0.0

    def outline(self, segments: int = 16) -> list[tuple[float, float]]:
        """Vertices of the part in world coordinates (a wheel as a polygon of `segments`)."""
        if self.kind == "wheel":
            return [(self.x + self.radius * math.cos(2 * math.pi * k / segments),
                     self.y + self.radius * math.sin(2 * math.pi * k / segments)) for k in range(segments)]
        c, s = math.cos(self.angle), math.sin(self.angle)
        hw, hh = self.width / 2, self.height / 2
        return [(self.x + c * dx - s * dy, self.y + s * dx + c * dy)
                for dx, dy in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))]

    def distance_to(self, px: float, py: float) -> float:
        """Distance from a point to the part (0 inside)."""
        if self.kind == "wheel":
            return max(0.0, math.hypot(px - self.x, py - self.y) - self.radius)
        c, s = math.cos(self.angle), math.sin(self.angle)
        dx, dy = px - self.x, py - self.y
        lx, ly = c * dx + s * dy, -s * dx + c * dy
        ox, oy = max(0.0, abs(lx) - self.width / 2), max(0.0, abs(ly) - self.height / 2)
        return math.hypot(ox, oy)

    def contains(self, px: float, py: float, margin: float = 1e-6) -> bool:
        """Strictly inside (by more than `margin`)."""
        if self.kind == "wheel":
            return math.hypot(px - self.x, py - self.y) < self.radius - margin
        c, s = math.cos(self.angle), math.sin(self.angle)
        dx, dy = px - self.x, py - self.y
        lx, ly = c * dx + s * dy, -s * dx + c * dy
        return abs(lx) < self.width / 2 - margin and abs(ly) < self.height / 2 - margin

    def perimeter_samples(self, spacing: float = 0.2) -> list[tuple[float, float]]:
        if self.kind == "wheel":
            n = max(16, int(2 * math.pi * self.radius / spacing) + 1)
            return self.outline(n)
        pts = self.outline()
        out: list[tuple[float, float]] = []
        for i in range(4):
            (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % 4]
            n = max(1, int(math.hypot(x1 - x0, y1 - y0) / spacing) + 1)
            out += [(x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n) for k in range(n)]
        return out

    def describe(self) -> str:
        if self.kind == "wheel":
            return f"wheel r={self.radius:.2f} m ({self.material})"
        if self.kind == "beam":
            return f"beam {self.width:.2f} m x {self.height:.2f} m ({self.material})"
        return f"block {self.width:.2f} x {self.height:.2f} m ({self.material})"


@dataclass(frozen=True)
class JointSpec:
    id: str
    kind: str
    a: str
    b: str
    x: float
    y: float
    motor_speed: float | None = None
    max_torque: float | None = None
    limits: tuple[float, float] | None = None


@dataclass(frozen=True)
class SpringSpec:
    id: str
    a: str
    b: str
    ax: float
    ay: float
    bx: float
    by: float
    stiffness: float  # N/m
    damping: float  # N s/m
    rest_length: float


@dataclass(frozen=True)
class Design:
    parts: tuple[PartSpec, ...] = ()
    joints: tuple[JointSpec, ...] = ()
    springs: tuple[SpringSpec, ...] = ()
    placements: tuple[tuple[str, float, float], ...] = ()

    @property
    def mass(self) -> float:
        return sum(p.mass for p in self.parts)

    def part(self, pid: str) -> PartSpec:
        for p in self.parts:
            if p.id == pid:
                return p
        raise KeyError(pid)

    def placement(self, name: str) -> tuple[float, float] | None:
        for n, x, y in self.placements:
            if n == name:
                return (x, y)
        return None


# ----- parsing -------------------------------------------------------------------------------------

def _num(where: str, d: dict, key: str, optional: bool = False) -> float | None:
    if key not in d or d[key] is None:
        if optional:
            return None
        raise DesignInvalid(f"{where}: missing {key!r}")
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DesignInvalid(f"{where}: {key} must be a number, got {type(v).__name__}")
    number = finite_float(v, MAX_ABS_NUMBER)
    if number is None:
        shown = repr(float(v)) if isinstance(v, float) or finite_float(v) is not None else "an integer beyond any float"
        raise DesignInvalid(f"{where}: {key} = {shown} is not a finite number of sensible size")
    return number


def _str(where: str, d: dict, key: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or not v or len(v) > 40:
        raise DesignInvalid(f"{where}: {key} must be a short string, got {v!r}"[:200])
    return v


def _list(data: dict, key: str) -> list:
    v = data.get(key, [])
    if not isinstance(v, list):
        raise DesignInvalid(f"design.{key} must be a list")
    if len(v) > ENGINE_CAP[key]:
        raise DesignInvalid(f"design has {len(v)} {key}; the simulator takes at most {ENGINE_CAP[key]}")
    for i, item in enumerate(v):
        if not isinstance(item, dict):
            raise DesignInvalid(f"design.{key}[{i}] must be an object")
    return v


def _not_too_large(where: str, pid: str, *sizes: float) -> None:
    if max(sizes) > MAX_PART_SIZE:
        raise DesignInvalid(f"{where} ({pid}): the simulator takes parts of at most {MAX_PART_SIZE:g} m, "
                            f"not {max(sizes):.4g} m")


def parse_design(data: Any) -> Design:
    """The design a program declared, read as untrusted data (see the module docstring)."""
    if not isinstance(data, dict):
        raise DesignInvalid("the design must be a JSON object")
    parts: list[PartSpec] = []
    ids: set[str] = set()
    for i, d in enumerate(_list(data, "parts")):
        where = f"part {i + 1}"
        pid = _str(where, d, "id")
        if not _ID.match(pid) or pid in ids or pid == GROUND:
            raise DesignInvalid(f"{where}: id {pid!r} is not a fresh identifier")
        ids.add(pid)
        kind = _str(where, d, "kind")
        material = _str(where, d, "material")
        if kind == "beam":
            x1, y1, x2, y2 = (_num(where, d, k) for k in ("x1", "y1", "x2", "y2"))
            length = math.hypot(x2 - x1, y2 - y1)
            thick = _num(where, d, "thickness")
            if length <= 1e-3 or thick <= 1e-3:
                raise DesignInvalid(f"{where} ({pid}): a beam needs a length and a thickness above 1 mm")
            _not_too_large(where, pid, length, thick)
            parts.append(PartSpec(pid, kind, material, (x1 + x2) / 2, (y1 + y2) / 2, math.atan2(y2 - y1, x2 - x1),
                                  width=length, height=thick))
        elif kind == "block":
            w, h = _num(where, d, "width"), _num(where, d, "height")
            if w <= 1e-3 or h <= 1e-3:
                raise DesignInvalid(f"{where} ({pid}): a block needs a width and a height above 1 mm")
            _not_too_large(where, pid, w, h)
            parts.append(PartSpec(pid, kind, material, _num(where, d, "x"), _num(where, d, "y"),
                                  _num(where, d, "angle", optional=True) or 0.0, width=w, height=h))
        elif kind == "wheel":
            r = _num(where, d, "radius")
            if r <= 1e-3:
                raise DesignInvalid(f"{where} ({pid}): a wheel needs a radius above 1 mm")
            _not_too_large(where, pid, 2 * r)
            parts.append(PartSpec(pid, kind, material, _num(where, d, "x"), _num(where, d, "y"), 0.0, radius=r))
        else:
            raise DesignInvalid(f"{where}: unknown part kind {kind!r} (kinds: {', '.join(PART_KINDS)})")
    known = ids | {GROUND}
    joints: list[JointSpec] = []
    jids: set[str] = set()
    for i, d in enumerate(_list(data, "joints")):
        where = f"joint {i + 1}"
        jid = _str(where, d, "id")
        if not _ID.match(jid) or jid in jids or jid in ids:
            raise DesignInvalid(f"{where}: id {jid!r} is not a fresh identifier")
        jids.add(jid)
        kind = _str(where, d, "kind")
        if kind not in JOINT_KINDS:
            raise DesignInvalid(f"{where}: unknown joint kind {kind!r} (kinds: {', '.join(JOINT_KINDS)})")
        a, b = _str(where, d, "a"), _str(where, d, "b")
        if a not in known or b not in known:
            raise DesignInvalid(f"{where} ({jid}): joins {a!r} and {b!r}, which are not declared parts")
        if a == b:
            raise DesignInvalid(f"{where} ({jid}): joins {a!r} to itself")
        speed = _num(where, d, "motor_speed", optional=True)
        torque = _num(where, d, "max_torque", optional=True)
        if (speed is None) != (torque is None):
            raise DesignInvalid(f"{where} ({jid}): a motor needs both motor_speed and max_torque")
        if torque is not None and torque < 0:
            raise DesignInvalid(f"{where} ({jid}): max_torque must not be negative")
        if kind == "rigid" and (speed is not None or d.get("limits") is not None):
            raise DesignInvalid(f"{where} ({jid}): a rigid joint has no motor and no limits")
        limits = None
        if d.get("limits") is not None:
            lim = d["limits"]
            if not isinstance(lim, list) or len(lim) != 2:
                raise DesignInvalid(f"{where} ({jid}): limits must be [lower, upper]")
            lo, hi = _num(where, {"l": lim[0]}, "l"), _num(where, {"u": lim[1]}, "u")
            if not lo < hi:
                raise DesignInvalid(f"{where} ({jid}): limits need lower < upper")
            limits = (lo, hi)
        joints.append(JointSpec(jid, kind, a, b, _num(where, d, "x"), _num(where, d, "y"), speed, torque, limits))
    springs: list[SpringSpec] = []
    for i, d in enumerate(_list(data, "springs")):
        where = f"spring {i + 1}"
        sid = _str(where, d, "id")
        if not _ID.match(sid) or sid in jids or sid in ids:
            raise DesignInvalid(f"{where}: id {sid!r} is not a fresh identifier")
        jids.add(sid)
        a, b = _str(where, d, "a"), _str(where, d, "b")
        if a not in known or b not in known or a == b:
            raise DesignInvalid(f"{where} ({sid}): joins {a!r} and {b!r}; it needs two different declared parts")
        vals = {k: _num(where, d, k) for k in ("ax", "ay", "bx", "by", "stiffness", "damping", "rest_length")}
        if vals["stiffness"] <= 0 or vals["damping"] < 0 or vals["rest_length"] < 0:
            raise DesignInvalid(f"{where} ({sid}): stiffness must be positive, damping and rest_length not negative")
        springs.append(SpringSpec(sid, a, b, **vals))
    placements: list[tuple[str, float, float]] = []
    raw = data.get("placements", {})
    if not isinstance(raw, dict) or len(raw) > ENGINE_CAP["placements"]:
        raise DesignInvalid("design.placements must be a small object {name: [x, y]}")
    for name in sorted(raw):
        v = raw[name]
        if not isinstance(name, str) or not _ID.match(name) or not isinstance(v, list) or len(v) != 2:
            raise DesignInvalid(f"placement {name!r}: must be a name and [x, y]"[:200])
        placements.append((name, _num(f"placement {name}", {"x": v[0]}, "x"), _num(f"placement {name}", {"y": v[1]}, "y")))
    return Design(tuple(parts), tuple(joints), tuple(springs), tuple(placements))


# ----- the rules of a task in an environment ------------------------------------------------------

Polygon = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class DesignRules:
    """What a task allows in one environment. Zones are lists of simple polygons (their union)."""

    primitives: tuple[str, ...] = ("beam", "block", "wheel", "rigid", "pivot", "motor", "limits", "spring")
    materials: tuple[str, ...] = tuple(MATERIALS)
    max_parts: int = 40
    max_joints: int = 80
    max_springs: int = 0
    beam_length: tuple[float, float] = (0.2, 8.0)
    beam_thickness: tuple[float, float] = (0.05, 1.0)
    block_size: tuple[float, float] = (0.1, 4.0)
    wheel_radius: tuple[float, float] = (0.1, 2.0)
    max_motor_speed: float = 0.0
    max_motor_torque: float = 0.0
    spring_stiffness: tuple[float, float] = (10.0, 1.0e6)  # N/m
    spring_damping: tuple[float, float] = (0.0, 1.0e5)  # N s/m
    spring_preload: float = 0.25  # a rest length within the declared anchor distance x (1 +- this)
    spring_energy: float = 0.0  # J all springs may hold at declaration (bounds.py)
    mass_budget: float = math.inf
    build_zone: tuple[Polygon, ...] = ()
    anchor_zones: tuple[Polygon, ...] = ()
    placement_zones: dict[str, tuple[Polygon, ...]] = field(default_factory=dict)


def point_in_polygon(x: float, y: float, poly: Polygon, tol: float = TOLERANCE) -> bool:
    """Inside or within `tol` of the border of a simple polygon."""
    inside = False
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[i - 1]
        if (y0 > y) != (y1 > y) and x0 + (y - y0) * (x1 - x0) / (y1 - y0) > x:
            inside = not inside
    if inside:
        return True
    return any(_segment_distance(x, y, *poly[i], *poly[i - 1]) <= tol for i in range(n))


def _segment_distance(px: float, py: float, x0: float, y0: float, x1: float, y1: float) -> float:
    dx, dy = x1 - x0, y1 - y0
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((px - x0) * dx + (py - y0) * dy) / L2))
    return math.hypot(px - (x0 + t * dx), py - (y0 + t * dy))


def in_zone(x: float, y: float, zone: tuple[Polygon, ...], tol: float = TOLERANCE) -> bool:
    return any(point_in_polygon(x, y, poly, tol) for poly in zone)


def part_in_zone(part: PartSpec, zone: tuple[Polygon, ...]) -> bool:
    """Every sampled border point of the part in the zone, and no corner of the zone inside it."""
    if not zone:
        return False
    if not all(in_zone(x, y, zone) for x, y in part.perimeter_samples()):
        return False
    return not any(part.contains(x, y, margin=TOLERANCE) for poly in zone for x, y in poly)


def _bounds_text(lo: float, hi: float, unit: str) -> str:
    return f"{lo:g}-{hi:g} {unit}"


def check_design(design: Design, rules: DesignRules, world_problems: Sequence[str] = ()
                 ) -> tuple[list[Constraint], dict[str, Any]]:
    """The three design constraints and a summary of the design (mass, counts, problems).
    `world_problems` are rule problems only the built world shows (parts declared inside it)."""
    zone_problems: list[str] = []
    rule_problems: list[str] = []
    for p in design.parts:
        if not part_in_zone(p, rules.build_zone):
            zone_problems.append(f"{p.id} ({p.describe()}) at ({p.x:.2f}, {p.y:.2f}) is not inside the build zone")
    for j in design.joints:
        if GROUND in (j.a, j.b) and not in_zone(j.x, j.y, rules.anchor_zones):
            zone_problems.append(f"{j.id} anchors to the ground at ({j.x:.2f}, {j.y:.2f}), outside the anchor zones")
    for s in design.springs:
        for end, part, x, y in (("a", s.a, s.ax, s.ay), ("b", s.b, s.bx, s.by)):
            if part == GROUND and not in_zone(x, y, rules.anchor_zones):
                zone_problems.append(f"{s.id} anchors end {end} to the ground at ({x:.2f}, {y:.2f}), outside the "
                                     "anchor zones")
    for name, x, y in design.placements:
        zone = rules.placement_zones.get(name)
        if zone is None:
            rule_problems.append(f"placement {name!r} is not an object of this task")
        elif not in_zone(x, y, zone, tol=1e-6):
            zone_problems.append(f"placement {name!r} at ({x:.2f}, {y:.2f}) is outside its allowed region")

    def allowed(prim: str, what: str) -> None:
        if prim not in rules.primitives:
            rule_problems.append(f"{what}: the primitive '{prim}' is not available in this task")

    counts = {"parts": len(design.parts), "joints": len(design.joints), "springs": len(design.springs)}
    for key, limit in (("parts", rules.max_parts), ("joints", rules.max_joints), ("springs", rules.max_springs)):
        if counts[key] > limit:
            rule_problems.append(f"{counts[key]} {key} declared, at most {limit} allowed")
    for p in design.parts:
        allowed(p.kind, p.id)
        if p.material not in MATERIALS:
            rule_problems.append(f"{p.id}: unknown material {p.material!r}")
        elif p.material not in rules.materials:
            rule_problems.append(f"{p.id}: material {p.material!r} is not available (use {', '.join(rules.materials)})")
        checks = []
        if p.kind == "beam":
            checks = [("length", p.width, rules.beam_length), ("thickness", p.height, rules.beam_thickness)]
        elif p.kind == "block":
            checks = [("width", p.width, rules.block_size), ("height", p.height, rules.block_size)]
        elif p.kind == "wheel":
            checks = [("radius", p.radius, rules.wheel_radius)]
        for name, v, (lo, hi) in checks:
            if not lo - 1e-9 <= v <= hi + 1e-9:
                rule_problems.append(f"{p.id}: {p.kind} {name} {v:.3g} m outside {_bounds_text(lo, hi, 'm')}")
    by_id = {p.id: p for p in design.parts}
    pairs: dict[tuple[str, str], str] = {}
    for j in design.joints:
        allowed(j.kind, j.id)
        pair = (min(j.a, j.b), max(j.a, j.b))
        if pair in pairs:
            rule_problems.append(f"{j.id}: joins {j.a} and {j.b}, which {pairs[pair]} already joins (one joint per "
                                 "pair of parts: a second one would not share the load)")
        else:
            pairs[pair] = j.id
        if j.motor_speed is not None:
            allowed("motor", j.id)
            if abs(j.motor_speed) > rules.max_motor_speed + 1e-9:
                rule_problems.append(f"{j.id}: motor speed {abs(j.motor_speed):.3g} rad/s above the limit "
                                     f"{rules.max_motor_speed:g} rad/s")
            if j.max_torque > rules.max_motor_torque + 1e-9:
                rule_problems.append(f"{j.id}: motor torque {j.max_torque:.4g} N m above the limit "
                                     f"{rules.max_motor_torque:g} N m")
        if j.limits is not None:
            allowed("limits", j.id)
            if j.limits[0] < -2 * math.pi or j.limits[1] > 2 * math.pi:
                rule_problems.append(f"{j.id}: angle limits must lie within +-2 pi")
        for end in (j.a, j.b):
            if end != GROUND and by_id[end].distance_to(j.x, j.y) > TOLERANCE:
                rule_problems.append(f"{j.id}: anchor ({j.x:.2f}, {j.y:.2f}) is not on part {end}")
    for s in design.springs:
        allowed("spring", s.id)
        lo, hi = rules.spring_stiffness
        if not lo <= s.stiffness <= hi:
            rule_problems.append(f"{s.id}: stiffness {s.stiffness:g} N/m outside {_bounds_text(lo, hi, 'N/m')}")
        lo, hi = rules.spring_damping
        if not lo <= s.damping <= hi:
            rule_problems.append(f"{s.id}: damping {s.damping:g} N s/m outside {_bounds_text(lo, hi, 'N s/m')}")
        for end, x, y in ((s.a, s.ax, s.ay), (s.b, s.bx, s.by)):
            if end != GROUND and by_id[end].distance_to(x, y) > TOLERANCE:
                rule_problems.append(f"{s.id}: anchor ({x:.2f}, {y:.2f}) is not on part {end}")
    rule_problems += bound_problems(design, rules)
    rule_problems += world_problems
    mass = design.mass
    budget = rules.mass_budget
    constraints = [
        Constraint("build_zone", "every part inside the build zone; ground anchors only in the anchor zones",
                   passed=not zone_problems, value=float(len(zone_problems)), limit=0.0, unit="violations",
                   detail="; ".join(zone_problems[:6]) + (f"; ... ({len(zone_problems)} in all)"
                                                         if len(zone_problems) > 6 else "")),
        Constraint("mass_budget", "total mass of the design within the budget", passed=mass <= budget + 1e-9,
                   value=round(mass, 3), limit=budget if math.isfinite(budget) else None, unit="kg"),
        Constraint("design_rules", "primitives, materials, counts, sizes and motor/spring ranges the task allows",
                   passed=not rule_problems, value=float(len(rule_problems)), limit=0.0, unit="violations",
                   detail="; ".join(rule_problems[:6]) + (f"; ... ({len(rule_problems)} in all)"
                                                         if len(rule_problems) > 6 else "")),
    ]
    summary = {"mass": round(mass, 3), **counts, "zone_problems": zone_problems, "rule_problems": rule_problems}
    return constraints, summary
