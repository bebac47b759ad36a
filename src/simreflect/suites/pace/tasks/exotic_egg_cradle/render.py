"""View and overlays of the drop site."""

from .world import World


def view(env):
    return (-4.0, -0.5, 4.0, env["drop_height"] + 1.0)


def overlays(env):
    return [{"kind": "polygon", "points": p, "colour": "zone"} for p in World.zones(env)["build"]]
