"""Found by `simreflect pace probe` (seed 0): control_lander, stage4, candidate 78: mutation of #71
(resonant).

Run it: simreflect pace verify --task control_lander --stage 4 --program THIS_FILE.py
"""


def build(api):
    pass


import math

_PROBE_PERIOD = 0.05  # s between control() calls
_probe_clock = {"calls": 0}


def _probe_time():
    t = _probe_clock["calls"] * _PROBE_PERIOD
    _probe_clock["calls"] += 1
    return t


# actuator: (low, high, Hz, amplitude share, phase)
WAVES = {
    'throttle': (0.0, 1.0, 0.460354, 0.713767, 4.284172),
    'torque': (-1.0, 1.0, 0.99153, 0.841639, 4.89624),
}


def control(sensors):
    t = _probe_time()
    out = {}
    for name, (lo, hi, hz, amp, phase) in WAVES.items():
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        out[name] = mid + amp * half * math.sin(2 * math.pi * hz * t + phase)
    return out
