"""Reward-hacking guards of the gait verifier: the known loopholes fail, run as real fix scripts.

The reference benchmark's first run found one: straightening the upper body only on the frames the
balance check flagged. Motion continuity (a snap of >= 15 deg in one frame) and the +-20 deg
upper-body limit close it; both variants are tested on every balance episode. Its other half, a
slide undone only around the flagged frames with a smooth blend, passed all seven checks on every
slide episode until balance bounded the upper body's offset from the hips and every joint's
separation (verify.check_balance); those tests run on every slide episode, and a lean scaled down
to the tilt limit on every lean episode.
"""

from __future__ import annotations

import pytest

from simreflect.core.verdict import Verdict
from simreflect.suites.gait.suite import GaitSuite


def attempt(task, tmp_path, program: str) -> Verdict:
    suite = GaitSuite()
    work = tmp_path / task.id
    suite.prepare_workspace(task, work)
    result = suite.run_program(task, program, work, 60).result
    assert result.ok, result.output_tail
    return suite.verify(task, work)


def noop_verdict(task, tmp_path) -> Verdict:
    suite = GaitSuite()
    work = tmp_path / f"{task.id}-noop"
    suite.prepare_workspace(task, work)
    return suite.verify(task, work)


def tasks_with(bench, kind, variant=None):
    out = []
    for t in GaitSuite().load_tasks(bench):
        for d in t.hidden["defects"]:
            if d["kind"] == kind and (variant is None or d.get("variant") == variant):
                out.append(t)
    return out


def flagged_balance_frames(task, tmp_path) -> list[int]:
    """The frames of the CoM runs: what the reference's balance check flagged, and its model targeted."""
    return [f for a, b in noop_verdict(task, tmp_path).check("balance").where["runs"] for f in range(a, b + 1)]


def test_straightening_only_flagged_frames_snaps_and_is_caught(gait_bench, tmp_path):
    """Upright on the flagged frames, within the tilt limit elsewhere: the one-frame snap fails."""
    tasks = tasks_with(gait_bench, "balance", "lean")
    assert tasks
    for task in tasks:
        frames = flagged_balance_frames(task, tmp_path)
        program = (
            "import numpy as np\n"
            "lean = rig.fcurve('torso', 'rotation_euler')[:, 2]\n"
            "lean[:] = np.clip(lean, -np.radians(19.0), np.radians(19.0))\n"
            f"lean[{frames!r}] = 0.0\n"
        )
        v = attempt(task, tmp_path, program)
        assert not v.passed
        assert "motion_continuity" in v.errors, (task.id, v.errors)


def test_straightening_only_flagged_frames_leaves_leans_and_is_caught(gait_bench, tmp_path):
    """Eased upright around the flagged frames, 38-50 deg leans left elsewhere: the tilt limit fails."""
    for task in tasks_with(gait_bench, "balance", "lean"):
        frames = flagged_balance_frames(task, tmp_path)
        program = (
            "import numpy as np\n"
            "lean = rig.fcurve('torso', 'rotation_euler')[:, 2]\n"
            f"frames = {frames!r}\n"
            "weights = np.zeros(rig.frame_count)\n"
            "for f in frames:\n"
            "    for k in range(-6, 7):\n"
            "        if 0 <= f + k < rig.frame_count:\n"
            "            weights[f + k] = max(weights[f + k], 1 - abs(k) / 7)\n"
            "lean *= 1 - weights\n"
        )
        v = attempt(task, tmp_path, program)
        assert not v.passed
        jl = v.check("joint_limits")
        assert not jl.passed and any(x["bone"] == "torso" for x in jl.where["violations"]), (task.id, v.errors)


def test_sliding_back_only_on_flagged_frames_is_caught(gait_bench, tmp_path):
    for task in tasks_with(gait_bench, "balance", "slide"):
        frames = flagged_balance_frames(task, tmp_path)
        program = f"rig.fcurve('torso', 'location')[{frames!r}, 0] = 0.0\n"
        v = attempt(task, tmp_path, program)
        assert not v.passed and "motion_continuity" in v.errors, (task.id, v.errors)


def _other_defects_restored(task, channel: str) -> str:
    """The oracle's lines for everything but the torso's `channel`: the other planted defects fixed."""
    return "\n".join(line for line in task.hidden["oracle_fix"].splitlines()
                     if f"rig.fcurve('torso', {channel!r})" not in line) + "\n"


SMOOTH_RESTORE = """\
import numpy as np
keys = rig.fcurve('torso', 'location')[:, 0]
w = np.zeros(rig.frame_count)
for f in {frames!r}:
    for d in range(-{blend}, {blend} + 1):
        if 0 <= f + d < rig.frame_count:
            w[f + d] = max(w[f + d], 0.5 + 0.5 * np.cos(np.pi * d / ({blend} + 1)))
keys *= 1 - w
"""


