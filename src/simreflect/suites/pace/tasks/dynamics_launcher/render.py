"""View and overlays of the launch range."""

from .world import World


def view(env):
    return (-3.5, -0.5, env["basket_distance"] + 2.0, 6.0)


def overlays(env):
    z = World.zones(env)
    return [{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
