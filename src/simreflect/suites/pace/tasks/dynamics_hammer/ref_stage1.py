"""Stage-1 reference: a heavier head released from horizontal.

The crate is half as heavy again and the floor rougher: the blow gives the crate the speed
(1 + e) M v / (M + m) and it slides v^2 / (2 mu g). A heavier head (72 kg, the most the budget
allows on this handle) raises M / (M + m), and the release from horizontal (a 2.2 m drop) raises v.
"""


import math


def hammer(api, pivot, L, start_deg, head=(0.4, 0.4), t=0.12, motor=None, stop=None):
    """A handle pinned to the frame at `pivot`, declared pointing at `start_deg` (0 = right, -90 =
    straight down) with a steel head at its end. It falls (or is driven) counter-clockwise and strikes the
    crate at the bottom of its swing."""
    px, py = pivot
    a = math.radians(start_deg)
    tip = (px + L * math.cos(a), py + L * math.sin(a))
    arm = api.beam(pivot, tip, thickness=t, material="wood")
    hd = api.block(tip, head[0], head[1], angle=a, material="steel")
    api.rigid(arm, hd, tip)
    kw = {}
    if motor is not None:
        kw.update(motor_speed=motor[0], max_torque=motor[1])
    if stop is not None:
        kw.update(limits=(-0.02, math.radians(stop)))
    api.pivot(api.GROUND, arm, pivot, **kw)


def build(api):
    hammer(api, pivot=(-0.2, 2.6), L=2.2, start_deg=180.0, head=(0.38, 0.38))
