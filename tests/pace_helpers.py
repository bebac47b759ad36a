"""Shared builders for the pace tests: a rule set over a plain zone, and a design from an API build."""

from __future__ import annotations

from simreflect.suites.pace import api as api_mod
from simreflect.suites.pace.design import DesignRules

ZONE = (((-5.0, 0.0), (5.0, 0.0), (5.0, 4.0), (-5.0, 4.0)),)
ANCHORS = (((-5.0, -0.1), (5.0, -0.1), (5.0, 0.1), (-5.0, 0.1)),)


def rules(**kw) -> DesignRules:
    base = dict(primitives=("beam", "block", "wheel", "rigid", "pivot", "motor", "limits", "spring"),
                materials=("steel", "wood", "rubber", "foam"), max_parts=10, max_joints=10, max_springs=4,
                max_motor_speed=5.0, max_motor_torque=100.0, mass_budget=1000.0, build_zone=ZONE,
                anchor_zones=ANCHORS)
    base.update(kw)
    return DesignRules(**base)


def declare(build) -> dict:
    """The design data `build(api)` declares."""
    a = api_mod.API({})
    build(a)
    return a.to_dict()
