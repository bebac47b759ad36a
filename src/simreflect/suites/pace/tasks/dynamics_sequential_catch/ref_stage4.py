"""Stage-4 reference: the stage-3 cart on foam wheels, on 45 N m motors.

The budget is 75 kg, so the rubber wheels (23 kg each at 0.43 m) give way to foam ones; the light
cart (72 kg) still reaches 2.6 m/s in about a second on the weaker motors and the slippery floor.
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
    cart(api, x=-2.4, speed=6.0, torque=45.0, r=0.43, width=1.6, wheelbase=1.2, body="foam", tyre="foam")
