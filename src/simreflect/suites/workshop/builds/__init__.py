"""The builds of the workshop suite, one module each, registered in the core registry (kind "build",
entry-point group simreflect.workshop.builds: a package may add one); `get_build(name)` gives its
template."""

from __future__ import annotations

from simreflect.core import registry
from simreflect.suites.workshop.builds.spec import BuildSpec, BuildTemplate

#: This package's builds, in the order the suite lists them.
BUILD_NAMES = ("place", "lap", "frame", "ell")
#: Builds with a spec but no reference controller yet: registered (get_build, serve, grade) but not
#: in the suite's task list, whose every task has an oracle.
SPEC_ONLY_BUILDS = ("bench",)
for _name in BUILD_NAMES + SPEC_ONLY_BUILDS:
    registry.register("build", _name, f"simreflect.suites.workshop.builds.{_name}:BUILD")


def build_names() -> list[str]:
    """Every registered build: this package's, then those of installed entry points."""
    extra = [n for n in registry.names("build") if n not in BUILD_NAMES]
    return [*BUILD_NAMES, *extra]


def get_build(name: str) -> BuildTemplate:
    try:
        return registry.load("build", name)
    except KeyError:
        raise KeyError(f"unknown build {name!r}; builds are {', '.join(build_names())}") from None


__all__ = ["BUILD_NAMES", "SPEC_ONLY_BUILDS", "BuildSpec", "BuildTemplate", "build_names", "get_build"]
