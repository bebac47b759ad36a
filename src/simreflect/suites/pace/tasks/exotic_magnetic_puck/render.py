"""View and overlays of the air table."""

import math

from .world import FIELD_X, TABLE, World


def view(env):
    x0, y0, x1, y1 = TABLE
    return (x0 - 0.5, y0 - 0.5, x1 + 0.5, y1 + 0.5)


def overlays(env):
    z = World.zones(env)
    out = [{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
    out.append({"kind": "line", "points": [(FIELD_X, TABLE[1]), (FIELD_X, TABLE[3])], "colour": "marker"})
    cx, cy, r = env["target_x"], env["target_y"], env["target_radius"]
    out.append({"kind": "polygon", "colour": "goal",
                "points": [(cx + r * math.cos(2 * math.pi * k / 24), cy + r * math.sin(2 * math.pi * k / 24))
                           for k in range(24)]})
    return out
