"""Building an agent from its name and options (picklable, so each worker process builds its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simreflect.agents.base import Agent
from simreflect.agents.baselines import NoopAgent, OracleAgent
from simreflect.core.suite import Suite

AGENT_NAMES = ("oracle", "noop", "baseline", "llm")


def make_agent(name: str, suite: Suite, options: dict[str, Any] | None = None) -> Agent:
    options = options or {}
    if name == "oracle":
        return OracleAgent()
    if name == "noop":
        return NoopAgent()
    if name == "baseline":
        agent = suite.baseline_agent()
        if agent is None:
            raise ValueError(f"suite {suite.name!r} has no baseline agent")
        return agent
    if name == "llm":
        from simreflect.agents.llm import LLMAgent, LLMConfig

        opts = dict(options)
        if opts.get("cache_dir"):
            opts["cache_dir"] = Path(opts["cache_dir"])
        return LLMAgent(LLMConfig(**opts))
    raise ValueError(f"unknown agent {name!r}; choose from {', '.join(AGENT_NAMES)}")
