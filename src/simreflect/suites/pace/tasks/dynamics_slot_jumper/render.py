"""View and overlays of the jump."""

from .world import World


def view(env):
    return (-8.5, -0.5, env["land_end"] + 1.5, max(env["zone_height"], 4.0) + 1.0)


def overlays(env):
    z = World.zones(env)
    lo, hi = env["land_start"], env["land_end"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(lo, 0.02), (hi, 0.02)], "colour": "goal"}])
