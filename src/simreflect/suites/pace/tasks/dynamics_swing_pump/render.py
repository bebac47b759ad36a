"""View and overlays of the swing."""

from .world import SEAT_Y, World


def view(env):
    L = env["rope_length"]
    return (-L - 1.0, -0.5, L + 1.0, SEAT_Y + L + 0.5)


def overlays(env):
    z = World.zones(env)
    L, h = env["rope_length"], env["target_height"]
    import math
    out = [{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
    y = SEAT_Y + h
    if h < L:
        dx = math.sqrt(max(0.0, L * L - (L - h) ** 2))
        out += [{"kind": "line", "points": [(dx - 0.3, y), (dx + 0.3, y)], "colour": "goal"},
                {"kind": "line", "points": [(-dx - 0.3, y), (-dx + 0.3, y)], "colour": "goal"}]
    return out
