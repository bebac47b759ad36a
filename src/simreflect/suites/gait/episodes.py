"""Episodes: a seeded robot with planted defects, its hidden ground truth and its controls.

The plan is the reference benchmark's: 30 episodes, 10 with one defect, 12 with two, 8 with three.
Every episode must pass its controls before it is accepted: the normal walk passes all seven checks;
with no fix the broken rig fails with exactly the planted defect kinds (and each kind's defining
check fails); the generated oracle fix passes; the robot walks forward with its toes ahead. A seed
that fails is replaced by the next seed of the same episode and the number of regenerations kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simreflect.suites.gait.defects import defect_kinds, plant_balance, plant_knee, plant_leak, primary_failures
from simreflect.suites.gait.oracle import oracle_script
from simreflect.suites.gait.rig import Rig
from simreflect.suites.gait.robot import build_robot, params_dict
from simreflect.suites.gait.verify import WalkReference, verify_rig

MAX_REGENERATIONS = 50

# (kinds, how many episodes): 10 single, 12 double, 8 triple; 20 leak, 19 balance, 19 knee.
PLAN: tuple[tuple[tuple[str, ...], int], ...] = (
    (("leak",), 4),
    (("balance",), 3),
    (("knee",), 3),
    (("leak", "balance"), 4),
    (("leak", "knee"), 4),
    (("balance", "knee"), 4),
    (("leak", "balance", "knee"), 8),
)


class ControlFailure(RuntimeError):
    """No seed within the regeneration budget produced an episode that passes its controls."""


@dataclass
class Episode:
    id: str
    index: int
    seed: list[int]  # the SeedSequence entropy that built it
    regenerations: int
    kinds: tuple[str, ...]
    defects: list[dict[str, Any]]
    params: dict[str, Any]
    reference: WalkReference
    rig: Rig  # the broken rig the agent starts from
    normal: Rig  # the walk before the defects (hidden)
    oracle: str
    controls: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The episodes.jsonl row (hidden ground truth included)."""
        return {
            "id": self.id,
            "index": self.index,
            "seed": self.seed,
            "regenerations": self.regenerations,
            "defects": self.defects,
            "kinds": list(self.kinds),
            "params": self.params,
            "walk_check": self.reference.to_dict(),
            "oracle_fix": self.oracle,
            "controls": self.controls,
        }


def episode_plan(count: int, master_seed: int) -> list[tuple[str, ...]]:
    """Defect kinds for each episode: the reference plan scaled to `count`, shuffled by the seed."""
    total = sum(n for _, n in PLAN)
    kinds: list[tuple[str, ...]] = []
    for combo, n in PLAN:
        kinds += [combo] * n
    if count != total:
        idx = np.floor(np.arange(count) * total / count).astype(int)
        kinds = [kinds[i] for i in idx]
    order = np.random.default_rng(np.random.SeedSequence([master_seed, 0xC0FFEE])).permutation(len(kinds))
    return [kinds[i] for i in order]


def _plant(rig: Rig, kinds: tuple[str, ...], rng: np.random.Generator, facts: dict) -> list[dict[str, Any]]:
    defects = []
    for kind in kinds:
        if kind == "leak":
            defects.append(plant_leak(rig, rng))
        elif kind == "balance":
            defects.append(plant_balance(rig, rng))
        elif kind == "knee":
            defects.append(plant_knee(rig, rng, facts["swing"]))
        else:
            raise ValueError(f"unknown defect kind {kind!r}")
    return defects


def apply_fix_in_process(rig: Rig, script: str) -> Rig:
    """Apply a trusted (generated) fix script to a copy of a rig. Untrusted scripts use fixrunner."""
    edited = rig.copy()
    exec(compile(script, "oracle_fix.py", "exec"), {"rig": edited, "np": np, "math": math})
    return edited


def build_episode(index: int, master_seed: int, kinds: tuple[str, ...]) -> Episode:
    """Generate episode `index` (0-based), regenerating its seed until the controls hold."""
    episode_id = f"ep{index + 1:02d}"
    for regen in range(MAX_REGENERATIONS):
        entropy = [int(master_seed), index, regen]
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        normal, robot, gait, facts = build_robot(rng)
        reference = WalkReference(gait.period, facts["thigh_swing"], facts["travel"])
        normal_verdict = verify_rig(normal, reference)
        if not normal_verdict.passed:
            continue
        broken = normal.copy()
        defects = _plant(broken, kinds, rng, facts)
        noop = verify_rig(broken, reference)
        if defect_kinds(noop) != set(kinds) or primary_failures(noop) != set(kinds):
            continue
        script = oracle_script(normal, broken, episode_id)
        fixed = verify_rig(apply_fix_in_process(broken, script), reference, trusted=broken)
        if not fixed.passed:
            continue
        return Episode(
            id=episode_id,
            index=index,
            seed=entropy,
            regenerations=regen,
            kinds=kinds,
            defects=defects,
            params=params_dict(robot, gait),
            reference=reference,
            rig=broken,
            normal=normal,
            oracle=script,
            controls={"normal_passes": True, "noop_errors": noop.errors, "noop_kinds": sorted(defect_kinds(noop)),
                      "oracle_passes_in_process": True},
        )
    raise ControlFailure(f"{episode_id}: no seed in {MAX_REGENERATIONS} passed the controls for defects {kinds}")
