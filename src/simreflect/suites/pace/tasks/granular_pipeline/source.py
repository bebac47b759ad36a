"""Source design: a steel plank at 25 degrees from under the outlet down to the bin, with a
backstop at its upper end, on one post."""

import math


def chute(api, x0, y0, x1, y1, posts, t=0.1, back=0.5, mat="steel"):
    plank = api.beam((x0, y0), (x1, y1), thickness=t, material=mat)
    api.rigid(plank, api.GROUND, (x0, y0))
    stop = api.beam((x0, y0), (x0, y0 + back), thickness=t, material=mat)
    api.rigid(stop, plank, (x0, y0))
    for x in posts:
        y = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        post = api.beam((x, 0.0), (x, y), thickness=t, material=mat)
        api.rigid(post, api.GROUND, (x, 0.05))
        api.rigid(post, plank, (x, y))
    return plank


def build(api):
    x0, y0, x1 = -0.6, 5.3, 6.5
    y1 = y0 - (x1 - x0) * math.tan(math.radians(25))
    chute(api, x0, y0, x1, y1, posts=[4.0])
