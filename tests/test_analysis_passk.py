"""Pass@k / Score@k against hand-computed values: with and without attempt 0, budget truncation,
infrastructure exclusion with its n, paired comparisons, deterministic intervals."""

from __future__ import annotations

import math

import pytest

from simreflect.analysis.passk import (budget_curves, compare_to_baseline, metric_table, paired_comparison, pass_at_k,
                                       run_outcome, score_at_k, standard_tables)
from simreflect.analysis.tables import (analysis_markdown, budget_curves_markdown, comparisons_markdown,
                                        metric_table_markdown)
from simreflect.analysis.trajectory import Attempt, Trajectory


def run(task, stage, runno, scores, *, a0=None, method="vanilla", model="m", domain="statics", end=None,
        extra=(), budget=2):
    """Attempts 1..n with these scores (100 = passed, None = invalid); attempt 0 if a0 is given."""
    atts = [] if a0 is None else [Attempt(0, a0, False, program="src")]
    atts += [Attempt(i, s, s == 100, program=f"p{i}") for i, s in enumerate(scores, 1)]
    atts += list(extra)
    atts.sort(key=lambda a: (a.index, not a.infra_error))
    end = end or ("solved" if 100 in scores else "budget")
    return Trajectory(task, domain, stage, method, model, runno, atts, end, budget=budget)


# Pair A = (S_01, 1), pair B = (S_02, 2); k = 2 runs each.
PAIR_A = [run("S_01", 1, 0, [20, 30], a0=40), run("S_01", 1, 1, [10, 100], a0=40)]
PAIR_B = [run("S_02", 2, 0, [10, -20], a0=60), run("S_02", 2, 1, [None, 5], a0=60)]
BASE = PAIR_A + PAIR_B


def test_estimators():
    assert pass_at_k(2, 0, 2) == 0.0 and pass_at_k(2, 1, 2) == 1.0 and pass_at_k(2, 2, 2) == 1.0
    assert pass_at_k(3, 1, 2) == pytest.approx(2 / 3)  # 1 - C(2,2)/C(3,2)
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert score_at_k([3, 1, 2], 2) == pytest.approx(8 / 3)  # max over {1,2},{1,3},{2,3}
    assert score_at_k([5, -7], 2) == 5 and score_at_k([5, -7], 1) == -1
    with pytest.raises(ValueError):
        pass_at_k(1, 0, 2)
    with pytest.raises(ValueError):
        score_at_k([1.0], 2)


def test_run_outcome_counts_invalid_runs_as_the_floor():
    r = run("S_03", 1, 0, [None, None], end="invalid_streak")
    o = run_outcome(r, include_attempt0=False)
    assert (o.passed, o.best, o.any_valid) == (False, -100.0, False)


def test_pass_and_score_without_attempt_0():
    t = metric_table(BASE, by=("method", "model"), k=2, include_attempt0=False)
    (row,) = t.rows
    assert (row.n, row.excluded, row.runs, row.runs_without_valid) == (2, 0, 4, 0)
    assert row.pass_at_k == 0.5  # pair A passed (run 1), pair B did not
    assert row.score_at_k == (100 + 10) / 2
    assert t.include_attempt0 is False and t.n == 2 and t.n_excluded == 0


def test_pass_and_score_with_attempt_0():
    (row,) = metric_table(BASE, by=("method", "model"), k=2, include_attempt0=True).rows
    assert row.pass_at_k == 0.5
    assert row.score_at_k == (100 + 60) / 2  # pair B's best is now its source design


def test_include_attempt0_must_be_stated():
    with pytest.raises(TypeError):
        metric_table(BASE, by=("method",), k=2)  # type: ignore[call-arg]


