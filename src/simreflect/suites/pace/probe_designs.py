"""Designs for the probe: random structures, legal extremes and mutations, as runnable programs.

Everything here works on `design.Design` (the trusted parse of a declared design) and turns it
back into a design program (`design_program`) that declares exactly that design through `api`,
so a found design is a real program a user can run with `simreflect pace verify --program`.
Every generator works inside one task's rules in one environment (`DesignSpace`):

* `random_design`: a forest of 1-6 parts of the allowed kinds and materials, sizes within the
  card's bounds, each part inside the build zone; a part is attached to an earlier one (rigid or
  pivot, a pivot maybe driven or limited) or stands free; ground anchors in the anchor zones;
  springs between parts (unloaded, or with extreme rest lengths); the task's placements;
* `extreme_design`: the same design pushed to what the rules allow: motors at their speed and
  torque limits, springs at their stiffness bounds and rest lengths at the pre-load and stored
  energy bounds (bounds.py), the whole design at an edge of the zone, every part of the densest or the
  lightest material;
* `mutate_design`: one or two changes (scale, shift, resize a part, swap a material, change a
  motor, limits, joint kind or spring, remove a joint, grow or prune a part, move a placement,
  extremes, fit into the zone);
* `fit`: a design shrunk into the zone's bounding box, under the mass budget and within the
  card's ranges (a source design that no longer fits a stage becomes a starting point).

A generator may produce a design outside the rules (a part leaving the zone after a scale, a
budget exceeded); the probe screens every candidate with `check_design` before spending an
evaluation on it. `declare(program, visible)` runs a TRUSTED program (a task's own reference, or
a program rendered here) in this process to read the design it declares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from simreflect.suites.pace.bounds import MIN_REST_LENGTH, zone_extent
from simreflect.suites.pace.design import (GROUND, MATERIALS, Design, DesignRules, JointSpec, PartSpec, SpringSpec,
                                           Polygon, in_zone, parse_design, part_in_zone)
from simreflect.suites.pace.evaluate import BUILD_TIMEOUT_S, InProcessChannel

#: Most parts a random structure starts with (mutations may grow it up to the task's maximum).
RANDOM_PARTS = 6
#: Draws of a point or a part before giving up on it.
TRIES = 48
#: Chance that a new part is attached to an earlier one (else it stands free: a forest); at the
#: extremes, fewer joints (free parts that springs alone hold together).
ATTACH = 0.65
ATTACH_EXTREME = 0.35


# ----- the space of one task's designs --------------------------------------------------------------

def _bbox(zone: Sequence[Polygon]) -> tuple[float, float, float, float]:
    xs = [x for poly in zone for x, _ in poly]
    ys = [y for poly in zone for _, y in poly]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else (0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class DesignSpace:
    """What a task allows in one environment, in the form the generators use."""

    rules: DesignRules
    part_kinds: tuple[str, ...]
    joint_kinds: tuple[str, ...]
    motors: bool
    limits: bool
    springs: bool
    materials: tuple[str, ...]  # allowed, lightest first
    box: tuple[float, float, float, float]  # the build zone's bounding box

    @classmethod
    def of(cls, rules: DesignRules) -> DesignSpace:
        prims = rules.primitives
        mats = tuple(sorted((m for m in rules.materials if m in MATERIALS), key=lambda m: (MATERIALS[m].density, m)))
        joints = tuple(k for k in ("rigid", "pivot") if k in prims)
        return cls(rules=rules, part_kinds=tuple(k for k in ("beam", "block", "wheel") if k in prims),
                   joint_kinds=joints, motors="motor" in prims and "pivot" in joints and rules.max_motor_speed > 0,
                   limits="limits" in prims and "pivot" in joints,
                   springs="spring" in prims and rules.max_springs > 0, materials=mats, box=_bbox(rules.build_zone))

    @property
    def designable(self) -> bool:
        """A task whose design has parts (controller tasks declare none)."""
        return bool(self.rules.build_zone) and self.rules.max_parts > 0 and bool(self.part_kinds) and \
            bool(self.materials)

    @property
    def size(self) -> float:
        x0, y0, x1, y1 = self.box
        return max(1e-3, math.hypot(x1 - x0, y1 - y0))


def _logu(rng: np.random.Generator, lo: float, hi: float) -> float:
    lo, hi = max(lo, 1e-3), max(hi, 1e-3)
    if hi <= lo:
        return lo
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def sample_point(zone: Sequence[Polygon], rng: np.random.Generator, within: Sequence[Polygon] = ()
                 ) -> tuple[float, float] | None:
    """A point inside `zone` (and within the tolerance of `within`, when given), or None."""
    if not zone:
        return None
    x0, y0, x1, y1 = _bbox(zone)
    for _ in range(TRIES * 4):
        x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        if in_zone(x, y, zone, tol=0.0) and (not within or in_zone(x, y, within)):
            return (x, y)
    return None


# ----- parts ------------------------------------------------------------------------------------

def beam_ends(p: PartSpec) -> tuple[tuple[float, float], tuple[float, float]]:
    dx, dy = 0.5 * p.width * math.cos(p.angle), 0.5 * p.width * math.sin(p.angle)
    return (p.x - dx, p.y - dy), (p.x + dx, p.y + dy)


def make_beam(pid: str, a: tuple[float, float], b: tuple[float, float], thickness: float, material: str) -> PartSpec:
    return PartSpec(pid, "beam", material, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2, math.atan2(b[1] - a[1], b[0] - a[0]),
                    width=math.dist(a, b), height=thickness)


def point_on(p: PartSpec, rng: np.random.Generator) -> tuple[float, float]:
    """A point inside part `p` (a beam's end or centre line, a wheel's centre, inside a block)."""
    if p.kind == "wheel":
        if rng.random() < 0.7:
            return (p.x, p.y)
        a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0, 0.5 * p.radius)
        return (p.x + r * math.cos(a), p.y + r * math.sin(a))
    if p.kind == "beam":
        a, b = beam_ends(p)
        t = float(rng.choice([0.0, 1.0])) if rng.random() < 0.4 else float(rng.uniform(0, 1))
        return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
    lx, ly = rng.uniform(-0.4, 0.4) * p.width, rng.uniform(-0.4, 0.4) * p.height
    c, s = math.cos(p.angle), math.sin(p.angle)
    return (p.x + c * lx - s * ly, p.y + s * lx + c * ly)


def new_part(space: DesignSpace, kind: str, anchor: tuple[float, float], rng: np.random.Generator, pid: str
             ) -> PartSpec:
    """A part of `kind` that contains `anchor`, its sizes within the card's bounds."""
    r, mat = space.rules, str(rng.choice(space.materials))
    x0, y0, x1, y1 = space.box
    extent = max(0.05, min(x1 - x0, y1 - y0))
    if kind == "beam":
        lo, hi = r.beam_length
        length = _logu(rng, lo, min(hi, space.size))
        t_lo, t_hi = r.beam_thickness
        thick = _logu(rng, t_lo, max(t_lo, min(t_hi, 0.3 * length)))
        a = rng.uniform(0, 2 * math.pi)
        return make_beam(pid, anchor, (anchor[0] + length * math.cos(a), anchor[1] + length * math.sin(a)), thick, mat)
    if kind == "wheel":
        lo, hi = r.wheel_radius
        rad = _logu(rng, lo, max(lo, min(hi, extent / 2)))
        return PartSpec(pid, "wheel", mat, anchor[0], anchor[1], 0.0, radius=rad)
    lo, hi = r.block_size
    w, h = _logu(rng, lo, max(lo, min(hi, x1 - x0))), _logu(rng, lo, max(lo, min(hi, y1 - y0)))
    angle = 0.0 if rng.random() < 0.7 else float(rng.uniform(-math.pi / 2, math.pi / 2))
    ox, oy = rng.uniform(-0.4, 0.4) * w, rng.uniform(-0.4, 0.4) * h
    c, s = math.cos(angle), math.sin(angle)
    return PartSpec(pid, "block", mat, anchor[0] - (c * ox - s * oy), anchor[1] - (s * ox + c * oy), angle,
                    width=w, height=h)


