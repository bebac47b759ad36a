"""View and overlays of the overhang stack."""

from .world import TABLE_TOP, World


def view(env):
    return (-2.0, 0.0, env["target_overhang"] + 1.5, TABLE_TOP + env["zone_height"] + 0.3)


def overlays(env):
    z = World.zones(env)
    x = env["target_overhang"]
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "line", "points": [(x, TABLE_TOP - 0.3), (x, TABLE_TOP + env["zone_height"])],
                "colour": "goal"}])
