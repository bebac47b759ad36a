"""View and overlays of the drop."""

from .world import World


def view(env):
    H = env["drop_height"]
    return (-14.0, -1.0, 14.0, H + 5.0)


def overlays(env):
    z = World.zones(env)
    out = [{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
    left, right = env["strip_x"] - env["strip_width"] / 2, env["strip_x"] + env["strip_width"] / 2
    out.append({"kind": "line", "points": [(left, 0.03), (right, 0.03)], "colour": "goal"})
    return out
