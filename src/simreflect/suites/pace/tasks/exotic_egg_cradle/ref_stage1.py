"""Stage-1 reference: a lighter, narrower tray on softer springs, as high as the zone allows.

From 8 m the egg arrives at about 11 m/s and may feel only 18 g. The first jolt is the momentum it
shares with the tray (the lighter the tray, the smaller the jump in speed); then the springs must
stop it over a long stroke: at 18 g it takes at least v^2 / (2 a) = 0.35 m, and a linear spring
peaks at twice its mean force, so the tray sits 1.05 m up on 2500 N/m. Two crossed springs keep
the tray from swaying off its vertical supports (an inverted pendulum otherwise).
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
    cradle(api, width=1.2, x0=0.0, tray_h=1.05, k=2500.0, c=80.0, cross=800.0, t=0.03)
