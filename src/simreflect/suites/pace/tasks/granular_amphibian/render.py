"""View and overlays of the river crossing."""

from .world import GOAL_BEYOND, LEVEL, World


def view(env):
    x0, x1, x2, x3, bed = World.geometry(env)
    return (-3.0, bed - 0.5, x3 + 5.0, 3.0)


def overlays(env):
    z = World.zones(env)
    x0, x1, x2, x3, bed = World.geometry(env)
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(x1, LEVEL), (x2, LEVEL)], "colour": "marker"}]
            + [{"kind": "line", "points": [(x3 + GOAL_BEYOND, 0.0), (x3 + GOAL_BEYOND, 2.0)], "colour": "goal"}])
