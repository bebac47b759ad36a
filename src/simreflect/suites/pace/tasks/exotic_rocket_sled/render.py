"""View and overlays of the rail."""


def view(env):
    return (-3.0, -1.0, env["dock_x"] + 6.0, 6.0)


def overlays(env):
    D, tol = env["dock_x"], env["dock_tolerance"]
    out = [{"kind": "line", "points": [(D - tol, 0.05), (D + tol, 0.05)], "colour": "goal"}]
    out.append({"kind": "line", "points": [(env["dust_start"], 0.1), (env["dust_end"], 0.1)], "colour": "marker"})
    return out
