"""Stage-1 reference: the collar moved up near the antenna, anchors further out, more damping.

The air now feeds the sway at 0.6 /s: on the mast and its antenna (about 3900 kg m^2 about the
foot) that is a negative damping moment of about 2.3 kN m s per rad/s. A guy at height h anchored
at distance a resists the sway with a moment lever of h a / sqrt(a^2 + h^2), and both its
stiffness and its damping enter with the square of that lever: a damper at 7.5 m reaching out
4.5 m gives 30 times its damping (6 kN m s at 200 N s/m), well above what the air feeds.
"""


def guys(api, h, a, k, c, material="wood"):
    """A collar at height h, guyed to both sides by a spring-damper from a ground anchor at |x| = a
    (stiffness k, damping c each)."""
    collar = api.block((0.0, h), 0.2, 0.2, material=material)
    for x in (-a, a):
        api.spring(api.GROUND, collar, (x, 0.0), (0.0, h), stiffness=k, damping=c)


def build(api):
    guys(api, h=7.5, a=4.5, k=1500.0, c=200.0)
