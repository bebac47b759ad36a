"""This package's agents as the entry points of the group simreflect.agents (pyproject.toml) name
them: factories (suite, **options) -> Agent, the same form a third-party package declares. Each
docstring is the agent's help text in `simreflect agents` and run's --agent help."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simreflect.agents.base import Agent
from simreflect.agents.baselines import NoopAgent, OracleAgent
from simreflect.core.contract import BaselineAgent
from simreflect.core.suite import Suite


def oracle(suite: Suite, **options: Any) -> Agent:
    """the suite's reference program (alias reference)"""
    return OracleAgent(suite)


def reference(suite: Suite, **options: Any) -> Agent:
    """the suite's reference program (alias of oracle)"""
    return OracleAgent(suite)


def noop(suite: Suite, **options: Any) -> Agent:
    """changes nothing (doing nothing must fail)"""
    return NoopAgent()


def baseline(suite: Suite, **options: Any) -> Agent:
    """the suite's honest non-model baseline (gait)"""
    agent = suite.baseline_agent() if isinstance(suite, BaselineAgent) else None
    if agent is None:
        raise ValueError(f"suite {suite.name!r} has no baseline agent")
    return agent


def llm(suite: Suite, **options: Any) -> Agent:
    """a model behind any OpenAI-compatible endpoint (--model)"""
    from simreflect.agents.llm import LLMAgent, LLMConfig

    if options.get("cache_dir"):
        options["cache_dir"] = Path(options["cache_dir"])
    return LLMAgent(LLMConfig(**options))
