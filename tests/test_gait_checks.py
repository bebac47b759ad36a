"""Each of the seven walk checks: a hand-built case that fails it and one that passes it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gait_helpers import normal_robot
from simreflect.suites.gait.verify import CHECK_NAMES, convex_hull, distance_outside, verify_rig


@pytest.fixture()
def walk():
    return normal_robot()


def failed(verdict) -> set[str]:
    return set(verdict.errors)


def test_normal_walk_passes_every_check(walk):
    rig, ref, _ = walk
    v = verify_rig(rig, ref)
    assert v.passed, v.errors
    assert [c.name for c in v.checks] == list(CHECK_NAMES)


def test_face_stretch(walk):
    rig, ref, _ = walk
    torso = next(p for p in rig.parts if p.name == "torso")
    ok = rig.copy()
    assert verify_rig(ok, ref).check("face_stretch").passed
    # one torso vertex moved wholly onto the left shin: a single bone, so the weight audit is
    # satisfied, but the torso's faces stretch as the vertex follows the leg
    bad = rig.copy()
    bad.vertex_groups["torso"].remove([torso.start])
    bad.vertex_groups["shin.L"].add([torso.start], 1.0)
    v = verify_rig(bad, ref)
    c = v.check("face_stretch")
    assert not c.passed and c.value > 1.5
    assert torso.start in c.where["vertices"]
    assert v.check("weight_audit").passed


def test_weight_audit(walk):
    rig, ref, _ = walk
    thigh = next(p for p in rig.parts if p.name == "thigh.L")
    # parent/child sharing is allowed
    ok = rig.copy()
    ok.vertex_groups["hips"].add([thigh.start], 0.2)
    assert verify_rig(ok, ref).check("weight_audit").passed
    bad = rig.copy()
    bad.vertex_groups["arm.R"].add([thigh.start + 1], 0.01)
    c = verify_rig(bad, ref).check("weight_audit")
    assert not c.passed
    assert c.where["vertices"] == [thigh.start + 1]
    assert c.where["bone_pairs"] == [["arm.R", "thigh.L"]] or c.where["bone_pairs"] == [["thigh.L", "arm.R"]]
    unweighted = rig.copy()
    unweighted.weights[5] = 0.0
    c = verify_rig(unweighted, ref).check("weight_audit")
    assert not c.passed and c.where["unweighted"] == [5]


def _slide_torso(rig, frames, metres):
    out = rig.copy()
    out.fcurve("torso", "location")[frames, 0] += metres
    return out


def test_balance_needs_six_consecutive_frames(walk):
    rig, ref, _ = walk
    start = 20
    five = verify_rig(_slide_torso(rig, slice(start, start + 5), 0.8), ref).check("balance")
    six = verify_rig(_slide_torso(rig, slice(start, start + 6), 0.8), ref).check("balance")
    assert five.passed
    assert not six.passed
    assert six.where["runs"] == [[start, start + 5]]
    assert six.value > 0.05


def test_balance_lean(walk):
    rig, ref, _ = walk
    lean = rig.copy()
    lean.fcurve("torso", "rotation_euler")[10:, 2] += math.radians(60)
    assert not verify_rig(lean, ref).check("balance").passed


def test_support_polygon_geometry():
    square = convex_hull(np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]], float))
    assert len(square) == 4
    assert distance_outside(np.array([0.5, 0.5]), square) == 0.0
    assert distance_outside(np.array([1.5, 0.5]), square) == pytest.approx(0.5)
    assert distance_outside(np.array([2.0, 2.0]), square) == pytest.approx(math.sqrt(2))
    assert distance_outside(np.array([0.0, 0.0]), np.zeros((0, 2))) == math.inf


@pytest.mark.parametrize("depth, passes", [(0.019, True), (0.021, False)])
def test_ground_penetration(walk, depth, passes):
    rig, ref, _ = walk
    low = rig.copy()
    low.fcurve("hips", "location")[:, 2] -= depth
    c = verify_rig(low, ref).check("ground_penetration")
    assert c.passed is passes
    if not passes:
        assert depth <= c.value < depth + 0.005
        assert any(p.startswith("foot") for p in c.where["parts"])


@pytest.mark.parametrize("spike_deg, passes", [(7.0, True), (8.0, False)])
def test_motion_continuity_rotation(walk, spike_deg, passes):
    rig, ref, _ = walk
    spiky = rig.copy()
    spiky.fcurve("torso", "rotation_euler")[30, 1] += math.radians(spike_deg)  # one-frame twist
    c = verify_rig(spiky, ref).check("motion_continuity")
    assert c.passed is passes
    if not passes:
        assert {(j["bone"], j["frame"]) for j in c.where["jumps"]} >= {("torso", 30)}


def test_motion_continuity_location(walk):
    rig, ref, _ = walk
    jump = rig.copy()
    jump.fcurve("hips", "location")[30, 0] += 0.025  # second difference 5 cm at frame 30
    c = verify_rig(jump, ref).check("motion_continuity")
    assert not c.passed
    assert any(j["channel"] == "location" and j["bone"] == "hips" for j in c.where["jumps"])


@pytest.mark.parametrize(
    "bone, axis, value_deg, passes",
    [("shin.L", 0, 4.9, True), ("shin.L", 0, 6.0, False), ("thigh.R", 0, 61.0, False), ("thigh.R", 0, -49.0, True)],
)
def test_joint_limits(walk, bone, axis, value_deg, passes):
    rig, ref, _ = walk
    posed = rig.copy()
    posed.fcurve(bone, "rotation_euler")[40, axis] = math.radians(value_deg)
    c = verify_rig(posed, ref).check("joint_limits")
    assert c.passed is passes
    if not passes:
        assert c.where["violations"][0]["bone"] == bone and 40 in c.where["violations"][0]["frames"]


def test_upper_body_tilt(walk):
    rig, ref, _ = walk
    for deg, passes in ((15.0, True), (25.0, False)):
        tilted = rig.copy()
        tilted.fcurve("torso", "rotation_euler")[:, 2] = math.radians(deg)
        c = verify_rig(tilted, ref).check("joint_limits")
        assert c.passed is passes, deg


def test_walk_preserved(walk):
    rig, ref, _ = walk
    frozen = rig.copy()
    frozen.location[:] = rig.location[0]
    frozen.rotation_euler[:] = rig.rotation_euler[0]
    c = verify_rig(frozen, ref).check("walk_preserved")
    assert not c.passed and c.value < 0.5
    backwards = rig.copy()
    backwards.fcurve("hips", "rotation_euler")[:, 2] = math.pi  # turned around: toes behind
    assert not verify_rig(backwards, ref).check("walk_preserved").passed
    assert verify_rig(rig, ref).check("walk_preserved").passed


def test_failed_checks_say_where_and_by_how_much(walk):
    rig, ref, _ = walk
    bad = rig.copy()
    bad.fcurve("shin.R", "rotation_euler")[:, 0] = math.radians(20)
    v = verify_rig(bad, ref)
    for c in v.checks:
        if not c.passed:
            assert c.value is not None and c.limit and c.message and c.where
