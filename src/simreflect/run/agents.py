"""Building an agent from its name and options (picklable, so each worker process builds its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simreflect.agents.base import Agent
from simreflect.agents.baselines import NoopAgent, OracleAgent
from simreflect.core.suite import Suite

AGENT_NAMES = ("oracle", "reference", "noop", "baseline", "llm", "param-search")
METHOD_NAMES = ("vanilla", "review")


def make_agent(name: str, suite: Suite, options: dict[str, Any] | None = None, method: str = "vanilla") -> Agent:
    agent = _base_agent(name, suite, options or {})
    if method == "vanilla":
        return agent
    if method == "review":
        if not hasattr(agent, "complete"):
            raise ValueError("method 'review' needs a model agent (--agent llm)")
        from simreflect.agents.methods.review import ReviewedAgent

        return ReviewedAgent(agent)
    raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHOD_NAMES)}")


def _base_agent(name: str, suite: Suite, options: dict[str, Any]) -> Agent:
    if name in ("oracle", "reference"):
        return OracleAgent(suite)
    if name == "noop":
        return NoopAgent()
    if name == "baseline":
        agent = suite.baseline_agent()
        if agent is None:
            raise ValueError(f"suite {suite.name!r} has no baseline agent")
        return agent
    if name == "param-search":
        from simreflect.agents.param_search import ParamSearchAgent

        return ParamSearchAgent(suite, **options)
    if name == "llm":
        from simreflect.agents.llm import LLMAgent, LLMConfig

        opts = dict(options)
        if opts.get("cache_dir"):
            opts["cache_dir"] = Path(opts["cache_dir"])
        return LLMAgent(LLMConfig(**opts))
    raise ValueError(f"unknown agent {name!r}; choose from {', '.join(AGENT_NAMES)}")
