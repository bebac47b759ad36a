"""The exact versions of simreflect's runtime dependencies in this environment (an export's pins).

pace's pinned metrics (tasks/<id>/pinned_metrics.json) fingerprint Box2D's floats under one Python
and one set of libraries; an exported task's images install exactly what this environment has, so
the verifier there repeats the verdicts made here."""

from __future__ import annotations

import importlib.metadata as metadata
import re
import sys

from packaging.markers import default_environment
from packaging.requirements import Requirement

#: Installers, never runtime dependencies.
_NOT_PINNED = {"pip", "setuptools", "wheel"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_requirements(root: str = "simreflect") -> list[str]:
    """`name==version` for every distribution `root` needs at run time (extras left out), sorted.

    Raises LookupError when a needed distribution is not installed (an export must not pin a guess)."""
    env = default_environment()
    seen: dict[str, str] = {}
    todo = [root]
    while todo:
        for line in _distribution(todo.pop()).requires or []:
            req = Requirement(line)
            if req.marker is not None and not req.marker.evaluate({**env, "extra": ""}):
                continue
            key = _canonical(req.name)
            if key in seen or key in _NOT_PINNED:
                continue
            seen[key] = _distribution(req.name).version
            todo.append(req.name)
    return sorted(f"{k}=={v}" for k, v in seen.items())


def _distribution(name: str) -> metadata.Distribution:
    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise LookupError(f"{name} is needed but not installed here, so its version cannot be pinned") from None


def python_image() -> str:
    """The Docker base image of this interpreter's minor version (the pins hold for it alone)."""
    return f"python:{sys.version_info.major}.{sys.version_info.minor}-slim"
