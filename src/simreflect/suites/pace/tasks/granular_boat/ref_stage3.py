"""Stage-3 reference: a shallower foam raft with low chocks and a 1.7 m keel plate.

The crate is 1.5 m tall and a headwind blows upstream: the wind's drag on what stands above the
water (about 0.7 H (w - v)^2 N per metre of height) holds the raft back against the current,
whose drag on the shallow hull is weak. A keel plate reaching 1.7 m down has ten times the hull's
frontal area under the water: the current's form drag on it ties the raft to the current. A
shallower hull (0.35 m) and low chocks keep less of the boat in the wind, within 150 kg.
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
    boat(api, length=4.0, depth=0.35, chock_h=0.3, keel=1.7)
