"""The `ell` build (issue 20 item 2): its spec (A on its long edge, the runner B on the jig J with its
end against A's back face), the grader on it (the untouched scene fails; an ell whose upright board
lies flat is refused), and the stand-up of a board from the rack onto its edge."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simreflect.suites.workshop.builds import BUILD_NAMES, SPEC_ONLY_BUILDS, get_build
from simreflect.suites.workshop.builds.pose import target_rotation
from simreflect.suites.workshop.builds.spec import TABLE_TOP
from simreflect.suites.workshop.client import LocalTransport, WorkshopClient
from simreflect.suites.workshop.grader import grade, protrusion_mm
from simreflect.suites.workshop.reference.common import Workshop
from simreflect.suites.workshop.session import Session


def _boards(seed: int) -> dict:
    return {b.name: b for b in get_build("ell").spec(seed).boards}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_ell_stands_a_on_its_edge_with_b_on_the_jig_against_its_back_face(seed):
    boards = _boards(seed)
    a, b, j = boards["A"], boards["B"], boards["J"]
    ra, rb = target_rotation(a.target), target_rotation(b.target)
    assert abs(ra[2, 1]) == pytest.approx(1.0)  # A's width stands vertical: on its long edge
    assert a.target[2] == pytest.approx(TABLE_TOP + a.size[1] / 2)
    face_normal = ra[:, 2] if ra[1, 2] > 0 else -ra[:, 2]  # A's back face, away from the robot
    assert abs(float(np.dot(rb[:, 0], face_normal))) == pytest.approx(1.0, abs=1e-9)  # B runs square off it
    back = np.asarray(a.target[:3]) + face_normal * a.size[2] / 2
    gap = float(np.dot(np.asarray(b.target[:3]) - back, face_normal)) - b.size[0] / 2
    assert gap == pytest.approx(0.002, abs=1e-6)  # B's end 2 mm off A's face
    # B rests on J; its end reaches A's face at the height of the screws, above the jig's top
    assert b.target[2] - b.size[2] / 2 == pytest.approx(j.target[2] + j.size[2] / 2)
    assert TABLE_TOP + j.size[2] < b.target[2] < TABLE_TOP + a.size[1]


def test_the_ell_is_a_task_build_with_a_reference():
    assert "ell" in BUILD_NAMES and "ell" not in SPEC_ONLY_BUILDS
    assert get_build("ell").joints[0].top == "A" and get_build("ell").joints[0].bottom == "B"


def test_the_untouched_ell_scene_fails():
    session = Session.for_build("ell", 0)
    w = Workshop(WorkshopClient(LocalTransport(session)))
    w.hold_still(0.5)
    verdict = grade(w.state(fresh=True), session.engine.spec)
    assert not verdict.passed
    assert verdict.diagnostics["boards_placed"] == 0 and not verdict.diagnostics["joints"]["A-B"]["rigid"]


def _built_state(seed: int, a_rot=None, a_pos=None) -> dict:
    """A final state of the finished ell as the grader reads it: every board carried to its target
    and released, three screws through A into B (A's pose may be overridden)."""
    spec = get_build("ell").spec(seed)
    boards = {}
    for b in spec.boards:
        pos = np.asarray(b.target[:3], float)
        rot = target_rotation(b.target)
        if b.name == "A" and a_rot is not None:
            pos, rot = np.asarray(a_pos, float), np.asarray(a_rot, float)
        rows = rot.tolist()
        boards[b.name] = {"pos": pos.tolist(), "rot": rows, "lin_vel": [0.0] * 3, "ang_vel": [0.0] * 3,
                          "touching_robot": False, "lifted": True, "last_carry": {"pos": pos.tolist(), "rot": rows}}
    a, b = spec.board("A"), spec.board("B")
    pa, ra = np.asarray(boards["A"]["pos"]), np.asarray(boards["A"]["rot"])
    pb, rb = np.asarray(boards["B"]["pos"]), np.asarray(boards["B"]["rot"])
    ta, rta = np.asarray(a.target[:3]), target_rotation(a.target)
    screws = {}
    for k, (dx, dz) in enumerate(((-0.015, -0.012), (0.015, -0.012), (0.0, 0.012))):
        # in B's end, at the runner's height, where the screws through A's face would meet it
        point = ta + rta[:, 0] * dx + np.array([0.0, 0.0, b.target[2] - a.target[2] + dz])
        screws[f"screw{k}"] = {"state": "driven", "top": "A", "bottom": "B", "joint_active": True,
                               "anchor_top": (ra.T @ (point - pa)).tolist(), "anchor_bottom": (rb.T @ (point - pb)).tolist(),
                               "head_top": (point - np.array([0.0, 0.06, 0.0])).tolist()}
    return {"boards": boards, "screws": screws, "drills": {"drill0": {"tip": [0.5, -0.22, 0.9], "engaged_screw": None}},
            "holds": []}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_grader_passes_the_finished_ell(seed):
    verdict = grade(_built_state(seed), get_build("ell").spec(seed))
    assert verdict.passed, verdict.to_dict()
    assert verdict.diagnostics["joints"]["A-B"]["spread_mm"] >= 15.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_grader_refuses_an_ell_whose_upright_board_lies_flat(seed):
    a = _boards(seed)["A"]
    yaw = a.target[3]
    c, s = math.cos(yaw), math.sin(yaw)
    flat = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])  # the same yaw, lying on its face
    for z in (a.target[2], TABLE_TOP + a.size[2] / 2):  # centred on the outline, or resting on the table
        pos = (a.target[0], a.target[1], z)
        assert protrusion_mm(pos, flat, a.size, a.target) > 20.0
        verdict = grade(_built_state(seed, a_rot=flat, a_pos=pos), get_build("ell").spec(seed))
        assert not verdict.passed and not verdict.check("boards_placed").passed
        assert not verdict.diagnostics["boards"]["A"]["inside"]
        assert verdict.diagnostics["boards"]["A"]["rotation_error_deg"] >= 90.0 - 1e-6


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_board_is_stood_on_its_edge_from_the_rack_into_its_outline(seed):
    """The stand-up (OnEdge.stand_up): hook grasp from the rack, a quarter turn in the air, the hand-over
    to the top pinch, set down on its edge; the grader's per-board checks all pass for A."""
    from simreflect.suites.workshop.reference.common import OnEdge

    session = Session.for_build("ell", seed)
    w = OnEdge(WorkshopClient(LocalTransport(session)))
    target = session.engine.spec.board("A").target
    w.stand_up("A", target)
    w.hold_still(0.3)
    state = w.state(fresh=True)
    _, rot = w.pose("A")
    assert abs(rot[2, 1]) > 0.999  # its width stands vertical: on its edge
    assert not state["arms"]["left"]["holds"] and not state["arms"]["right"]["holds"]
    diag = grade(state, session.engine.spec).diagnostics["boards"]["A"]
    assert diag["inside"] and diag["lifted"] and diag["released"] and diag["settled"], diag
    assert diag["moved_since_carry_mm"] <= 2.0, diag


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_ell_reference_passes_over_http(seed, tmp_path):
    from simreflect.suites.workshop import recording
    from simreflect.suites.workshop.reference import ell
    from simreflect.suites.workshop.service import ServiceThread

    with ServiceThread(Session.for_build("ell", seed, record_dir=tmp_path)) as svc:
        out = ell.run(WorkshopClient(svc.url))
    assert out["progress"]["complete"], out
    verdict = grade(recording.load_final(tmp_path)["state"], recording.load_spec(tmp_path))
    assert verdict.passed, verdict.to_dict()
    assert verdict.diagnostics["joints"]["A-B"]["rigid"] and verdict.diagnostics["boards_placed"] == 3
