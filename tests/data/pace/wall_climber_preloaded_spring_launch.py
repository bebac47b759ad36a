"""A pre-loaded spring between two rubber blocks: no motor, no wall contact."""


def build(api):
    H = api.env["zone_height"]
    base = api.block((0.0, 0.06), 0.3, 0.1, material="rubber")
    top = api.block((0.0, H - 0.1), 0.3, 0.1, material="rubber")
    api.spring(base, top, (0.0, 0.06), (0.0, H - 0.1), stiffness=2000.0, damping=0.0, rest_length=2.0)