def test_budget_truncation():
    (row,) = metric_table(BASE, by=(), k=2, include_attempt0=False, budget=1).rows
    assert row.pass_at_k == 0.0  # pair A was solved only at attempt 2
    assert row.score_at_k == (20 + 10) / 2  # pair B run 1's only attempt was invalid: -100, max with 10
    assert row.runs_without_valid == 1
    (row0,) = metric_table(BASE, by=(), k=2, include_attempt0=True, budget=1).rows
    assert row0.score_at_k == (40 + 60) / 2

    curves = budget_curves(BASE, k=2, include_attempt0=False, by=())
    pts = curves.curves[()]
    assert curves.max_budget == 2 and [p.b for p in pts] == [1, 2]
    assert [p.pass_at_k for p in pts] == [0.0, 0.5]
    assert [p.score_at_k for p in pts] == [15.0, 55.0]
    assert all(p.n == 2 for p in pts)
    # the curve at the full budget agrees with the table, and truncation agrees with run_outcome
    assert pts[-1].pass_ci == metric_table(BASE, by=(), k=2, include_attempt0=False).rows[0].pass_ci
    assert budget_curves(BASE, k=2, include_attempt0=True, by=()).curves[()][0].score_at_k == 50.0


def test_truncated_trajectory_view():
    t = PAIR_A[1].truncated(1)
    assert [a.index for a in t.attempts] == [0, 1] and t.end_reason == "budget" and t.budget == 1
    assert PAIR_A[1].truncated(2).end_reason == "solved"


def test_infra_exclusion_states_n():
    infra_run = run("S_03", 3, 1, [10], end="infra", extra=[Attempt(2, None, False, infra_error=True,
                                                                    invalid_reason="endpoint down")])
    retried = run("S_03", 3, 0, [50, 60], extra=[Attempt(2, None, False, infra_error=True,
                                                       invalid_reason="rate limit")])
    t = metric_table(BASE + [infra_run, retried], by=("method", "model"), k=2, include_attempt0=False)
    (row,) = t.rows
    assert row.n == 2 and row.excluded == 1  # pair C has one finished run for k = 2
    assert row.pass_at_k == 0.5 and row.score_at_k == 55.0  # unchanged: nothing entered silently
    assert t.infra.n_excluded_runs == 1 and t.infra.n_dropped_attempts == 1
    assert [e.cell for e in t.exclusions] == ["vanilla/m/S_03/stage3"]
    md = metric_table_markdown(t)
    assert "n = 2 pairs; 1 pair(s) excluded" in md and "attempt 0 (the unchanged source design) not included" in md
    assert "1 unfinished run(s) excluded, 1 retried attempt(s) removed" in md
    assert "vanilla/m/S_03/stage3 (1 finished run(s), k = 2 needed)" in md
    # with k = 1 the pair's finished run counts (its retried infra attempt removed)
    t1 = metric_table(BASE + [infra_run, retried], by=(), k=1, include_attempt0=False)
    assert t1.rows[0].n == 3 and t1.n_excluded == 0


def test_more_runs_than_k_use_the_unbiased_estimators():
    runs = [run("S_01", 1, i, s) for i, s in enumerate(([10, 20], [100], [30, 40]))]
    (row,) = metric_table(runs, by=(), k=2, include_attempt0=False).rows
    assert row.pass_at_k == pytest.approx(2 / 3)
    assert row.score_at_k == pytest.approx((40 + 100 + 100) / 3)  # bests 20, 100, 40
    (row1,) = metric_table(runs, by=(), k=1, include_attempt0=False).rows
    assert row1.pass_at_k == pytest.approx(1 / 3)


def test_grouping_by_domain_and_stage():
    other = [run("K_01", 3, 0, [100], domain="kinematics"), run("K_01", 3, 1, [-50, 0], domain="kinematics")]
    tables = standard_tables(BASE + other, k=2, include_attempt0=False)
    by_domain = {dict(r.group)["domain"]: r for r in tables["domain"].rows}
    assert by_domain["kinematics"].n == 1 and by_domain["kinematics"].pass_at_k == 1.0
    assert by_domain["statics"].n == 2 and by_domain["statics"].pass_at_k == 0.5
    by_stage = {dict(r.group)["stage"]: r.n for r in tables["stage"].rows}
    assert by_stage == {1: 1, 2: 1, 3: 1}
    with pytest.raises(ValueError):
        metric_table(BASE, by=("colour",), k=2, include_attempt0=False)