def _motor(space: DesignSpace, rng: np.random.Generator, extreme: bool) -> tuple[float, float]:
    r = space.rules
    sign = 1.0 if rng.random() < 0.5 else -1.0
    if extreme:
        return sign * r.max_motor_speed, r.max_motor_torque
    return sign * r.max_motor_speed * float(rng.uniform(0.2, 1.0)), r.max_motor_torque * float(rng.uniform(0.2, 1.0))


def new_joint(space: DesignSpace, a: str, b: str, at: tuple[float, float], rng: np.random.Generator,
              extreme: bool = False) -> JointSpec:
    kind = str(rng.choice(space.joint_kinds))
    if kind == "rigid":
        return JointSpec("j", "rigid", a, b, at[0], at[1])
    speed = torque = None
    limits = None
    if space.motors and rng.random() < (0.8 if extreme else 0.5):
        speed, torque = _motor(space, rng, extreme)
    if space.limits and rng.random() < 0.25:
        limits = (-float(rng.uniform(0.1, math.pi)), float(rng.uniform(0.1, math.pi)))
    return JointSpec("j", "pivot", a, b, at[0], at[1], speed, torque, limits)


def rest_lengths(space: DesignSpace, dist: float, stiffness: float) -> list[float]:
    """The extreme rest lengths a spring of `stiffness` is tried with, just inside the rules'
    bounds (bounds.py): the rest length within (1 +- spring_preload) x its anchors' distance, and
    the energy it stores at most the task's spring_energy budget, whole (one spring holding it
    all) or shared by as many springs as the task allows; and the unloaded length."""
    r = space.rules
    inside = 0.99  # just inside each bound (a float on it may round out)
    by_share = inside * r.spring_preload * dist
    strokes = sorted({min(by_share, inside * math.sqrt(2.0 * budget / stiffness)) if stiffness > 0 else by_share
                      for budget in (r.spring_energy, r.spring_energy / max(1, r.max_springs))})
    longest = inside * zone_extent((r.build_zone, r.anchor_zones))
    # anchors closer than the shortest spring the simulator builds have no legal rest length: screened
    return [max(MIN_REST_LENGTH, dist - x) for x in reversed(strokes)] + [dist] + \
        [min(longest, dist + x) for x in strokes]


