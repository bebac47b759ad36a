"""Building an agent from its name and options (picklable, so each worker process builds its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simreflect.agents.base import Agent
from simreflect.agents.baselines import NoopAgent, OracleAgent
from simreflect.core.contract import BaselineAgent
from simreflect.core.suite import Suite

AGENT_NAMES = ("oracle", "reference", "noop", "baseline", "llm", "param-search")
#: --method NAME (or NAME:key=value,...): the strategies of simreflect.agents.methods (docs/methods.md)
METHODS = {
    "vanilla": "simreflect.agents.methods.vanilla:VanillaMethod",
    "review": "simreflect.agents.methods.review:ReviewedAgent",
    "reflexion": "simreflect.agents.methods.reflexion:ReflexionMethod",
    "self-refine": "simreflect.agents.methods.self_refine:SelfRefineMethod",
    "tot": "simreflect.agents.methods.tot:TreeOfThoughtsMethod",
    "beam": "simreflect.agents.methods.beam:BeamSearchMethod",
    "ace": "simreflect.agents.methods.ace:PlaybookMethod",
    "expel": "simreflect.agents.methods.expel:InsightMethod",
    "evolve": "simreflect.agents.methods.evolve:EvolutionMethod",
}
METHOD_NAMES = tuple(METHODS)


def make_agent(name: str, suite: Suite, options: dict[str, Any] | None = None, method: str = "vanilla") -> Agent:
    agent = _base_agent(name, suite, options or {})
    method_name, method_options = parse_method(method)
    if method_name == "vanilla" and not method_options:
        return agent  # the agent itself (any agent); VanillaMethod is the same loop behind the method interface
    if not hasattr(agent, "complete"):
        raise ValueError(f"method {method_name!r} needs a model agent (--agent llm)")
    import importlib

    module, _, cls = METHODS[method_name].partition(":")
    try:
        return getattr(importlib.import_module(module), cls)(agent, **method_options)
    except TypeError as e:
        raise ValueError(f"method {method_name!r}: {e}") from None


def parse_method(method: str) -> tuple[str, dict[str, Any]]:
    """'beam:width=4,children=2' -> ('beam', {'width': '4', 'children': '2'}); validates the name."""
    name, _, rest = (method or "vanilla").partition(":")
    name = name.strip()
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(METHOD_NAMES)}")
    opts: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"method options are key=value, got {item!r} in {method!r}")
        opts[key.strip().replace("-", "_")] = value.strip()
    return name, opts


def _base_agent(name: str, suite: Suite, options: dict[str, Any]) -> Agent:
    if name in ("oracle", "reference"):
        return OracleAgent(suite)
    if name == "noop":
        return NoopAgent()
    if name == "baseline":
        agent = suite.baseline_agent() if isinstance(suite, BaselineAgent) else None
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
