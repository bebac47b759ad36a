"""View and overlays of the excavation site."""

from .world import World


def view(env):
    return (-4.4, -1.2, 5.6, 6.0)


def overlays(env):
    z = World.zones(env)
    x0, x1, H = World.bin_interior(env)
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"] + z["anchors"]]
            + [{"kind": "line", "points": [(x0, H), (x1, H)], "colour": "goal"}])
