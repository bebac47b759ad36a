"""The workshop's fast paths give exactly what the slow ones gave: a second look at an unchanged
world, the state an /act brings with it, the session's pass check, and a replay of a session
driven that way."""

from __future__ import annotations

from simreflect.suites.workshop import recording
from simreflect.suites.workshop.client import WorkshopClient
from simreflect.suites.workshop.grader import grade, passes
from simreflect.suites.workshop.service import ServiceThread
from simreflect.suites.workshop.session import Session

MOVE = [{"type": "move", "duration": 0.3, "left": {"ee": {"linear": [0.0, 0.05, 0.02]}},
         "right": {"joints": {"base_x": 0.1}}}]


def test_a_second_look_at_an_unchanged_world_is_a_fresh_look():
    session = Session.for_build("place", 0)
    session.act({"segments": MOVE})
    eng = session.engine
    cached = eng.observe_now()
    eng._observed = None  # forget it: the next look runs mj_forward again
    assert eng.observe_now() == cached
    # anything the physics reads changes the answer, even when set from outside the engine
    eng.data.qpos[eng.layout.object_by_name["A"].qadr] += 0.01
    moved = eng.observe_now()
    assert moved["boards"]["A"]["pos"][0] != cached["boards"]["A"]["pos"][0]


def test_a_look_returns_a_copy_the_caller_may_extend():
    session = Session.for_build("place", 0)
    first = session.engine.observe_now()
    first["extra"] = 1
    assert "extra" not in session.engine.observe_now()


def test_act_with_state_brings_the_state_get_state_gives_and_replays(tmp_path):
    session = Session.for_build("place", 0, record_dir=tmp_path)
    with ServiceThread(session) as svc:
        client = WorkshopClient(svc.url)
        res = client.act(MOVE, with_state=True)
        got = res.pop("state")
        now = client.state()
        assert "state" not in client.act([{"type": "wait", "duration": 0.1}])
        client.finish("done")
        client.close()
    for s in (got, now):
        s.pop("budgets")  # wall seconds used differ between the two reads
    assert got == now
    assert got["step"] == res["results"][0]["steps"]
    requests = [c["request"] for c in recording.load_commands(tmp_path) if c["kind"] == "act"]
    assert all("with_state" not in r for r in requests)
    assert recording.canonical(recording.replay(tmp_path)) + "\n" == (tmp_path / recording.FINAL_FILE).read_text()


def test_passes_is_grade_passed():
    session = Session.for_build("place", 0)
    state = session.engine.observe_now()
    assert not state["holds"]
    assert passes(state, session.spec) == grade(state, session.spec).passed
    held = {**state, "holds": [{"hand": "left", "object": "A"}]}
    assert passes(held, session.spec) is False and grade(held, session.spec).passed is False
    assert passes(None, session.spec) is False and passes({}, session.spec) is False


def test_stop_tables_agree_with_the_owner_sets():
    """The compiled stop conditions (owner lookup tables) against the sets they stand for, on
    random contacts of every owner code."""
    import numpy as np

    from simreflect.suites.workshop.contacts import ContactArrays, compile_stops, owner_set, stop_met
    from simreflect.suites.workshop.layout import Owner
    from simreflect.suites.workshop.protocol import StopWhen

    session = Session.for_build("lap", 0)
    lay = session.engine.layout
    names = ["A", "B", "drill0", "screw1", "left_hand", "right", "object", "robot", "static", "any"]
    rng = np.random.default_rng(7)
    codes = np.arange(int(Owner.FLOOR), int(Owner.FIRST_OBJECT) + len(lay.objects))
    codes = codes[(codes < 4) | (codes >= int(Owner.FIRST_OBJECT))]
    for trial in range(300):
        a = str(rng.choice(names[:-2] if trial % 2 else names[:5]))
        b = str(rng.choice(names))
        stop = StopWhen(a=a, b=b, min_force=float(rng.uniform(0, 1)))
        n = int(rng.integers(1, 12))
        o1, o2 = rng.choice(codes, n), rng.choice(codes, n)
        f = rng.uniform(0, 2, n)
        arrays = ContactArrays(np.zeros((n, 2), int), o1, o2, f)
        sa, sb = owner_set(lay, a), owner_set(lay, b)
        in_a1, in_a2 = np.isin(o1, list(sa)), np.isin(o2, list(sa))
        if sb is None:
            hit = in_a1 ^ in_a2
        else:
            hit = (in_a1 & np.isin(o2, list(sb))) | (in_a2 & np.isin(o1, list(sb)))
        want = 0 if np.any(hit & (f >= stop.min_force)) else -1
        assert stop_met(compile_stops(lay, [stop]), arrays, []) == want
