"""Stage-3 reference: two stiff, damped pairs of guys near the top, steep within the near anchors.

Anchors now lie within 3 m and dampers give at most 120 N s/m. Steep guys lose leverage
(h a / sqrt(a^2 + h^2) is only 2.8 m at h = 7.75 m, a = 3 m), so one pair damps with about
1.9 kN m s, less than the air feeds (2.3). A second collar just below doubles both the damping
(about 3.7 kN m s) and the stiffness (about 250 kN m per rad, a 0.08 m lean in the wind).
"""


def guys(api, h, a, k, c, material="wood"):
    """A collar at height h, guyed to both sides by a spring-damper from a ground anchor at |x| = a
    (stiffness k, damping c each)."""
    collar = api.block((0.0, h), 0.2, 0.2, material=material)
    for x in (-a, a):
        api.spring(api.GROUND, collar, (x, 0.0), (0.0, h), stiffness=k, damping=c)


def build(api):
    guys(api, h=7.75, a=3.0, k=8000.0, c=120.0)
    guys(api, h=7.45, a=3.0, k=8000.0, c=120.0)
