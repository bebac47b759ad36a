"""View and overlays of the debris shelter site."""

from .world import KEEP, World


def view(env):
    return (-4.0, -0.3, 4.0, env["drop_height"] + 0.5)


def overlays(env):
    x0, x1, y0, y1 = KEEP
    z = World.zones(env)
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "polygon", "points": [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], "colour": "target"}])
