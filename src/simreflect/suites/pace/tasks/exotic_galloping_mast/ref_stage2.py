"""Stage-2 reference: the same guys made stiff.

A steady wind on the antenna leans the mast by F H / K (K: the guys' restoring moment per radian
less the m g h that gravity adds to any lean of an upright mast). The soft guys leave the top about
half a metre downwind; 8000 N/m guys give K of about 230 kN m per rad and a lean of 0.08 m, inside
the 0.12 m tolerance.
"""


def guys(api, h, a, k, c, material="wood"):
    """A collar at height h, guyed to both sides by a spring-damper from a ground anchor at |x| = a
    (stiffness k, damping c each)."""
    collar = api.block((0.0, h), 0.2, 0.2, material=material)
    for x in (-a, a):
        api.spring(api.GROUND, collar, (x, 0.0), (0.0, h), stiffness=k, damping=c)


def build(api):
    guys(api, h=7.5, a=4.5, k=8000.0, c=200.0)
