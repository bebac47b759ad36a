"""Code similarity of consecutive attempts: normalisation, the ratio, per-run and per-transition series."""

from __future__ import annotations

import pytest

from simreflect.analysis.similarity import (mean_similarity, normalise_source, similarity, similarity_by_group,
                                            similarity_by_transition, source_tokens, transition_series)
from simreflect.analysis.trajectory import Attempt, Trajectory

PROGRAM = '''\
import math  # the only import

def build(sandbox):
    """Build the bridge."""
    span = 15.0   # metres
    s = "# not a comment"
    return sandbox.add_beam(x=span / 2, width=span)
'''


def lines(tag: str, shared: int, unique: int) -> str:
    return "\n".join([f"s{j}" for j in range(shared)] + [f"u_{tag}_{j}" for j in range(unique)])


def test_normalisation_strips_comments_and_whitespace_only():
    norm = normalise_source(PROGRAM)
    assert "the only import" not in norm and "metres" not in norm
    assert '"# not a comment"' in norm and '"""Build the bridge."""' in norm
    assert "span = 15.0" in norm and "  " not in norm and "\n\n" not in norm
    reformatted = PROGRAM.replace("span = 15.0   # metres", "span   =   15.0").replace("\n\n", "\n\n\n# note\n")
    assert similarity(PROGRAM, reformatted) == 1.0


def test_unparseable_programs_fall_back_to_a_quote_aware_strip():
    broken = "def f(:\n    x = '#kept' # dropped\n"
    assert normalise_source(broken) == "def f(:\nx = '#kept'"
    assert similarity(broken, broken + "# another comment\n") == 1.0


def test_ratio_is_sequence_matcher_over_tokens():
    assert source_tokens("x = f(1.5)") == ("x", "=", "f", "(", "1", ".", "5", ")")
    assert similarity(lines("a", 3, 1), lines("b", 3, 1)) == pytest.approx(0.75)
    assert similarity(lines("a", 0, 5), lines("b", 0, 5)) == 0.0
    assert similarity("", "   # only a comment\n") == 1.0
    assert similarity("x = 1", "x = 2") == pytest.approx(2 * 2 / 6)
    assert similarity("a = 1", None) is None and similarity(None, None) is None


def _traj(programs, a0=None):
    atts = [] if a0 is None else [Attempt(0, 0.0, False, program=a0)]
    atts += [Attempt(i, 0.0 if p is not None else None, False, program=p) for i, p in enumerate(programs, 1)]
    atts.append(Attempt(len(programs), None, False, infra_error=True))  # never part of a transition
    return Trajectory("S_01", "statics", 1, "vanilla", "m", 0, atts, "budget")


def test_transition_series():
    same, other = lines("a", 3, 1), lines("b", 3, 1)
    t = _traj([same, same, None, other], a0=lines("src", 0, 4))
    series = transition_series(t)
    assert [(s.previous, s.index) for s in series] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert [s.similarity for s in series] == [0.0, 1.0, None, None]
    without0 = transition_series(t, include_attempt0=False)
    assert [s.index for s in without0] == [2, 3, 4]
    assert mean_similarity(series) == 0.5
    assert mean_similarity(without0[1:]) is None


def test_similarity_by_transition_and_group():
    a, b = lines("a", 3, 1), lines("b", 3, 1)
    runs = [_traj([a, a, b]), _traj([a, b, b])]
    stats = similarity_by_transition(runs)
    assert [(s.index, s.n) for s in stats] == [(2, 2), (3, 2)]
    assert [s.mean for s in stats] == pytest.approx([(1.0 + 0.75) / 2, (0.75 + 1.0) / 2])
    assert stats[0].ci[0] <= stats[0].mean <= stats[0].ci[1]
    by_group, infra = similarity_by_group(runs[:1], by=("method",))
    assert list(by_group) == [("vanilla",)] and infra.n_excluded_runs == 0
