"""View and overlays of the clock case."""

from .world import World


def view(env):
    w, d = env["case_half_width"], env["case_depth"]
    return (-w - 0.5, -d - 0.3, w + 0.5, 0.8)


def overlays(env):
    z = World.zones(env)
    return [{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"] + z["anchors"]]
