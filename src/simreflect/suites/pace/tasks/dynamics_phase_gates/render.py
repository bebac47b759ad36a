"""View and overlays of the gated track."""

from .world import World


def view(env):
    return (-8.5, -0.5, env["finish_x"] + 1.0, max(env["zone_height"], 3.0) + 0.5)


def overlays(env):
    z = World.zones(env)
    f = env["finish_x"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(f, 0.0), (f, 1.0)], "colour": "goal"}])
