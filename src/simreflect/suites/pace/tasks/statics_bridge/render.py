"""View and overlays of the cart bridge."""

from . import world as w


def view(env):
    W = env["gap_width"]
    return (w.START_X - 2.0, -env["zone_depth"] - 2.0, W + 5.0, env["zone_height"] + 2.0)


def overlays(env):
    z = w.World.zones(env)
    goal = env["gap_width"] + 3.0
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(goal, 0.0), (goal, 2.0)], "colour": "goal"}])
