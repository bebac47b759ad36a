"""View and overlays of the filter."""

from .world import BIN_WALL, FINES, World


def view(env):
    return (-3.0, -0.5, 7.5, 7.2)


def overlays(env):
    z = World.zones(env)
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(FINES[0], BIN_WALL), (FINES[1], BIN_WALL)], "colour": "goal"}])
