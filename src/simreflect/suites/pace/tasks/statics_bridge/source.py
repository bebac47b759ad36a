"""Source design: a plain steel deck of welded beams resting in the bearing seats, pinned at both ends."""


def build(api):
    gap = 10.0
    n = 6
    x0, x1 = -1.5, gap + 1.5
    seg = (x1 - x0) / n
    y = -0.125
    beams = [api.beam((x0 + i * seg, y), (x0 + (i + 1) * seg, y), thickness=0.25, material="steel") for i in range(n)]
    for i in range(1, n):
        api.rigid(beams[i - 1], beams[i], (x0 + i * seg, y))
    api.pivot(beams[0], api.GROUND, (-1.0, -0.25))
    api.pivot(beams[-1], api.GROUND, (gap + 1.0, -0.25))
