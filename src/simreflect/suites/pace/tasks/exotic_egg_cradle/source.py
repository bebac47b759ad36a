"""Source design: a 2 m foam tray on two stiff springs (3000 N/m in all) 0.6 m above the ground,
with low walls at its ends."""


def build(api):
    y = 0.6
    tray = api.beam((-1.0, y), (1.0, y), thickness=0.06, material="foam")
    for x in (-0.9, 0.9):
        api.spring(api.GROUND, tray, (x, 0.0), (x, y), stiffness=1500.0, damping=75.0)
    for x in (-1.0, 1.0):
        post = api.beam((x, y), (x, y + 0.4), thickness=0.06, material="foam")
        api.rigid(tray, post, (x, y))
