"""The oracle repair as a bpy script: the same restored keys and weights as `gait.oracle`, written the
Blender way (pose bones + keyframe_insert for keys, vertex_groups remove/add for weights)."""

from __future__ import annotations

import math

import numpy as np

from simreflect.suites.gait.oracle import _runs
from simreflect.suites.gait.rig import CHANNELS, Rig

HEADER = '''\
# Oracle repair for {episode_id} (bpy, Blender 5): restore the keys and weights the planted defects
# changed to their values in the normal walk.
import bpy

rig = bpy.data.objects["rig"]
body = bpy.data.objects["body"]
'''

KEYS_LOOP = '''
for bone, channel, first, rows in KEYS:
    pb = rig.pose.bones[bone]
    for k, value in enumerate(rows):
        setattr(pb, channel, value)  # the pose value, then its key at that frame
        pb.keyframe_insert(channel, frame=first + k)
'''

WEIGHTS_LOOP = '''
for group, vertices, weight in WEIGHTS:
    vg = body.vertex_groups[group]
    if weight is None:
        vg.remove(vertices)
    else:
        vg.add(vertices, weight, "REPLACE")
'''


def oracle_bpy_script(normal: Rig, broken: Rig, episode_id: str) -> str:
    """bpy source that turns `broken` (as a .blend) back into `normal`, like `oracle_script` does in Python."""
    keys = []
    for channel in CHANNELS:
        for i, bone in enumerate(normal.bone_names):
            good, bad = getattr(normal, channel)[:, i], getattr(broken, channel)[:, i]
            changed = np.flatnonzero(np.any(good != bad, axis=1))
            for a, b in _runs(changed):
                rows = [[float(x) for x in row] for row in good[a:b + 1]]
                keys.append((bone, channel, a, rows))
    weights = []
    for i, bone in enumerate(normal.bone_names):
        good, bad = normal.weights[:, i], broken.weights[:, i]
        changed = np.flatnonzero(good != bad)
        removed = [int(v) for v in changed if good[v] == 0]
        if removed:
            weights.append((bone, removed, None))
        for v in changed:
            if good[v] != 0:
                weights.append((bone, [int(v)], float(good[v])))
    out = [HEADER.format(episode_id=episode_id)]
    if keys:
        out.append("# (bone, channel, first frame, values for that frame and the next ones)\nKEYS = [\n"
                   + "".join(f"    {k!r},\n" for k in keys) + "]\n" + KEYS_LOOP)
    if weights:
        out.append("\n# (vertex group, vertices, weight; None removes them from the group)\nWEIGHTS = [\n"
                   + "".join(f"    {w!r},\n" for w in weights) + "]\n" + WEIGHTS_LOOP)
    return "".join(out)


def normal_from_python_oracle(broken: Rig, oracle_fix: str) -> Rig:
    """The normal walk, recovered by applying the episode's (generated, trusted) Python oracle to its rig."""
    normal = broken.copy()
    exec(compile(oracle_fix, "oracle_fix.py", "exec"), {"rig": normal, "np": np, "math": math})
    return normal


def oracle_bpy_for(broken: Rig, oracle_fix: str, episode_id: str) -> str:
    """The bpy oracle of an episode from its broken rig and its Python oracle (both from the benchmark)."""
    return oracle_bpy_script(normal_from_python_oracle(broken, oracle_fix), broken, episode_id)
