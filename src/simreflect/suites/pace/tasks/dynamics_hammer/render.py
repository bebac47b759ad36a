"""View and overlays of the hammer bay."""

from .world import World


def view(env):
    return (-4.5, -0.5, env["zone_end"] + 1.5, max(env["zone_height"], 2.0) + 0.5)


def overlays(env):
    z = World.zones(env)
    lo, hi = env["zone_start"], env["zone_end"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "polygon", "points": [(lo, 0.0), (hi, 0.0), (hi, 0.6), (lo, 0.6)], "colour": "goal"}])