def components(parts: Sequence[PartSpec], joints: Sequence[JointSpec]) -> dict[str, int]:
    """Part id -> the index of the rigid-or-pivoted assembly it belongs to (ground joints do not join)."""
    root = {p.id: p.id for p in parts}

    def find(x: str) -> str:
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    for j in joints:
        if j.a in root and j.b in root:
            root[find(j.a)] = find(j.b)
    names: dict[str, int] = {}
    return {p.id: names.setdefault(find(p.id), len(names)) for p in parts}


def new_spring(space: DesignSpace, parts: Sequence[PartSpec], rng: np.random.Generator, extreme: bool = False,
               joints: Sequence[JointSpec] = ()) -> SpringSpec | None:
    """A spring between two parts (or a part and the ground): half the time, when the design has
    separate assemblies, between two of them (a spring that can push or pull them apart)."""
    r = space.rules
    ground = None
    if r.anchor_zones and rng.random() < 0.3:
        ground = sample_point(r.anchor_zones, rng)
    if ground is None and len(parts) < 2:
        return None
    pa = parts[int(rng.integers(len(parts)))]
    if ground is not None:
        a_id, a_pt = GROUND, ground
    else:
        others = [p for p in parts if p.id != pa.id]
        comp = components(parts, joints)
        apart = [p for p in others if comp[p.id] != comp[pa.id]]
        if apart and rng.random() < 0.5:
            others = apart
        other = others[int(rng.integers(len(others)))]
        a_id, a_pt = other.id, point_on(other, rng)
    b_pt = point_on(pa, rng)
    dist = math.dist(a_pt, b_pt)
    k_lo, k_hi = r.spring_stiffness
    c_lo, c_hi = r.spring_damping
    if extreme:
        k = k_hi if rng.random() < 0.8 else k_lo
        c = c_lo
    else:
        k, c = _logu(rng, k_lo, k_hi), (c_lo if rng.random() < 0.3 else _logu(rng, max(c_lo, 1.0), c_hi))
    rest = dist if not extreme and rng.random() < 0.5 else float(rng.choice(rest_lengths(space, dist, k)))
    return SpringSpec("s", a_id, pa.id, a_pt[0], a_pt[1], b_pt[0], b_pt[1], k, c, rest)


