"""Source design: one concrete block, 0.8 m wide and 1.4 m tall, resting on the ground (a gravity dam)."""


def build(api):
    api.block((-1.0, 0.7), 0.8, 1.4, material="concrete")
