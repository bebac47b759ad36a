"""Stage-2 reference: a light balance that uses leverage instead of mass.

Gravity is stronger and the fulcrum bearing is rated for only 4 kN: the stage-1 balance (245 kg
with 130 kg of loads) presses on it with about 4.9 kN. The moments only need sum(m x) = 0, so a
beam extended to x = -3.8 m (its own weight now helps the left side) with a 20 kg trim block,
a thinner keel and a 20 kg bob weigh about 115 kg: about 3.4 kN on the bearing.
"""

DENSITY = {"steel": 500.0, "wood": 180.0, "concrete": 800.0}
Y = 3.0


def balance(api, beam_t=0.12, beam_x0=None, keel_depth=1.5, keel_t=0.1, bob=(0.3, 0.3, "steel"),
            trim=(0.4, 0.4, "steel"), trim_side=-1.0, bias=0.0):
    """A beam across the fulcrum from beam_x0 (default: just past the left hook) to just past the
    right hook, a keel hanging keel_depth below the pin with a bob at its foot, and a trim block
    centred on the beam line, placed so that the moments about the pin (kg m) sum to `bias`
    (positive: the left end is heavier)."""
    e = api.env
    x0 = -e["left_arm"] - 0.1 if beam_x0 is None else beam_x0
    x1 = e["right_arm"] + 0.1
    beam = api.beam((x0, Y), (x1, Y), thickness=beam_t, material="wood")
    moment = DENSITY["wood"] * (x1 - x0) * beam_t * (x0 + x1) / 2  # kg m, x to the right
    moment += e["right_mass"] * e["right_arm"] - e["left_mass"] * e["left_arm"]
    keel = api.beam((0.0, Y), (0.0, Y - keel_depth + bob[1]), thickness=keel_t, material="wood")
    api.rigid(beam, keel, (0.0, Y - 0.02))
    b = api.block((0.0, Y - keel_depth + bob[1] / 2), bob[0], bob[1], material=bob[2])
    api.rigid(keel, b, (0.0, Y - keel_depth + bob[1]))
    tw, th, tm = trim
    mt = DENSITY[tm] * tw * th
    xt = -(moment + bias) / mt
    t = api.block((xt, Y), tw, th, material=tm)
    api.rigid(beam, t, (xt, Y))
    return xt


def build(api):
    balance(api, beam_t=0.06, beam_x0=-3.8, keel_t=0.06, bob=(0.2, 0.2, "steel"), trim=(0.2, 0.2, "steel"))
