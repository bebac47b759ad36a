"""Source design: a flat wooden roof 2 m up on two wooden posts, everything welded."""


def build(api):
    y = 2.0
    roof = api.beam((-1.6, y), (1.6, y), thickness=0.15, material="wood")
    for x in (-1.3, 1.3):
        post = api.beam((x, 0.0), (x, y), thickness=0.15, material="wood")
        api.rigid(post, api.GROUND, (x, 0.0))
        api.rigid(post, roof, (x, y))