def _config(method, results):
    """Runs of one method: results maps (task, stage) -> (scores run 0, scores run 1)."""
    return [run(task, stage, i, s, method=method) for (task, stage), pair in results.items() for i, s in enumerate(pair)]


def test_paired_comparison():
    a = _config("reflexion", {("S_01", 1): ([100], [10, 20]), ("S_02", 1): ([50, 60], [100]),
                              ("S_03", 1): ([10, 20], [0, 5]), ("S_04", 1): ([90, 100], [1, 2])})
    b = _config("vanilla", {("S_01", 1): ([10, 20], [30, 40]), ("S_02", 1): ([0, 10], [20, 30]),
                            ("S_03", 1): ([100], [1, 2]), ("S_05", 1): ([1, 2], [3, 4])})
    c = paired_comparison(a + b, ("reflexion", "m"), ("vanilla", "m"), k=2, include_attempt0=False)
    assert c.n == 3 and c.unmatched == ("S_04/stage1", "S_05/stage1")
    # per pair Pass@2 a vs b: 1-0, 1-0, 0-1; Score@2: 100-40, 100-30, 20-100
    assert (c.pass_a, c.pass_b, c.pass_diff) == pytest.approx((2 / 3, 1 / 3, 1 / 3))
    assert (c.pass_wins, c.pass_losses, c.pass_ties) == (2, 1, 0)
    assert c.pass_p == pytest.approx(1.0)  # binomial 2 of 3, two-sided
    assert c.score_diff == pytest.approx((60 + 70 - 80) / 3)
    assert (c.score_wins, c.score_losses, c.score_ties) == (2, 1, 0)
    lo, hi = c.score_diff_ci
    assert lo <= c.score_diff <= hi
    # the paired interval resamples pairs: its ends are means of the per-pair differences
    assert lo >= -80 and hi <= 70
    again = paired_comparison(a + b, ("reflexion", "m"), ("vanilla", "m"), k=2, include_attempt0=False)
    assert again.to_dict() == c.to_dict()
    # a clean sweep of 6 discordant pairs: two-sided exact p = 2 / 2**6
    sweep_a = _config("x", {(f"T{i}", 1): ([100], [0]) for i in range(6)})
    sweep_b = _config("y", {(f"T{i}", 1): ([0], [0]) for i in range(6)})
    s = paired_comparison(sweep_a + sweep_b, ("x", "m"), ("y", "m"), k=2, include_attempt0=False)
    assert (s.pass_wins, s.pass_losses, s.pass_p) == (6, 0, pytest.approx(2 / 64))
    assert s.pass_diff_ci == (1.0, 1.0)
    (cmp,) = compare_to_baseline(a + b, "vanilla", k=2, include_attempt0=False)
    assert cmp.to_dict() == c.to_dict()
    md = comparisons_markdown([c])
    assert "| 3 | 2 |" in md and "2/1/0" in md


def test_intervals_are_deterministic_and_seeded():
    runs = _config("v", {(f"T{i}", 1 + i % 4): ([8 * i, 100 if i % 3 == 0 else 5], [i]) for i in range(12)})
    t1 = metric_table(runs, by=("method",), k=2, include_attempt0=False)
    t2 = metric_table(list(reversed(runs)), by=("method",), k=2, include_attempt0=False)
    assert t1.to_dict() == t2.to_dict()
    (row,) = t1.rows
    assert row.pass_ci[0] < row.pass_at_k < row.pass_ci[1]
    t3 = metric_table(runs, by=("method",), k=2, include_attempt0=False, seed=1)
    assert t3.rows[0].pass_at_k == row.pass_at_k and t3.rows[0].score_ci != row.score_ci
    c1 = budget_curves(runs, k=2, include_attempt0=False)
    c2 = budget_curves(runs, k=2, include_attempt0=False)
    assert c1.to_dict() == c2.to_dict()


