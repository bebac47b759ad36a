"""Source design: a wooden beam across the fulcrum with a keel and a steel bob below it, trimmed
by a small steel block so that the moments about the pin cancel."""


def build(api):
    y = 3.0
    beam = api.beam((-2.1, y), (2.6, y), thickness=0.12, material="wood")  # 101.5 kg, centre x = 0.25
    keel = api.beam((0.0, y), (0.0, y - 1.5), thickness=0.1, material="wood")
    api.rigid(beam, keel, (0.0, y - 0.03))
    bob = api.block((0.0, y - 1.65), 0.3, 0.3, material="steel")  # 45 kg, 1.65 m below the pin
    api.rigid(keel, bob, (0.0, y - 1.5))
    # moments about the pin (kg m): loads -60 x 2 + 40 x 2.5 = -20, beam +25.4; a 20 kg trim cancels +5.4
    trim = api.block((-0.27, y + 0.16), 0.2, 0.2, material="steel")
    api.rigid(beam, trim, (-0.27, y + 0.06))
