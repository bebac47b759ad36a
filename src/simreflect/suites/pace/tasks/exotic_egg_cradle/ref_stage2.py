"""Stage-2 reference: softer and far more damped.

Gravity now pulses by 90% every 0.45 s: it shakes egg and tray like a moving floor. Near the
cradle's natural frequency the pulse pumps energy in every cycle; the egg must end slower than
0.7 m/s. Damping of 300 N s/m dissipates what each pulse puts in, and a softer spring moves the
natural frequency below the pulse, where the cradle responds less.
"""


def cradle(api, width, x0, tray_h, k, c, cross, t, wall=0.4, material="foam"):
    """A light tray at height tray_h (centred at x0) on two vertical spring-dampers from the ground
    (total stiffness k, damping c), two crossed diagonal springs (total stiffness `cross`) that keep
    it from swaying sideways, and two low walls at its ends."""
    tray = api.beam((x0 - width / 2, tray_h), (x0 + width / 2, tray_h), thickness=t, material=material)
    for x in (x0 - width / 2 + 0.1, x0 + width / 2 - 0.1):
        api.spring(api.GROUND, tray, (x, 0.0), (x, tray_h), stiffness=k / 2, damping=c / 2)
    for side in (-1, 1):
        api.spring(api.GROUND, tray, (side * 1.45, 0.0), (x0 - side * (width / 2 - 0.05), tray_h),
                   stiffness=cross / 2, damping=c / 2)
    for x in (x0 - width / 2, x0 + width / 2):
        post = api.beam((x, tray_h), (x, tray_h + wall), thickness=t, material=material)
        api.rigid(tray, post, (x, tray_h))


def build(api):
    cradle(api, width=1.2, x0=0.0, tray_h=1.05, k=1500.0, c=300.0, cross=800.0, t=0.03)
