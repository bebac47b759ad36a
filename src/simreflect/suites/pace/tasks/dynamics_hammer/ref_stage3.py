"""Stage-3 reference: a short motor-driven hammer.

The build zone is only 1.5 m high and the budget 70 kg: a pendulum that fits drops its head about
1 m, and a crate that must leave at 6.5 m/s needs a head at about 6.5 m/s (v^2/2g = 2.2 m of drop).
A motor supplies the energy instead: the 1 m handle driven at 6.7 rad/s brings the head to the
crate at about omega L; it passes the bottom and rises away, so the contact stays a blow.
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
    hammer(api, pivot=(0.0, 1.3), L=1.0, start_deg=180.0, head=(0.3, 0.3), motor=(6.7, 3000.0))
