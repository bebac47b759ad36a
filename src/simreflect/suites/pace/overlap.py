"""Parts declared inside the world: how deep the terrain and the task's bodies reach into them.

A design part declared overlapping something it collides with (the ground, a wall, a placed ball)
would be pushed out by the solver on the first steps, and joints or springs on it would take up
the push: a way to start a design in tension. So would a task object the design places
(`api.place`) inside the terrain. `world_overlaps` names every design part and every placed
object that something it can collide with reaches more than `depth` into, once the world, the
design and the task's placements all exist (before the first step). Parts and what they may not overlap are taken
as Box2D would collide them: never a sensor, never a pair its collision filter keeps apart, never
two bodies joined without `collideConnected`.

The depth is measured against a part shrunk by `depth` on every side (a box loses `depth` from
each half-extent, a disc from its radius): the other shape overlaps that core exactly when it
reaches more than `depth` into the part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from Box2D import b2AABB, b2CircleShape, b2Distance, b2PolygonShape, b2QueryCallback

if TYPE_CHECKING:
    from simreflect.suites.pace.engine import Sim

#: Half-extent below which a shrunk box is kept as a sliver (a thin beam: its centre line).
SLIVER = 1e-4


class _Collect(b2QueryCallback):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[Any] = []

    def ReportFixture(self, fixture: Any) -> bool:
        self.found.append(fixture)
        return True


def _collide(fa: Any, fb: Any) -> bool:
    """Box2D's default contact filter, and no sensors."""
    if fa.sensor or fb.sensor:
        return False
    a, b = fa.filterData, fb.filterData
    if a.groupIndex == b.groupIndex and a.groupIndex != 0:
        return a.groupIndex > 0
    return bool(a.maskBits & b.categoryBits) and bool(b.maskBits & a.categoryBits)


def _joined(body_a: Any, body_b: Any) -> bool:
    """Joined by a joint that keeps them from colliding."""
    return any(edge.other == body_b and not edge.joint.collideConnected for edge in body_a.joints)


def _core(shape: Any, depth: float) -> tuple[Any, float]:
    """The part's shape shrunk by `depth`, and the radius left to add back when it is a disc
    (a disc's core is its centre: it overlaps what comes within its shrunk radius of it)."""
    if isinstance(shape, b2CircleShape):
        return shape, max(0.0, shape.radius - depth)
    vs = shape.vertices
    xs, ys = [v[0] for v in vs], [v[1] for v in vs]
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    hw = max(SLIVER, (max(xs) - min(xs)) / 2 - depth)
    hh = max(SLIVER, (max(ys) - min(ys)) / 2 - depth)
    return b2PolygonShape(box=(hw, hh, (cx, cy), 0.0)), 0.0


def _reaches(core: Any, reach: float, core_xf: Any, other: Any, other_xf: Any) -> bool:
    """Whether `other` overlaps the core (grown by `reach`, for a disc's core)."""
    out = b2Distance(shapeA=core, shapeB=other.shape, transformA=core_xf, transformB=other_xf, useRadii=False)
    limit = reach + (other.shape.radius if isinstance(other.shape, b2CircleShape) else 0.0)
    if isinstance(core, b2CircleShape):
        return out.distance < limit or out.distance == 0.0
    return out.distance <= limit if limit > 0 else out.distance == 0.0


def world_overlaps(sim: Sim, depth: float) -> list[str]:
    """Every design part, and every task object the design placed (`api.place`), that something
    it collides with reaches more than `depth` into, in words."""
    parts = {body: pid for pid, body in sim.parts.items()}
    placed = {name for name, _, _ in sim.design.placements} if sim.design is not None else set()
    checked = list(sim.parts.items()) + [(t.name, t.body) for t in sim.tagged
                                         if t.name in placed and t.body not in parts and t.body != sim.ground]
    problems: list[str] = []
    for pid, body in checked:
        xf = body.transform
        hits: list[str] = []
        for fixture in body.fixtures:
            core, reach = _core(fixture.shape, depth)
            box = fixture.GetAABB(0)
            query = _Collect()
            sim.world.QueryAABB(query, b2AABB(lowerBound=box.lowerBound, upperBound=box.upperBound))
            for other in query.found:
                owner = other.body
                # a design part against a placed object is checked once, from the part
                if owner == body or owner in parts or not _collide(fixture, other) or _joined(body, owner):
                    continue
                if _reaches(core, reach, xf, other, owner.transform):
                    hits.append(sim.name_of(owner))
        if hits:
            what = pid if body in parts else f"the placed {pid}"
            problems.append(f"{what} is declared more than {depth:g} m inside {', '.join(sorted(set(hits)))} "
                            "(the solver would push it out at the start)")
    return problems
