"""Screws driven along any axis (issue 20, item 1): a horizontal screw through a board standing on
its edge into the board behind it, with the seed's procedure (pinch, set on the face and hold it
there, bit on the axis, engage, let go, feed, withdraw), through the service's commands on the real
engine. The scene (two boards standing upright, an ell) is set up by the test harness
(measure.ell_upright), since no build places boards upright yet."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from simreflect.suites.workshop import measure
from simreflect.suites.workshop.builds import get_build
from simreflect.suites.workshop.client import LocalTransport, WorkshopClient
from simreflect.suites.workshop.reference.common import FEED_SEGMENT, AnyAxis, side_pinch_rotation
from simreflect.suites.workshop.screws import SEAT_ANGLE_DEG, SEAT_TIP_MM
from simreflect.suites.workshop.service import ServiceThread
from simreflect.suites.workshop.session import Session

AXIS = np.asarray(measure.ELL_AXIS)


def _ell_session(seed: int = 0) -> tuple[Session, list[np.ndarray]]:
    spec = get_build("lap").spec(seed)
    session = Session(replace(spec, budgets=replace(spec.budgets, actions=20000, sim_seconds=6000.0,
                                                    wall_seconds=6000.0)))
    return session, measure.ell_upright(session.engine)


def _tip_off_face_mm(w: AnyAxis, point) -> float:
    """How far the screw tip stands off A's -y face (the plane through `point`), mm."""
    return abs(float(np.dot(np.asarray(w.obj("screw0")["tip"]) - point, AXIS))) * 1000


def _robot(session: Session) -> AnyAxis:
    return AnyAxis(WorkshopClient(LocalTransport(session)))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("axis", [(0.0, 1.0, 0.0), (1.0, 0.0, 0.0), (-0.6, 0.8, 0.0)])
def test_the_side_pinch_points_the_screw_along_the_axis_with_level_fingers(side, axis):
    r = side_pinch_rotation(side, axis)
    assert np.allclose(r.T @ r, np.eye(3)) and np.linalg.det(r) == pytest.approx(1.0)
    assert np.allclose(r[:, 0], axis)  # the screw crosses the finger row along the palm normal
    fingers = -r[:, 2]
    assert abs(fingers[2]) < 1e-12  # level: nothing of the hand reaches down towards the table
    assert (fingers[0] > 0) == (side == "left") or abs(fingers[0]) < 1e-12


def test_a_horizontal_screw_through_an_upright_board_joins_it_to_the_board_behind():
    """Over HTTP: one screw along +y through A's face into B's end; it joins them, and one screw
    is a pivot: B turns about it under a torque that three screws hold (the slow test below)."""
    session, points = _ell_session(0)
    with ServiceThread(session) as svc:
        w = AnyAxis(WorkshopClient(svc.url))
        w.pick_drill("right", "drill0")
        actions, t0 = w.actions, w.state(fresh=True)["time"]
        w.fix_screw_along("screw0", "A", points[0], AXIS)
        w.hold_still(0.5)
        s = w.state(fresh=True)
        sc = s["screws"]["screw0"]
        assert sc["state"] == "driven" and sc["top"] == "A" and sc["bottom"] == "B" and sc["joint_active"]
        assert sc["stripped_how"] is None and s["drills"]["drill0"]["engaged_screw"] is None
        assert float(np.dot(sc["hole"]["axis"], AXIS)) > math.cos(math.radians(SEAT_ANGLE_DEG))
        print(f"one horizontal screw: {w.actions - actions} actions, {s['time'] - t0:.1f} simulated s")
    e = session.engine
    turned = measure.torque_rotation_deg(e, AXIS, torque=1.0, seconds=1.0)
    assert turned > 5.0  # a single screw is a pivot


class SidewaysOutAlong(AnyAxis):
    """The feed, except that the bit leaves the driven screw sideways instead of being withdrawn."""

    def feed(self, side, drill, screw, speed=0.015, max_s=10.0):
        bit = lambda st: st["drills"][drill]["tip"]
        t = 0.0
        while t < max_s and self.state(fresh=True)["screws"][screw]["state"] != "driven":
            s = self.state()
            tip = np.asarray(s["drills"][drill]["tip"])
            head, axis = np.asarray(s["screws"][screw]["hole"]["head_top"]), np.asarray(s["screws"][screw]["hole"]["axis"])
            rel = tip - head
            v = axis * speed - 4.0 * (rel - np.dot(rel, axis) * axis)
            self.act([{"type": "move", "duration": FEED_SEGMENT, side: {"ee": {"linear": [float(x) for x in v],
                       "point": [float(x) for x in tip]}}, "stop": [{"a": screw, "state": "driven"}]}])
            t += FEED_SEGMENT
        s = self.state(fresh=True)
        tip = np.asarray(s["drills"][drill]["tip"])
        want = self.drill_rotation(side, drill, s["screws"][screw]["hole"]["axis"])
        self.move_to(side, tip + np.array([0.0, 0.0, 0.03]), want, point=bit, vmax=0.02, tol=0.001, rtol=0.004)
        return "driven"


def test_a_bit_moved_sideways_out_of_a_horizontal_screw_strips_it():
    session, points = _ell_session(1)
    w = SidewaysOutAlong(WorkshopClient(LocalTransport(session)))
    w.pick_drill("right", "drill0")
    w.fix_screw_along("screw0", "A", points[0], AXIS)
    w.hold_still(0.5)
    sc = w.state(fresh=True)["screws"]["screw0"]
    assert sc["state"] == "stripped" and "before it was withdrawn" in sc["stripped_how"]
    assert not sc["joint_active"]


