"""View and overlays of the walking course."""

from .world import GOAL_X, World


def view(env):
    return (-3.0, -2.0, 14.0, 4.0)


def overlays(env):
    z = World.zones(env)
    h = env["step_height"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(GOAL_X, h), (GOAL_X, h + 2.0)], "colour": "goal"}])
