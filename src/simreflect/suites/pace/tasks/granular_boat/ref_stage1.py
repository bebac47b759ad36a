"""Stage-1 reference: a foam raft, 3 m x 0.5 m, the crate in the middle of its deck.

The crate is three times heavier and there are waves. The wooden raft displaces at most
0.6 m^2 x 1000 kg/m^2 = 600 kg and weighs 108 kg: loaded with 450 kg it floats with 2 cm of
freeboard and the first wave runs over the deck. Foam weighs 40 kg/m^2: a raft of 1.5 m^2 weighs
60 kg and could carry 1440 kg, so with the crate it floats 0.17 m deep with 0.33 m to spare.
"""


def build(api):
    api.block((0.0, 0.0), 3.0, 0.5, material="foam")
    api.place("cargo", (0.0, 0.25 + api.env["cargo_height"] / 2))
