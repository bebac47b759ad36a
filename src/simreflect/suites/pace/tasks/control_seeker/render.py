"""View and overlays of the seeker's arena."""

from .world import ARENA, beacon_start


def view(env):
    x0, y0, x1, y1 = ARENA
    return (x0 - 1.0, y0 - 1.0, x1 + 1.0, y1 + 1.0)


def overlays(env):
    import math

    h = env["target_heading"]
    x, y = beacon_start(env)
    return [{"kind": "line", "points": [(x, y), (x + 60 * math.cos(h), y + 60 * math.sin(h))], "colour": "goal"}]
