"""The workshop HTTP service, driven over real HTTP (uvicorn on 127.0.0.1, a free port)."""

from __future__ import annotations

import httpx
import numpy as np
import pytest

from simreflect.suites.workshop.builds import get_build
from simreflect.suites.workshop.client import WorkshopClient, WorkshopError
from simreflect.suites.workshop.reference.common import Workshop, rot_axis
from simreflect.suites.workshop.service import ServiceThread
from simreflect.suites.workshop.session import Session


@pytest.fixture(scope="module")
def service():
    with ServiceThread(Session.for_build("place", 2)) as svc:
        yield svc


def _fingerprint(state: dict) -> tuple:
    joints = [j["q"] for arm in state["arms"].values() for j in arm["joints"].values()]
    targets = [j["target"] for arm in state["arms"].values() for j in arm["joints"].values()]
    return (state["time"], state["step"], state["budgets"]["actions"]["used"], tuple(joints), tuple(targets),
            tuple(state["boards"]["A"]["pos"]))


def test_reads_and_schema(service):
    http = httpx.Client(base_url=service.url)
    assert http.get("/health").json()["ok"]
    schema = http.get("/openapi.json").json()
    assert {"/state", "/spec", "/act", "/step", "/note", "/finish"} <= set(schema["paths"])
    spec = http.get("/spec").json()
    assert spec["build"]["name"] == "place" and spec["rate_hz"] == 180
    assert spec["robot"]["joints"]["elbow"]["max_velocity"] > 0
    s = http.get("/state").json()
    assert s["time"] == 0.0 and s["done"] is False
    assert set(s["arms"]) == {"left", "right"} and "A" in s["boards"]
    assert s["budgets"]["actions"]["left"] == spec["build"]["budgets"]["actions"]
    assert not any(hasattr(http, name) and http.post(path).status_code == 200 for name, path in
                   (("reset", "/reset"), ("teleport", "/set_state")))  # no such endpoints


BAD = [
    ({"segments": []}, "act"),  # no segments
    ({"segments": [{"type": "move", "duration": 0.5, "left": {"joints": {"elbow": 99.0}}}]}, "act"),  # too fast
    ({"segments": [{"type": "move", "duration": 0.5, "left": {"joints": {"nose": 0.1}}}]}, "act"),  # no such joint
    ({"segments": [{"type": "move", "duration": -1.0}]}, "act"),
    ({"segments": [{"type": "move", "duration": 99.0}]}, "act"),
    ({"segments": [{"type": "move", "duration": 0.5, "left": {"ee": {"linear": [5.0, 0, 0]}}}]}, "act"),
    ({"segments": [{"type": "move", "duration": 0.5, "left": {"ee": {"linear": [0, 0]}}}]}, "act"),
    ({"segments": [{"type": "move", "duration": 0.5, "left": {"ee": {}, "joints": {"elbow": 0.1}}}]}, "act"),
    ({"segments": [{"type": "move", "duration": 0.5, "stop": [{"a": "nothing", "b": "any"}]}]}, "act"),
    ({"segments": [{"type": "teleport", "to": [0, 0, 1]}]}, "act"),
    ({"segments": [{"type": "move", "duration": 0.5, "qpos": [0, 0, 0]}]}, "act"),  # extra field
    ({"segments": [{"type": "drill", "hand": "left", "action": "engage"}]}, "act"),  # no drill in this build
    ({"segments": [{"type": "move", "duration": 0.1}]}, "act-then-bad"),  # a valid one before a bad one
    ({"type": "move", "duration": "soon"}, "step"),
    ({"text": ""}, "note"),
    ({"text": "x" * 5000}, "note"),
]


@pytest.mark.parametrize("payload,where", BAD)
def test_malformed_commands_are_rejected_without_change(service, payload, where):
    http = httpx.Client(base_url=service.url)
    before = _fingerprint(http.get("/state").json())
    if where == "act-then-bad":
        payload = {"segments": payload["segments"] + [{"type": "move", "duration": 0.1, "right": {"joints": {"wrist_roll": 9.0}}}]}
        where = "act"
    r = http.post(f"/{where}", json=payload)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]
    assert _fingerprint(http.get("/state").json()) == before


