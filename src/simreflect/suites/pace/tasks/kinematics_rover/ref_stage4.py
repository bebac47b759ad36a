"""Stage-4 reference: the rocker-bogie rover at the slower motors' full speed.

The curb is 0.5 m now, 83% of the largest wheel radius the zone allows: only the bogie, which
keeps two wheels pressing while the third climbs, gets over it. The motors turn at 4 rad/s at
most, 2.4 m/s on 0.6 m wheels, enough for the 13 m in 11 s; joints are weaker but a pinned bogie
spreads the impact at the curb over three axles.
"""


def bogie_rover(api, r, speed, torque, span, chassis_h, lift, half=1.5, mat="wood", limit=0.6):
    """Wheels within x in [-half, half]: a front bogie (a beam pinned under the chassis at its
    middle, a driven wheel at each end) and a driven rear wheel on a strut."""
    y = r
    ph = y + lift
    xf, xr = half - r, -half + r
    chassis = api.block(((xf + xr) / 2, ph + 0.05), xf - xr, chassis_h, material=mat)
    cx = xf - span / 2
    beam = api.beam((cx - span / 2, y), (cx + span / 2, y), thickness=0.15, material=mat)
    link = api.beam((cx, y), (cx, ph), thickness=0.15, material=mat)
    api.rigid(beam, link, (cx, y))
    api.pivot(chassis, link, (cx, ph), limits=(-limit, limit))
    for x in (cx - span / 2, cx + span / 2):
        wheel = api.wheel((x, y), r, material="rubber")
        api.pivot(beam, wheel, (x, y), motor_speed=speed, max_torque=torque)
    strut = api.beam((xr, y), (xr, ph), thickness=0.15, material=mat)
    api.rigid(strut, chassis, (xr, ph))
    wheel = api.wheel((xr, y), r, material="rubber")
    api.pivot(strut, wheel, (xr, y), motor_speed=speed, max_torque=torque)


def build(api):
    bogie_rover(api, r=0.6, speed=-4.0, torque=250.0, span=1.2, chassis_h=0.15, lift=0.25)
