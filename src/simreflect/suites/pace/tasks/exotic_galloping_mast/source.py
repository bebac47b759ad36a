"""Source design: one collar at mid-height, guyed to both sides by a spring-damper."""


def guys(api, h, a, k, c, material="wood"):
    """A collar at height h, guyed to both sides by a spring-damper from a ground anchor at |x| = a
    (stiffness k, damping c each)."""
    collar = api.block((0.0, h), 0.2, 0.2, material=material)
    for x in (-a, a):
        api.spring(api.GROUND, collar, (x, 0.0), (0.0, h), stiffness=k, damping=c)


def build(api):
    guys(api, h=4.0, a=3.5, k=1500.0, c=100.0)
