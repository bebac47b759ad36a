"""View and overlays of the dam site."""

from .world import LEAK_X, World


def view(env):
    return (-12.0, -1.0, 4.0, 4.0)


def overlays(env):
    z = World.zones(env)
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(LEAK_X, 0.0), (LEAK_X, 1.0)], "colour": "goal"}])
