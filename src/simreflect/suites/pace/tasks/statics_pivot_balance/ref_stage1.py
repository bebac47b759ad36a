"""Stage-1 reference: the source's balance, re-trimmed for the new loads.

The right load is heavier and the left hook closer to the pin: the loads' moments no longer cancel
(+79 kg m, right end heavy), a torque of about 775 N m against a keel whose righting stiffness
m g d is about 900 N m per radian, so the beam swings far over. Moment balance sum(m x) = 0 about
the pin is restored by an 80 kg steel trim block on the beam line at x = -1.5 m.
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
    balance(api)
