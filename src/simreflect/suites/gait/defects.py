"""Planted defects: leak, balance and knee, each written into a copy of a normal walk.

Each `plant_*` edits the rig in place and returns the ground truth of what it did (kept hidden from
the agent). Parameters follow the reference benchmark:
- leak: some of a part's vertices also weighted to a bone that is neither its parent nor its child;
- balance: from a random frame to the end, the upper body leans 38-50 deg to one side, or slides
  0.18-0.26 m sideways off the hips, eased in over a few frames, until the CoM leaves the feet;
- knee: during one or two swings of one leg, the shin bends 15-35 deg forward past straight
  (hyperextension), beyond the rig limit of -150..+5 deg.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from simreflect.suites.gait.rig import Rig
from simreflect.core.verdict import Verdict
from simreflect.suites.gait.verify import ROTATION_LIMITS

KINDS = ("leak", "balance", "knee")
LEAK_PARTS = ("torso", "head", "arm.L", "arm.R", "thigh.L", "thigh.R", "shin.L", "shin.R", "foot.L", "foot.R", "pelvis")


def _smoothstep(u: np.ndarray) -> np.ndarray:
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3 - 2 * u)


def plant_leak(rig: Rig, rng: np.random.Generator, avoid_parts: set[str] | None = None) -> dict[str, Any]:
    parts = [p for p in rig.parts if p.name in LEAK_PARTS and p.name not in (avoid_parts or set())]
    part = parts[int(rng.integers(len(parts)))]
    foreign = [b for b in rig.bone_names if b != part.bone and not rig.is_parent_or_child(b, part.bone)]
    bone = foreign[int(rng.integers(len(foreign)))]
    count = int(rng.integers(4, min(10, part.stop - part.start) + 1))
    verts = sorted(int(v) for v in rng.choice(np.arange(part.start, part.stop), size=count, replace=False))
    weight = round(float(rng.uniform(0.35, 0.7)), 3)
    rig.vertex_groups[bone].add(verts, weight, "REPLACE")
    return {"kind": "leak", "part": part.name, "bone": part.bone, "foreign_bone": bone, "vertices": verts,
            "weight": weight}


def plant_balance(rig: Rig, rng: np.random.Generator) -> dict[str, Any]:
    variant = "lean" if rng.random() < 0.5 else "slide"
    side = 1.0 if rng.random() < 0.5 else -1.0
    start = int(rng.integers(8, 34))
    n = rig.frame_count
    if variant == "lean":
        magnitude = float(rng.uniform(38.0, 50.0))
        ramp = int(rng.integers(6, 10))
        curve = np.radians(magnitude) * _smoothstep((np.arange(n) - start) / ramp)
        rig.fcurve("torso", "rotation_euler")[:, 2] += side * curve
    else:
        magnitude = float(rng.uniform(0.18, 0.26))
        ramp = int(rng.integers(8, 12))
        curve = magnitude * _smoothstep((np.arange(n) - start) / ramp)
        rig.fcurve("torso", "location")[:, 0] += side * curve
    return {"kind": "balance", "variant": variant, "side": "+X (right)" if side > 0 else "-X (left)",
            "start_frame": start, "ramp_frames": ramp, "magnitude": magnitude,
            "unit": "deg" if variant == "lean" else "m", "frames": list(range(start, n))}


def swing_runs(swing: list[bool]) -> list[tuple[int, int]]:
    runs, start = [], None
    for i, s in enumerate(list(swing) + [False]):
        if s and start is None:
            start = i
        elif not s and start is not None:
            runs.append((start, i - 1))
            start = None
    return runs


def plant_knee(rig: Rig, rng: np.random.Generator, swing: dict[str, list[bool]]) -> dict[str, Any]:
    leg = "L" if rng.random() < 0.5 else "R"
    runs = [r for r in swing_runs(swing[leg]) if r[0] >= 2 and r[1] <= rig.frame_count - 3]
    first = int(rng.integers(len(runs)))
    chosen = runs[first:first + (2 if rng.random() < 0.3 and first + 1 < len(runs) else 1)]
    peak = float(rng.uniform(15.0, 35.0))
    keys = rig.fcurve(f"shin.{leg}", "rotation_euler")
    foot = rig.fcurve(f"foot.{leg}", "rotation_euler")
    frames = []
    for a, b in chosen:
        lo, hi = a - 1, b + 1  # the bump is zero on the stance frames around the swing
        f = np.arange(lo, hi + 1)
        bump = np.sin(math.pi * (f - lo) / (hi - lo))
        mid = int(np.argmax(bump)) + lo
        extra = (math.radians(peak) - keys[mid, 0]) * bump
        keys[lo:hi + 1, 0] += extra
        foot[lo:hi + 1, 0] -= extra  # the ankle keeps the foot level, toes ahead
        frames += list(range(a, b + 1))
    return {"kind": "knee", "leg": leg, "bone": f"shin.{leg}", "bones": [f"shin.{leg}", f"foot.{leg}"], "frames": frames, "peak_deg": peak,
            "limit_deg": ROTATION_LIMITS[f"shin.{leg}"][0]}


LEG_BONE_PREFIXES = ("thigh.", "shin.", "foot.")


def _kind_of_bone(bone: str) -> str:
    return "knee" if bone.startswith(LEG_BONE_PREFIXES) else "balance"


def defect_kinds(verdict: Verdict) -> set[str]:
    """Which defect kinds a verdict's failed checks point at ('walk' and 'invalid' are not defects)."""
    kinds: set[str] = set()
    if verdict.invalid:
        return {"invalid"}
    for c in verdict.checks:
        if c.passed:
            continue
        if c.name in ("face_stretch", "weight_audit"):
            kinds.add("leak")
        elif c.name == "balance":
            kinds.add("balance")
        elif c.name == "ground_penetration":
            kinds |= {_kind_of_bone(b) for b in c.where.get("bones", [])}
        elif c.name in ("motion_continuity", "joint_limits"):
            kinds |= {_kind_of_bone(b) for b in c.where.get("bones", [])}
        elif c.name == "walk_preserved":
            kinds.add("walk")
    return kinds


def primary_failures(verdict: Verdict) -> set[str]:
    """The defect kinds whose defining check fails (leak: weight audit; balance: the CoM outside the
    feet; knee: a knee limit)."""
    out = set()
    by_name = {c.name: c for c in verdict.checks}
    if "weight_audit" in by_name and not by_name["weight_audit"].passed:
        out.add("leak")
    if "balance" in by_name and not by_name["balance"].passed and by_name["balance"].where.get("runs"):
        out.add("balance")  # the reference's balance defect: leans or slides until the CoM leaves the feet
    jl = by_name.get("joint_limits")
    if jl is not None and not jl.passed:
        if any(v["bone"].startswith("shin.") and v["channel"].endswith(".X") for v in jl.where.get("violations", [])):
            out.add("knee")
    return out

