"""Physical bounds on the numbers of a design that are not sizes or counts.

A design may not bring energy or motion of its own into the world: everything it does must come
from its motors (within their speed and torque) and from the environment. `bound_problems` names
every declaration that would smuggle some in at t = 0:

* a spring's rest length (at least MIN_REST_LENGTH: what the simulator builds) is tied to its
  anchors' declared distance d: within d x (1 +- the task's `spring_preload`) and never longer
  than the extent of the zones the design lives in; the
  elastic energy all springs hold at declaration, sum of k (L - d)^2 / 2, is counted against the
  task's `spring_energy` budget (0 J unless the card allows a pre-load);
* a pivot's angle limits must hold the declared pose (relative angle 0 at t = 0: Box2D measures
  the angle from the declaration), so no joint is snapped to a stop on the first step;
* a block's angle lies within +-2 pi (an orientation, not a count of turns).

Each problem is one sentence for the design_rules constraint. The check is pure (no Box2D); the
overlap of parts with the world at t = 0 needs the built world and lives in the engine
(`Sim.initial_overlaps`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from simreflect.suites.pace.design import Design, DesignRules, Polygon

#: The shortest rest length the simulator gives a spring (Box2D's distance joint needs one): a
#: shorter declared rest length is this one, and its pre-load is counted as such.
MIN_REST_LENGTH = 0.01
#: Joules below which a pre-load is rounding, not a stored energy.
ENERGY_TOLERANCE = 1e-6
#: Radians by which a declared pose may sit outside its limits (the same rounding).
LIMIT_TOLERANCE = 1e-9
MAX_ANGLE = 2 * math.pi


def zone_extent(zones: tuple[tuple[Polygon, ...], ...]) -> float:
    """The diagonal of the box around every polygon of the given zones (0 when there are none)."""
    pts = [pt for zone in zones for poly in zone for pt in poly]
    if not pts:
        return 0.0
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    return math.hypot(max(xs) - min(xs), max(ys) - min(ys))


def spring_energy(stiffness: float, rest_length: float, declared: float) -> float:
    """Elastic energy (J) a spring of `stiffness` and `rest_length` holds at its declared length."""
    return 0.5 * stiffness * (rest_length - declared) ** 2


def bound_problems(design: Design, rules: DesignRules) -> list[str]:
    """Every declaration outside the bounds of the module docstring, in words."""
    out: list[str] = []
    extent = zone_extent((rules.build_zone, rules.anchor_zones))
    ratio = rules.spring_preload
    stored = 0.0
    for s in design.springs:
        d = math.hypot(s.bx - s.ax, s.by - s.ay)
        rest = max(MIN_REST_LENGTH, s.rest_length)  # what the simulator builds
        lo, hi = d * (1.0 - ratio), d * (1.0 + ratio)
        if not lo - 1e-9 <= rest <= hi + 1e-9:
            out.append(f"{s.id}: rest length {rest:.4g} m is not within {100 * ratio:g}% of the declared "
                       f"distance between its anchors ({d:.4g} m: {lo:.4g}-{hi:.4g} m)")
        if rest > extent + 1e-9:
            out.append(f"{s.id}: rest length {rest:.4g} m is longer than the build zone's extent ({extent:.3g} m)")
        stored += spring_energy(s.stiffness, rest, d)
    if stored > rules.spring_energy + ENERGY_TOLERANCE:
        out.append(f"the springs hold {stored:.4g} J at declaration (k (L - d)^2 / 2 over all springs), above the "
                   f"{rules.spring_energy:g} J this task allows")
    for j in design.joints:
        if j.limits is not None and not j.limits[0] - LIMIT_TOLERANCE <= 0.0 <= j.limits[1] + LIMIT_TOLERANCE:
            out.append(f"{j.id}: limits ({j.limits[0]:.4g}, {j.limits[1]:.4g}) rad do not hold the declared pose "
                       "(relative angle 0): the joint would be forced to a stop at t = 0")
    for p in design.parts:
        if p.kind == "block" and abs(p.angle) > MAX_ANGLE + 1e-9:
            out.append(f"{p.id}: block angle {p.angle:.4g} rad outside +-2 pi")
    return out
