"""Stage-4 reference: a deeper foam raft with tall foam chocks and a 1.5 m keel.

The waves are 0.8 m high: the tall crate, held only at its foot, tips over its low chocks when
the deck pitches and heaves (its base is 0.8 m wide, its centre 0.75 m up). Chocks 0.8 m tall
hold it above its centre of mass; foam keeps them light (the budget is 150 kg) and a 0.5 m hull
gives the freeboard for the higher waves; the keel still ties the raft to the current against the
gusting headwind.
"""


def boat(api, length, depth, chock_h, keel=0.0, keel_t=0.1, chock_w=0.2, mat="foam", chock_mat="wood",
         keel_mat="wood", gap=0.02):
    """A slab hull `length` x `depth` centred on the mean water level, a chock welded on its deck
    either side of the crate (`chock_h` tall), and optionally a keel plate `keel` metres deep
    welded under its middle; the crate sits on the deck between the chocks."""
    hull = api.block((0.0, 0.0), length, depth, material=mat)
    w = api.env["cargo_width"]
    for s in (-1, 1):
        x = s * (w / 2 + gap + chock_w / 2)
        chock = api.block((x, depth / 2 + chock_h / 2), chock_w, chock_h, material=chock_mat)
        api.rigid(hull, chock, (x, depth / 2))
    if keel > 0:
        k = api.beam((0.0, -depth / 2 + 0.05), (0.0, -depth / 2 - keel), thickness=keel_t, material=keel_mat)
        api.rigid(hull, k, (0.0, -depth / 2 + 0.02))
    api.place("cargo", (0.0, depth / 2 + api.env["cargo_height"] / 2))
    return hull


def build(api):
    boat(api, length=4.0, depth=0.5, chock_h=0.8, keel=1.5, chock_mat="foam")
