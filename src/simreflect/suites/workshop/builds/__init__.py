"""The builds of the workshop suite, one module each; `get_build(name)` gives its template."""

from __future__ import annotations

from simreflect.suites.workshop.builds.spec import BuildSpec, BuildTemplate

BUILD_NAMES = ("place", "lap", "frame")


def get_build(name: str) -> BuildTemplate:
    if name == "place":
        from simreflect.suites.workshop.builds.place import BUILD
    elif name == "lap":
        from simreflect.suites.workshop.builds.lap import BUILD
    elif name == "frame":
        from simreflect.suites.workshop.builds.frame import BUILD
    else:
        raise KeyError(f"unknown build {name!r}; builds are {', '.join(BUILD_NAMES)}")
    return BUILD


__all__ = ["BUILD_NAMES", "BuildSpec", "BuildTemplate", "get_build"]
