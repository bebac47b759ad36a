"""The param-search baseline: which literals it searches, exact rewriting, a candidate sequence that
is a pure function of (seed, round, history), and real pace episodes through the episode loop."""

from __future__ import annotations

import ast
import math
from dataclasses import replace

import pytest

from simreflect.agents.base import Observation
from simreflect.agents.param_search import (
    FAILED,
    ParamSearchAgent,
    find_literals,
    format_value,
    replay,
    rewrite,
    scaled,
    source_score_from,
    task_seed,
    values_for,
)
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.records import RoundRecord
from simreflect.core.verdict import Verdict
from simreflect.run.agents import AGENT_NAMES, make_agent
from simreflect.run.episode import run_episode
from simreflect.run.store import EpisodeLog, RunStore
from simreflect.suites.pace.suite import PaceSuite
from pace_helpers import task_folder_names

SAMPLE = '''\
"""A docstring with 1.5 in it."""
import math
N = 6
GAIN = -0.25
name = "\u00e9\u00e9"; K = 2.5
def build(api, width=1.2, *, flag=True, count=3):
    xs = [i * 0.5 for i in range(1, N)]
    a = xs[0] + xs[-1] + xs[i + 1]
    b = width / 2 + 2 * width + 0.0
    api.beam((0, 1.0), (a, -3.0), thickness=0.06, material="steel")
    return f"{a:.3f}" if a > 4.5 else b ** 2
'''


@pytest.fixture(scope="module")
def suite() -> PaceSuite:
    return PaceSuite()


@pytest.fixture(scope="module")
def tasks(suite) -> dict:
    return {t.id: t for t in suite.load_tasks()}


