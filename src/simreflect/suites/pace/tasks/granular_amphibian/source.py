"""Source design: a two-wheel-drive car, wheels of 0.45 m on a 1.6 m wheelbase (it fords the
shallow river on its wheels: its steel chassis keeps it heavier than the water it displaces)."""


def build(api):
    r = 0.45
    chassis = api.block((0.0, r + 0.1), 2.0, 0.3, material="steel")
    for x in (-0.8, 0.8):
        wheel = api.wheel((x, r), r, material="rubber")
        api.pivot(chassis, wheel, (x, r), motor_speed=-5.0, max_torque=300.0)