def _placements(space: DesignSpace, rng: np.random.Generator) -> tuple[tuple[str, float, float], ...]:
    out = []
    for name, zone in sorted(space.rules.placement_zones.items()):
        pt = sample_point(zone, rng)
        if pt is not None:
            out.append((name, pt[0], pt[1]))
    return tuple(out)


def renumber(parts: Sequence[PartSpec], joints: Sequence[JointSpec], springs: Sequence[SpringSpec],
             placements: Sequence[tuple[str, float, float]]) -> Design:
    """A design with the ids `api` gives (p1.., j1.., s1.. in declaration order); joints and
    springs of parts no longer there are dropped."""
    ids = {p.id: f"p{i + 1}" for i, p in enumerate(parts)}
    ids[GROUND] = GROUND
    ps = tuple(replace(p, id=ids[p.id]) for p in parts)
    js = tuple(replace(j, id=f"j{i + 1}", a=ids[j.a], b=ids[j.b])
               for i, j in enumerate(j for j in joints if j.a in ids and j.b in ids))
    ss = tuple(replace(s, id=f"s{i + 1}", a=ids[s.a], b=ids[s.b])
               for i, s in enumerate(s for s in springs if s.a in ids and s.b in ids))
    return Design(ps, js, ss, tuple(sorted(placements)))


def random_design(space: DesignSpace, rng: np.random.Generator, extreme: bool = False) -> Design:
    """A random structure inside the rules (see the module docstring)."""
    r = space.rules
    parts: list[PartSpec] = []
    joints: list[JointSpec] = []
    n = int(rng.integers(1, min(r.max_parts, RANDOM_PARTS) + 1))
    if r.anchor_zones and space.joint_kinds and rng.random() < 0.5:
        at = sample_point(r.anchor_zones, rng, within=r.build_zone)  # a first part anchored to the ground
        if at is not None:
            p = new_part(space, str(rng.choice(space.part_kinds)), at, rng, "q0")
            if part_in_zone(p, r.build_zone):
                parts.append(p)
                joints.append(replace(new_joint(space, GROUND, p.id, at, rng, extreme), id="j"))
    while len(parts) < n:
        for _ in range(TRIES):
            kind = str(rng.choice(space.part_kinds))
            host = parts[int(rng.integers(len(parts)))] if parts and space.joint_kinds and \
                rng.random() < (ATTACH_EXTREME if extreme else ATTACH) else None
            at = point_on(host, rng) if host is not None else sample_point(r.build_zone, rng)
            if at is None:
                continue
            p = new_part(space, kind, at, rng, f"q{len(parts)}")
            if part_in_zone(p, r.build_zone):
                parts.append(p)
                if host is not None:
                    joints.append(new_joint(space, host.id, p.id, at, rng, extreme))
                break
        else:
            break
    springs: list[SpringSpec] = []
    if space.springs and parts:
        for _ in range(int(rng.integers(1 if extreme else 0, min(r.max_springs, 3) + 1))):
            s = new_spring(space, parts, rng, extreme, joints)
            if s is not None:
                springs.append(s)
    design = renumber(parts, joints, springs, _placements(space, rng))
    return design if design.mass <= r.mass_budget else with_material(design, space.materials[0])


# ----- transforms ---------------------------------------------------------------------------------

def with_material(design: Design, material: str) -> Design:
    return replace(design, parts=tuple(replace(p, material=material) for p in design.parts))


def transform(design: Design, fn, scale: float = 1.0) -> Design:
    """Every position of the design through `fn(x, y)`, every length times `scale`."""
    parts = []
    for p in design.parts:
        x, y = fn(p.x, p.y)
        parts.append(replace(p, x=x, y=y, width=p.width * scale, height=p.height * scale, radius=p.radius * scale))
    joints = [replace(j, x=fn(j.x, j.y)[0], y=fn(j.x, j.y)[1]) for j in design.joints]
    springs = []
    for s in design.springs:
        (ax, ay), (bx, by) = fn(s.ax, s.ay), fn(s.bx, s.by)
        springs.append(replace(s, ax=ax, ay=ay, bx=bx, by=by, rest_length=s.rest_length * scale))
    places = [(n, *fn(x, y)) for n, x, y in design.placements]
    return Design(tuple(parts), tuple(joints), tuple(springs), tuple(places))


