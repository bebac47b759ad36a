"""The episode return (core/returns.py): no sequence of attempts returns more than a first-attempt solve.

Property tests over arbitrary attempt rewards between a suite's crash floor and its solve reward,
for the floors and budgets of the suites (gait/audit/workshop: floor 0; pace: floor -1, 20 attempts).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simreflect.core.registry import get_suite, suite_names
from simreflect.core.returns import LAST_ROUND_SHARE, ReturnRule, budget_discount

TOP = 1.0  # every suite's reward for a pass (and its highest reward)
FUZZ = settings(derandomize=True, max_examples=400, deadline=None)


@st.composite
def episodes(draw):
    """A suite-like rule and a sequence of attempt rewards within its range."""
    floor = draw(st.sampled_from([0.0, -1.0]))
    budget = draw(st.integers(1, 20))
    rule = ReturnRule(floor, budget_discount(budget))
    reward = st.floats(floor, TOP, allow_nan=False, allow_infinity=False)
    rewards = draw(st.lists(reward, min_size=1, max_size=budget))
    return rule, rewards


@FUZZ
@given(episodes())
def test_no_sequence_returns_more_than_a_first_attempt_solve(case):
    rule, rewards = case
    assert rule.of(rewards) <= rule.of([TOP]) == TOP
    if rewards[0] < TOP and rule.discount < 1.0:
        assert rule.of(rewards) < TOP  # only a first-attempt solve reaches the top


@FUZZ
@given(episodes())
def test_repeating_or_prepending_crashes_earns_nothing(case):
    rule, rewards = case
    r = rule.of(rewards)
    assert r <= max(rewards) + 1e-12  # a maximum, never a sum of partial credit
    assert rule.of(rewards + rewards) == pytest.approx(r)  # the same attempts again add nothing
    assert rule.of([rule.floor] * 3 + rewards) <= r + 1e-12  # crashing first never helps


@FUZZ
@given(episodes())
def test_step_rewards_sum_to_the_return(case):
    rule, rewards = case
    steps = rule.increments(rewards)
    assert len(steps) == len(rewards)
    assert math.fsum(steps) == pytest.approx(rule.of(rewards), abs=1e-12)
    assert steps[0] == pytest.approx(rewards[0])  # the first attempt is paid its own reward
    assert all(s >= -1e-12 for s in steps[1:])


def test_a_later_solve_is_worth_less_and_the_last_round_keeps_its_share():
    rule = ReturnRule(0.0, budget_discount(3))
    assert [rule.of([0.0] * k + [1.0]) for k in range(3)] == pytest.approx([1.0, math.sqrt(0.8), 0.8])
    pace = ReturnRule(-1.0, budget_discount(20))
    assert pace.of([-1.0] * 19 + [1.0]) == pytest.approx(-1.0 + 2.0 * LAST_ROUND_SHARE)
    assert budget_discount(1) == 1.0


def test_the_found_farming_sequences_return_their_best_attempt():
    # audit: control dropped (0.5), then two crashes (the crash reward, 0): the old sum was 1.5
    audit = ReturnRule(get_suite("audit").crash_reward, budget_discount(3))
    assert audit.of([0.5, 0.0, 0.0]) == 0.5 < audit.of([1.0])
    # pace: the source's partial progress submitted twice, then two crashes
    pace = ReturnRule(get_suite("pace").crash_reward, budget_discount(20))
    assert pace.of([0.3345, 0.3345, -1.0, -1.0]) == pytest.approx(0.3345)


def test_crash_rewards_are_each_suites_lowest():
    floors = {name: get_suite(name).crash_reward for name in suite_names()}
    assert floors == {"gait": 0.0, "audit": 0.0, "pace": -1.0, "pacebench": -1.0, "workshop": 0.0}


@pytest.mark.parametrize("bad", [
    {"floor": math.nan, "discount": 0.9}, {"floor": 0.0, "discount": 0.0}, {"floor": 0.0, "discount": 1.5},
])
def test_bad_rules_are_refused(bad):
    with pytest.raises(ValueError):
        ReturnRule(**bad)


def test_a_non_finite_reward_is_refused():
    with pytest.raises(ValueError, match="not finite"):
        ReturnRule(0.0, 0.9).of([0.2, math.inf])
    with pytest.raises(ValueError):
        budget_discount(0)
