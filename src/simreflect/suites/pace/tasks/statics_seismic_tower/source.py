"""Source design: one wooden column welded to the ground, the tank pinned at its top."""


def build(api):
    h = api.env["height"]
    col = api.beam((0.0, 0.0), (0.0, h + 0.2), thickness=0.3, material="wood")
    api.rigid(col, api.GROUND, (0.0, 0.0))
