"""The loopholes the pace probe found (issue 17 item 2), each closed and tested through the real path.

* lander-offpad: a resonant open-loop throttle set the lander down 2.4 m off the pad (gently: the
  first touchdown was checked for speed, not place), hopped it onto the pad and let it rest there:
  100 on stage 4. Now no leg may touch the ground outside the pad (`on_pad`).
* seeker-blind: a constant command (half thrust, rudder amidships: the craft runs east and never
  reads its sonar) met the stage-1 beacon because its one fixed track crosses the craft's bow
  line; other constant and timed commands did the same on stages 2 and 4. Now every program runs
  once on each of two parallel tracks 12 m apart (`[[runs]]` in the card), not told which, and
  must capture the beacon on both: one blind path cannot meet both (see the card's notes).

Each found program (copied from the probe's findings into tests/data/pace/) passes with the old
rule put back and fails with the new one, sandboxed, as `simreflect pace verify` runs it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simreflect.suites.pace.evaluate import evaluate
from simreflect.suites.pace.mechanism import ContactLog
from simreflect.suites.pace.probe import ProbeConfig, probe
from simreflect.suites.pace.task import TARGETS, Run, TaskFormatError, TaskSpec, load_spec, tasks_dir

DATA = Path(__file__).parent / "data" / "pace"
LANDER = load_spec("control_lander")
SEEKER = load_spec("control_seeker")
OFFPAD = (DATA / "lander_offpad_touchdown.py").read_text()
BLIND = (DATA / "seeker_blind_constant.py").read_text()
BLIND_STAGE4 = (DATA / "seeker_blind_stage4.py").read_text()


# ----- lander: every touchdown on the pad -----------------------------------------------------------

def test_the_offpad_touchdown_passed_while_only_its_speed_was_checked(monkeypatch):
    """Before: with every foot reported over the pad (the old rule never looked where a leg
    touched down) the found program passes stage 4."""
    middle = LANDER.environment("stage4")["pad_x"]
    monkeypatch.setattr(LANDER.world_class, "feet", lambda self: [middle, middle])
    ev = evaluate(LANDER, "stage4", OFFPAD)
    assert ev.passed and ev.score == 100.0, ev.failure


def test_the_offpad_touchdown_fails_now():
    ev = evaluate(LANDER, "stage4", OFFPAD)  # sandboxed
    assert ev.program.status == "ok" and not ev.invalid
    assert not ev.passed and ev.score < 0
    (on_pad,) = [c for c in ev.constraints if c.name == "on_pad"]
    assert not on_pad.passed and on_pad.step == ev.failure_step
    assert not 3.5 <= on_pad.value <= 8.5  # the foot that touched, outside the stage-4 pad
    assert ev.failure == "a leg touched the ground off the pad"
    assert any(e.kind == "failure" and "off the pad" in e.text for e in ev.events)
    assert "on_pad" in ev.feedback


@pytest.mark.parametrize("stage", TARGETS)
def test_every_lander_reference_touches_down_on_the_pad(stage):
    ev = evaluate(LANDER, stage, LANDER.reference(stage), trusted_inprocess=True)  # our own program
    assert ev.passed, ev.failure
    (on_pad,) = [c for c in ev.constraints if c.name == "on_pad"]
    assert on_pad.passed and on_pad.value is None


# ----- seeker: the same controller on two tracks ------------------------------------------------------

def _first_track_only(monkeypatch):
    monkeypatch.setattr(SEEKER, "runs", SEEKER.runs[:1])


@pytest.mark.parametrize("program, stage", [(BLIND, "stage1"), (BLIND_STAGE4, "stage4")])
def test_a_blind_seeker_passed_on_one_fixed_track(program, stage, monkeypatch):
    """Before: one track per stage, and the found open-loop programs pass it."""
    _first_track_only(monkeypatch)
    ev = evaluate(SEEKER, stage, program)
    assert ev.passed and ev.score == 100.0, ev.failure


@pytest.mark.parametrize("program, stage", [(BLIND, "stage1"), (BLIND_STAGE4, "stage4")])
def test_a_blind_seeker_fails_on_the_second_track(program, stage):
    ev = evaluate(SEEKER, stage, program)  # sandboxed, both runs
    assert ev.program.status == "ok" and not ev.invalid
    assert not ev.passed
    assert ev.failure.startswith("run 2 of 2 (the parallel track to port): ")
    assert ev.notes[:2] == ["run 1 of 2 (the first track): passed", f"run 2 of 2 (the parallel track to port): "
                            f"failed: {ev.failure.split(': ', 1)[1]}"]
    assert ev.terminal["min_range"] > SEEKER.environment(stage)["capture_radius"] + 5.0  # nowhere near


@pytest.mark.parametrize("stage", TARGETS)
def test_every_seeker_reference_captures_the_beacon_on_both_tracks(stage):
    ev = evaluate(SEEKER, stage, SEEKER.reference(stage), trusted_inprocess=True)  # our own program
    assert ev.passed, ev.failure
    assert ev.notes[:2] == ["run 1 of 2 (the first track): passed", "run 2 of 2 (the parallel track to port): passed"]


def test_the_probe_watches_each_runs_own_world(monkeypatch):
    """The probe's contact log follows the simulator of every run: watching run 1's bodies in run
    2 read freed Box2D memory and killed the probe's worker (a segfault in the first v2 rerun).
    Two identical runs of a bridge must count every touch exactly twice."""
    bridge = load_spec("statics_bridge")
    once = ContactLog()
    evaluate(bridge, "stage1", bridge.reference("stage1"), trusted_inprocess=True, observe=once)  # our own
    monkeypatch.setattr(bridge, "runs", (Run("a"), Run("b")))
    twice = ContactLog()
    ev = evaluate(bridge, "stage1", bridge.reference("stage1"), trusted_inprocess=True, observe=twice)
    assert ev.passed and ev.notes[:2] == ["run 1 of 2 (a): passed", "run 2 of 2 (b): passed"]
    assert once.counts and twice.frames == 2 * once.frames
    assert twice.counts == {pair: 2 * n for pair, n in once.counts.items()}


def test_the_two_tracks_are_parallel_and_apart():
    from simreflect.suites.pace.tasks.control_seeker.world import beacon_start

    env = SEEKER.environment("stage1")
    (x0, y0), (x1, y1) = (beacon_start({**env, **dict(r.overrides)}) for r in SEEKER.runs)
    assert (x0, y0) == (env["target_x"], env["target_y"])
    assert abs(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 - env["track_shift"]) < 1e-9
    import math
    h = env["target_heading"]
    assert abs((x1 - x0) * math.cos(h) + (y1 - y0) * math.sin(h)) < 1e-9  # across the track, not along it
    assert (x1 - x0) * -math.sin(h) + (y1 - y0) * math.cos(h) > 0  # to port


RUN_COUNTER = '''import os

def build(api):
    seen = os.listdir(".")
    marker = "an_earlier_run_was_here"
    if marker in seen:
        raise RuntimeError("ESCAPED: this run saw an earlier one")
    open(marker, "w").write("x")
'''


def test_a_run_cannot_see_an_earlier_run(tmp_path):
    """A program that could count its runs (a file left in its work directory) could play a
    different blind path on each track. Every run gets a fresh work directory: the second run
    finds no marker, and the caller's work directory gets none either."""
    program = RUN_COUNTER + SEEKER.reference("stage1").replace("def build(api):", "def _build(api):", 1) + \
        "\n\n_first = build\n\ndef build(api):\n    _first(api)\n    _build(api)\n"
    ev = evaluate(SEEKER, "stage1", program, workdir=tmp_path)
    assert ev.program.status == "ok" and "ESCAPED" not in ev.failure and "ESCAPED" not in ev.program.output_tail
    assert ev.passed, ev.failure
    assert sorted(p.name for p in tmp_path.iterdir()) == ["program.py", "task.json"]