def design_box(design: Design) -> tuple[float, float, float, float]:
    pts = [pt for p in design.parts for pt in p.outline()]
    if not pts:
        return (0.0, 0.0, 0.0, 0.0)
    return (min(x for x, _ in pts), min(y for _, y in pts), max(x for x, _ in pts), max(y for _, y in pts))


def to_edge(space: DesignSpace, design: Design, side: str) -> Design:
    """The design moved to touch one side of the build zone's bounding box."""
    bx0, by0, bx1, by1 = design_box(design)
    zx0, zy0, zx1, zy1 = space.box
    dx = {"left": zx0 - bx0, "right": zx1 - bx1}.get(side, 0.0)
    dy = {"bottom": zy0 - by0, "top": zy1 - by1}.get(side, 0.0)
    return transform(design, lambda x, y: (x + dx, y + dy))


EDGES = ("left", "right", "bottom", "top")


def _clamp(v: float, bounds: tuple[float, float]) -> float:
    return min(bounds[1], max(bounds[0], v))


def within_ranges(space: DesignSpace, design: Design) -> Design:
    """Part sizes, motors and springs clamped to the card's ranges."""
    r = space.rules
    parts = []
    for p in design.parts:
        if p.kind == "beam":
            p = replace(p, width=_clamp(p.width, r.beam_length), height=_clamp(p.height, r.beam_thickness))
        elif p.kind == "block":
            p = replace(p, width=_clamp(p.width, r.block_size), height=_clamp(p.height, r.block_size))
        else:
            p = replace(p, radius=_clamp(p.radius, r.wheel_radius))
        parts.append(p)
    joints = []
    for j in design.joints:
        if j.motor_speed is not None:
            j = replace(j, motor_speed=_clamp(j.motor_speed, (-r.max_motor_speed, r.max_motor_speed)),
                        max_torque=_clamp(j.max_torque, (0.0, r.max_motor_torque)))
        joints.append(j)
    springs = [replace(s, stiffness=_clamp(s.stiffness, r.spring_stiffness),
                       damping=_clamp(s.damping, r.spring_damping)) for s in design.springs]
    return replace(design, parts=tuple(parts), joints=tuple(joints), springs=tuple(springs))


def fit(space: DesignSpace, design: Design) -> Design:
    """The design shrunk (never grown) to fit the build zone's bounding box and moved inside it,
    made of the lightest material if it is over the mass budget, its sizes, motors and springs
    clamped to the card's ranges: how a source design that no longer fits a stage becomes a
    starting point."""
    if not design.parts:
        return within_ranges(space, design)
    bx0, by0, bx1, by1 = design_box(design)
    zx0, zy0, zx1, zy1 = space.box
    k = min(1.0, 0.98 * (zx1 - zx0) / max(bx1 - bx0, 1e-9), 0.98 * (zy1 - zy0) / max(by1 - by0, 1e-9))
    if k < 1.0:
        design = transform(design, lambda x, y: (bx0 + k * (x - bx0), by0 + k * (y - by0)), scale=k)
        bx0, by0, bx1, by1 = design_box(design)
    dx = max(0.0, zx0 - bx0) - max(0.0, bx1 - zx1)
    dy = max(0.0, zy0 - by0) - max(0.0, by1 - zy1)
    if dx or dy:
        design = transform(design, lambda x, y: (x + dx, y + dy))
    design = within_ranges(space, design)
    if design.mass > space.rules.mass_budget:
        design = with_material(design, space.materials[0])
    return design


