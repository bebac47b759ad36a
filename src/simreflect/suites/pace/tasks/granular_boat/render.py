"""View and overlays of the river reach."""

from .world import GOAL_X, WATER_X, World


def view(env):
    return (-4.0, -3.0, GOAL_X + 3.0, 4.0)


def overlays(env):
    z = World.zones(env)
    surface = [(WATER_X[0], 0.0), (WATER_X[1], 0.0)]  # the mean water level (the waves move about it)
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": surface, "colour": "marker"}]
            + [{"kind": "line", "points": [(GOAL_X, -1.0), (GOAL_X, 3.0)], "colour": "goal"}])
