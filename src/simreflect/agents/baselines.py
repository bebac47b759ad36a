"""Baselines that need no model: the task's reference program, and submitting nothing."""

from __future__ import annotations

from simreflect.agents.base import Action, Observation
from simreflect.core.registry import get_suite


class OracleAgent:
    """Submits the suite's reference solution (a control: it must solve every task)."""

    name = "oracle"

    def __init__(self, suite=None) -> None:
        self.suite = suite  # the run's configured suite (its options may choose the oracle's form)

    def act(self, observation: Observation) -> Action:
        suite = self.suite if self.suite is not None else get_suite(observation.task.suite)
        program = suite.oracle(observation.task)
        return Action(program=program, diagnosis="reference solution", raw=program)


class NoopAgent:
    """Submits a program that changes nothing (a control: it must solve no task)."""

    name = "noop"

    def act(self, observation: Observation) -> Action:
        return Action(program="pass\n", diagnosis="no change", raw="pass\n")
