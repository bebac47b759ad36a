"""View and overlays of the seismic tower site."""

from .world import World


def view(env):
    return (-4.0, -0.5, 4.0, env["height"] + 1.5)


def overlays(env):
    z = World.zones(env)
    b = env["base_half"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(-b, 0.02), (b, 0.02)], "colour": "marker"}])
