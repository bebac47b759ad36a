"""The one registry: suites, agents, methods, workshop builds and suites' command groups, each entry
with its help text. Core never names one.

An entry comes from one of two places and is looked up the same way:
  - the module that owns a kind registers its own entries (`register`): the workshop's builds
    package its builds, cli.py the command groups;
  - any installed distribution declares entry points, one group per kind (KINDS), e.g.
        [project.entry-points."simreflect.agents"]
        mine = "my_package.agent:MyAgent"
    so a third-party package adds a suite, an agent or a method through its metadata alone.
A name registered in code wins over an entry point of the same name, and this distribution's entry
point over another's (a plugin cannot replace `pace` by declaring the name). This package's suites,
agents and methods are entry points of its own distribution (pyproject.toml).
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Callable

from simreflect.core.suite import Suite

#: kind -> its entry-point group.
KINDS: dict[str, str] = {
    "suite": "simreflect.suites",
    "agent": "simreflect.agents",
    "method": "simreflect.methods",
    "build": "simreflect.workshop.builds",
    "commands": "simreflect.commands",
}


@dataclass(frozen=True)
class Entry:
    kind: str
    name: str
    #: "module:attribute", or the object itself.
    target: Any
    help: str = ""
    #: "simreflect" for this package's own entries, else the distribution that declared the entry point.
    origin: str = "simreflect"

    def load(self) -> Any:
        """The object the entry names; EntryLoadError (naming the entry, its target and its
        distribution) when it cannot be imported, whatever the target's module raises."""
        if not isinstance(self.target, str):
            return self.target
        module, _, attr = self.target.partition(":")
        try:
            obj = importlib.import_module(module)
            for part in filter(None, attr.split(".")):
                obj = getattr(obj, part)
        except Exception as e:  # noqa: BLE001 - any failure of a plugin's module is this entry's, named
            raise EntryLoadError(self, e) from e
        return obj

    def describe(self) -> str:
        """The help text: the registered one, else the loaded object's `summary`, `help`, `title` or
        the first sentence of its (or its module's) docstring."""
        if self.help:
            return self.help
        try:
            obj = self.load()
        except EntryLoadError as e:  # a broken third-party entry is listed with why, not fatal
            return f"(cannot be loaded: {e.reason})"
        for attr in ("summary", "help", "title"):
            text = getattr(obj, attr, None)
            if isinstance(text, str) and text.strip():
                return text.strip()
        return first_sentence(getattr(obj, "__doc__", None) or getattr(inspect.getmodule(obj), "__doc__", None) or "")


class EntryLoadError(ImportError):
    """An entry (most often a third-party entry point) whose target cannot be imported."""

    def __init__(self, entry: Entry, cause: BaseException) -> None:
        self.entry = entry
        self.reason = f"{type(cause).__name__}: {cause}"
        source = "" if entry.origin == OWN_DISTRIBUTION else f", an entry point of {entry.origin}"
        super().__init__(f"{entry.kind} {entry.name!r} ({entry.target}{source}) cannot be loaded: {self.reason}")


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring, on one line."""
    text = " ".join(doc.split())
    end = re.search(r"(?<!\bal)\.(\s|$)", text)  # "et al." ends no sentence
    return text if end is None else text[:end.start() + 1]


OWN_DISTRIBUTION = "simreflect"
_entries: dict[str, dict[str, Entry]] = {kind: {} for kind in KINDS}
_discovered: set[str] = set()
_suites: dict[str, Suite] = {}


def _kind(kind: str) -> dict[str, Entry]:
    if kind not in KINDS:
        raise KeyError(f"unknown registry kind {kind!r}; kinds are {', '.join(KINDS)}")
    if kind not in _discovered:
        _discovered.add(kind)
        for ep in entry_points(group=KINDS[kind]):
            origin = ep.dist.name if ep.dist is not None else "?"
            known = _entries[kind].get(ep.name)
            # this package's own name wins, whatever order the path lists distributions in: a plugin
            # cannot stand in for `pace` by declaring the same name
            if known is None or (origin == OWN_DISTRIBUTION and known.origin != OWN_DISTRIBUTION):
                _entries[kind][ep.name] = Entry(kind, ep.name, ep.value, origin=origin)
    return _entries[kind]


def register(kind: str, name: str, target: Any, help: str = "") -> None:
    """Add (or replace) an entry of `kind` in code."""
    _kind(kind)[name] = Entry(kind, name, target, help)
    if kind == "suite":
        _suites.pop(name, None)


def unregister(kind: str, name: str) -> None:
    """Forget an entry registered in code (tests); an entry point of that name is found again."""
    _kind(kind).pop(name, None)
    _discovered.discard(kind)
    if kind == "suite":
        _suites.pop(name, None)


def entries(kind: str) -> list[Entry]:
    """Every entry of `kind`, by name."""
    return [e for _, e in sorted(_kind(kind).items())]


def names(kind: str) -> list[str]:
    return sorted(_kind(kind))


def entry(kind: str, name: str) -> Entry:
    known = _kind(kind)
    if name not in known:
        raise KeyError(f"unknown {kind} {name!r}; known: {', '.join(sorted(known)) or 'none'}")
    return known[name]


def load(kind: str, name: str) -> Any:
    """The object an entry names (a class, a factory, a typer app ...)."""
    return entry(kind, name).load()


# ----- suites -----------------------------------------------------------------------------------------

def register_suite(name: str, factory: Callable[[], Suite], help: str = "") -> None:
    register("suite", name, factory, help)


def unregister_suite(name: str) -> None:
    unregister("suite", name)


def suite_names() -> list[str]:
    return names("suite")


def get_suite(name: str) -> Suite:
    """The suite `name` (one instance per process)."""
    if name not in _suites:
        known = _kind("suite")
        if name not in known:
            raise KeyError(f"unknown suite {name!r}; known suites: {', '.join(sorted(known)) or 'none'}")
        _suites[name] = known[name].load()()
    return _suites[name]
