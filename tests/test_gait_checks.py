"""Each of the seven walk checks: a hand-built case that fails it and one that passes it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gait_helpers import normal_robot
from simreflect.suites.gait.robot import build_robot
from simreflect.suites.gait.verify import (CHECK_NAMES, LIMITS, convex_hull, distance_outside, joint_separations,
                                           upper_body_offsets, verify_rig)


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


def _lean_torso(rig, frames, degrees):
    out = rig.copy()
    out.fcurve("torso", "rotation_euler")[frames, 2] += math.radians(degrees)
    return out


def test_balance_needs_six_consecutive_frames(walk):
    """The CoM rule alone (the upper-body rule fails both leans): a run needs six frames outside."""
    rig, ref, _ = walk
    start = 24
    five = verify_rig(_lean_torso(rig, slice(start, start + 5), 90), ref).check("balance")
    six = verify_rig(_lean_torso(rig, slice(start, start + 6), 90), ref).check("balance")
    assert five.where["runs"] == [] and "upper_body" in five.where and "first_frame" not in five.where
    assert six.where["runs"] == [[start, start + 5]] and six.where["first_frame"] == start
    assert six.value > 0.05 and six.unit == "m outside"


@pytest.mark.parametrize("bone", ["torso", "arm.L", "thigh.R", "shin.L", "foot.R"])
def test_balance_fails_a_bone_off_its_joint_on_one_frame(walk, bone):
    rig, ref, _ = walk
    for metres, passes in ((0.009, True), (0.011, False)):
        moved = rig.copy()
        moved.fcurve(bone, "location")[30] += np.array([metres, 0.0, 0.0])
        c = verify_rig(moved, ref).check("balance")
        assert c.passed is passes, (bone, metres)
        if not passes:
            (d,) = c.where["detached"]
            assert d["bone"] == bone and d["frames"] == [30] and d["value"] == pytest.approx(metres)
            assert 30 in c.where["frames"] and bone in c.message and c.where["runs"] == []


def test_the_root_travels_without_separating(walk):
    rig, ref, _ = walk
    moved = rig.copy()
    moved.fcurve("hips", "location")[:, 0] += 0.03  # the whole robot 3 cm to the right
    assert verify_rig(moved, ref).check("balance").passed


def test_balance_fails_an_upper_body_off_the_hips(walk):
    """More forward lean, kept for the whole walk and within the tilt limit: no joint separates and
    the CoM stays over the (long) feet, but the upper body is beyond what the normal walk does."""
    rig, ref, _ = walk
    for extra_deg, passes in ((3.0, True), (10.0, False)):
        lean = rig.copy()
        lean.fcurve("torso", "rotation_euler")[:, 0] -= math.radians(extra_deg)
        v = verify_rig(lean, ref)
        c = v.check("balance")
        assert c.passed is passes, extra_deg
        assert v.check("joint_limits").passed  # within the +-20 deg tilt
        if not passes:
            assert c.where["runs"] == [] and "detached" not in c.where and c.unit == "m off the hips"
            assert c.value == c.where["upper_body"]["value"] > LIMITS["upper_body_offset_m"]


def test_upper_body_thresholds_hold_for_normal_walks():
    """The derivation in verify.py, on a sample (the docstring's figure covers 9,000 walks): no normal
    walk separates a joint, and none has its upper body within 1.5 cm of the limit."""
    worst_sep, worst_offset = 0.0, 0.0
    for seed in range(3):
        for index in range(30):
            rig, _, gait, facts = build_robot(np.random.default_rng(np.random.SeedSequence([seed, index, 0])))
            pose = rig.pose_matrices()
            worst_sep = max(worst_sep, float(joint_separations(rig, pose).max()))
            worst_offset = max(worst_offset, float(upper_body_offsets(rig, pose).max()))
    assert worst_sep == 0.0 < LIMITS["joint_separation_m"]
    assert 0.01 < worst_offset < LIMITS["upper_body_offset_m"] - 0.015


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


BONES = ("torso", "arm.L", "arm.R", "thigh.L", "shin.L", "foot.L", "thigh.R", "shin.R", "foot.R")


@settings(derandomize=True, max_examples=25, deadline=None)
@given(bone=st.sampled_from(BONES), frame=st.integers(0, 59), scale=st.sampled_from([1e-3, 1e-2, 1.0, 1e3, 1e150, 1e300]),
       direction=st.tuples(*[st.floats(-1.0, 1.0, allow_nan=False)] * 3))
def test_any_translation_of_a_jointed_bone_is_judged(bone, frame, scale, direction):
    """Hostile keys: a bone moved off its joint by any finite amount, up to overflow. The verifier
    never raises, and balance fails exactly when the move exceeds the separation limit."""
    rig, ref, _ = normal_robot()
    move = np.array(direction) * scale
    moved = rig.copy()
    moved.fcurve(bone, "location")[frame] += move
    v = verify_rig(moved, ref)
    distance = float(np.linalg.norm(move)) if np.all(np.isfinite(move * move)) else math.inf
    if distance > 1.001 * LIMITS["joint_separation_m"]:
        assert not v.passed and any(d["bone"] == bone for d in v.check("balance").where["detached"])
    elif distance < 0.999 * LIMITS["joint_separation_m"]:
        assert "detached" not in v.check("balance").where
