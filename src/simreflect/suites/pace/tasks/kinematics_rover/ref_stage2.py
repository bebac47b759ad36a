"""Stage-2 reference: 0.7 m wheels within the weaker motors' torque.

The ditch (0.9 m) is narrower than the 1.4 m wheels, which roll over its edges; the motors may only
give 250 N m, which on 0.7 m wheels is a drive force of 360 N each, still enough for this light
car (about 290 kg) to climb the curb.
"""


def build(api):
    r = 0.7
    chassis = api.block((0.0, r + 0.1), 2.0, 0.3, material="wood")
    for x in (-0.8, 0.8):
        wheel = api.wheel((x, r), r, material="rubber")
        api.pivot(chassis, wheel, (x, r), motor_speed=-5.0, max_torque=250.0)
