"""Stage-3 reference: a rocker-bogie rover on 0.6 m wheels.

The lower zone caps the wheels at 0.625 m, and with stronger gravity a two-wheel car that gets its
front wheels onto the plateau cannot pull its rear wheel up after them: the front wheel carries
too little load for the traction needed. A bogie (two driven wheels on a beam pinned under the
chassis) lets the front wheels follow the step while the chassis stays level, so three driven
wheels share the climb and two of them always carry load.
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
    bogie_rover(api, r=0.6, speed=-4.0, torque=250.0, span=1.2, chassis_h=0.12, lift=0.2)
