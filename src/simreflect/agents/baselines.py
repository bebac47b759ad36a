"""Baselines that need no model: the task's reference program, and submitting nothing."""

from __future__ import annotations

from simreflect.agents.base import Action, Observation
from simreflect.core.registry import get_suite


class OracleAgent:
    """Submits the suite's reference solution (a control: it must solve every task)."""

    name = "oracle"

    def act(self, observation: Observation) -> Action:
        program = get_suite(observation.task.suite).oracle(observation.task)
        return Action(program=program, diagnosis="reference solution", raw=program)


class NoopAgent:
    """Submits a program that changes nothing (a control: it must solve no task)."""

    name = "noop"

    def act(self, observation: Observation) -> Action:
        return Action(program="pass\n", diagnosis="no change", raw="pass\n")
