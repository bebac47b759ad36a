"""Targets with a full rotation (builds/pose.py): the grader's outline check for upright boards, the
seeded layout transform composed with the rotation, and the yaw-only form of older records."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simreflect.suites.workshop.builds import get_build
from simreflect.suites.workshop.builds.pose import box_rotation_error_deg, rot_x, rot_y, rot_z, target_rotation
from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, Budgets, BuildSpec, BuildTemplate
from simreflect.suites.workshop.grader import grade, pose_errors, protrusion_mm

LEG = (0.40, 0.07, 0.03)
#: An upright leg: standing on its end, its width along the world y, its thickness along x.
UPRIGHT = (0.1, 0.05, TABLE_TOP + LEG[0] / 2, 0.0, -math.pi / 2, 0.0)
FLAT = (0.1, 0.05, TABLE_TOP + LEG[2] / 2, 0.3)
ON_EDGE = (0.1, 0.05, TABLE_TOP + LEG[1] / 2, 0.3, 0.0, math.pi / 2)


def _spec(target) -> BuildSpec:
    return BuildSpec(name="t", title="t", seed=0, boards=(BoardSpec("L", LEG, stock_slot=0, target=target),),
                     budgets=Budgets(10, 10.0, 10.0))


def _state(pos, rot) -> dict:
    """A final state of one released, settled board that was carried to where it rests."""
    rows = np.asarray(rot).tolist()
    return {"boards": {"L": {"pos": list(pos), "rot": rows, "lin_vel": [0.0] * 3, "ang_vel": [0.0] * 3,
                             "touching_robot": False, "lifted": True,
                             "last_carry": {"pos": list(pos), "rot": rows}}},
            "screws": {}, "drills": {}, "holds": []}


def test_an_upright_outline_takes_an_upright_board():
    rot = target_rotation(UPRIGHT)
    assert np.allclose(rot[:, 0], [0, 0, 1])  # its length stands vertical
    assert protrusion_mm(UPRIGHT[:3], rot, LEG, UPRIGHT) == pytest.approx(0.0, abs=1e-9)
    verdict = grade(_state(UPRIGHT[:3], rot), _spec(UPRIGHT))
    assert verdict.passed
    assert verdict.diagnostics["boards"]["L"]["rotation_error_deg"] == 0.0
    # 3 mm too far along its width: the outline tells
    moved = np.asarray(UPRIGHT[:3]) + rot[:, 1] * 0.003
    assert protrusion_mm(moved, rot, LEG, UPRIGHT) == pytest.approx(3.0, abs=1e-6)
    assert not grade(_state(moved, rot), _spec(UPRIGHT)).passed


def test_an_upright_target_met_by_a_board_lying_flat_fails():
    centre = (UPRIGHT[0], UPRIGHT[1], TABLE_TOP + LEG[2] / 2)
    for yaw in (0.0, math.pi / 2):
        verdict = grade(_state(centre, rot_z(yaw)), _spec(UPRIGHT))
        assert not verdict.passed
        assert verdict.diagnostics["boards"]["L"]["worst_protrusion_mm"] > 100
        assert verdict.diagnostics["boards"]["L"]["rotation_error_deg"] >= 90.0 - 1e-6


def test_a_flat_target_met_by_a_board_on_its_edge_fails():
    edge = target_rotation(ON_EDGE)
    assert np.allclose(edge[:, 1], [0, 0, 1])  # its width stands vertical
    # centred on the flat outline's centre, and standing on the table where the flat one would lie
    for centre in (FLAT[:3], ON_EDGE[:3]):
        verdict = grade(_state(centre, edge), _spec(FLAT))
        assert not verdict.passed and verdict.diagnostics["boards"]["L"]["worst_protrusion_mm"] > 10
    assert grade(_state(FLAT[:3], rot_z(FLAT[3])), _spec(FLAT)).passed
    # and the other way round: the on-edge outline takes the on-edge board, not the flat one
    assert grade(_state(ON_EDGE[:3], edge), _spec(ON_EDGE)).passed
    assert not grade(_state(ON_EDGE[:3], rot_z(ON_EDGE[3])), _spec(ON_EDGE)).passed


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_half_turn_about_the_boards_own_axis_is_the_same_box(axis):
    rot = target_rotation(UPRIGHT)
    turned = rot @ (rot_x, rot_y, rot_z)[axis](math.pi)
    assert not np.allclose(turned, rot)
    assert protrusion_mm(UPRIGHT[:3], turned, LEG, UPRIGHT) == pytest.approx(0.0, abs=1e-6)
    assert grade(_state(UPRIGHT[:3], turned), _spec(UPRIGHT)).passed
    assert box_rotation_error_deg(turned, rot) == pytest.approx(0.0, abs=1e-5)
    # a quarter turn about the same axis is not
    quarter = rot @ (rot_x, rot_y, rot_z)[axis](math.pi / 2)
    assert not grade(_state(UPRIGHT[:3], quarter), _spec(UPRIGHT)).passed


def test_the_seeded_layout_transform_composes_with_the_full_rotation():
    template = BuildTemplate(name="t", title="t", boards=(BoardSpec("L", LEG, stock_slot=0, target=UPRIGHT),
                                                          BoardSpec("F", LEG, stock_slot=1, target=FLAT)))
    for seed in (0, 1, 2):
        spec = template.spec(seed)
        dyaw = spec.layout["yaw"]
        ox, oy = spec.layout["origin"]
        for b0, b in zip(template.boards, spec.boards):
            assert len(b.target) == len(b0.target)  # the form is kept: a flat target stays yaw-only
            want_rot = rot_z(dyaw) @ target_rotation(b0.target)
            assert np.allclose(target_rotation(b.target), want_rot, atol=1e-6)
            want_pos = np.array([ox, oy, 0.0]) + rot_z(dyaw) @ np.array([b0.target[0], b0.target[1], 0.0])
            assert np.allclose(b.target[:2], want_pos[:2], atol=1e-6) and b.target[2] == pytest.approx(b0.target[2], abs=1e-7)
        # the upright board at its seeded target passes there
        leg = spec.board("L")
        assert grade(_state(leg.target[:3], target_rotation(leg.target)), BuildSpec(
            name="t", title="t", seed=seed, boards=(leg,))).passed


def test_a_yaw_only_record_reads_and_grades_as_it_did():
    spec = get_build("frame").spec(1)
    d = spec.to_dict()
    assert all(len(b["target"]) == 4 for b in d["boards"])  # what older records carry
    again = BuildSpec.from_dict(d)
    assert again == spec and again.to_dict() == d
    b = spec.board("C1")
    rot = rot_z(b.target[3])
    pos = np.asarray(b.target[:3]) + np.array([0.001, 0.0, 0.0])
    assert pose_errors(pos, rot, b.target)[1] == pytest.approx(0.0, abs=1e-9)
    diag = grade(_state(pos, rot) | {}, BuildSpec(name="t", title="t", seed=1, boards=(
        BoardSpec("L", b.size, 0, b.target),))).diagnostics["boards"]["L"]
    assert "yaw_error_deg" in diag and "rotation_error_deg" not in diag


@pytest.mark.parametrize("target", [(0.0, 0.0, 0.7), (0.0, 0.0, 0.7, 0.0, 0.0), (0.0, 0.0, 0.7, float("nan")),
                                    (0.0, 0.0, 0.7, 0.0, float("inf"), 0.0), ("a", 0, 0, 0), None])
def test_a_malformed_target_is_refused(target):
    with pytest.raises(ValueError):
        BoardSpec("L", LEG, stock_slot=0, target=target)
