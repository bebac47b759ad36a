"""Stage-1 reference: the source cart, started 0.9 m further back.

Gravity is weaker and the balls fall from 8 m: each fall takes sqrt(2 h / g) = 1.51 s instead of
1.01 s, so every ball lands half a second later, when the cart (at 1.8 m/s) is 0.9 m further on.
The landings are still 1 s and 1.8 m apart, so the same speed works from a start 0.9 m further back.
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
    cart(api, x=-2.75, speed=6.0, torque=150.0, width=1.0, wheelbase=0.7)
