"""PACE-Bench's own taxonomy rules (analysis/taxonomy_pace.py), one run per rule, and where they part
from ours (analysis/taxonomy.py)."""

from __future__ import annotations

import pytest

from simreflect.analysis.tables import analysis_markdown
from simreflect.analysis.taxonomy import classify, taxonomy_table
from simreflect.analysis.taxonomy_pace import classify_pace, pace_history, signals, token_jaccard
from simreflect.analysis.trajectory import Attempt, Trajectory


def traj(scores, *, a0=-10.0, programs=None, reasons=None, flags=None, end="budget", budget=20, task="S_01"):
    programs = programs or [f"design variant {i} " + " ".join(f"t{i}_{j}" for j in range(8)) for i in
                            range(len(scores))]
    reasons = reasons or [""] * len(scores)
    flags = flags or [{}] * len(scores)
    atts = [Attempt(0, a0, False, program="source design")]
    atts += [Attempt(i, s, s == 100, program=p, invalid_reason=r, **f)
             for i, (s, p, r, f) in enumerate(zip(scores, programs, reasons, flags), 1)]
    return Trajectory(task, "statics", 1, "vanilla", "m", 0, atts, "solved" if 100 in scores else end, budget=budget)


SAME = "def build_agent(sandbox): return sandbox.add_beam(1, 2, 3)"


@pytest.mark.parametrize("name,run,label", [
    ("best <= -60", traj([-80.0, -70.0], a0=-90.0), "catastrophic_collapse"),
    ("best violates a constraint", traj([20.0], a0=-50.0, flags=[{"constraint_violation": True}]),
     "constraint_violation"),
    ("best broke a joint", traj([20.0], a0=-50.0, flags=[{"structural_failure": True}]), "structural_failure"),
    # PACE's: any negative best is numerical instability, with no blow-up detected at all
    ("negative best", traj([-20.0, -30.0], a0=-40.0), "numerical_instability"),
    ("the same program, a flat low score", traj([10.0] * 6, a0=10.0, programs=[SAME] * 6), "design_fixation"),
    ("improved late", traj([5.0] * 6 + [40.0] * 6, a0=5.0), "late_convergence"),
    ("no positive score, one reason", traj([0.0] * 4, a0=0.0, reasons=["cart fell"] * 4), "stagnation"),
    ("no positive score, many reasons", traj([0.0] * 4, a0=0.0, reasons=["a", "b", "c", "d"]), "exploration"),
    ("a positive best, not late", traj([40.0, 45.0, 42.0], a0=0.0), "budget_exhaustion"),
])
def test_each_of_paces_rules(name, run, label):
    assert classify_pace(run) == label, signals(pace_history(run))


def test_the_source_is_in_paces_history_and_a_failed_program_scores_zero():
    run = traj([30.0], a0=-10.0)
    assert [a.index for a in pace_history(run)] == [0, 1]
    crashed = Trajectory("S_01", "statics", 1, "vanilla", "m", 0,
                         [Attempt(0, -10.0, False, program="src"), Attempt(1, None, False, program="boom",
                                                                         invalid_reason="exit code 1"),
                          Attempt(2, None, False, program=None, invalid_reason="no program in the answer")],
                         "invalid_streak", budget=20)
    assert [a.index for a in pace_history(crashed)] == [0, 1]  # an answer without a program never enters it
    assert signals(pace_history(crashed)).scores == (-10.0, 0.0)
    assert classify_pace(traj([100.0])) is None


def test_where_paces_rules_and_ours_part():
    negative = traj([-20.0, -30.0], a0=-40.0)
    assert classify_pace(negative) == "numerical_instability" and classify(negative) != "numerical_instability"
    table = taxonomy_table([negative, traj([-80.0], a0=-90.0, task="S_02")], by=(), rules="pace")
    assert table.rules == "pace" and table.rows[0].counts["numerical_instability"] == 1
    assert table.to_dict()["rules"] == "pace"
    with pytest.raises(ValueError, match="rules must be one of"):
        taxonomy_table([negative], by=(), rules="davinci")
    assert "Error taxonomy by PACE-Bench's own rules" in analysis_markdown([negative], k=1, include_attempt0=False,
                                                                           title="t")


def test_token_jaccard_is_paces_similarity():
    assert token_jaccard("a b c", "a b c") == 1.0
    assert token_jaccard("a b c d", "a b") == 0.5
    assert token_jaccard("", "a") == 0.0
