"""View and overlays of the lock flight: the water surfaces of the pools and chambers at the
start (the GIF draws bodies; the levels are the environment's starting values)."""

from .world import SPANS


def view(env):
    return (-15.5, -0.5, 30.5, 8.0)


def overlays(env):
    lv = [env["lower_level"], env["lower_level"], env["chamber2_level"], env["upper_level"]]
    out = []
    for (x0, x1), h in zip(SPANS, lv):
        out.append({"kind": "line", "points": [(x0, h), (x1, h)], "colour": "target"})
    out.append({"kind": "line", "points": [(22.0, 2.5), (22.0, 5.0)], "colour": "goal"})
    return out
