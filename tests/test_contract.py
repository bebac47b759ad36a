"""The suite contract: run protocols and score scales as declared data, optional capabilities found by
runtime protocol checks (not by guessing from attribute names)."""

from __future__ import annotations

import pytest

from simreflect.agents.param_search import ParamSearchAgent
from simreflect.core.contract import (CAPABILITIES, AttemptBudget, RunProtocol, ScoreScale, SourcePrograms,
                                      capabilities, volatile_keys)
from simreflect.core.registry import get_suite, suite_names

#: What each suite declares; a change here is a change of the benchmark's meaning.
DECLARED = {
    "gait": ((0.0, 1.0), (0.0, 1.0), {"export", "baseline-agent", "pictures", "attempt-pictures"}),
    "audit": ((0.0, 1.0), (0.0, 1.0), {"export", "episode-flags", "volatile-diagnostics", "interactive"}),
    "workshop": ((0.0, 1.0), (0.0, 1.0), {"export", "interactive"}),
    "pace": ((-100.0, 100.0), (-1.0, 1.0), {"export", "source-programs", "attempt-budget", "pictures",
                                            "attempt-pictures", "broken-tasks"}),
    "pacebench": ((-100.0, 100.0), (-1.0, 1.0), {"export", "source-programs", "attempt-budget"}),
}


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_every_suite_declares_its_scale_protocol_and_capabilities(name):
    suite = get_suite(name)
    scores, rewards, caps = DECLARED[name]
    assert (suite.scale.score_low, suite.scale.score_high) == scores
    assert (suite.scale.reward_low, suite.scale.reward_high) == rewards
    assert set(capabilities(suite)) == caps and suite.summary and suite.scale.meaning
    assert isinstance(suite.protocol, RunProtocol)
    assert suite.crash_reward == suite.scale.reward_low  # a crash earns the lowest reward, 0 on [0, 1]
    assert suite.scale.unit_reward(suite.crash_reward) == 0.0 and suite.scale.unit_reward(rewards[1]) == 1.0


def test_the_registered_suites_are_the_declared_ones():
    assert set(DECLARED) <= set(suite_names())


def test_pace_keeps_its_protocol():
    assert get_suite("pace").protocol == RunProtocol(budget=20, runs=2, history="previous+best", invalid_streak=3, invalid_retries=2,
                                                     levels=("L3",), timeout_s=120.0)
    assert isinstance(get_suite("pace"), AttemptBudget) and get_suite("pace").stages == (1, 2, 3, 4)


def test_a_protocol_or_scale_that_makes_no_sense_is_refused():
    for bad in (dict(budget=0), dict(runs=0), dict(invalid_streak=-1), dict(history="some"), dict(levels=()),
                dict(levels=("L4",)), dict(timeout_s=0), dict(timeout_s=float("nan"))):
        with pytest.raises(ValueError):
            RunProtocol(**bad)
    for bad in ((1.0, 0.0, 0.0, 1.0), (0.0, float("inf"), 0.0, 1.0), (0.0, 1.0, 1.0, 1.0)):
        with pytest.raises(ValueError):
            ScoreScale(*bad, meaning="x")
    scale = ScoreScale(-100.0, 100.0, -1.0, 1.0, "pace-like")
    assert scale.unit_reward(0.0) == 0.5 and not scale.score_in_range(100.5) and not scale.score_in_range(float("nan"))
    with pytest.raises(ValueError, match="outside"):
        scale.unit_reward(1.5)


def test_volatile_keys_come_only_from_the_capability():
    assert volatile_keys(get_suite("audit")) == ("seconds", "output_tail")
    assert volatile_keys(get_suite("gait")) == ()
    assert set(CAPABILITIES) >= {"export", "source-programs", "attempt-budget", "episode-flags",
                                 "volatile-diagnostics", "baseline-agent", "pictures"}


def test_param_search_takes_only_a_suite_with_source_programs():
    # the workshop suite has a `spec` method too: the old hasattr(suite, "spec") test took it for pace
    workshop = get_suite("workshop")
    assert hasattr(workshop, "spec") and not isinstance(workshop, SourcePrograms)
    with pytest.raises(ValueError, match="source program"):
        ParamSearchAgent(workshop)
    assert ParamSearchAgent(get_suite("pace")).suite is get_suite("pace")
