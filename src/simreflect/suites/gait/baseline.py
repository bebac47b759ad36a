"""An honest repair baseline that needs no model: what a person could do with the report alone.

It reads the frames and bones the verifier reports at every level (L1 included): every frame a
check flagged, widened by a few frames because defects ease in, has each bone's rotation restored
from the same phase one cycle earlier where the two differ, in frame order so that a restored
earlier cycle feeds the next. Frames in the first cycle are restored from one cycle later. Vertices
the weight audit flags keep only the weight of their own part's bone (and its parent or children).
"""

from __future__ import annotations

from simreflect.agents.base import Action, Observation

MARGIN_FRAMES = 3
TOLERANCE_DEG = 2.0

SCRIPT = '''\
# Baseline repair: restore flagged frames from the same phase one cycle earlier; drop foreign weights.
import numpy as np

PERIOD = {period}
FRAMES = {frames}
LEAKY_VERTICES = {vertices}
TOL = np.radians({tol})

rot = rig.rotation_euler
n = rig.frame_count
late = [f for f in FRAMES if f >= PERIOD]
early = [f for f in FRAMES if f < PERIOD]
for f in late + early:
    g = f - PERIOD if f >= PERIOD else f + PERIOD
    if not 0 <= g < n:
        continue
    for b in range(1, len(rig.bone_names)):  # the root's travel is not periodic; it is left alone
        diff = np.abs((rot[f, b] - rot[g, b] + np.pi) % (2 * np.pi) - np.pi)
        rot[f, b] = np.where(diff > TOL, rot[g, b], rot[f, b])
        loc = rig.location
        ldiff = np.abs(loc[f, b] - loc[g, b])
        loc[f, b] = np.where(ldiff > 0.01, loc[g, b], loc[f, b])

for v in LEAKY_VERTICES:
    own = rig.part_of_vertex(v).bone
    for name in rig.bone_names:
        if name != own and not rig.is_parent_or_child(name, own) and rig.weights[v, rig.bone_index(name)] > 0:
            rig.vertex_groups[name].remove([v])
'''


def flagged_frames(verdict, frame_count: int) -> list[int]:
    frames: set[int] = set()
    for c in verdict.checks:
        if c.passed or c.name == "weight_audit":
            continue
        where = c.where
        frames.update(where.get("frames", []))
        for v in where.get("violations", []):
            frames.update(v["frames"])
        for j in where.get("jumps", []):
            frames.update((j["frame"] - 1, j["frame"], j["frame"] + 1))
    wide = {g for f in frames for g in range(f - MARGIN_FRAMES, f + MARGIN_FRAMES + 1)}
    return sorted(f for f in wide if 0 <= f < frame_count)


class CycleRestoreBaseline:
    name = "baseline"

    def act(self, observation: Observation) -> Action:
        verdict = observation.verdict
        task = observation.task
        if verdict.invalid:
            return Action(program="pass\n", diagnosis="the rig could not be verified; nothing to restore")
        frames = flagged_frames(verdict, int(task.params.get("frames", 60)))
        leaky: list[int] = []
        for c in verdict.checks:
            if c.name == "weight_audit" and not c.passed:
                leaky = list(c.where.get("vertices", []))
        program = SCRIPT.format(period=int(task.params["period"]), frames=frames, vertices=leaky, tol=TOLERANCE_DEG)
        diagnosis = (f"restore {len(frames)} flagged frame(s) from one cycle earlier; "
                     f"drop foreign weights on {len(leaky)} vertex(es)")
        return Action(program=program, diagnosis=diagnosis, raw=program)
