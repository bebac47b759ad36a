"""The trajectory contract: validation, JSON round trip, JSONL loading, infrastructure split."""

from __future__ import annotations

import json
import math

import pytest

from simreflect.analysis.infra import split_infra
from simreflect.analysis.trajectory import (Attempt, ContractError, Trajectory, best_attempt, dump_trajectories,
                                            load_trajectories)


def traj(attempts, end="budget", run=0, **kw):
    fields = dict(task="S_01", domain="statics", stage=1, method="vanilla", model="m", run=run)
    fields.update(kw)
    return Trajectory(attempts=attempts, end_reason=end, **fields)


def test_round_trip(tmp_path):
    t = traj([Attempt(0, -40.0, False, program="src"),
              Attempt(1, None, False, program=None, invalid_reason="unparseable"),
              Attempt(2, 55.5, False, program="p2", constraint_violation=True, structural_failure=True),
              Attempt(3, None, False, infra_error=True, invalid_reason="endpoint down"),
              Attempt(3, 100, True, program="p3")], end="solved", budget=20, meta={"seed": 3})
    assert Trajectory.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    path = tmp_path / "t.jsonl"
    dump_trajectories([t, traj([Attempt(1, 1.0, False)], run=1)], path)
    loaded = load_trajectories(path)
    assert loaded[0] == t and loaded[0].meta == {"seed": 3} and loaded[1].run == 1
    assert t.attempts[2].score == 55.5 and isinstance(t.attempts[4].score, float)


def test_flags_may_be_grouped():
    a = Attempt.from_dict({"index": 1, "score": -10, "passed": False, "flags": {"numerical_instability": True}})
    assert a.numerical_instability and not a.constraint_violation
    with pytest.raises(ContractError):
        Attempt.from_dict({"index": 1, "score": 0, "passed": False, "flags": {"exploded": True}})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 100.5, -101])
def test_scores_must_be_finite_and_in_range(bad):
    with pytest.raises(ContractError):
        traj([Attempt(1, bad, False)])


def test_the_range_and_stages_are_the_declared_ones_and_round_trip():
    gait_like = dict(score_range=(0.0, 1.0), stages=(1,))
    t = traj([Attempt(1, 0.5, False)], **gait_like)
    assert t.score_floor == 0.0 and Trajectory.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    with pytest.raises(ContractError, match="outside"):
        traj([Attempt(1, 1.5, False)], **gait_like)  # in pace's range, not in this suite's
    with pytest.raises(ContractError, match="stage"):
        traj([Attempt(1, 0.5, False)], stage=2, **gait_like)
    legacy = traj([Attempt(1, -50.0, False)]).to_dict()
    del legacy["score_range"], legacy["stages"]  # a file written before suites declared them: pace's
    assert Trajectory.from_dict(legacy).score_range == (-100.0, 100.0) and Trajectory.from_dict(legacy).stages == (1, 2, 3, 4)


def test_contract_violations():
    with pytest.raises(ContractError):
        Attempt(1, None, True)  # passed without a score
    with pytest.raises(ContractError):
        Attempt(1, 5.0, False, infra_error=True)
    with pytest.raises(ContractError):
        traj([Attempt(1, 1.0, False), Attempt(3, 1.0, False)])  # gap
    with pytest.raises(ContractError):
        traj([Attempt(2, 1.0, False)])  # does not start at 0 or 1
    with pytest.raises(ContractError):
        traj([Attempt(1, 1.0, False)], end="solved")
    with pytest.raises(ContractError):
        traj([Attempt(1, 1.0, False)], end="timeout")
    with pytest.raises(ContractError):
        traj([Attempt(1, 1.0, False)], stage=5)
    with pytest.raises(ContractError):
        traj([Attempt(1, 1.0, False), Attempt(2, 1.0, False)], budget=1)


def test_load_reports_the_bad_line(tmp_path):
    path = tmp_path / "t.jsonl"
    good = json.dumps(traj([Attempt(1, 1.0, False)]).to_dict())
    path.write_text(good + "\n\n" + good.replace('"run": 0', '"run": 1') + "\n{not json\n")
    with pytest.raises(ContractError, match=":4:"):
        load_trajectories(path)
    path.write_text(good + "\n" + good + "\n")
    with pytest.raises(ContractError, match="duplicate"):
        load_trajectories(path)


def test_best_attempt_ties_go_to_the_earliest():
    atts = [Attempt(1, 10.0, False), Attempt(2, None, False), Attempt(3, 10.0, False), Attempt(4, -5.0, False)]
    assert best_attempt(atts).index == 1
    assert best_attempt([Attempt(1, None, False)]) is None


def test_split_infra_lists_everything_apart():
    finished = traj([Attempt(1, 5.0, False), Attempt(2, None, False, infra_error=True, invalid_reason="429"),
                     Attempt(2, 7.0, False)], run=0)
    unfinished = traj([Attempt(1, 5.0, False), Attempt(2, None, False, infra_error=True,
                                                      invalid_reason="endpoint down")], end="infra", run=1)
    split = split_infra([finished, unfinished])
    assert [t.run for t in split.kept] == [0] and [t.run for t in split.excluded_runs] == [1]
    assert [a.index for a in split.kept[0].attempts] == [1, 2] and split.kept[0].attempts[1].score == 7.0
    assert [(r.attempt, r.reason) for r in split.records] == [(2, "429"), (None, "endpoint down")]
    md = split.markdown()
    assert "1 unfinished run(s) excluded, 1 retried attempt(s) removed" in md and "whole run" in md
    assert split.to_dict()["excluded_runs"] == 1
