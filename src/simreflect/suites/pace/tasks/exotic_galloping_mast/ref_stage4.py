"""Stage-4 reference: four pairs of guys near the top share the load.

The antenna is 70 kg and gravity stronger: the air now feeds about 3.5 kN m s (it acts on the
larger moment of inertia) and gravity's toppling moment grows. Two pairs barely damp that, and
their guys peak at about 670 N in the first swing, above the 500 N rating. Four pairs (7.75 to
6.85 m, 7000 N/m, 120 N s/m each) damp with about 7 kN m s and share the gust and the wind so
that no guy carries more than about 370 N.
"""


def guys(api, h, a, k, c, material="wood"):
    """A collar at height h, guyed to both sides by a spring-damper from a ground anchor at |x| = a
    (stiffness k, damping c each)."""
    collar = api.block((0.0, h), 0.2, 0.2, material=material)
    for x in (-a, a):
        api.spring(api.GROUND, collar, (x, 0.0), (0.0, h), stiffness=k, damping=c)


def build(api):
    for h in (7.75, 7.45, 7.15, 6.85):
        guys(api, h=h, a=3.0, k=7000.0, c=120.0)
