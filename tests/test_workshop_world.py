"""The workshop world and physics, in-process: the model, contact-only grip, noslip, screw rigidity,
the grader as a pure function, and exact replay of a recording."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from simreflect.suites.workshop import measure, recording, world
from simreflect.suites.workshop.builds import BUILD_NAMES, get_build
from simreflect.suites.workshop.client import LocalTransport, WorkshopClient
from simreflect.suites.workshop.grader import grade, protrusion_mm, triangle_min_height_mm
from simreflect.suites.workshop.reference import place
from simreflect.suites.workshop.session import Session


@pytest.mark.parametrize("build", BUILD_NAMES)
def test_model_is_deterministic_and_complete(build):
    spec = get_build(build).spec(4)
    xml = world.model_xml(spec)
    assert xml == world.model_xml(get_build(build).spec(4))
    assert xml != world.model_xml(get_build(build).spec(5))  # the seed moves the layout
    m = mujoco.MjModel.from_xml_string(xml)
    assert m.opt.timestep == pytest.approx(1 / 180)
    assert m.opt.noslip_iterations == world.NOSLIP_ITERATIONS
    for side in world.SIDES:
        names = [m.joint(j).name for j in range(m.njnt) if m.joint(j).name.startswith(side + "/")]
        assert len([n for n in names if n.split("/")[1] in world.ARM_JOINTS]) == 7
        for f in world.FINGERS + ("thumb",):
            assert {f"{side}/{f}_1", f"{side}/{f}_2", f"{side}/{f}_3"} <= set(names)
        assert f"{side}/thumb_opposition" in names and f"{side}/index_spread" in names
        assert m.nu and all(m.actuator(i).name in names for i in range(m.nu) if m.actuator(i).name.startswith(side))


def test_grip_is_contact_only():
    spec = get_build("frame").spec(0)
    m = mujoco.MjModel.from_xml_string(world.model_xml(spec))
    robot = {b for b in range(m.nbody) if m.body(b).name.split("/")[0] in world.SIDES}
    assert m.neq == 2 * spec.screws
    for e in range(m.neq):
        assert not m.eq_active0[e], m.equality(e).name
        assert m.eq_obj1id[e] not in robot and m.eq_obj2id[e] not in robot
        assert m.equality(e).name.startswith("screw")


def test_three_screws_rigid_two_hinge_one_pivots():
    one, two, three = (measure.rigidity(n) for n in (1, 2, 3))
    assert one["vertical"] > 10.0  # a single screw is a pivot
    assert two["vertical"] < 1.0 and two["hinge"] > 1.0  # two make a hinge
    assert three["vertical"] < 0.15 and three["hinge"] < 0.15  # three non-collinear hold


def test_noslip_keeps_a_grasped_board_in_the_hand():
    with_noslip = measure.slip(world.NOSLIP_ITERATIONS)
    without = measure.slip(0)
    assert with_noslip < 1.0
    assert without > 5 * with_noslip


def test_grader_needs_three_non_collinear_screws_per_joint():
    spec = get_build("lap").spec(0)
    for n, rigid in ((2, False), (3, True)):
        state = measure.lap_on_table(n).observe_now()
        verdict = grade(state, spec)
        assert verdict.check("joints_rigid").passed is rigid
        assert verdict.diagnostics["joints"]["B-A"]["count"] == n
        assert not verdict.passed  # the boards were never lifted: placement fails regardless
    assert triangle_min_height_mm([np.zeros(3), np.array([0.05, 0, 0]), np.array([0.1, 0, 0])]) == 0.0


def test_protrusion_is_zero_inside_and_counts_millimetres_outside():
    size = (0.45, 0.09, 0.04)
    target = (0.1, 0.0, 0.74, 0.3)
    rot = np.array([[np.cos(0.3), -np.sin(0.3), 0], [np.sin(0.3), np.cos(0.3), 0], [0, 0, 1]])
    assert protrusion_mm(target[:3], rot, size, target) == pytest.approx(0.0, abs=1e-9)
    assert protrusion_mm(np.array(target[:3]) + rot[:, 1] * 0.003, rot, size, target) == pytest.approx(3.0, abs=1e-6)


def test_missing_final_state_scores_zero():
    v = grade(None, get_build("place").spec(0))
    assert not v.passed and v.invalid


def test_recording_replays_to_the_same_bytes(tmp_path):
    session = Session.for_build("place", 1, record_dir=tmp_path)
    result = place.run(WorkshopClient(LocalTransport(session)))
    assert result["progress"]["complete"], result
    final = (tmp_path / recording.FINAL_FILE).read_text()
    assert recording.canonical(recording.replay(tmp_path, 0)) + "\n" == final
    commands = recording.load_commands(tmp_path)
    assert [c["kind"] for c in commands][-1] == "finish" and any(c["kind"] == "note" for c in commands)
    poses = recording.load_poses(tmp_path)
    assert poses.shape[1] == json.loads((tmp_path / recording.META_FILE).read_text())["nq"] + 1
    assert poses[-1, 0] == pytest.approx(commands[-1]["time"], abs=1 / 30 + 1e-6)


def _workshop(build: str):
    from simreflect.suites.workshop.reference.common import Workshop

    session = Session.for_build(build, 0)
    return session, Workshop(WorkshopClient(LocalTransport(session)))


def test_over_curling_pushes_a_held_board_through_the_hand():
    from simreflect.suites.workshop.reference.common import FINGERS

    session, w = _workshop("place")
    w.hook_grasp("left", "A", (0.0, 1.0, 0.0))
    pp, pr = w.palm("left")
    w.move_to("left", pp + np.array([0, 0, 0.1]), pr, vmax=0.1, tol=0.003, rtol=0.02)
    before = session.engine._in_palm("left", "A").copy()
    w.hold_still(1.0)
    still = np.linalg.norm(session.engine._in_palm("left", "A") - before) * 1000
    w.joints_to("left", {f"{f}_1": 1.75 for f in FINGERS}, speed=0.5)  # curl far past the contact angles
    w.hold_still(1.0)
    pushed = np.linalg.norm(session.engine._in_palm("left", "A") - before) * 1000
    assert still < 1.0  # the squeezed hook grasp holds the board where it is
    assert pushed > 5.0  # curling further shoves it across the palm (mm)


def test_a_screw_let_go_of_drops_to_the_table():
    session, w = _workshop("lap")
    name = sorted(w.state()["screws"])[0]
    w.pick_screw("left", name)
    z_held = w.obj(name)["pos"][2]
    w.hold_still(0.5)
    assert w.held("left", name) and abs(w.obj(name)["pos"][2] - z_held) < 0.001
    w.joints_to("left", {"index_spread": 0.35}, speed=0.5)  # open the scissor
    pp, pr = w.palm("left")
    w.move_to("left", pp + np.array([0, -0.09, 0.0]), pr, vmax=0.06, tol=0.003, rtol=0.02)  # fingers out backwards
    w.hold_still(1.0)
    assert not w.held("left", name)
    assert w.obj(name)["pos"][2] < z_held - 0.05  # nothing holds it up: it fell (78 mm, to the table)
