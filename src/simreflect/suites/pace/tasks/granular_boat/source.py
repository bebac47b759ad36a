"""Source design: a wooden raft (2.4 m x 0.25 m) with the crate in the middle of its deck."""


def build(api):
    api.block((0.0, 0.0), 2.4, 0.25, material="wood")
    api.place("cargo", (0.0, 0.125 + api.env["cargo_height"] / 2))
