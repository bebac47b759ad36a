"""View and overlays of the cantilever site."""

from .world import World


def view(env):
    return (-2.0, -env["zone_depth"] - 2.0, env["reach"] + 2.0, env["zone_height"] + 1.0)


def overlays(env):
    z = World.zones(env)
    L = env["reach"]
    s = env["max_sag"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(L - 0.3, -s), (L + 0.3, -s)], "colour": "goal"}])