def extreme_design(space: DesignSpace, design: Design, rng: np.random.Generator) -> Design:
    """The design pushed to what the rules allow (see the module docstring)."""
    r = space.rules
    joints = []
    for j in design.joints:
        if j.motor_speed is not None:
            sign = math.copysign(1.0, j.motor_speed) if j.motor_speed else 1.0
            j = replace(j, motor_speed=sign * r.max_motor_speed, max_torque=r.max_motor_torque)
        joints.append(j)
    springs = []
    for s in design.springs:
        dist = math.dist((s.ax, s.ay), (s.bx, s.by))
        k = r.spring_stiffness[1] if rng.random() < 0.8 else r.spring_stiffness[0]
        springs.append(replace(s, stiffness=k, damping=r.spring_damping[0],
                               rest_length=float(rng.choice(rest_lengths(space, dist, k)))))
    out = replace(design, joints=tuple(joints), springs=tuple(springs))
    how = str(rng.choice(("edge", "heavy", "light", "as is")))
    if how == "edge" and out.parts:
        out = to_edge(space, out, str(rng.choice(EDGES)))
    elif how == "heavy":
        heavy = with_material(out, space.materials[-1])
        out = heavy if heavy.mass <= r.mass_budget else out
    elif how == "light":
        out = with_material(out, space.materials[0])
    return out


# ----- mutations ----------------------------------------------------------------------------------

