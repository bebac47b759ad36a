"""The error taxonomy on synthetic runs: one run per label that meets that label's condition and no
other (besides the always-true fallback), priority cases where two conditions hold, None for solved."""

from __future__ import annotations

import pytest

from simreflect.analysis.taxonomy import (LABELS, THRESHOLDS, classify, conditions, features, taxonomy_table,
                                          threshold_values)
from simreflect.analysis.trajectory import Attempt, Trajectory

SHARED = 30


def prog(tag: str, shared: int = SHARED, unique: int = 10) -> str:
    """A program whose similarity to another tag's (same shape) is shared / (shared + unique): one
    token per line, the shared lines first, then lines unique to the tag."""
    return "\n".join([f"s{j}" for j in range(shared)] + [f"u_{tag}_{j}" for j in range(unique)]) + "\n"


def make(scores, programs=None, flags=None, budget=None, end="budget", attempt0=False):
    """A failed (unless a score is 100 with passed) run of model attempts 1..n."""
    programs = programs or [prog(str(i)) for i in range(len(scores))]
    flags = flags or {}
    atts = [Attempt(0, -30.0, False, program=prog("src"))] if attempt0 else []
    for i, (s, p) in enumerate(zip(scores, programs), 1):
        atts.append(Attempt(i, s, passed=s == 100, program=p, invalid_reason="" if s is not None else "crashed",
                            **{f: True for f in flags.get(i, ())}))
    return Trajectory("S_01", "statics", 1, "vanilla", "m", 0, atts, end,
                      budget=budget if budget is not None else len(scores))


def held(traj, **overrides):
    return {lb for lb, ok in conditions(traj, overrides or None).items() if ok} - {"budget_exhaustion"}


STEADY = [10, 12, 14, 16, 18, 20, 22, 24, 26, 28]  # improving, low variance, never close to passing


def test_thresholds_are_documented_in_one_place():
    assert LABELS[0] == "catastrophic_collapse" and LABELS[-1] == "budget_exhaustion" and len(LABELS) == 9
    for name, t in THRESHOLDS.items():
        assert t.doc.strip(), name
    assert threshold_values({"collapse_max_best": -50})["collapse_max_best"] == -50
    with pytest.raises(KeyError):
        threshold_values({"no_such_threshold": 1})


def test_the_default_similarity_of_the_synthetic_programs():
    f = features(make(STEADY))
    assert f.mean_similarity == pytest.approx(0.75)
    assert f.score_std < THRESHOLDS["exploration_min_score_std"].value


# ----- one run per label ---------------------------------------------------------------------------

def test_catastrophic_collapse():
    t = make([-90, -88, -86, -84, -82, -80, -78, -76, -74, -72])
    assert held(t) == {"catastrophic_collapse"}
    assert classify(t) == "catastrophic_collapse"


def test_catastrophic_collapse_when_nothing_was_ever_valid():
    t = make([None] * 5, programs=[None] * 5, end="invalid_streak")
    assert held(t) == {"catastrophic_collapse"}
    assert classify(t) == "catastrophic_collapse"


def test_constraint_violation():
    t = make(STEADY, flags={10: ("constraint_violation",)})
    assert held(t) == {"constraint_violation"}
    assert classify(t) == "constraint_violation"


def test_structural_failure():
    t = make(STEADY, flags={10: ("structural_failure",)})
    assert held(t) == {"structural_failure"}
    assert classify(t) == "structural_failure"


def test_numerical_instability():
    t = make(STEADY, flags={10: ("numerical_instability",)})
    assert held(t) == {"numerical_instability"}
    assert classify(t) == "numerical_instability"


def test_a_negative_score_alone_is_not_numerical_instability():
    t = make([s - 70 for s in STEADY])  # best -42: bad, but the simulator detected nothing
    assert classify(t) == "budget_exhaustion"
    assert "numerical_instability" not in held(t)


def test_hard_flags_are_read_from_the_best_attempt_only():
    flags = {3: ("constraint_violation", "structural_failure", "numerical_instability")}
    assert classify(make(STEADY, flags=flags)) == "budget_exhaustion"


