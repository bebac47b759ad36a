"""View and overlays of the trough."""

from .world import World, geometry


def view(env):
    R, c, lip = geometry(env)
    return (-R - 0.6, lip[1] - 1.2, R + 1.5, env["zone_height"] + 0.3)


def overlays(env):
    z = World.zones(env)
    R, c, lip = geometry(env)
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "polygon", "points": p, "colour": "marker"} for p in z["anchors"]]
            + [{"kind": "line", "points": [lip, (lip[0], lip[1] - 1.0)], "colour": "goal"}])
