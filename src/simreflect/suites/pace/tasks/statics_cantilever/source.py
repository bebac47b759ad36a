"""Source design: one wooden beam welded to the rock face, reaching just past the hook."""


def build(api):
    reach = api.env["reach"]
    beam = api.beam((0.0, 0.0), (reach + 0.2, 0.0), thickness=0.3, material="wood")
    api.rigid(beam, api.GROUND, (0.0, 0.0))