def test_design_fixation():
    same = prog("fixed")
    programs = [prog(str(i)) for i in range(5)] + [same] * 5
    t = make([10, 20, 30, 40, 45, 50, 52, 51, 50, 52], programs=programs)
    f = features(t)
    assert f.window_mean_similarity == 1.0 and f.window_score_range == 2.0
    assert held(t) == {"design_fixation"}
    assert classify(t) == "design_fixation"


def test_design_fixation_needs_a_flat_score():
    same = prog("fixed")
    programs = [prog(str(i)) for i in range(5)] + [same] * 5
    t = make([10, 20, 30, 40, 45, 50, 60, 51, 50, 62], programs=programs)  # range 12 > 5
    assert "design_fixation" not in held(t)


def test_design_fixation_needs_every_window_program():
    same = prog("fixed")
    programs = [prog(str(i)) for i in range(5)] + [same, same, None, same, same]
    t = make([10, 20, 30, 40, 45, 50, 52, None, 50, 52], programs=programs)
    assert features(t).window_mean_similarity is None
    assert "design_fixation" not in held(t)


def test_late_convergence():
    t = make([10, 12, 14, 16, 18, 20, 22, 24, 92, 91])  # best 92 first at 9 >= 10 - ceil(2.5) + 1 = 8
    assert held(t) == {"late_convergence"}
    assert classify(t) == "late_convergence"


def test_late_convergence_counts_the_budget_not_the_attempts_made():
    scores = [10, 12, 14, 16, 18, 20, 22, 24, 92, 91]
    assert "late_convergence" in held(make(scores, budget=10))
    # the same run under a budget of 20 reached 92 at attempt 9 of 20: not late (late = 16..20)
    assert "late_convergence" not in held(make(scores, budget=20))


def test_stagnation():
    t = make([10, 40, 20, 25, 30, 35, 38, 30, 36, 39])  # best 40 already in the first half
    f = features(t)
    assert f.first_half_best == 40 and f.best == 40 and f.second_half_mean_similarity == pytest.approx(0.75)
    assert held(t) == {"stagnation"}
    assert classify(t) == "stagnation"


def test_no_stagnation_when_the_code_stops_changing():
    same = prog("fixed")
    t = make([10, 40, 20, 25, 30, 35, 38, 30, 36, 39], programs=[prog(str(i)) for i in range(5)] + [same] * 5)
    assert "stagnation" not in held(t)


def test_exploration():
    programs = [prog(str(i), shared=12, unique=28) for i in range(10)]  # similarity 0.3
    t = make([-20, 30, -40, 10, 35, -30, 20, 45, -10, 50], programs=programs)
    f = features(t)
    assert f.mean_similarity == pytest.approx(0.3) and f.score_std > 25
    assert held(t) == {"exploration"}
    assert classify(t) == "exploration"


def test_exploration_by_low_similarity_alone():
    programs = [prog(str(i), shared=12, unique=28) for i in range(10)]
    t = make(STEADY, programs=programs)
    assert held(t) == {"exploration"}


def test_budget_exhaustion():
    t = make(STEADY)
    assert held(t) == set()
    assert classify(t) == "budget_exhaustion"


def test_none_for_a_solved_run():
    t = make([-90, -80, 100], flags={1: ("constraint_violation",)}, end="solved")
    assert classify(t) is None


def test_an_unfinished_run_is_not_classified():
    t = Trajectory("S_01", "statics", 1, "vanilla", "m", 0, [Attempt(1, 10.0, False, program="x")], "infra")
    with pytest.raises(ValueError, match="split_infra"):
        classify(t)


def test_attempt_0_is_ignored():
    base = make(STEADY)
    with_source = make(STEADY, attempt0=True)
    assert classify(base) == classify(with_source) == "budget_exhaustion"
    # a source design scoring better than every model attempt does not rescue a collapse
    collapsed = make([-90, -80, -70], attempt0=True)
    assert classify(collapsed) == "catastrophic_collapse"