def test_a_run_may_set_only_invisible_variables(tmp_path):
    folder = tmp_path / "control_seeker"
    shutil.copytree(tasks_dir() / "control_seeker", folder, ignore=shutil.ignore_patterns("__pycache__"))
    card = (folder / "card.toml").read_text()
    (folder / "card.toml").write_text(card.replace('name = "the parallel track to port"\ntrack = 1',
                                                   'name = "the parallel track to port"\ntrack = 1\ntarget_x = 40.0'))
    with pytest.raises(TaskFormatError, match=r"only invisible variables .*target_x"):
        TaskSpec(folder)
    (folder / "card.toml").write_text("runs = 3\n" + card.replace("[[runs]]", "[[other]]"))
    with pytest.raises(TaskFormatError, match="non-empty list"):
        TaskSpec(folder)


@pytest.mark.slow
def test_the_probe_finds_no_blind_seeker_on_any_stage(tmp_path):
    """The search that found 27 blind passes (constant, timed and resonant commands) under one
    track: now no pass of a law that never reads a sensor (constant, timed, resonant)."""
    cfg = ProbeConfig(budget=40, population=6, seed=0, gifs=0)
    results = probe([("control_seeker", s) for s in TARGETS], cfg, tmp_path, workers=2)
    for r in results:
        assert r.error == "" and r.reference_passed and r.evaluations == cfg.budget, r.stage
        blind = [f.program for f in r.findings
                 if {"controller:constant", "controller:timed", "controller:resonant"} & set(f.mechanism.features)]
        assert not blind, (r.stage, blind)
