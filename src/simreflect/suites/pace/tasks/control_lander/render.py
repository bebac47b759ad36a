"""View and overlays of the landing site."""


def view(env):
    return (min(env["start_x"], env["pad_x"]) - 6.0, -1.0, max(env["start_x"], env["pad_x"]) + 6.0,
            env["start_altitude"] + 3.0)


def overlays(env):
    left, right = env["pad_x"] - env["pad_width"] / 2, env["pad_x"] + env["pad_width"] / 2
    return [{"kind": "line", "points": [(left, 0.02), (right, 0.02)], "colour": "goal"}]
