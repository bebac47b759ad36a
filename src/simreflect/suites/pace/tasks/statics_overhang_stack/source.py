"""Source design: the classic harmonic staircase of four 1 m wooden blocks, each sub-stack's centre
of mass kept 10% short of the edge it rests on (offsets 0.9 x L/2n from the top down)."""


def build(api):
    L, h = 1.0, 0.2
    s = 0.9
    n = 4
    right = 0.0  # right edge of the block below (the table edge for the bottom block)
    edges = []
    for k in range(n, 0, -1):  # bottom block first: it overhangs its support by s L / (2 n)
        right += s * L / (2 * k)
        edges.append(right)
    for i, r in enumerate(edges):
        api.block((r - L / 2, 1.0 + h / 2 + i * h), L, h, material="wood")