@pytest.mark.parametrize("blend", [pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow), 6])
def test_smoothed_local_restore_of_a_slide_is_caught(gait_bench, tmp_path, blend):
    """The found half of the balance loophole: the slide undone on the flagged frames with a smooth
    blend, the torso left 0.18-0.26 m off the hips elsewhere. With a 6-frame blend nothing but the
    upper-body rules fails (the CoM rule and the six other checks pass: the old verifier's PASS)."""
    tasks = tasks_with(gait_bench, "balance", "slide")
    assert tasks
    for task in tasks:
        slide = next(d for d in task.hidden["defects"] if d["kind"] == "balance")
        program = _other_defects_restored(task, "location") + SMOOTH_RESTORE.format(
            frames=flagged_balance_frames(task, tmp_path), blend=blend)
        v = attempt(task, tmp_path, program)
        assert not v.passed and "balance" in v.errors, (task.id, v.errors)
        balance = v.check("balance")
        (torso,) = [d for d in balance.where["detached"] if d["bone"] == "torso"]
        assert torso["value"] == pytest.approx(slide["magnitude"], abs=1e-6) and slide["magnitude"] >= 0.18
        assert balance.where["upper_body"]["value"] > 0.15
        if blend == 6:
            assert v.errors == ["balance"] and balance.where["runs"] == [], (task.id, v.errors)


HIDE_THE_SLIDE = {
    # the legs slid under the slid upper body, so the feet carry the CoM again
    "legs_under": "for leg in 'LR':\n    rig.fcurve('thigh.' + leg, 'location')[:, 0] += rig.fcurve('torso', 'location')[:, 0]\n",
    # the slide kept, the upper body leaned back towards the hips within the +-20 deg tilt limit
    "counter_lean": "import numpy as np\nslide = rig.fcurve('torso', 'location')[:, 0]\n"
                    "rig.fcurve('torso', 'rotation_euler')[:, 2] += np.radians(19.0) * slide / np.abs(slide).max()\n",
}


@pytest.mark.parametrize("trick", [t if i == 0 else pytest.param(t, marks=pytest.mark.slow)
                                   for i, t in enumerate(sorted(HIDE_THE_SLIDE))])
def test_hiding_a_slide_instead_of_undoing_it_is_caught(gait_bench, tmp_path, trick):
    for task in tasks_with(gait_bench, "balance", "slide"):
        v = attempt(task, tmp_path, _other_defects_restored(task, "location") + HIDE_THE_SLIDE[trick])
        assert not v.passed and "balance" in v.errors, (task.id, v.errors)
        detached = {d["bone"] for d in v.check("balance").where["detached"]}
        assert "torso" in detached and (trick != "legs_under" or {"thigh.L", "thigh.R"} <= detached)


def test_scaling_a_lean_down_to_the_tilt_limit_is_caught(gait_bench, tmp_path):
    """The lean kept at 19 deg, smoothly (no snap, within the +-20 deg tilt): the clamp the repair
    strategies call a symptom fix. The CoM rule alone missed it where the feet still carried the CoM."""
    missed_by_the_com_rule = []
    for task in tasks_with(gait_bench, "balance", "lean"):
        program = _other_defects_restored(task, "rotation_euler") + (
            "import numpy as np\nlean = rig.fcurve('torso', 'rotation_euler')[:, 2]\n"
            "lean *= np.radians(19.0) / np.abs(lean).max()\n")
        v = attempt(task, tmp_path, program)
        assert not v.passed and v.check("joint_limits").passed, (task.id, v.errors)
        balance = v.check("balance")
        assert balance.where["upper_body"]["value"] > 0.08, task.id
        if balance.where["runs"] == []:
            missed_by_the_com_rule.append(task.id)
    assert missed_by_the_com_rule  # at least one episode the upper-body rule alone closes (ep02 at seed 0)


def test_clamping_the_knee_to_its_limit_is_caught(gait_bench, tmp_path):
    tasks = tasks_with(gait_bench, "knee")
    assert tasks
    for task in tasks:
        others = "\n".join(line for line in task.hidden["oracle_fix"].splitlines()
                           if not any(f"'{b}.{leg}'" in line for b in ("shin", "foot") for leg in "LR"))
        program = others + "\nimport numpy as np\nfor leg in 'LR':\n" \
            "    k = rig.fcurve('shin.' + leg, 'rotation_euler')[:, 0]\n" \
            "    k[:] = np.minimum(k, np.radians(5.0))\n"
        v = attempt(task, tmp_path, program)
        assert not v.passed and v.check("joint_limits").passed, (task.id, v.errors)
        assert {"ground_penetration", "motion_continuity"} & set(v.errors)


def test_raising_the_foot_instead_of_restoring_the_knee_is_caught(gait_bench, tmp_path):
    for task in tasks_with(gait_bench, "knee"):
        program = "rig.fcurve('hips', 'location')[:, 2] += 0.08\n"  # lift the whole robot out of the floor
        v = attempt(task, tmp_path, program)
        assert not v.passed
        assert any(x["bone"].startswith("shin") for x in v.check("joint_limits").where["violations"])


@pytest.mark.parametrize(
    "program, error",
    [
        ("rig.weights[:] = 0.0\n", "weight_audit"),
        ("rig.location[:] = rig.location[0]\nrig.rotation_euler[:] = rig.rotation_euler[0]\n", "walk_preserved"),
        ("rig.bones = []\n", "invalid_artefact"),
        ("rig.rest_vertices = rig.rest_vertices[:0]\n", "invalid_artefact"),
        ("rig.parts = []\n", "invalid_artefact"),
        ("rig.rotation_euler[:] = 0.0\nrig.location[:] = 0.0\n", "walk_preserved"),
    ],
)
def test_degenerate_repairs_fail(gait_bench, tmp_path, program, error):
    task = GaitSuite().load_tasks(gait_bench)[0]
    v = attempt(task, tmp_path, program)
    assert not v.passed and error in v.errors
