"""Stage-1 reference: a pinned, triangulated shelter with a pitched roof.

Rocks three times heavier fall from higher up: a blow near the end of the flat roof puts a
bending moment (and a large force) on the welds at the post heads, and they break. A roof truss
(two pitched panels and a tie) carried on posts and raking braces, every joint a pin, makes every
member a two-force member: no joint carries torque, and the blows reach the ground as axial
forces. The pitched panels also shed the rocks instead of collecting them.
"""

def truss_roof(api, ridge=2.8, eave_x=2.0, eave_y=1.9, post_x=1.3, brace_x=2.3, t=0.15, tb=0.1, mat="wood"):
    """A pinned triangular roof truss (two panels and a tie), carried by two posts and two raking
    braces, all pinned: every member a two-force member, no joint carries torque."""
    left = api.beam((0.0, ridge), (-eave_x, eave_y), thickness=t, material=mat)
    right = api.beam((0.0, ridge), (eave_x, eave_y), thickness=t, material=mat)
    tie = api.beam((-eave_x, eave_y), (eave_x, eave_y), thickness=tb, material=mat)
    api.pivot(left, right, (0.0, ridge))
    api.pivot(left, tie, (-eave_x, eave_y))
    api.pivot(right, tie, (eave_x, eave_y))
    for s in (-1.0, 1.0):
        post = api.beam((s * post_x, 0.0), (s * post_x, eave_y), thickness=tb, material=mat)
        api.pivot(post, api.GROUND, (s * post_x, 0.0))
        api.pivot(post, tie, (s * post_x, eave_y))
        brace = api.beam((s * brace_x, 0.0), (s * post_x, eave_y), thickness=tb, material=mat)
        api.pivot(brace, api.GROUND, (s * brace_x, 0.0))
        api.pivot(brace, tie, (s * (post_x - 0.02), eave_y))


def build(api):
    truss_roof(api)