def test_empty_group_row_states_n_zero():
    lonely = [run("S_09", 1, 0, [10, 20])]
    t = metric_table(lonely, by=("method",), k=2, include_attempt0=False)
    (row,) = t.rows
    assert row.n == 0 and row.excluded == 1 and math.isnan(row.pass_at_k)
    assert "| 0 | 1 |" in metric_table_markdown(t)


def test_full_markdown_report():
    md = analysis_markdown(BASE + _config("reflexion", {("S_01", 1): ([100], [0]), ("S_02", 2): ([5], [6])}),
                           k=2, include_attempt0=False, title="demo", baseline="vanilla", curve_budgets=[1, 2])
    for heading in ("by method x model", "by domain", "by stage", "attempt budget b", "Paired comparisons",
                    "Error taxonomy", "thresholds", "Infrastructure errors"):
        assert heading in md
    curves_md = budget_curves_markdown(budget_curves(BASE, k=2, include_attempt0=True))
    assert "attempt 0 (the unchanged source design) included" in curves_md


def test_paces_denominators_leave_incomplete_runs_out_and_count_the_valid_instances():
    """PACE excludes incomplete runs (no executable attempt, or ended by invalid generations), so a
    pair with fewer than k complete runs drops out; ours keeps them at the score floor."""
    incomplete_pair = [run("S_03", 1, 0, [None, None], end="invalid_streak"), run("S_03", 1, 1, [10, 100])]
    streak_ended = [run("S_04", 1, 0, [30, None], end="invalid_streak"), run("S_04", 1, 1, [40, 50])]
    trajs = BASE + incomplete_pair + streak_ended
    ours = metric_table(trajs, by=(), k=2, include_attempt0=False)
    pace = metric_table(trajs, by=(), k=2, include_attempt0=False, denominators="valid")
    assert ours.n == 4 and ours.n_excluded == 0
    assert pace.n == 2 and pace.n_excluded == 2 and pace.denominators == "valid"
    assert {e.cell.split("/")[2] for e in pace.exclusions} == {"S_03", "S_04"}
    assert all("complete run(s) of 2" in e.reason for e in pace.exclusions)
    # the same two complete pairs as ours computes them
    assert pace.rows[0].pass_at_k == metric_table(BASE, by=(), k=2, include_attempt0=False).rows[0].pass_at_k
    assert ours.rows[0].pass_at_k == pytest.approx((1 + 0 + 1 + 0) / 4)
    assert pace.to_dict()["denominators"] == "valid"
    md = analysis_markdown(trajs, k=2, include_attempt0=False, title="t")
    assert "PACE's denominators (valid instances only)" in md and "n = 2 valid instances" in md
    with pytest.raises(ValueError, match="denominators must be one of"):
        metric_table(trajs, by=(), k=2, include_attempt0=False, denominators="some")


def test_paces_budget_counting_makes_the_source_attempt_one():
    """PACE's k: k = 1 is the source evaluated in the target, k = b + 1 adds b model attempts."""
    ours = budget_curves(BASE, k=2, include_attempt0=True, by=()).curves[()]
    pace = budget_curves(BASE, k=2, include_attempt0=True, by=(), counting="pace")
    pts = pace.curves[()]
    assert pace.max_budget == 3 and [p.b for p in pts] == [1, 2, 3] and pace.to_dict()["counting"] == "pace"
    assert pts[0].pass_at_k == 0.0 and pts[0].score_at_k == (40 + 60) / 2  # the sources alone
    assert [(p.pass_at_k, p.score_at_k) for p in pts[1:]] == [(p.pass_at_k, p.score_at_k) for p in ours]
    with pytest.raises(ValueError, match="include_attempt0 must be True"):
        budget_curves(BASE, k=2, include_attempt0=False, by=(), counting="pace")
    with pytest.raises(ValueError, match="counting must be one of"):
        budget_curves(BASE, k=2, include_attempt0=True, by=(), counting="paper")
    md = analysis_markdown(BASE, k=2, include_attempt0=False, title="t")
    assert "Pass@2@k and Score@2@k as PACE counts k (k = 1: the source alone)" in md
