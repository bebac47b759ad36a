"""The oracle repair: a fix script that restores the normal walk's keys and weights a defect changed."""

from __future__ import annotations

import numpy as np

from simreflect.suites.gait.rig import CHANNELS, Rig


def _runs(frames: np.ndarray) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for f in frames.tolist():
        if out and f == out[-1][1] + 1:
            out[-1] = (out[-1][0], f)
        else:
            out.append((f, f))
    return out


def oracle_script(normal: Rig, broken: Rig, episode_id: str) -> str:
    """Python source that turns `broken` back into `normal` through the fix-script interface."""
    lines = [
        f"# Oracle repair for {episode_id}: restore the keys and weights the planted defects changed",
        "# to their values in the normal walk.",
    ]
    for channel in CHANNELS:
        for i, bone in enumerate(normal.bone_names):
            good, bad = getattr(normal, channel)[:, i], getattr(broken, channel)[:, i]
            changed = np.flatnonzero(np.any(good != bad, axis=1))
            for a, b in _runs(changed):
                values = [[float(x) for x in row] for row in good[a:b + 1]]
                lines.append(f"rig.fcurve({bone!r}, {channel!r})[{a}:{b + 1}] = {values!r}")
    for i, bone in enumerate(normal.bone_names):
        good, bad = normal.weights[:, i], broken.weights[:, i]
        changed = np.flatnonzero(good != bad)
        removed = [int(v) for v in changed if good[v] == 0]
        if removed:
            lines.append(f"rig.vertex_groups[{bone!r}].remove({removed!r})")
        for v in changed:
            if good[v] != 0:
                lines.append(f"rig.vertex_groups[{bone!r}].add([{int(v)}], {float(good[v])!r}, 'REPLACE')")
    return "\n".join(lines) + "\n"
