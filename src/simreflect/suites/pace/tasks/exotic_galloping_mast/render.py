"""View and overlays of the mast site."""

from .world import World


def view(env):
    a = env["anchor_max"] + 1.0
    return (-a, -0.5, a, env["mast_height"] + 1.0)


def overlays(env):
    z = World.zones(env)
    out = [{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"] + z["anchors"]]
    tol = env["sway_tolerance"]
    H = env["mast_height"]
    out.append({"kind": "line", "points": [(-tol, H + 0.5), (tol, H + 0.5)], "colour": "goal"})
    return out
