"""The suite registry: suites register themselves; core never names one.

Suites are found through the `simreflect.suites` entry-point group, each entry naming a Suite
class (so a third-party package can add one) and through explicit `register_suite` calls.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Callable

from simreflect.core.suite import Suite

_factories: dict[str, Callable[[], Suite]] = {}
_instances: dict[str, Suite] = {}


def register_suite(name: str, factory: Callable[[], Suite]) -> None:
    _factories[name] = factory


def unregister_suite(name: str) -> None:
    """Forget a suite registered with `register_suite` (tests); an entry point comes back on lookup."""
    _factories.pop(name, None)
    _instances.pop(name, None)


def _discover() -> None:
    for ep in entry_points(group="simreflect.suites"):
        _factories.setdefault(ep.name, lambda ep=ep: ep.load()())


def suite_names() -> list[str]:
    _discover()
    return sorted(_factories)


def get_suite(name: str) -> Suite:
    if name not in _instances:
        _discover()
        if name not in _factories:
            raise KeyError(f"unknown suite {name!r}; known suites: {', '.join(sorted(_factories)) or 'none'}")
        _instances[name] = _factories[name]()
    return _instances[name]