def test_commands_move_the_robot_and_report(service):
    c = WorkshopClient(service.url)
    s0 = c.state()
    r = c.act([{"type": "move", "duration": 0.5, "left": {"joints": {"base_x": -0.2, "wrist_roll": 0.5}}},
               {"type": "move", "duration": 0.2, "right": {"ee": {"linear": [0, 0, 0.05]}}},
               {"type": "wait", "duration": 0.1}])
    assert [x["steps"] for x in r["results"]] == [90, 36, 18]
    assert isinstance(r["reward"], float) and r["budgets"]["actions"]["used"] == 3
    s1 = c.state()
    assert s1["time"] == pytest.approx(s0["time"] + 0.8)
    assert s1["arms"]["left"]["joints"]["base_x"]["q"] < s0["arms"]["left"]["joints"]["base_x"]["q"] - 0.05
    assert s1["arms"]["right"]["palm"]["pos"][2] > s0["arms"]["right"]["palm"]["pos"][2] + 0.005
    r = c.step({"type": "move", "duration": 0.05, "left": {"joints": {"base_x": 0.2}}})
    assert r["results"][0]["steps"] == 9
    assert c.note("moved a little")["ok"]
    # the arm against its joint limit is reported
    r = c.act([{"type": "move", "duration": 3.0, "left": {"joints": {"wrist_pitch": 1.8}}}])
    assert "left/wrist_pitch" in r["results"][0]["at_limit"]
    assert c.state()["arms"]["left"]["joints"]["wrist_pitch"]["at_limit"]


def test_finish_freezes_the_session():
    with ServiceThread(Session.for_build("place", 0)) as svc:
        c = WorkshopClient(svc.url)
        out = c.finish("nothing done")
        assert out["ok"] and out["progress"]["complete"] is False
        with pytest.raises(WorkshopError) as e:
            c.act([{"type": "wait", "duration": 0.1}])
        assert e.value.status == 409
        assert c.state()["done"] is True


def test_misaligned_bit_is_refused_aligned_is_accepted():
    """The drill, held in the right hand, comes down on a screw standing in the comb: tilted 6 degrees
    off the screw's axis the engage is refused as misaligned and nothing changes; aligned, the bit
    passes that check (and is then refused only because this screw stands in the comb, not on a board)."""
    with ServiceThread(Session(get_build("lap").spec(0))) as svc:
        w = Workshop(WorkshopClient(svc.url))
        w.pick_drill("right", "drill0")
        sc = w.obj("screw1")
        head, axis = np.asarray(sc["head_top"]), np.asarray(sc["axis"])
        bit = lambda st: st["drills"]["drill0"]["tip"]
        bx, by = w.base_for("right", head, dy=0.45, dx=0.26)
        w.lift_to_safe("right")
        w.base_to("right", bx, by)
        for tilt_deg, expect in ((6.0, "misaligned"), (0.0, "not standing on a board")):
            tilted = rot_axis([1.0, 0, 0], np.radians(tilt_deg)) @ axis
            want = w.align_rotation("right", w.obj("drill0")["axis"], tilted)
            w.move_to("right", head - tilted * 0.08, want, point=bit, vmax=0.2, tol=0.003, rtol=0.01)
            want = w.align_rotation("right", w.obj("drill0")["axis"], tilted)
            w.move_to("right", head - tilted * 0.002, want, point=bit, vmax=0.03, tol=0.0006, rtol=0.002)
            before = w.state(fresh=True)
            res = w.act([{"type": "drill", "hand": "right", "action": "engage"}])["results"][0]
            assert not res["ok"] and expect in res["reason"], res
            after = w.state(fresh=True)
            assert after["screws"]["screw1"]["state"] == "free" and after["drills"]["drill0"]["engaged_screw"] is None
            assert after["time"] == before["time"] and after["screws"]["screw1"]["pos"] == before["screws"]["screw1"]["pos"]
            w.move_to("right", head - axis * 0.08, None, point=bit, vmax=0.1, tol=0.004, rtol=1.0)
