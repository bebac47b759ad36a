"""Stage-2 reference: a longer foam raft (4 m) with wooden chocks either side of the crate.

The waves are higher and shorter, and the crate is slippery (friction 0.05): on a deck pitching
by more than atan(0.05) = 3 degrees it slides, and the 3 m raft pitches 15 degrees, long enough
for the crate to run off its end. Chocks welded to the deck hold it whatever the friction, and a
hull 4 m long (most of a 5 m wave) pitches less because it spans crest and trough.
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
    boat(api, length=4.0, depth=0.5, chock_h=0.3)
