"""View and overlays of the pipeline."""

from .world import BIN_WALL, World


def view(env):
    return (-3.0, -0.5, env["bin_x"] + 2.5, 10.5)


def overlays(env):
    z = World.zones(env)
    b0, b1 = env["bin_x"] - env["bin_width"] / 2, env["bin_x"] + env["bin_width"] / 2
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(b0, env["bin_floor"] + BIN_WALL), (b1, env["bin_floor"] + BIN_WALL)], "colour": "goal"}])