def _shape(text: str) -> str:
    """The program's syntax tree with every number replaced by its type: what tuning must not change."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            node.value = type(node.value).__name__
    return ast.dump(tree)


# ----- literals and rewriting ---------------------------------------------------------------------

def test_literal_selection_skips_structure():
    lits = find_literals(SAMPLE)
    assert [lit.value for lit in lits] == [6, 0.25, 2.5, 1.2, 3, 0.5, 1.0, 3.0, 0.06, 4.5]
    assert [lit.negative for lit in lits] == [False, True, False, False, False, False, False, True, False, False]
    assert [lit.is_int for lit in lits][:5] == [True, False, False, False, True]
    labels = {lit.label for lit in lits}
    assert {"N", "GAIN", "K", "width", "count", "thickness"} <= labels
    # indices, range bounds, int offsets and halvings, zeros, booleans and docstrings are not searched
    assert all(lit.line != 8 for lit in lits)  # xs[0], xs[-1], xs[i + 1]


def test_rewrite_is_exact_and_byte_offsets_are_respected():
    lits = find_literals(SAMPLE)
    assert rewrite(SAMPLE, lits, [lit.value for lit in lits]) == SAMPLE
    values = [lit.value for lit in lits]
    values[2] = 3.75  # K, after two 2-byte characters on the same line
    values[1] = 0.5  # GAIN keeps its minus sign
    values[0] = 9
    out = rewrite(SAMPLE, lits, values)
    assert 'name = "\u00e9\u00e9"; K = 3.75\n' in out
    assert "GAIN = -0.5\n" in out and "N = 9\n" in out
    assert out.replace("3.75", "2.5").replace("-0.5", "-0.25").replace("N = 9", "N = 6") == SAMPLE
    with pytest.raises(ValueError):
        rewrite(SAMPLE, lits, values[:-1])


def test_values_keep_their_kind():
    assert format_value(2121.32, False) == "2121.0" and format_value(0.000123, False) == "0.000123"
    assert float(format_value(12345.6, False)) == pytest.approx(12350.0)
    assert format_value(7, True) == "7"
    n, gain = find_literals(SAMPLE)[:2]
    assert scaled(n, 0.0) == 6 and scaled(n, 0.01) == 7 and scaled(n, -0.01) == 5  # a moved int moves
    assert scaled(n, math.log(4)) == 24 and isinstance(scaled(n, 0.3), int)
    assert scaled(gain, math.log(2)) == 0.5 and isinstance(scaled(gain, 0.3), float)


def test_every_pace_source_round_trips(suite, tasks):
    seen = set()
    for task in tasks.values():
        spec_id = task.params["task"]
        if spec_id in seen:
            continue
        seen.add(spec_id)
        source = suite.spec(task).program("source")
        lits = find_literals(source)
        assert len(lits) >= 2, spec_id
        assert rewrite(source, lits, [lit.value for lit in lits]) == source
        z = [0.3 if i % 2 else -0.3 for i in range(len(lits))]
        values = values_for(lits, z)
        out = rewrite(source, lits, values)
        compile(out, "program.py", "exec")
        assert _shape(out) == _shape(source)  # only numbers changed, and ints stayed ints
        changed = find_literals(out)
        assert [lit.value for lit in changed] == values
        # every literal moves, except an int 1 moved down (ints stay at least 1: counts)
        assert all(lit.value != v or (lit.is_int and v == 1 and zi < 0) for lit, v, zi in zip(lits, values, z))
    assert sorted(seen) == task_folder_names()


# ----- the candidate sequence -----------------------------------------------------------------------

def _obs(task, round_no, history=(), score=-28.57):
    verdict = Verdict(checks=(), score=score, reward=score / 100)
    return Observation(task=task, level=EvidenceLevel.L1, round=round_no, budget=20, messages=(), verdict=verdict,
                       history=tuple(history))


def _play(agent, task, scores, source_score=-28.57):
    """Rounds 1..len(scores)+1 with a made-up verifier; returns the actions and the history."""
    history, actions = [], []
    for k in range(1, len(scores) + 2):
        action = agent.act(_obs(task, k, history, source_score))
        actions.append(action)
        if k <= len(scores):
            s = scores[k - 1]
            history.append(RoundRecord(round=k, script=action.program, score=None if s is FAILED else s,
                                       passed=False, accepted=s is not FAILED, diagnosis=action.diagnosis))
    return actions, history


def test_same_history_same_candidate(suite, tasks):
    task = tasks["statics_bridge.stage1"]
    scores = [-42.86, -14.29, -14.29, FAILED, -28.57, 40.0, -14.29]
    a1, history = _play(ParamSearchAgent(suite), task, scores)
    a2, _ = _play(ParamSearchAgent(suite), task, scores)
    assert [a.program for a in a1] == [a.program for a in a2]
    assert len({a.program for a in a1}) == len(a1)  # never the same program twice
    source = suite.spec(task).program("source")
    assert source not in {a.program for a in a1}  # the source is never re-evaluated
    for a in a1:
        compile(a.program, "program.py", "exec")
        assert _shape(a.program) == _shape(source)
    # a fresh agent asked for round 5 alone (a resumed run) gives round 5's candidate
    fresh = ParamSearchAgent(suite).act(_obs(task, 5, history[:4]))
    assert fresh.program == a1[4].program
    # the source's score travels in round 1's diagnosis; the best score only grows
    assert source_score_from(history) == -28.57
    bests = [a.notes["best_score"] for a in a1]
    assert bests == sorted(bests) and bests[-1] == 40.0 and a1[-1].notes["best_round"] == 6
    # other scores steer the search elsewhere
    a3, _ = _play(ParamSearchAgent(suite), task, [100.0 - s if s is not FAILED else 0.0 for s in scores])
    assert a3[0].program == a1[0].program and [a.program for a in a3] != [a.program for a in a1]


def test_seeds_and_missing_history(suite, tasks):
    source_a = suite.spec(tasks["kinematics_rover.stage1"]).program("source")
    lits = find_literals(source_a)
    first = {tid: ParamSearchAgent(suite).act(_obs(tasks[tid], 1)).program
             for tid in ("kinematics_rover.stage1", "kinematics_rover.stage2")}
    assert len(set(first.values())) == 2  # seeded by the task id
    assert ParamSearchAgent(suite, seed=1).act(_obs(tasks["kinematics_rover.stage1"], 1)).program != \
        first["kinematics_rover.stage1"]
    # no history on round 6: every score unknown, still a deterministic, valid, new program
    task = tasks["kinematics_rover.stage1"]
    blind = [ParamSearchAgent(suite).act(_obs(task, 6)).program for _ in range(2)]
    assert blind[0] == blind[1] and blind[0] != source_a
    prop, _ = replay(lits, source_a, task_seed(task.id), 6, None, {})
    assert blind[0] == rewrite(source_a, lits, values_for(lits, prop.z))
    # a score recorded for another script is not the candidate's: it counts as unknown
    actions, history = _play(ParamSearchAgent(suite), task, [50.0, 60.0])
    forged = [replace(h, script=h.script + "\n# edited\n") for h in history]
    unknown = [replace(h, score=None) for h in history]
    assert ParamSearchAgent(suite).act(_obs(task, 3, forged)).program == \
        ParamSearchAgent(suite).act(_obs(task, 3, unknown)).program


def test_registered_and_pace_only(suite):
    assert "param-search" in AGENT_NAMES
    assert isinstance(make_agent("param-search", suite), ParamSearchAgent)
    with pytest.raises(ValueError):
        ParamSearchAgent(object())


# ----- real episodes (sandbox + simulator) ---------------------------------------------------------

def _episode(suite, task, tmp, budget, seed=0, log=None, store_dir="run"):
    store = RunStore(tmp / store_dir)
    log = log if log is not None else EpisodeLog()
    out = run_episode(suite, ParamSearchAgent(suite, seed=seed), task, EvidenceLevel.L1, budget, store, log,
                      timeout_s=60)
    return out, log


def test_pace_episodes_propose_verified_programs(suite, tasks, tmp_path):
    best_gain = {}
    for tid in ("statics_bridge.stage3", "kinematics_rover.stage2"):
        task = tasks[tid]
        source = suite.spec(task).program("source")
        out, log = _episode(suite, task, tmp_path / tid, 6)
        rounds = log.rounds
        assert len(rounds) == 6 and not out.solved
        assert all(r.accepted and r.program["status"] == "ok" for r in rounds)  # every candidate ran
        scripts = [r.script for r in rounds]
        assert len(set(scripts)) == 6 and source not in scripts
        assert all(_shape(s) == _shape(source) for s in scripts)
        source_score = rounds[0].score_before
        assert f"source score {source_score!r};" in rounds[0].diagnosis
        bests = [r.method_notes["best_score"] for r in rounds]  # best before each round
        assert bests == sorted(bests) and bests[0] == source_score
        assert bests[-1] == max([source_score] + [r.score for r in rounds[:-1]])
        best_gain[tid] = max(r.score for r in rounds) - source_score
    assert best_gain["statics_bridge.stage3"] > 0  # tuning alone lowers the share of violated constraints


def test_resumed_episode_makes_the_same_attempts(suite, tasks, tmp_path):
    task = tasks["statics_bridge.stage3"]
    _, straight = _episode(suite, task, tmp_path, 5, store_dir="straight")
    _, cut = _episode(suite, task, tmp_path, 2, store_dir="cut")  # a run killed after two rounds ...
    _, resumed = _episode(suite, task, tmp_path, 5, log=cut, store_dir="cut")  # ... then resumed
    assert [r.script for r in resumed.rounds] == [r.script for r in straight.rounds]
    assert [r.score for r in resumed.rounds] == [r.score for r in straight.rounds]


def test_tuning_alone_solves_a_target(suite, tasks, tmp_path):
    """kinematics_rover stage 1 (a taller curb, less grip): larger wheels are enough, no new mechanism."""
    task = tasks["kinematics_rover.stage1"]
    out, log = _episode(suite, task, tmp_path, 3, seed=1)
    assert out.solved and log.rounds[-1].passed and log.rounds[-1].score == 100.0
    source = suite.spec(task).program("source")
    assert _shape(log.rounds[-1].script) == _shape(source)
    assert "r 0.45->" in log.rounds[-1].diagnosis
