"""View and overlays of the pivot balance."""

from .world import PIVOT_Y, World


def view(env):
    return (-5.0, -0.5, 5.0, PIVOT_Y + 1.5)


def overlays(env):
    z = World.zones(env)
    stand = [(-0.5, 0.0), (0.0, PIVOT_Y), (0.5, 0.0)]  # the fulcrum stand (behind the beam's plane)
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": stand, "colour": "marker"},
               {"kind": "line", "points": [(-4.0, PIVOT_Y), (4.0, PIVOT_Y)], "colour": "goal"}])