def _pick(rng: np.random.Generator, items: Sequence[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def _scale(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    k = float(math.exp(rng.normal(0.0, 0.2)))
    x0, y0, x1, _ = design_box(d)
    cx = (x0 + x1) / 2
    return transform(d, lambda x, y: (cx + k * (x - cx), y0 + k * (y - y0)), scale=k)


def _shift(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    zx0, zy0, zx1, zy1 = space.box
    dx, dy = rng.normal(0.0, 0.1 * (zx1 - zx0)), rng.normal(0.0, 0.1 * (zy1 - zy0))
    return transform(d, lambda x, y: (x + dx, y + dy))


def _edge(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    return to_edge(space, d, _pick(rng, EDGES))


def _resize(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    i = int(rng.integers(len(d.parts)))
    p, k = d.parts[i], float(math.exp(rng.normal(0.0, 0.3)))
    if p.kind == "wheel":
        q = replace(p, radius=p.radius * k)
    elif p.kind == "beam":
        q = replace(p, width=p.width * k) if rng.random() < 0.5 else replace(p, height=p.height * k)
    else:
        q = replace(p, width=p.width * k) if rng.random() < 0.5 else replace(p, height=p.height * k)
    return replace(d, parts=d.parts[:i] + (q,) + d.parts[i + 1:])


def _material(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    i = int(rng.integers(len(d.parts)))
    q = replace(d.parts[i], material=_pick(rng, space.materials))
    return replace(d, parts=d.parts[:i] + (q,) + d.parts[i + 1:])


def _pivots(d: Design) -> list[int]:
    return [i for i, j in enumerate(d.joints) if j.kind == "pivot"]


def _motor_change(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    i = _pick(rng, _pivots(d))
    j, r = d.joints[i], space.rules
    if j.motor_speed is None:
        speed, torque = _motor(space, rng, rng.random() < 0.5)
        j = replace(j, motor_speed=speed, max_torque=torque)
    else:
        how = _pick(rng, ("flip", "scale", "max", "remove"))
        if how == "flip":
            j = replace(j, motor_speed=-j.motor_speed)
        elif how == "scale":
            speed = j.motor_speed * math.exp(rng.normal(0.0, 0.4))
            j = replace(j, motor_speed=max(-r.max_motor_speed, min(r.max_motor_speed, speed)),
                        max_torque=min(r.max_motor_torque, j.max_torque * math.exp(rng.normal(0.0, 0.4))))
        elif how == "max":
            j = replace(j, motor_speed=math.copysign(r.max_motor_speed, j.motor_speed or 1.0),
                        max_torque=r.max_motor_torque)
        else:
            j = replace(j, motor_speed=None, max_torque=None)
    return replace(d, joints=d.joints[:i] + (j,) + d.joints[i + 1:])


def _limits_change(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    i = _pick(rng, _pivots(d))
    j = d.joints[i]
    if j.limits is None:
        j = replace(j, limits=(-float(rng.uniform(0.05, math.pi)), float(rng.uniform(0.05, math.pi))))
    elif rng.random() < 0.4:
        j = replace(j, limits=None)
    else:
        k = float(math.exp(rng.normal(0.0, 0.4)))
        j = replace(j, limits=(max(-2 * math.pi, j.limits[0] * k), min(2 * math.pi, j.limits[1] * k)))
    return replace(d, joints=d.joints[:i] + (j,) + d.joints[i + 1:])


def _joint_kind(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    i = int(rng.integers(len(d.joints)))
    j = d.joints[i]
    j = replace(j, kind="rigid", motor_speed=None, max_torque=None, limits=None) if j.kind == "pivot" else \
        replace(j, kind="pivot")
    return replace(d, joints=d.joints[:i] + (j,) + d.joints[i + 1:])


def _spring_change(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    r = space.rules
    how = "add" if not d.springs else _pick(rng, ("add", "remove", "extreme", "scale", "scale"))
    if how == "add" or (how == "remove" and not d.springs):
        if len(d.springs) >= r.max_springs:
            how = "extreme"
        else:
            s = new_spring(space, d.parts, rng, extreme=rng.random() < 0.5, joints=d.joints)
            return d if s is None else replace(d, springs=d.springs + (replace(s, id=f"s{len(d.springs) + 1}"),))
    i = int(rng.integers(len(d.springs)))
    s = d.springs[i]
    if how == "remove":
        return renumber(d.parts, d.joints, d.springs[:i] + d.springs[i + 1:], d.placements)
    if how == "extreme":
        dist = math.dist((s.ax, s.ay), (s.bx, s.by))
        s = replace(s, stiffness=r.spring_stiffness[1], damping=r.spring_damping[0],
                    rest_length=float(rng.choice(rest_lengths(space, dist, r.spring_stiffness[1]))))
    else:
        k_lo, k_hi = r.spring_stiffness
        c_lo, c_hi = r.spring_damping
        s = replace(s, stiffness=min(k_hi, max(k_lo, s.stiffness * math.exp(rng.normal(0.0, 0.5)))),
                    damping=min(c_hi, max(c_lo, s.damping * math.exp(rng.normal(0.0, 0.5)))),
                    rest_length=s.rest_length * math.exp(rng.normal(0.0, 0.4)))
    return replace(d, springs=d.springs[:i] + (s,) + d.springs[i + 1:])


def _grow(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    r = space.rules
    for _ in range(TRIES):
        host = _pick(rng, d.parts) if d.parts and space.joint_kinds and rng.random() < ATTACH else None
        at = point_on(host, rng) if host is not None else sample_point(r.build_zone, rng)
        if at is None:
            continue
        p = new_part(space, _pick(rng, space.part_kinds), at, rng, "new")
        if part_in_zone(p, r.build_zone):
            joints = d.joints + ((new_joint(space, host.id, "new", at, rng),) if host is not None else ())
            return renumber(d.parts + (p,), joints, d.springs, d.placements)
    return d


def _unjoin(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    i = int(rng.integers(len(d.joints)))
    return renumber(d.parts, d.joints[:i] + d.joints[i + 1:], d.springs, d.placements)


def _prune(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    i = int(rng.integers(len(d.parts)))
    return renumber(d.parts[:i] + d.parts[i + 1:], d.joints, d.springs, d.placements)


def _place(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    i = int(rng.integers(len(d.placements)))
    name, x, y = d.placements[i]
    zone = space.rules.placement_zones.get(name, ())
    pt = sample_point(zone, rng) if rng.random() < 0.3 else None
    if pt is None:
        zx0, zy0, zx1, zy1 = _bbox(zone) if zone else space.box
        pt = (x + rng.normal(0.0, 0.05 * (zx1 - zx0)), y + rng.normal(0.0, 0.05 * (zy1 - zy0)))
    return replace(d, placements=d.placements[:i] + ((name, float(pt[0]), float(pt[1])),) + d.placements[i + 1:])


def _extremes(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    return extreme_design(space, d, rng)


def _fit(space: DesignSpace, d: Design, rng: np.random.Generator) -> Design:
    return fit(space, d)


def _operations(space: DesignSpace, d: Design) -> list[tuple[str, Any]]:
    ops: list[tuple[str, Any]] = []
    if d.parts:
        ops += [("scale", _scale), ("shift", _shift), ("edge", _edge), ("resize", _resize), ("resize", _resize),
                ("extremes", _extremes), ("fit", _fit)]
        if len(space.materials) > 1:
            ops.append(("material", _material))
        if len(d.parts) > 1:
            ops.append(("prune", _prune))
        if space.springs:
            ops.append(("spring", _spring_change))
    if len(d.parts) < space.rules.max_parts:
        ops.append(("grow", _grow))
    if _pivots(d):
        if space.motors:
            ops += [("motor", _motor_change), ("motor", _motor_change)]
        if space.limits:
            ops.append(("limits", _limits_change))
    if d.joints:
        ops.append(("unjoin", _unjoin))
        if len(space.joint_kinds) == 2:
            ops.append(("joint kind", _joint_kind))
    if d.placements:
        ops.append(("place", _place))
    return ops


def mutate_design(space: DesignSpace, design: Design, rng: np.random.Generator) -> tuple[Design, str]:
    """One or two changes of `design` (see the module docstring) and their names."""
    names = []
    for _ in range(1 if rng.random() < 0.7 else 2):
        ops = _operations(space, design)
        if not ops:
            break
        name, op = _pick(rng, ops)
        design = op(space, design, rng)
        names.append(name)
    return design, "+".join(names) or "none"


# ----- programs -----------------------------------------------------------------------------------

def _lit(v: float) -> str:
    r = round(float(v), 6) + 0.0
    return repr(r)


def _pt(x: float, y: float) -> str:
    return f"({_lit(x)}, {_lit(y)})"


def _ref(pid: str) -> str:
    return "api.GROUND" if pid == GROUND else pid


def build_lines(design: Design) -> list[str]:
    """The body of `build(api)` declaring `design` (ids p1.. as variable names)."""
    lines = []
    for p in design.parts:
        if p.kind == "beam":
            a, b = beam_ends(p)
            call = f"api.beam({_pt(*a)}, {_pt(*b)}, thickness={_lit(p.height)}, material={p.material!r})"
        elif p.kind == "wheel":
            call = f"api.wheel({_pt(p.x, p.y)}, {_lit(p.radius)}, material={p.material!r})"
        else:
            call = (f"api.block({_pt(p.x, p.y)}, {_lit(p.width)}, {_lit(p.height)}, angle={_lit(p.angle)}, "
                    f"material={p.material!r})")
        lines.append(f"{p.id} = {call}")
    for j in design.joints:
        if j.kind == "rigid":
            lines.append(f"api.rigid({_ref(j.a)}, {_ref(j.b)}, {_pt(j.x, j.y)})")
            continue
        extra = ""
        if j.motor_speed is not None:
            extra += f", motor_speed={_lit(j.motor_speed)}, max_torque={_lit(j.max_torque)}"
        if j.limits is not None:
            extra += f", limits={_pt(*j.limits)}"
        lines.append(f"api.pivot({_ref(j.a)}, {_ref(j.b)}, {_pt(j.x, j.y)}{extra})")
    for s in design.springs:
        lines.append(f"api.spring({_ref(s.a)}, {_ref(s.b)}, {_pt(s.ax, s.ay)}, {_pt(s.bx, s.by)}, "
                     f"stiffness={_lit(s.stiffness)}, damping={_lit(s.damping)}, rest_length={_lit(s.rest_length)})")
    for name, x, y in design.placements:
        lines.append(f"api.place({name!r}, {_pt(x, y)})")
    return lines or ["pass"]


def design_program(design: Design, docstring: str, controller: str = "") -> str:
    """A complete design program declaring `design` (and `controller`'s code after it)."""
    body = "\n".join(f"    {line}" for line in build_lines(design))
    doc = docstring.strip().replace('"""', "'''")
    text = f'"""{doc}\n"""\n\n\ndef build(api):\n{body}\n'
    return text + (f"\n\n{controller.strip()}\n" if controller.strip() else "")


def declare(program: str, visible: dict[str, Any]) -> Design:
    """The design a TRUSTED program declares (run in this process: never an untrusted program)."""
    channel = InProcessChannel(program)
    reply = channel.request({"op": "build", "env": visible}, BUILD_TIMEOUT_S)
    if not reply.get("ok"):
        raise ValueError(f"the program's build() failed: {reply.get('error')}")
    return parse_design(reply["design"])
