"""View and overlays of the cart-pole track."""


def view(env):
    h = env["track_half"]
    return (-h - 0.6, -0.2, h + 0.6, 0.8 + env["pole_length"] + 0.4)


def overlays(env):
    s = env["settle_x"]
    return [{"kind": "line", "points": [(-s, 0.1), (s, 0.1)], "colour": "goal"}]