# ----- priority ------------------------------------------------------------------------------------

@pytest.mark.parametrize("flags, expected", [
    (("constraint_violation", "structural_failure"), "constraint_violation"),
    (("structural_failure", "numerical_instability"), "structural_failure"),
    (("constraint_violation", "numerical_instability"), "constraint_violation"),
])
def test_hard_failure_priority(flags, expected):
    t = make(STEADY, flags={10: flags})
    assert set(flags) <= held(t)
    assert classify(t) == expected


def test_collapse_beats_a_constraint_violation():
    t = make([-90, -80, -70, -65], flags={4: ("constraint_violation",)})
    assert held(t) == {"catastrophic_collapse", "constraint_violation"}
    assert classify(t) == "catastrophic_collapse"


def test_numerical_instability_beats_fixation():
    same = prog("fixed")
    programs = [prog(str(i)) for i in range(5)] + [same] * 5
    t = make([10, 20, 30, 40, 45, 50, 52, 51, 50, 52], programs=programs, flags={7: ("numerical_instability",)})
    assert held(t) == {"numerical_instability", "design_fixation"}
    assert classify(t) == "numerical_instability"


def test_fixation_beats_stagnation():
    same = prog("fixed")
    programs = [prog(str(i)) for i in range(5)] + [same] * 5
    programs[4] = prog("other", shared=12, unique=28)  # the step into the second half changes a lot
    t = make([10, 60, 30, 40, 45, 50, 50, 51, 50, 50], programs=programs)
    f = features(t)
    assert f.window_mean_similarity == 1.0 and f.second_half_mean_similarity < 0.9
    assert held(t) == {"design_fixation", "stagnation"}
    assert classify(t) == "design_fixation"


def test_fixation_beats_late_convergence():
    same = prog("fixed")
    scores = [10 + i for i in range(15)] + [91, 92, 92, 91, 92]
    programs = [prog(str(i)) for i in range(15)] + [same] * 5
    t = make(scores, programs=programs, budget=20)
    assert held(t) == {"design_fixation", "late_convergence"}
    assert classify(t) == "design_fixation"


def test_late_convergence_beats_budget_exhaustion_and_exploration_needs_no_convergence():
    programs = [prog(str(i), shared=12, unique=28) for i in range(10)]  # low similarity
    t = make([10, 12, 14, 16, 18, 20, 22, 24, 92, 91], programs=programs)
    assert held(t) == {"late_convergence"}  # exploration is off: the best got close to passing
    assert classify(t) == "late_convergence"


def test_stagnation_beats_exploration():
    t = make([80, -10, 50, 0, 70, -20, 60, 10, 75, 5])
    assert held(t) == {"stagnation", "exploration"}
    assert classify(t) == "stagnation"


def test_thresholds_can_be_overridden():
    t = make([-58, -57, -56])
    assert classify(t) != "catastrophic_collapse"
    assert classify(t, {"collapse_max_best": -50}) == "catastrophic_collapse"


# ----- the shares table ----------------------------------------------------------------------------

def test_taxonomy_table_counts_failed_runs_and_lists_infra_apart():
    from dataclasses import replace

    runs = [replace(make(STEADY), run=0), replace(make([-90, -80]), run=1),
            replace(make([10, 100], end="solved"), run=2),
            Trajectory("S_01", "statics", 1, "vanilla", "m", 3, [Attempt(1, None, False, infra_error=True)], "infra")]
    table = taxonomy_table(runs, by=("method",))
    (row,) = table.rows
    assert (row.n_runs, row.n_solved, row.n_failed) == (3, 1, 2)
    assert row.counts["budget_exhaustion"] == 1 and row.counts["catastrophic_collapse"] == 1
    assert row.shares["budget_exhaustion"] == 0.5
    assert sum(row.counts.values()) == row.n_failed
    assert table.infra.n_excluded_runs == 1
    assert taxonomy_table(runs).to_dict() == table.to_dict()  # deterministic intervals
