"""View and overlays of the lift site."""

from .world import World


def view(env):
    return (-3.0, -0.3, 3.0, env["target_height"] + 1.2)


def overlays(env):
    z = World.zones(env)
    t = env["target_height"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(-2.5, t), (2.5, t)], "colour": "goal"}])
