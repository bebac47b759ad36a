"""The rig: skinning against an independent computation, serialisation, the editing interface."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from gait_helpers import normal_robot
from simreflect.suites.gait.episodes import build_episode
from simreflect.suites.gait.rig import Rig, RigFormatError
from simreflect.suites.gait.robot import BONE_NAMES


def independent_world_vertices(rig: Rig, frame: int) -> np.ndarray:
    """Forward kinematics and skinning written another way: scipy rotations, one vertex at a time.

    Blender's bone rest frame with roll 0 is the shortest-arc rotation from +Y onto the bone; the
    pose of a bone is parent pose * rest offset * translation(location) * rotation(Euler XYZ).
    """
    rest_rot, world = {}, {}
    for b in rig.bones:
        direction = np.subtract(b.tail, b.head)
        direction /= np.linalg.norm(direction)
        r, _ = Rotation.align_vectors([direction], [[0.0, 1.0, 0.0]])
        if np.allclose(direction, [0, -1, 0]):
            r = Rotation.from_euler("z", 180, degrees=True)
        rest_rot[b.name] = r
    for b in rig.bones:
        i = rig.bone_index(b.name)
        local_rot = Rotation.from_euler("xyz", rig.rotation_euler[frame, i])  # extrinsic x, y, z
        loc = rig.location[frame, i]
        if b.parent is None:
            rot = rest_rot[b.name] * local_rot
            pos = np.array(b.head) + rest_rot[b.name].apply(loc)
        else:
            p_rot, p_pos = world[b.parent]
            parent = next(x for x in rig.bones if x.name == b.parent)
            offset_rot = rest_rot[b.parent].inv() * rest_rot[b.name]
            offset_pos = rest_rot[b.parent].inv().apply(np.subtract(b.head, parent.head))
            rot = p_rot * offset_rot * local_rot
            pos = p_pos + p_rot.apply(offset_pos + offset_rot.apply(loc))
        world[b.name] = (rot, pos)
    out = np.zeros_like(rig.rest_vertices)
    for v, p in enumerate(rig.rest_vertices):
        total = rig.weights[v].sum()
        acc = np.zeros(3)
        for i, name in enumerate(rig.bone_names):
            w = rig.weights[v, i]
            if w == 0:
                continue
            bone = rig.bones[i]
            rot, pos = world[name]
            # the vertex in the bone's rest frame, carried to the bone's posed frame
            local = rest_rot[name].inv().apply(p - np.array(bone.head))
            acc += w * (pos + rot.apply(local))
        out[v] = acc / total
    return out


def test_skinning_matches_an_independent_computation():
    ep = build_episode(4, 11, ("leak", "balance", "knee"))  # leaked weights: vertices on two bones
    assert (np.count_nonzero(ep.rig.weights, axis=1) > 1).any()
    for frame in (0, 17, 33, 59):
        ours = ep.rig.world_vertices(frame)
        theirs = independent_world_vertices(ep.rig, frame)
        assert np.max(np.abs(ours - theirs)) < 1e-9


def test_robot_shape():
    rig, _, _ = normal_robot()
    assert len(rig.rest_vertices) == 164
    assert rig.bone_names == BONE_NAMES and len(rig.bones) == 10
    assert rig.frame_count == 60
    orange = [p.name for p in rig.parts if p.color == (255, 122, 0)]
    assert orange == ["face_plate", "chest_plate"]
    # the plates are on the front (+Y) of the head and torso
    for name in orange:
        part = next(p for p in rig.parts if p.name == name)
        assert rig.rest_vertices[part.start:part.stop, 1].min() > 0.05


def test_walk_shape():
    rig, ref, facts = normal_robot()
    verts = rig.world_vertices()
    foot = next(p for p in rig.parts if p.name == "foot.L")
    stance = ~np.array(facts["swing"]["L"])
    # a planted foot does not slide: within each stance run its vertices stay put
    runs, start = [], None
    for f, s in enumerate(list(stance) + [False]):
        if s and start is None:
            start = f
        elif not s and start is not None:
            runs.append((start, f - 1))
            start = None
    for a, b in runs:
        block = verts[a:b + 1, foot.start:foot.stop]
        assert np.max(np.abs(block - block[0])) < 1e-9
    # the hips travel forward, the swing knee bends most mid-swing
    hips = rig.fcurve("hips", "location")[:, 1]
    assert np.all(np.diff(hips) > 0)
    swing = np.array(facts["swing"]["L"])
    knee = rig.fcurve("shin.L", "rotation_euler")[:, 0]
    assert knee[swing].min() < knee[~swing].min() - math.radians(15)
    thigh = rig.fcurve("thigh.L", "rotation_euler")[:, 0]
    assert thigh.max() > math.radians(15) and thigh.min() < 0


def test_json_round_trip_is_exact():
    rig, _, _ = normal_robot()
    text = rig.to_json()
    again = Rig.from_dict(json.loads(text))
    assert again.to_json() == text
    assert np.array_equal(again.world_vertices(), rig.world_vertices())


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(format="other"), "format"),
        (lambda d: d["action"]["torso"].update(location=[[0, 0, 0]]), "keys for"),
        (lambda d: d["action"]["torso"]["rotation_euler"][3].__setitem__(0, float("nan")), "NaN"),
        (lambda d: d["vertex_groups"].update({"ghost": [[0, 1.0]]}), "no bone"),
        (lambda d: d["vertex_groups"]["torso"].append([999, 1.0]), "bad vertex index"),
        (lambda d: d["vertex_groups"]["torso"].append([0, 7.0]), "0..1"),
        (lambda d: d.pop("action"), "malformed"),
    ],
)
def test_malformed_rig_files_are_rejected_with_a_reason(mutate, message):
    rig, _, _ = normal_robot()
    data = json.loads(rig.to_json())
    mutate(data)
    with pytest.raises(RigFormatError, match=message):
        Rig.from_dict(data)


def test_blender_style_editing():
    rig, _, _ = normal_robot()
    rig.frame_set(12)
    rig.pose.bones["torso"].rotation_euler[2] = 0.5
    assert rig.rotation_euler[12, 1, 2] == 0.5
    rig.pose.bones["torso"].location = (0.1, 0.0, 0.0)
    assert rig.location[12, 1, 0] == 0.1
    rig.pose.bones["torso"].keyframe_insert("location", frame=13)
    assert rig.location[13, 1, 0] == 0.1
    with pytest.raises(AttributeError):
        rig.pose.bones["torso"].scale = (2, 2, 2)
    vg = rig.vertex_groups["arm.R"]
    vg.add([0], 0.3)
    assert vg.weight(0) == 0.3 and 0 in vg.vertices()
    vg.remove([0])
    with pytest.raises(RuntimeError):
        vg.weight(0)
    with pytest.raises(KeyError, match="no bone named"):
        rig.fcurve("tail", "location")
    with pytest.raises(IndexError):
        rig.frame_set(60)
