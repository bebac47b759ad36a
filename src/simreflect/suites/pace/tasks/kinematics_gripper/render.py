"""View and overlays of the gripper site."""

from .world import PLATE_TOP, PLATE_X, World


def view(env):
    return (-3.0, -0.3, 2.5, max(env["zone_height"], env["target_height"]) + 0.8)


def overlays(env):
    z = World.zones(env)
    t = env["target_height"]
    p0, p1 = PLATE_X
    return ([{"kind": "polygon", "points": p, "colour": "zone"} for p in z["build"]]
            + [{"kind": "polygon", "points": [(p0, 0.0), (p1, 0.0), (p1, PLATE_TOP), (p0, PLATE_TOP)],
                "colour": "marker"},
               {"kind": "line", "points": [(env["ball_x"] - 1.0, t), (env["ball_x"] + 1.0, t)], "colour": "goal"}])
