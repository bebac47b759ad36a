"""View and overlays of the catching floor."""

from .world import World


def view(env):
    last = env["first_drop_x"] + (env["ball_count"] - 1) * env["drop_spacing"]
    top = env["drop_height"] + max(0.0, env["ball_count"] - 1) * env["height_step"]
    return (-4.5, -0.5, last + 3.0, top + 0.5)


def overlays(env):
    z = World.zones(env)
    out = [{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
    for t, x, h in World(None, env).drops():
        out.append({"kind": "line", "points": [(x, h + 0.3), (x, h + 0.5)], "colour": "marker"})
    return out
