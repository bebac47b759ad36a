"""Stage-3 reference: a longer arm at the slower motor's full speed, a flatter heading.

A heavier puck turns slower (omega = qB/m = 0.625 rad/s) and the cushion drags harder (it is
inferred from the shorter, less curled spirals): |gamma + i omega| is about 0.94 and the turn about
42 degrees. The puck must enter at about 6.5 m/s heading about -46 degrees; the motor turns at
4 rad/s at most, so v = omega r needs the puck about 1.75 m from the pin: a 2 m arm.
"""

import math


def launcher(api, pivot, L, speed, torque, stop_deg, sweep_deg, t=0.1):
    """An arm pinned to the table at `pivot`, driven counter-clockwise (speed > 0) or clockwise
    (speed < 0) through `sweep_deg` until a stop where it points at `stop_deg`; the puck rides on
    the arm's leading face against a lip at the tip and leaves it at the stop, moving at
    |speed| x (L - 0.25) perpendicular to the arm."""
    px, py = pivot
    sgn = 1.0 if speed > 0 else -1.0
    a = math.radians(stop_deg - sgn * sweep_deg)  # the arm's starting direction
    tip = (px + L * math.cos(a), py + L * math.sin(a))
    arm = api.beam(pivot, tip, thickness=t, material="wood")
    nx, ny = -sgn * math.sin(a), sgn * math.cos(a)  # the leading face's normal
    lip = api.beam(tip, (tip[0] + 0.3 * nx, tip[1] + 0.3 * ny), thickness=0.05, material="wood")
    api.rigid(arm, lip, tip)
    lim = math.radians(sweep_deg)
    api.pivot(api.GROUND, arm, pivot, motor_speed=speed, max_torque=torque,
              limits=(-0.02, lim) if sgn > 0 else (-lim, 0.02))
    d = L - 0.25
    api.place("puck", (px + d * math.cos(a) + nx * (t / 2 + 0.155), py + d * math.sin(a) + ny * (t / 2 + 0.155)))


def build(api):
    launcher(api, pivot=(-2.2, -1.4), L=2.0, speed=-4.0, torque=600.0, stop_deg=48.5, sweep_deg=90.0, t=0.06)
