"""Stage-3 reference: a wider (1.6 m), light foam basket on 0.43 m wheels.

Each ball now falls from 0.8 m lower: the falls shorten (1.51, 1.43, 1.35, 1.27 s), so the
landings come about 0.92 s apart and the cart must run at 2.4 / 0.92 = 2.6 m/s (6 rad/s on 0.43 m
wheels). Four balls need room, and the wind carries each ball downwind while it falls, by an amount
that grows with the fall time: a 1.6 m basket holds them all and covers the spread.
"""



def cart(api, x, speed, torque, r=0.3, width=1.6, wall=0.8, wheelbase=1.2, body="wood", wheels=2, tyre="rubber"):
    """A chassis on two driven wheels (centre `x`), a basket of `width` with walls `wall` high on
    top. `wheels` driven wheels spread over
    the `wheelbase` turn clockwise (to the right) at `speed` rad/s with at most `torque` N m each."""
    chassis = api.block((x, r + 0.05), width, 0.2, material=body)
    y = r + 0.2  # the basket floor's centre line
    base = api.beam((x - width / 2, y), (x + width / 2, y), thickness=0.1, material=body)
    api.rigid(chassis, base, (x, y - 0.05))
    for side in (-1, 1):
        wx = x + side * (width / 2 - 0.05)
        w = api.beam((wx, y), (wx, y + wall), thickness=0.1, material=body)
        api.rigid(base, w, (wx, y))
    for k in range(wheels):
        hx = x - wheelbase / 2 + wheelbase * k / (wheels - 1)
        wheel = api.wheel((hx, r), r, material=tyre)
        api.pivot(chassis, wheel, (hx, r), motor_speed=-speed, max_torque=torque)


def build(api):
    cart(api, x=-2.6, speed=6.0, torque=150.0, r=0.43, width=1.6, wheelbase=1.2, body="foam")
