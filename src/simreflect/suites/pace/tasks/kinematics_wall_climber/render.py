"""View and overlays of the chimney."""

from .world import World


def view(env):
    w = env["chimney_width"]
    return (-w / 2 - 1.0, -0.3, w / 2 + 1.0, env["climb_height"] + 1.5)


def overlays(env):
    z = World.zones(env)
    w, t = env["chimney_width"], env["climb_height"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(-w / 2, t), (w / 2, t)], "colour": "goal"}])
