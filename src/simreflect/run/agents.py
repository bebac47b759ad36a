"""Building an agent from its name and options (picklable, so each worker process builds its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simreflect.agents.base import Agent
from simreflect.agents.baselines import NoopAgent, OracleAgent
from simreflect.core import registry
from simreflect.core.contract import BaselineAgent
from simreflect.core.suite import Suite
from simreflect.core.task import Task

#: The agents and methods of this package, registered in the core registry (kinds "agent" and
#: "method") with their help texts; a third-party package adds more through the entry-point groups
#: simreflect.agents (a callable (suite, **options) -> Agent) and simreflect.methods (a class
#: (agent, **options)).
AGENTS = {
    "oracle": ("simreflect.run.agents:_oracle", "the suite's reference program (alias reference)"),
    "reference": ("simreflect.run.agents:_oracle", "the suite's reference program (alias of oracle)"),
    "noop": ("simreflect.run.agents:_noop", "changes nothing (doing nothing must fail)"),
    "baseline": ("simreflect.run.agents:_baseline", "the suite's honest non-model baseline (gait)"),
    "param-search": ("simreflect.agents.param_search:ParamSearchAgent",
                     "seeded search over the source design's numbers (suites with source programs: pace)"),
    "llm": ("simreflect.run.agents:_llm", "a model behind any OpenAI-compatible endpoint (--model)"),
}
AGENT_NAMES = tuple(AGENTS)
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
for _name, (_target, _help) in AGENTS.items():
    registry.register("agent", _name, _target, _help)
for _name, _target in METHODS.items():
    registry.register("method", _name, _target)  # help: the first sentence of the method's module docstring


def agent_names() -> list[str]:
    """Every registered agent: this package's and those of installed entry points."""
    return registry.names("agent")


def method_names() -> list[str]:
    return registry.names("method")


def make_agent(name: str, suite: Suite, options: dict[str, Any] | None = None, method: str = "vanilla") -> Agent:
    agent = _base_agent(name, suite, options or {})
    method_name, method_options = parse_method(method)
    if method_name == "vanilla" and not method_options:
        return agent  # the agent itself (any agent); VanillaMethod is the same loop behind the method interface
    if not hasattr(agent, "complete"):
        raise ValueError(f"method {method_name!r} needs a model agent (--agent llm)")
    try:
        return registry.load("method", method_name)(agent, **method_options)
    except TypeError as e:
        raise ValueError(f"method {method_name!r}: {e}") from None


def parse_method(method: str) -> tuple[str, dict[str, Any]]:
    """'beam:width=4,children=2' -> ('beam', {'width': '4', 'children': '2'}); validates the name."""
    name, _, rest = (method or "vanilla").partition(":")
    name = name.strip()
    if name not in method_names():
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(method_names())}")
    opts: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"method options are key=value, got {item!r} in {method!r}")
        opts[key.strip().replace("-", "_")] = value.strip()
    return name, opts


def _base_agent(name: str, suite: Suite, options: dict[str, Any]) -> Agent:
    try:
        factory = registry.load("agent", name)
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(agent_names())}") from None
    return factory(suite, **options)


#: The agents of interactive episodes (--mode interactive): the suite's oracle driving the session
#: through tool calls, a noop that finishes at once, and a model with tools.
TURN_AGENTS = ("oracle", "reference", "noop", "llm")


def make_turn_agent(name: str, suite: Suite, task: Task, options: dict[str, Any] | None = None):
    """The interactive agent `name` for one task (core.interactive.TurnAgent)."""
    from simreflect.agents.interactive import NoopTurnAgent, ToolLLMAgent
    from simreflect.core.contract import InteractiveEpisodes

    if not isinstance(suite, InteractiveEpisodes):
        raise ValueError(f"suite {suite.name!r} does not offer interactive episodes")
    if name in ("oracle", "reference"):
        return suite.interactive_oracle(task)
    if name == "noop":
        return NoopTurnAgent()
    if name == "llm":
        from simreflect.agents.llm import LLMConfig

        opts = dict(options or {})
        text_protocol = bool(opts.pop("text_protocol", False))
        opts.pop("cache_dir", None)  # an interactive turn is not cached: the session is live
        return ToolLLMAgent(LLMConfig(**opts), text_protocol=text_protocol)
    raise ValueError(f"agent {name!r} has no interactive form; choose from {', '.join(TURN_AGENTS)}")


def _oracle(suite: Suite, **options: Any) -> Agent:
    return OracleAgent(suite)


def _noop(suite: Suite, **options: Any) -> Agent:
    return NoopAgent()


def _baseline(suite: Suite, **options: Any) -> Agent:
    agent = suite.baseline_agent() if isinstance(suite, BaselineAgent) else None
    if agent is None:
        raise ValueError(f"suite {suite.name!r} has no baseline agent")
    return agent


def _llm(suite: Suite, **options: Any) -> Agent:
    from simreflect.agents.llm import LLMAgent, LLMConfig

    if options.get("cache_dir"):
        options["cache_dir"] = Path(options["cache_dir"])
    return LLMAgent(LLMConfig(**options))
