"""Found by `simreflect pace probe` (seed 0): control_seeker, stage1, candidate 1: constant.

Run it: simreflect pace verify --task control_seeker --stage 1 --program THIS_FILE.py
"""


def build(api):
    pass


# actuator: (low, high, value)
VALUES = {
    'thrust': (0.0, 1.0, 0.5),
    'turn': (-1.0, 1.0, 0.0),
}


def control(sensors):
    return {name: v for name, (lo, hi, v) in VALUES.items()}
