"""Shared builders for the gait tests: a normal robot and its walk reference."""

from __future__ import annotations

import numpy as np

from simreflect.suites.gait.rig import Rig
from simreflect.suites.gait.robot import build_robot
from simreflect.suites.gait.verify import WalkReference


def normal_robot(seed: int = 3) -> tuple[Rig, WalkReference, dict]:
    rig, _robot, gait, facts = build_robot(np.random.default_rng(np.random.SeedSequence([seed, 99])))
    return rig, WalkReference(gait.period, facts["thigh_swing"], facts["travel"]), facts
