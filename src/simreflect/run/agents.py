"""Building an agent from its name and options (picklable, so each worker process builds its own)."""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Agent
from simreflect.core import registry
from simreflect.core.suite import Suite
from simreflect.core.task import Task

#: This package's own agents and methods: entry points of its distribution (pyproject.toml, groups
#: simreflect.agents and simreflect.methods), found by the core registry like a third-party package's:
#: an agent is a callable (suite, **options) -> Agent, a method a class (agent, **options).
AGENT_NAMES = tuple(e.name for e in registry.entries("agent") if e.origin == registry.OWN_DISTRIBUTION)
#: --method NAME (or NAME:key=value,...): the strategies of simreflect.agents.methods (docs/methods.md)
METHOD_NAMES = tuple(e.name for e in registry.entries("method") if e.origin == registry.OWN_DISTRIBUTION)


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
    method_class = _load("method", method_name)
    try:
        return method_class(agent, **method_options)
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
    if name not in agent_names():
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(agent_names())}")
    return _load("agent", name)(suite, **options)


def _load(kind: str, name: str) -> Any:
    """The registered object, or ValueError naming the entry point that cannot be loaded (the
    others still load: each is imported only when chosen)."""
    try:
        return registry.load(kind, name)
    except registry.EntryLoadError as e:
        raise ValueError(str(e)) from None


#: The agents of interactive episodes (--mode interactive): the suite's oracle driving the session
#: through tool calls, a noop that finishes at once, and a model with tools.
TURN_AGENTS = ("oracle", "reference", "noop", "llm")


def make_turn_agent(name: str, suite: Suite, task: Task, options: dict[str, Any] | None = None):
    """The interactive agent `name` for one task (core.interactive.TurnAgent)."""
    from simreflect.agents.interactive import DEFAULT_HISTORY_TURNS, NoopTurnAgent, ToolLLMAgent
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
        history = opts.pop("history_turns", DEFAULT_HISTORY_TURNS)
        return ToolLLMAgent(LLMConfig(**opts), text_protocol=text_protocol, history_turns=history)
    raise ValueError(f"agent {name!r} has no interactive form; choose from {', '.join(TURN_AGENTS)}")
