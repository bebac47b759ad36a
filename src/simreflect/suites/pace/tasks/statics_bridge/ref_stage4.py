"""Stage-4 reference: the shallow deck truss, propped by struts from both cliff faces.

Pivots now break at a lower force and the zone stays shallow, so the chord force M / d of the
stage-3 truss is too much. Struts from the cliff faces to the first and last bottom nodes carry
part of the load straight into the rock: the free span, and with it the moment, shrink. Slippery
tyres need a road without steep slopes: the stiffer structure sags less.
"""


def deck_truss(api, gap, depth, panels, deck=("wood", 0.25), chord=("wood", 0.2), web=("wood", 0.15),
               struts=None, strut=("wood", 0.2)):
    """A welded deck flush with the road, pinned in both seats, with a pinned Warren truss with
    verticals hung under it (bottom chord at y = -depth); optional struts from the cliff faces
    (at y = struts) to the first and last bottom nodes."""
    x0, x1 = -1.5, gap + 1.5
    y = -0.125
    xs = [gap * i / panels for i in range(panels + 1)]
    nodes = [x0] + xs + [x1]
    deck_parts = [api.beam((a, y), (b, y), thickness=deck[1], material=deck[0]) for a, b in zip(nodes, nodes[1:])]
    for i in range(1, len(deck_parts)):
        api.rigid(deck_parts[i - 1], deck_parts[i], (nodes[i], y))
    api.pivot(deck_parts[0], api.GROUND, (-1.0, -0.25))
    api.pivot(deck_parts[-1], api.GROUND, (gap + 1.0, -0.25))

    def deck_at(x):
        return deck_parts[nodes.index(x)]

    yb = -depth
    bottom = [(x, yb) for x in xs[1:-1]]
    chords = [api.beam(a, b, thickness=chord[1], material=chord[0]) for a, b in zip(bottom, bottom[1:])]
    for i in range(1, len(chords)):
        api.pivot(chords[i - 1], chords[i], bottom[i])

    def chord_at(k):
        return chords[k] if k < len(chords) else chords[-1]

    for k, (bx, by) in enumerate(bottom):
        v = api.beam((bx, y), (bx, by), thickness=web[1], material=web[0])
        api.pivot(v, deck_at(bx), (bx, y))
        api.pivot(v, chord_at(k), (bx, by))
    mid = gap / 2
    for i in range(len(xs) - 1):
        xa, xb = xs[i], xs[i + 1]
        top, bot = (xa, xb) if xb <= mid + 1e-9 else (xb, xa)
        if not xs[0] < bot < xs[-1]:
            continue
        k = xs[1:-1].index(bot)
        d = api.beam((top, y), (bot, yb), thickness=web[1], material=web[0])
        api.pivot(d, deck_at(top), (top, y))
        api.pivot(d, chord_at(k), (bot, yb))
    if struts is not None:
        for (fx, node, k) in ((0.0, bottom[0], 0), (gap, bottom[-1], len(bottom) - 1)):
            s = api.beam((fx, struts), node, thickness=strut[1], material=strut[0])
            api.pivot(s, api.GROUND, (fx, struts))
            api.pivot(s, chord_at(k), node)


def build(api):
    deck_truss(api, api.env["gap_width"], depth=1.5, panels=6, deck=("wood", 0.22), chord=("wood", 0.18), web=("wood", 0.1),
               struts=-1.5, strut=("wood", 0.15))