def test_a_screw_set_30_degrees_off_the_face_normal_does_not_engage():
    session, points = _ell_session(0)
    w = _robot(session)
    w.pick_drill("right", "drill0")
    w.pick_screw("left", "screw0")
    tilted = np.array([-math.sin(math.radians(32.0)), math.cos(math.radians(32.0)), 0.0])
    w.set_screw_on_face("left", "screw0", "A", points[0], tilted)
    sc = w.obj("screw0")
    assert _tip_off_face_mm(w, points[0]) < SEAT_TIP_MM and w.held("left", "screw0")
    off = math.degrees(math.acos(float(np.dot(sc["axis"], AXIS))))
    assert off > 30.0
    res = w.drill_onto_axis("right", "drill0", "screw0")
    assert not res["ok"] and "not square to A" in res["reason"], res
    after = w.state(fresh=True)
    assert after["screws"]["screw0"]["state"] == "free" and after["drills"]["drill0"]["engaged_screw"] is None


def test_a_horizontal_screw_let_go_before_engaging_falls():
    session, points = _ell_session(0)
    w = _robot(session)
    w.pick_screw("left", "screw0")
    w.set_screw_on_face("left", "screw0", "A", points[0], AXIS)
    before = np.asarray(w.obj("screw0")["pos"])
    assert _tip_off_face_mm(w, points[0]) < SEAT_TIP_MM and w.held("left", "screw0")
    w.joints_to("left", {"index_spread": 0.35}, speed=0.3)  # open the scissor: nothing holds it
    pp, pr = w.palm("left")
    w.move_to("left", pp + pr[:, 2] * 0.09, pr, vmax=0.06, tol=0.003, rtol=0.02)
    w.hold_still(1.0)
    sc = w.state(fresh=True)["screws"]["screw0"]
    assert sc["state"] == "free" and not sc["held_by"]
    assert sc["pos"][2] < before[2] - 0.02  # it fell


@pytest.mark.slow
def test_three_non_collinear_horizontal_screws_hold_the_ell():
    session, points = _ell_session(2)
    w = _robot(session)
    w.pick_drill("right", "drill0")
    for k, p in enumerate(points):
        w.fix_screw_along(f"screw{k}", "A", p, AXIS)
    w.hold_still(0.5)
    s = w.state(fresh=True)
    for k in range(3):
        sc = s["screws"][f"screw{k}"]
        assert sc["state"] == "driven" and sc["bottom"] == "B" and sc["joint_active"], (k, sc)
    e = session.engine
    for axis in (AXIS, (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)):
        assert measure.torque_rotation_deg(e, axis, torque=1.0, seconds=1.0) < 1.0, axis


# ----- bracing: a runner that cannot stay level by itself rests on a jig the robot placed ---------------

def _jig_session() -> tuple[Session, measure.JigEll, AnyAxis]:
    session = Session(measure.jig_ell_spec(0))
    scene = measure.jig_ell(session.engine)
    return session, scene, _robot(session)


def test_without_the_jig_the_runner_does_not_stay_at_the_joint():
    """The harness sets B where the jig would hold it, with no jig under it: it drops to the table,
    40 mm below its end's place against A's face (a screw there would find no board behind)."""
    session, scene, w = _jig_session()
    e = session.engine
    jx, jy, _, _ = scene.jig
    measure.place_pose(e, "J", [jx + 0.5, jy, 0.74], np.eye(3))  # the jig off to the side
    x, y, z, _ = scene.runner
    measure.place_pose(e, "B", [x, y, z], np.column_stack([[0, 1.0, 0], [-1.0, 0, 0], [0, 0, 1.0]]))  # flat, along y
    e.settle(1.0)
    assert w.pose("B")[0][2] < z - 0.035


def test_a_runner_braced_on_a_jig_is_screwed_horizontally_to_an_upright_board():
    """The robot lays the jig J on the table, sets the runner B on it with its end at upright A's
    face (both with the ordinary pick-and-place), then drives a horizontal screw through A into B."""
    session, scene, w = _jig_session()
    w.place_board("left", "J", scene.jig)
    w.place_board("left", "B", scene.runner)
    pb = np.asarray(w.pose("B")[0])
    assert abs(pb[2] - scene.runner[2]) < 0.002  # 40 mm above the table: on the jig
    w.pick_drill("right", "drill0")
    w.fix_screw_along("screw0", "A", scene.points[0], AXIS)
    w.hold_still(0.5)
    sc = w.state(fresh=True)["screws"]["screw0"]
    assert sc["state"] == "driven" and sc["bottom"] == "B" and sc["joint_active"]
    assert np.linalg.norm(np.asarray(w.pose("B")[0]) - pb) < 0.002  # the jig held it through the drive


@pytest.mark.slow
def test_three_horizontal_screws_fix_the_braced_runner_rigidly():
    session, scene, w = _jig_session()
    w.place_board("left", "J", scene.jig)
    w.place_board("left", "B", scene.runner)
    w.pick_drill("right", "drill0")
    for k, p in enumerate(scene.points):
        w.fix_screw_along(f"screw{k}", "A", p, AXIS)
    w.hold_still(0.5)
    s = w.state(fresh=True)
    assert all(s["screws"][f"screw{k}"]["joint_active"] and s["screws"][f"screw{k}"]["bottom"] == "B" for k in range(3))
    for axis in (AXIS, (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)):
        assert measure.torque_rotation_deg(session.engine, axis, torque=1.0, seconds=1.0) < 1.0, axis
