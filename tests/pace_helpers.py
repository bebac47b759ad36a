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


def task_folder_names(root=None) -> list[str]:
    """The pace task folders under `root` (default: the packaged tasks), read off the file system
    rather than through the loader, so count checks hold for any number of tasks."""
    from pathlib import Path

    from simreflect.suites.pace.task import tasks_dir

    root = Path(root) if root is not None else tasks_dir()
    return sorted(d.name for d in root.iterdir() if d.is_dir() and (d / "card.toml").is_file())


#: Controls per task: the source on the source, and per target stage the source and its reference.
def controls_per_task() -> int:
    from simreflect.suites.pace.task import TARGETS

    return 1 + 2 * len(TARGETS)
