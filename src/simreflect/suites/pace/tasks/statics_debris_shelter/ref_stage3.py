"""Stage-3 reference: the sprung roof made thinner and lower for a 2.5 m zone and a 250 kg budget.

The zone is lower, the budget smaller and ten rocks fall. A thinner roof beam and slimmer frame
members fit the budget; the lighter roof is kicked faster by each rock (v = m u / (m + M)), but
the springs still stop it within its stroke above the keep-clear space, with the frame at about
50% of the pivots' strength (229 kg in all).
"""

def sprung_roof(api, roof_l=(-2.2, 2.7), roof_r=(2.2, 2.0), roof_t=0.2, frame_y=1.75, post_x=1.3, brace_x=2.3,
                k=20000.0, c=2000.0, spring_x=1.1, tb=0.1, mat="wood", roof_mat="wood"):
    """A one-piece lean-to roof (a single slanted beam: no joint inside it for a blow to load)
    riding on springs above a pinned, braced frame (posts, raking braces and a frame beam)."""
    frame = api.beam((-post_x - 0.2, frame_y), (post_x + 0.2, frame_y), thickness=tb, material=mat)
    for s in (-1.0, 1.0):
        post = api.beam((s * post_x, 0.0), (s * post_x, frame_y), thickness=tb, material=mat)
        api.pivot(post, api.GROUND, (s * post_x, 0.0))
        api.pivot(post, frame, (s * post_x, frame_y))
        brace = api.beam((s * brace_x, 0.0), (s * (post_x + 0.15), frame_y), thickness=tb, material=mat)
        api.pivot(brace, api.GROUND, (s * brace_x, 0.0))
        api.pivot(brace, frame, (s * (post_x + 0.15), frame_y))
    (x0, y0), (x1, y1) = roof_l, roof_r
    roof = api.beam(roof_l, roof_r, thickness=roof_t, material=roof_mat)

    def roof_y(x):
        return y0 + (y1 - y0) * (x - x0) / (x1 - x0) - roof_t / 2

    for s in (-1.0, 1.0):
        x = s * spring_x
        api.spring(frame, roof, (x, frame_y), (x, roof_y(x)), stiffness=k, damping=c)
    # a crossed pair of springs holds the roof sideways
    api.spring(frame, roof, (-spring_x, frame_y), (spring_x, roof_y(spring_x)), stiffness=k, damping=c)
    api.spring(frame, roof, (spring_x, frame_y), (-spring_x, roof_y(-spring_x)), stiffness=k, damping=c)


def build(api):
    sprung_roof(api, k=40000.0, roof_l=(-2.2, 2.4), roof_r=(2.2, 1.9), roof_t=0.1, tb=0.08)
