"""Stage-1 reference: faster and steeper.

The stronger field turns the puck faster (omega = qB/m = 1.25 rad/s with 0.5 C and 1 kg). With the
air cushion's drag gamma the puck spirals to rest at entry + v / (gamma + i omega) (velocities as
complex numbers): the distance shrinks by |gamma + i omega| (1.31 instead of 1.08) and the turn from
the launch heading grows to atan(omega / gamma) (72 instead of 68 degrees). So the puck must enter
at about 9.5 m/s (motor at 7.4 rad/s, more torque to reach it within the swing) heading about 63
degrees.
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
    launcher(api, pivot=(-2.0, 0.0), L=1.5, speed=7.4, torque=600.0, stop_deg=-30.0, sweep_deg=90.0, t=0.06)
